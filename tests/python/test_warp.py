"""test_warp.py -- warp(), photometric_error() and fb_check() against an
independent numpy computation and against `flow-tool warp`, `flow-tool
photo-error` and `flow-tool fb-check` on the same files, and their
refusals."""
import numpy as np
import pytest

import flowplatform as fp
from conftest import tool


def bilinear_warp(frame, flow, fill):
    """frame(x + flow(x)) by bilinear interpolation in float64, fill where
    the flow is unknown or the point leaves the frame; and the known mask."""
    h, w = flow.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    u, v = flow[..., 0].astype(np.float64), flow[..., 1].astype(np.float64)
    with np.errstate(invalid="ignore"):
        unknown = ~(np.abs(u) <= 1e9) | ~(np.abs(v) <= 1e9)
    px = x + np.where(unknown, 0, u)
    py = y + np.where(unknown, 0, v)
    known = ~unknown & (px >= 0) & (px <= w - 1) & (py >= 0) & (py <= h - 1)
    px, py = np.clip(px, 0, w - 1), np.clip(py, 0, h - 1)
    x0, y0 = np.floor(px).astype(int), np.floor(py).astype(int)
    x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
    ax, ay = px - x0, py - y0
    f = frame.astype(np.float64)
    if f.ndim == 2:
        f = f[..., None]
    ax, ay = ax[..., None], ay[..., None]
    out = ((1 - ay) * ((1 - ax) * f[y0, x0] + ax * f[y0, x1])
           + ay * ((1 - ax) * f[y1, x0] + ax * f[y1, x1]))
    out[~known] = fill
    return (out[..., 0] if frame.ndim == 2 else out), known


@pytest.fixture
def holed_flow(translation):
    """The ground truth of the first pair scaled up so that vectors leave
    the frame at two borders, with a few unknown vectors."""
    flow = translation.gt[0] * 4
    flow[3, 4] = 1e10
    flow[10, 20, 0] = np.nan
    return flow


@pytest.mark.parametrize("sequence", ["translation", "rotation_rgb"])
def test_warp_equals_independent(sequence, request):
    seq = request.getfixturevalue(sequence)
    flow = seq.gt[0] * 4
    flow[3, 4] = 1e10
    warped, known = fp.warp(seq.frames[1], flow, fill=17)
    want, want_known = bilinear_warp(seq.frames[1], flow, 17)
    assert warped.dtype == np.float32 and warped.shape == seq.frames[1].shape
    assert known.dtype == np.bool_ and np.array_equal(known, want_known)
    assert 0 < (~known).sum() < known.size // 2
    np.testing.assert_allclose(warped, want, atol=2e-3)


def test_warp_by_ground_truth_gives_frame1(translation):
    """Warped back along the true flow, frame 2 is frame 1 up to the
    bilinear interpolation of a fine texture (2.4 grey levels measured),
    where a zero flow leaves 13.3 and the reversed flow 23.9."""
    f1, f2 = translation.frames[:2]
    gt = translation.gt[0]
    err, mean = fp.photometric_error(f1, f2, gt)
    _, mean_zero = fp.photometric_error(f1, f2, np.zeros_like(gt))
    _, mean_reversed = fp.photometric_error(f1, f2, -gt)
    assert err.shape == f1.shape and err.dtype == np.float32
    assert mean < 3 and mean_zero > 4 * mean and mean_reversed > mean_zero


def test_photometric_error_equals_independent(rotation_rgb):
    f1, f2 = rotation_rgb.frames[:2]
    flow = rotation_rgb.gt[0] * 3
    err, mean = fp.photometric_error(f1, f2, flow)
    warped, known = bilinear_warp(f2, flow, 0)
    want = np.abs(f1.astype(np.float64) - warped).mean(axis=2)
    assert np.array_equal(np.isnan(err), ~known)
    np.testing.assert_allclose(err[known], want[known], atol=2e-3)
    assert mean == pytest.approx(want[known].mean(), abs=1e-4)


def test_warp_equals_flow_tool(translation, holed_flow, tmp_path):
    fp.write_flow(tmp_path / "w.flo", holed_flow)
    out = tool("flow-tool", "warp", "--fill", 9, "--mask", tmp_path / "m.png",
               translation.paths[1], tmp_path / "w.flo", tmp_path / "warped.png")
    warped, known = fp.warp(translation.frames[1], holed_flow, fill=9)
    assert np.array_equal(fp.read_image(tmp_path / "warped.png"),
                          np.clip(np.round(warped), 0, 255))
    assert np.array_equal(fp.read_image(tmp_path / "m.png") > 0, known)
    assert f"warped: {known.sum()} of {known.size} pixels" in out


def test_photometric_error_equals_flow_tool(translation, holed_flow, tmp_path):
    fp.write_flow(tmp_path / "w.flo", holed_flow)
    out = tool("flow-tool", "photo-error", translation.paths[0], translation.paths[1],
               tmp_path / "w.flo", tmp_path / "e.png")
    _, mean = fp.photometric_error(*translation.frames[:2], holed_flow)
    assert f"mean {mean:.4f} grey levels" in out


def test_fb_check_equals_flow_tool(translation, tmp_path):
    f1, f2 = translation.frames[:2]
    fwd = fp.compute(f1, f2, "lk", "cpu")
    bwd = fp.compute(f2, f1, "lk", "cpu")
    fp.write_flow(tmp_path / "f.flo", fwd)
    fp.write_flow(tmp_path / "b.flo", bwd)
    out = tool("flow-tool", "fb-check", "-t", 0.5, "-o", tmp_path / "c.flo",
               tmp_path / "f.flo", tmp_path / "b.flo")
    checked, st = fp.fb_check(fwd, bwd, 0.5)
    assert np.array_equal(checked, fp.read_flow(tmp_path / "c.flo"))
    assert f"kept: {st['kept']} of {st['total']} pixels" in out
    assert st["kept"] + st["unknown_fwd"] + st["outside"] + st["unknown_bwd"] \
        + st["inconsistent"] == st["total"]
    assert st["density"] == pytest.approx(st["kept"] / st["total"])
    assert np.array_equal(fwd, fp.compute(f1, f2, "lk", "cpu")), "the input is not changed"


def test_refusals(translation):
    f = translation.frames[0]
    flow = translation.gt[0]
    with pytest.raises(ValueError, match="frame2 is 96 x 71 but flow is 96 x 72: sizes must match"):
        fp.warp(f[:71], flow)
    with pytest.raises(ValueError, match="frame1 is 96 x 72 with 3 channels but frame2 is "
                                         "96 x 72 with 1 channel: they must match"):
        fp.photometric_error(np.dstack([f, f, f]), f, flow)
    with pytest.raises(fp.ParameterError, match="fill"):
        fp.warp(f, flow, fill=float("nan"))
    with pytest.raises(fp.ParameterError, match="threshold"):
        fp.fb_check(flow, flow.copy(), 0)
    with pytest.raises(TypeError):
        fp.warp(f.astype(np.int16), flow)
