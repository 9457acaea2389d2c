# harness.sh -- the shell twin of harness.c, sourced by the CLI test scripts
# (tests/cli/*.sh) with
#     . "$(dirname "$0")/../common/harness.sh"
# It lives here, not in tests/cli/, so that scripts/run-tests.sh (which runs
# every tests/cli/*.sh) never runs it as a test.
#
# Sourcing it sets BUILD (from the environment, default build), BIN (the
# absolute $BUILD/bin, empty when it does not exist), T (a scratch directory
# removed on exit, named after the script) and the counters passed, failed,
# skipped; and defines the helpers below.  A script ends with
# harness_report, whose status is the script's exit status.
BUILD=${BUILD:-build}
BIN=$(cd "$BUILD/bin" 2>/dev/null && pwd) # absolute: some scripts run in the scratch directory
T=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh)_sh.XXXXXX")
trap 'rm -rf "$T"' EXIT
passed=0 failed=0 skipped=0

# expect NAME RC STREAM PATTERN CMD...: runs CMD; passes when its exit
# status is RC and STREAM (out or err) matches the extended regex PATTERN,
# or is empty when PATTERN is EMPTY.
expect() {
    name=$1 want=$2 stream=$3 pattern=$4
    shift 4
    "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$pattern" = EMPTY ]; then
        matched=$([ -s "$T/$stream" ] && echo no || echo yes)
    else
        matched=$(grep -Eq -- "$pattern" "$T/$stream" && echo yes || echo no)
    fi
    if [ "$rc" -eq "$want" ] && [ "$matched" = yes ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "  FAIL $name: exit $rc (want $want), $stream should match /$pattern/"
        sed 's/^/    out: /' "$T/out" | head -n 8
        sed 's/^/    err: /' "$T/err" | head -n 8
    fi
}
# expect_full_stdout NAME CMD...: runs CMD with its standard output on
# /dev/full, where every write fails as on a full disk; passes when it says
# so and exits 2 (skipped without /dev/full).
expect_full_stdout() {
    if [ ! -c /dev/full ]; then
        skip "$1 (no /dev/full)"
        return
    fi
    name=$1
    shift
    "$@" >/dev/full 2>"$T/err"
    rc=$?
    if [ "$rc" -eq 2 ] && grep -q "write error on standard output" "$T/err"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "  FAIL $name: exit $rc with stdout on /dev/full (want 2, \"write error on standard output\")"
        sed 's/^/    err: /' "$T/err" | head -n 8
    fi
}
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "  FAIL $1"; }
skip() { skipped=$((skipped + 1)); echo "  skip $1"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; } # check NAME 'shell test'
size() { wc -c <"$1" | tr -d ' '; }
# is_flo FILE W H: a whole .flo of W x H
is_flo() {
    [ -f "$1" ] && [ "$(od -A n -c -N 4 "$1" | tr -d ' ')" = PIEH ] \
        && [ "$(od -A n -t d4 -j 4 -N 8 "$1" | tr -s ' ')" = " $2 $3" ] \
        && [ "$(size "$1")" -eq $((12 + $2 * $3 * 8)) ]
}
is_png() { [ -f "$1" ] && [ "$(od -A n -t x1 -N 4 "$1" | tr -d ' ')" = 89504e47 ]; }
# png_size FILE: "W H" from the PNG's header (IHDR), nothing when it is no PNG
png_size() {
    is_png "$1" || return 0
    od -A n -t u1 -j 16 -N 8 "$1" \
        | awk '{ printf "%d %d", (($1 * 256 + $2) * 256 + $3) * 256 + $4, (($5 * 256 + $6) * 256 + $7) * 256 + $8 }'
}

# harness_need_bins FILE...: when one of them is not an executable, prints
# the failure and "0 passed, 1 failed" and exits 1.
harness_need_bins() {
    for harness_bin in "$@"; do
        if [ ! -x "$harness_bin" ]; then
            echo "  FAIL: $harness_bin not built"
            echo "0 passed, 1 failed"
            exit 1
        fi
    done
}

# harness_report: prints "N passed, N failed[, N skipped]"; its status is 0
# when nothing failed, 1 otherwise.
harness_report() {
    if [ "$skipped" -gt 0 ]; then
        echo "$passed passed, $failed failed, $skipped skipped"
    else
        echo "$passed passed, $failed failed"
    fi
    [ "$failed" -eq 0 ]
}
