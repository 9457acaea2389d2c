#!/bin/sh
# gpu-check.sh [STEP...] -- the GPU machine's check in one call; the steps
# (all of them by default, in this order):
#   test       build with CUDA, run `make test-gpu`
#   sanitizer  compute-sanitizer's memcheck, racecheck and initcheck over
#              every test binary that runs on the device (the GPU tests and
#              the unit tests, with FLOW_DEVICE=cuda): SAN_JOBS runs at a
#              time (default: the cores), each limited to SAN_TIMEOUT
#              seconds [900]; SAN_TOOLS and SAN_TESTS (binary names) narrow
#              it, and FLOW_TEST_ONLY runs only the tests whose name
#              contains it
#   bench      the benchmarks
# Logs go under $OUT (when set); a short summary comes last.  Exit status 1
# when the build, a test or a sanitizer run failed.
set -u
b=${BUILD:-build}
out=${OUT:-/tmp/gpu-check}
steps=${*:-test sanitizer bench}
mkdir -p "$out"
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee "$out/gpu.txt"
make -j"$(nproc)" tests >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
grep -E "warning|flow-platform" "$out/build.log" | head -20
status=0

if has test; then
    make test-gpu >"$out/test-gpu.log" 2>&1 || status=1
fi

if has sanitizer; then
    sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
    if [ -z "$sanitizer" ]; then
        echo "gpu-check: compute-sanitizer not found" >"$out/sanitizer.txt"
        status=1
    else
        mkdir -p "$out/sanitizer"
        tests=${SAN_TESTS:-$(cd "$b/tests" && ls gpu_test_* test_* 2>/dev/null)}
        for tool in ${SAN_TOOLS:-memcheck racecheck initcheck}; do
            for t in $tests; do echo "$tool $t"; done
        done | SANITIZER=$sanitizer B=$b LOGS=$out/sanitizer LIMIT=${SAN_TIMEOUT:-900} \
            xargs -P "${SAN_JOBS:-$(nproc)}" -L 1 sh -c '
                start=$(date +%s)
                # the out-of-memory test fails allocations on purpose
                api=$(case $1 in *device_memory) echo "--report-api-errors no" ;; esac)
                FLOW_DEVICE=cuda timeout "$LIMIT" "$SANITIZER" --tool "$0" $api --error-exitcode 99 \
                    "$B/tests/$1" >"$LOGS/$0-$1.log" 2>&1
                rc=$?
                case $rc in 0) v=clean ;; 99) v=ERRORS ;; 124) v=timeout ;; *) v="exit $rc" ;; esac
                grep -q "terminated before first instrumented API call" "$LOGS/$0-$1.log" &&
                    v="clean (no CUDA call)"
                echo "$0 $1: $v ($(($(date +%s) - start)) s)" >"$LOGS/$0-$1.result"'
        cat "$out"/sanitizer/*.result | sort >"$out/sanitizer.txt"
        grep -qv ": clean" "$out/sanitizer.txt" && status=1
    fi
fi

if has bench; then
    for bench in "$b"/tests/bench_*; do
        [ -x "$bench" ] && FLOW_DEVICE=cuda FLOW_BW_GBS=${FLOW_BW_GBS:-2875} "$bench" \
            >"$out/$(basename "$bench").txt" 2>&1
    done
fi

if has test; then
    echo "==== largest CPU/GPU disagreements"
    grep -E "rel\. error" "$out/test-gpu.log" |
        awk '{ for (i = 1; i < NF; i++) if ($i == "error") print $(i + 1), $0 }' | sort -g |
        tail -8 | cut -d' ' -f2-
    echo "==== test-gpu"
    grep -E "FAIL|passed, " "$out/test-gpu.log" | tail -15
fi
if has sanitizer; then
    echo "==== compute-sanitizer (tool, verdict, runs):"
    awk '{ print $1, $3 }' "$out/sanitizer.txt" | sort | uniq -c
    grep -v ": clean" "$out/sanitizer.txt"
fi
for f in "$out"/bench_*.txt; do
    [ -e "$f" ] && { echo "==== $(basename "$f")"; cat "$f"; }
done
exit $status
