#!/bin/sh
# gpu-check.sh [STEP...] -- the GPU machine's check in one call; the steps
# (all of them by default, in this order):
#   test       build with CUDA, run `make test-gpu`
#   sanitizer  compute-sanitizer's memcheck, racecheck and initcheck over
#              every test of every binary that runs on the device (the GPU
#              tests and the unit tests, with FLOW_DEVICE=cuda), a process
#              per tool x test (x part: RUN_PARTS in tests/common/harness.h);
#              SAN_JOBS run at a time (default: the cores), each limited to
#              SAN_TIMEOUT seconds [900]; SAN_TOOLS and SAN_TESTS (binary
#              names) narrow it, FLOW_TEST_ONLY runs only the tests whose
#              name contains it, SAN_SHARD=I/N only the I-th of N shares
#              of the runs (to spread them over several calls), and
#              SAN_RUNS=FILE only the runs listed in FILE (lines as in
#              $OUT/sanitizer/jobs; $OUT/sanitizer/unfinished lists the
#              runs that timed out)
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
        # One job per tool x binary x test (x part, for the tests made of
        # independent computations: harness.h's RUN_PARTS), the split tests
        # first: the sanitizers slow kernels 10-1000x, and a whole binary
        # would not end in one call's time.
        for tool in ${SAN_TOOLS:-memcheck racecheck initcheck}; do
            for t in $tests; do
                FLOW_DEVICE=cuda FLOW_TEST_LIST=1 "$b/tests/$t" 2>/dev/null | grep -E '^[0-9]+ ' |
                    while read -r parts name; do
                        p=0
                        while [ "$p" -lt "$parts" ]; do
                            [ "$parts" -gt 1 ] && echo "0 $tool $t $p $name" || echo "1 $tool $t - $name"
                            p=$((p + 1))
                        done
                    done
            done
        done | sort -s -k1,1n | cut -d' ' -f2- | awk -v shard="${SAN_SHARD:-1/1}" '
            BEGIN { split(shard, s, "/") } (NR - 1) % s[2] == s[1] - 1' >"$out/sanitizer/jobs"
        [ -n "${SAN_RUNS:-}" ] && cp "$SAN_RUNS" "$out/sanitizer/jobs"
        # a job is one line "TOOL BINARY PART NAME" (the name may hold spaces)
        run_jobs() { # run_jobs PARALLEL < JOBS
            SANITIZER=$sanitizer B=$b LOGS=$out/sanitizer LIMIT=${SAN_TIMEOUT:-900} \
            xargs -d '\n' -n 1 -P "$1" sh -c '
                set -f; set -- $0; tool=$1 t=$2 part=$3; shift 3; name="$*"
                log=$LOGS/$tool-$t-$(echo "$name" | tr -c "A-Za-z0-9_\n" _ | cut -c1-40)
                [ "$part" = - ] || log=$log.$part
                start=$(date +%s)
                # the out-of-memory test fails allocations on purpose
                api=$(case $t in *device_memory) echo "--report-api-errors no" ;; esac)
                FLOW_DEVICE=cuda FLOW_TEST_ONLY="=$name" FLOW_TEST_PART=$( [ "$part" = - ] || echo "$part") \
                    timeout "$LIMIT" "$SANITIZER" --tool "$tool" $api --error-exitcode 99 \
                    "$B/tests/$t" >"$log.log" 2>&1
                rc=$?
                case $rc in 0) v=clean ;; 99) v=ERRORS ;; 124) v=timeout ;; *) v="exit $rc" ;; esac
                grep -q "terminated before first instrumented API call" "$log.log" &&
                    v="clean (no CUDA call)"
                echo "$tool $t $part $name: $v ($(($(date +%s) - start)) s)" >"$log.result"
                [ "$v" = timeout ] && echo "$tool $t $part $name" >>"$LOGS/unfinished"'
        }
        # the out-of-memory test takes the whole GPU: it runs alone, after
        # the others (beside it their allocations would fail)
        grep -v " gpu_test_device_memory " "$out/sanitizer/jobs" | run_jobs "${SAN_JOBS:-$(nproc)}"
        grep " gpu_test_device_memory " "$out/sanitizer/jobs" | run_jobs 1
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
    echo "==== compute-sanitizer (runs: tool, binary, verdict)"
    sed 's/^\([^ ]* [^ ]*\) .*: \([^(]*[^ (]\).*/\1 \2/' "$out/sanitizer.txt" | sort | uniq -c
    grep -v ": clean" "$out/sanitizer.txt"
fi
for f in "$out"/bench_*.txt; do
    [ -e "$f" ] && { echo "==== $(basename "$f")"; cat "$f"; }
done
exit $status
