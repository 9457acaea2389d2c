"""setup.py -- the extension flowplatform._flowplatform for `pip install .`
(pyproject.toml holds the rest).  By default the extension is built as `make
python` builds it, by the Makefile, for the interpreter running this build:
libflow from this tree (with CUDA when nvcc is found, as plain `make`
decides; CUDA=0 in the environment leaves it out), linked in statically, in
a build directory of setuptools' own.  With FLOW_LIBFLOW=installed in the
environment, python/src is compiled here against the installed libflow that
pkg-config finds (`make install`'s libflow.pc) and linked to its shared
library.  The package's .py files come from python/."""
import glob
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


def pkg_config(*args):
    """pkg-config's answer for libflow, as a list of words."""
    try:
        r = subprocess.run(["pkg-config", *args, "libflow"], capture_output=True, text=True)
    except OSError:
        r = None
    if r is None or r.returncode != 0:
        sys.exit("setup.py: FLOW_LIBFLOW=installed, but pkg-config finds no libflow: install it "
                 "(make install PREFIX=...) and set PKG_CONFIG_PATH=PREFIX/lib/pkgconfig where "
                 "pkg-config does not look")
    return r.stdout.split()


class MakeExtension(build_ext):
    """Runs `make python` for sys.executable and takes the module it links,
    or (FLOW_LIBFLOW=installed) compiles the module against the installed
    libflow."""

    def build_extension(self, ext):
        where = os.environ.get("FLOW_LIBFLOW", "tree")
        if where not in ("tree", "installed"):
            sys.exit("setup.py: FLOW_LIBFLOW=%s: 'tree' (libflow built from this tree, the "
                     "default) or 'installed' (the one pkg-config finds)" % where)
        if where == "installed":
            self.against_installed(ext)
        else:
            self.with_make(ext)

    def against_installed(self, ext):
        import numpy
        libdir = pkg_config("--variable=libdir")[0]
        ext.sources = sorted(os.path.relpath(p) for p in
                             glob.glob(os.path.join(ROOT, "python", "src", "*.c")))
        ext.include_dirs = [numpy.get_include()] + [f[2:] for f in pkg_config("--cflags-only-I")]
        ext.extra_compile_args = ["-std=c11", "-fvisibility=hidden"]
        ext.extra_link_args = pkg_config("--libs") + ["-Wl,-rpath," + libdir]
        self.force = True  # a module that make linked from the tree may be newer than python/src
        super().build_extension(ext)

    def with_make(self, ext):
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
