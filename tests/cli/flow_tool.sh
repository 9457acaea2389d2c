#!/bin/sh
# flow_tool.sh -- CLI tests of flow-tool: every subcommand, its exit code and
# what it prints, with inputs written byte by byte here (so the expected
# numbers are known by hand), and every kind of bad input with the message
# it must give.  Runs $BUILD/bin/flow-tool; uses ../shared/data (or
# FLOW_DATA) when present.  Prints "N passed, N failed[, N skipped]".
. "$(dirname "$0")/../common/harness.sh" # BUILD, BIN, T, expect, ok, bad, skip, check, ...
FT="$BUILD/bin/flow-tool"
DATA=${FLOW_DATA:-../shared/data}

harness_need_bins "$FT"

# ---- inputs, byte by byte (float32 little-endian) --------------------------
F0='\000\000\000\000'   # 0.0
F1='\000\000\200\077'   # 1.0
F3='\000\000\100\100'   # 3.0
F4='\000\000\200\100'   # 4.0
FM1='\000\000\200\277'  # -1.0
F100='\000\000\310\102' # 100.0
FM100='\000\000\310\302' # -100.0
FNAN='\000\000\300\177' # NaN
FUNK='\371\002\025\120' # 1e10 (unknown)
I1='\001\000\000\000' I2='\002\000\000\000'
# flo W H PAIRS...: a .flo file on stdout
flo() { printf 'PIEH'; printf "$1$2"; shift 2; for p in "$@"; do printf "$p"; done; }
# est: (1,0) (0,0) (3,4) (1,1); gt: (0,0) (0,0) (0,0) (1,1)
#   AE 45, 0, acos(1/sqrt 26) = 78.690067..., 0 -> AAE 30.922517, sd 33.137285
#   EE 1, 0, 5, 0 -> AEE 1.5, sd sqrt(4.25) = 2.061553; over 1 px: 1 of 4;
#   over 3 px: 1 (25%); over 5 px: none (5 is not over); Fl: pixel 2 (5 > 3,
#   5 > 0.05 * 0): 25%; every |gt| below 10: s0-10 = AEE
flo "$I2" "$I2" "$F1$F0" "$F0$F0" "$F3$F4" "$F1$F1" >"$T/est.flo"
flo "$I2" "$I2" "$F0$F0" "$F0$F0" "$F0$F0" "$F1$F1" >"$T/gt.flo"
flo "$I2" "$I2" "$F0$F0" "$F0$F0" "$FUNK$F0" "$F1$F1" >"$T/gt-unknown.flo"
flo "$I2" "$I2" "$F0$F0" "$F0$F0" "$FUNK$FUNK" "$F1$F1" >"$T/noc.flo" # pixel 2 occluded
flo "$I2" "$I2" "$F1$F0" "$F0$FNAN" "$F3$F4" "$F1$F1" >"$T/est-nan.flo"
flo "$I2" "$I2" "$FNAN$FNAN" "$FNAN$FNAN" "$FNAN$FNAN" "$FNAN$FNAN" >"$T/allnan.flo"
flo "$I2" "$I1" "$F1$F0" "$F0$F0" >"$T/small.flo"     # 2x1: (1,0) (0,0)
flo "$I2" "$I1" "$F1$F0" "$FUNK$FUNK" >"$T/unk.flo"   # 2x1: (1,0) unknown
flo "$I2" "$I1" "$F100$FM100" "$FM1$F1" >"$T/marker.flo"
printf 'PIEH\240\206\001\000\240\206\001\000' >"$T/huge.flo" # 100000 x 100000
head -c 30 "$T/est.flo" >"$T/trunc.flo"
echo "this is not a flow file, just some text" >"$T/text.flo"
cp "$T/est.flo" "$T/est.txt"
mkdir "$T/dir.flo"
# masks (binary PGM): 2x2 with pixel (1,1) off; 3x3; 2x2 all off
printf 'P5\n2 2\n255\n\377\377\377\000' >"$T/mask.pgm"
printf 'P5\n3 3\n255\n\377\377\377\377\377\377\377\377\377' >"$T/mask3.pgm"
printf 'P5\n2 2\n255\n\000\000\000\000' >"$T/mask0.pgm"
# regions, 2x2: pixel 2 (0,1) occluded / foreground; pixel 0 invalid
printf 'P5\n2 2\n255\n\000\000\377\000' >"$T/occ.pgm"
printf 'P5\n2 2\n255\n\377\000\000\000' >"$T/invalid.pgm"
printf 'P5\n2 2\n255\n\144\144\144\144' >"$T/frame.pgm"
printf 'P5\n3 3\n255\n\144\144\144\144\144\144\144\144\144' >"$T/frame3.pgm"

# ---- the tool ------------------------------------------------------------------
expect "help" 0 out "usage: flow-tool COMMAND" "$FT" --help
expect "help lists commands" 0 out "mix IN OUT.png" "$FT" --help
expect "version" 0 out "^flow-tool [0-9]+\.[0-9]+\.[0-9]+ \(libflow [0-9]+\.[0-9]+\.[0-9]+\)$" "$FT" --version
expect "no command" 1 err "^flow-tool: no command given" "$FT"
expect "unknown command" 1 err "unknown command 'frobnicate'" "$FT" frobnicate
expect "unknown command usage" 1 err "^usage: flow-tool" "$FT" frobnicate
for c in convert error fb-check warp photo-error color legend vectors blend mix montage info video frames formats; do
    expect "$c --help" 0 out "^usage: flow-tool $c" "$FT" $c --help
    expect "$c --help exit status" 0 out "Exit status: 0 ok, 1 usage" "$FT" $c -h
    expect "$c unknown option" 1 err "^flow-tool: $c: unknown option '--bogus'" "$FT" $c --bogus
    [ "$c" = formats ] || expect "$c missing argument" 1 err "$c: missing argument" "$FT" $c
done
for c in error fb-check warp photo-error color vectors blend mix video; do
    expect "$c --help defaults" 0 out "\[default: " "$FT" $c --help
done
expect "too many arguments" 1 err "too many arguments \(3 given, 2 expected\)" \
    "$FT" convert a.flo b.flo c.flo
expect "option needs a value" 1 err "option '--mask' needs a value" "$FT" error "$T/est.flo" "$T/gt.flo" --mask
expect "short unknown option" 1 err "unknown option '-q'" "$FT" info -q "$T/est.flo"

# ---- convert -------------------------------------------------------------------
expect "convert flo->F" 0 out EMPTY "$FT" convert "$T/est.flo" "$T/a.F"
expect "convert F->pcm" 0 out EMPTY "$FT" convert "$T/a.F" "$T/a.pcm"
expect "convert pcm->flo" 0 out EMPTY "$FT" convert "$T/a.pcm" "$T/back.flo"
if cmp -s "$T/est.flo" "$T/back.flo"; then ok; else bad "flo->F->pcm->flo is not byte for byte"; fi
# the .F file: big-endian header 2 2 2 2 0 0, then (1, -0) with v negated
if [ "$(od -An -tx1 -N32 "$T/a.F" | tr -d ' \n')" = \
     "4000000040000000400000004000000000000000000000003f80000080000000" ]; then ok
else bad ".F bytes: $(od -An -tx1 -N32 "$T/a.F" | tr -d ' \n')"; fi
if [ "$(head -c 7 "$T/a.pcm" | od -An -c | tr -d ' \n')" = 'PC\n22\n' ]; then ok
else bad ".pcm header: $(head -c 7 "$T/a.pcm" | od -An -c)"; fi
expect "convert keeps unknown (.F)" 0 out EMPTY "$FT" convert "$T/unk.flo" "$T/unk.F"
expect "unknown after .F" 0 out "^unknown: 1 \(50.00%\)" "$FT" info "$T/unk.F"
expect "convert warns of the .F marker" 0 err "1 known vector\(s\) equal to \(100, -100\) become unknown" \
    "$FT" convert "$T/marker.flo" "$T/marker.F"
expect "convert upper-case extensions" 0 out EMPTY "$FT" convert "$T/est.flo" "$T/A.FLO"
if cmp -s "$T/est.flo" "$T/A.FLO"; then ok; else bad ".flo -> .FLO differs"; fi
expect "convert to unknown extension" 2 err "out.txt: unknown flow file extension \(expected .flo, .F, .pcm, .pfm or .png\)" \
    "$FT" convert "$T/est.flo" "$T/out.txt"
expect "convert into a missing directory" 2 err "nodir/out.flo: cannot write" \
    "$FT" convert "$T/est.flo" "$T/nodir/out.flo"

# ---- the table of formats, KITTI .png and .pfm ------------------------------------
expect "formats lists KITTI" 0 out "^png	KITTI 16-bit flow PNG	" "$FT" formats
check "formats: the extensions, in order" \
    '[ "$("$FT" formats | cut -f1 | tr "\n" " ")" = "flo F pcm pfm png " ]'
expect "formats takes no argument" 1 err "too many arguments" "$FT" formats x
expect "version names the formats" 0 out "^flow formats: .flo, .F, .pcm, .pfm or .png$" "$FT" --version
# est.flo's vectors are multiples of 1/64: through KITTI .png byte for byte
expect "convert flo->png (KITTI)" 0 out EMPTY "$FT" convert "$T/est.flo" "$T/k.png"
# IHDR: 2 x 2, 16 bits, colour type 2 (RGB)
check "KITTI png: 2x2, 16-bit RGB" \
    '[ "$(png_size "$T/k.png")" = "2 2" ] && [ "$(od -An -tu1 -j24 -N2 "$T/k.png" | tr -s " ")" = " 16 2" ]'
expect "info on a KITTI png" 0 out "^format: .png \(KITTI 16-bit flow PNG\)$" "$FT" info "$T/k.png"
expect "convert png->flo" 0 out EMPTY "$FT" convert "$T/k.png" "$T/k.flo"
if cmp -s "$T/est.flo" "$T/k.flo"; then ok; else bad "flo->png->flo is not byte for byte"; fi
expect "convert keeps unknown (.png)" 0 out EMPTY "$FT" convert "$T/unk.flo" "$T/unk.png"
expect "unknown after .png" 0 out "^unknown: 1 \(50.00%\)" "$FT" info "$T/unk.png"
F1000='\000\000\172\104' # 1000.0
flo "$I2" "$I1" "$F0$F0" "$F1000$F1" >"$T/far.flo"
expect "png: a vector out of range" 2 err "far.png: pixel \(1, 0\): u = 1000 is outside what a KITTI flow PNG holds" \
    "$FT" convert "$T/far.flo" "$T/far.png"
check "png: nothing written after a refusal" '[ ! -e "$T/far.png" ]'
expect "an 8-bit png is not a flow" 0 out EMPTY "$FT" color "$T/est.flo" "$T/picture.png"
expect "an 8-bit png given as a flow" 2 err "picture.png: a PNG of 3 channel\(s\) of 8 bits, not a KITTI flow PNG" \
    "$FT" info "$T/picture.png"
# a big-endian 1x2 PFM (positive scale), rows from the bottom: (3, 4) then (1, 0)
B0='\000\000\000\000' B1='\077\200\000\000' B3='\100\100\000\000' B4='\100\200\000\000'
printf "PF\n1 2\n1.0\n$B3$B4$B0$B1$B0$B0" >"$T/be.pfm"
expect "convert pfm->flo (big-endian)" 0 out EMPTY "$FT" convert "$T/be.pfm" "$T/be.flo"
flo "$I1" "$I2" "$F1$F0" "$F3$F4" >"$T/be-want.flo"
if cmp -s "$T/be.flo" "$T/be-want.flo"; then ok; else bad "big-endian .pfm read wrong"; fi
expect "convert flo->pfm" 0 out EMPTY "$FT" convert "$T/est-nan.flo" "$T/nan.pfm"
if [ "$(head -c 10 "$T/nan.pfm" | od -An -c | tr -d ' \n')" = 'PF\n22\n-1\n' ]; then ok
else bad ".pfm header: $(head -c 10 "$T/nan.pfm" | od -An -c)"; fi
expect "convert pfm->flo" 0 out EMPTY "$FT" convert "$T/nan.pfm" "$T/nan.flo"
if cmp -s "$T/est-nan.flo" "$T/nan.flo"; then ok; else bad "flo->pfm->flo (with NaN) is not byte for byte"; fi
printf 'Pf\n1 1\n-1\n\000\000\000\000' >"$T/gray.pfm"
expect "a one-channel pfm" 2 err "gray.pfm: a one-channel PFM \(\"Pf\"\), not a flow" "$FT" info "$T/gray.pfm"
head -c 30 "$T/nan.pfm" >"$T/trunc.pfm"
expect "truncated .pfm" 2 err "trunc.pfm: truncated" "$FT" info "$T/trunc.pfm"

# ---- bad inputs (any subcommand that reads a flow file) ---------------------------
expect "missing file" 2 err "^flow-tool: .*missing.flo: cannot open: No such file" "$FT" info "$T/missing.flo"
expect "directory" 2 err "dir.flo: is a directory" "$FT" info "$T/dir.flo"
expect "truncated" 2 err "trunc.flo: truncated: header claims 2x2, which needs 44 bytes, but the file has 30" \
    "$FT" info "$T/trunc.flo"
expect "wrong magic" 2 err "text.flo: not a .flo file" "$FT" convert "$T/text.flo" "$T/x.F"
expect "wrong extension" 2 err "est.txt: unknown flow file extension" "$FT" info "$T/est.txt"
expect "absurd header" 2 err "huge.flo: header claims 100000x100000 pixels" "$FT" info "$T/huge.flo"
head -c 20 "$T/a.F" >"$T/trunc.F"
expect "truncated .F" 2 err "trunc.F: 20 bytes, too short for a .F file" "$FT" info "$T/trunc.F"
head -c 20 "$T/a.pcm" >"$T/trunc.pcm"
expect "truncated .pcm" 2 err "trunc.pcm: truncated" "$FT" info "$T/trunc.pcm"
if [ ! -e "$T/x.F" ]; then ok; else bad "a failed convert left an output"; fi

# ---- info ----------------------------------------------------------------------
expect "info size" 0 out "^size: 2 x 2 \(4 vectors\)" "$FT" info "$T/est.flo"
expect "info format" 0 out "^format: .F \(Barron" "$FT" info "$T/a.F"
expect "info ranges" 0 out "^u range: 0 .. 3" "$FT" info "$T/est.flo"
expect "info magnitude" 0 out "^magnitude: mean 1.85355, max 5" "$FT" info "$T/est.flo"
expect "info unknown" 0 out "^unknown: 0 \(0.00%\)" "$FT" info "$T/est.flo"

# ---- error ---------------------------------------------------------------------
expect "error human" 0 out "^AAE: 30.9225 deg \(sd 33.1373\)" "$FT" error "$T/est.flo" "$T/gt.flo"
expect "error AEE" 0 out "^AEE: 1.5000 px \(sd 2.0616, max 5.0000\)" "$FT" error "$T/est.flo" "$T/gt.flo"
expect "error over 1 px" 0 out "^EE > 1 px: 25.00%" "$FT" error "$T/est.flo" "$T/gt.flo"
expect "error scored" 0 out "^scored: 4 of 4 pixels" "$FT" error "$T/est.flo" "$T/gt.flo"
expect "error csv" 0 out "^30.9225169,33.1372846,1.5,2.06155281,0.25,0.25,5,4,4,0,0,0,25,25,0,25,,,,,,,,,1.5,,,,,,0,,,,,$" \
    "$FT" error --csv "$T/est.flo" "$T/gt.flo"
expect "error csv header" 0 out "^aae,aae_std,aee,aee_std,over1,over3,max_ee,scored,total,outside_mask,unknown_gt,unknown_est,px1,px3,px5,fl,epe_noc,epe_occ,scored_noc,scored_occ,fl_noc,fl_occ,fl_bg,fl_fg,s0_10,s10_40,s40,d0_10,d10_60,d60_140,invalid,ause,ause_relative,occ_precision,occ_recall,occ_f1$" \
    "$FT" error --csv "$T/est.flo" "$T/gt.flo"
expect "error .aae/.aee files" 0 out "AAE" "$FT" error --aae "$T/r.aae" --aee "$T/r.aee" "$T/est.flo" "$T/gt.flo"
if [ "$(cat "$T/r.aae")" = "30.922517" ] && [ "$(cat "$T/r.aee")" = "1.500000" ]; then ok
else bad ".aae/.aee contents: $(cat "$T/r.aae") $(cat "$T/r.aee")"; fi
check "error --aae to standard output (a pipe, written directly)" \
    '"$FT" error --aae /dev/stdout "$T/est.flo" "$T/gt.flo" | grep -qx "30.922517"'
# unknown ground truth at (0,1): scored 3; AE 45, 0, 0 -> 15; EE 1, 0, 0
expect "error unknown gt" 0 out "^15,21.2132034,0.333333333,0.471404521,0,0,1,3,4,0,1,0,0,0,0,0,,,,,,,,,0.333333333,,,,,,0,,,,,$" \
    "$FT" error --csv "$T/est.flo" "$T/gt-unknown.flo"
expect "error unknown gt stated" 0 out "excluded: 1 unknown ground truth, 0 unknown estimate; no mask" \
    "$FT" error "$T/est.flo" "$T/gt-unknown.flo"
# mask without pixel (1,1): scored 3, outside 1: AE 45, 0, 78.69 -> 41.230023
expect "error with mask" 0 out "^41.2300225,32.2355004,2,2.1602469,0.333333333,0.333333333,5,3,4,1,0,0,33.3333333,33.3333333,0,33.3333333,,,,,,,,,2,,,,,,0,,,,,$" \
    "$FT" error --csv --mask "$T/mask.pgm" "$T/est.flo" "$T/gt.flo"
expect "error mask stated" 0 out "1 outside the mask .*mask.pgm" \
    "$FT" error --mask "$T/mask.pgm" "$T/est.flo" "$T/gt.flo"
# occluded pixel 2: noc EE 1, 0, 0 (mean 1/3, no outlier), occ EE 5 (an
# outlier); pixels 0, 1, 3 are 1, sqrt 2, 1 px from it: all in d0-10
expect "error occlusions csv" 0 out ",25,25,0,25,0.333333333,5,3,1,0,100,,,1.5,,,0.333333333,,,0,,,,,$" \
    "$FT" error --csv --occlusions "$T/occ.pgm" "$T/est.flo" "$T/gt.flo"
expect "error occlusions stated" 0 out "^EPE noc: 0.3333 px over 3 pixels; occ: 5.0000 px over 1 pixels" \
    "$FT" error --occlusions "$T/occ.pgm" "$T/est.flo" "$T/gt.flo"
expect "error Fl noc/occ" 0 out "^Fl noc: 0.00%; occ: 100.00%" \
    "$FT" error --occlusions "$T/occ.pgm" "$T/est.flo" "$T/gt.flo"
expect "error distance buckets" 0 out "^EPE by distance to occlusion: d0-10 0.3333 px, d10-60 -, d60-140 -" \
    "$FT" error --occlusions "$T/occ.pgm" "$T/est.flo" "$T/gt.flo"
expect "error noc flow as occlusions, no distances" 0 out ",25,25,0,25,0.333333333,5,3,1,0,100,,,1.5,,,,,,0,,,,,$" \
    "$FT" error --csv --noc "$T/noc.flo" "$T/est.flo" "$T/gt.flo"
expect "error objmap" 0 out "^Fl bg: 0.00%; fg: 100.00%" \
    "$FT" error --objmap "$T/occ.pgm" "$T/est.flo" "$T/gt.flo"
# invalid pixel 0: AE 0, 78.690067, 0 and EE 0, 5, 0 left: AAE 26.230022,
# sd 26.230022 sqrt 2; AEE 5/3, sd 5/3 sqrt 2
expect "error invalid csv" 0 out "^26.2300225,37.0948536,1.66666667,2.3570226,0.333333333,0.333333333,5,3,4,0,0,0,33.3333333,33.3333333,0,33.3333333,,,,,,,,,1.66666667,,,,,,1,,,,,$" \
    "$FT" error --csv --invalid "$T/invalid.pgm" "$T/est.flo" "$T/gt.flo"
# confidence maps (EE 1, 0, 5, 0): in the oracle's order (pixel 2 least
# trusted, then 0) AUSE is 0; reversed (3, 0, 1, 2 removed in turn), 4
# steps: curve 1.5, 6/3, 5/2, 5 against the oracle's 1.5, 1/3, 0, 0:
# AUSE (0 + 5/3 + 5/2 + 5) / 4 = 2.2916667, relative to 1.5: 1.5277778
printf 'P5\n2 2\n255\n\012\024\000\036' >"$T/conf-good.pgm"
printf 'P5\n2 2\n255\n\024\036\050\012' >"$T/conf-bad.pgm"
expect "error ause oracle order" 0 out ",0,0,0,,,$" \
    "$FT" error --csv --steps 4 --confidence "$T/conf-good.pgm" "$T/est.flo" "$T/gt.flo"
expect "error ause reversed" 0 out ",0,2.29166667,1.52777778,,,$" \
    "$FT" error --csv --steps 4 --confidence "$T/conf-bad.pgm" "$T/est.flo" "$T/gt.flo"
expect "error ause stated" 0 out "^AUSE: 2.2917 px \(152.78% of the EPE\) over 4 steps, confidence from .*conf-bad.pgm" \
    "$FT" error --steps 4 --confidence "$T/conf-bad.pgm" "$T/est.flo" "$T/gt.flo"
expect "error curve written" 0 out "" \
    "$FT" error --steps 4 --confidence "$T/conf-bad.pgm" --curve "$T/curve.txt" --aee "$T/curve.aee" "$T/est.flo" "$T/gt.flo"
check "curve file" '[ "$(sed -n "1p;3p;5p" "$T/curve.txt" | tr "\n" "|")" = "removed epe oracle_epe|0.250000 2 0.333333333|0.750000 5 0|" ]'
check "curve beside aee" '[ "$(cat "$T/curve.aee")" = "1.500000" ]'
expect "error curve needs confidence" 1 err "give --confidence MAP" \
    "$FT" error --curve "$T/curve2.txt" "$T/est.flo" "$T/gt.flo"
[ ! -e "$T/curve2.txt" ] && ok "no curve without confidence" || bad "no curve without confidence"
expect "error confidence size" 2 err "confidence map .*mask3.pgm is 3x3 with 1 channels but the ground truth .*gt.flo is 2x2" \
    "$FT" error --confidence "$T/mask3.pgm" "$T/est.flo" "$T/gt.flo"
expect "error steps range" 1 err "--steps: 0 is out of range" \
    "$FT" error --steps 0 --confidence "$T/conf-bad.pgm" "$T/est.flo" "$T/gt.flo"
# occlusion estimate: pixels 2 and 3 against the truth's pixel 2: tp 1,
# fp 1, fn 0: precision 0.5, recall 1, F1 2/3
printf 'P5\n2 2\n255\n\000\000\377\377' >"$T/occ-est.pgm"
expect "error occlusion F1" 0 out ",0.5,1,0.666666667$" \
    "$FT" error --csv --occlusions "$T/occ.pgm" --occlusion-estimate "$T/occ-est.pgm" "$T/est.flo" "$T/gt.flo"
expect "error occlusion F1 stated" 0 out "precision 50.00%, recall 100.00%, F1 0.6667 \(1 true, 1 false positives, 0 missed\)" \
    "$FT" error --occlusions "$T/occ.pgm" --occlusion-estimate "$T/occ-est.pgm" "$T/est.flo" "$T/gt.flo"
expect "error occlusion F1 from noc" 0 out ",0.5,1,0.666666667$" \
    "$FT" error --csv --noc "$T/noc.flo" --occlusion-estimate "$T/occ-est.pgm" "$T/est.flo" "$T/gt.flo"
expect "error occlusion estimate needs truth" 1 err "give --occlusions MAP or --noc FLOW" \
    "$FT" error --occlusion-estimate "$T/occ-est.pgm" "$T/est.flo" "$T/gt.flo"
expect "error invalid stated" 0 out "excluded: 1 invalid in .*invalid.pgm, 0 unknown" \
    "$FT" error --invalid "$T/invalid.pgm" "$T/est.flo" "$T/gt.flo"
expect "error human speed buckets" 0 out "^EPE by speed \|gt\|: s0-10 1.5000 px, s10-40 -, s40\+ -" \
    "$FT" error "$T/est.flo" "$T/gt.flo"
expect "error Fl" 0 out "^Fl \(EE > 3 px and > 5% of \|gt\|\): 25.00%" "$FT" error "$T/est.flo" "$T/gt.flo"
expect "error no noc lines without occlusions" 0 out "^EE > 5 px: 0.00%" "$FT" error "$T/est.flo" "$T/gt.flo"
check "error: no occlusion lines without occlusion maps" \
    '! "$FT" error "$T/est.flo" "$T/gt.flo" | grep -q "noc\|distance\|Fl bg"'
expect "error --occlusions and --noc" 1 err "give one" \
    "$FT" error --occlusions "$T/occ.pgm" --noc "$T/noc.flo" "$T/est.flo" "$T/gt.flo"
expect "error noc size mismatch" 2 err "noc ground truth .*small.flo is 2x1 but the ground truth .*gt.flo is 2x2" \
    "$FT" error --noc "$T/small.flo" "$T/est.flo" "$T/gt.flo"
expect "error occlusions size mismatch" 2 err "mask .*mask3.pgm is 3x3" \
    "$FT" error --occlusions "$T/mask3.pgm" "$T/est.flo" "$T/gt.flo"
expect "error all invalid" 2 err "no pixel to score: of the 4 pixels, 1 are outside the mask .*mask.pgm, 3 invalid in .*frame.pgm, 0 have" \
    "$FT" error --invalid "$T/frame.pgm" --mask "$T/mask.pgm" "$T/est.flo" "$T/gt.flo"
# KITTI's picture: n = min(EE / 3, 20 EE / |gt|): 1/3, 0, 5/3, 0 -> the
# devkit's colours of [0.25, 0.5), [0, 0.0625), [1, 2), [0, 0.0625); pixel 2
# occluded: at half brightness, rounded down
expect "error --picture" 0 out "^AAE" "$FT" error --picture "$T/kitti.ppm" "$T/est.flo" "$T/gt.flo"
check "error --picture colours" \
    '[ "$(tail -c 12 "$T/kitti.ppm" | od -An -tu1 | tr -s " \n" " ")" = " 171 217 233 49 54 149 254 224 144 49 54 149 " ]'
expect "error --picture occluded" 0 out "^AAE" \
    "$FT" error -p "$T/kitti-occ.ppm" --occlusions "$T/occ.pgm" "$T/est.flo" "$T/gt.flo"
check "error --picture occluded dimmed" \
    '[ "$(tail -c 6 "$T/kitti-occ.ppm" | od -An -tu1 | tr -s " \n" " ")" = " 127 112 72 49 54 149 " ]'
expect "error --picture into a missing directory" 2 err "nodir/k.png" \
    "$FT" error --picture "$T/nodir/k.png" --aae "$T/k.aae" "$T/est.flo" "$T/gt.flo"
if [ ! -e "$T/k.aae" ]; then ok; else bad "a failed --picture left the .aae"; fi
expect "error size mismatch" 2 err "estimate .*small.flo is 2x1 but the ground truth .*gt.flo is 2x2: sizes must match" \
    "$FT" error "$T/small.flo" "$T/gt.flo"
expect "error mask size mismatch" 2 err "mask .*mask3.pgm is 3x3 but the ground truth .*gt.flo is 2x2" \
    "$FT" error --mask "$T/mask3.pgm" "$T/est.flo" "$T/gt.flo"
expect "error missing mask" 2 err "nomask.png" "$FT" error --mask "$T/nomask.png" "$T/est.flo" "$T/gt.flo"
expect "error empty mask" 2 err "no pixel to score: of the 4 pixels, 4 are outside the mask .*mask0.pgm, 0 have" \
    "$FT" error --mask "$T/mask0.pgm" "$T/est.flo" "$T/gt.flo"
expect "error all-NaN ground truth named" 2 err "no pixel to score: of the 4 pixels, 4 have unknown ground truth in .*allnan.flo and 0 an unknown estimate in .*est.flo$" \
    "$FT" error "$T/est.flo" "$T/allnan.flo"
expect "error NaN in EST" 2 err "est-nan.flo: estimate has a non-finite vector \(0, nan\) at pixel \(1, 0\)" \
    "$FT" error "$T/est-nan.flo" "$T/gt.flo"
expect "error NaN in GT is unknown" 0 out "^scored: 3 of 4" "$FT" error "$T/gt.flo" "$T/est-nan.flo"
expect "error bad GT" 2 err "trunc.flo: truncated" "$FT" error "$T/est.flo" "$T/trunc.flo"
if [ ! -e "$T/none.aae" ]; then ok; else bad "failed error wrote .aae"; fi
"$FT" error --aae "$T/none.aae" "$T/est-nan.flo" "$T/gt.flo" 2>/dev/null
if [ ! -e "$T/none.aae" ]; then ok; else bad "failed error wrote .aae"; fi
# --aae and --aee are one result: when one cannot be written, neither is
expect "error .aee unwritable" 2 err "dir.flo: cannot write: is a directory" \
    "$FT" error --aae "$T/pair.aae" --aee "$T/dir.flo" "$T/est.flo" "$T/gt.flo"
check "error: no .aae without its .aee" '[ ! -e "$T/pair.aae" ] && [ -z "$(ls -a "$T" | grep "^\.tmp-")" ]'

# ---- a full disk ------------------------------------------------------------------
# A name linked to /dev/full is written through (as a device), and every write
# to it fails as on a full disk: the tool must say so, naming the file, and
# exit 2, whichever writer (native, libpng or OpenCV) the format goes to.
if [ -c /dev/full ] && ln -s /dev/full "$T/full.png" && ln -s /dev/full "$T/full.ppm" \
    && ln -s /dev/full "$T/full.aee"; then
    expect "color to a full disk (.png)" 2 err "full.png: write failed: No space left on device" \
        "$FT" color "$T/est.flo" "$T/full.png"
    expect "color to a full disk (.ppm)" 2 err "full.ppm: write failed: No space left on device" \
        "$FT" color "$T/est.flo" "$T/full.ppm"
    expect "vectors to a full disk" 2 err "full.png: write failed: No space left on device" \
        "$FT" vectors "$T/est.flo" "$T/full.png"
    expect "legend to a full disk" 2 err "full.ppm: write failed: No space left on device" "$FT" legend --size 32 "$T/full.ppm"
    expect "error --aee to a full disk" 2 err "full.aee: write failed: No space left on device" \
        "$FT" error --aae "$T/full-pair.aae" --aee "$T/full.aee" "$T/est.flo" "$T/gt.flo"
    check "full disk: the links kept, no other file" '[ -L "$T/full.png" ] && [ -L "$T/full.ppm" ] && [ ! -e "$T/full-pair.aae" ]'
else
    skip "full disk (no /dev/full)"
fi

# ---- standard output on a full disk ---------------------------------------------------
# Whatever prints on stdout: a failed write is an error (exit 2), not a success.
expect_full_stdout "--help to a full stdout" "$FT" --help
expect_full_stdout "--version to a full stdout" "$FT" --version
for c in convert error fb-check color legend vectors blend mix montage info video frames; do
    expect_full_stdout "$c --help to a full stdout" "$FT" $c --help
done
expect_full_stdout "error to a full stdout" "$FT" error "$T/est.flo" "$T/gt.flo"
expect_full_stdout "error --csv to a full stdout" "$FT" error --csv "$T/est.flo" "$T/gt.flo"
expect_full_stdout "info to a full stdout" "$FT" info "$T/est.flo"
expect_full_stdout "fb-check to a full stdout" "$FT" fb-check "$T/est.flo" "$T/gt.flo"
expect_full_stdout "color -v to a full stdout" "$FT" color -v "$T/est.flo" "$T/stdout-c.ppm"
expect_full_stdout "vectors -v to a full stdout" "$FT" vectors -v "$T/est.flo" "$T/stdout-v.ppm"
expect_full_stdout "mix -v to a full stdout" "$FT" mix -v "$T/est.flo" "$T/stdout-m.ppm"
expect_full_stdout "montage -v to a full stdout" "$FT" montage -v --gt "$T/gt.flo" "$T/est.flo" "$T/stdout-mo.ppm"

# ---- fb-check ----------------------------------------------------------------------
# 3x1 forward (1,0) (1,0) (1,0); backward (-1,0) (-1,0) (-3,0): pixel 0 lands on
# backward pixel 1 (|f + b| = 0, kept), pixel 1 on pixel 2 (|f + b| = 2),
# pixel 2 leaves the frame.  With T 2 pixel 1 is kept (the boundary).
I3='\003\000\000\000' FM3='\000\000\100\300'
flo "$I3" "$I1" "$F1$F0" "$F1$F0" "$F1$F0" >"$T/fw.flo"
flo "$I3" "$I1" "$FM1$F0" "$FM1$F0" "$FM3$F0" >"$T/bw.flo"
expect "fb-check density" 0 out "^density: 33.33%" "$FT" fb-check "$T/fw.flo" "$T/bw.flo"
expect "fb-check counts" 0 out "^kept: 1 of 3 pixels" "$FT" fb-check "$T/fw.flo" "$T/bw.flo"
expect "fb-check inconsistent" 0 out "^inconsistent: 1 \(\|f \+ b\| > 1 px\)" "$FT" fb-check "$T/fw.flo" "$T/bw.flo"
expect "fb-check outside" 0 out "^outside: 1 " "$FT" fb-check "$T/fw.flo" "$T/bw.flo"
expect "fb-check threshold boundary" 0 out "^kept: 2 of 3 pixels" "$FT" fb-check -t 2 "$T/fw.flo" "$T/bw.flo"
expect "fb-check -o" 0 out "^density: 33.33%" "$FT" fb-check --threshold 1 -o "$T/fwc.flo" "$T/fw.flo" "$T/bw.flo"
expect "fb-check output has unknowns" 0 out "^unknown: 2 \(66.67%\)" "$FT" info "$T/fwc.flo"
# pixel 0 kept as it was (1, 0), pixels 1 and 2 the unknown marker 1e10
if [ "$(tail -c 24 "$T/fwc.flo" | od -An -tx1 | tr -d ' \n')" = \
     "0000803f00000000f9021550f9021550f9021550f9021550" ]; then ok
else bad "fb-check -o values: $(tail -c 24 "$T/fwc.flo" | od -An -tx1)"; fi
expect "fb-check output drawn" 0 out EMPTY "$FT" color "$T/fwc.flo" "$T/fwc.ppm"
# (1, 0) at scale 1 is red, the unknowns black
if [ "$(tail -c 9 "$T/fwc.ppm" | od -An -tx1 | tr -d ' \n')" = "ff0000000000000000" ]; then ok
else bad "fb-check unknowns not black: $(tail -c 9 "$T/fwc.ppm" | od -An -tx1)"; fi
expect "fb-check .F output" 0 out "density" "$FT" fb-check -o "$T/fwc.F" "$T/fw.flo" "$T/bw.flo"
expect "fb-check .F unknowns" 0 out "^unknown: 2 " "$FT" info "$T/fwc.F"
expect "fb-check zero threshold" 1 err "fb-check: --threshold: 0 is out of range" \
    "$FT" fb-check -t 0 "$T/fw.flo" "$T/bw.flo"
expect "fb-check negative threshold" 1 err "fb-check: --threshold: -1 is out of range" \
    "$FT" fb-check -t -1 "$T/fw.flo" "$T/bw.flo"
expect "fb-check words threshold" 1 err "fb-check: --threshold: 'one' is not a finite number" \
    "$FT" fb-check -t one "$T/fw.flo" "$T/bw.flo"
expect "fb-check size mismatch" 2 err "forward flow .*fw.flo is 3x1 but the backward flow .*small.flo is 2x1: sizes must match" \
    "$FT" fb-check -o "$T/x.flo" "$T/fw.flo" "$T/small.flo"
expect "fb-check bad backward" 2 err "trunc.flo: truncated" "$FT" fb-check "$T/fw.flo" "$T/trunc.flo"
if [ ! -e "$T/x.flo" ]; then ok; else bad "a failed fb-check left an output"; fi

# ---- color, legend, blend ----------------------------------------------------------
# 2x1 (1,0) (0,0), scale 1: red then white
expect "color ppm" 0 out EMPTY "$FT" color "$T/small.flo" "$T/small.ppm"
if [ "$(od -An -tx1 "$T/small.ppm" | tr -d ' \n')" = "50360a3220310a3235350affff0000ffffff" ] || \
   [ "$(tail -c 6 "$T/small.ppm" | od -An -tx1 | tr -d ' \n')" = "ff0000ffffff" ]; then ok
else bad "color pixels: $(od -An -tx1 "$T/small.ppm")"; fi
# --max 2: half saturation red (255, 128, 128); unknown black
expect "color --max" 0 out "scale: 2 px" "$FT" color -v --max 2 "$T/unk.flo" "$T/unk.ppm"
if [ "$(tail -c 6 "$T/unk.ppm" | od -An -tx1 | tr -d ' \n')" = "ff8080000000" ]; then ok
else bad "color --max/unknown pixels: $(tail -c 6 "$T/unk.ppm" | od -An -tx1)"; fi
expect "color png" 0 out EMPTY "$FT" color --legend "$T/est.flo" "$T/est.png"
if [ "$(head -c 4 "$T/est.png" | od -An -c | tr -d ' \n')" = '211PNG' ]; then ok
else bad "color --legend did not write a PNG"; fi
expect "color --legend --border" 0 out EMPTY "$FT" color --legend --border 3 "$T/est.flo" "$T/b.ppm"
if head -c 11 "$T/b.ppm" | grep -q '^8 8$'; then ok; else bad "legend border 3 on 2x2 is not 8x8"; fi
expect "color --border without --legend" 1 err "border needs --legend" "$FT" color --border 3 "$T/est.flo" "$T/x.png"
expect "color --max negative" 1 err "color: --max: -1 is out of range" "$FT" color --max -1 "$T/est.flo" "$T/x.png"
expect "color --max words" 1 err "color: --max: 'big' is not a finite number" "$FT" color --max big "$T/est.flo" "$T/x.png"
expect "color --max nan" 1 err "is not a finite number" "$FT" color --max nan "$T/est.flo" "$T/x.png"
expect "color bad input" 2 err "trunc.flo: truncated" "$FT" color "$T/trunc.flo" "$T/x.png"
expect "color bad output" 2 err "x.unknownext" "$FT" color "$T/est.flo" "$T/x.unknownext"
if [ ! -e "$T/x.png" ]; then ok; else bad "failed color left an output"; fi
expect "legend" 0 out EMPTY "$FT" legend --size 64 "$T/legend.ppm"
if head -c 13 "$T/legend.ppm" | grep -q '^64 64$'; then ok; else bad "legend is not 64x64"; fi
expect "legend bad size" 1 err "legend: --size: 8 is out of range \(expected 32 to 4096\)" "$FT" legend --size 8 "$T/l.png"
# blend: frame 100, colour (255,0,0)/(255,255,255), alpha 0.5
flo "$I2" "$I2" "$F1$F0" "$F0$F0" "$F0$F0" "$F0$F0" >"$T/small2.flo"
expect "blend" 0 out EMPTY "$FT" blend --alpha 0.5 "$T/frame.pgm" "$T/small2.flo" "$T/bl.ppm"
if [ "$(tail -c 12 "$T/bl.ppm" | od -An -tx1 | tr -d ' \n')" = "b23232b2b2b2b2b2b2b2b2b2" ]; then ok
else bad "blend pixels: $(tail -c 12 "$T/bl.ppm" | od -An -tx1)"; fi
expect "blend size mismatch" 2 err "frame .*frame3.pgm is 3x3 but the flow .*small2.flo is 2x2" \
    "$FT" blend "$T/frame3.pgm" "$T/small2.flo" "$T/bl2.ppm"
expect "blend bad alpha" 1 err "blend: --alpha: 2 is out of range \(expected 0 to 1\)" \
    "$FT" blend --alpha 2 "$T/frame.pgm" "$T/small2.flo" "$T/bl2.ppm"
expect "blend missing frame" 2 err "noframe.png" "$FT" blend "$T/noframe.png" "$T/small2.flo" "$T/bl2.ppm"

# ---- video: colour codings as frames ------------------------------------------------
# est.flo's largest length is 5 (3, 4), gt.flo's sqrt 2: one scale, 5
expect "video" 0 out "^scale: 5 px" "$FT" video -v --fps 25 "$T/est.flo" "$T/gt.flo" "$T/v.y4m"
Y4M_HEAD='YUV4MPEG2 W2 H2 F25:1 Ip A1:1 C444 XCOLORRANGE=FULL'
check "video: the y4m header" '[ "$(head -n 1 "$T/v.y4m")" = "$Y4M_HEAD" ]'
check "video: two frames of 2x2 in 4:4:4" \
    '[ "$(wc -c <"$T/v.y4m")" -eq $((${#Y4M_HEAD} + 1 + 2 * (6 + 3 * 4))) ]'
expect "video of flows of two sizes" 2 err "small.flo is 2x1 but .*est.flo is 2x2" \
    "$FT" video "$T/est.flo" "$T/small.flo" "$T/v2.y4m"
check "failed video left no output" '[ ! -e "$T/v2.y4m" ]'
expect "video bad fps" 1 err "video: --fps: 0 is out of range" "$FT" video --fps 0 "$T/est.flo" "$T/v2.y4m"
expect "color --exact with --legend" 1 err "give one of --exact and --legend" \
    "$FT" color --exact --legend "$T/est.flo" "$T/x.ppm"
expect "color --exact" 0 out "^scale: 5 px" "$FT" color -v --exact "$T/est.flo" "$T/ce.ppm"

# ---- vectors and mix -------------------------------------------------------------
# est.flo is 2x2: the automatic step is 8 (the least), the grid's one point
# (0, 0) holds (1, 0): the longest arrow, 0.9 * 8 px long: scale 7.2
expect "vectors" 0 out "^step: 8 px" "$FT" vectors -v "$T/est.flo" "$T/v.ppm"
expect "vectors automatic scale" 0 out "^scale: 7.2 " "$FT" vectors -v "$T/est.flo" "$T/v.ppm"
check "vectors: an arrow drawn on white" '[ "$(tail -c 12 "$T/v.ppm" | od -An -tx1 | tr -d " \n")" != ffffffffffffffffffffffff ]'
expect "vectors --direct (no effect)" 0 out EMPTY "$FT" vectors --direct "$T/est.flo" "$T/vd.ppm"
check "vectors --direct draws the same" 'cmp -s "$T/v.ppm" "$T/vd.ppm"'
expect "vectors without gnuplot on PATH" 0 out EMPTY env PATH=/nonexistent "$FT" vectors "$T/est.flo" "$T/v2.ppm"
check "vectors: the same whatever PATH holds" 'cmp -s "$T/v.ppm" "$T/v2.ppm"'
expect "vectors --max: a motion of 2 px is 0.9 step" 0 out "^scale: 3.6 " "$FT" vectors -v --max 2 "$T/est.flo" "$T/vm.ppm"
expect "vectors --step" 0 out "^scale: 1.8 " "$FT" vectors -v --step 2 "$T/est.flo" "$T/vs.ppm"
expect "vectors zoom" 0 out "^step: 8 px" "$FT" vectors -v --zoom 3 "$T/est.flo" "$T/v3.ppm"
if head -c 9 "$T/v3.ppm" | grep -q '^6 6$'; then ok; else bad "vectors --zoom 3 of 2x2 is not 6x6"; fi
expect "vectors background" 0 out EMPTY "$FT" vectors --background "$T/frame.pgm" "$T/est.flo" "$T/vb.ppm"
check "vectors: over a frame, yellow outlined in black" '! cmp -s "$T/v.ppm" "$T/vb.ppm"'
expect "vectors background mismatch" 2 err "background .*frame3.pgm is 3x3 but the flow .*est.flo is 2x2" \
    "$FT" vectors --background "$T/frame3.pgm" "$T/est.flo" "$T/vb.ppm"
expect "vectors bad step" 1 err "vectors: --step: 0 is out of range" "$FT" vectors --step 0 "$T/est.flo" "$T/x.ppm"
expect "vectors bad colour" 1 err "vectors: --arrow-color: '1,2' is not a list of 3" \
    "$FT" vectors --arrow-color 1,2 "$T/est.flo" "$T/x.ppm"
expect "vectors bad scale" 1 err "vectors: --scale: 'fast' is not a finite number" \
    "$FT" vectors --scale fast "$T/est.flo" "$T/x.ppm"
expect "vectors bad max" 1 err "vectors: --max: -2 is out of range" "$FT" vectors --max -2 "$T/est.flo" "$T/x.ppm"
expect "vectors --scale and --max" 1 err "give one of --scale and --max" \
    "$FT" vectors --scale 2 --max 3 "$T/est.flo" "$T/x.ppm"
check "failed vectors left no output" '[ ! -e "$T/x.ppm" ]'
# mix: the colour scale 5 is the arrows' too: 0.9 * 8 / 5
expect "mix" 0 out "^scale: 1.44 " "$FT" mix -v --max 5 "$T/est.flo" "$T/m.ppm"
expect "mix automatic" 0 out "^scale: 1.44 " "$FT" mix -v "$T/est.flo" "$T/m2.ppm"
expect "mix bad input" 2 err "huge.flo: header claims 100000x100000" "$FT" mix "$T/huge.flo" "$T/m2.ppm"
expect "mix --background is vectors'" 1 err "mix: unknown option '--background'" \
    "$FT" mix --background "$T/frame.pgm" "$T/est.flo" "$T/x.ppm"

# ---- color --scale-label ------------------------------------------------------------
# On 2x2 the automatic frame (6 px) is widened to the label's least, 11:
# 24x24; the label changes the picture's bottom frame only.
expect "color --scale-label" 0 out "^scale: 5 px" "$FT" color -v --scale-label "$T/est.flo" "$T/sl.ppm"
if head -c 11 "$T/sl.ppm" | grep -q '^24 24$'; then ok; else bad "scale label frame on 2x2 is not 11 px"; fi
expect "color --legend --border 11" 0 out EMPTY "$FT" color --legend --border 11 "$T/est.flo" "$T/sl0.ppm"
check "the label is drawn" '! cmp -s "$T/sl.ppm" "$T/sl0.ppm"'
# (its plate is 11 rows high from row 13; the header "P6\n24 24\n255\n" 13 bytes)
check "the label only in the bottom frame (the first 13 rows equal)" \
    '[ "$(head -c $((13 + 13 * 24 * 3)) "$T/sl.ppm" | od -An -tx1)" = "$(head -c $((13 + 13 * 24 * 3)) "$T/sl0.ppm" | od -An -tx1)" ]'
expect "color --scale-label --border 20" 0 out EMPTY "$FT" color -L --border 20 "$T/est.flo" "$T/sl2.ppm"
if head -c 11 "$T/sl2.ppm" | grep -q '^42 42$'; then ok; else bad "scale label with border 20 is not 42x42"; fi
expect "color --scale-label, frame too narrow" 1 err "color: --border 5 is too narrow for --scale-label \(at least 11\)" \
    "$FT" color --scale-label --border 5 "$T/est.flo" "$T/x.ppm"
check "no output from a refused label" '[ ! -e "$T/x.ppm" ]'

# ---- montage -------------------------------------------------------------------------
# est.flo against gt.flo: AEE 1.5, AAE 30.922517 (above).  Four 2x2 panels,
# text factor 1: gap 4, labels 11 high: 4 + 4 (2 + 4) = 28 wide, 4 + 11 + 2
# + 4 = 21 high.
expect "montage with ground truth" 0 out "^AEE 1.500 px  AAE 30.92 deg$" \
    "$FT" montage -v --gt "$T/gt.flo" "$T/est.flo" "$T/mo.ppm"
expect "montage layout" 0 out "^montage: 28x21, 4 panels in 4 columns$" \
    "$FT" montage -v --gt "$T/gt.flo" "$T/est.flo" "$T/mo.ppm"
if head -c 11 "$T/mo.ppm" | grep -q '^28 21$'; then ok; else bad "montage is not 28x21"; fi
# the caption's figures are flow-tool error's, rounded
want=$("$FT" error "$T/est.flo" "$T/gt.flo" | awk '/^AAE:/ { aae = $2 } /^AEE:/ { aee = $2 } END { printf "AEE %.3f px  AAE %.2f deg", aee, aae }')
expect "montage: the figures of flow-tool error ($want)" 0 out "^$want\$" "$FT" montage -v --gt "$T/gt.flo" "$T/est.flo" "$T/mo.ppm"
expect "montage: the colour scale is the ground truth's" 0 out "^colour scale: 1.41421 px" \
    "$FT" montage -v --gt "$T/gt.flo" "$T/est.flo" "$T/mo.ppm"
# the estimate's 5 px vector is longer than the scale (the ground truth's
# 1.41 px): its panel says what its darker colours mean; the ground truth's
# needs no such note, unless --max is shorter than its own vectors
expect "montage: the darker colours explained" 0 out "^est\.flo: darker: longer than 1\.41 px$" \
    "$FT" montage -v --gt "$T/gt.flo" "$T/est.flo" "$T/mo.ppm"
check "montage: no note on the ground truth within the scale" \
    '! "$FT" montage -v --gt "$T/gt.flo" "$T/est.flo" "$T/mo.ppm" | grep -q "^ground truth: darker"'
check "montage: no note on an estimate within the scale" \
    '! "$FT" montage -v --gt "$T/est.flo" "$T/gt.flo" "$T/mo.ppm" | grep -q "darker"'
expect "montage --max: both panels explained" 0 out "^ground truth: darker: longer than 1 px$" \
    "$FT" montage -v --max 1 --gt "$T/gt.flo" "$T/est.flo" "$T/mo.ppm"
expect "montage: error scale" 0 out "^error scale: 2 px" \
    "$FT" montage -v --gt "$T/gt.flo" --error-max 2 "$T/est.flo" "$T/mo2.ppm"
expect "montage with a mask" 0 out "^AEE 2.000 px  AAE 41.23 deg$" \
    "$FT" montage -v --gt "$T/gt.flo" --mask "$T/mask.pgm" "$T/est.flo" "$T/mo3.ppm"
expect "montage --kitti-error: a fifth panel, half the panels a row" 0 out "^montage: 22x38, 5 panels in 3 columns$" \
    "$FT" montage -v --kitti-error --gt "$T/gt.flo" "$T/est.flo" "$T/mk.ppm"
expect "montage --kitti-error needs --gt" 1 err "montage: --kitti-error needs --gt" \
    "$FT" montage --kitti-error "$T/est.flo" "$T/x.ppm"
expect "montage without ground truth" 0 out "^montage: 16x21, 2 panels in 2 columns$" \
    "$FT" montage -v "$T/est.flo" "$T/mn.png"
check "montage PNG" 'is_png "$T/mn.png"'
# cells as large as the 3x3 picture: 4 + 4 (3 + 4) = 32 by 4 + 11 + 3 + 4 = 22
expect "montage: frame, colour, vectors, a picture" 0 out "^montage: 32x22, 4 panels in 4 columns$" \
    "$FT" montage -v --frame "$T/frame.pgm" --panel "tracks=$T/frame3.pgm" "$T/est.flo" "$T/mf.ppm"
# occlusion mask and confidence map: a panel each after the vectors.  With
# ground truth and the frame, 7 panels of 2x2 in ceil(7 / 2) = 4 columns:
# 4 + 4 (2 + 4) = 28 by 4 + 2 (11 + 2 + 4) = 38; the second row's 3 panels
# centred, (28 - 8 - (3 (2 + 4) - 4)) / 2 = 3 px in: the occlusion panel's
# pixels at x 13..14, the confidence's at 19..20, rows 32..33 (PPM header
# "P6\n28 38\n255\n", 13 bytes).  Pixel (0, 1) of occ.pgm is occluded:
# 0.35 100 + 0.65 (255, 0, 0) = (201, 35, 35) rounded; the others are the
# frame's 100 at half, 50.  conf-good.pgm's grey levels 10, 20, 0, 30 are
# drawn as themselves (no key fits 2x2).
expect "montage with occlusion and confidence" 0 out "^montage: 28x38, 7 panels in 4 columns$" \
    "$FT" montage -v --gt "$T/gt.flo" --frame "$T/frame.pgm" --occlusion "$T/occ.pgm" \
    --confidence "$T/conf-good.pgm" "$T/est.flo" "$T/moc.ppm"
px() { od -An -tu1 -j $((13 + ($2 * 28 + $1) * 3)) -N 3 "$T/moc.ppm" | tr -s ' ' | sed 's/^ //;s/ $//'; }
check "montage: the mask over the frame" \
    '[ "$(px 13 32)" = "50 50 50" ] && [ "$(px 14 32)" = "50 50 50" ] && [ "$(px 13 33)" = "201 35 35" ] && [ "$(px 14 33)" = "50 50 50" ]'
check "montage: the confidence in grey" \
    '[ "$(px 19 32)" = "10 10 10" ] && [ "$(px 20 32)" = "20 20 20" ] && [ "$(px 19 33)" = "0 0 0" ] && [ "$(px 20 33)" = "30 30 30" ]'
expect "montage: the mask's share (its label)" 0 out "^occlusion: 1 of 4 pixels \(25.0%\)$" \
    "$FT" montage -v --occlusion "$T/occ.pgm" "$T/est.flo" "$T/moc2.ppm"
expect "montage: the map's mean (its label), 15 / 255" 0 out "^confidence: mean 0.059$" \
    "$FT" montage -v --confidence "$T/conf-good.pgm" "$T/est.flo" "$T/moc2.ppm"
expect "montage: occlusion and confidence without a frame, 4 panels in a row" 0 out \
    "^montage: 28x21, 4 panels in 4 columns$" \
    "$FT" montage -v --occlusion "$T/occ.pgm" --confidence "$T/conf-bad.pgm" "$T/est.flo" "$T/moc3.ppm"
check "  the mask over mid-grey: (0.35 + 0.65) 255, 0.35 255 at (16, 16)" \
    '[ "$(od -An -tu1 -j $((13 + (16 * 28 + 16) * 3)) -N 3 "$T/moc3.ppm" | tr -s " " | sed "s/^ //;s/ \$//")" = "255 89 89" ]'
expect "montage: confidence alone, 3 panels" 0 out "^montage: 22x21, 3 panels in 3 columns$" \
    "$FT" montage -v --confidence "$T/conf-good.pgm" "$T/est.flo" "$T/moc4.ppm"
printf 'P6\n2 2\n255\n\001\002\003\004\005\006\007\010\011\012\013\014' >"$T/rgb.ppm"
expect "montage: an occlusion mask of another size" 2 err "occlusion mask .*mask3.pgm is 3x3 with 1 channel: expected one grey channel of 2x2" \
    "$FT" montage --occlusion "$T/mask3.pgm" "$T/est.flo" "$T/x.ppm"
expect "montage: a confidence map of three channels" 2 err "confidence map .*rgb.ppm is 2x2 with 3 channels: expected one grey channel of 2x2" \
    "$FT" montage --confidence "$T/rgb.ppm" "$T/est.flo" "$T/x.ppm"
expect "montage: a missing occlusion mask" 2 err "nosuch-occ.png" \
    "$FT" montage --occlusion "$T/nosuch-occ.png" "$T/est.flo" "$T/x.ppm"
expect "montage: a missing confidence map" 2 err "nosuch-conf.pfm" \
    "$FT" montage --confidence "$T/nosuch-conf.pfm" "$T/est.flo" "$T/x.ppm"
check "montage: no output from a refused mask or map" '[ ! -e "$T/x.ppm" ]'
# one column 4 + 2 + 4 = 10 wide; the title at factor 1 (all it can shrink),
# 11 high: 4 + 11 + 4 (11 + 2 + 4) = 83
expect "montage --columns, a title" 0 out "^montage: 10x83, 4 panels in 1 columns$" \
    "$FT" montage -v --columns 1 --title "pair 000" --label hs --gt "$T/gt.flo" "$T/est.flo" "$T/mc.ppm"
expect "montage --mask needs --gt" 1 err "montage: --mask needs --gt" "$FT" montage --mask "$T/mask.pgm" "$T/est.flo" "$T/x.ppm"
expect "montage --error-max needs --gt" 1 err "montage: --error-max needs --gt" "$FT" montage --error-max 2 "$T/est.flo" "$T/x.ppm"
expect "montage bad columns" 1 err "montage: --columns: 0 is out of range" "$FT" montage --columns 0 "$T/est.flo" "$T/x.ppm"
expect "montage bad max" 1 err "montage: --max: 'wide' is not a finite number" "$FT" montage --max wide "$T/est.flo" "$T/x.ppm"
expect "montage: a panel without a picture" 1 err "montage: --panel 'tracks=' names no picture" \
    "$FT" montage --panel "tracks=" "$T/est.flo" "$T/x.ppm"
expect "montage: too many panels" 1 err "montage: more than 8 --panel pictures" \
    "$FT" montage $(for i in 1 2 3 4 5 6 7 8 9; do printf -- '--panel %s ' "$T/frame.pgm"; done) "$T/est.flo" "$T/x.ppm"
expect "montage: ground truth of another size" 2 err "ground truth .*small.flo is 2x1 but the estimate .*est.flo is 2x2" \
    "$FT" montage --gt "$T/small.flo" "$T/est.flo" "$T/x.ppm"
expect "montage: frame of another size" 2 err "frame .*frame3.pgm is 3x3 but the estimate .*est.flo is 2x2" \
    "$FT" montage --frame "$T/frame3.pgm" "$T/est.flo" "$T/x.ppm"
expect "montage: mask of another size" 2 err "mask .*mask3.pgm is 3x3 but the ground truth .*gt.flo is 2x2" \
    "$FT" montage --gt "$T/gt.flo" --mask "$T/mask3.pgm" "$T/est.flo" "$T/x.ppm"
expect "montage: NaN in the estimate" 2 err "est-nan.flo: estimate has a non-finite vector" \
    "$FT" montage --gt "$T/gt.flo" "$T/est-nan.flo" "$T/x.ppm"
expect "montage: nothing to score" 2 err "no pixel to score: of the 4 pixels, 4 have unknown ground truth in .*allnan.flo" \
    "$FT" montage --gt "$T/allnan.flo" "$T/est.flo" "$T/x.ppm"
expect "montage: a missing panel picture" 2 err "nosuch.png" "$FT" montage --panel "$T/nosuch.png" "$T/est.flo" "$T/x.ppm"
expect "montage: bad estimate" 2 err "trunc.flo: truncated" "$FT" montage "$T/trunc.flo" "$T/x.ppm"
expect "montage: bad output" 2 err "x.unknownext" "$FT" montage "$T/est.flo" "$T/x.unknownext"
check "failed montages left no output" '[ ! -e "$T/x.ppm" ] && [ ! -e "$T/x.unknownext" ]'

# ---- frames: a video's frames as images ---------------------------------------------
# A gray 2x2 YUV4MPEG2 stream of three frames (samples 10..13, 20..23, 30..33)
# and the PGM files its frames must give.
Y4M_HEAD='YUV4MPEG2 W2 H2 F25:1 Ip A1:1 Cmono XCOLORRANGE=FULL\n'
printf "${Y4M_HEAD}FRAME\n\012\013\014\015FRAME\n\024\025\026\027FRAME\n\036\037\040\041" >"$T/clip.y4m"
printf 'P5\n2 2\n255\n\012\013\014\015' >"$T/want0.pgm"
printf 'P5\n2 2\n255\n\036\037\040\041' >"$T/want2.pgm"
expect "frames: a .y4m" 0 out "^$T/clip.y4m: 3 frames of 2x2$" "$FT" frames "$T/clip.y4m" "$T/fr%d.pgm"
check "frames: frame 0 and 2 as they are in the video" \
    'cmp -s "$T/fr0.pgm" "$T/want0.pgm" && cmp -s "$T/fr2.pgm" "$T/want2.pgm" && [ -f "$T/fr1.pgm" ] && [ ! -e "$T/fr3.pgm" ]'
expect_full_stdout "frames to a full stdout" "$FT" frames "$T/clip.y4m" "$T/stdout%d.pgm"
expect "frames: --count and --first" 0 out ": 2 frames of 2x2$" "$FT" frames -n 2 --first 7 "$T/clip.y4m" "$T/n%02d.pgm"
check "frames: --count 2 --first 7 gives n07 and n08" \
    '[ "$(cd "$T" && ls n*.pgm | tr "\n" " ")" = "n07.pgm n08.pgm " ] && cmp -s "$T/n07.pgm" "$T/want0.pgm"'
expect "frames: from stdin" 0 out "^-: 3 frames of 2x2$" sh -c "\"$FT\" frames - \"$T/in%d.pgm\" <\"$T/clip.y4m\""
expect "frames: PNG" 0 out "3 frames" "$FT" frames "$T/clip.y4m" "$T/png%d.png"
check "frames: PNG images" 'is_png "$T/png0.png" && [ "$(png_size "$T/png2.png")" = "2 2" ]'
expect "frames: a pattern without its field" 1 err "PATTERN '.*one.pgm': expected one integer field" \
    "$FT" frames "$T/clip.y4m" "$T/one.pgm"
expect "frames: a bad pattern" 1 err "PATTERN .*expected one integer field" "$FT" frames "$T/clip.y4m" "$T/f%s.pgm"
expect "frames: --count 0" 1 err "count" "$FT" frames -n 0 "$T/clip.y4m" "$T/z%d.pgm"
expect "frames: no such video" 2 err "nosuch.y4m: cannot open" "$FT" frames "$T/nosuch.y4m" "$T/x%d.pgm"
expect "frames: no such directory" 2 err "nodir/x0.pgm: .*nodir" "$FT" frames "$T/clip.y4m" "$T/nodir/x%d.pgm"
printf "$Y4M_HEAD" >"$T/noframe.y4m"
expect "frames: a video without frames" 2 err "noframe.y4m: no frame to read" "$FT" frames "$T/noframe.y4m" "$T/e%d.pgm"
head -c $(($(size "$T/clip.y4m") - 2)) "$T/clip.y4m" >"$T/cut.y4m"
expect "frames: the last frame truncated" 2 err "cut.y4m: frame 2 is truncated" "$FT" frames "$T/cut.y4m" "$T/cut%d.pgm"
check "frames: after a failure, no image and no temporary" \
    '[ -z "$(ls "$T" | grep -e "^cut[0-9]" -e "^\.tmp-")" ]'

# ---- the evaluation data ---------------------------------------------------------
Y="$DATA/yosemite-clouds"
if [ -f "$Y/yos09-yos10.flo" ]; then
    expect "yosemite F" 0 out EMPTY "$FT" convert "$Y/yos09-yos10.flo" "$T/yos.F"
    expect "yosemite pcm" 0 out EMPTY "$FT" convert "$T/yos.F" "$T/yos.pcm"
    expect "yosemite back" 0 out EMPTY "$FT" convert "$T/yos.pcm" "$T/yos.flo"
    if cmp -s "$Y/yos09-yos10.flo" "$T/yos.flo"; then ok; else bad "Yosemite ground truth changed"; fi
    expect "yosemite self error" 0 out "^0,0,0,0,0,0,0,58911,79632,20721,0,0,0,0,0,0,,,,,,,,,0,,,,,,0,,,,,$" \
        "$FT" error --csv --mask "$Y/yos09-terrain-mask.png" "$T/yos.F" "$Y/yos09-yos10.flo"
    expect "yosemite blend" 0 out EMPTY "$FT" blend "$Y/yos09.png" "$Y/yos09-yos10.flo" "$T/yb.png"
else
    skip "evaluation data (yosemite) absent"
fi
R="$DATA/middlebury/RubberWhale/flow10.flo"
if [ -f "$R" ]; then
    expect "rubberwhale info" 0 out "^unknown: 3622 \(1.60%\)" "$FT" info "$R"
    expect "rubberwhale .F" 0 out EMPTY "$FT" convert "$R" "$T/rw.F"
    expect "rubberwhale .F unknown kept" 0 out "^unknown: 3622 " "$FT" info "$T/rw.F"
    expect "rubberwhale pcm" 0 out EMPTY "$FT" convert "$R" "$T/rw.pcm"
    expect "rubberwhale back" 0 out EMPTY "$FT" convert "$T/rw.pcm" "$T/rw.flo"
    if cmp -s "$R" "$T/rw.flo"; then ok; else bad "RubberWhale ground truth changed via .pcm"; fi
    expect "rubberwhale self error" 0 out "^0,0,0,0,0,0,0,222970,226592,0,3622,0,0,0,0,0,,,,,,,,,0,,,,,,0,,,,,$" \
        "$FT" error --csv "$T/rw.F" "$R"
    # 584x388 with its key frame (31 px) and scale label; a montage of 5
    # panels in 3 columns at text factor 2: 8 + 3 (584 + 8) = 1784 by
    # 8 + 2 (22 + 388 + 8) = 844
    expect "rubberwhale scale label" 0 out "^scale: 4.61568 px" "$FT" color -v --scale-label "$R" "$T/rw.png"
    check "rubberwhale scale label picture: 646x450" '[ "$(png_size "$T/rw.png")" = "646 450" ]'
    expect "rubberwhale montage against itself" 0 out "^AEE 0.000 px  AAE 0.00 deg$" \
        "$FT" montage -v --gt "$R" --frame "$(dirname "$R")/frame10.png" "$T/rw.F" "$T/rwm.png"
    check "rubberwhale montage: 1784x844" '[ "$(png_size "$T/rwm.png")" = "1784 844" ]'
else
    skip "evaluation data (RubberWhale) absent"
fi
K="$DATA/kitti2012/training/flow_noc/000045_10.png"
if [ -f "$K" ]; then
    expect "kitti info" 0 out "^size: 1241 x 376 \(466616 vectors\)$" "$FT" info "$K"
    expect "kitti format" 0 out "^format: .png \(KITTI 16-bit flow PNG\)$" "$FT" info "$K"
    expect "kitti -> pfm" 0 out EMPTY "$FT" convert "$K" "$T/kitti.pfm"
    expect "kitti self error through pfm" 0 out "^0,0,0,0,0,0,0,104330,466616,0,362286,0" \
        "$FT" error --csv "$T/kitti.pfm" "$K"
else
    skip "evaluation data (KITTI 2012) absent"
fi


# ---- warp, photo-error ----------------------------------------------------------
# frame 2, 4x1: 10 20 40 80; flow (0.5,0) (1,0) unknown (1,0): pixel 0 samples
# 15, pixel 1 40, pixel 2 has no flow, pixel 3 lands at x = 4, outside.
# frame 1: 15 30 0 0: photometric errors 0 and 10 where known (mean 5).
I4='\004\000\000\000' FH='\000\000\000\077' # 4, 0.5
flo "$I4" "$I1" "$FH$F0" "$F1$F0" "$FUNK$FUNK" "$F1$F0" >"$T/wflow.flo"
printf 'P5\n4 1\n255\n\012\024\050\120' >"$T/f2.pgm"
printf 'P5\n4 1\n255\n\017\036\000\000' >"$T/f1.pgm"
printf 'P5\n3 1\n255\n\012\024\050' >"$T/f2-small.pgm"
bytes() { tail -c "$1" "$2" | od -A n -t u1 | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'; }
expect "warp counts" 0 out "^warped: 2 of 4 pixels \(50.00%\)" "$FT" warp "$T/f2.pgm" "$T/wflow.flo" "$T/warped.pgm"
check "warp values, fill 0" '[ "$(bytes 4 "$T/warped.pgm")" = "15 40 0 0" ]'
expect "warp reasons" 0 out "^outside: 1 " "$FT" warp --fill 7 --mask "$T/wmask.pgm" "$T/f2.pgm" "$T/wflow.flo" "$T/warped7.pgm"
check "warp --fill" '[ "$(bytes 4 "$T/warped7.pgm")" = "15 40 7 7" ]'
check "warp --mask" '[ "$(bytes 4 "$T/wmask.pgm")" = "255 255 0 0" ]'
expect "warp unknown flow counted" 0 out "^unknown flow: 1$" "$FT" warp "$T/f2.pgm" "$T/wflow.flo" "$T/warped.pgm"
expect "warp size mismatch" 2 err "f2-small.pgm is 3x1 but the flow .*wflow.flo is 4x1" \
    "$FT" warp "$T/f2-small.pgm" "$T/wflow.flo" "$T/bad.pgm"
check "warp mismatch writes nothing" '[ ! -e "$T/bad.pgm" ]'
expect "warp bad fill" 1 err "fill" "$FT" warp --fill 300 "$T/f2.pgm" "$T/wflow.flo" "$T/bad.pgm"
expect "warp missing flow" 2 err "nothere.flo" "$FT" warp "$T/f2.pgm" "$T/nothere.flo" "$T/bad.pgm"
expect "photo-error mean" 0 out "^photometric error: mean 5.0000 grey levels \(of 0..255\) over 2 of 4 pixels" \
    "$FT" photo-error --max 20 "$T/f1.pgm" "$T/f2.pgm" "$T/wflow.flo" "$T/perr.ppm"
check "photo-error picture: black, grey 10/20, blue unknown" \
    '[ "$(bytes 12 "$T/perr.ppm")" = "0 0 0 128 128 128 0 0 255 0 0 255" ]'
expect "photo-error states its scale" 0 out "^picture: black 0, white 32 grey levels or more; blue: unknown \(1 unknown flow, 1 outside" \
    "$FT" photo-error "$T/f1.pgm" "$T/f2.pgm" "$T/wflow.flo" "$T/perr.ppm"
expect "photo-error frames differ" 2 err "f2-small.pgm is 3x1 but the flow" \
    "$FT" photo-error "$T/f1.pgm" "$T/f2-small.pgm" "$T/wflow.flo" "$T/bad.ppm"
expect "photo-error bad max" 1 err "max" "$FT" photo-error --max 0 "$T/f1.pgm" "$T/f2.pgm" "$T/wflow.flo" "$T/bad.ppm"
check "photo-error failures write nothing" '[ ! -e "$T/bad.ppm" ]'

# ---- matches over a frame: an 8x6 frame of grey 200 (drawn at half brightness, 100), a match
# to the right at (2, 2) (Middlebury red at full saturation), one of weight 0.5 and one of 0
printf 'P5\n8 6\n255\n' >"$T/mf.pgm"
head -c 48 /dev/zero | tr '\0' '\310' >>"$T/mf.pgm"
printf '# x y u v weight\n2 2 3 0 1\n\n5 4 -2 -1 0.5\n' >"$T/m.txt"
printf '1 1 0 0 0\n' >"$T/m0.txt"
expect "matches: drawn" 0 err EMPTY "$FT" matches "$T/mf.pgm" "$T/m.txt" "$T/m.ppm"
check "matches: the frame's size" '[ "$(head -c 11 "$T/m.ppm" | tr "\n" " ")" = "P6 8 6 255 " ] && [ "$(wc -c <"$T/m.ppm")" -eq $((11 + 8 * 6 * 3)) ]'
# pixel (x, y) of an 8-wide PPM: its R G B
px() { head -c $((11 + 3 * ($2 * 8 + $1) + 3)) "$3" | tail -c 3 | od -A n -t u1 | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'; }
check "matches: the start of the rightward match in red" '[ "$(px 2 2 "$T/m.ppm")" = "255 0 0" ]'
check "matches: the frame at half brightness away from the matches" '[ "$(px 7 0 "$T/m.ppm")" = "100 100 100" ]'
expect "matches: a match of weight 0 is not drawn" 0 err EMPTY "$FT" matches "$T/mf.pgm" "$T/m0.txt" "$T/m0.ppm"
check "matches: nothing drawn" '[ "$(tail -c 144 "$T/m0.ppm" | od -v -A n -t u1 | tr -s " \n" "\n" | grep -v "^$" | sort -u)" = 100 ]'
expect "matches: --all draws it" 0 err EMPTY "$FT" matches --all "$T/mf.pgm" "$T/m0.txt" "$T/m0a.ppm"
check "matches: --all, a white dot (zero motion)" '[ "$(px 1 1 "$T/m0a.ppm")" = "255 255 255" ]'
printf '2 2 3 0 1\n' >"$T/m1.txt"
expect "matches: by weight" 0 err EMPTY "$FT" matches --colour weight --width 2 "$T/mf.pgm" "$T/m1.txt" "$T/mw.ppm"
check "matches: weight 1 white on the hot ramp" '[ "$(px 2 2 "$T/mw.ppm")" = "255 255 255" ]'
printf '2 2 3 0 1\n2 2 3 0\n' >"$T/mbad.txt"
expect "matches: a short line named" 2 err "matches: .*mbad.txt:2: expected \"x y u v weight\"" \
    "$FT" matches "$T/mf.pgm" "$T/mbad.txt" "$T/mx.ppm"
printf '# c\n2 2 3 0 1\n9 1 0 0 1\n' >"$T/mout.txt"
expect "matches: a point outside the frame named with its line" 2 err "mout.txt:3: the point \(9, 1\) is outside the 8x6 frame" \
    "$FT" matches "$T/mf.pgm" "$T/mout.txt" "$T/mx.ppm"
printf '2 2 nan 0 1\n' >"$T/mnan.txt"
expect "matches: NaN named" 2 err "mnan.txt:1: expected finite numbers and a weight in \[0, 1\]" \
    "$FT" matches "$T/mf.pgm" "$T/mnan.txt" "$T/mx.ppm"
printf '# nothing\n' >"$T/mnone.txt"
expect "matches: an empty file" 2 err "mnone.txt: no matches in the file" "$FT" matches "$T/mf.pgm" "$T/mnone.txt" "$T/mx.ppm"
expect "matches: a missing file" 2 err "nothere.txt: No such file" "$FT" matches "$T/mf.pgm" "$T/nothere.txt" "$T/mx.ppm"
expect "matches: a missing frame" 2 err "nothere.pgm" "$FT" matches "$T/nothere.pgm" "$T/m.txt" "$T/mx.ppm"
expect "matches: a bad colouring" 1 err "--colour 'speed': flow or weight" "$FT" matches --colour speed "$T/mf.pgm" "$T/m.txt" "$T/mx.ppm"
check "matches: failures write nothing" '[ ! -e "$T/mx.ppm" ]'
expect "matches in --help" 0 out "^  matches F M OUT.png " "$FT" --help

harness_report
