"""test_uncertainty.py -- sparsification() and occlusion_score() against
numpy computations written here and against `flow-tool error
--confidence / --occlusion-estimate`, and their refusals."""
import numpy as np
import pytest

import flowplatform as fp
from conftest import tool


def numpy_curve(ee, key, steps):
    """Mean error left after removing floor(k n / steps) pixels in the
    order of increasing key, by sorting (keys distinct)."""
    order = np.argsort(key, kind="stable")
    e = ee[order].astype(np.float64)
    n = e.size
    return np.array([e[int(k * n / steps):].mean() for k in range(steps)])


@pytest.fixture
def fields():
    rng = np.random.default_rng(3)
    gt = rng.normal(0, 2, (40, 50, 2)).astype(np.float32)
    est = gt + rng.normal(0, 0.5, gt.shape).astype(np.float32)
    ee = np.hypot(est[..., 0] - gt[..., 0], est[..., 1] - gt[..., 1])
    return est, gt, ee


def test_sparsification_equals_numpy(fields):
    est, gt, ee = fields
    rng = np.random.default_rng(5)
    confidence = -ee + rng.normal(0, 0.3, ee.shape)  # a noisy but informative confidence
    r = fp.sparsification(est, gt, confidence, steps=25)
    curve = numpy_curve(ee.ravel(), confidence.astype(np.float32).ravel(), 25)
    oracle = numpy_curve(ee.ravel(), -ee.ravel(), 25)
    assert r["epe"] == pytest.approx(curve, rel=1e-5)
    assert r["oracle"] == pytest.approx(oracle, rel=1e-5)
    assert r["removed"] == pytest.approx(np.arange(25) / 25)
    assert r["ause"] == pytest.approx((curve - oracle).mean(), rel=1e-5)
    assert r["ause_relative"] == pytest.approx(r["ause"] / ee.mean(), rel=1e-5)
    assert r["scored"] == ee.size
    # an uninformative confidence does worse than an informative one
    assert fp.sparsification(est, gt, rng.random(ee.shape))["ause"] > r["ause"]


def test_sparsification_equals_flow_tool(fields, tmp_path):
    est, gt, ee = fields
    conf = np.clip(255 - ee * 80, 0, 255).astype(np.uint8)  # ties: equal bytes
    mask = np.ones(ee.shape, bool)
    mask[:5] = False
    fp.write_flow(tmp_path / "est.flo", est)
    fp.write_flow(tmp_path / "gt.flo", gt)
    fp.write_image(tmp_path / "conf.png", conf)
    fp.write_image(tmp_path / "mask.png", mask.astype(np.uint8) * 255)
    header, values = tool("flow-tool", "error", "--csv", "--steps", 40, "--confidence",
                          tmp_path / "conf.png", "--mask", tmp_path / "mask.png",
                          "--curve", tmp_path / "curve.txt", tmp_path / "est.flo",
                          tmp_path / "gt.flo").split()
    cli = dict(zip(header.split(","), values.split(",")))
    r = fp.sparsification(est, gt, conf, mask=mask, steps=40)
    assert r["ause"] == pytest.approx(float(cli["ause"]), rel=1e-7)
    assert r["ause_relative"] == pytest.approx(float(cli["ause_relative"]), rel=1e-7)
    table = np.loadtxt(tmp_path / "curve.txt", skiprows=1)
    assert table[:, 1] == pytest.approx(r["epe"], rel=1e-7)
    assert table[:, 2] == pytest.approx(r["oracle"], rel=1e-7)
    # equal confidences count by their share: a constant map is flat
    flat = fp.sparsification(est, gt, np.zeros(ee.shape), steps=10)["epe"]
    assert flat == pytest.approx(np.full(10, ee.mean()), rel=1e-5)


def test_sparsification_refusals(fields):
    est, gt, ee = fields
    with pytest.raises(ValueError, match=r"confidence .*expected \(40, 50\)"):
        fp.sparsification(est, gt, np.zeros((40, 49)))
    bad = np.zeros(ee.shape)
    bad[3, 7] = np.nan
    with pytest.raises(ValueError, match=r"non-finite value at pixel \(7, 3\)"):
        fp.sparsification(est, gt, bad)
    with pytest.raises(ValueError, match="steps"):
        fp.sparsification(est, gt, ee, steps=0)
    with pytest.raises(TypeError, match="dtype"):
        fp.sparsification(est, gt, np.zeros(ee.shape, complex))


def test_occlusion_score_equals_numpy():
    rng = np.random.default_rng(9)
    truth = rng.random((30, 41)) < 0.1
    estimate = truth ^ (rng.random(truth.shape) < 0.05)
    keep = rng.random(truth.shape) < 0.9
    r = fp.occlusion_score(estimate, truth, keep)
    t, e = truth[keep], estimate[keep]
    tp, fp_, fn = int((t & e).sum()), int((~t & e).sum()), int((t & ~e).sum())
    assert (r["true_pos"], r["false_pos"], r["false_neg"]) == (tp, fp_, fn)
    assert r["true_neg"] == int((~t & ~e).sum())
    assert r["precision"] == pytest.approx(tp / (tp + fp_))
    assert r["recall"] == pytest.approx(tp / (tp + fn))
    assert r["f1"] == pytest.approx(2 * tp / (2 * tp + fp_ + fn))
    none = fp.occlusion_score(np.zeros((2, 2), bool), np.zeros((2, 2), np.uint8))
    assert none["f1"] is None and none["precision"] is None and none["true_neg"] == 4
    with pytest.raises(ValueError, match="estimate"):
        fp.occlusion_score(np.zeros((2, 3), bool), np.zeros((2, 2), bool))
