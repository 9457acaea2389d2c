"""test_files.py -- read_flow/write_flow in every format (round trips,
unknown vectors, agreement with flow-tool convert, refusals; KITTI PNG and
PFM checked against their bytes decoded here, independently of libflow,
and KITTI 2012's ground truth when the data is there) and
read_image/write_image."""
import os
import struct
import zlib

import numpy as np
import pytest

import flowplatform as fp
from conftest import tool

FORMATS = [".flo", ".F", ".pcm", ".pfm"]  # the float formats: known vectors bit for bit


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


def test_write_refusals_leave_no_file(tmp_path, flow):
    with pytest.raises(ValueError, match=r"\(13, 17\).*H x W x 2"):
        fp.write_flow(tmp_path / "a.flo", flow[..., 0])
    with pytest.raises(TypeError, match="int32"):
        fp.write_flow(tmp_path / "b.flo", np.zeros((3, 4, 2), np.int32))
    with pytest.raises(fp.Error):
        fp.write_flow(tmp_path / "no" / "such" / "dir.flo", flow)
    assert os.listdir(tmp_path) == []


def decode_png16_rgb(raw):
    """An H x W x 3 uint16 array (R, G, B) of a non-interlaced 16-bit RGB
    PNG, decoded with zlib and the PNG filters alone (not libpng)."""
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(raw):
        n, kind = struct.unpack(">I4s", raw[pos:pos + 8])
        body = raw[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert (depth, colour, interlace) == (16, 2, 0)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    stride, bpp = 6 * w, 6
    rows = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, stride + 1)
    out = np.zeros((h, stride), np.int64)
    prev = np.zeros(stride, np.int64)
    for y in range(h):
        kind, line = rows[y, 0], rows[y, 1:].astype(np.int64)
        if kind == 0:
            cur = line
        elif kind == 1:  # sub: a running sum along each of the bpp byte lanes
            cur = np.concatenate([line, np.zeros(-stride % bpp, np.int64)]).reshape(-1, bpp)
            cur = (np.cumsum(cur, axis=0) % 256).reshape(-1)[:stride]
        elif kind == 2:
            cur = (line + prev) % 256
        else:
            cur = np.zeros(stride, np.int64)
            for i in range(stride):
                a = cur[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                if kind == 3:
                    pred = (a + b) // 2
                else:  # Paeth
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                cur[i] = (line[i] + pred) % 256
        out[y], prev = cur, cur
    return (out[:, 0::2] * 256 + out[:, 1::2]).reshape(h, w, 3).astype(np.uint16)


def kitti_of(png):
    """The flow KITTI's definition gives the decoded samples: u = (R - 2^15)
    / 64, v = (G - 2^15) / 64 where B > 0, 1e10 (unknown) elsewhere."""
    uv = (png[..., :2].astype(np.float64) - 32768) / 64
    uv[png[..., 2] == 0] = 1e10
    return uv.astype(np.float32)


def nearest_64th(x):
    """x rounded to the nearest 1/64, halves away from zero."""
    y = np.asarray(x, np.float64) * 64
    return (np.sign(y) * np.floor(np.abs(y) + 0.5) / 64).astype(np.float32)


def test_kitti_png_round_trip_and_bytes(tmp_path, flow):
    """Known vectors come back as the nearest 1/64 px; the file's samples
    are KITTI's coding (R, G = 64 c + 2^15, B = 1; unknown: 0, 0, 0)."""
    flow[3, 4] = (1 / 128, -1 / 128)  # ties: away from zero
    flow[5, 6] = (-512, 511.984375)  # the ends of the range
    flow[7, 8, 0] = np.nan  # unknown too
    fp.write_flow(tmp_path / "k.png", flow)
    back = fp.read_flow(tmp_path / "k.png")
    known = np.abs(np.nan_to_num(flow, nan=1e10)).max(axis=2) <= 1e9
    np.testing.assert_array_equal(back[known], nearest_64th(flow[known]))
    assert np.all(back[~known] == 1e10)
    assert tuple(back[3, 4]) == (1 / 64, -1 / 64)
    samples = decode_png16_rgb((tmp_path / "k.png").read_bytes())
    np.testing.assert_array_equal(samples[..., 2], known.astype(np.uint16))
    np.testing.assert_array_equal(samples[~known], 0)
    np.testing.assert_array_equal(kitti_of(samples), back)


def test_kitti_png_refusals(tmp_path, flow):
    flow[2, 3, 1] = 600
    with pytest.raises(fp.Error, match=r"far.png: pixel \(3, 2\): v = 600 is outside"):
        fp.write_flow(tmp_path / "far.png", flow)
    assert os.listdir(tmp_path) == []
    fp.write_image(tmp_path / "image.png", np.zeros((4, 5, 3), np.uint8))
    with pytest.raises(fp.Error, match="image.png: .*8 bits, not a KITTI flow PNG"):
        fp.read_flow(tmp_path / "image.png")


def test_pfm_bytes(tmp_path):
    """The writer: "PF", little-endian (scale -1), rows from the bottom,
    (u, v, 0); a big-endian file (positive scale) is read the same."""
    f = np.arange(12, dtype=np.float32).reshape(2, 3, 2) - 5.5
    f[0, 1, 0] = np.nan
    fp.write_flow(tmp_path / "f.pfm", f)
    raw = (tmp_path / "f.pfm").read_bytes()
    head = b"PF\n3 2\n-1\n"
    assert raw[:len(head)] == head
    body = np.frombuffer(raw[len(head):], "<f4").reshape(2, 3, 3)
    np.testing.assert_array_equal(body[::-1, :, :2], f)
    assert np.all(body[..., 2] == 0)
    big = np.zeros((2, 3, 3), ">f4")
    big[..., :2] = f[::-1]
    (tmp_path / "big.pfm").write_bytes(b"PF\n3 2\n1.0\n" + big.tobytes())
    np.testing.assert_array_equal(fp.read_flow(tmp_path / "big.pfm"), f)
    (tmp_path / "gray.pfm").write_bytes(b"Pf\n1 1\n-1\n" + bytes(4))
    with pytest.raises(fp.Error, match="gray.pfm: a one-channel PFM"):
        fp.read_flow(tmp_path / "gray.pfm")


def test_flow_formats_match_flow_tool():
    listed = [tuple(line.split("\t")) for line in tool("flow-tool", "formats").splitlines()]
    assert fp.flow_formats() == listed
    assert [f[0] for f in fp.flow_formats()] == ["flo", "F", "pcm", "pfm", "png"]


def test_kitti_2012_ground_truth(data):
    """flow_noc of pair 000045 as libflow reads it equals KITTI's definition
    applied to the samples decoded here, and about a quarter of its pixels
    are valid (README of the data)."""
    path = os.path.join(data, "kitti2012", "training", "flow_noc", "000045_10.png")
    if not os.path.exists(path):
        pytest.skip("KITTI 2012 pair 000045 not in the data")
    flow = fp.read_flow(path)
    assert flow.shape == (376, 1241, 2)
    with open(path, "rb") as f:
        samples = decode_png16_rgb(f.read())
    np.testing.assert_array_equal(flow, kitti_of(samples))
    valid = (samples[..., 2] > 0).mean()
    assert 0.2 < valid < 0.3


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
