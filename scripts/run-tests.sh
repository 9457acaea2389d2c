#!/bin/sh
# run-tests.sh MODE [unit] -- runs every unit test binary (MODE cuda adds
# the GPU agreement tests), every CLI test script and the Python module's
# and flow-studio's tests (pytest on tests/python, with $PYTHON, when
# PYMODULE is 1; the browser test needs chromium and chromedriver), then
# prints one total line "N passed, N failed" that CI reads.  With `unit`,
# the unit test binaries alone.  Exit status 1 when anything failed.
mode=$1
scope=${2:-all}
build=${BUILD:-build}
if [ "${SANITIZE:-0}" = 1 ]; then
    # The CUDA runtime maps memory where ASan keeps its shadow gap.
    export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1
fi
passed=0 failed=0 skipped=0
tally() {  # adds the counts of the last "N passed, N failed[, N skipped]" line of $1
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
    if [ -z "$line" ]; then
        failed=$((failed + 1))
        echo "  FAIL $2: no result line (crashed?)"
        return
    fi
    p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
    s=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped.*/\1/p')
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
}
log=$(mktemp)
bins=$(ls "$build"/tests/test_* 2>/dev/null)
[ "$mode" = cuda ] && bins="$bins $(ls "$build"/tests/gpu_test_* 2>/dev/null)"
for t in $bins; do
    echo "== $(basename "$t") [$FLOW_DEVICE]"
    "$t" >"$log" 2>&1
    rc=$?
    cat "$log"
    tally "$log" "$(basename "$t")"
    if [ $rc -ne 0 ] && ! grep -qE '^[0-9]+ passed, [1-9][0-9]* failed' "$log"; then
        # a non-zero exit with no failed test counted: a crash or a sanitizer report
        failed=$((failed + 1))
        echo "  FAIL $(basename "$t"): exit status $rc"
    fi
done
for t in $([ "$scope" = unit ] || echo tests/cli/*.sh); do
    [ -e "$t" ] || continue
    echo "== $(basename "$t")"
    BUILD="$build" sh "$t" >"$log" 2>&1
    cat "$log"
    tally "$log" "$(basename "$t")"
done
# pytest's summary line, "3 failed, 70 passed, 5 skipped, 1 error in 9.81s":
# an error (a test that could not run) counts as failed.
tally_pytest() {
    line=$(grep -E '^=* *([0-9]+ [a-z]+(, )?)+ in [0-9.]+s' "$1" | tail -n 1)
    if [ -z "$line" ]; then
        failed=$((failed + 1))
        echo "  FAIL tests/python: no pytest summary line"
        return
    fi
    count() { echo "$line" | grep -Eo "[0-9]+ $1" | awk '{ n += $1 } END { print n + 0 }'; }
    passed=$((passed + $(count passed)))
    failed=$((failed + $(count failed) + $(count 'errors?')))
    skipped=$((skipped + $(count skipped)))
}
[ "$scope" = unit ] || echo "== tests/python [pytest, $FLOW_DEVICE]"
# the interpreter make built the module for (PYTHON), else the one it would pick
python=${PYTHON:-$(sh scripts/find-python 2>/dev/null | cut -d' ' -f1)}
python=${python:-python3}
if [ "$scope" = unit ]; then
    : # the unit tests alone
elif [ "${PYMODULE:-0}" != 1 ]; then
    skipped=$((skipped + 1))
    echo "  skip tests/python: the Python module is not built (python3-dev and python3-numpy)"
elif [ "${SANITIZE:-0}" = 1 ]; then
    # the module would need the sanitizer runtime loaded into the interpreter
    skipped=$((skipped + 1))
    echo "  skip tests/python: not with SANITIZE=1"
elif ! "$python" -c 'import pytest' 2>/dev/null; then
    skipped=$((skipped + 1))
    echo "  skip tests/python: $python has no pytest (python3-pytest)"
else
    # no bytecode or cache files left in the work tree; -rs: why a test was
    # skipped (no evaluation data, no chromium for flow-studio's browser test)
    BUILD="$build" PYTHONDONTWRITEBYTECODE=1 "$python" -m pytest -q -rs -p no:cacheprovider \
        tests/python >"$log" 2>&1
    cat "$log"
    tally_pytest "$log"
fi
rm -f "$log"
echo
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
