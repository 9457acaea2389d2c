"""setup.py -- the extension flowplatform._flowplatform for `pip install .`
(pyproject.toml holds the rest).  The extension is built as `make python`
builds it, by the Makefile, for the interpreter running this build: libflow
from this tree (with CUDA when nvcc is found, as plain `make` decides; CUDA=0
in the environment leaves it out), linked in statically, in a build
directory of setuptools' own.  The package's .py files come from python/."""
import os
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    """MAJOR.MINOR.PATCH from libflow's public header, where it is written once."""
    with open(os.path.join(ROOT, "libflow", "include", "flow", "flow.h")) as f:
        text = f.read()
    return ".".join(re.search(r"^#define FLOW_VERSION_%s +(\d+)$" % part, text, re.M).group(1)
                    for part in ("MAJOR", "MINOR", "PATCH"))


class MakeExtension(build_ext):
    """Runs `make python` for sys.executable and takes the module it links."""

    def build_extension(self, ext):
        build = os.path.abspath(os.path.join(self.build_temp, "flow"))
        jobs = [] if "MAKEFLAGS" in os.environ else ["-j%d" % (os.cpu_count() or 1)]
        subprocess.run(["make", "-C", ROOT, *jobs, "python", "PYTHON=" + sys.executable,
                        "BUILD=" + build], check=True)
        name = "_flowplatform" + sysconfig.get_config_var("EXT_SUFFIX")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(build, "python", "flowplatform", name), target)


setup(version=version(),
      ext_modules=[Extension("flowplatform._flowplatform", sources=[])],
      cmdclass={"build_ext": MakeExtension})
