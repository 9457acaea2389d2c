#!/bin/sh
# datasets.sh -- `make import`, `make flows` and `make stats` on miniature
# Sintel and KITTI trees laid out exactly as the downloads (issue 44):
# generated frames with known flow (flow-synth), Sintel's ground truth as
# .flo with occlusions/ and invalid/ masks, KITTI's as 16-bit PNG
# (flow_occ, flow_noc with the occluded pixels unknown, 2015's obj_map),
# and the directories beside them that are not sequences (Sintel's
# flow_viz/, KITTI's colored_1/, image_3/).  Checks that import finds each
# sequence with its ground truth and masks and nothing else, that ONLY_GT
# keeps the right frames, that make flows scores every pair exactly as
# flow-tool error does given the same masks, and that make stats prints the
# per-dataset tables with the figures pooled from those scores.
#
# Needs $BUILD/bin/{flow-compute,flow-tool,flow-synth}, params/hs.params,
# python3 (to make the noc flows) and ImageMagick's convert (the masks):
# without the last two the test is skipped.  Prints "N passed, N failed".
set -u
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

BUILD=${BUILD:-build}
BIN=$(cd "$BUILD/bin" 2>/dev/null && pwd) || BIN=
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "  FAIL: $*"; }
check() {
    _check_what=$1; shift
    if "$@"; then ok; else bad "$_check_what"; fi
}
finish() {
    [ -n "${tmp:-}" ] && rm -rf "$tmp"
    if [ "$skip" -gt 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
    [ "$fail" -eq 0 ]
    exit
}

for t in flow-compute flow-tool flow-synth; do
    [ -n "$BIN" ] && [ -x "$BIN/$t" ] || { bad "no $BUILD/bin/$t (build first)"; finish; }
done
[ -f params/hs.params ] || { bad "no params/hs.params"; finish; }
if ! command -v convert >/dev/null || ! command -v python3 >/dev/null; then
    skip=1; echo "  skip: the miniature datasets need ImageMagick's convert and python3"; finish
fi

tmp=${DATASETS_TMP:-$(mktemp -d)}
trap 'rm -rf "$tmp"' INT TERM
mkdir -p "$tmp/params"
cp params/hs.params "$tmp/params/"
SEQ="SRC=$tmp/src DST=$tmp/dst BIN=$BIN PARAMS_DIR=$tmp/params"
FLOWS="SEQ_SRC=$tmp/src SEQ_DIR=$tmp/dst RESULTS=$tmp/results BIN=$BIN PARAMS_DIR=$tmp/params DEVICE=cpu RESULTS_KEEP=all METHODS=hs"
seqmake() { make --no-print-directory -C sequences $SEQ "$@"; }
tool() { "$BIN/flow-tool" "$@"; }
W=48 H=32

# mask OUT X0,Y0 X1,Y1: a W x H gray PNG, 255 inside the rectangle, 0 elsewhere.
mask() { convert -size ${W}x$H xc:black -fill white -draw "rectangle $2 $3" -colorspace Gray -depth 8 "$1"; }
# unknown IN.flo OUT.flo X0 Y0 X1 Y1: IN with the vectors in the rectangle unknown.
unknown() {
    python3 - "$@" <<'EOF'
import struct, sys
src, dst, x0, y0, x1, y1 = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
data = bytearray(open(src, "rb").read())
w, h = struct.unpack_from("<ii", data, 4)
for y in range(y0, y1 + 1):
    for x in range(x0, x1 + 1):
        struct.pack_into("<ff", data, 12 + 8 * (y * w + x), 1e10, 1e10)
open(dst, "wb").write(data)
EOF
}

# ---- the trees ------------------------------------------------------------------------
# Sintel: two scenes, both passes (final in colour), ground truth of every
# pair; scene_b has a fourth frame without ground truth.
sin=$tmp/data/sintel/training
for sc in a b; do
    seed=3; [ $sc = b ] && seed=4
    n=3; [ $sc = b ] && n=4
    mkdir -p "$sin/clean/scene_$sc" "$sin/final/scene_$sc" "$sin/flow/scene_$sc" \
        "$sin/occlusions/scene_$sc" "$sin/invalid/scene_$sc" "$sin/flow_viz/scene_$sc"
    "$BIN/flow-synth" -m object --dx 0.5 --dy -0.25 --odx 1.5 --ody 1 -s ${W}x$H -n $n --first 1 --seed $seed -q \
        -o "$sin/clean/scene_$sc/frame_%04d.png" --gt "$tmp/gt_$sc%04d.flo"
    "$BIN/flow-synth" -m object --dx 0.5 --dy -0.25 --odx 1.5 --ody 1 -s ${W}x$H -n $n --first 1 --seed $seed -q -c \
        -o "$sin/final/scene_$sc/frame_%04d.png"
    for f in 1 2; do
        cp "$tmp/gt_${sc}000$f.flo" "$sin/flow/scene_$sc/frame_000$f.flo"
        mask "$sin/occlusions/scene_$sc/frame_000$f.png" "$((4 * f)),4" "$((20 + 4 * f)),$((12 + f))"
        mask "$sin/invalid/scene_$sc/frame_000$f.png" "30,20" "$((34 + f)),27"
        mask "$sin/flow_viz/scene_$sc/frame_000$f.png" "0,0" "1,1"
    done
done

# KITTI 2012 and 2015: pair 000000 (2012 and 2015) and 000001 (2012, with a
# frame _09 before it, as the multi-view download has); flow_occ with a
# strip unknown (KITTI's ground truth is sparse), flow_noc without the
# occluded rectangle too.
for year in 2012 2015; do
    k=$tmp/data/kitti$year/training
    img=colored_0 other=colored_1; [ $year = 2015 ] && img=image_2 other=image_3
    mkdir -p "$k/$img" "$k/$other" "$k/flow_occ" "$k/flow_noc"
    ids=000000; [ $year = 2012 ] && ids="000000 000001"
    for id in $ids; do
        first=10; [ $id = 000001 ] && first=9
        n=$((12 - first))
        "$BIN/flow-synth" -m object --dx -1 --dy 0.5 --odx 7 --ody 0 -s ${W}x$H -n $n --first $first -c -q \
            --seed "1$id" -o "$k/$img/${id}_%02d.png" --gt "$tmp/k$year-$id-%02d.flo"
        cp "$k/$img/${id}_10.png" "$k/$other/${id}_10.png"
        unknown "$tmp/k$year-$id-10.flo" "$tmp/occ.flo" 0 30 47 31
        unknown "$tmp/occ.flo" "$tmp/noc.flo" 14 6 30 20
        tool convert "$tmp/occ.flo" "$k/flow_occ/${id}_10.png"
        tool convert "$tmp/noc.flo" "$k/flow_noc/${id}_10.png"
    done
    if [ $year = 2015 ]; then
        mkdir -p "$k/obj_map"
        mask "$k/obj_map/000000_10.png" "10,4" "34,24"
    fi
done

# ---- 1. import ----------------------------------------------------------------------------
out=$(seqmake import DIR="$tmp/data" 2>&1)
rc=$?
check "import (rc $rc): $(printf '%s' "$out" | grep -iv '^  [A-Z]' | head -n 3)" [ $rc -eq 0 ]
lists=$(cd "$tmp/src" && ls *.list | tr '\n' ' ')
check "import: a sequence per Sintel scene and pass and per KITTI pair, nothing else ($lists)" \
    [ "$lists" = "kitti2012-000000.list kitti2012-000001.list kitti2015-000000.list sintel-clean-scene_a.list sintel-clean-scene_b.list sintel-final-scene_a.list sintel-final-scene_b.list " ]
check "import: every one with ground truth" \
    [ "$(printf '%s\n' "$out" | grep -c 'IMPORT.*ground truth for')" -eq 7 ]
d=$tmp/dst/sintel-final-scene_b
check "Sintel: the scene's frames in order" \
    [ "$(readlink -f "$d/frame_000.png")" = "$(readlink -f "$sin/final/scene_b/frame_0001.png")" -a \
      "$(readlink -f "$d/frame_003.png")" = "$(readlink -f "$sin/final/scene_b/frame_0004.png")" ]
check "Sintel: flow/SCENE/frame_0002.flo is pair 1, frame_0003 has none" \
    [ "$(readlink -f "$d/gt_001.flo")" = "$(readlink -f "$sin/flow/scene_b/frame_0002.flo")" -a ! -e "$d/gt_002.flo" ]
check "Sintel: occlusions/ and invalid/ are pair 1's masks" \
    [ "$(readlink -f "$d/occ_001.png")" = "$(readlink -f "$sin/occlusions/scene_b/frame_0002.png")" -a \
      "$(readlink -f "$d/invalid_001.png")" = "$(readlink -f "$sin/invalid/scene_b/frame_0002.png")" ]
check "Sintel: no mask taken for a frame, none for another scene" \
    [ "$(ls "$d"/frame_*.png | wc -l)" -eq 4 -a "$(readlink -f "$tmp/dst/sintel-clean-scene_a/occ_000.png")" = "$(readlink -f "$sin/occlusions/scene_a/frame_0001.png")" ]
d=$tmp/dst/kitti2015-000000
tool convert "$tmp/data/kitti2015/training/flow_occ/000000_10.png" "$tmp/occ-read.flo"
check "KITTI: the 16-bit flow_occ PNG is the ground truth (as flow-tool reads it)" cmp -s "$d/gt_000.flo" "$tmp/occ-read.flo"
check "KITTI: flow_noc beside it is noc, obj_map the object map" \
    [ "$(readlink -f "$d/noc_000.png")" = "$(readlink -f "$tmp/data/kitti2015/training/flow_noc/000000_10.png")" -a \
      "$(readlink -f "$d/obj_000.png")" = "$(readlink -f "$tmp/data/kitti2015/training/obj_map/000000_10.png")" ]
d=$tmp/dst/kitti2012-000001
check "KITTI: NNNNNN_09, _10, _11 in order, the ground truth on _10 -> _11 (pair 1)" \
    [ -f "$d/frame_002.png" -a -f "$d/gt_001.flo" -a ! -e "$d/gt_000.flo" -a ! -e "$tmp/dst/kitti2012-000000/obj_000.png" ]

only=$tmp/only
sh scripts/seq-import.sh "$tmp/data" "$only" "" 1 >/dev/null 2>&1
check "ONLY_GT: KITTI's _09 dropped, the pair renumbered 0" \
    [ "$(grep -c '^frame ' "$only/kitti2012-000001.list")" -eq 2 -a "$(grep -c '^gt 0 .*flow_occ/000001_10.png$' "$only/kitti2012-000001.list")" -eq 1 \
      -a "$(grep -c '^noc 0 ' "$only/kitti2012-000001.list")" -eq 1 ]
check "ONLY_GT: Sintel's fourth frame (no ground truth) dropped, the masks kept" \
    [ "$(grep -c '^frame ' "$only/sintel-clean-scene_b.list")" -eq 3 -a "$(grep -c '^\(occ\|invalid\) [01] ' "$only/sintel-clean-scene_b.list")" -eq 4 ]

# ---- 2. flows: every pair scored as flow-tool error scores it -----------------------------
out=$(make --no-print-directory -f scripts/flows.mk $FLOWS flows-compute 2>&1)
rc=$?
check "make flows (rc $rc): $(printf '%s' "$out" | grep -iv '^  [A-Z]' | head -n 3)" [ $rc -eq 0 ]
# direct SEQ PAIR [OPTIONS]: flow-tool error of the pipeline's flow with OPTIONS
direct() {
    _s=$1 _p=$2; shift 2
    tool error --csv "$@" "$tmp/results/$_s/hs/$_p.flo" "$tmp/dst/$_s/gt_$_p.flo" > "$tmp/direct-$_s-$_p.csv"
    cmp -s "$tmp/direct-$_s-$_p.csv" "$tmp/results/$_s/hs/$_p.error"
}
for sc in a b; do
    for ps in clean final; do
        for p in 0 1; do
            check "Sintel $ps scene_$sc pair $p: scored with its occlusions and invalid masks" \
                direct "sintel-$ps-scene_$sc" 00$p --occlusions "$sin/occlusions/scene_$sc/frame_000$((p + 1)).png" \
                --invalid "$sin/invalid/scene_$sc/frame_000$((p + 1)).png"
        done
    done
done
for id in 000000 000001; do
    p=000; [ $id = 000001 ] && p=001
    check "KITTI 2012 $id: scored on flow_occ with flow_noc" \
        direct "kitti2012-$id" $p --noc "$tmp/data/kitti2012/training/flow_noc/${id}_10.png"
done
check "KITTI 2015 000000: scored on flow_occ with flow_noc and obj_map" \
    direct kitti2015-000000 000 --noc "$tmp/data/kitti2015/training/flow_noc/000000_10.png" \
    --objmap "$tmp/data/kitti2015/training/obj_map/000000_10.png"
check "the occluded pixels are scored apart (Sintel and KITTI)" \
    awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } !($(c["scored_occ"]) > 0 && $(c["epe_occ"]) != "") { bad = 1 } END { exit bad }' \
    "$tmp"/direct-sintel-clean-scene_a-000.csv "$tmp"/direct-kitti2015-000000-000.csv

# ---- 3. stats: the per-dataset tables -------------------------------------------------------
out=$(make --no-print-directory -f scripts/flows.mk $FLOWS stats 2>&1)
rc=$?
check "make stats (rc $rc): $(printf '%s' "$out" | grep -iv '^  [A-Z]' | head -n 3)" [ $rc -eq 0 ]
# pooled FILES...: "EPE all | noc | occ | Fl-all | Fl-noc | Fl-occ" of the
# direct scores, every scored pixel of every pair pooled.
pooled() {
    awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        function add(k, w) { if ($(c[k]) != "" && $(c[w]) > 0) { s[k] += $(c[k]) * $(c[w]); n[k] += $(c[w]) } }
        { add("aee", "scored"); add("epe_noc", "scored_noc"); add("epe_occ", "scored_occ")
          add("fl", "scored"); add("fl_noc", "scored_noc"); add("fl_occ", "scored_occ") }
        function v(k, f) { return n[k] > 0 ? sprintf(f, s[k] / n[k]) : "-" }
        END { printf "%s | %s | %s | %s | %s | %s\n", v("aee", "%.3f"), v("epe_noc", "%.3f"), v("epe_occ", "%.3f"),
              v("fl", "%.2f%%"), v("fl_noc", "%.2f%%"), v("fl_occ", "%.2f%%") }' "$@"
}
sintel_clean=$(pooled "$tmp"/direct-sintel-clean-*.csv | cut -d'|' -f1-3 | sed 's/ *$//')
sintel_final=$(pooled "$tmp"/direct-sintel-final-*.csv | cut -d'|' -f1-3 | sed 's/ *$//')
kitti12=$(pooled "$tmp"/direct-kitti2012-*.csv)
kitti15=$(pooled "$tmp"/direct-kitti2015-*.csv)
printf '%s\n' "$out" | grep -A4 '^## Accuracy on' | sed 's/^/    /'
check "stats: Sintel clean's table, EPE all | noc | occ = $sintel_clean" \
    eval 'printf "%s\n" "$out" | grep -A4 "^## Accuracy on Sintel clean" | grep -qF "| hs | 4 | $sintel_clean |"'
check "stats: Sintel final's table = $sintel_final" \
    eval 'printf "%s\n" "$out" | grep -A4 "^## Accuracy on Sintel final" | grep -qF "| hs | 4 | $sintel_final |"'
check "stats: KITTI 2012's table, EPE and Fl = $kitti12" \
    eval 'printf "%s\n" "$out" | grep -A4 "^## Accuracy on KITTI 2012" | grep -qF "| hs | 2 | $kitti12 |"'
check "stats: KITTI 2015's table = $kitti15" \
    eval 'printf "%s\n" "$out" | grep -A4 "^## Accuracy on KITTI 2015" | grep -qF "| hs | 1 | $kitti15 |"'

finish
