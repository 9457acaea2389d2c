#!/bin/sh
# pipeline.sh -- the make pipeline end to end (seed 001 section 5.3, issue 6):
# in a temporary directory, generate demo sequences, `make flows` and `make
# stats` with the CPU backend, check that every expected file exists and is
# valid (pictures decode at the right size, errors parse and lie in the range
# the demo's exact ground truth allows), then that the pipeline is
# incremental: nothing is redone on a second run, touching one parameter file
# recomputes that method only, a per-sequence parameter file recomputes that
# sequence only (and again when removed).  Also: importing a collection laid
# out like ../shared/data (a generated one, and the real one when present),
# stats on results without flows (brought back from another machine),
# NOCOMPUTE=1, bad METHODS, and the tracks (flow-track) and their panel in
# the montages of a sequence without ground truth; results on a full disk
# (a 96 KB tmpfs, where the test may mount one) and scores left empty.
#
# Needs $BUILD/bin/{flow-compute,flow-track,flow-tool,flow-synth} and
# params/{lk,hs}.params.
# ImageMagick (convert, identify) and gnuplot: without them the import and
# chart checks are skipped (counted) and pictures are checked by their PNG
# header only; montages are flow-tool's and always checked.
# Prints "N passed, N failed[, N skipped]".
set -u
# Under `make test` the environment carries the outer make's flags and job
# server, which the makes run here must not inherit (they would warn).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

BUILD=${BUILD:-build}
ROOT=$(pwd)
BIN=$(cd "$BUILD/bin" 2>/dev/null && pwd) || BIN=
DATA=${FLOW_DATA:-../shared/data}
METHODS="lk hs"
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "  FAIL: $*"; }
skipped() { skip=$((skip + 1)); echo "  skip: $*"; }
check() { # check DESCRIPTION COMMAND...  (names no variable of the callers)
    _check_what=$1; shift
    if "$@"; then ok; else bad "$_check_what"; fi
}
finish() {
    [ -n "${tmp:-}" ] && rm -rf "$tmp"
    if [ "$skip" -gt 0 ]; then echo "$pass passed, $fail failed, $skip skipped"; else echo "$pass passed, $fail failed"; fi
    [ "$fail" -eq 0 ]
    exit
}

for t in flow-compute flow-track flow-tool flow-synth; do
    [ -n "$BIN" ] && [ -x "$BIN/$t" ] || { bad "no $BUILD/bin/$t (build first)"; finish; }
done
for m in $METHODS; do
    [ -f "params/$m.params" ] || { bad "no params/$m.params"; finish; }
done
# every method flow-compute has is in the pipeline: a parameter file each,
# named after it
all_methods=$("$BIN/flow-compute" --help | sed '/--method NAME/{/\]/!{N;s/\n */ /;}}' | sed -n 's/^ *-m, --method NAME *\(.*\) \[[a-z-]*\]$/\1/p' | sed 's/,//g; s/ or / /')
check "flow-compute lists its methods ($all_methods)" [ -n "$all_methods" ]
for m in $all_methods; do
    check "method $m: params/$m.params, with method,$m" grep -q "^method,$m\$" "params/$m.params"
done
have_im=0; command -v identify >/dev/null && command -v convert >/dev/null && have_im=1
have_gp=0; command -v gnuplot >/dev/null && have_gp=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' INT TERM
mkdir -p "$tmp/params"
cp params/*.params "$tmp/params/"
# Every make call of the test: the temporary tree, the CPU, two jobs; the
# sections up to 8 check every flow and picture of every pair (RESULTS_KEEP=all).
SEQ="SRC=$tmp/src DST=$tmp/dst BIN=$BIN PARAMS_DIR=$tmp/params"
FLOWS="SEQ_SRC=$tmp/src SEQ_DIR=$tmp/dst RESULTS=$tmp/results BIN=$BIN PARAMS_DIR=$tmp/params DEVICE=cpu RESULTS_KEEP=all"
seqmake() { make --no-print-directory -C sequences $SEQ "$@"; }
flowmake() { make --no-print-directory -f scripts/flows.mk $FLOWS "$@"; }

# png_size FILE: "W H" of a PNG that decodes, else nothing.
png_size() {
    if [ "$have_im" = 1 ]; then
        convert -regard-warnings "$1" -format '%w %h' info: 2>/dev/null
    else
        # PNG signature, then IHDR's width and height (big-endian).
        [ "$(od -An -tx1 -N8 "$1" 2>/dev/null | tr -d ' \n')" = 89504e470d0a1a0a ] || return 0
        od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%d %d", (($1*256+$2)*256+$3)*256+$4, (($5*256+$6)*256+$7)*256+$8 }'
    fi
}
# is_num TEXT: a finite decimal number.
is_num() { printf '%s' "$1" | grep -Eq '^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$'; }
# in_range X LO HI
in_range() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }

# ---- 1. demo sequences ---------------------------------------------------------
# demo-translate with 3 frames (pairs 000 and 001), the others with 2: every
# tool call costs a process start, and CI has two cores for everything.
DEMOS="translate object large"
ndemo=$(set -- $DEMOS; echo $#)
nmeth=$(set -- $METHODS; echo $#)
npairs=$((ndemo + 1))
pairs_of() { if [ "$1" = translate ]; then echo "000 001"; else echo 000; fi; }
out=$(seqmake demo DEMO_FRAMES=3 DEMO_SELECT=translate 2>&1 && seqmake demo DEMO_FRAMES=2 DEMO_SELECT="object large" 2>&1)
check "make -C sequences demo: $out" [ $? -eq 0 ]
for d in $DEMOS; do
    s=$tmp/dst/demo-$d
    nf=$(($(pairs_of $d | wc -w) + 1))
    check "demo-$d: $nf frames" [ "$(ls "$s"/frame_*.png 2>/dev/null | wc -l)" -eq $nf ]
    check "demo-$d: frames are links into src (nothing copied)" [ -L "$s/frame_000.png" ]
    fs=$(png_size "$s/frame_000.png")
    check "demo-$d: frame_000.png decodes ($fs)" [ -n "$fs" ]
    for p in $(pairs_of $d); do
        check "demo-$d: gt_$p.flo" [ -f "$s/gt_$p.flo" ]
        w=$("$BIN/flow-tool" info "$s/gt_$p.flo" 2>/dev/null | awk '/^size:/ { print $2, $4 }')
        check "demo-$d: gt_$p.flo is the frames' size ($w vs $fs)" [ "$w" = "$fs" ]
        vs=$(png_size "$s/gt_$p-vectors.png")
        check "demo-$d: gt_$p-vectors.png decodes at the frame size ($vs)" [ "$vs" = "$fs" ]
        cs=$(png_size "$s/gt_$p.png")
        check "demo-$d: gt_$p.png decodes, framed by its legend ($cs vs $fs)" \
            awk -v a="$cs" -v b="$fs" 'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[1] > y[1] && x[2] > y[2]) }'
        check "demo-$d: gt_$p.scale" grep -q '^color=--max [0-9]' "$s/gt_$p.scale"
        # its largest length rounded up: demo-large's uniform 7.766 px field
        # is all full colour on that scale, as on the exact one (rounded
        # down, %.6g, it was all darkened, every vector beyond the scale)
        if [ "$d" = large ]; then
            "$BIN/flow-tool" color $(sed -n 's/^color=//p' "$s/gt_$p.scale") "$s/gt_$p.flo" "$tmp/scaled.ppm"
            "$BIN/flow-tool" color "$s/gt_$p.flo" "$tmp/exact.ppm"
            check "demo-large: gt_$p.scale darkens no vector" cmp -s "$tmp/scaled.ppm" "$tmp/exact.ppm"
        fi
    done
    for m in $METHODS; do
        check "demo-$d: $m.params links to params/$m.params" \
            [ "$(readlink -f "$s/$m.params")" = "$(readlink -f "$tmp/params/$m.params")" ]
    done
done
out=$(seqmake 2>&1)
check "make -C sequences again does nothing ($out)" [ -z "$(printf '%s' "$out" | grep -v 'Nothing to be done')" ]

# ---- 2. make flows --------------------------------------------------------------
out=$(flowmake -j2 flows METHODS="$METHODS" 2>&1)
rc=$?
check "make flows (rc $rc): $(printf '%s' "$out" | tail -n 5)" [ $rc -eq 0 ]
nflow=$(printf '%s\n' "$out" | grep -c '^  FLOW ')
check "make flows: one FLOW line per sequence and method ($nflow)" [ "$nflow" -eq $((ndemo * nmeth)) ]
check "make flows: one line per target (no commands echoed)" [ -z "$(printf '%s\n' "$out" | grep -v '^  [A-Z]' | grep -v '^$')" ]
nruns=$((ndemo * nmeth))
check "make flows: a RUNS line per run ($(printf '%s\n' "$out" | grep -c '^  RUNS '))" \
    [ "$(printf '%s\n' "$out" | grep -c '^  RUNS ')" -eq $nruns ]
# a duration as flows-progress.sh writes it: 42 s, 2 min 10 s, 1 h 05 min
dur='[0-9]+ (s|min [0-9]+ s|h [0-9]+ min)'
check "make flows: the last RUNS line counts every run ($(printf '%s\n' "$out" | grep '^  RUNS ' | tail -n 1))" \
    eval 'printf "%s\n" "$out" | grep "^  RUNS " | tail -n 1 | grep -Eq "^  RUNS    $nruns/$nruns done \(demo-[a-z]+/[a-z0-9-]+\), $dur$"'
check "make flows: the first RUNS line says the time left ($(printf '%s\n' "$out" | grep '^  RUNS ' | head -n 1))" \
    eval 'printf "%s\n" "$out" | grep "^  RUNS " | head -n 1 | grep -Eq "^  RUNS    1/$nruns done \(demo-[a-z]+/[a-z0-9-]+\), $dur, about $dur left$"'
check "make flows: no tracks where every pair has ground truth" [ -z "$(printf '%s\n' "$out" | grep '^  TRACK ')" ]
for d in $DEMOS; do
    fs=$(png_size "$tmp/dst/demo-$d/frame_000.png")
    for m in $METHODS; do
        r=$tmp/results/demo-$d/$m
        check "demo-$d/$m: timing.stats" grep -q '^TOTAL,0,' "$r/timing.stats"
        check "demo-$d/$m: no flow beyond the last pair" [ ! -e "$r/00$(pairs_of $d | wc -w).flo" ]
        for p in $(pairs_of $d); do
            w=$("$BIN/flow-tool" info "$r/$p.flo" 2>/dev/null | awk '/^size:/ { print $2, $4 }')
            check "demo-$d/$m/$p.flo: a flow of the frames' size ($w)" [ "$w" = "$fs" ]
            check "demo-$d/$m/$p.flo.params: method $m" grep -Eq "^method, *$m\$" "$r/$p.flo.params"
            aae=$(cat "$r/$p.aae" 2>/dev/null) aee=$(cat "$r/$p.aee" 2>/dev/null)
            check "demo-$d/$m/$p.aae is a number ($aae)" is_num "$aae"
            check "demo-$d/$m/$p.aee is a number ($aee)" is_num "$aee"
            # The exact ground truth bounds what a working method gets: the
            # sub-pixel motions are recovered to a fraction of a pixel; the
            # large motion (7.8 px on 5-40 px wavelengths) only has to give
            # valid numbers.
            case $d in
                translate) lim_aee=0.5 lim_aae=15 ;;
                object) lim_aee=1.0 lim_aae=25 ;;
                *) lim_aee=100 lim_aae=180 ;;
            esac
            check "demo-$d/$m/$p: AAE $aae in [0, $lim_aae] deg" in_range "$aae" 0 "$lim_aae"
            check "demo-$d/$m/$p: AEE $aee in [0, $lim_aee] px" in_range "$aee" 0 "$lim_aee"
            e=$(awk -F, 'NR == 2 { print $1 }' "$r/$p.error" 2>/dev/null)
            check "demo-$d/$m/$p.error agrees with .aae ($e vs $aae)" \
                awk -v a="$e" -v b="$aae" 'BEGIN { exit !(a != "" && a - b < 1e-5 && b - a < 1e-5) }'
            for pic in "" -vectors -mix -blend; do
                ps=$(png_size "$r/$p$pic.png")
                if [ -z "$pic" ]; then want=$(png_size "$tmp/dst/demo-$d/gt_$p.png"); else want=$fs; fi
                check "demo-$d/$m/$p$pic.png decodes at $want ($ps)" [ -n "$ps" -a "$ps" = "$want" ]
            done
            # ground truth | estimate | errors | vectors in a row, labelled
            ms=$(png_size "$r/$p-montage.png")
            check "demo-$d/$m/$p-montage.png decodes, 4 panels in a row ($ms)" \
                awk -v a="$ms" -v b="$fs" 'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[1] >= 4 * y[1] && x[2] > y[2]) }'
            # its caption: the figure of NNN.aee (rounded to 3 decimals there)
            shown=$("$BIN/flow-tool" montage -v --gt "$tmp/dst/demo-$d/gt_$p.flo" "$r/$p.flo" "$tmp/m.png" \
                | sed -n 's/^AEE \([0-9.]*\) px .*/\1/p')
            check "demo-$d/$m/$p-montage: the AEE of $p.aee ($shown vs $aee)" \
                awk -v a="$shown" -v b="$aee" 'BEGIN { exit !(a != "" && a - b <= 0.00051 && b - a <= 0.00051) }'
        done
    done
done

# ---- 3. make stats -----------------------------------------------------------------
if [ "$have_gp" = 1 ]; then
    out=$(flowmake stats 2>&1)
    check "make stats: $out" [ $? -eq 0 ]
    check "make stats ends with the accuracy table and where the results are" \
        eval 'printf "%s\n" "$out" | grep -q "^## Accuracy" &&
              printf "%s\n" "$out" | grep -q "^| demo-translate " &&
              printf "%s\n" "$out" | tail -n 1 | grep -q "^charts: .*accuracy.png"'
    for c in accuracy time time-size; do
        cs=$(png_size "$tmp/results/$c.png")
        check "results/$c.png decodes ($cs)" [ -n "$cs" ]
    done
else
    out=$(flowmake "$tmp/results/stats.csv" "$tmp/results/stats.md" 2>&1)
    check "stats.csv and stats.md without gnuplot: $out" [ $? -eq 0 ]
    skipped "charts: no gnuplot"
fi
csv=$tmp/results/stats.csv
check "stats.csv: header" grep -q '^sequence,method,width,height,pairs,gt_pairs,aae,aee,' "$csv"
check "stats.csv: one row per sequence and method" [ "$(($(wc -l < "$csv") - 1))" -eq $((ndemo * nmeth)) ]
row=$(grep '^demo-translate,hs,' "$csv")
check "stats.csv: demo-translate,hs is 160x120, 2 pairs, both with ground truth ($row)" \
    [ "$(echo "$row" | cut -d, -f3-6)" = "160,120,2,2" ]
mean=$(awk '{ s += $1 } END { printf "%.4f", s / NR }' "$tmp/results/demo-translate/hs/"00[01].aae)
check "stats.csv: demo-translate,hs AAE is the mean of its pairs' ($mean)" \
    [ "$(echo "$row" | cut -d, -f7)" = "$mean" ]
check "stats.csv: every time and fps positive" \
    awk -F, 'NR > 1 && !($11 > 0 && $13 > 0) { exit 1 }' "$csv"
check "stats.md: accuracy and time tables" grep -q '^## Accuracy' "$tmp/results/stats.md"
check "stats.md: warns that make -j inflates the times" grep -q 'make -j N flows' "$tmp/results/stats.md"
check "stats.md: names the device of the times" grep -q 'from flow-compute --timing-file, on cpu: ' "$tmp/results/stats.md"
check "stats.md: a row per sequence in each table" [ "$(grep -c '^| demo-' "$tmp/results/stats.md")" -eq $((2 * ndemo)) ]

# ---- 4. incremental ---------------------------------------------------------------
sleep 1
touch "$tmp/marker"
out=$(flowmake -j2 flows METHODS="$METHODS" 2>&1)
check "second make flows does nothing ($(printf '%s' "$out" | head -n 3))" \
    [ -z "$(printf '%s\n' "$out" | grep -v '^$')" ]
check "second make flows writes nothing" [ -z "$(find "$tmp/results" -newer "$tmp/marker" -type f)" ]

sleep 1
touch "$tmp/params/hs.params"
touch "$tmp/marker"
out=$(flowmake -j2 flows-compute METHODS="$METHODS" 2>&1)
check "touch hs.params; make flows-compute ($out)" [ $? -eq 0 ]
check "touch hs.params: FLOW lines for hs only" \
    [ "$(printf '%s\n' "$out" | grep '^  FLOW ' | grep -vc '/hs ')" -eq 0 ]
check "touch hs.params: every sequence's hs recomputed" [ "$(printf '%s\n' "$out" | grep -c '^  FLOW .*/hs ')" -eq "$ndemo" ]
new=$(find "$tmp/results" -newer "$tmp/marker" -name '*.flo')
check "touch hs.params: only hs flows rewritten" [ -z "$(printf '%s\n' "$new" | grep -v '/hs/' | grep -v '^$')" ]
check "touch hs.params: all hs flows rewritten" [ "$(printf '%s\n' "$new" | grep -c '/hs/')" -eq "$npairs" ]
check "touch hs.params: lk pictures untouched" [ -z "$(find "$tmp/results" -newer "$tmp/marker" -path '*/lk/*')" ]

# A changed source frame reaches dst through its link (make -L): that
# sequence is recomputed for every method, no other sequence.  (From here
# on flows-compute: the recomputations are what is checked.)
sleep 1
touch "$tmp/src/demo-translate/frame_001.png"
out=$(flowmake -j2 flows-compute METHODS="$METHODS" 2>&1)
check "touch a source frame; make flows-compute ($out)" [ $? -eq 0 ]
check "touch a source frame: demo-translate recomputed for both methods, nothing else ($(printf '%s\n' "$out" | grep '^  FLOW' | tr -s ' ' | cut -d' ' -f3 | tr '\n' ' '))" \
    [ "$(printf '%s\n' "$out" | grep '^  FLOW ' | tr -s ' ' | cut -d' ' -f3 | sort | tr '\n' ' ')" = "demo-translate/hs demo-translate/lk " ]

# A per-sequence parameter file: <sequence prefix>-<method>.params.
sleep 1
touch "$tmp/marker"
{ grep -v '^rho,' "$tmp/params/lk.params"; echo "rho,1.5"; } > "$tmp/params/demo-object-lk.params"
out=$(flowmake flows-compute METHODS="$METHODS" 2>&1)
check "demo-object-lk.params: make flows-compute ($out)" [ $? -eq 0 ]
check "demo-object-lk.params: dst link follows it" \
    [ "$(readlink -f "$tmp/dst/demo-object/lk.params")" = "$(readlink -f "$tmp/params/demo-object-lk.params")" ]
check "demo-object-lk.params: only demo-object/lk recomputed ($(printf '%s\n' "$out" | grep '^  FLOW' | tr '\n' ' '))" \
    [ "$(printf '%s\n' "$out" | grep '^  FLOW ' | tr -s ' ' | cut -d' ' -f3 | tr '\n' ' ')" = "demo-object/lk " ]
check "demo-object-lk.params: used (rho 1.5 in the flow's .params)" \
    grep -Eq '^rho, *1\.5' "$tmp/results/demo-object/lk/000.flo.params"
check "demo-object-lk.params is not a method" \
    [ -z "$(flowmake flows-list 2>&1 | grep '^methods:' | grep 'demo-object')" ]
sleep 1
rm -f "$tmp/params/demo-object-lk.params"
out=$(flowmake flows-compute METHODS="$METHODS" 2>&1)
check "per-sequence file removed: make flows-compute ($out)" [ $? -eq 0 ]
check "per-sequence file removed: demo-object/lk recomputed with lk.params" \
    [ "$(printf '%s\n' "$out" | grep '^  FLOW ' | tr -s ' ' | cut -d' ' -f3 | tr '\n' ' ')" = "demo-object/lk " ]
check "per-sequence file removed: rho back" [ -z "$(grep -E '^rho, *1\.5' "$tmp/results/demo-object/lk/000.flo.params")" ]

# ---- 5. rendering and stats elsewhere ---------------------------------------------
sleep 1
touch "$tmp/params/lk.params"
out=$(flowmake flows-render METHODS="$METHODS" NOCOMPUTE=1 2>&1)
rc=$?
check "NOCOMPUTE=1 with an outdated flow fails (rc $rc)" [ $rc -ne 0 ]
check "NOCOMPUTE=1 says what needs computing ($(printf '%s' "$out" | head -n 1))" \
    eval 'printf "%s" "$out" | grep -q "needs computing.*NOCOMPUTE=1"'
flowmake flows-compute METHODS="$METHODS" >/dev/null 2>&1
# Results brought back without the flows: stats needs no tool and no flow.
mkdir -p "$tmp/back"
(cd "$tmp/results" && find . -name timing.stats -o -name '*.error' | while read -r f; do
    mkdir -p "$tmp/back/$(dirname "$f")" && cp -p "$f" "$tmp/back/$f"; done)
out=$(make --no-print-directory -f scripts/flows.mk RESULTS="$tmp/back" BIN=/nonexistent "$tmp/back/stats.csv" 2>&1)
check "stats on brought-back results, no tools: $out" [ $? -eq 0 ]
check "stats on brought-back results: same rows" \
    [ "$(cut -d, -f1-10 "$tmp/back/stats.csv")" = "$(cut -d, -f1-10 "$tmp/results/stats.csv")" ]

out=$(flowmake flows METHODS="lk nosuch" 2>&1)
check "METHODS=nosuch fails, naming the file ($out)" eval 'printf "%s" "$out" | grep -q "no .*nosuch.params"'

# ---- 6. tracks of a sequence without ground truth ---------------------------------------
mkdir -p "$tmp/src/plain"
"$BIN/flow-synth" -q -m rotate --angle 2 -s 64x48 -n 3 -o "$tmp/src/plain/f%d.png"
seqmake >/dev/null 2>&1
out=$(flowmake flows SEQUENCES=plain METHODS=lk 2>&1)
check "plain (no ground truth): make flows ($(printf '%s' "$out" | tail -n 3))" [ $? -eq 0 ]
check "plain: one TRACK line for the sequence" \
    [ "$(printf '%s\n' "$out" | grep -c '^  TRACK   plain (3 frames)$')" -eq 1 ]
tr=$tmp/results/plain/tracks
check "plain: tracks.csv" grep -q '^frame,id,x,y,status,error$' "$tr/tracks.csv"
check "plain: tracks of frames 0 1 2" \
    [ "$(awk -F, 'NR > 1 { print $1 }' "$tr/tracks.csv" | uniq | tr '\n' ' ')" = "0 1 2 " ]
for f in 000000 000001 000002; do
    ps=$(png_size "$tr/$f.png")
    check "plain: trail picture $f.png decodes at the frame size ($ps)" [ "$ps" = "64 48" ]
done
ms=$(png_size "$tmp/results/plain/lk/001-montage.png")
check "plain/lk/001-montage.png: frame, colour, vectors, tracks ($ms)" \
    awk -v a="$ms" 'BEGIN { split(a, x, " "); exit !(x[1] >= 4 * 64) }'
out=$(flowmake flows SEQUENCES=plain METHODS=lk 2>&1)
check "plain: a second make flows does nothing ($out)" \
    [ -z "$(printf '%s\n' "$out" | grep -v '^$')" ]
rm -f "$tr/000001.png"
out=$(flowmake flows-compute SEQUENCES=plain METHODS=lk 2>&1)
check "plain: a missing trail picture is tracked again, nothing else ($out)" \
    eval 'printf "%s\n" "$out" | tr "\n" " " | grep -Eqx "  TRACK   plain \(3 frames\)   RUNS    1/1 done \(plain/tracks\), [0-9]+ s "'
sleep 1
touch "$tmp/src/plain/f2.png"
out=$(flowmake -k flows-compute SEQUENCES=plain METHODS=lk NOCOMPUTE=1 2>&1)
check "plain: NOCOMPUTE=1 with a newer frame says the tracks need computing ($out)" \
    eval 'printf "%s" "$out" | grep -q "plain/tracks needs computing.*NOCOMPUTE=1"'

# ---- 7. import -------------------------------------------------------------------------
# A collection laid out like ../shared/data, generated: Middlebury-style
# (frameNN + flowNN.flo), Yosemite-style (yosNN, yosAA-yosBB.flo, a mask) and
# FlyingChairs-style PPM pairs (N-img0/N-img1.ppm + N-gt.flo).
col=$tmp/collection
mkdir -p "$col/mb/Whale" "$col/yos" "$col/chairs"
"$BIN/flow-synth" -q -s 64x48 -n 4 --first 7 -o "$col/mb/Whale/frame%02d.png" --gt "$tmp/g%02d.flo"
mv "$tmp/g09.flo" "$col/mb/Whale/flow09.flo"
"$BIN/flow-synth" -q -m rotate -s 60x50 -n 3 --first 2 -o "$col/yos/yos%02d.png" --gt "$tmp/y%02d.flo"
mv "$tmp/y03.flo" "$col/yos/yos03-yos04.flo"
cp "$col/yos/yos03.png" "$col/yos/yos03-terrain-mask.png"
for n in 0 1; do
    "$BIN/flow-synth" -q -c -m zoom -s 40x30 -n 2 --seed $((n + 3)) -o "$col/chairs/000000$n-img%d.ppm" --gt "$tmp/c%d.flo"
    mv "$tmp/c0.flo" "$col/chairs/000000$n-gt.flo"
done
out=$(seqmake import DIR="$col" 2>&1)
rc=$?
if [ "$have_im" = 1 ]; then
    check "import (rc $rc): $(printf '%s' "$out" | grep -v '^  [A-Z]' | head -n 3)" [ $rc -eq 0 ]
    check "import: a list per sequence" [ "$(ls "$tmp/src/"*.list | wc -l)" -eq 4 ]
    check "import: Middlebury flow09 is the pair frame09 -> frame10 (pair 2)" [ -f "$tmp/dst/mb-Whale/gt_002.flo" ]
    check "import: only that pair has ground truth" [ "$(ls "$tmp/dst/mb-Whale/"gt_*.flo | wc -l)" -eq 1 ]
    check "import: Yosemite yos03-yos04.flo is pair 1, with its mask" \
        [ -f "$tmp/dst/yos/gt_001.flo" -a -f "$tmp/dst/yos/mask_001.png" -a ! -e "$tmp/dst/yos/mask_000.png" ]
    check "import: the mask is not a frame" [ "$(ls "$tmp/dst/yos/"frame_*.png | wc -l)" -eq 3 ]
    check "import: FlyingChairs pairs are sequences with their ground truth" \
        [ -f "$tmp/dst/chairs-0000000/gt_000.flo" -a -f "$tmp/dst/chairs-0000001/gt_000.flo" ]
    check "import: PNG frames are links to the collection" \
        [ "$(readlink -f "$tmp/dst/mb-Whale/frame_000.png")" = "$(readlink -f "$col/mb/Whale/frame07.png")" ]
    cs=$(png_size "$tmp/dst/chairs-0000001/frame_001.png")
    check "import: PPM frames converted to PNG ($cs)" [ "$cs" = "40 30" -a ! -L "$tmp/dst/chairs-0000001/frame_001.png" ]
    out=$(seqmake import DIR="$col" 2>&1)
    check "import again: lists unchanged, nothing converted" \
        [ -z "$(printf '%s\n' "$out" | grep -v 'unchanged' | grep -v 'sequence(s) from' | grep -v 'Nothing to be done')" ]
else
    skipped "import: PPM conversion needs ImageMagick"
    # the chairs' PPM frames cannot become sequences here: their lists go,
    # so that the sections below import the rest
    rm -f "$tmp/src/"chairs-*.list
fi
# A truncated ground truth stops the import clearly, and the failed rules
# leave no temporary behind.
bad=$tmp/badcol
mkdir -p "$bad/mb/Cut"
"$BIN/flow-synth" -q -s 64x48 -n 2 --first 9 -o "$bad/mb/Cut/frame%02d.png" --gt "$tmp/cut%02d.flo"
head -c 100 "$tmp/cut09.flo" >"$bad/mb/Cut/flow09.flo"
# (its own source and destination: a collection imported before may need
# ImageMagick, which this one does not)
out=$(make --no-print-directory -C sequences SRC="$tmp/badsrc" DST="$tmp/baddst" BIN="$BIN" \
    PARAMS_DIR="$tmp/params" import DIR="$bad" 2>&1)
rc=$?
check "import of a truncated ground truth fails (rc $rc), naming it: $(printf '%s' "$out" | grep truncated | head -n 1)" \
    eval '[ $rc -ne 0 ] && printf "%s" "$out" | grep -q "mb-Cut/gt_000.flo: truncated"'
left=$(find "$tmp/baddst" "$tmp/badsrc" -name '*.tmp*' | head -n 3)
check "a failed import leaves no temporary (${left:-none})" [ -z "$left" ]

out=$(seqmake import DIR="$tmp/nonexistent" 2>&1)
check "import of a missing directory fails, naming it ($out)" eval 'printf "%s" "$out" | grep -q "nonexistent.*not a directory"'

# SRC, DST, DIR, PREFIX and BIN exported by the shell for something else are
# not the pipeline's: in a copy of sequences/ and scripts/ (whose default
# src/ and dst/ are its own), an import with them in the environment uses
# sequences/src and sequences/dst, the DIR and the (empty) PREFIX of the
# command line, and leaves the directory they name alone.
envcopy=$tmp/envcopy
mkdir -p "$envcopy/repo" "$envcopy/unrelated/code" "$envcopy/col/seqa"
cp -r sequences scripts "$envcopy/repo/"
"$BIN/flow-synth" -q -s 32x24 -n 2 -o "$envcopy/unrelated/code/a%d.png"
"$BIN/flow-synth" -q -s 32x24 -n 3 -o "$envcopy/col/seqa/f%d.png" --gt "$envcopy/col/seqa/f%d.flo"
out=$(cd "$envcopy/repo" && SRC="$envcopy/unrelated" DST="$envcopy/unrelated/dst" DIR="$envcopy/unrelated" \
    PREFIX=/usr/local/ BIN=/nonexistent make --no-print-directory -C sequences BIN="$BIN" \
    PARAMS_DIR="$tmp/params" import DIR="$envcopy/col" 2>&1)
rc=$?
check "import with SRC, DST, DIR, PREFIX, BIN in the environment (rc $rc): $(printf '%s' "$out" | grep -v '^  [A-Z]' | head -n 3)" \
    eval '[ $rc -eq 0 ] && [ -f "$envcopy/repo/sequences/src/seqa.list" ] && [ -f "$envcopy/repo/sequences/dst/seqa/gt_001.flo" ]'
check "import with SRC in the environment: the directory it names untouched ($(ls "$envcopy/unrelated" | tr '\n' ' '))" \
    [ "$(ls "$envcopy/unrelated")" = code ]
out=$(cd "$envcopy/repo" && DIR="$envcopy/col" make --no-print-directory -C sequences BIN="$BIN" import 2>&1)
check "import with DIR in the environment only: a usage error ($out)" \
    eval 'printf "%s" "$out" | grep -q "^usage: make -C sequences import DIR=collection"'

# The real collection, when present: every layout of ../shared/data recognised.
if [ -d "$DATA/yosemite-clouds" ] && [ -d "$DATA/middlebury" ]; then
    lists=$tmp/real
    sh scripts/seq-import.sh "$DATA" "$lists" "" 1 >/dev/null 2>&1
    check "import ../shared/data (ONLY_GT=1): 21 sequences with ground truth (13, 6 Sintel, 2 KITTI)" [ "$(ls "$lists"/*.list 2>/dev/null | wc -l)" -eq 21 ]
    check "import ../shared/data: Sintel's final ambush_4 as a sequence, with its masks" \
        [ "$(grep -c '^\(gt\|occ\|invalid\) 0 ' "$lists/sintel-final-ambush_4.list" 2>/dev/null)" -eq 3 ]
    check "import ../shared/data: KITTI 2012 000045 with its flow_noc ground truth" \
        grep -q '^gt 0 .*/kitti2012/training/flow_noc/000045_10.png$' "$lists/kitti2012-000045.list"
    check "import ../shared/data: Yosemite yos09-yos10 with its terrain mask" \
        grep -q '^gt 0 .*yos09-yos10.flo$' "$lists/yosemite-clouds.list"
    check "import ../shared/data: Yosemite's terrain mask" \
        grep -q '^mask 0 .*yos09-terrain-mask.png$' "$lists/yosemite-clouds.list"
    check "import ../shared/data: RubberWhale keeps frame10 -> frame11 only" \
        [ "$(grep '^frame' "$lists/middlebury-RubberWhale.list" | sed 's|.*/||' | tr '\n' ' ')" = "frame10.png frame11.png " ]
    check "import ../shared/data: Barron's square with correct_square" grep -q 'correct_square.flo$' "$lists/barron-synthetic-square.list"
    check "import ../shared/data: paths, no copies" [ "$(du -sk "$lists" | cut -f1)" -lt 100 ]
else
    skipped "import of $DATA: not present"
fi

# ---- 8. the scale of the ground-truth pictures ---------------------------------------
# flow-tool info prints 6 digits: 7.766114 shows as 7.76611, below the true
# largest vector, which would then be drawn as beyond the scale (darker).
printf 'PIEH\002\000\000\000\001\000\000\000' >"$tmp/scale.flo"
# (7.766114, 0) and (-1, 0.5), float32 little-endian
printf '\002\204\370\100\000\000\000\000\000\000\200\277\000\000\000\077' >>"$tmp/scale.flo"
r=$(sh scripts/flow-scale.sh "$BIN/flow-tool" "$tmp/scale.flo" | sed -n 's/^color=--max //p')
check "flow-scale.sh: the colour scale ($r) is not below the largest vector (7.766114)" \
    awk -v r="$r" 'BEGIN { exit !(r + 0 >= 7.766114 && r + 0 < 7.7662) }'

# ---- 9. what results/ keeps: RESULTS_KEEP ------------------------------------------
# demo-translate (ground truth for pairs 000 and 001) and plain (none, so
# tracked) by lk, into a results directory of their own.
keepmake() { make --no-print-directory -f scripts/flows.mk SEQ_SRC="$tmp/src" SEQ_DIR="$tmp/dst" \
    RESULTS="$tmp/keep" BIN="$BIN" PARAMS_DIR="$tmp/params" DEVICE=cpu METHODS=lk \
    SEQUENCES="demo-translate plain" "$@"; }
# listing DIR: its files, sorted, on one line; sorted WORD...: the same of the words
listing() { (cd "$1" 2>/dev/null && LC_ALL=C ls | tr '\n' ' '); }
sorted() { printf '%s\n' "$@" | LC_ALL=C sort | tr '\n' ' '; }
pics_of() { echo "$1.png $1-vectors.png $1-mix.png $1-blend.png $1-montage.png"; }
scores_of() { echo "$1.error $1.aae $1.aee"; }
t=$tmp/keep/demo-translate/lk p=$tmp/keep/plain/lk

out=$(keepmake flows 2>&1)
rc=$?
check "RESULTS_KEEP default (pictures): make flows (rc $rc: $(printf '%s' "$out" | tail -n 2))" [ $rc -eq 0 ]
check "RESULTS_KEEP=pictures: the flow and pictures of the first pair, every score ($(listing "$t"))" \
    [ "$(listing "$t")" = "$(sorted timing.stats 000.flo 000.flo.params 001.flo.params $(scores_of 000) $(scores_of 001) $(pics_of 000))" ]
check "RESULTS_KEEP=pictures: without ground truth, the first pair ($(listing "$p"))" \
    [ "$(listing "$p")" = "$(sorted timing.stats 000.flo 000.flo.params 001.flo.params $(pics_of 000))" ]
check "RESULTS_KEEP=pictures: the tracks and the trail picture of that pair's frame ($(listing "$tmp/keep/plain/tracks"))" \
    [ "$(listing "$tmp/keep/plain/tracks")" = "$(sorted tracks.csv 000000.png)" ]
check "RESULTS_KEEP=pictures: one SCORE line for the sequence" \
    [ "$(printf '%s\n' "$out" | grep -c '^  SCORE   demo-translate/lk (2 pairs)$')" -eq 1 ]
for e in 000 001; do
    check "RESULTS_KEEP=pictures: $e.error as with every flow kept" cmp -s "$t/$e.error" "$tmp/results/demo-translate/lk/$e.error"
done
out=$(keepmake flows 2>&1)
check "RESULTS_KEEP=pictures: a second make flows does nothing ($out)" \
    [ -z "$(printf '%s\n' "$out" | grep -v '^  SKIP    montages' | grep -v '^$')" ]

touch "$tmp/marker"
out=$(keepmake flows RESULTS_KEEP=scores 2>&1)
rc=$?
check "RESULTS_KEEP=scores: make flows (rc $rc: $(printf '%s' "$out" | tail -n 2))" [ $rc -eq 0 ]
check "RESULTS_KEEP=scores: files removed, nothing computed ($(printf '%s\n' "$out" | grep -v '^  PRUNE' | head -n 2))" \
    [ -z "$(printf '%s\n' "$out" | grep -v '^  PRUNE   ' | grep -v '^  SKIP    montages' | grep -v '^$')" ]
check "RESULTS_KEEP=scores: a PRUNE line for demo-translate/lk, plain/lk and plain/tracks" \
    [ "$(printf '%s\n' "$out" | grep '^  PRUNE   ' | tr -s ' ' | cut -d' ' -f3 | sort | tr '\n' ' ')" = "demo-translate/lk plain/lk plain/tracks " ]
check "RESULTS_KEEP=scores: scores and parameters only ($(listing "$t"))" \
    [ "$(listing "$t")" = "$(sorted timing.stats 000.flo.params 001.flo.params $(scores_of 000) $(scores_of 001))" ]
check "RESULTS_KEEP=scores: without ground truth, parameters only ($(listing "$p"))" \
    [ "$(listing "$p")" = "$(sorted timing.stats 000.flo.params 001.flo.params)" ]
check "RESULTS_KEEP=scores: tracks.csv alone ($(listing "$tmp/keep/plain/tracks"))" \
    [ "$(listing "$tmp/keep/plain/tracks")" = "tracks.csv " ]
check "RESULTS_KEEP=scores: the scores untouched" [ -z "$(find "$tmp/keep" -newer "$tmp/marker" -type f)" ]
out=$(keepmake flows RESULTS_KEEP=scores 2>&1)
check "RESULTS_KEEP=scores: a second make flows does nothing ($out)" \
    [ -z "$(printf '%s\n' "$out" | grep -v '^  SKIP    montages' | grep -v '^$')" ]
out=$(keepmake flows RESULTS_KEEP=all 2>&1)
check "RESULTS_KEEP=all after scores: both recomputed ($(printf '%s\n' "$out" | grep '^  FLOW' | tr -s ' ' | cut -d' ' -f3 | tr '\n' ' '))" \
    [ "$(printf '%s\n' "$out" | grep '^  FLOW ' | tr -s ' ' | cut -d' ' -f3 | sort | tr '\n' ' ')" = "demo-translate/lk plain/lk " ]
check "RESULTS_KEEP=all: every flow and picture ($(listing "$t"))" \
    [ "$(listing "$t")" = "$(sorted timing.stats 000.flo 001.flo 000.flo.params 001.flo.params $(scores_of 000) $(scores_of 001) $(pics_of 000) $(pics_of 001))" ]
check "RESULTS_KEEP=all: every trail picture ($(listing "$tmp/keep/plain/tracks"))" \
    [ "$(listing "$tmp/keep/plain/tracks")" = "000000.png 000001.png 000002.png tracks.csv " ]
out=$(keepmake flows RESULTS_KEEP=some 2>&1)
check "RESULTS_KEEP=some fails, naming the choices ($out)" eval 'printf "%s" "$out" | grep -q "RESULTS_KEEP=some: all, pictures or scores"'

# ---- 10. colour sequences are computed in colour --------------------------------------
mkdir -p "$tmp/src/colour"
"$BIN/flow-synth" -q -c -m rotate --angle 2 -s 64x48 -n 2 -o "$tmp/src/colour/frame_%03d.png" --gt "$tmp/src/colour/frame_%03d.flo"
seqmake >/dev/null 2>&1
colourmake() { make --no-print-directory -f scripts/flows.mk SEQ_SRC="$tmp/src" SEQ_DIR="$tmp/dst" \
    BIN="$BIN" PARAMS_DIR="$tmp/params" DEVICE=cpu "$@"; }
out=$(colourmake flows-compute RESULTS="$tmp/colour" SEQUENCES="colour demo-translate" METHODS="$METHODS" 2>&1)
rc=$?
check "colour: make flows-compute (rc $rc: $(printf '%s' "$out" | tail -n 2))" [ $rc -eq 0 ]
for m in $METHODS; do
    check "colour/$m: computed on R, G, B (color,1 in its .params)" grep -q '^color,1$' "$tmp/colour/colour/$m/000.flo.params"
    check "demo-translate/$m (gray): on the luminance (color,0)" grep -q '^color,0$' "$tmp/colour/demo-translate/$m/000.flo.params"
done
colourmake flows-compute RESULTS="$tmp/colour-lum" SEQUENCES=colour METHODS=lk RGB=0 >/dev/null 2>&1
check "colour, RGB=0: on the luminance (color,0)" grep -q '^color,0$' "$tmp/colour-lum/colour/lk/000.flo.params"
{ cat "$tmp/params/lk.params"; echo "color,0"; } >"$tmp/params/colour-lk.params"
colourmake flows-compute RESULTS="$tmp/colour" SEQUENCES=colour METHODS=lk >/dev/null 2>&1
check "colour: a parameter file that sets color decides (colour-lk.params: color,0)" \
    grep -q '^color,0$' "$tmp/colour/colour/lk/000.flo.params"
rm -f "$tmp/params/colour-lk.params"
out=$(colourmake flows RGB=2 2>&1)
check "RGB=2 fails, naming the choices ($out)" eval 'printf "%s" "$out" | grep -q "RGB=2: 1 .* or 0"'
# Middlebury's RubberWhale in colour, when the real data is here: colour
# scores better than its luminance (hs: AEE 0.336 against 0.411 px).
rw=$(cd "$DATA/middlebury/RubberWhale" 2>/dev/null && pwd)
if [ -n "$rw" ] && [ -f "$rw/color/frame10.png" ] && [ -f "$rw/flow10.flo" ]; then
    printf 'frame %s\nframe %s\ngt 0 %s\n' "$rw/color/frame10.png" "$rw/color/frame11.png" "$rw/flow10.flo" >"$tmp/src/rubberwhale-color.list"
    seqmake >/dev/null 2>&1
    colourmake flows-compute RESULTS="$tmp/rw" SEQUENCES=rubberwhale-color METHODS=hs >/dev/null 2>&1
    colourmake flows-compute RESULTS="$tmp/rw-lum" SEQUENCES=rubberwhale-color METHODS=hs RGB=0 >/dev/null 2>&1
    a=$(cat "$tmp/rw/rubberwhale-color/hs/000.aee" 2>/dev/null) b=$(cat "$tmp/rw-lum/rubberwhale-color/hs/000.aee" 2>/dev/null)
    check "RubberWhale colour by hs: AEE in colour $a px below the luminance's $b px" \
        awk -v a="$a" -v b="$b" 'BEGIN { exit !(a != "" && b != "" && a + 0 < b + 0) }'
else
    skipped "RubberWhale in colour: $DATA/middlebury not present"
fi

# ---- 11. videos: imported by flow-tool frames, without ffmpeg --------------------------
# clip.y4m (gray, 4 frames) and long.y4m (5 frames, of which VIDEO_FRAMES=3
# are taken); FFMPEG names no program, so that the tools alone read them.
mkdir -p "$tmp/clipref"
"$BIN/flow-synth" -q -m rotate -s 48x36 -n 4 -o "$tmp/clipref/f%d.png" --video "$tmp/src/clip.y4m"
mkdir -p "$tmp/vid"
"$BIN/flow-synth" -q -s 48x36 -n 5 --video "$tmp/vid/long.y4m"
vidmake() { make --no-print-directory -C sequences SRC="$tmp/vid" DST="$tmp/viddst" BIN="$BIN" \
    PARAMS_DIR="$tmp/params" FFMPEG=/nonexistent/ffmpeg "$@"; }
out=$(seqmake FFMPEG=/nonexistent/ffmpeg 2>&1)
rc=$?
check "video clip.y4m: converted without ffmpeg (rc $rc: $(printf '%s' "$out" | grep -v '^  PARAMS' | head -n 3))" [ $rc -eq 0 ]
check "video clip.y4m: its 4 frames ($(ls "$tmp/dst/clip" 2>/dev/null | grep -c '^frame_'))" \
    [ "$(ls "$tmp/dst/clip" | grep -c '^frame_[0-9][0-9][0-9]\.png$')" -eq 4 ]
for i in 0 1 2 3; do
    check "video clip.y4m: frame_00$i.png is the video's frame $i" cmp -s "$tmp/dst/clip/frame_00$i.png" "$tmp/clipref/f$i.png"
done
out=$(vidmake VIDEO_FRAMES=3 2>&1)
check "video long.y4m, VIDEO_FRAMES=3: 3 of its 5 frames ($out)" \
    [ "$(ls "$tmp/viddst/long" 2>/dev/null | grep -c '^frame_')" -eq 3 ]
out=$(colourmake flows-compute RESULTS="$tmp/clipres" SEQUENCES=clip METHODS=lk 2>&1)
check "video clip.y4m: make flows-compute, tracked (no ground truth) ($(printf '%s' "$out" | tr '\n' ' '))" \
    [ -f "$tmp/clipres/clip/lk/timing.stats" -a -f "$tmp/clipres/clip/tracks/tracks.csv" ]
if "$BIN/flow-tool" --version | grep -q '^OpenCV: yes'; then
    "$BIN/flow-synth" -q -c -s 48x36 -n 3 --video "$tmp/vid/colour.avi"
    out=$(vidmake 2>&1)
    check "video colour.avi (OpenCV): its 3 frames, without ffmpeg ($out)" \
        [ "$(ls "$tmp/viddst/colour" 2>/dev/null | grep -c '^frame_')" -eq 3 ]
else
    skipped "video .avi: this build has no OpenCV"
fi
# ffmpeg, when installed, only for what flow-tool cannot read: a stand-in
# that logs its call and writes two frames.
mkdir -p "$tmp/fakebin"
printf '#!/bin/sh\necho "$*" >>"%s"\nfor a; do last=$a; done\nfor i in 0 1; do cp "%s" "$(printf "$last" $i)"; done\n' \
    "$tmp/ffmpeg.log" "$tmp/clipref/f0.png" >"$tmp/fakebin/ffmpeg"
chmod +x "$tmp/fakebin/ffmpeg"
echo "not a video" >"$tmp/vid/odd.webm"
out=$(vidmake FFMPEG="$tmp/fakebin/ffmpeg" 2>&1)
check "a video flow-tool cannot read goes to ffmpeg ($(printf '%s' "$out" | grep 'instead'))" \
    eval '[ "$(ls "$tmp/viddst/odd" 2>/dev/null | grep -c "^frame_")" -eq 2 ] && grep -q "odd.webm" "$tmp/ffmpeg.log"'
check "ffmpeg is not called for what flow-tool read" [ "$(wc -l <"$tmp/ffmpeg.log")" -eq 1 ]
# A truncated video stops the conversion clearly and leaves nothing; a .y4m
# never goes to ffmpeg.
mkdir -p "$tmp/badvid"
"$BIN/flow-synth" -q -s 48x36 -n 3 --video "$tmp/cut.y4m"
head -c 4000 "$tmp/cut.y4m" >"$tmp/badvid/cut.y4m"
out=$(make --no-print-directory -C sequences SRC="$tmp/badvid" DST="$tmp/badviddst" BIN="$BIN" \
    PARAMS_DIR="$tmp/params" FFMPEG="$tmp/fakebin/ffmpeg" 2>&1)
rc=$?
check "truncated video: fails (rc $rc), naming it ($(printf '%s' "$out" | grep cut.y4m | head -n 1))" \
    eval '[ $rc -ne 0 ] && printf "%s" "$out" | grep -q "cut.y4m: frame 2 is truncated"'
check "truncated video: no frame, no temporary left, ffmpeg not called" \
    eval '[ -z "$(find "$tmp/badviddst" -name "frame_*" -o -name "*.tmp*" | head -n 1)" ] && ! grep -q cut.y4m "$tmp/ffmpeg.log"'

# ---- 12. progress on a terminal -------------------------------------------------------
# script(1) gives make a terminal: flow-compute's progress line, headed by
# the sequence and method, shows the total and the time left, and is erased
# when done; without a terminal nothing of it shows.
mkdir -p "$tmp/src/slow"
"$BIN/flow-synth" -q -s 320x240 -n 12 -o "$tmp/src/slow/f%02d.png"
seqmake >/dev/null 2>&1
slowmake="make --no-print-directory -f scripts/flows.mk SEQ_SRC=$tmp/src SEQ_DIR=$tmp/dst RESULTS=$tmp/slow BIN=$BIN PARAMS_DIR=$tmp/params DEVICE=cpu SEQUENCES=slow METHODS=hs flows-compute"
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
    script -qec "$slowmake" /dev/null >"$tmp/tty.txt" 2>&1
    tr '\r' '\n' <"$tmp/tty.txt" >"$tmp/tty-lines.txt"
    if grep -q 'flows/s' "$tmp/tty-lines.txt"; then
        check "terminal: the progress line is erased when done" \
            eval 'od -An -c "$tmp/tty.txt" | tr -d " \n" | grep -q "flows/s033\[K\\\\r033\[K"'
    else
        skipped "terminal: the run ended before a progress line (250 ms)"
    fi
    # the time left shows between the first flow and the last (a fast
    # machine may draw no line there)
    if grep -Eq '^slow/hs: ([1-9]|10)/11 flows' "$tmp/tty-lines.txt"; then
        check "terminal: the progress line names the sequence and method, the total and the time left ($(grep -o 'slow/hs: [0-9]*/11 flows[^A-Za-z]*flows/s, [0-9]* s left' "$tmp/tty-lines.txt" | head -n 1))" \
            grep -Eq '^slow/hs: [0-9]+/11 flows, [0-9.]+ flows/s, [0-9]+ s left' "$tmp/tty-lines.txt"
    else
        skipped "terminal: no progress line between the first flow and the last"
    fi
else
    skipped "progress on a terminal: no script command or no pseudo-terminal"
fi
out=$($slowmake -B 2>&1)
check "no terminal: no progress line ($(printf '%s' "$out" | tr '\n' ' '))" \
    [ -z "$(printf '%s\n' "$out" | grep 'flows/s')" ]


# ---- 13. a full disk ------------------------------------------------------------------
# tiny: 48x36, 4 frames, 3 pairs with ground truth.  On a 96 KB tmpfs its
# hs flows fit and the third pair's score does not (4 KB pages): make flows must fail
# and leave nothing that looks finished.  With room, a score left empty (as
# a full disk left it before) is computed again, and make stats says when a
# method has fewer scores than the sequence has pairs with ground truth.
mkdir -p "$tmp/src/tiny" "$tmp/full"
"$BIN/flow-synth" -q -s 48x36 -n 4 -o "$tmp/src/tiny/f%d.png" --gt "$tmp/src/tiny/f%d.flo"
seqmake >/dev/null 2>&1
if mount -t tmpfs -o size=96k tmpfs "$tmp/full" 2>/dev/null; then
    out=$(flowmake flows SEQUENCES=tiny METHODS=hs RESULTS="$tmp/full" RESULTS_KEEP=pictures 2>&1)
    rc=$?
    check "full disk: make flows fails (rc $rc), naming the score ($(printf '%s' "$out" | grep -i 'space\|error' | head -n 2 | tr '\n' ' '))" \
        eval '[ $rc -ne 0 ] && printf "%s" "$out" | grep -q "No space left on device" && printf "%s" "$out" | grep -q "002.error"'
    check "full disk: no file left in the results ($(find "$tmp/full" -type f | tr '\n' ' '))" \
        [ -z "$(find "$tmp/full" -type f)" ]
    umount "$tmp/full"
else
    skipped "full disk: cannot mount a 96 KB tmpfs here (needs root)"
fi
out=$(flowmake flows-compute SEQUENCES=tiny METHODS=hs RESULTS="$tmp/room" 2>&1)
check "tiny: make flows-compute ($out)" [ $? -eq 0 ]
: >"$tmp/room/tiny/hs/002.error"
out=$(flowmake flows-compute SEQUENCES=tiny METHODS=hs RESULTS="$tmp/room" 2>&1)
check "an empty score is computed again ($(printf '%s' "$out" | tr '\n' ' '))" \
    eval 'printf "%s" "$out" | grep -q "^  SCORE   tiny/hs (3 pairs)" && [ "$(wc -l <"$tmp/room/tiny/hs/002.error")" -eq 2 ]'
if [ "$have_gp" = 1 ]; then
    out=$(flowmake stats SEQUENCES=tiny METHODS=hs RESULTS="$tmp/room" 2>&1)
    check "stats, every pair scored: no word of missing scores ($(printf '%s' "$out" | grep '^stats:'))" \
        eval '[ -z "$(printf "%s" "$out" | grep "^stats:")" ]'
    : >"$tmp/room/tiny/hs/002.error"
    out=$(flowmake stats SEQUENCES=tiny METHODS=hs RESULTS="$tmp/room" 2>&1)
    check "stats says the means are over 2 of 3 pairs ($(printf '%s' "$out" | grep 'tiny/hs\|002.error' | tr '\n' ' '))" \
        eval 'printf "%s" "$out" | grep -q "^stats: tiny/hs: errors over 2 of its 3 pairs with ground truth" &&
              printf "%s" "$out" | grep -q "tiny/hs/002.error: no score (empty or cut)"'
else
    skipped "stats with a missing score: no gnuplot"
fi

finish
