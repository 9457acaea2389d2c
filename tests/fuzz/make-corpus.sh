#!/bin/sh
# make-corpus.sh BIN OUT -- the seed inputs of the fuzz harnesses, one
# directory per target under OUT, made by the project's tools in BIN
# (flow-synth, flow-compute) and, for variants the tools do not write
# (ASCII and 16-bit PGM/PPM, other .y4m colour spaces, a big-endian PFM),
# by printf here.
# Small on purpose: libFuzzer mutates small inputs fastest.
set -eu
bin=$(cd "$1" && pwd) out=$2
S="$bin/flow-synth" C="$bin/flow-compute"
cd "$out"
mkdir -p flo barron pcm pfm kitti params pnm png y4m frames

# flow files: the exact flow of each motion of flow-synth, in every format
for m in translate rotate zoom rotozoom smooth object; do
    for f in "flo/$m.flo" "barron/$m.F" "pcm/$m.pcm" "pfm/$m.pfm" "kitti/$m.png"; do
        "$S" -q -m "$m" -s 8x6 --gt "$f"
    done
done
# a big-endian PFM (positive scale) of 2x1 pixels, a third channel of 1
one='\077\200\000\000' two='\100\000\000\000'
printf "PF\n2 1\n1.0\n$one$two$one$two$one$one" >pfm/big-endian.pfm
# a .F whose 3x2 flow window sits at (2, 1) of a 6x5 image, with one
# missing vector (100, 100), big-endian (the tools write windows as large
# as the image)
one='\077\200\000\000' two='\100\000\000\000' hundred='\102\310\000\000'
printf "\100\300\000\000\100\240\000\000\100\100\000\000$two$two$one" >barron/window.F
for k in 1 2 3 4 5; do printf "$one$two"; done >>barron/window.F
printf "$hundred$hundred" >>barron/window.F

# images: gray and colour frames as PGM/PPM and PNG
for f in pnm/gray.pgm png/gray.png; do "$S" -q -n 1 -s 12x9 -o "$f"; done
for f in pnm/colour.ppm png/colour.png; do "$S" -q -n 1 -c -s 12x9 -o "$f"; done
# the PNG harness takes the chunks after the 8-byte signature
for f in png/gray.png png/colour.png; do
    tail -c +9 "$f" >"${f%.png}" && rm "$f"
done
# ASCII, 16-bit and odd-maxval variants of the same kind of header
printf 'P2\n# ascii gray\n3 2\n255\n0 17 255\n128 64 3\n' >pnm/ascii.pgm
printf 'P3\n2 1\n100\n100 0 50  7 99 1\n' >pnm/ascii.ppm
printf 'P5\n2 2\n1000\n\003\350\000\000\001\364\000\001' >pnm/16bit.pgm
printf 'P6 1 1 65535\n\377\377\000\000\200\000' >pnm/16bit.ppm
printf 'P5 3 1 7\n\000\003\007' >pnm/maxval7.pgm

# .params: what flow-compute writes beside a flow, for every method
"$S" -q -s 16x12 -n 2 -o "frames/f%d.pgm"
methods=$("$C" --help | sed -n 's/^  -m, --method NAME *\([^[]*\) \[.*/\1/p' | sed 's/,/ /g; s/ or / /')
for m in $methods; do
    "$C" -q --device cpu -m "$m" frames/f0.pgm frames/f1.pgm -o "frames/$m.flo"
    mv "frames/$m.flo.params" "params/$m.params"
done
# a KITTI flow with invalid pixels: the vectors a forward-backward check removes
"$C" -q --device cpu frames/f0.pgm frames/f1.pgm -o kitti/fb-check.png --fb-check 0.05
rm kitti/fb-check.png.params
# the KITTI harness takes the chunks after the 8-byte signature
for f in kitti/*.png; do
    tail -c +9 "$f" >"${f%.png}" && rm "$f"
done
printf '# a partial file\nmethod,clg\nsolver,v  # V-cycles\n\ncycles,3\n' >params/partial.params
rm -rf frames

# .y4m: the native writer's gray (C mono) and colour (C444) streams, and
# hand-made frames of the other layouts the reader knows
"$S" -q -s 8x6 -n 3 --video y4m/gray.y4m
"$S" -q -c -s 8x6 -n 2 --video y4m/colour.y4m
bytes() { printf 'abcdefghijklmnopqrstuvwxyz0123456789' | head -c "$1"; }
{ printf 'YUV4MPEG2 W4 H2 F30000:1001 It A1:1 C420jpeg\nFRAME\n'; bytes 12; } >y4m/420.y4m
{ printf 'YUV4MPEG2 W2 H2 Cmono16\nFRAME\n'; bytes 8; } >y4m/mono16.y4m
{ printf 'YUV4MPEG2 W2 H2 C422p10 XCOLORRANGE=LIMITED\nFRAME\n'; bytes 16; } >y4m/422p10.y4m
{ printf 'YUV4MPEG2 W2 H1 C444alpha\nFRAME\n'; bytes 8; printf 'FRAME\n'; bytes 8; } >y4m/444alpha.y4m
{ printf 'YUV4MPEG2 W3 H1 C411 XCOLORRANGE=LIMITED\nFRAME Ixyz\n'; bytes 5; } >y4m/411.y4m
