#!/bin/sh
# fuzz_smoke.sh -- the fuzz smoke run of `make test` (and `make fuzz-smoke`):
# for each libFuzzer harness of tests/fuzz/ (built by `make fuzz-build` into
# $FUZZ_BUILD), first the committed regression inputs of
# tests/fuzz/regress/<target>/, each once, then FUZZ_RUNS inputs (default
# 10000) from the seeds with a fixed random seed, so that the run is the
# same every time.  A property that fails, a sanitizer report, a leak, an
# input over the memory or time limits: that target fails, with the
# input's path and the end of the log.  Skipped (with a notice) when
# FUZZ_BUILD is not set (`make test` sets it) or $FUZZ_CC cannot link a
# libFuzzer harness.  Prints "N passed, N failed[, N skipped]".
. "$(dirname "$0")/../common/harness.sh" # BUILD, BIN, T, ok, bad, skip, ...
runs=${FUZZ_RUNS:-10000}
limits="-malloc_limit_mb=256 -rss_limit_mb=2048 -timeout=20 -max_len=8192"

if [ -z "${FUZZ_BUILD:-}" ]; then
    skip "fuzz smoke run: FUZZ_BUILD not set (make test and make fuzz-smoke set it)"
    harness_report
    exit
fi
if ! tests/fuzz/have-libfuzzer.sh "${FUZZ_CC:-clang}"; then
    skip "fuzz smoke run: ${FUZZ_CC:-clang} cannot link a libFuzzer harness (Debian: apt-get install clang libclang-rt-14-dev; scripts/setup.sh does)"
    harness_report
    exit
fi
targets=$(ls tests/fuzz/fuzz_*.c | sed 's|.*/fuzz_\(.*\)\.c|\1|')
for t in $targets; do
    fuzzer="$FUZZ_BUILD/fuzz/fuzz_$t"
    if [ ! -x "$fuzzer" ]; then
        bad "fuzz_$t: not built ($fuzzer; make fuzz-build)"
        continue
    fi
    # the regression inputs, each once
    if "$fuzzer" $limits tests/fuzz/regress/"$t"/* >"$T/$t-regress.log" 2>&1; then
        ok
    else
        bad "fuzz_$t: a regression input of tests/fuzz/regress/$t fails"
        tail -n 20 "$T/$t-regress.log" | sed 's/^/    /'
    fi
    # fuzzing from the seeds: new inputs go to a scratch corpus
    mkdir -p "$T/corpus-$t"
    if "$fuzzer" $limits -runs="$runs" -seed=1 -artifact_prefix="$T/$t-" \
        "$T/corpus-$t" "$FUZZ_BUILD/fuzz/seeds/$t" >"$T/$t.log" 2>&1; then
        ok
        echo "  fuzz_$t: $(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 inputs in \2 s/p' "$T/$t.log")"
    else
        bad "fuzz_$t: $runs inputs from the seeds"
        tail -n 20 "$T/$t.log" | sed 's/^/    /'
        for a in "$T/$t-"*; do
            [ -f "$a" ] || continue
            mkdir -p "$FUZZ_BUILD/fuzz/artifacts"
            cp "$a" "$FUZZ_BUILD/fuzz/artifacts/" && echo "    input kept: $FUZZ_BUILD/fuzz/artifacts/$(basename "$a")"
        done
    fi
done
harness_report
