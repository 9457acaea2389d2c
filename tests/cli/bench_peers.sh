#!/bin/sh
# bench_peers.sh -- CLI tests of scripts/bench-peers: --help, the bad options
# (exit 1 and a message naming the option), the missing tool, data or
# sequence (exit 2, naming the path), a bad method caught by flow-compute
# before any long run, and one --quick run on the CPU backend (160x120, 4
# frames) whose table must have its header and one row per measurement, each
# rate with its ratio to OpenCV DIS medium (x1.00 on that row) and the
# accuracy columns; the same with --markdown --no-accuracy; the streams and
# GPUs rows through a flow-compute that computes its cuda devices on the CPU
# and says cuda (each row's -d, its rate, "(same)" accuracy); then miniature
# Sintel and KITTI 2012/2015 training trees (flow-synth, masks drawn with
# ImageMagick's convert), whose table must have a row per dataset and method,
# each equal to flow-tool error run directly on the flows kept by --work,
# pooled over the scored pixels.  The python is
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
expect "help names the streams and GPUs rows" 0 out "--one-gpu" "$ANY" "$BP" --help
check "help: the streams row" 'grep -q "METHOD, N streams" "$T/out" && grep -q "METHOD, N GPUs" "$T/out"'
for n in 1 17 -3; do
    expect "--streams $n" 1 err "--streams $n: 2 to 16 \(streams on the one GPU\), or 0 for none" \
        "$ANY" "$BP" --streams "$n"
done
expect "--streams not a number" 1 err "--streams: invalid int value: 'many'" "$ANY" "$BP" --streams many
expect "--streams on cpu" 1 err "--streams 4: not with --device cpu" "$ANY" "$BP" -d cpu --streams 4

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
# the OpenCV rows: DeepFlow too where cv2 has opencv-contrib's cv2.optflow
TIMED="DIS ultrafast,DIS fast,DIS medium,Farneback," NROWS=6
"$PY" -c 'import cv2; cv2.optflow.createOptFlow_DeepFlow' 2>/dev/null && TIMED="${TIMED}DeepFlow," NROWS=7
check "quick: $NROWS rows (dis, dis + .flo, the OpenCV ones)" '[ "$(rows "$Q" | wc -l)" -eq $NROWS ]'
check "quick: row names" \
    '[ "$(rows "$Q" | sed -E "s/  .*//" | tr "\n" ,)" = "dis,dis + .flo,$TIMED" ]'
check "quick: every rate with its ratio" \
    '[ "$(rows "$Q" | grep -Ec "(project \(cpu\)|OpenCV \([0-9]+ threads\)) +$RATE ")" -eq $NROWS ]'
check "quick: DIS medium is the reference" 'rows "$Q" | grep -Eq "^DIS medium .*\(x1\.00\)"'
check "quick: accuracy of each side" \
    '[ "$(rows "$Q" | grep -Ec "\) +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}$")" -eq $((NROWS - 1)) ]'
check "quick: the .flo row shares its method's accuracy" \
    'rows "$Q" | grep -Eq "^dis \+ \.flo .*\(same\) +\(same\) +\(same\)$"'
check "quick: progress log with the sustained figure" \
    'grep -q "160x120 dis, project (cpu): run 1/1: 3 flows in .* flows/s sustained" "$QE"'
check "quick: --work kept the frames, no flows left" \
    '[ "$(ls "$T/work/frames-160x120/seq" | wc -l)" -eq 4 ] && [ ! -e "$T/work/frames-160x120/flows" ]'
check "quick: on cpu no streams or GPUs rows, said once" \
    '[ "$(grep -c "no streams or GPUs rows: the device is cpu" "$QE")" -eq 1 ]'
# -d auto that finds no GPU (none visible, on any machine): --streams asked for is refused once
# the device is known
expect "--streams when the device is cpu" 1 err "--streams 4: the device is cpu, not cuda" \
    env CUDA_VISIBLE_DEVICES= "$PY" "$BP" --quick --bin "$BIN" --data "$DATA" --streams 4 --no-accuracy

# ---- the streams and GPUs rows: a flow-compute that runs every cuda device on the CPU (a list
# keeps its length, cuda:all is $FAKE_GPUS entries), says "backend cuda" and logs each -d
mkdir -p "$T/fake/bin"
cat >"$T/fake/fake.py" <<'EOF2'
import os, re, subprocess, sys
args = sys.argv[2:]
i = args.index("-d") + 1
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(args[i] + "\n")
n = int(os.environ["FAKE_GPUS"]) if args[i] == "cuda:all" else len(args[i].split(","))
args[i] = "cpu" if n == 1 else ",".join(["cpu"] * n)
p = subprocess.run([sys.argv[1]] + args, stderr=subprocess.PIPE, text=True)
sys.stderr.write(re.sub(r"backend cpu, device .*", "backend cuda, device Fake GPU", p.stderr))
sys.exit(p.returncode)
EOF2
printf '#!/bin/sh\nexec "%s" "%s" "%s" "$@"\n' "$(command -v "$PY")" "$T/fake/fake.py" "$BIN/flow-compute" \
    >"$T/fake/bin/flow-compute"
chmod +x "$T/fake/bin/flow-compute"
FAKE_LOG=$T/fake/log
export FAKE_LOG
expect "streams and GPUs rows" 0 out "^dis, 3 streams +project \(cuda\) +$RATE +\(same\) +\(same\) +\(same\)$" \
    env FAKE_GPUS=2 "$PY" "$BP" --quick --bin "$T/fake/bin" --data "$DATA" -d cuda:1 --streams 3 \
    --opencv dis-medium
F=$T/fake.txt
cp "$T/out" "$F"
check "streams and GPUs: the rows" \
    '[ "$(rows "$F" | sed -E "s/  .*//" | tr "\n" ,)" = "dis,dis + .flo,dis, 3 streams,dis, 2 GPUs,DIS medium," ]'
check "streams and GPUs: the GPUs row, the same flows" \
    'rows "$F" | grep -Eq "^dis, 2 GPUs +project \(cuda\) +$RATE +\(same\) +\(same\) +\(same\)$"'
check "streams and GPUs: the timed runs' devices" \
    '[ "$(grep -c "^cuda:1,cuda:1,cuda:1$" "$FAKE_LOG")" -eq 1 ] && [ "$(grep -c "^cuda:all$" "$FAKE_LOG")" -eq 2 ]'
check "streams and GPUs: the header says what the rows are" \
    'tr "\n" " " <"$F" | grep -q "the .3 streams. rows: -d cuda:1 named 3 times .* the .2 GPUs. rows: -d cuda:all"'
check "streams and GPUs: each run's log" \
    'grep -q "160x120 dis, 3 streams, project (cuda): run 1/1: 3 flows in .* flows/s sustained" "$T/err"'
check "streams and GPUs: too few pairs for every stream, said" \
    'grep -q "160x120: fewer than 12 pairs, not a chunk of 4 for each of the 3 streams (--frames 13" "$T/err"'
: >"$FAKE_LOG"
expect "one GPU: no GPUs rows" 0 err "no GPUs rows: flow-compute -d cuda:all opens 1 GPU" \
    env FAKE_GPUS=1 "$PY" "$BP" --quick --bin "$T/fake/bin" --data "$DATA" --no-accuracy \
    --opencv dis-medium
check "one GPU, --quick: no streams rows either" \
    '[ "$(rows "$T/out" | sed -E "s/  .*//" | tr "\n" ,)" = "dis,dis + .flo,DIS medium," ]'
: >"$FAKE_LOG"
# without --quick (its options given one by one): 8 streams on cuda by default, of cuda:0
expect "--one-gpu, default streams" 0 out "^DIS medium " \
    env FAKE_GPUS=2 "$PY" "$BP" --sizes 160x120 --frames 4 --runs 1 --methods dis \
    --bin "$T/fake/bin" --data "$DATA" --no-accuracy --opencv dis-medium --one-gpu
check "--one-gpu: 8 streams of cuda:0, cuda:all not even probed" \
    '[ "$(rows "$T/out" | sed -E "s/  .*//" | tr "\n" ,)" = "dis,dis + .flo,dis, 8 streams,DIS medium," ] && ! grep -q "cuda:all" "$FAKE_LOG" && grep -Eq "^cuda:0(,cuda:0){7}$" "$FAKE_LOG"'

expect "markdown" 0 out "^\| method \| side \| 160x120 flows/s \| Yosemite AAE" \
    "$PY" "$BP" --quick --device cpu --bin "$BIN" --data "$DATA" --markdown --no-accuracy -q
MD=$T/md.txt
cp "$T/out" "$MD"
check "markdown: nothing on stderr with -q" '[ ! -s "$T/err" ]'
check "markdown: machine and command" \
    'grep -q "^Machine: .*OpenCV [0-9.]* on [0-9]* threads" "$MD" && grep -q "^Command: \`scripts/bench-peers --quick" "$MD"'
check "markdown: separator and $NROWS rows" \
    '[ "$(grep -c "^|---|---|---:|---:|---:|---:|$" "$MD")" -eq 1 ] && [ "$(grep -c "^| " "$MD")" -eq $((NROWS + 1)) ]'
check "markdown: no accuracy" '[ "$(grep -Ec "^\| .* \| - \| - \| - \|$" "$MD")" -eq $NROWS ]'
expect "--opencv: the chosen rows" 0 out "^DIS medium " \
    "$PY" "$BP" --quick --device cpu --bin "$BIN" --data "$DATA" --no-accuracy -q --opencv dis-medium,farneback
check "--opencv: only those beside the project's" \
    '[ "$(rows "$T/out" | sed -E "s/  .*//" | tr "\n" ,)" = "dis,dis + .flo,DIS medium,Farneback," ]'
expect "--opencv without the reference" 1 err "--opencv: dis-medium is the reference" \
    "$PY" "$BP" --opencv farneback
expect "--opencv: unknown row" 1 err "--opencv: 'tvl1' is not one of" "$PY" "$BP" --opencv tvl1
# ---- Sintel and KITTI: miniature training trees (flow-synth frames and ground truth, masks
# drawn with ImageMagick) laid out as the downloads; every row of the second table must be
# flow-tool error run directly on the flows it kept, pooled over the scored pixels
if ! command -v convert >/dev/null 2>&1; then
    skip "bench-peers on Sintel and KITTI trees: needs ImageMagick's convert"
    harness_report
    exit
fi
W=64 H=48
mask() { convert -size ${W}x$H xc:black -fill white -draw "rectangle $2 $3" -colorspace Gray -depth 8 "$1"; }
# unknown IN.flo OUT.flo X0 Y0 X1 Y1: IN with the vectors in the rectangle unknown
unknown() {
    "$PY" - "$@" <<'EOF2'
import struct, sys
src, dst, x0, y0, x1, y1 = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
data = bytearray(open(src, "rb").read())
w, h = struct.unpack_from("<ii", data, 4)
for y in range(y0, y1 + 1):
    for x in range(x0, x1 + 1):
        struct.pack_into("<ff", data, 12 + 8 * (y * w + x), 1e10, 1e10)
open(dst, "wb").write(data)
EOF2
}
S=$T/mini/sintel/training
mkdir -p "$S/clean/sc" "$S/final/sc" "$S/flow/sc" "$S/occlusions/sc" "$S/invalid/sc"
"$BIN/flow-synth" -m object --dx 0.5 --dy -0.25 --odx 2 --ody 1 -s ${W}x$H -n 3 --first 1 --seed 3 -q \
    -o "$S/clean/sc/frame_%04d.png" --gt "$S/flow/sc/frame_%04d.flo"
"$BIN/flow-synth" -m object --dx 0.5 --dy -0.25 --odx 2 --ody 1 -s ${W}x$H -n 3 --first 1 --seed 3 -q -c \
    -o "$S/final/sc/frame_%04d.png"
for f in 1 2; do
    mask "$S/occlusions/sc/frame_000$f.png" "$((4 * f)),4" "$((24 + 4 * f)),$((16 + f))"
    mask "$S/invalid/sc/frame_000$f.png" "40,30" "$((46 + f)),37"
done
# KITTI: 2012 pairs 000000 (flow_occ and flow_noc) and 000001 (flow_noc only); 2015 pair
# 000000 with obj_map; flow_occ with a strip unknown, flow_noc without a rectangle too
for year in 2012 2015; do
    K=$T/mini/kitti$year/training img=colored_0
    [ $year = 2015 ] && img=image_2
    mkdir -p "$K/$img" "$K/flow_occ" "$K/flow_noc"
    ids=000000; [ $year = 2012 ] && ids="000000 000001"
    for id in $ids; do
        "$BIN/flow-synth" -m object --dx -1 --dy 0.5 --odx 7 --ody 0 -s ${W}x$H -n 2 --first 10 -c -q \
            --seed "1$id" -o "$K/$img/${id}_%02d.png" --gt "$T/k$year-$id-%02d.flo"
        unknown "$T/k$year-$id-10.flo" "$T/occ.flo" 0 44 63 47
        unknown "$T/occ.flo" "$T/noc.flo" 20 8 40 28
        [ $id = 000001 ] || "$BIN/flow-tool" convert "$T/occ.flo" "$K/flow_occ/${id}_10.png"
        "$BIN/flow-tool" convert "$T/noc.flo" "$K/flow_noc/${id}_10.png"
    done
    [ $year = 2015 ] && mkdir -p "$K/obj_map" && mask "$K/obj_map/000000_10.png" "12,6" "44,30"
done
expect "Sintel and KITTI" 0 out "^\| dataset \| method \| side \| pairs \| EPE all \| EPE noc \| EPE occ \| Fl-all \| Fl-noc \| Fl-occ \|$" \
    "$PY" "$BP" --quick --device cpu --bin "$BIN" --data "$DATA" --markdown -q --work "$T/dwork" \
    --sintel "$T/mini/sintel" --kitti "$T/mini/kitti2012/training" --kitti "$T/mini/kitti2015" \
    --peers dis-medium
DS=$T/ds.txt
cp "$T/out" "$DS"
check "Sintel and KITTI: a row per dataset and method" \
    '[ "$(grep -Ec "^\| (Sintel clean|Sintel final|KITTI 2012|KITTI 2015) \| (dis \| project \(cpu\)|DIS medium \| OpenCV \([0-9]+ threads\)) \| " "$DS")" -eq 8 ]'
# pooled FILES...: "EPE all | noc | occ | Fl-all | Fl-noc | Fl-occ" of flow-tool error's CSVs
pooled() {
    awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        function add(k, w) { if ($(c[k]) != "" && $(c[w]) > 0) { s[k] += $(c[k]) * $(c[w]); n[k] += $(c[w]) } }
        { add("aee", "scored"); add("epe_noc", "scored_noc"); add("epe_occ", "scored_occ")
          add("fl", "scored"); add("fl_noc", "scored_noc"); add("fl_occ", "scored_occ") }
        function v(k, f) { return n[k] > 0 ? sprintf(f, s[k] / n[k]) : "-" }
        END { printf "%s | %s | %s | %s | %s | %s\n", v("aee", "%.3f"), v("epe_noc", "%.3f"), v("epe_occ", "%.3f"),
              v("fl", "%.2f%%"), v("fl_noc", "%.2f%%"), v("fl_occ", "%.2f%%") }' "$@"
}
# direct METHOD_DIR DATASET_DIR NAME GT [OPTIONS]: flow-tool error of the kept flow into $T/direct/
direct() {
    _f=$T/dwork/datasets/$1/$2/$3.flo _o=$T/direct/$1-$2-$3.csv _gt=$4
    shift 4
    mkdir -p "$T/direct"
    "$BIN/flow-tool" error --csv "$@" "$_f" "$_gt" >"$_o"
}
for m in dis DIS_medium; do
    for ps in clean final; do
        for f in 1 2; do
            direct $m "Sintel-$ps" "$ps-sc-000$f" "$S/flow/sc/frame_000$f.flo" \
                --occlusions "$S/occlusions/sc/frame_000$f.png" --invalid "$S/invalid/sc/frame_000$f.png"
        done
    done
    K=$T/mini/kitti2012/training
    direct $m KITTI-2012 000000 "$K/flow_occ/000000_10.png" --noc "$K/flow_noc/000000_10.png"
    direct $m KITTI-2012 000001 "$K/flow_noc/000001_10.png"
    K=$T/mini/kitti2015/training
    direct $m KITTI-2015 000000 "$K/flow_occ/000000_10.png" --noc "$K/flow_noc/000000_10.png" \
        --objmap "$K/obj_map/000000_10.png"
done
for ds in "Sintel clean" "Sintel final" "KITTI 2012" "KITTI 2015"; do
    n=2; [ "$ds" = "KITTI 2015" ] && n=1
    key=$(echo "$ds" | tr ' ' -)
    for row in "dis | project (cpu)" "DIS medium | OpenCV"; do
        m=dis; [ "$row" = "dis | project (cpu)" ] || m=DIS_medium
        want=$(pooled "$T"/direct/$m-$key-*.csv)
        check "$ds, ${row%% |*}: the row is flow-tool error's pooled figures ($want)" \
            'grep -Eq "^\| $ds \| ${row%% |*} \| [^|]+ \| $n \| " "$DS" && grep -F "| $ds | ${row%% |*} |" "$DS" | grep -qF "| $n | $want |"'
    done
done
check "KITTI: noc and occ apart with flow_occ, not without it" \
    '[ "$(pooled "$T"/direct/dis-KITTI-2012-000001.csv | cut -d"|" -f2 | tr -d " ")" = - ] && ! grep -F "| KITTI 2015 | dis |" "$DS" | grep -qF "| - |"'
"$BIN/flow-compute" -d cpu -q -m dis "$S/final/sc/frame_0001.png" "$S/final/sc/frame_0002.png" -o "$T/again.flo"
check "Sintel: the project's flow is flow-compute's" \
    'cmp -s "$T/again.flo" "$T/dwork/datasets/dis/Sintel-final/final-sc-0001.flo"'
"$PY" - "$S/clean/sc/frame_0001.png" "$S/clean/sc/frame_0002.png" "$T/dwork/datasets/DIS_medium/Sintel-clean/clean-sc-0001.flo" <<'EOF2'
import sys, cv2, numpy as np
i1, i2 = (cv2.imread(f, cv2.IMREAD_GRAYSCALE) for f in sys.argv[1:3])
flow = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_MEDIUM).calc(i1, i2, None)
raw = open(sys.argv[3], "rb").read()
w, h = np.frombuffer(raw[4:12], "<i4")
ok = raw[:4] == b"PIEH" and (h, w) == flow.shape[:2] and np.array_equal(np.frombuffer(raw[12:], "<f4").reshape(h, w, 2), flow)
sys.exit(0 if ok else 1)
EOF2
rc=$?
check "Sintel: OpenCV's flow written as .flo is cv2's calc()" '[ $rc -eq 0 ]'
expect "Sintel: not a training tree" 2 err "$T/mini: no flow/ there or in its training/" \
    "$PY" "$BP" --quick --device cpu --bin "$BIN" --data "$DATA" --sintel "$T/mini"
mkdir -p "$T/nogt/colored_0"
cp "$T/mini/kitti2012/training/colored_0/"*.png "$T/nogt/colored_0/"
expect "KITTI: no pair with ground truth" 2 err "$T/nogt: no pair with ground truth" \
    "$PY" "$BP" --quick --device cpu --bin "$BIN" --data "$DATA" --kitti "$T/nogt"
expect "every peer by default" 0 out "^\| KITTI 2015 \| Farneback \| " \
    "$PY" "$BP" --quick --device cpu --bin "$BIN" --data "$DATA" --markdown -q --kitti "$T/mini/kitti2015"
PEERS="DIS ultrafast,DIS fast,DIS medium,Farneback,"
"$PY" -c 'import cv2; cv2.optflow.createOptFlow_DeepFlow' 2>/dev/null && PEERS="${PEERS}DeepFlow,TV-L1,"
check "every peer by default: $PEERS" \
    '[ "$(grep "^| KITTI 2015 | .* | OpenCV" "$T/out" | cut -d"|" -f3 | sed "s/^ //; s/ $//" | tr "\n" ,)" = "$PEERS" ]'
expect "unknown peer" 1 err "--peers: 'dis' is not one of" "$PY" "$BP" --peers dis
harness_report
