"""test_pictures.py -- flow_to_vectors() against `flow-tool vectors` on the
same flow, montage()'s layout: panels where the layout puts them, on
white, and its refusals; occlusion_to_rgb() and confidence_to_rgb() against
`flow-tool occlusion / confidence`, as montage panels."""
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


def test_occlusion_and_confidence_equal_flow_tool(translation, tmp_path):
    """occlusion_to_rgb() and confidence_to_rgb() draw what `flow-tool
    occlusion` and `flow-tool confidence` draw from the same mask and map,
    and montage() takes them as panels."""
    frame = translation.frames[0]
    h, w = frame.shape[:2]
    mask = np.zeros((h, w), bool)
    mask[10:30, 20:50] = True
    # grey levels k / 255: the tool reads an 8-bit map as exactly these
    conf = (np.arange(h * w) % 256).reshape(h, w).astype(np.float32) / np.float32(255)
    fp.write_image(tmp_path / "m.png", (mask * 255).astype(np.uint8))
    fp.write_image(tmp_path / "c.png", (conf * 255).round().astype(np.uint8))
    tool("flow-tool", "occlusion", translation.paths[0], tmp_path / "m.png", tmp_path / "o.png")
    tool("flow-tool", "confidence", tmp_path / "c.png", tmp_path / "g.png")
    tool("flow-tool", "confidence", "--colour", "--no-key", tmp_path / "c.png",
         tmp_path / "h.png")
    occ = fp.occlusion_to_rgb(frame, mask)
    grey = fp.confidence_to_rgb(conf)
    hot = fp.confidence_to_rgb(conf, colour=True, key=False)
    assert occ.dtype == np.uint8 and occ.shape == (h, w, 3)
    # the frame at half brightness has halves (185 / 2), which the module
    # rounds to even and the PNG writer up: one grey level apart at most
    tool_occ = fp.read_image(tmp_path / "o.png")
    assert np.abs(occ.astype(np.float32) - tool_occ).max() <= 1
    even = (frame % 2 == 0) & ~mask
    assert even.any() and np.array_equal(occ[even], tool_occ[even].astype(np.uint8))
    assert np.array_equal(grey, fp.read_image(tmp_path / "g.png").astype(np.uint8))
    assert np.array_equal(hot, fp.read_image(tmp_path / "h.png").astype(np.uint8))
    # occluded pixels red over the frame at half brightness elsewhere
    assert (occ[mask][:, 0] > occ[mask][:, 1]).all()
    assert (occ[~mask][:, 0] == occ[~mask][:, 1]).all()
    # without the key the grey map is the values themselves
    plain = fp.confidence_to_rgb(conf, key=False)
    assert np.array_equal(plain[..., 1], (conf * 255).round().astype(np.uint8))
    m = fp.montage([(occ, "occlusion"), (grey, "confidence")], columns=2)
    assert m.shape[1] == 4 + 2 * (w + 4)


def test_occlusion_and_confidence_refusals(translation):
    frame = translation.frames[0]
    h, w = frame.shape[:2]
    with pytest.raises(ValueError, match="mask"):
        fp.occlusion_to_rgb(frame, np.zeros((h, w + 1), bool))
    with pytest.raises(ValueError, match=r"not in \[0, 1\]"):
        fp.confidence_to_rgb(np.full((h, w), 1.5, np.float32))
    with pytest.raises(ValueError, match="H x W"):
        fp.confidence_to_rgb(np.zeros((h, w, 2), np.float32))
