#!/usr/bin/env bash
# setup.sh -- makes a fresh Debian or Ubuntu machine ready for flow-platform
# and builds it: installs the packages that are missing with apt-get (as
# root, or through sudo), builds everything with `make -j$(nproc)`, then
# runs the main job, `make demo`.
#
#   scripts/setup.sh              install what is missing, build, make demo
#   scripts/setup.sh --deps-only  only install what is missing (.ci/run uses
#                                 this, so that CI installs exactly this list)
#   scripts/setup.sh --no-demo    install and build, skip make demo
#
# CUDA is optional and not installed here: the Makefile finds nvcc in PATH
# or in $CUDA_HOME/bin (default /usr/local/cuda) and otherwise builds the
# CPU backend only.  Extra arguments after the options go to make, e.g.
# `scripts/setup.sh --no-demo OPENCV=0`.
set -euo pipefail

# The packages: compiler and make, pkg-config (the Makefile finds OpenCV and
# libpng with it), libpng and OpenCV development files (images and video),
# ImageMagick (sequences' frames that are not PNG), gnuplot (charts; the -nox
# build is the gnuplot command without a GUI toolkit, which is all the
# scripts need), OpenCV's
# python bindings (scripts/bench-peers, the peers benchmark, and its test),
# Python's headers, numpy and pytest (the Python module flowplatform and its
# tests), setuptools, pip and venv (`pip install .` of the module into a
# virtual environment, without network), clang (libFuzzer and the sanitizers: `make fuzz` and the fuzz smoke
# run of `make test`; its runtime package is added below where it comes
# apart), and Slurm with munge (tests/cli/slurm.sh runs scripts/slurm-flows
# on a one-node cluster it starts; nothing here starts or enables the
# daemons).
PACKAGES=(build-essential pkg-config libpng-dev libopencv-dev imagemagick gnuplot-nox
          python3-opencv python3-dev python3-numpy python3-pytest python3-setuptools python3-pip
          python3-venv clang slurm-wlm munge)

deps_only=0 demo=1
while [ $# -gt 0 ]; do
    case "$1" in
    --deps-only) deps_only=1 ;;
    --no-demo) demo=0 ;;
    -h | --help)
        sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    --) shift; break ;;
    -*) echo "setup.sh: unknown option '$1' (try --help)" >&2; exit 1 ;;
    *) break ;;
    esac
    shift
done

cd "$(dirname "$0")/.."

installed() { # package name -> status 0 when dpkg has it installed
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

missing=()
for p in "${PACKAGES[@]}"; do
    case "$p" in
    gnuplot-nox) # any gnuplot will do
        installed gnuplot-nox || installed gnuplot-qt || installed gnuplot-x11 ||
            missing+=("$p") ;;
    *) installed "$p" || missing+=("$p") ;;
    esac
done

as_root() { # COMMAND... -> run as root, or through sudo
    if ! command -v apt-get >/dev/null; then
        echo "setup: apt-get not found: this script knows Debian and Ubuntu only;" \
             "install the equivalents of the missing packages" >&2
        exit 2
    fi
    if [ "$(id -u)" -eq 0 ]; then
        sudo=()
    elif command -v sudo >/dev/null; then
        sudo=(sudo)
    else
        echo "setup: missing packages and neither root nor sudo:" \
             "run as root or install them first" >&2
        exit 2
    fi
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive "$@"
}
updated=0
update_once() { [ "$updated" -eq 1 ] || { as_root apt-get update -q && updated=1; }; }
apt_install() { # packages...
    echo "setup: installing $*"
    update_once
    as_root apt-get install -y -q --no-install-recommends "$@"
}

if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all packages present (${PACKAGES[*]})"
else
    apt_install "${missing[@]}"
fi
# clang's libFuzzer and sanitizer runtime: part of clang on older releases,
# a package of its own on Debian 12 (libclang-rt-N-dev), which clang only
# recommends
if ! tests/fuzz/have-libfuzzer.sh clang; then
    rt="libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
    apt-cache show "$rt" >/dev/null 2>&1 || update_once
    if apt-cache show "$rt" >/dev/null 2>&1; then
        apt_install "$rt"
    fi
    tests/fuzz/have-libfuzzer.sh clang ||
        echo "setup: clang cannot link a libFuzzer harness: make test skips the fuzz smoke run" >&2
fi

# Chromium and its WebDriver: flow-studio's browser test drives a headless
# Chromium.  Debian's packages; where there are none (Ubuntu ships Chromium
# as a snap) the test is skipped with a notice.
if ! installed chromium-driver; then
    apt-cache show chromium-driver >/dev/null 2>&1 || update_once
    if apt-cache show chromium chromium-driver >/dev/null 2>&1; then
        apt_install chromium chromium-driver
    else
        echo "setup: no chromium-driver package: make test skips flow-studio's browser test" >&2
    fi
fi

[ "$deps_only" -eq 1 ] && exit 0

nvcc_found=$(command -v nvcc || true)
[ -z "$nvcc_found" ] && [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] &&
    nvcc_found="${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
if [ -n "$nvcc_found" ]; then
    echo "setup: nvcc at $nvcc_found: building the CPU and CUDA backends"
else
    echo "setup: no nvcc in PATH or ${CUDA_HOME:-/usr/local/cuda}/bin: building CPU-only" \
         "(install the CUDA toolkit and set CUDA_HOME for the GPU backend)"
fi

jobs=$(nproc 2>/dev/null || echo 2)
make -j"$jobs" "$@"
if [ "$demo" -eq 1 ]; then
    make "$@" demo
fi
