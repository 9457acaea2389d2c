"""test_pictures_tools.py -- flow-tool's pictures against implementations
written here from the published algorithms: `flow-tool color --exact`
against Middlebury's colour coding (Baker et al., IJCV 2011: the wheel of
RY 15, YG 6, GC 4, CB 11, BM 13, MR 6 colours, computeColor's steps in
their single and double precisions, each channel truncated) level for
level; the default coding within one level of it; and `flow-tool video`'s
.y4m, decoded here, frame count, size and colours, and its .avi and .mp4
(through OpenCV) read back by fp.Video.
"""
import ctypes
import ctypes.util
import os

import numpy as np
import pytest

import flowplatform as fp
from conftest import tool

UNKNOWN = 1e9


def write_flo(path, u, v):
    h, w = u.shape
    with open(path, "wb") as f:
        f.write(b"PIEH" + np.array([w, h], "<i4").tobytes())
        f.write(np.dstack([u, v]).astype("<f4").tobytes())


def read_flo(path):
    with open(path, "rb") as f:
        assert f.read(4) == b"PIEH"
        w, h = np.frombuffer(f.read(8), "<i4")
        a = np.frombuffer(f.read(), "<f4").reshape(h, w, 2)
    return a[..., 0], a[..., 1]


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    assert fields[0] == b"P6" and fields[3] == b"255"
    w, h = int(fields[1]), int(fields[2])
    return np.frombuffer(data[pos + 1:], np.uint8).reshape(h, w, 3)


def middlebury_wheel():
    """makecolorwheel(): 55 colours, integer steps as in its setcols calls."""
    RY, YG, GC, CB, BM, MR = 15, 6, 4, 11, 13, 6
    rows = ([(255, 255 * i // RY, 0) for i in range(RY)]
            + [(255 - 255 * i // YG, 255, 0) for i in range(YG)]
            + [(0, 255, 255 * i // GC) for i in range(GC)]
            + [(0, 255 - 255 * i // CB, 255) for i in range(CB)]
            + [(255 * i // BM, 0, 255) for i in range(BM)]
            + [(255, 0, 255 - 255 * i // MR) for i in range(MR)])
    return np.array(rows, np.int64)


_libm = ctypes.CDLL(ctypes.util.find_library("m"))
_libm.atan2f.argtypes = (ctypes.c_float, ctypes.c_float)
_libm.atan2f.restype = ctypes.c_float


def atan2f(y, x):
    """The C library's atan2f, element by element: numpy's float32 arctan2
    is its own approximation in numpy 2, which may differ from atan2f (the
    function color_flow's float arguments call) in the last bit."""
    f = np.frompyfunc(_libm.atan2f, 2, 1)
    return f(y, x).astype(np.float32)


def middlebury_color(u, v, maxmotion=0.0):
    """color_flow's picture (H x W x 3, R G B) of the flow (u, v): the scale
    is maxmotion, or the largest known float radius (1 for zero flow); each
    known vector is divided by it and coded by computeColor; unknown is
    black.  float32 where the C++ code has floats; a step with a double
    constant (1.0, 2.0, 255.0, .75, M_PI) is done in float64 and stored back
    as float32."""
    f32, f64 = np.float32, np.float64
    u = u.astype(f32)
    v = v.astype(f32)
    unknown = (np.abs(u) > UNKNOWN) | (np.abs(v) > UNKNOWN) | np.isnan(u) | np.isnan(v)
    uu, vv = np.where(unknown, f32(0), u), np.where(unknown, f32(0), v)
    rad = np.sqrt(uu * uu + vv * vv)
    maxrad = f32(maxmotion) if maxmotion > 0 else (rad[~unknown].max() if (~unknown).any() else f32(0))
    maxrad = f32(1) if maxrad == 0 else f32(maxrad)
    fx, fy = uu / maxrad, vv / maxrad
    rad = np.sqrt(fx * fx + fy * fy)
    a = (atan2f(-fy, -fx).astype(f64) / np.pi).astype(f32)
    fk = ((a.astype(f64) + 1.0) / 2.0 * 54).astype(f32)
    k0 = fk.astype(np.int64)
    k1 = (k0 + 1) % 55
    f = fk - k0.astype(f32)
    wheel = middlebury_wheel()
    out = np.zeros(u.shape + (3,), np.uint8)
    for b in range(3):
        col0 = (wheel[k0, b] / 255.0).astype(f32)
        col1 = (wheel[k1, b] / 255.0).astype(f32)
        col = (f32(1) - f) * col0 + f * col1
        inside = f32(1) - rad * (f32(1) - col)
        outside = (col.astype(f64) * 0.75).astype(f32)
        col = np.where(rad <= 1, inside, outside)
        out[..., b] = (255.0 * col.astype(f64)).astype(np.int64)
    out[unknown] = 0
    return out


def field(h=388, w=584):
    """Every direction and radii from 0 to beyond the scale, some unknown."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    cx, cy = (w - 1) / 2, (h - 1) / 2
    u = (x - cx) / 40 + 0.7 * np.sin(y / 13)
    v = (y - cy) / 40 + 0.7 * np.cos(x / 17)
    u[h // 40:h // 40 + 4, w // 100:w // 10] = 2e10
    v[h // 20, w // 6:w // 4] = np.nan
    return u.astype(np.float32), v.astype(np.float32)


@pytest.mark.parametrize("scale", [None, 4.0, 100.0])
def test_exact_is_middlebury(tmp_path, scale):
    u, v = field()
    write_flo(tmp_path / "f.flo", u, v)
    args = ["--max", scale] if scale else []
    tool("flow-tool", "color", "--exact", *args, tmp_path / "f.flo", tmp_path / "exact.ppm")
    tool("flow-tool", "color", *args, tmp_path / "f.flo", tmp_path / "rounded.ppm")
    exact = read_ppm(tmp_path / "exact.ppm")
    want = middlebury_color(u, v, scale or 0.0)
    differ = np.any(exact != want, axis=2)
    assert not differ.any(), (f"{differ.sum()} of {differ.size} pixels differ from Middlebury's, "
                              f"first at {np.argwhere(differ)[0]}")
    rounded = read_ppm(tmp_path / "rounded.ppm").astype(int)
    d = rounded - exact.astype(int)
    assert d.min() >= 0 and d.max() <= 1  # rounding is truncation or one level above
    assert (d == 1).any()


def test_exact_on_middlebury_ground_truth(tmp_path, data):
    path = os.path.join(data, "middlebury", "RubberWhale", "flow10.flo")
    if not os.path.exists(path):
        pytest.skip(f"{path} is not there")
    tool("flow-tool", "color", "--exact", path, tmp_path / "exact.ppm")
    u, v = read_flo(path)
    assert np.array_equal(read_ppm(tmp_path / "exact.ppm"), middlebury_color(u, v))


def test_exact_refuses_legend(tmp_path):
    u, v = field(8, 8)
    write_flo(tmp_path / "f.flo", u, v)
    import subprocess
    from conftest import BUILD
    r = subprocess.run([os.path.join(BUILD, "bin", "flow-tool"), "color", "--exact", "--legend",
                        str(tmp_path / "f.flo"), str(tmp_path / "x.ppm")],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "give one of --exact and --legend" in r.stderr
    assert not (tmp_path / "x.ppm").exists()


def read_y4m(path):
    """The frames of a 4:4:4 full-range .y4m as RGB (JFIF's BT.601), its
    header's fields and frame rate."""
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"\n")
    fields = data[:end].split(b" ")
    assert fields[0] == b"YUV4MPEG2"
    head = {k[:1]: k[1:] for k in fields[1:]}
    w, h = int(head[b"W"]), int(head[b"H"])
    assert head[b"C"] == b"444"
    frames, pos, n = [], end + 1, w * h
    while pos < len(data):
        line = data.index(b"\n", pos)
        assert data[pos:line].startswith(b"FRAME")
        planes = np.frombuffer(data[line + 1:line + 1 + 3 * n], np.uint8).astype(float)
        assert planes.size == 3 * n, "a truncated frame"
        Y, Cb, Cr = (planes[k * n:(k + 1) * n].reshape(h, w) for k in range(3))
        rgb = np.dstack([Y + 1.402 * (Cr - 128), Y - 0.344136 * (Cb - 128) - 0.714136 * (Cr - 128),
                         Y + 1.772 * (Cb - 128)])
        frames.append(np.clip(rgb, 0, 255))
        pos = line + 1 + 3 * n
    return frames, head


def test_video_y4m(tmp_path):
    u, v = field(60, 80)
    paths = []
    for k in range(4):  # the motion grows: frame k at (k + 1) / 4 of the last's
        paths.append(tmp_path / f"f{k}.flo")
        write_flo(paths[-1], u * (k + 1) / 4, v * (k + 1) / 4)
    out = tool("flow-tool", "video", "-v", "--fps", 25, *paths, tmp_path / "v.y4m")
    frames, head = read_y4m(tmp_path / "v.y4m")
    assert len(frames) == 4 and frames[0].shape == (60, 80, 3)
    assert head[b"F"] == b"25:1"
    assert "frames: 4 of 80x60" in out
    # one scale for all, the last flow's largest radius: frame k is what
    # flow-tool color draws of flow k with that scale
    R = float(out.split("scale: ")[1].split()[0])
    for k, frame in enumerate(frames):
        tool("flow-tool", "color", "--max", R, paths[k], tmp_path / "c.ppm")
        want = read_ppm(tmp_path / "c.ppm").astype(float)
        assert np.abs(frame - want).max() <= 3  # YCbCr 4:4:4 round trip
    # the first frame is paler than the last: the scale is shared
    assert frames[0][30, 5].min() > frames[3][30, 5].min()


def test_video_refuses(tmp_path):
    import subprocess
    from conftest import BUILD
    ft = os.path.join(BUILD, "bin", "flow-tool")
    u, v = field(6, 8)
    write_flo(tmp_path / "a.flo", u, v)
    u2, v2 = field(7, 8)
    write_flo(tmp_path / "b.flo", u2, v2)
    r = subprocess.run([ft, "video", str(tmp_path / "a.flo"), str(tmp_path / "b.flo"),
                        str(tmp_path / "v.y4m")], capture_output=True, text=True)
    assert r.returncode == 2 and "b.flo is 8x7 but" in r.stderr
    assert not (tmp_path / "v.y4m").exists()
    r = subprocess.run([ft, "video", str(tmp_path / "v.y4m")], capture_output=True, text=True)
    assert r.returncode == 1 and "at least one FLOW and OUT" in r.stderr


@pytest.mark.skipif(not fp.has_opencv, reason="built without OpenCV: .y4m videos alone")
@pytest.mark.parametrize("ext", [".avi", ".mp4"])
def test_video_through_opencv(tmp_path, ext):
    """Other containers than .y4m go through OpenCV: the frames read back
    (fp.Video, OpenCV too) are the colour codings, within the codec's loss."""
    u, v = field(64, 80)
    paths = []
    for k in range(3):
        paths.append(tmp_path / f"f{k}.flo")
        write_flo(paths[-1], u * (k + 1) / 3, v * (k + 1) / 3)
    out = tool("flow-tool", "video", "-v", "--fps", 10, *paths, tmp_path / f"v{ext}")
    R = float(out.split("scale: ")[1].split()[0])
    with fp.Video(str(tmp_path / f"v{ext}")) as video:
        frames = list(video)
    assert len(frames) == 3 and frames[0].shape == (64, 80, 3)
    for k, frame in enumerate(frames):
        tool("flow-tool", "color", "--max", R, paths[k], tmp_path / "c.ppm")
        want = read_ppm(tmp_path / "c.ppm").astype(float)
        assert np.abs(frame - want).mean() < 6, (k, np.abs(frame - want).mean())
