#!/bin/sh
# flow_compute_directions.sh -- CLI tests of flow-compute beyond one flow
# of a pair (64x48, CPU backend): the forward-backward check, both
# directions with occlusion and confidence, --init, sparse matches out and
# in, edge maps, and coarse-to-fine levels that do not fit the frames.
# Prints "N passed, N failed[, N skipped]".
. "$(dirname "$0")/../common/harness.sh" # BUILD, BIN, T, expect, ok, bad, skip, check, ...
. "$(dirname "$0")/../common/flow_compute_setup.sh" # FC, FS, FCC, keys, the frames

# the pair computed alone, which the cases below compare against (flow_compute.sh tests it)
$FCC -q f0.png f1.png -o ab.flo || { echo "  FAIL: flow-compute cannot compute the pair"; echo "0 passed, 1 failed"; exit 1; }

# ---- forward-backward check -------------------------------------------------------
expect "fb-check" 0 err "^flow-compute: fb-check f0.png -> f1.png: density [0-9.]+% \([0-9]+ of 3072 pixels kept" \
    $FCC f0.png f1.png -o fb.flo --fb-check 1 --color
cp err fb-err.txt
check "fb-check: a whole flow and its picture" 'is_flo fb.flo 64 48 && is_png fb-color.png'
check "fb-check: unknown vectors written (1e10: f9021550)" 'od -An -v -tx1 -w4 fb.flo | tr -d " " | grep -qx f9021550'
check "fb-check: in the .params command line" 'grep -q "^# command: flow-compute --device cpu f0.png f1.png -o fb.flo --fb-check 1 --color" fb.flo.params'
check "fb-check: method parameters as without" '[ "$(keys fb.flo.params)" = "$(keys ab.flo.params)" ]'
expect "fb-check: backward flow" 0 err EMPTY $FCC f1.png f0.png -o ba.flo
if [ -x "$BIN/flow-tool" ]; then
    "$BIN/flow-tool" error --csv fb.flo ab.flo >fbe.txt 2>&1
    check "fb-check: kept vectors are the flow without the check, the rest unknown" \
        'tail -n 1 fbe.txt | grep -Eq "^0,0,0,0,0,0,0,[0-9]+,3072,0,0,[1-9][0-9]*,"'
    "$BIN/flow-tool" fb-check -t 1 -o tool.flo ab.flo ba.flo >fbt.txt 2>&1
    check "fb-check: the same as flow-tool fb-check on the two flows" 'cmp -s fb.flo tool.flo'
    d=$(sed -n 's/^density: \([0-9.]*\)%$/\1/p' fbt.txt)
    check "fb-check: the same density as flow-tool ($d%)" '[ -n "$d" ] && grep -q "density $d%" fb-err.txt'
else
    skip "fb-check against flow-tool (flow-tool not built)"
fi
expect "fb-check repeated" 0 out "^\| backward \([0-9]+%\) : " $FCC f0.png f1.png -o fbr.flo --fb-check 1 --timing --repeat 2
check "fb-check: timing has the check" 'grep -Eq "^\| fb check \([0-9]+%\) : " out && grep -Eq "^\| \| warping \(" out'
check "fb-check: same flow when repeated" 'cmp -s fb.flo fbr.flo'
expect "fb-check sequence" 0 err "^flow-compute: fb-check 1 px: mean density [0-9.]+%" $FCC "f%d.png" -o "fbs%d.flo" --fb-check 1
check "fb-check sequence: a density per pair" '[ "$(grep -c "^flow-compute: fb-check f[0-9].png -> f[0-9].png: density" err)" -eq 3 ]'
check "fb-check sequence: pair 0 as alone" 'cmp -s fbs0.flo fb.flo'
expect "fb-check pair 1 alone" 0 err EMPTY $FCC -q f1.png f2.png -o fb12.flo --fb-check 1
check "fb-check sequence: pair 1 as alone" 'cmp -s fbs1.flo fb12.flo'
expect "fb-check quiet" 0 err EMPTY $FCC -q "f%d.png" --last 2 -o "fbq%d.flo" --fb-check 1
expect "fb-check video" 0 err "fb-check v.y4m frame 2 -> v.y4m frame 3: density" $FCC --video v.y4m -o "fbv%d.flo" --fb-check 1
check "fb-check video: the frames' flows" 'cmp -s fbv2.flo fbs2.flo'
expect "fb-check zero" 1 err "^flow-compute: --fb-check: 0 is out of range" $FCC f0.png f1.png -o x.flo --fb-check 0
expect "fb-check negative" 1 err "^flow-compute: --fb-check: -0.5 is out of range" $FCC f0.png f1.png -o x.flo --fb-check -0.5
expect "fb-check not a number" 1 err "^flow-compute: --fb-check: 'one' is not a finite number" $FCC f0.png f1.png -o x.flo --fb-check one
expect "fb-check without a value" 1 err "option '--fb-check' needs a value" $FCC f0.png f1.png -o x.flo --fb-check

# ---- both directions: --backward, --occlusion, --confidence ------------------------
expect "both directions" 0 err EMPTY $FCC f0.png f1.png -o bd.flo --backward bdb.flo \
    --occlusion bdo.png --confidence bdc.png
check "both: the forward flow as without" 'cmp -s bd.flo ab.flo'
check "both: the backward flow as computed alone" 'cmp -s bdb.flo ba.flo'
check "both: an 8-bit grey mask of 0 and 255" '[ "$(od -An -tu1 -j 24 -N 2 bdo.png | tr -s " ")" = " 8 0" ]'
check "both: a 16-bit grey confidence" '[ "$(od -An -tu1 -j 24 -N 2 bdc.png | tr -s " ")" = " 16 0" ]'
expect "both: confidence as .pfm, no -o" 0 err EMPTY $FCC -q f0.png f1.png --confidence bdc.pfm
check "both: a grey float map" '[ "$(head -c 11 bdc.pfm)" = "$(printf "Pf\n64 48\n-1")" ] && [ "$(wc -c <bdc.pfm)" -eq $((12 + 4 * 3072)) ]'
expect "both: a = 0 and b = 1 is --fb-check 1" 0 err EMPTY $FCC f0.png f1.png --occlusion fbo.png \
    --occlusion-a 0 --occlusion-b 1
expect "both: a sequence by patterns" 0 err EMPTY $FCC -q "f%d.png" -o "bds%d.flo" --backward "bdsb%d.flo" \
    --occlusion "bdso%d.png"
check "both: a backward flow and a mask per pair" 'is_flo bdsb0.flo 64 48 && is_flo bdsb2.flo 64 48 && is_png bdso2.png'
check "both: pair 0 of the sequence as alone" 'cmp -s bdsb0.flo ba.flo'
expect "both: one name for several flows" 1 err "^flow-compute: --backward b.flo names one file but several flows are computed" \
    $FCC "f%d.png" -o "x%d.flo" --backward b.flo
expect "both: not a flow format" 1 err "^flow-compute: --backward b.txt: unknown flow format" \
    $FCC f0.png f1.png -o x.flo --backward b.txt
expect "both: the mask is a PNG" 1 err "^flow-compute: --occlusion m.jpg: the mask is an 8-bit .png" \
    $FCC f0.png f1.png -o x.flo --occlusion m.jpg
expect "both: the confidence is .pfm or .png" 1 err "^flow-compute: --confidence c.flo: the confidence is a .pfm" \
    $FCC f0.png f1.png -o x.flo --confidence c.flo
expect "both: a negative" 1 err "^flow-compute: --occlusion-a: -1 is out of range" \
    $FCC f0.png f1.png --occlusion m.png --occlusion-a -1
expect "both: b not a number" 1 err "^flow-compute: --occlusion-b: 'half' is not a finite number" \
    $FCC f0.png f1.png --occlusion m.png --occlusion-b half
expect "both: a and b without a mask" 1 err "^flow-compute: --occlusion-a and --occlusion-b set the test" \
    $FCC f0.png f1.png -o x.flo --occlusion-b 1
expect "both: a and b with --fb-check" 1 err "^flow-compute: --fb-check T is the test with a = 0" \
    $FCC f0.png f1.png -o x.flo --fb-check 1 --occlusion m.png --occlusion-a 0.1
check "both: nothing written by the refused runs" '[ ! -e x.flo ] && [ ! -e m.png ] && [ ! -e b.flo ] && [ ! -e x0.flo ]'
if [ -x "$BIN/flow-tool" ]; then
    expect "flow-tool occlusion: the mask over the frame" 0 err EMPTY "$BIN/flow-tool" occlusion f0.png bdo.png bdo-over.png
    check "  a picture of the frame's size" '[ "$(png_size bdo-over.png)" = "64 48" ]'
    expect "flow-tool confidence: grey, with its key" 0 err EMPTY "$BIN/flow-tool" confidence bdc.png bdc-grey.png
    expect "flow-tool confidence: colour" 0 err EMPTY "$BIN/flow-tool" confidence --colour --no-key bdc.png bdc-col.png
    check "  pictures of the map's size, grey and colour differ" '[ "$(png_size bdc-col.png)" = "64 48" ] && ! cmp -s bdc-grey.png bdc-col.png'
    expect "flow-tool occlusion: a mask of three channels" 2 err "mask bdo-over.png is 64x48 with 3 channels: expected one grey channel" \
        "$BIN/flow-tool" occlusion f0.png bdo-over.png bdx.png
    expect "flow-tool confidence: a picture is no map" 2 err "confidence map bdc-col.png has 3 channels" \
        "$BIN/flow-tool" confidence bdc-col.png bdx.png
    check "  nothing written" '[ ! -e bdx.png ]'
fi
mkdir -p bddir.png
expect "both: a directory for the mask" 2 err "bddir.png" $FCC f0.png f1.png -o bdw.flo --occlusion bddir.png
check "both: no flow written without its mask" '[ ! -e bdw.flo ]'

# ---- --init: refine a given flow -----------------------------------------------------------
{ printf 'P5\n64 48\n255\n'; head -c 3072 /dev/zero | tr '\0' '\377'; } >white.pgm
{ printf 'P5\n64 48\n255\n'; head -c 3072 /dev/zero; } >black.pgm
"$FS" -s 32x24 -n 2 -o "s%d.png" --gt "sgt%d.flo"
expect "init: the exact flow" 0 err EMPTY $FCC f0.png f1.png --init gt0.flo -o init.flo
check "init: a whole flow" 'is_flo init.flo 64 48'
check "init: in the .params command line" 'grep -q -- "--init gt0.flo" init.flo.params'
check "init: not the flow without it" '! cmp -s init.flo ab.flo'
if [ -x "$BIN/flow-tool" ]; then
    aee() { "$BIN/flow-tool" error "$1" gt0.flo | sed -n 's/^AEE: \([0-9.]*\) px.*/\1/p'; }
    a_own=$(aee ab.flo) a_init=$(aee init.flo)
    check "init: from the exact flow at least as accurate ($a_init px against $a_own)" \
        '[ -n "$a_init" ] && awk -v a="$a_init" -v b="$a_own" "BEGIN { exit !(a <= b) }"'
else
    skip "init accuracy (flow-tool not built)"
fi
expect "init: confidence 255 everywhere" 0 err EMPTY $FCC f0.png f1.png --init gt0.flo --init-confidence white.pgm -o initw.flo
check "init: confidence 255 is the initial flow refined" 'cmp -s initw.flo init.flo'
expect "init: confidence 0 everywhere" 0 err EMPTY $FCC f0.png f1.png --init gt0.flo --init-confidence black.pgm -o initb.flo
check "init: confidence 0 is the method's own flow" 'cmp -s initb.flo ab.flo'
expect "init: missing file" 2 err "^flow-compute: --init: nothere.flo: cannot open" $FCC f0.png f1.png --init nothere.flo -o initx.flo
check "init: nothing written on a missing file" '[ ! -e initx.flo ] && [ ! -e initx.flo.params ]'
expect "init: wrong size" 2 err "^flow-compute: --init sgt0.flo is 32x24, the frames 64x48" $FCC f0.png f1.png --init sgt0.flo -o initx.flo
check "init: nothing written on a wrong size" '[ ! -e initx.flo ] && [ ! -e initx.flo.params ]'
expect "init: not a flow file" 2 err "^flow-compute: --init: " $FCC f0.png f1.png --init junk.png -o initx.flo
expect "init: confidence of the wrong size" 2 err "^flow-compute: --init-confidence s0.png is 32x24 with 1 channel: expected a grey image of 64x48" \
    $FCC f0.png f1.png --init gt0.flo --init-confidence s0.png -o initx.flo
expect "init: a method without an initial flow" 1 err "^flow-compute: --init: method hs takes no initial flow" $FCC -m hs f0.png f1.png --init gt0.flo -o initx.flo
expect "init: one pair" 1 err "^flow-compute: --init gt0.flo is the flow of one pair: give two frames" $FCC f0.png f1.png f2.png --init gt0.flo -o "initx%d.flo"
expect "init: confidence alone" 1 err "^flow-compute: --init-confidence applies to --init" $FCC f0.png f1.png --init-confidence white.pgm -o initx.flo
expect "init: not with fb-check" 1 err "^flow-compute: --init refines one flow on one device: not with --fb-check" $FCC f0.png f1.png --init gt0.flo --fb-check 1 -o initx.flo
check "fb-check: no output after a bad value" '[ ! -e x.flo ]'
expect "fb-check in --help" 0 out "^      --fb-check T " $FC --help

# ---- sparse matches out and in (epic) --------------------------------------------------
"$FS" -m translate --dx 4.5 --dy -2.5 -s 96x72 -n 2 -o "mt%d.png" --gt mt.flo
expect "matches: written" 0 err EMPTY $FCC -m epic mt0.png mt1.png -o mt.out.flo --matches mt.txt
check "matches: a header and x y u v weight lines" 'head -1 mt.txt | grep -q "^# matches of 96x72 frames" && awk "!/^#/ && NF != 5 { exit 1 }" mt.txt'
check "matches: the kept ones within 2 px of (4.5, -2.5)" 'awk "!/^#/ && \$5 > 0 { n++; if ((\$3 - 4.5)^2 + (\$4 + 2.5)^2 > 4) bad++ } END { exit !(n > 20 && bad + 0 <= n / 10) }" mt.txt'
expect "use-matches: epic's own matches given back" 0 err EMPTY $FCC -m epic mt0.png mt1.png --use-matches mt.txt -o mt.in.flo
check "use-matches: the same flow bit for bit" 'cmp -s mt.out.flo mt.in.flo'
printf '# one match\n10 10 4.5 -2.5 1\n\n40.5 30 4.5 -2.5 0.5\n' >mt1.txt
expect "use-matches: a hand-written file" 0 err EMPTY $FCC -m epic mt0.png mt1.png --use-matches mt1.txt -o mt.one.flo
printf '10 10 4.5 -2.5\n' >mtbad.txt
expect "use-matches: a short line" 2 err "^flow-compute: --use-matches mtbad.txt:1: expected \"x y u v weight\"" $FCC -m epic mt0.png mt1.png --use-matches mtbad.txt -o mtx.flo
printf '100 10 4.5 -2.5 1\n' >mtout.txt
expect "use-matches: a point outside the frame" 2 err "^flow-compute: --use-matches mtout.txt: match 0 at \(100, 10\)" $FCC -m epic mt0.png mt1.png --use-matches mtout.txt -o mtx.flo
printf '10 10 4.5 -2.5 2\n' >mtw.txt
expect "use-matches: a weight above 1" 2 err "^flow-compute: --use-matches mtw.txt:1: expected finite numbers and a weight in \\[0, 1\\]" $FCC -m epic mt0.png mt1.png --use-matches mtw.txt -o mtx.flo
expect "use-matches: a missing file" 2 err "^flow-compute: --use-matches nothere.txt: No such file" $FCC -m epic mt0.png mt1.png --use-matches nothere.txt -o mtx.flo
check "use-matches: nothing written after a failure" '[ ! -e mtx.flo ]'
expect "use-matches: a method without matches" 1 err "^flow-compute: --use-matches: method hs takes no matches" $FCC -m hs mt0.png mt1.png --use-matches mt1.txt -o mtx.flo
expect "matches: a method without matches" 1 err "^flow-compute: --matches: method hs gives no matches" $FCC -m hs mt0.png mt1.png --matches mtx.txt -o mtx.flo
expect "matches: one pair" 1 err "^flow-compute: --matches applies to one pair: give two frames" $FCC -m epic f0.png f1.png f2.png --matches mtx.txt -o "mtx%d.flo"
check "matches: no matches file after a failure" '[ ! -e mtx.txt ]'

# ---- an edge map in place of epic's own edges (--edges) ---------------------------------
"$FS" -m object -s 96x72 -n 3 -o "eg%d.png"
"$FS" -m object -s 96x72 -n 1 -c -o "egc%d.png"
# pfm BYTES: a 96x72 grey .pfm (rows from the bottom), every value those four bytes
pfm() { printf 'Pf\n96 72\n-1\n'; i=0; while [ $i -lt 6912 ]; do printf "$1"; i=$((i+1)); done; }
pfm '\000\000\200\077' >eone.pfm
pfm '\000\000\000\100' >etwo.pfm
{ printf 'Pf\n96 72\n-1\n\000\000\300\177'; head -c $((6911 * 4)) /dev/zero; } >enan.pfm
{ printf 'P5\n96 72\n255\n'; head -c 6912 /dev/zero; } >ezero.pgm
{ printf 'P5\n96 72\n255\n'; head -c 6912 /dev/zero | tr '\0' '\377'; } >efull.pgm
{ printf 'P5\n96 72\n65535\n'; head -c 13824 /dev/zero | tr '\0' '\377'; } >efull16.pgm
# a uniform map E only scales every geodesic distance by 1 + edge_gain E (docs/ALGORITHMS.md):
# E = 1 with gain 1 is E = 0 with geo_sigma halved, bit for bit
expect "edges: a full map" 0 err EMPTY $FCC -m epic eg0.png eg1.png --edges efull.pgm --edge-gain 1 -o eg.full.flo
expect "edges: an empty map" 0 err EMPTY $FCC -m epic eg0.png eg1.png --edges ezero.pgm --edge-gain 1 --geo-sigma 1.5 -o eg.zero.flo
check "edges: a uniform map scales the distances (the same flow bit for bit)" 'cmp -s eg.full.flo eg.zero.flo'
expect "edges: 16-bit PGM" 0 err EMPTY $FCC -m epic eg0.png eg1.png --edges efull16.pgm --edge-gain 1 -o eg.full16.flo
check "edges: 16-bit full scale is 1" 'cmp -s eg.full.flo eg.full16.flo'
expect "edges: epic's own edges" 0 err EMPTY $FCC -m epic eg0.png eg1.png -o eg.own.flo
check "edges: the map is used" '! cmp -s eg.full.flo eg.own.flo'
# float maps (.pfm) are read through OpenCV, as every float image is
if "$FC" --version | grep -q '^OpenCV: yes'; then
    expect "edges: float .pfm" 0 err EMPTY $FCC -m epic eg0.png eg1.png --edges eone.pfm --edge-gain 1 -o eg.pfm.flo
    check "edges: .pfm 1.0 is 1" 'cmp -s eg.full.flo eg.pfm.flo'
    expect "edges: NaN named with its pixel" 2 err "^flow-compute: --edges enan.pfm: edge map's value nan at pixel \(0, 71\) is not in \[0, 1\]" \
        $FCC -m epic eg0.png eg1.png --edges enan.pfm -o egx.flo
    expect "edges: a value above 1" 2 err "^flow-compute: --edges etwo.pfm: edge map's value 2 at pixel \(0, 0\)" \
        $FCC -m epic eg0.png eg1.png --edges etwo.pfm -o egx.flo
else
    skip "edges: .pfm maps (values 1, NaN and 2): a build without OpenCV reads no .pfm image"
fi
expect "edges: the wrong size" 2 err "^flow-compute: --edges s0.png is 32x24 with 1 channel: expected a grey image of 96x72" \
    $FCC -m epic eg0.png eg1.png --edges s0.png -o egx.flo
expect "edges: a colour image" 2 err "^flow-compute: --edges egc0.png is 96x72 with 3 channels: expected a grey image" \
    $FCC -m epic eg0.png eg1.png --edges egc0.png -o egx.flo
expect "edges: a missing file" 2 err "^flow-compute: --edges: .*nothere.png" $FCC -m epic eg0.png eg1.png --edges nothere.png -o egx.flo
check "edges: nothing written after a failure" '[ ! -e egx.flo ] && [ ! -e egx.flo.params ]'
expect "edges: a method without an edge map" 1 err "^flow-compute: --edges: method hs takes no edge map" \
    $FCC -m hs eg0.png eg1.png --edges ezero.pgm -o egx.flo
expect "edges: one pair" 1 err "^flow-compute: --edges ezero.pgm is the edge map of one pair's first frame: give two frames" \
    $FCC -m epic eg0.png eg1.png eg2.png --edges ezero.pgm -o "egx%d.flo"
expect "edges in --help" 0 out "^      --edges IMAGE " $FC --help

# ---- coarse-to-fine warping ------------------------------------------------------
"$FS" -m translate --dx 4.5 --dy -2.5 -s 96x72 -n 2 -o "big%d.png" --gt big.flo
expect "warping" 0 err EMPTY $FCC -m clg-nl big0.png big1.png --warp-levels 3 -o bigw.flo
check "warping: in the .params" 'keys bigw.flo.params | grep -qx "warp_levels,3" && keys bigw.flo.params | grep -qx "warps,1"'
$FCC -m clg-nl big0.png big1.png -o bign.flo
aee() { "$BIN/flow-tool" error "$1" big.flo | sed -n 's/^AEE: \([0-9.]*\) px.*/\1/p'; }
if [ -x "$BIN/flow-tool" ]; then
    check "warping: 4.5 px found ($(aee bigw.flo) px), lost without ($(aee bign.flo) px)" \
        'awk -v w="$(aee bigw.flo)" -v n="$(aee bign.flo)" "BEGIN { exit !(w < 0.2 && n > 1) }"'
else
    skip "warping accuracy (flow-tool not built)"
fi
expect "warping: same flow from its .params" 0 err EMPTY $FCC -p bigw.flo.params big0.png big1.png -o bigw2.flo
check "warping: reproduced bit for bit" 'cmp -s bigw.flo bigw2.flo'
expect "warping: not for lk" 1 err "--warp-levels does not apply to method lk" $FCC -m lk --warp-levels 2 f0.png f1.png -o x.flo
expect "warping: out of range" 1 err "warp_levels = 101 out of range \(0 <= warp_levels <= 100\)" \
    $FCC --warp-levels 101 f0.png f1.png -o x.flo
expect "warps without warping" 1 err "--warps has no effect here: it applies with warp_levels > 0" $FCC -m clg-nl --warps 2 f0.png f1.png -o x.flo
expect "warping: scale out of range" 1 err "warp_scale = 1 out of range \(0.5 <= warp_scale < 1\)" \
    $FCC --warp-levels 2 --warp-scale 1 f0.png f1.png -o x.flo
expect "warping: a finer pyramid" 0 err EMPTY $FCC -m clg-nl big0.png big1.png --warp-levels 6 --warp-scale 0.75 -o bigf.flo
if [ -x "$BIN/flow-tool" ]; then
    check "warping with scale 0.75: 4.5 px found ($(aee bigf.flo) px)" \
        'awk -v w="$(aee bigf.flo)" "BEGIN { exit !(w < 0.2) }"'
fi
check "warping: the scale in the .params" 'keys bigf.flo.params | grep -qx "warp_scale,0.75"'
expect "warping: too small an image still works" 0 err EMPTY $FCC small.png small.png --warp-levels 3 -o sw.flo
# levels the frames do not allow: used as far as they fit, said so, and the
# .params gives what ran (it reproduces the run exactly)
expect "warp levels beyond the frames" 0 err "^flow-compute: notice: warp_levels 12 does not fit 32x24 frames: 1 is used" \
    $FCC -m hs small.png small.png --warp-levels 12 -o wl.flo
check "  the .params says what ran" 'keys wl.flo.params | grep -qx "warp_levels,1"'
expect "  rerun from that .params" 0 err EMPTY $FCC -p wl.flo.params small.png small.png -o wl2.flo
check "  the same flow" 'cmp -s wl.flo wl2.flo'
expect "multigrid depth beyond the grid" 0 err "notice: max_depth 30 does not fit 32x24 frames: 2 is used" \
    $FCC -m hs --solver v --max-depth 30 small.png small.png -o md.flo
check "  the .params says what ran" 'keys md.flo.params | grep -qx "max_depth,2"'
expect "plk levels beyond the frames" 0 err "notice: levels 6 does not fit 32x24 frames: 0 is used" \
    $FCC -m plk --levels 6 small.png small.png -o pl.flo
expect "dis finest beyond the pyramid" 0 err "notice: finest 5 does not fit 32x24 frames: 0 is used" \
    $FCC -m dis --finest 5 small.png small.png -o df.flo
expect "as many as fit (robust's default): no notice" 0 err EMPTY $FCC small.png small.png -o rd.flo
check "  the .params gives the count used" 'keys rd.flo.params | grep -qx "warp_levels,3"'
# the one sign that a value asked for was changed: said under -q too
expect "quiet: the notice of a changed value still" 0 err "^flow-compute: notice: warp_levels 13 does not fit 32x24 frames: 1 is used" \
    $FCC -q -m hs small.png small.png --warp-levels 13 -o wl3.flo
check "  nothing else on stderr" '[ "$(wc -l <err)" -eq 1 ]'
check "  the .params of the quiet run says what ran" 'keys wl3.flo.params | grep -qx "warp_levels,1"'

harness_report
