#!/bin/sh
# seq-prune.sh DIR -- after the rules of sequence directory DIR
# (sequences/dst/NAME) were regenerated: removes every output whose source
# changed or that the new rules no longer make, so that make rebuilds it from
# the new source even when that source is older.  DIR/sources is the old
# "FILE<TAB>SOURCE" manifest (FILE: a name inside DIR), DIR/sources.new the new one, which then
# replaces it.  A removed ground truth takes its pictures with it.
set -eu
dir=$1
[ -f "$dir/sources.new" ] || { echo "seq-prune.sh: no $dir/sources.new" >&2; exit 2; }
if [ -f "$dir/sources" ]; then
    awk -F '\t' 'NR == FNR { want[$1] = $2; next }
                 !($1 in want) || want[$1] != $2 { print $1 }' "$dir/sources.new" "$dir/sources" |
    while read -r file; do
        rm -f "$dir/$file"
        case "$file" in
            gt_*.flo) rm -f "$dir/${file%.flo}.png" "$dir/${file%.flo}-vectors.png" "$dir/${file%.flo}.scale" ;;
        esac
    done
else
    # First scan of this directory: anything already there is of unknown origin.
    rm -f "$dir"/frame_*.png "$dir"/gt_*.flo "$dir"/gt_*.png "$dir"/gt_*.scale "$dir"/mask_*.png \
        "$dir"/occ_*.png "$dir"/invalid_*.png "$dir"/obj_*.png "$dir"/noc_*.png "$dir"/noc_*.flo
fi
mv -f "$dir/sources.new" "$dir/sources"
