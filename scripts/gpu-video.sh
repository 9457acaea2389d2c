#!/bin/sh
# gpu-video.sh -- the streaming measurement of docs/flow-compute.md: a
# 300-frame 1920x1080 generated video through `flow-compute --video` with
# nonlinear CLG on the CUDA backend, once without and once with flow files.
# Run from the repository root after `make tools`; scratch files go to
# $TMPDIR (default /tmp); the two summaries are printed.
set -eu
bin=${BUILD:-build}/bin
tmp=${TMPDIR:-/tmp}/gpu-video
mkdir -p "$tmp"
[ -s "$tmp/hd.y4m" ] || "$bin/flow-synth" -m smooth --amplitude 2 --wavelength 160 \
    -s 1920x1080 -n 300 --video "$tmp/hd.y4m"
echo "== no flow files"
"$bin/flow-compute" -d cuda -p params/clg-nl.params --video "$tmp/hd.y4m" \
    --timing-file "$tmp/t.csv" 2>&1 | grep -E "^flow-compute: "
echo "== with flow files"
"$bin/flow-compute" -d cuda -p params/clg-nl.params --video "$tmp/hd.y4m" \
    -o "$tmp/f%04d.flo" 2>&1 | grep -E "^flow-compute: "
rm -f "$tmp"/f*.flo "$tmp"/f*.flo.params
