#!/bin/sh
# run-tests.sh MODE [unit] -- runs every unit test binary (MODE cuda adds
# the GPU agreement tests), every CLI test script and the Python module's
# and flow-studio's tests (pytest on tests/python, with $PYTHON, when
# PYMODULE is 1; the browser test needs chromium and chromedriver), then
# prints one total line "N passed, N failed" that CI reads.  With `unit`,
# the unit test binaries alone.  Exit status 1 when anything failed.
# The binaries and scripts run FLOW_TEST_JOBS at a time (default: one per
# CPU on the CPU backend, one at a time on CUDA, where the tests share one
# GPU); each writes its own log, and the logs are printed in the usual
# order, so the output does not depend on the number of jobs.  Every test
# works in its own scratch directory.
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
scripts=$([ "$scope" = unit ] || ls tests/cli/*.sh 2>/dev/null)
if [ "$mode" = cuda ]; then jobs=${FLOW_TEST_JOBS:-1}; else jobs=${FLOW_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}; fi
logs=$(mktemp -d)
# runs every test, $jobs at a time: test N's output in $logs/N.log, its exit
# status in $logs/N.rc
n=0
for t in $bins $scripts; do n=$((n + 1)); echo "$n $t"; done |
    xargs -P "$jobs" -L 1 sh -c '
        case $3 in
        *.sh) BUILD="$0" sh "$3" ;;
        *) "$3" ;;
        esac >"$1/$2.log" 2>&1
        echo $? >"$1/$2.rc"' "$build" "$logs"
n=0
for t in $bins $scripts; do
    n=$((n + 1))
    case $t in
    *.sh) echo "== $(basename "$t")" ;;
    *) echo "== $(basename "$t") [$FLOW_DEVICE]" ;;
    esac
    cat "$logs/$n.log"
    tally "$logs/$n.log" "$(basename "$t")"
    rc=$(cat "$logs/$n.rc" 2>/dev/null || echo 127)
    case $t in
    *.sh) ;;
    *) if [ "$rc" -ne 0 ] && ! grep -qE '^[0-9]+ passed, [1-9][0-9]* failed' "$logs/$n.log"; then
           # a non-zero exit with no failed test counted: a crash or a sanitizer report
           failed=$((failed + 1))
           echo "  FAIL $(basename "$t"): exit status $rc"
       fi ;;
    esac
done
rm -rf "$logs"
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
