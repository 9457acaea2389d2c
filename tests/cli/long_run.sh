#!/bin/sh
# long_run.sh -- a long stream keeps flat memory: 100 000 small frames of a
# .y4m on flow-compute's standard input (CPU backend), the resident size of
# the process sampled after the first frames and again near the end.  A
# leak of 20 bytes per flow would show as 2 MB.  FLOW_LONG_FRAMES overrides
# the length.  Needs python3 to write the stream.
. "$(dirname "$0")/../common/harness.sh"
FC="$BIN/flow-compute"
harness_need_bins "$FC"
frames=${FLOW_LONG_FRAMES:-100000}
allow_kb=2048

if ! command -v python3 >/dev/null 2>&1; then
    skip "long run: python3 is not installed (it writes the stream)"
    harness_report
    exit
fi

# writer.py FIFO PID N: writes N mono 16x16 frames (a random texture moving
# one pixel per frame) into FIFO; prints the resident size of PID in kB
# after 2000 frames and again after N - 100 (the reader is at most a pipe
# buffer behind), then "frames N".
cat >"$T/writer.py" <<'PY'
import random, sys
fifo, pid, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
w, h = 16, 16
rng = random.Random(7)
texture = [rng.randrange(256) for _ in range((w + 8) * h)]
frames = [b"FRAME\n" + bytes(texture[y * (w + 8) + x + s] for y in range(h) for x in range(w))
          for s in range(8)]
def rss():
    with open("/proc/%s/status" % pid) as f:
        return next(l.split()[1] for l in f if l.startswith("VmRSS:"))
with open(fifo, "wb") as out:
    out.write(b"YUV4MPEG2 W16 H16 F30:1 Ip A1:1 Cmono\n")
    for i in range(n):
        out.write(frames[i % 8])
        if i == 2000 or i == n - 100:
            out.flush()
            print(rss(), flush=True)
print("frames", n)
PY
mkfifo "$T/stream"
FLOW_DEVICE=cpu FLOW_THREADS=1 "$FC" -d cpu -m lk --rho 0.5 --sigma 0 --video - <"$T/stream" >"$T/run.out" 2>"$T/run.err" &
pid=$!
python3 "$T/writer.py" "$T/stream" "$pid" "$frames" >"$T/rss.txt" 2>"$T/writer.err"
wait "$pid"
rc=$?
start=$(sed -n 1p "$T/rss.txt") end=$(sed -n 2p "$T/rss.txt")
check "long run: flow-compute read the $frames-frame stream and exited 0 (rc $rc: $(tail -n 1 "$T/run.err"))" \
    '[ $rc -eq 0 ] && grep -q "frames $frames" "$T/rss.txt"'
check "long run: $((frames - 1)) flows computed ($(cat "$T/run.out" "$T/run.err" | grep -E "flows?" | tail -n 1))" \
    'cat "$T/run.out" "$T/run.err" | grep -q "$((frames - 1)) flows"'
check "long run: resident size flat (${start:-?} kB after 2000 frames, ${end:-?} kB near the end, at most $allow_kb kB more)" \
    '[ -n "$start" ] && [ -n "$end" ] && [ "$end" -le $((start + allow_kb)) ]'
harness_report
