#!/bin/sh
# flow_synth.sh -- CLI tests of flow-synth: frames, ground truth and .y4m
# video it writes (sizes, headers, the exact ground-truth values computed
# here from the motion's definition), determinism, and every bad-input case
# with its exit code and message.  Runs $BUILD/bin/flow-synth.
# Prints "N passed, N failed[, N skipped]".
. "$(dirname "$0")/../common/harness.sh" # BUILD, BIN, T, expect, ok, bad, skip, check, ...
FS="$BIN/flow-synth"
# f32 FILE OFFSET COUNT: float32 values (native order: x86 and ARM are little-endian)
f32() { od -A n -t f4 -j "$2" -N $(($3 * 4)) "$1" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//'; }
# near A B TOL: |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

harness_need_bins "$FS"
cd "$T" || exit 1

# ---- help and version ----------------------------------------------------------
expect "help" 0 out "^Usage: flow-synth" "$FS" --help
expect "help defaults" 0 out "--scale S .*\[1\.02\]" "$FS" --help
expect "help exit codes" 0 out "Exit status: 0 ok, 1 usage, 2 input/output" "$FS" --help
expect "version" 0 out "^video writers: y4m" "$FS" --version
# one --version format for every tool: its first line "NAME X.Y.Z (libflow X.Y.Z)", then
# the backends and OpenCV
for tool in flow-compute flow-tool flow-synth flow-track; do
    [ -x "$BIN/$tool" ] || continue
    first=$("$BIN/$tool" --version | sed -n 1p)
    check "$tool --version: '$first'" \
        'printf "%s" "$first" | grep -Eq "^$tool [0-9]+\.[0-9]+\.[0-9]+ \(libflow [0-9]+\.[0-9]+\.[0-9]+\)$" &&
         "$BIN/$tool" --version | grep -q "^backends: cpu" && "$BIN/$tool" --version | grep -q "^OpenCV: "'
done

expect "rotozoom" 0 err EMPTY "$FS" -m rotozoom --angle 3 --scale 1.05 --coarse 2 -s 32x24 -n 2 \
    -o "rz%d.png" --gt "rz%d.flo"
check "rotozoom written" '[ -f rz0.png ] && [ -f rz1.png ] && is_flo rz0.flo 32 24'
expect "coarse out of range" 1 err "--coarse: 0 is out of range" "$FS" --coarse 0 -o x.png
expect "angle not for zoom" 1 err "--angle" "$FS" -m zoom --angle 3 -o x.png

# ---- frames and ground truth -------------------------------------------------------
expect "translate" 0 err EMPTY "$FS" -m translate --dx 1.5 --dy -0.25 -s 24x16 -n 3 \
    -o "f%02d.png" --gt "g%d.flo"
check "frames written" '[ -f f00.png ] && [ -f f01.png ] && [ -f f02.png ] && [ ! -f f03.png ]'
check "frames are PNG" 'is_png f00.png'
check "pairs written" '[ -f g0.flo ] && [ -f g1.flo ] && [ ! -f g2.flo ]'
check "flo size" '[ "$(size g0.flo)" -eq $((12 + 24 * 16 * 8)) ]'
check "flo header" 'is_flo g0.flo 24 16'
check "translation ground truth" '[ "$(f32 g1.flo 12 2)" = "1.5 -0.25" ]'
last=$((12 + (24 * 16 - 1) * 8))
check "translation everywhere" '[ "$(f32 g1.flo $last 2)" = "1.5 -0.25" ]'

# rotation: u = cx + c (x - cx) - s (y - cy) - x, v = cy + s (x - cx) + c (y - cy) - y
expect "rotate" 0 err EMPTY "$FS" -m rotate --angle 3 -s 20x10 -n 2 --gt rot.flo
read -r u v <<EOF
$(f32 rot.flo 12 2)
EOF
eu=$(awk 'BEGIN { a = 3 * atan2(0, -1) / 180; cx = 9.5; cy = 4.5;
                  printf "%.6f", cx + cos(a) * (0 - cx) - sin(a) * (0 - cy) - 0 }')
ev=$(awk 'BEGIN { a = 3 * atan2(0, -1) / 180; cx = 9.5; cy = 4.5;
                  printf "%.6f", cy + sin(a) * (0 - cx) + cos(a) * (0 - cy) - 0 }')
check "rotation ground truth at (0,0)" 'near "$u" "$eu" 1e-5 && near "$v" "$ev" 1e-5'

# zoom: (s - 1)(x - cx) at the last pixel (19, 9)
expect "zoom" 0 err EMPTY "$FS" -m zoom --scale 1.1 -s 20x10 -n 2 --gt zoom.flo
check "zoom ground truth" 'near "$(f32 zoom.flo $((12 + 199 * 8)) 1)" 0.95 1e-5'

# object: the disc centre moves by (odx, ody), a corner by (dx, dy)
expect "object" 0 err EMPTY "$FS" -m object --dx 0 --dy 0 --odx 2 --ody -1 --radius 5 \
    -s 21x21 -n 2 --gt obj.flo
check "object: disc" '[ "$(f32 obj.flo $((12 + (10 * 21 + 10) * 8)) 2)" = "2 -1" ]'
check "object: background" '[ "$(f32 obj.flo 12 2)" = "0 0" ]'

expect "smooth" 0 err EMPTY "$FS" -m smooth --amplitude 1 --wavelength 16 -s 32x16 -n 2 \
    --gt sm.flo
check "smooth: bounded by the amplitude" "$(f32 sm.flo 12 512 | awk '{ for (i = 1; i <= NF; i++) if ($i > 1.001 || $i < -1.001) bad = 1 } END { print bad ? "false" : "true" }')"

# --first, plain names for one file, determinism and the seed
expect "first" 0 err EMPTY "$FS" -s 8x8 -n 2 --first 7 -o "s%d.pgm"
check "first names" '[ -f s7.pgm ] && [ -f s8.pgm ] && [ ! -f s0.pgm ]'
check "pgm header" '[ "$(head -c 2 s7.pgm)" = P5 ]'
expect "plain name for one frame" 0 err EMPTY "$FS" -s 8x8 -n 1 -o one.png
check "plain name written" '[ -f one.png ]'
"$FS" -s 16x16 -n 2 -o "a%d.png" --seed 5 && "$FS" -s 16x16 -n 2 -o "b%d.png" --seed 5 \
    && "$FS" -s 16x16 -n 2 -o "c%d.png" --seed 6
check "same seed, same frames" 'cmp -s a1.png b1.png'
check "other seed, other frames" '! cmp -s a1.png c1.png'
expect "color frames" 0 err EMPTY "$FS" -s 8x6 -n 2 --color -o "rgb%d.ppm"
check "ppm header" '[ "$(head -c 2 rgb0.ppm)" = P6 ]'

# ---- video ---------------------------------------------------------------------------
expect "y4m mono" 0 err EMPTY "$FS" -s 10x6 -n 3 --video v.y4m --fps 30
check "y4m header" '[ "$(head -n 1 v.y4m)" = "YUV4MPEG2 W10 H6 F30:1 Ip A1:1 Cmono XCOLORRANGE=FULL" ]'
hdr=$(head -n 1 v.y4m | wc -c)
check "y4m size: 3 frames" '[ "$(size v.y4m)" -eq $((hdr + 3 * (6 + 60))) ]'
"$FS" -s 10x6 -n 3 -o "vf%d.pgm"
# the Y plane of frame 2 is the PGM's samples (both 8-bit, rounded the same way)
check "y4m frame = pgm frame" '[ "$(tail -c 60 v.y4m | od -A n -t u1)" = "$(tail -c 60 vf2.pgm | od -A n -t u1)" ]'
expect "y4m colour" 0 err EMPTY "$FS" -s 10x6 -n 2 --color --video c.y4m --fps 29.97
check "y4m colour header" '[ "$(head -n 1 c.y4m)" = "YUV4MPEG2 W10 H6 F2997:100 Ip A1:1 C444 XCOLORRANGE=FULL" ]'
hdr=$(head -n 1 c.y4m | wc -c)
check "y4m colour size" '[ "$(size c.y4m)" -eq $((hdr + 2 * (6 + 180))) ]'
if "$BIN/flow-compute" --version 2>/dev/null | grep -q "^OpenCV: yes"; then
    expect "avi through OpenCV" 0 err EMPTY "$FS" -s 32x24 -n 3 --video v.avi
    check "avi written" '[ -s v.avi ]'
else
    expect "avi without OpenCV" 2 err "OpenCV" "$FS" -s 32x24 -n 3 --video v.avi
    check "no half avi" '[ ! -e v.avi ]'
fi

# ---- bad input -----------------------------------------------------------------------
expect "unknown motion" 1 err "--motion: unknown motion 'spin'" "$FS" -m spin -o x%d.png
expect "option of another motion" 1 err "--angle does not apply to --motion translate" \
    "$FS" --angle 3 -o "x%d.png"
expect "bad size" 1 err "--size: '64by48' is not WIDTHxHEIGHT" "$FS" -s 64by48 -o "x%d.png"
expect "size out of range" 1 err "--size width: 0 is out of range" "$FS" -s 0x48 -o "x%d.png"
expect "bad number" 1 err "--dx: 'abc' is not a finite number" "$FS" --dx abc -o "x%d.png"
expect "scale out of range" 1 err "--scale: -2 is out of range" "$FS" -m zoom --scale -2 \
    -o "x%d.png"
expect "nothing to write" 1 err "nothing to write" "$FS" -s 8x8
expect "one name, several frames" 1 err "names one file but 3 are written" "$FS" -n 3 -o x.png
expect "bad pattern" 1 err "is not a name pattern" "$FS" -n 3 -o "x%s.png"
expect "gt needs a pair" 1 err "--gt needs at least 2 frames" "$FS" -n 1 --gt "g%d.flo"
expect "gt extension" 1 err "no flow extension \(expected .flo, .F, .pcm, .pfm or .png\)" \
    "$FS" -n 2 --gt "g%d.txt"
expect "version names the flow formats" 0 out "^flow formats: .flo, .F, .pcm, .pfm or .png$" "$FS" --version
# the translation (1, 0.5) is on KITTI's 1/64 grid: the same through .png and .pfm
expect "gt as KITTI png" 0 err EMPTY "$FS" -s 8x6 --gt k.png
expect "gt as pfm" 0 err EMPTY "$FS" -s 8x6 --gt k.pfm
if [ -x "$BIN/flow-tool" ]; then
    expect "KITTI gt read back" 0 out "^u range: 1 \.\. 1$" "$BIN/flow-tool" info k.png
    expect "pfm gt read back" 0 out "^v range: 0.5 \.\. 0.5$" "$BIN/flow-tool" info k.pfm
else
    skip "gt formats read back (flow-tool not built)"
fi
expect "colour pgm" 1 err "PGM holds gray frames" "$FS" -n 2 --color -o "x%d.pgm"
expect "unknown option" 1 err "unknown option '--frobnicate'" "$FS" --frobnicate
expect "missing value" 1 err "needs a value" "$FS" -o
expect "unwritable frames" 2 err "nonexistent-dir/x0.png" "$FS" -s 8x8 -n 2 \
    -o "nonexistent-dir/x%d.png"
expect "unwritable video" 2 err "nonexistent-dir/v.y4m" "$FS" -s 8x8 -n 2 \
    --video nonexistent-dir/v.y4m

harness_report
