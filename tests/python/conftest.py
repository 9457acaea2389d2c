"""conftest.py -- what the tests of the Python module share.

The module is imported from $BUILD/python (the build, not an installed
copy), or with FLOW_MODULE=installed from the interpreter's own sys.path
(what `pip install .` installed); the command-line tools that the tests compare it with come from
$BUILD/bin.  FLOW_DEVICE names the device of the computing tests (cpu
unless set: `make test-gpu` sets cuda).  Generated sequences come from
flow-synth; the evaluation data from FLOW_DATA or ../shared/data, and the
tests that need it are skipped without it.
"""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))
if os.environ.get("FLOW_MODULE") != "installed":
    sys.path.insert(0, os.path.join(BUILD, "python"))

import flowplatform as fp  # noqa: E402  (after the path is set)


def pytest_report_header(config):
    return f"flowplatform {fp.__version__} from {os.path.dirname(fp.__file__)}"


def tool(name, *args):
    """Runs $BUILD/bin/NAME with args; its standard output (failing the
    test, with its standard error, when it exits non-zero)."""
    path = os.path.join(BUILD, "bin", name)
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is not built")
    r = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail(f"{name} {' '.join(map(str, args))}: exit {r.returncode}: {r.stderr}")
    return r.stdout


@pytest.fixture(scope="session")
def device():
    return os.environ.get("FLOW_DEVICE", "cpu")


@pytest.fixture(scope="session")
def cuda():
    """"cuda" when this build has the CUDA backend and a device opens; else skips."""
    if not fp.has_cuda:
        pytest.skip("this build has no CUDA backend (CUDA=0)")
    try:
        fp.Context(device="cuda").close()
    except fp.Error as e:
        pytest.skip(f"no usable CUDA device: {e}")
    return "cuda"


@pytest.fixture(scope="session")
def data():
    d = os.environ.get("FLOW_DATA", os.path.join(ROOT, "..", "shared", "data"))
    if not os.path.isdir(d):
        pytest.skip("no evaluation data (../shared/data or FLOW_DATA)")
    return d


class Sequence:
    """A generated sequence: frame files, their arrays (float32 as read by
    the library) and the ground truth of each pair."""

    def __init__(self, directory, n, size, motion_args, color):
        w, h = size
        tool("flow-synth", "-q", "-s", f"{w}x{h}", "-n", n, *motion_args,
             *(["--color"] if color else []),
             "-o", os.path.join(directory, "f%d.png"), "--gt", os.path.join(directory, "gt%d.flo"))
        self.paths = [os.path.join(directory, f"f{k}.png") for k in range(n)]
        self.gt_paths = [os.path.join(directory, f"gt{k}.flo") for k in range(n - 1)]
        self.frames = [fp.read_image(p) for p in self.paths]
        self.gt = [fp.read_flow(p) for p in self.gt_paths]


@pytest.fixture(scope="session")
def translation(tmp_path_factory):
    """Five 96x72 gray frames moving by (0.6, -0.3) px per frame."""
    return Sequence(tmp_path_factory.mktemp("translation"), 5, (96, 72),
                    ["--dx", 0.6, "--dy", -0.3, "--seed", 4], False)


@pytest.fixture(scope="session")
def rotation_rgb(tmp_path_factory):
    """Three 80x64 colour frames rotating by 2 degrees per frame."""
    return Sequence(tmp_path_factory.mktemp("rotation"), 3, (80, 64),
                    ["-m", "rotate", "--angle", 2, "--seed", 7], True)
