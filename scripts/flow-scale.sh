#!/bin/sh
# flow-scale.sh FLOW_TOOL GT > GT.scale -- the flow-tool options that draw
# the pictures of a pair on the scale of its ground truth GT, so that the
# pictures of the ground truth and of every estimate of the pair compare at a
# glance (seed 001 figure 5.9).  One "KIND=OPTIONS" line per picture kind:
#   color=--max R     R: the ground truth's largest known length
#   vectors=--max R   arrows scaled so that a motion of R spans 0.9 of the
#                     grid step, flow-tool's automatic step (the same grid
#                     as flow-compute --vectors and flow-tool montage)
#   mix=--max R
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
        printf "color=--max %.6g\nvectors=--max %.6g\nmix=--max %.6g\nblend=--max %.6g\n", r, r, r, r
    }'
