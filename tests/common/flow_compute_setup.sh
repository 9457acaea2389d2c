# flow_compute_setup.sh -- sourced by the flow_compute*.sh CLI tests, after
# the harness: the binaries, a scratch directory, and the frames they share
# (64x48 f0.png .. f3.png moving by (1, 0.5) with their flows gt0.flo ..,
# the same as v.y4m, a 32x24 small.png, a junk.png that is no image).
FC="$BIN/flow-compute"
FS="$BIN/flow-synth"
keys() { grep -v '^#' "$1"; } # the key,value lines of a .params file

harness_need_bins "$FC" "$FS"
cd "$T" || exit 1
FCC="$FC --device cpu" # every computation here runs on the CPU backend

"$FS" -m translate --dx 1 --dy 0.5 -s 64x48 -n 4 -o "f%d.png" --gt "gt%d.flo" --video v.y4m \
    || { echo "  FAIL: flow-synth cannot make the frames"; echo "0 passed, 1 failed"; exit 1; }
"$FS" -s 32x24 -n 1 -o small.png
printf 'not an image at all\n' >junk.png
