"""test_pictures.py -- flow_to_vectors() against `flow-tool vectors` on the
same flow, and montage()'s layout: panels where the layout puts them, on
white, and its refusals."""
import numpy as np
import pytest

import flowplatform as fp
from conftest import tool


def test_vectors_equal_flow_tool(translation, tmp_path):
    flow = translation.gt[0]
    fp.write_flow(tmp_path / "g.flo", flow)
    tool("flow-tool", "vectors", tmp_path / "g.flo", tmp_path / "v.png")
    tool("flow-tool", "vectors", "--background", translation.paths[0], "--step", 12,
         tmp_path / "g.flo", tmp_path / "vb.png")
    plain = fp.flow_to_vectors(flow)
    over = fp.flow_to_vectors(flow, translation.frames[0], step=12)
    assert plain.dtype == np.uint8 and plain.shape == (72, 96, 3)
    assert np.array_equal(plain, fp.read_image(tmp_path / "v.png").astype(np.uint8))
    assert np.array_equal(over, fp.read_image(tmp_path / "vb.png").astype(np.uint8))
    # arrows are drawn: not all white, and other settings draw otherwise
    assert (plain < 255).any()
    assert not np.array_equal(plain, fp.flow_to_vectors(flow, step=16))


def test_montage_layout():
    red = np.zeros((8, 10, 3), np.uint8)
    red[..., 0] = 255
    blue = np.zeros((8, 10, 3), np.uint8)
    blue[..., 2] = 255
    m = fp.montage([red, blue], columns=2)
    # cells of the largest panel, gaps of 4 px at text factor 1 around all
    assert m.shape == (4 + 8 + 4, 4 + 2 * (10 + 4), 3)
    assert np.array_equal(m[4:12, 4:14], red)
    assert np.array_equal(m[4:12, 18:28], blue)
    white = np.ones(m.shape[:2], bool)
    white[4:12, 4:14] = white[4:12, 18:28] = False
    assert (m[white] == 255).all()
    # labels and a title add strips above
    labelled = fp.montage([(red, "a"), (blue, "b")], columns=1, title="t")
    assert labelled.shape[1] == 4 + 10 + 4 and labelled.shape[0] > 2 * (8 + 4) + 4
    gray = fp.montage([np.full((5, 5), 100, np.float32)])
    assert (gray[4:9, 4:9] == 100).all()


def test_montage_refusals():
    with pytest.raises(ValueError, match="1..64 panels"):
        fp.montage([])
    with pytest.raises(TypeError, match="expected a list"):
        fp.montage(np.zeros((4, 4), np.uint8))
    with pytest.raises(ValueError):
        fp.montage([np.zeros((4, 4, 2), np.uint8)])
