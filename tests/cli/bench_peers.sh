#!/bin/sh
# bench_peers.sh -- CLI tests of scripts/bench-peers: --help, the bad options
# (exit 1 and a message naming the option), the missing tool, data or
# sequence (exit 2, naming the path), a bad method caught by flow-compute
# before any long run, and one --quick run on the CPU backend (160x120, 4
# frames) whose table must have its header and one row per measurement, each
# rate with its ratio to OpenCV DIS medium (x1.00 on that row) and the
# accuracy columns; the same with --markdown --no-accuracy.  The python is
# $PYTHON, else the first of python3 and /usr/bin/python3 that imports cv2
# and numpy (one without them runs the script again with one that has them); without python3 everything is skipped, without cv2 all but the
# option checks, without the evaluation data (../shared/data or FLOW_DATA)
# the runs.  Prints "N passed, N failed[, N skipped]".
. "$(dirname "$0")/../common/harness.sh" # BUILD, BIN, T, expect, ok, bad, skip, check, ...
BP=$(pwd)/scripts/bench-peers
DATA=$(cd "${FLOW_DATA:-../shared/data}" 2>/dev/null && pwd)

ANY= PY=
for p in ${PYTHON:-} python3 /usr/bin/python3; do
    command -v "$p" >/dev/null 2>&1 || continue
    [ -n "$ANY" ] || ANY=$p
    if "$p" -c 'import cv2, numpy' 2>/dev/null; then
        PY=$p
        break
    fi
done
if [ -z "$ANY" ]; then
    skip "bench-peers: no python3 on PATH"
    harness_report
    exit
fi

# ---- options: parsed before cv2 is imported, so any python3 will do -------------------------
expect "help" 0 out "^usage: bench-peers" "$ANY" "$BP" --help
expect "help names the measures" 0 out "flows/s sustained" "$ANY" "$BP" --help
expect "size not WxH" 1 err "--sizes: '640' is not WxH" "$ANY" "$BP" --sizes 640
expect "size too small" 1 err "--sizes: 16x16: each side from 32" "$ANY" "$BP" --sizes 16x16
expect "one frame" 1 err "--frames 1: at least 2" "$ANY" "$BP" --frames 1
expect "no run" 1 err "--runs 0: at least 1" "$ANY" "$BP" --runs 0
expect "bad device" 1 err "--device 'gpu': cpu, cuda or cuda:N" "$ANY" "$BP" --device gpu
expect "bad method option" 1 err "'preset' in 'dis:preset' is not NAME=VALUE" \
    "$ANY" "$BP" --methods dis:preset
expect "bad method name" 1 err "--methods: 'Dis!' is not a method name" \
    "$ANY" "$BP" --methods 'Dis!'
expect "unknown option" 1 err "unrecognized arguments: --bogus" "$ANY" "$BP" --bogus
expect "frames not a number" 1 err "--frames: invalid int value" "$ANY" "$BP" --frames many

# a python3 without cv2 (here, or none to show): it runs the script again with the first
# python3 in PATH that has cv2 (to the missing flow-compute, exit 2 after the modules), and
# with no such python3 in PATH fails naming each one tried, what it lacks and the fix
if [ "$ANY" != "$PY" ]; then
    ANY_EXE=$("$ANY" -c 'import sys; print(sys.executable)')
    mkdir -p "$T/path-cv2" "$T/path-none"
    # a wrapper, not a link: a virtual environment's python3 linked from elsewhere loses its
    # environment (its pyvenv.cfg is found beside the name it was started by)
    printf '#!/bin/sh\nexec "%s" "$@"\n' "$(command -v "$PY")" >"$T/path-cv2/python3"
    chmod +x "$T/path-cv2/python3"
    expect "python without cv2: runs with one that has it" 2 err "$T/nobin: no flow-compute there" \
        env PATH="$T/path-none:$T/path-cv2" "$ANY_EXE" "$BP" --quick --bin "$T/nobin"
    check "python without cv2: says which python runs it" \
        'grep -q "lacks .*cv2; running with $T/path-cv2/python3" "$T/err"'
    ln -sf "$ANY_EXE" "$T/path-none/python3"
    expect "no python with cv2" 2 err "needs a python3 that imports numpy and cv2: $ANY_EXE (.*) lacks .*cv2; install python3-opencv" \
        env PATH="$T/path-none" "$ANY_EXE" "$BP" --quick
else
    skip "bench-peers without cv2 (every python3 found has it)"
fi
if [ -z "$PY" ]; then
    skip "bench-peers runs: no python3 with cv2 and numpy (install python3-opencv)"
    harness_report
    exit
fi
harness_need_bins "$BIN/flow-compute"

# ---- what is missing: exit 2 naming the path --------------------------------------------------
expect "no flow-compute" 2 err "$T/nobin: no flow-compute there" \
    "$PY" "$BP" --quick --bin "$T/nobin" --data "${DATA:-$T}"
expect "no data" 2 err "$T/nodata: the evaluation data is not there" \
    "$PY" "$BP" --quick --bin "$BIN" --data "$T/nodata"
if [ -z "$DATA" ] || [ ! -f "$DATA/middlebury/Grove2/frame07.png" ]; then
    skip "bench-peers runs: evaluation data (middlebury/Grove2) absent"
    harness_report
    exit
fi
expect "sequence without frame 07" 2 err "Dimetrodon/frame07.png: a frame of the timed sequence not found" \
    "$PY" "$BP" --quick --device cpu --bin "$BIN" --data "$DATA" --sequence Dimetrodon
expect "unknown method" 1 err "--methods 'nosuch' failed" \
    "$PY" "$BP" --quick --device cpu --bin "$BIN" --data "$DATA" --methods nosuch
expect "unknown method option" 1 err "--methods 'dis:preset=slowest' failed" \
    "$PY" "$BP" --quick --device cpu --bin "$BIN" --data "$DATA" --methods dis:preset=slowest
check "unknown method option: flow-compute's message" 'grep -q "unknown preset .slowest." "$T/err"'

# ---- one quick run: the table's shape -----------------------------------------------------------
RATE='[0-9]+(\.[0-9]+)? \(x[0-9]+(\.[0-9]+)?\)'
expect "quick run" 0 out "^method +side +160x120 flows/s +Yosemite AAE +Middlebury AEE +chairs AEE$" \
    "$PY" "$BP" --quick --device cpu --bin "$BIN" --data "$DATA" --work "$T/work"
Q=$T/quick.txt QE=$T/quick.err
cp "$T/out" "$Q"
cp "$T/err" "$QE"
check "quick: machine and command lines" \
    'grep -q "^machine: .*cores; flow-compute on cpu" "$Q" && grep -q "^command: scripts/bench-peers --quick" "$Q"'
rows() { sed -n '/^method /,$p' "$1" | tail -n +2; }
check "quick: 6 rows (dis, dis + .flo, 4 OpenCV)" '[ "$(rows "$Q" | wc -l)" -eq 6 ]'
check "quick: row names" \
    '[ "$(rows "$Q" | sed -E "s/  .*//" | tr "\n" ,)" = "dis,dis + .flo,DIS ultrafast,DIS fast,DIS medium,Farneback," ]'
check "quick: every rate with its ratio" \
    '[ "$(rows "$Q" | grep -Ec "(project \(cpu\)|OpenCV \([0-9]+ threads\)) +$RATE ")" -eq 6 ]'
check "quick: DIS medium is the reference" 'rows "$Q" | grep -Eq "^DIS medium .*\(x1\.00\)"'
check "quick: accuracy of each side" \
    '[ "$(rows "$Q" | grep -Ec "\) +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}$")" -eq 5 ]'
check "quick: the .flo row shares its method's accuracy" \
    'rows "$Q" | grep -Eq "^dis \+ \.flo .*\(same\) +\(same\) +\(same\)$"'
check "quick: progress log with the sustained figure" \
    'grep -q "160x120 dis, project (cpu): run 1/1: 3 flows in .* flows/s sustained" "$QE"'
check "quick: --work kept the frames, no flows left" \
    '[ "$(ls "$T/work/frames-160x120/seq" | wc -l)" -eq 4 ] && [ ! -e "$T/work/frames-160x120/flows" ]'

expect "markdown" 0 out "^\| method \| side \| 160x120 flows/s \| Yosemite AAE" \
    "$PY" "$BP" --quick --device cpu --bin "$BIN" --data "$DATA" --markdown --no-accuracy -q
MD=$T/md.txt
cp "$T/out" "$MD"
check "markdown: nothing on stderr with -q" '[ ! -s "$T/err" ]'
check "markdown: machine and command" \
    'grep -q "^Machine: .*OpenCV [0-9.]* on [0-9]* threads" "$MD" && grep -q "^Command: \`scripts/bench-peers --quick" "$MD"'
check "markdown: separator and 6 rows" \
    '[ "$(grep -c "^|---|---|---:|---:|---:|---:|$" "$MD")" -eq 1 ] && [ "$(grep -c "^| " "$MD")" -eq 7 ]'
check "markdown: no accuracy" '[ "$(grep -Ec "^\| .* \| - \| - \| - \|$" "$MD")" -eq 6 ]'
harness_report
