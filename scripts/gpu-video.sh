#!/bin/sh
# gpu-video.sh -- the streaming measurement of docs/flow-compute.md: 300
# generated 1920x1080 gray frames, as a .y4m video and as a directory of
# PGM files, through `flow-compute` with nonlinear CLG on the CUDA backend:
# streamed without and with flow files, then one pair at a time
# (--timing-file) for the breakdown of a flow.  Run from the repository
# root after `make tools`; scratch files go to $TMPDIR (default /tmp); the
# summaries are printed.
set -eu
bin=${BUILD:-build}/bin
tmp=${TMPDIR:-/tmp}/gpu-video
mkdir -p "$tmp/pgm"
[ -s "$tmp/hd.y4m" ] || "$bin/flow-synth" -m smooth --amplitude 2 --wavelength 160 \
    -s 1920x1080 -n 300 --video "$tmp/hd.y4m" -o "$tmp/pgm/f%04d.pgm"
fc() { "$bin/flow-compute" -d cuda -p params/clg-nl.params "$@" 2>&1 | grep -E "^flow-compute: "; }
for input in "--video $tmp/hd.y4m" "$tmp/pgm"; do
    echo "== $input: streamed, no flow files"
    fc $input
    echo "== $input: streamed, with flow files"
    fc $input -o "$tmp/f%04d.flo"
    rm -f "$tmp"/f*.flo "$tmp"/f*.flo.params
done
echo "== --video $tmp/hd.y4m: one pair at a time (--timing-file)"
fc --video "$tmp/hd.y4m" --timing-file "$tmp/t.csv"
