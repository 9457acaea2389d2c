"""test_compute.py -- flowplatform.compute and Context.compute: accuracy on a
generated translation, the same flow as flow-compute, the frame types and
layouts a numpy user hands in, the device attributes, and the refusals of
wrong frames."""
import os

import numpy as np
import pytest

import flowplatform as fp
from conftest import tool


def endpoint_error(flow, gt, border=6):
    """The mean endpoint error in numpy, away from the border."""
    d = (flow - gt)[border:-border, border:-border]
    return float(np.mean(np.hypot(d[..., 0], d[..., 1])))


def test_translation_is_recovered(translation, device):
    f1, f2 = translation.frames[:2]
    flow = fp.compute(f1, f2, device=device)
    assert flow.shape == (72, 96, 2) and flow.dtype == np.float32
    assert np.all(np.isfinite(flow))
    assert endpoint_error(flow, translation.gt[0]) < 0.03
    assert abs(float(np.mean(flow[..., 0])) - 0.6) < 0.02
    assert abs(float(np.mean(flow[..., 1])) + 0.3) < 0.02


@pytest.mark.parametrize("method", ["lk", "hs", "clg", "clg-nl", "dis"])
def test_every_fast_method_computes(translation, device, method):
    flow = fp.compute(*translation.frames[:2], method=method, device=device)
    known = np.abs(flow).max(axis=2) <= 1e9  # lk may leave vectors unknown
    assert known.mean() > 0.5
    assert endpoint_error(np.where(known[..., None], flow, translation.gt[0]),
                          translation.gt[0]) < 0.2


def test_same_flow_as_flow_compute(translation, device, tmp_path):
    out = tmp_path / "cli.flo"
    tool("flow-compute", "-q", "--device", device, "-m", "clg-nl", "--alpha", 20,
         "--solver", "fmg", *translation.paths[:2], "-o", out)
    cli = fp.read_flow(out)
    flow = fp.compute(*translation.frames[:2], method="clg-nl", device=device, alpha=20,
                      solver="fmg")
    np.testing.assert_array_equal(flow, cli)


def test_parameters_change_the_flow(translation, device):
    f1, f2 = translation.frames[:2]
    smooth = fp.compute(f1, f2, "hs", device, alpha=500)
    rough = fp.compute(f1, f2, "hs", device, alpha=1)
    assert np.abs(smooth - rough).max() > 1e-3


def test_uint8_and_float32_frames_agree(translation, device):
    f1, f2 = translation.frames[:2]  # PNG samples: whole numbers
    b1, b2 = f1.astype(np.uint8), f2.astype(np.uint8)
    np.testing.assert_array_equal(fp.compute(b1, b2, "hs", device),
                                  fp.compute(f1, f2, "hs", device))
    np.testing.assert_array_equal(fp.compute(b1, f2, "hs", device),
                                  fp.compute(f1, f2, "hs", device))


def test_non_contiguous_frames_are_converted(translation, device):
    f1, f2 = translation.frames[:2]
    want = fp.compute(f1, f2, "hs", device)
    # Fortran order, a transposed view and a strided slice hold the same pixels
    t1, t2 = np.ascontiguousarray(f1.T).T, np.ascontiguousarray(f2.T).T
    assert not t1.flags.c_contiguous
    np.testing.assert_array_equal(fp.compute(t1, t2, "hs", device), want)
    wide = np.zeros((72, 192), np.float32)
    wide[:, ::2] = f1
    np.testing.assert_array_equal(fp.compute(wide[:, ::2], f2, "hs", device), want)
    for dtype in (np.uint8, np.float32):
        s1 = np.asfortranarray(f1.astype(dtype))[..., None]  # H x W x 1, not contiguous
        np.testing.assert_array_equal(fp.compute(s1, f2.astype(dtype), "hs", device), want)


def test_colour_frames(rotation_rgb, device):
    f1, f2 = rotation_rgb.frames[:2]
    assert f1.shape == (64, 80, 3)
    flow = fp.compute(f1, f2, "clg-nl", device)
    assert endpoint_error(flow, rotation_rgb.gt[0], 8) < 0.15
    # interleaved uint8 (numpy's layout, handed over in place) and strided
    # float32 (converted to planes) are the same frames
    b1 = f1.astype(np.uint8)
    np.testing.assert_array_equal(fp.compute(b1, f2.astype(np.uint8), "clg-nl", device), flow)
    bgr = np.ascontiguousarray(f1[..., ::-1])
    np.testing.assert_array_equal(fp.compute(bgr[..., ::-1], f2, "clg-nl", device), flow)


def test_cpu_device(translation):
    with fp.Context("hs", "cpu") as ctx:
        assert ctx.device_kind == "cpu"
        assert ctx.device.startswith("CPU (")
        assert ctx.notice == ""
        assert ctx.method == "hs"
        flow = ctx.compute(*translation.frames[:2])
    assert endpoint_error(flow, translation.gt[0]) < 0.1


def test_auto_device_names_itself():
    with fp.Context(device="auto") as ctx:
        assert ctx.device_kind in ("cpu", "cuda")
        if ctx.device_kind == "cpu" and fp.has_cuda:
            assert ctx.notice  # it says why it fell back


def test_unknown_device_is_refused():
    with pytest.raises(fp.ParameterError, match="gpu"):
        fp.Context(device="gpu")


@pytest.mark.parametrize("bad, error, message", [
    (np.zeros((8, 8), np.float64), TypeError, "float64.*uint8 or float32"),
    (np.zeros((8, 8), np.int32), TypeError, "int32"),
    ([[0.0] * 8] * 8, TypeError, "numpy array, not list"),
    (np.zeros((8, 8, 2), np.float32), ValueError, r"\(8, 8, 2\)"),
    (np.zeros(64, np.float32), ValueError, r"\(64,\)"),
    (np.zeros((0, 8), np.float32), ValueError, "empty"),
])
def test_wrong_frames_are_refused(bad, error, message):
    good = np.zeros((8, 8), np.float32)
    with pytest.raises(error, match="frame1 .*" + message):
        fp.compute(bad, good, device="cpu")


@pytest.mark.parametrize("shape2, message", [
    ((6, 8, 3), "frame1 is 8 x 6 with 1 channel but frame2 is 8 x 6 with 3 channels"),
    ((5, 8), "frame1 is 8 x 6 with 1 channel but frame2 is 8 x 5 with 1 channel"),
])
def test_frames_of_different_shapes_are_refused(shape2, message):
    with pytest.raises(ValueError) as e:
        fp.compute(np.zeros((6, 8), np.float32), np.zeros(shape2, np.float32), device="cpu")
    assert str(e.value) == message  # the whole message, its last word included


def test_library_failure_raises_error(tmp_path):
    missing = os.path.join(tmp_path, "missing.flo")
    with pytest.raises(fp.Error, match="missing.flo") as e:
        fp.read_flow(missing)
    assert isinstance(e.value, RuntimeError)
    assert e.value.status == "input/output error"


@pytest.mark.parametrize("value, said", [
    (np.nan, r"a non-finite value \(nan\)"),
    (-np.inf, r"a non-finite value \(-inf\)"),
    (1e30, r"the value 1e\+30"),
])
@pytest.mark.parametrize("which", ["first", "second"])
def test_non_finite_frames_are_refused(translation, device, value, said, which):
    frames = [f.copy() for f in translation.frames[:2]]
    frames[which == "second"][20:30, 30:40] = value  # rows 20..29, columns 30..39
    with pytest.raises(fp.Error, match=f"{which} frame has {said} at pixel \\(30, 20\\), "
                                       "channel 0") as e:
        fp.compute(*frames, method="hs", device=device)
    assert e.value.status == "invalid argument"


def test_a_refused_frame_changes_nothing(rotation_rgb, device):
    f1, f2 = rotation_rgb.frames[:2]
    bad = f2.copy()
    bad[5, 7, 2] = np.nan
    with fp.Context("clg-nl", device=device) as ctx:
        want = ctx.compute(f1, f2)
        assert ctx.next(f1) is not None
        with pytest.raises(fp.Error, match=r"second frame .*\(nan\) at pixel \(7, 5\), channel 2"):
            ctx.next(bad)
        with pytest.raises(fp.Error, match=r"second frame .*\(nan\) at pixel \(7, 5\), channel 2"):
            ctx.compute(f1, bad)
        assert np.array_equal(ctx.compute(f1, f2), want)
