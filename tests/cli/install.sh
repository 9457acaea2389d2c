#!/bin/sh
# install.sh -- `make install PREFIX=DIR` from the build in $BUILD into a
# scratch prefix: the tools, libflow.a and libflow.so, the public headers and
# a libflow.pc through which a C program compiles, links (shared, and static
# with `pkg-config --static`) and computes a flow.
# Prints "N passed, N failed[, N skipped]".
. "$(dirname "$0")/../common/harness.sh" # BUILD, BIN, T, expect, ok, bad, skip, check, ...
root=$(pwd)
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
check "nothing installed there" '[ ! -e "$T/with space" ]'
P="$T/prefix"
expect "make install" 0 err EMPTY env MAKEFLAGS= make -s -C "$root" install BUILD="$BUILD" PREFIX="$P"
check "tools installed" '[ -x "$P/bin/flow-compute" ] && [ -x "$P/bin/flow-tool" ] && [ -x "$P/bin/flow-synth" ]'
check "libraries installed" '[ -f "$P/lib/libflow.a" ] && [ -f "$P/lib/libflow.so" ]'
check "headers installed" '[ -f "$P/include/flow/flow.h" ] && [ -f "$P/include/flow/method.h" ]'
expect "installed tool runs" 0 out "^flow-compute [0-9]" "$P/bin/flow-compute" --version
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
expect "pkg-config finds it" 0 out "^0\.[0-9]+\.[0-9]+$" pkg-config --modversion libflow
check "pkg-config names the prefix" '[ "$(pkg-config --variable=prefix libflow)" = "$P" ]'

cd "$T" || exit 1
cat >prog.c <<'PROG'
/* a user's program: CLG-NL on a generated translation, mean flow printed */
#include <flow/flow.h>
#include <stdio.h>

int main(void)
{
    const int w = 64, h = 48;
    flow_backend *b;
    flow_context *ctx;
    flow_params p;
    flow_image f1, f2;
    flow_field out;
    flow_synth s = { .motion = FLOW_SYNTH_TRANSLATE, .dx = 0.5, .dy = -0.25, .seed = 3 };
    flow_params_default(&p, FLOW_METHOD_CLG_NL);
    if (flow_backend_open("cpu", &b) != FLOW_OK || flow_synth_frame(&s, w, h, 1, 0, &f1) != FLOW_OK
        || flow_synth_frame(&s, w, h, 1, 1, &f2) != FLOW_OK || flow_field_alloc(&out, w, h) != FLOW_OK
        || flow_context_create(b, w, h, 1, &p, &ctx) != FLOW_OK
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
    flow_image_free(&f1), flow_image_free(&f2);
    flow_field_free(&out);
    flow_backend_close(b);
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
mkdir static && cp "$P/lib/libflow.a" static/
expect "compiles and links (static)" 0 err EMPTY \
    sh -c 'cc -std=c11 -o prog_static prog.c $(pkg-config --cflags libflow) -Lstatic $(pkg-config --static --libs libflow)'
expect "runs (static, no library path)" 0 err EMPTY ./prog_static
check "static and shared give the same flow" 'cmp -s "$T/out" shared.txt' 
harness_report
