#!/bin/sh
# install.sh -- `make install PREFIX=DIR` from the build in $BUILD into a
# scratch prefix: the tools, libflow.a, the shared library (the real file
# libflow.so.X.Y.Z, its soname link and the libflow.so link), the public
# headers and a libflow.pc through which a C program compiles, links (shared,
# and static with `pkg-config --static`) and computes a flow; and, when the
# build has it, the Python module flowplatform, which imports from the prefix
# (PYTHONPATH) and computes a flow with no library path, also under DESTDIR,
# and `pip install` of it against the installed libflow (FLOW_LIBFLOW=installed)
# into a virtual environment, and flow-studio, which runs from the prefix and
# serves its page.
# The work tree is left as it was found (git status, when the root is a git
# work tree).
# Prints "N passed, N failed[, N skipped]".
. "$(dirname "$0")/../common/harness.sh" # BUILD, BIN, T, expect, ok, bad, skip, check, ...
root=$(pwd)
# git status of the work tree, untracked files included (ignored ones, such
# as $BUILD, are not); without optional locks, so as not to take the index's
# lock from a git command running beside the test.
git_status() { git -C "$root" --no-optional-locks status --porcelain --untracked-files=all; }
if [ "$(git -C "$root" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$root" && pwd -P)" ]; then
    git_status >"$T/status.before" 2>&1 || rm -f "$T/status.before"
fi
# make once split PREFIX="$T/with space" and installed into ./space/bin
existed=""
for d in space "with space"; do [ -e "$root/$d" ] && existed="$existed '$d'"; done
harness_need_bins "$BIN/flow-compute"
if [ "${SANITIZE:-0}" = 1 ] || ! command -v pkg-config >/dev/null; then
    # a sanitizer build's objects need the sanitizer runtime at every link
    skip "install: not with SANITIZE=1 or without pkg-config"
    harness_report
    exit $?
fi
# (MAKEFLAGS cleared: under `make -j test` this make is not part of the jobserver)
expect "prefix with a space refused" 2 err "PREFIX '.*with space' must be one path without spaces" \
    env MAKEFLAGS= make -s -C "$root" install BUILD="$BUILD" PREFIX="$T/with space"
check "nothing installed there" '[ ! -e "$T/with space" ] && [ ! -e "$T/with" ]'
if [ -n "$existed" ]; then
    skip "nothing installed into the repository ($existed existed before the test)"
else
    check "nothing installed into the repository (space, with space)" \
        '[ ! -e "$root/space" ] && [ ! -e "$root/with space" ]'
fi
P="$T/prefix"
expect "make install" 0 err EMPTY env MAKEFLAGS= make -s -C "$root" install BUILD="$BUILD" PREFIX="$P"
check "tools installed" '[ -x "$P/bin/flow-compute" ] && [ -x "$P/bin/flow-track" ] && [ -x "$P/bin/flow-tool" ] && [ -x "$P/bin/flow-synth" ]'
check "headers installed" '[ -f "$P/include/flow/flow.h" ] && [ -f "$P/include/flow/params.h" ] && [ -f "$P/include/flow/context.h" ] && [ -f "$P/include/flow/track.h" ]'
expect "installed tool runs" 0 out "^flow-compute [0-9]" "$P/bin/flow-compute" --version
expect "installed flow-track runs" 0 out "^flow-track [0-9]" "$P/bin/flow-track" --version
check "man pages installed (share/man/man1)" \
    '[ -s "$P/share/man/man1/flow-compute.1" ] && [ -s "$P/share/man/man1/flow-tool.1" ] && [ -s "$P/share/man/man1/flow-synth.1" ] && [ -s "$P/share/man/man1/flow-track.1" ]'
C="$P/share/bash-completion/completions"
check "bash completion installed under each tool's name" \
    '[ -f "$C/flow-compute" ] && [ "$(readlink "$C/flow-tool")" = flow-compute ] && [ "$(readlink "$C/flow-synth")" = flow-compute ] && [ "$(readlink "$C/flow-track")" = flow-compute ]'
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
expect "pkg-config finds it" 0 out "^0\.[0-9]+\.[0-9]+$" pkg-config --modversion libflow
check "pkg-config names the prefix" '[ "$(pkg-config --variable=prefix libflow)" = "$P" ]'

# The shared library: the real file libflow.so.X.Y.Z; its soname, recorded in
# the programs linked against it, libflow.so.X (libflow.so.0.Y for a 0.x
# version, whose every minor version may change the API), a link to it; and
# libflow.so, the name the linker looks for, a link to the soname.  The links
# are relative, so that the prefix can move (DESTDIR, packages).
V=$(pkg-config --modversion libflow 2>/dev/null)
major=${V%%.*} minor=${V#*.} minor=${minor%%.*}
if [ "$major" = 0 ]; then soname=libflow.so.0.$minor; else soname=libflow.so.$major; fi
check "libraries installed (libflow.a, libflow.so.$V)" \
    '[ -f "$P/lib/libflow.a" ] && [ -f "$P/lib/libflow.so.$V" ] && [ ! -L "$P/lib/libflow.so.$V" ]'
check "$soname -> libflow.so.$V" \
    '[ -L "$P/lib/$soname" ] && [ "$(readlink "$P/lib/$soname")" = "libflow.so.$V" ]'
check "libflow.so -> $soname" \
    '[ -L "$P/lib/libflow.so" ] && [ "$(readlink "$P/lib/libflow.so")" = "$soname" ]'
# dynamic_tag FILE TAG: the values of the tag (SONAME, NEEDED) in the dynamic section
dyn=""
if command -v readelf >/dev/null; then
    dyn=readelf
    dynamic_tag() { readelf -d "$1" 2>/dev/null | sed -n "s/.*($2) *[^[]*\[\(.*\)\]\$/\1/p"; }
elif command -v objdump >/dev/null; then
    dyn=objdump
    dynamic_tag() { objdump -p "$1" 2>/dev/null | awk -v t="$2" '$1 == t { print $2 }'; }
fi
if [ -n "$dyn" ]; then
    check "the installed library's SONAME is $soname" \
        '[ "$(dynamic_tag "$P/lib/libflow.so.$V" SONAME)" = "$soname" ]'
else
    skip "the installed library's SONAME (neither readelf nor objdump)"
fi

[ -f "$BUILD/python/flowplatform/__init__.py" ] && python_built=1 || python_built=""
cd "$T" || exit 1
cat >prog.c <<'PROG'
/* a user's program: CLG-NL on a generated translation, mean flow printed */
#include <flow/flow.h>
#include <stdio.h>

int main(void)
{
    const int w = 64, h = 48;
    flow_device *d;
    flow_params *p;
    flow_context *ctx;
    flow_image f1, f2;
    flow_field out;
    flow_synth s = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 0.5, .dy = -0.25, .seed = 3 };
    if (flow_device_open("cpu", &d) != FLOW_OK || flow_params_create("clg-nl", &p) != FLOW_OK
        || flow_synth_frame(&s, w, h, 1, 0, &f1) != FLOW_OK
        || flow_synth_frame(&s, w, h, 1, 1, &f2) != FLOW_OK || flow_field_alloc(&out, w, h) != FLOW_OK
        || flow_context_create(d, w, h, 1, p, &ctx) != FLOW_OK
        || flow_context_compute(ctx, &f1, &f2, &out) != FLOW_OK) {
        fprintf(stderr, "prog: %s\n", flow_last_error());
        return 1;
    }
    double u = 0, v = 0;
    int n = 0;
    for (int y = 8; y < h - 8; y++)
        for (int x = 8; x < w - 8; x++, n++)
            u += out.u[y * w + x], v += out.v[y * w + x];
    printf("%.4f %.4f\n", u / n, v / n);
    flow_context_destroy(ctx);
    flow_params_destroy(p);
    flow_image_free(&f1), flow_image_free(&f2);
    flow_field_free(&out);
    flow_device_close(d);
    return 0;
}
PROG
# shellcheck disable=SC2046 # the flags are words
expect "compiles and links (shared)" 0 err EMPTY \
    sh -c 'cc -std=c11 -o prog_shared prog.c $(pkg-config --cflags --libs libflow)'
# the true flow is (0.5, -0.25)
near_truth() { awk '{ exit !($1 > 0.47 && $1 < 0.53 && $2 > -0.28 && $2 < -0.22) }' "$1"; }
expect "runs (shared)" 0 err EMPTY env LD_LIBRARY_PATH="$P/lib" ./prog_shared
cp "$T/out" shared.txt
check "flow of the shared build" 'near_truth shared.txt'
if [ -n "$dyn" ]; then
    check "the program needs $soname" 'dynamic_tag prog_shared NEEDED | grep -qx "$soname"'
else
    skip "the program needs $soname (neither readelf nor objdump)"
fi
# One version everywhere: the installed header's macros (which the Makefile
# reads), the library's flow_version(), libflow.pc and the soname above.
cat >version.c <<'PROG'
#include <flow/flow.h>
#include <stdio.h>

int main(void)
{
    printf("%d.%d.%d %s %s\n", FLOW_VERSION_MAJOR, FLOW_VERSION_MINOR, FLOW_VERSION_PATCH,
           FLOW_VERSION_STRING, flow_version());
    return 0;
}
PROG
# shellcheck disable=SC2046 # the flags are words
expect "a program reads the version macros and flow_version()" 0 err EMPTY \
    sh -c 'cc -std=c11 -o version version.c $(pkg-config --cflags --libs libflow) && LD_LIBRARY_PATH="$1/lib" ./version' sh "$P"
check "header macros, FLOW_VERSION_STRING, flow_version() and libflow.pc all say $V" \
    '[ -n "$V" ] && [ "$(cat "$T/out")" = "$V $V $V" ]'
expect "the installed tools say $V too" 0 out "^flow-compute $V \\(libflow $V\\)\$" "$P/bin/flow-compute" --version
# docs/API.md's program, as printed there: the C block of "## A program"
# (the other C blocks are fragments)
awk '/^## A program/ { in_section = 1 } in_section && /^```$/ && open { exit }
     open { print } in_section && /^```c$/ { open = 1 }' "$root/docs/API.md" >api.c
# shellcheck disable=SC2046 # the flags are words
expect "docs/API.md's program compiles and links" 0 err EMPTY \
    sh -c 'cc -std=c11 -Wall -Wextra -Werror -o api api.c $(pkg-config --cflags --libs libflow)'
expect "docs/API.md's program runs" 0 out "^mean flow [0-9.-]+ [0-9.-]+ on .* \(libflow $V\)\$" \
    env LD_LIBRARY_PATH="$P/lib" ./api
sed 's/^mean flow \([^ ]*\) \([^ ]*\) .*/\1 \2/' "$T/out" >api.txt
check "docs/API.md's program finds the flow" '[ -s api.c ] && near_truth api.txt'
mkdir static && cp "$P/lib/libflow.a" static/
expect "compiles and links (static)" 0 err EMPTY \
    sh -c 'cc -std=c11 -o prog_static prog.c $(pkg-config --cflags libflow) -Lstatic $(pkg-config --static --libs libflow)'
expect "runs (static, no library path)" 0 err EMPTY ./prog_static
check "static and shared give the same flow" 'cmp -s "$T/out" shared.txt'

# The Python module: under the prefix in lib/pythonX.Y/dist-packages (on
# Debian's sys.path for the prefixes /usr/local and /usr), libflow linked in.
python=${PYTHON:-$(sh "$root/scripts/find-python" 2>/dev/null | cut -d' ' -f1)}
python=${python:-python3}
if [ -z "$python_built" ]; then
    skip "python module: not built (python3-dev and python3-numpy)"
else
    site="$P/lib/python$("$python" -c 'import sysconfig; print(sysconfig.get_python_version())')/dist-packages"
    so=$(ls "$site"/flowplatform/_flowplatform*.so 2>/dev/null)
    check "python module installed in $site" '[ -f "$site/flowplatform/__init__.py" ] && [ -n "$so" ]'
    expect "python module imports from the prefix" 0 out "^$site/flowplatform/__init__.py\$" \
        env PYTHONPATH="$site" "$python" -c 'import flowplatform; print(flowplatform.__file__)'
    if [ -n "$dyn" ] && [ -n "$so" ]; then
        check "python module needs no libflow.so" '! dynamic_tag "$so" NEEDED | grep -q libflow'
    else
        skip "python module needs no libflow.so (neither readelf nor objdump)"
    fi
    "$P/bin/flow-synth" -q -s 64x48 --dx 0.5 --dy -0.25 --seed 3 -o "$T/py%d.png"
    # the mean flow away from the border, as prog.c prints it
    expect "python module computes from the prefix" 0 err EMPTY \
        env PYTHONPATH="$site" "$python" -c 'import sys, flowplatform as fp
f = fp.compute(fp.read_image(sys.argv[1]), fp.read_image(sys.argv[2]), "clg-nl", "cpu")
print("%.4f %.4f" % tuple(f[8:-8, 8:-8].reshape(-1, 2).mean(axis=0)))' "$T/py0.png" "$T/py1.png"
    check "flow of the python module" 'near_truth "$T/out"'
    # pip against the installed libflow (FLOW_LIBFLOW=installed, docs/python.md): a virtual
    # environment's module, linked to the prefix's libflow.so, computes the same flow
    # (a virtual environment made from a virtual environment's python3 sees the
    # base interpreter's packages, not that environment's numpy: then skipped)
    if "$python" -c 'import setuptools, ensurepip' 2>/dev/null \
        && "$python" -m venv --system-site-packages "$T/venv" >/dev/null 2>&1 \
        && "$T/venv/bin/python" -c 'import numpy' 2>/dev/null; then
        expect "pip install against the installed libflow" 0 out "Successfully installed flowplatform" \
            env PKG_CONFIG_PATH="$P/lib/pkgconfig" FLOW_LIBFLOW=installed "$T/venv/bin/pip" install \
            --no-build-isolation --no-index --disable-pip-version-check "$root"
        vso=$(ls "$T"/venv/lib/python*/site-packages/flowplatform/_flowplatform*.so 2>/dev/null)
        check "pip module: linked to the prefix's libflow.so" \
            '[ -n "$vso" ] && ldd "$vso" | grep -q "$soname => $P/lib/$soname"'
        expect "pip module computes" 0 err EMPTY env -u PYTHONPATH "$T/venv/bin/python" -c 'import sys, flowplatform as fp
f = fp.compute(fp.read_image(sys.argv[1]), fp.read_image(sys.argv[2]), "clg-nl", "cpu")
print("%.4f %.4f" % tuple(f[8:-8, 8:-8].reshape(-1, 2).mean(axis=0)))' "$T/py0.png" "$T/py1.png"
        check "flow of the pip module" 'near_truth "$T/out"'
    else
        skip "pip install against the installed libflow: $python has no setuptools or venv (python3-setuptools, python3-venv), or its virtual environments see no numpy"
    fi
    # flow-studio: its launcher names where its files and the module went
    check "flow-studio installed (bin, share/flow-studio, its man page)" \
        '[ -x "$P/bin/flow-studio" ] && [ -f "$P/share/flow-studio/flowstudio/server.py" ] && [ -f "$P/share/flow-studio/static/index.html" ] && [ -f "$P/share/flow-studio/seq-scan.sh" ] && [ -s "$P/share/man/man1/flow-studio.1" ]'
    expect "installed flow-studio runs (no PYTHONPATH)" 0 out "^flow-studio [0-9]" \
        env -u PYTHONPATH "$P/bin/flow-studio" --version
    mkdir "$T/seq" && cp "$T/py0.png" "$T/seq/a0.png" && cp "$T/py1.png" "$T/seq/a1.png"
    "$P/bin/flow-studio" -q -d cpu "$T/seq" >"$T/url" 2>"$T/studio.err" &
    studio_pid=$!
    tries=0
    while [ ! -s "$T/url" ] && [ $tries -lt 100 ] && kill -0 $studio_pid 2>/dev/null; do sleep 0.1; tries=$((tries + 1)); done
    expect "installed flow-studio serves its page and finds the frames" 0 out '"name":"seq"' \
        "$python" -c 'import sys, urllib.request
import re
url = open(sys.argv[1]).read().strip()
page = urllib.request.urlopen(url).read().decode()
assert "flow-studio" in page
token = re.search(r"<meta name=.flow-studio-token. content=.([^\"]+).>", page).group(1)
req = urllib.request.Request(url + "api/sequences", headers={"X-Flow-Studio-Token": token})
print(urllib.request.urlopen(req).read().decode())' "$T/url"
    kill $studio_pid 2>/dev/null
    wait $studio_pid 2>/dev/null
fi
D="$T/destdir"
expect "make install DESTDIR" 0 err EMPTY \
    env MAKEFLAGS= make -s -C "$root" install BUILD="$BUILD" PREFIX=/usr/local DESTDIR="$D"
check "man pages and completion under DESTDIR" \
    '[ -s "$D/usr/local/share/man/man1/flow-compute.1" ] && [ -L "$D/usr/local/share/bash-completion/completions/flow-tool" ]'
if [ -n "$python_built" ]; then
    check "python module under DESTDIR" '[ -f "$D/usr/local${site#"$P"}/flowplatform/__init__.py" ]'
    check "flow-studio under DESTDIR, naming its place without DESTDIR" \
        '[ -f "$D/usr/local/share/flow-studio/static/app.js" ] && grep -q "^STUDIO_DIR = \"/usr/local/share/flow-studio\"$" "$D/usr/local/bin/flow-studio"'
fi

# make uninstall takes back every file install put under the prefix.
expect "make uninstall" 0 err EMPTY env MAKEFLAGS= make -s -C "$root" uninstall BUILD="$BUILD" PREFIX="$P"
left=$(find "$P" ! -type d | head -n 5 | tr '\n' ' ')
check "make uninstall leaves no file under the prefix (${left:-none})" '[ -z "$left" ]'

# Everything went to $T and to $BUILD (ignored): the work tree is as it was.
if [ -f "$T/status.before" ]; then
    if git_status >"$T/status.after" 2>&1 && cmp -s "$T/status.before" "$T/status.after"; then
        ok
    else
        bad "the work tree changed (git status --porcelain --untracked-files=all, before/after):"
        diff "$T/status.before" "$T/status.after" | sed -n 's/^[<>]/    &/p' | head -n 20
    fi
else
    skip "work tree left clean: $root is not the top of a git work tree"
fi
harness_report
