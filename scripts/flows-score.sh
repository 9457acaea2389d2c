#!/bin/sh
# flows-score.sh FLOW_TOOL SEQ DIR PAIR... -- scores the flows DIR/PAIR.flo
# of the sequence directory SEQ (sequences/dst/NAME) against its ground
# truth SEQ/gt_PAIR.flo, inside SEQ/mask_PAIR.png when there is one, with
# the pair's occlusion mask occ_PAIR.png, pixels left out invalid_PAIR.png,
# KITTI's non-occluded flow noc_PAIR.png (or .flo) and object map
# obj_PAIR.png when there are:
# DIR/PAIR.error (flow-tool error's CSV line), DIR/PAIR.aae, DIR/PAIR.aee.
# make flows runs it in the fresh directory of a flow-compute run.  Stops at
# the first failure (flow-tool names the file) with its exit status.  Each
# P.error is written as P.error.tmp and renamed only when flow-tool
# succeeded and the file holds its header and line: a full disk never
# leaves an empty or partial score that looks finished.
set -eu
[ $# -ge 3 ] || { echo "usage: flows-score.sh FLOW_TOOL SEQ DIR PAIR..." >&2; exit 1; }
tool=$1 seq=$2 dir=$3
shift 3
for p; do
    mask=
    if [ -f "$seq/mask_$p.png" ]; then mask=$seq/mask_$p.png; fi
    occ='' invalid='' noc='' obj=''
    if [ -f "$seq/occ_$p.png" ]; then occ=$seq/occ_$p.png; fi
    if [ -f "$seq/invalid_$p.png" ]; then invalid=$seq/invalid_$p.png; fi
    if [ -f "$seq/noc_$p.png" ]; then noc=$seq/noc_$p.png; elif [ -f "$seq/noc_$p.flo" ]; then noc=$seq/noc_$p.flo; fi
    if [ -f "$seq/obj_$p.png" ]; then obj=$seq/obj_$p.png; fi
    out=$dir/$p.error
    "$tool" error --csv ${mask:+--mask "$mask"} ${occ:+--occlusions "$occ"} ${invalid:+--invalid "$invalid"} \
        ${noc:+--noc "$noc"} ${obj:+--objmap "$obj"} --aae "$dir/$p.aae" --aee "$dir/$p.aee" \
        "$dir/$p.flo" "$seq/gt_$p.flo" >"$out.tmp" || {
        rc=$?
        echo "flows-score.sh: $out: not written (flow-tool error failed)" >&2
        rm -f "$out.tmp"
        exit $rc
    }
    if [ "$(wc -l <"$out.tmp")" -lt 2 ]; then
        echo "flows-score.sh: $out: flow-tool error wrote $(wc -c <"$out.tmp") bytes, not its header and row" >&2
        rm -f "$out.tmp"
        exit 2
    fi
    mv -f "$out.tmp" "$out"
done
