"""test_measure.py -- error() against `flow-tool error --csv` and
flow_to_color() against `flow-tool color`, on the same files, and their
refusals."""
import numpy as np
import pytest

import flowplatform as fp
from conftest import tool


def flow_tool_error(*args):
    """flow-tool error --csv ARGS as a dict of floats, None for an empty
    field (a measure that is not defined)."""
    header, values = tool("flow-tool", "error", "--csv", *args).split()
    return {k: float(v) if v else None for k, v in zip(header.split(","), values.split(","))}


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
