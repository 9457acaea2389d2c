#!/bin/sh
# gpu-check.sh -- the GPU machine's check in one call: build with CUDA,
# run `make test-gpu`, the unit tests under compute-sanitizer, and the
# benchmarks; logs under $OUT (when set), a short summary last.
set -u
b=${BUILD:-build}
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee "$out/gpu.txt"
make -j16 tests >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
grep -E "warning|flow-platform" "$out/build.log" | head -20
make test-gpu >"$out/test-gpu.log" 2>&1
test_rc=$?
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
san_summary="compute-sanitizer not found"
if [ -n "$sanitizer" ]; then
    : >"$out/sanitizer.log"
    # the GPU tests and the unit tests of the device code (memcheck slows
    # every launch, so the long solver tests are left to test-gpu)
    for t in "$b"/tests/gpu_test_* "$b"/tests/test_preprocess "$b"/tests/test_methods; do
        FLOW_DEVICE=cuda timeout 240 "$sanitizer" --tool memcheck --error-exitcode 99 "$t" \
            >>"$out/sanitizer.log" 2>&1
        echo "$t: exit $?" >>"$out/sanitizer.log"
    done
    san_summary=$(grep -E "ERROR SUMMARY|: exit" "$out/sanitizer.log" | sort | uniq -c | tr '\n' ';')
fi
for bench in "$b"/tests/bench_*; do
    [ -x "$bench" ] && FLOW_DEVICE=cuda FLOW_BW_GBS=${FLOW_BW_GBS:-2875} "$bench" \
        >"$out/$(basename "$bench").txt" 2>&1
done
echo "==== largest CPU/GPU disagreements"
grep -E "rel\. error" "$out/test-gpu.log" |
    awk '{ for (i = 1; i < NF; i++) if ($i == "error") print $(i + 1), $0 }' | sort -g | tail -8 |
    cut -d' ' -f2-
echo "==== compute-sanitizer: $san_summary"
echo "==== test-gpu (exit $test_rc)"
grep -E "FAIL|passed, " "$out/test-gpu.log" | tail -15
for f in "$out"/bench_*.txt; do
    [ -e "$f" ] && { echo "==== $(basename "$f")"; cat "$f"; }
done
