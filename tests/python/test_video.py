"""test_video.py -- flowplatform.Video: the frames of a .y4m video (read
natively in every build) as read_image gives images, their flows equal to
flow-compute --video's, and the library's messages for what cannot be read."""
import numpy as np
import pytest

import flowplatform as fp
from conftest import tool


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """Four 64x48 gray frames moving by (0.5, 0.25) px, as PNG files and a .y4m."""
    d = tmp_path_factory.mktemp("clip")
    tool("flow-synth", "-q", "-s", "64x48", "-n", 4, "--dx", 0.5, "--dy", 0.25,
         "-o", d / "f%d.png", "--video", d / "clip.y4m")
    return d


def test_frames_are_those_of_the_images(clip):
    with fp.Video(clip / "clip.y4m") as video:
        assert video.fps > 0 and "clip.y4m" in repr(video)
        frames = list(video)
        assert video.read() is None  # the end stays the end
    assert video.closed and "closed" in repr(video)
    assert len(frames) == 4
    for k, frame in enumerate(frames):
        assert frame.dtype == np.float32 and frame.shape == (48, 64)
        np.testing.assert_array_equal(frame, fp.read_image(clip / f"f{k}.png"))


def test_flows_of_a_video_equal_flow_compute(clip, tmp_path):
    tool("flow-compute", "-q", "-d", "cpu", "-m", "hs", "--video", clip / "clip.y4m",
         "-o", tmp_path / "%d.flo")
    with fp.Video(str(clip / "clip.y4m")) as video, fp.Context("hs", "cpu") as ctx:
        flows = [ctx.next(frame) for frame in video]
    assert flows[0] is None
    for k, flow in enumerate(flows[1:]):
        np.testing.assert_array_equal(flow, fp.read_flow(tmp_path / f"{k}.flo"))


def test_video_errors(clip, tmp_path):
    with pytest.raises(fp.Error, match="nothing.y4m") as e:
        fp.Video(tmp_path / "nothing.y4m")
    assert e.value.status == "input/output error"
    (tmp_path / "bad.y4m").write_bytes(b"YUV4MPEG2 W64 H0\n")
    with pytest.raises(fp.Error, match="bad.y4m"):
        fp.Video(tmp_path / "bad.y4m")
    with pytest.raises(ValueError, match="camera -1"):
        fp.Video(-1)
    with pytest.raises(TypeError):
        fp.Video(2.5)
    video = fp.Video(clip / "clip.y4m")
    video.close()
    video.close()
    with pytest.raises(ValueError, match="closed"):
        video.read()
    with pytest.raises(ValueError, match="closed"):
        video.fps


def test_truncated_video_reads_its_whole_frames(clip, tmp_path):
    data = (clip / "clip.y4m").read_bytes()
    (tmp_path / "cut.y4m").write_bytes(data[:len(data) - 100])
    with fp.Video(tmp_path / "cut.y4m") as video:
        frames = [video.read() for _ in range(3)]
        assert all(f.shape == (48, 64) for f in frames)
        with pytest.raises(fp.Error, match="cut.y4m"):
            video.read()
