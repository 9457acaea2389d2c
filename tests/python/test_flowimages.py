"""test_flowimages.py -- flowplatform.read_flow_images against the flow that
flow-compute wrote beside its flow images (PNG: within half a level)."""
import os
import subprocess

import numpy as np
import pytest

import flowplatform as fp
from conftest import BUILD


def test_read_flow_images(tmp_path):
    bin_dir = os.path.join(BUILD, "bin")
    video = str(tmp_path / "a.y4m")
    subprocess.run([os.path.join(bin_dir, "flow-synth"), "-s", "64x48", "-n", "4",
                    "--video", video], check=True, capture_output=True)
    out = tmp_path / "o"
    subprocess.run([os.path.join(bin_dir, "flow-compute"), "--video", video, "--flow-images",
                    str(out), "--flow-names", "x_%05d.png,y_%05d.png", "-o",
                    str(tmp_path / "f%d.flo"), "-q", "--device", "cpu"], check=True)
    names = ("x_%05d.png", "y_%05d.png")
    assert fp.flow_image_count(str(out), names) == 3
    flows = fp.read_flow_images(str(out), names=names)
    assert flows.shape == (3, 48, 64, 2) and flows.dtype == np.float32
    levels = fp.read_flow_images(str(out), names=names, levels=True)
    assert levels.dtype == np.uint8
    for k in range(3):
        f = fp.read_flow(str(tmp_path / f"f{k}.flo"))
        inside = np.abs(f) <= 20
        assert np.abs(flows[k] - f)[inside].max() <= 20 / 255 + 1e-6
    with pytest.raises(FileNotFoundError):
        fp.read_flow_images(str(out), indices=[4], names=names)
    with pytest.raises(ValueError):
        fp.read_flow_images(str(out), bound=0, names=names)
