#!/bin/sh
# flows-score.sh FLOW_TOOL SEQ DIR PAIR... -- scores the flows DIR/PAIR.flo
# of the sequence directory SEQ (sequences/dst/NAME) against its ground
# truth SEQ/gt_PAIR.flo, inside SEQ/mask_PAIR.png when there is one:
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
    out=$dir/$p.error
    "$tool" error --csv ${mask:+--mask "$mask"} --aae "$dir/$p.aae" --aee "$dir/$p.aee" \
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
