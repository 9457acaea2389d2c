"""test_measure.py -- error() against `flow-tool error --csv` and
flow_to_color() against `flow-tool color`, on the same files, and their
refusals."""
import os

import numpy as np
import pytest

import flowplatform as fp
from conftest import tool


# flow-tool's columns for a confidence map and an occlusion estimate, which
# Python scores with sparsification() and occlusion_score()
ESTIMATE_COLUMNS = ("ause", "ause_relative", "occ_precision", "occ_recall", "occ_f1")


def flow_tool_error(*args):
    """flow-tool error --csv ARGS as a dict of floats, None for an empty
    field (a measure that is not defined)."""
    header, values = tool("flow-tool", "error", "--csv", *args).split()
    cli = {k: float(v) if v else None for k, v in zip(header.split(","), values.split(","))}
    assert all(cli.pop(k) is None for k in ESTIMATE_COLUMNS)
    return cli


def assert_same_figures(stats, cli):
    assert list(stats._fields) == list(cli)
    for name, value in cli.items():
        if value is None:
            assert getattr(stats, name) is None, name
        else:
            assert getattr(stats, name) == pytest.approx(value, rel=1e-8, abs=1e-12), name


@pytest.fixture
def estimate(translation):
    """A computed flow with two vectors marked unknown, its ground truth
    with three unknown, both written as .flo."""
    est = fp.compute(*translation.frames[:2], "hs", "cpu")
    est[5, 5] = est[6, 7] = 1e10
    gt = translation.gt[0].copy()
    gt[0, :3] = np.nan
    return est, gt


def test_error_equals_flow_tool(estimate, tmp_path):
    est, gt = estimate
    fp.write_flow(tmp_path / "est.flo", est)
    fp.write_flow(tmp_path / "gt.flo", gt)
    stats = fp.error(est, gt)
    assert_same_figures(stats, flow_tool_error(tmp_path / "est.flo", tmp_path / "gt.flo"))
    assert stats.unknown_est == 2 and stats.unknown_gt == 3
    assert stats.scored == 72 * 96 - 5 and stats.density == pytest.approx(stats.scored / (72 * 96 - 3))
    assert stats.aee < 0.1


def test_error_with_a_mask_equals_flow_tool(estimate, tmp_path):
    est, gt = estimate
    mask = np.zeros(gt.shape[:2], np.uint8)
    mask[10:60, 20:80] = 255
    fp.write_flow(tmp_path / "est.flo", est)
    fp.write_flow(tmp_path / "gt.flo", gt)
    fp.write_image(tmp_path / "mask.png", mask)
    cli = flow_tool_error("--mask", tmp_path / "mask.png", tmp_path / "est.flo",
                          tmp_path / "gt.flo")
    for m in (mask, mask > 0):
        stats = fp.error(est, gt, mask=m)
        assert_same_figures(stats, cli)
    assert stats.outside_mask == 72 * 96 - 50 * 60


def test_error_on_real_data_equals_flow_tool(data, tmp_path):
    d = f"{data}/middlebury/RubberWhale"
    est = fp.compute(fp.read_image(f"{d}/frame10.png"), fp.read_image(f"{d}/frame11.png"),
                     "dis", "cpu")
    fp.write_flow(tmp_path / "est.flo", est)
    stats = fp.error(est, fp.read_flow(f"{d}/flow10.flo"))
    assert_same_figures(stats, flow_tool_error(tmp_path / "est.flo", f"{d}/flow10.flo"))
    assert stats.unknown_gt > 0


def test_error_refusals(estimate):
    est, gt = estimate
    nan = est.copy()
    nan[3, 4, 0] = np.nan
    with pytest.raises(fp.Error, match="NaN|nan"):
        fp.error(nan, gt)
    with pytest.raises(ValueError, match="no pixel to score"):
        fp.error(est, gt, mask=np.zeros(gt.shape[:2], bool))
    with pytest.raises(ValueError, match="sizes must match"):
        fp.error(est[:10], gt)
    with pytest.raises(ValueError, match="mask has shape"):
        fp.error(est, gt, mask=np.ones((3, 3), bool))
    with pytest.raises(TypeError, match="mask has dtype float"):
        fp.error(est, gt, mask=np.ones(gt.shape[:2]))


@pytest.mark.parametrize("scale", [None, 0.5])
def test_color_equals_flow_tool(estimate, tmp_path, scale):
    est, _ = estimate  # two unknown vectors: black
    fp.write_flow(tmp_path / "est.flo", est)
    args = ["--max", scale] if scale else []
    tool("flow-tool", "color", *args, tmp_path / "est.flo", tmp_path / "color.png")
    picture = fp.flow_to_color(est, max=scale)
    assert picture.shape == (72, 96, 3) and picture.dtype == np.uint8
    np.testing.assert_array_equal(picture, fp.read_image(tmp_path / "color.png"))
    assert picture[5, 5].tolist() == [0, 0, 0]


def test_color_code_directions():
    """Right is red, no motion white (the Middlebury wheel)."""
    f = np.zeros((1, 2, 2), np.float32)
    f[0, 1] = (1, 0)
    picture = fp.flow_to_color(f)
    assert picture[0, 0].tolist() == [255, 255, 255]
    assert picture[0, 1].tolist() == [255, 0, 0]


def test_color_refusals():
    f = np.zeros((4, 4, 2), np.float32)
    for bad in (0, -1, float("inf")):
        with pytest.raises(ValueError, match="max"):
            fp.flow_to_color(f, max=bad)
    with pytest.raises(ValueError, match="H x W x 2"):
        fp.flow_to_color(f[..., :1])


def test_color_legend_equals_flow_tool(tmp_path):
    tool("flow-tool", "legend", "--size", 96, tmp_path / "legend.png")
    key = fp.color_legend(96)
    assert key.shape == (96, 96, 3) and key.dtype == np.uint8
    np.testing.assert_array_equal(key, fp.read_image(tmp_path / "legend.png"))
    assert fp.color_legend().shape == (256, 256, 3)
    with pytest.raises(fp.ParameterError, match="legend size 16 out of range"):
        fp.color_legend(16)


# ---- the benchmarks' measures against numpy ----------------------------------------

def numpy_measures(est, gt, mask=None, invalid=None, occlusions=None, noc=None, objmap=None,
                   distance=None):
    """Every figure of flow-tool error's CSV computed here with numpy in
    float64, from the definitions of docs/EVALUATION.md; None where a
    measure is not defined.  distance(occluded) gives the Euclidean
    distance of every pixel to the nearest occluded one."""
    def known(f):
        return np.all(np.abs(f) <= 1e9, axis=-1)  # NaN compares False: unknown
    inside = np.ones(gt.shape[:2], bool) if mask is None else mask != 0
    valid = inside if invalid is None else inside & (invalid == 0)
    scored = valid & known(gt) & known(est)
    e, g = est.astype(np.float64)[scored], gt.astype(np.float64)[scored]
    ee = np.hypot(e[:, 0] - g[:, 0], e[:, 1] - g[:, 1])
    length = np.hypot(g[:, 0], g[:, 1])
    outlier = (ee > 3) & (ee > 0.05 * length)
    cos = (e[:, 0] * g[:, 0] + e[:, 1] * g[:, 1] + 1) / np.sqrt(
        (e[:, 0] ** 2 + e[:, 1] ** 2 + 1) * (g[:, 0] ** 2 + g[:, 1] ** 2 + 1))
    ae = np.degrees(np.arccos(np.clip(cos, -1, 1)))

    def mean(x, where):
        return float(x[where].mean()) if where.any() else None

    def share(where):
        return float(100 * outlier[where].mean()) if where.any() else None

    n = ee.size
    r = dict(aae=ae.mean(), aae_std=ae.std(), aee=ee.mean(), aee_std=ee.std(),
             over1=np.mean(ee > 1), over3=np.mean(ee > 3), max_ee=ee.max(), scored=n,
             total=gt.shape[0] * gt.shape[1], outside_mask=int((~inside).sum()),
             unknown_gt=int((valid & ~known(gt)).sum()),
             unknown_est=int((valid & known(gt) & ~known(est)).sum()),
             px1=100 * np.mean(ee > 1), px3=100 * np.mean(ee > 3), px5=100 * np.mean(ee > 5),
             fl=100 * outlier.mean())
    occluded = None
    if occlusions is not None:
        occluded = (occlusions != 0)[scored]
    elif noc is not None:
        occluded = ~known(noc)[scored]
    everything = np.ones(n, bool)
    r.update(epe_noc=mean(ee, ~occluded) if occluded is not None else None,
             epe_occ=mean(ee, occluded) if occluded is not None else None,
             scored_noc=int((~occluded).sum()) if occluded is not None else None,
             scored_occ=int(occluded.sum()) if occluded is not None else None,
             fl_noc=share(~occluded) if occluded is not None else None,
             fl_occ=share(occluded) if occluded is not None else None)
    fg = None if objmap is None else (objmap != 0)[scored]
    r.update(fl_bg=share(~fg) if fg is not None else None,
             fl_fg=share(fg) if fg is not None else None,
             s0_10=mean(ee, length < 10), s10_40=mean(ee, (length >= 10) & (length < 40)),
             s40=mean(ee, length >= 40))
    if occlusions is None:
        r.update(d0_10=None, d10_60=None, d60_140=None)
    else:
        d = distance(occlusions != 0)[scored]
        for name, lo, hi in (("d0_10", 0, 10), ("d10_60", 10, 60), ("d60_140", 60, 140)):
            r[name] = mean(ee, everything & ~occluded & (d >= lo) & (d < hi))
    r["invalid"] = 0 if invalid is None else int((inside & (invalid != 0)).sum())
    return r


def brute_distance(occluded):
    """The distance of every pixel to the nearest occluded one, by search."""
    ys, xs = np.nonzero(occluded)
    yy, xx = np.mgrid[:occluded.shape[0], :occluded.shape[1]]
    if ys.size == 0:
        return np.full(occluded.shape, np.inf)
    d2 = (yy[..., None] - ys) ** 2 + (xx[..., None] - xs) ** 2
    return np.sqrt(d2.min(axis=-1))


def opencv_distance(occluded):
    """The same by OpenCV's exact Euclidean transform (to its zero pixels)."""
    import cv2
    return cv2.distanceTransform(np.where(occluded, 0, 1).astype(np.uint8), cv2.DIST_L2,
                                 cv2.DIST_MASK_PRECISE).astype(np.float64)


def assert_matches(figures, want, rel=1e-7):
    assert list(figures) == list(want)
    for name, value in want.items():
        if value is None:
            assert figures[name] is None, name
        else:
            assert figures[name] == pytest.approx(value, rel=rel, abs=1e-9), name


@pytest.fixture
def regions():
    """A 40 x 170 field with every kind of pixel: speeds 0..60 px, unknown
    ground truth and estimates, and maps whose occluded pixels lie in the
    first columns so that distances reach past 140 px."""
    rng = np.random.default_rng(44)
    h, w = 40, 170
    gt = (rng.random((h, w, 2)) * 60 - 30).astype(np.float32)
    gt[rng.random((h, w)) < 0.3] *= 0.1  # slow pixels too
    est = (gt + rng.normal(0, 2.5, (h, w, 2))).astype(np.float32)
    gt[rng.random((h, w)) < 0.05] = np.nan
    est[rng.random((h, w)) < 0.03] = 1e10
    occlusions = np.zeros((h, w), np.uint8)
    occlusions[:, :4][rng.random((h, 4)) < 0.5] = 255
    return dict(est=est, gt=gt,
                mask=(rng.random((h, w)) < 0.9).astype(np.uint8),
                invalid=(rng.random((h, w)) < 0.05).astype(np.uint8) * 255,
                occlusions=occlusions,
                objmap=(rng.random((h, w)) < 0.3).astype(np.uint8) * 7)


def test_measures_equal_numpy_and_flow_tool(regions, tmp_path):
    r = regions
    stats = fp.error(r["est"], r["gt"], mask=r["mask"], invalid=r["invalid"],
                     occlusions=r["occlusions"], objmap=r["objmap"])
    want = numpy_measures(r["est"], r["gt"], r["mask"], r["invalid"], r["occlusions"],
                          objmap=r["objmap"], distance=brute_distance)
    assert all(want[k] is not None for k in want)  # every measure is defined here
    assert_matches(stats._asdict(), want)
    fp.write_flow(tmp_path / "est.flo", r["est"])
    fp.write_flow(tmp_path / "gt.flo", r["gt"])
    for name in ("mask", "invalid", "occlusions", "objmap"):
        fp.write_image(tmp_path / f"{name}.png", r[name])
    cli = flow_tool_error("--mask", tmp_path / "mask.png", "--invalid", tmp_path / "invalid.png",
                          "--occlusions", tmp_path / "occlusions.png",
                          "--objmap", tmp_path / "objmap.png", tmp_path / "est.flo",
                          tmp_path / "gt.flo")
    assert_matches(cli, want)


def test_measures_with_a_noc_field_equal_numpy(regions):
    r = regions
    noc = r["gt"].copy()
    noc[r["occlusions"] != 0] = np.nan
    stats = fp.error(r["est"], r["gt"], invalid=r["invalid"], noc=noc)
    want = numpy_measures(r["est"], r["gt"], invalid=r["invalid"], noc=noc)
    assert_matches(stats._asdict(), want)
    assert stats.scored_occ > 0 and stats.d0_10 is None and stats.fl_bg is None


def test_measures_not_defined(regions):
    r = regions
    stats = fp.error(r["est"], r["gt"])
    assert stats.epe_noc is None and stats.scored_noc is None and stats.d0_10 is None
    slow = np.nan_to_num(r["gt"]) * 0.01
    assert fp.error(slow, slow).s40 is None
    with pytest.raises(ValueError, match="give one"):
        fp.error(r["est"], r["gt"], occlusions=r["occlusions"], noc=r["gt"])
    with pytest.raises(ValueError, match="occlusions has shape"):
        fp.error(r["est"], r["gt"], occlusions=r["occlusions"][:3])
    with pytest.raises(TypeError, match="invalid has dtype float"):
        fp.error(r["est"], r["gt"], invalid=np.zeros(r["gt"].shape[:2]))


# ---- real pairs: every printed figure against numpy -------------------------------

def read_mask_png(path):
    import cv2
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    assert img is not None, path
    return (img.reshape(img.shape[0], img.shape[1], -1) != 0).any(axis=-1).astype(np.uint8)


def read_kitti_png(path):
    """A KITTI flow PNG read here: OpenCV gives B, G, R; unknown where B = 0."""
    import cv2
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    assert img is not None and img.dtype == np.uint16, path
    flow = (img[..., 2:0:-1].astype(np.float64) - 2 ** 15) / 64
    flow[img[..., 0] == 0] = np.nan
    return flow.astype(np.float32)


def numbers(text):
    """The numbers written in a line of text."""
    import re
    return [float(x) for x in re.findall(r"-?\d+\.\d+|\b\d+\b", text)]


def check_human(out, want):
    """flow-tool error's human lines print want's figures, rounded."""
    lines = {line.split(":")[0]: line for line in out.splitlines()}
    num = numbers
    assert num(lines["AEE"])[:2] == pytest.approx([want["aee"], want["aee_std"]], abs=5e-5)
    assert num(lines["EE > 1 px"])[-1] == pytest.approx(want["px1"], abs=5e-3)
    assert num(lines["EE > 3 px"])[-1] == pytest.approx(want["px3"], abs=5e-3)
    assert num(lines["EE > 5 px"])[-1] == pytest.approx(want["px5"], abs=5e-3)
    assert num(lines["Fl (EE > 3 px and > 5% of |gt|)"])[-1] == pytest.approx(want["fl"], abs=5e-3)
    if want["epe_noc"] is not None:
        noc = num(lines["EPE noc"])
        assert noc[:4] == pytest.approx([want["epe_noc"], want["scored_noc"], want["epe_occ"],
                                         want["scored_occ"]], abs=5e-5)


def test_sintel_alley_1_final_equals_numpy(data, tmp_path):
    d = f"{data}/sintel/training"
    frames = [f"{d}/final/alley_1/frame_000{i}.png" for i in (2, 3)]
    if not all(os.path.exists(f) for f in frames):
        pytest.skip("no Sintel alley_1 in the data")
    gt_path = f"{d}/flow/alley_1/frame_0002.flo"
    occ_path, inv_path = (f"{d}/{k}/alley_1/frame_0002.png" for k in ("occlusions", "invalid"))
    est = fp.compute(*(fp.read_image(f) for f in frames), "robust", "cpu")
    fp.write_flow(tmp_path / "est.flo", est)
    args = ["--occlusions", occ_path, "--invalid", inv_path, tmp_path / "est.flo", gt_path]
    import cv2
    gt = cv2.readOpticalFlow(gt_path)
    want = numpy_measures(est, gt, invalid=read_mask_png(inv_path),
                          occlusions=read_mask_png(occ_path), distance=opencv_distance)
    assert want["scored_occ"] > 0 and want["invalid"] > 0
    assert_matches(flow_tool_error(*args), want)
    check_human(tool("flow-tool", "error", *args), want)


def test_kitti_2012_000045_equals_numpy(data, tmp_path):
    d = f"{data}/kitti2012/training"
    frames = [f"{d}/colored_0/000045_1{i}.png" for i in (0, 1)]
    gt_path = f"{d}/flow_noc/000045_10.png"
    if not all(os.path.exists(f) for f in frames + [gt_path]):
        pytest.skip("no KITTI 2012 000045 in the data")
    est = fp.compute(*(fp.read_image(f) for f in frames), "robust", "cpu")
    fp.write_flow(tmp_path / "est.flo", est)
    gt = read_kitti_png(gt_path)
    want = numpy_measures(est, gt)
    assert want["unknown_gt"] > 0 and want["fl"] > 0
    assert_matches(flow_tool_error(tmp_path / "est.flo", gt_path), want)
    check_human(tool("flow-tool", "error", tmp_path / "est.flo", gt_path), want)
    # the noc/occ split with flow_occ as gt and flow_noc beside it, here the
    # noc field cut to the left half standing in for a smaller noc
    noc = gt.copy()
    noc[:, : gt.shape[1] // 2] = np.nan
    fp.write_flow(tmp_path / "noc.flo", noc)
    want = numpy_measures(est, gt, noc=noc)
    assert want["scored_occ"] > 0 and want["scored_noc"] > 0
    args = ["--noc", tmp_path / "noc.flo", tmp_path / "est.flo", gt_path]
    assert_matches(flow_tool_error(*args), want)
    check_human(tool("flow-tool", "error", *args), want)
