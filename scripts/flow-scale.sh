#!/bin/sh
# flow-scale.sh FLOW_TOOL GT > GT.scale -- the flow-tool options that draw
# the pictures of a pair on the scale of its ground truth GT, so that the
# pictures of the ground truth and of every estimate of the pair compare at a
# glance (seed 001 figure 5.9).  One "KIND=OPTIONS" line per picture kind:
#   color=--max R                  R: the ground truth's largest known length
#   vectors=--step N --scale S     N = max(4, smaller side / 30), S = 0.9 N / R:
#                                  the longest true vector spans 0.9 of a cell
#   mix=--max R --step N --scale S
#   blend=--max R
# Read back with: sed -n 's/^KIND=//p' GT.scale
set -eu
[ $# -eq 2 ] || { echo "usage: flow-scale.sh FLOW_TOOL GT > GT.scale" >&2; exit 1; }
tool=$1 gt=$2
info=$("$tool" info "$gt") || exit 2
printf '%s\n' "$info" | awk -v gt="$gt" '
    /^size:/ { w = $2; h = $4 }
    /^magnitude:/ { r = $NF + 0; seen = 1 }
    END {
        if (w == "" || !seen) { printf "flow-scale.sh: %s: no size or magnitude in flow-tool info\n", gt > "/dev/stderr"; exit 2 }
        if (r <= 0) r = 1
        # info rounds to 6 digits, perhaps below the true largest length; one
        # unit of the 6th digit more keeps every true vector within the scale
        r += 10 ^ (int(log(r) / log(10) + 100) - 100 - 5)
        step = int((w < h ? w : h) / 30); if (step < 4) step = 4
        scale = 0.9 * step / r
        printf "color=--max %.6g\nvectors=--step %d --scale %.6g\nmix=--max %.6g --step %d --scale %.6g\nblend=--max %.6g\n", r, step, scale, r, step, scale, r
    }'
