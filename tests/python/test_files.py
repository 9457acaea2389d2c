"""test_files.py -- read_flow/write_flow in the three formats (round trips,
unknown vectors, agreement with flow-tool convert, refusals) and
read_image/write_image."""
import os

import numpy as np
import pytest

import flowplatform as fp
from conftest import tool

FORMATS = [".flo", ".F", ".pcm"]


@pytest.fixture
def flow():
    """A 13 x 17 field of varied vectors, two of them unknown."""
    rng = np.random.default_rng(5)
    f = rng.uniform(-30, 30, (13, 17, 2)).astype(np.float32)
    f[0, 0] = 1e10
    f[12, 16, 1] = 1e10
    return f


@pytest.mark.parametrize("ext", FORMATS)
def test_round_trip(tmp_path, flow, ext):
    path = tmp_path / ("f" + ext)
    fp.write_flow(path, flow)
    back = fp.read_flow(path)
    assert back.shape == flow.shape and back.dtype == np.float32
    known = np.abs(flow).max(axis=2) <= 1e9
    np.testing.assert_array_equal(back[known], flow[known])
    assert np.all(np.abs(back[~known]).max(axis=1) > 1e9)  # still unknown


@pytest.mark.parametrize("ext", FORMATS)
def test_flow_tool_reads_what_python_writes(tmp_path, flow, ext):
    """Python writes EXT, flow-tool converts it to .flo, Python reads that."""
    fp.write_flow(tmp_path / ("f" + ext), flow)
    tool("flow-tool", "convert", tmp_path / ("f" + ext), tmp_path / "back.flo")
    back = fp.read_flow(tmp_path / "back.flo")
    known = np.abs(flow).max(axis=2) <= 1e9
    np.testing.assert_array_equal(back[known], flow[known])


def test_flo_bytes_are_middlebury(tmp_path):
    f = np.zeros((2, 3, 2), np.float32)
    f[1, 2] = (1.5, -2.0)
    fp.write_flow(tmp_path / "f.flo", f)
    raw = (tmp_path / "f.flo").read_bytes()
    assert raw[:4] == b"PIEH"
    assert np.frombuffer(raw[4:12], "<i4").tolist() == [3, 2]
    np.testing.assert_array_equal(np.frombuffer(raw[12:], "<f4").reshape(2, 3, 2), f)


def test_float64_and_strided_flows_are_written(tmp_path, flow):
    fp.write_flow(tmp_path / "d.flo", flow.astype(np.float64))
    fp.write_flow(tmp_path / "s.flo", np.asfortranarray(flow))
    for name in ("d.flo", "s.flo"):
        np.testing.assert_array_equal(fp.read_flow(tmp_path / name), flow)


def test_read_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.flo"
    bad.write_bytes(b"not a flow file at all")
    with pytest.raises(fp.Error, match="bad.flo") as e:
        fp.read_flow(bad)
    assert e.value.status == "bad file format"
    with pytest.raises(fp.Error, match="nowhere.flo"):
        fp.read_flow(tmp_path / "nowhere.flo")
    with pytest.raises(fp.Error, match="flow.txt"):
        fp.read_flow(tmp_path / "flow.txt")
    # a file name that is not UTF-8, as bytes: named in the message as \xNN
    with pytest.raises(fp.Error, match=r"caf\\xe9.flo"):
        fp.read_flow(bytes(tmp_path) + b"/caf\xe9.flo")


def test_write_refusals_leave_no_file(tmp_path, flow):
    with pytest.raises(ValueError, match=r"\(13, 17\).*H x W x 2"):
        fp.write_flow(tmp_path / "a.flo", flow[..., 0])
    with pytest.raises(TypeError, match="int32"):
        fp.write_flow(tmp_path / "b.flo", np.zeros((3, 4, 2), np.int32))
    with pytest.raises(fp.Error):
        fp.write_flow(tmp_path / "no" / "such" / "dir.flo", flow)
    assert os.listdir(tmp_path) == []


def test_image_round_trip(tmp_path):
    rng = np.random.default_rng(1)
    gray = rng.integers(0, 256, (9, 11), dtype=np.uint8)
    rgb = rng.integers(0, 256, (9, 11, 3), dtype=np.uint8)
    for name, img in (("g.png", gray), ("c.png", rgb), ("g.pgm", gray), ("c.ppm", rgb)):
        fp.write_image(tmp_path / name, img)
        back = fp.read_image(tmp_path / name)
        assert back.dtype == np.float32 and back.shape == img.shape
        np.testing.assert_array_equal(back, img.astype(np.float32))


def test_read_image_matches_the_files_samples(translation):
    """flow-synth's PNG frames as the library reads them: whole 0..255."""
    f = translation.frames[0]
    assert f.shape == (72, 96) and f.dtype == np.float32
    assert f.min() >= 0 and f.max() <= 255 and np.array_equal(f, np.round(f))
