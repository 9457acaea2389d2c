#!/bin/sh
# seq-import.sh DIR SRC [PREFIX] [ONLY_GT] -- brings an external collection of
# sequences (laid out like ../shared/data: Middlebury, Yosemite, Barron's
# synthetic pairs, FlyingChairs) into the pipeline without copying it: one
# path list SRC/PREFIX<name>.list per sequence found under DIR (see
# scripts/seq-scan.sh for how frames, ground truth and masks are recognised).
# Paths are absolute, so the lists stay valid wherever make runs.  A list is
# rewritten only when its content changed.  Prints one line per sequence.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: seq-import.sh DIR SRC [PREFIX] [ONLY_GT]" >&2
    exit 1
fi
dir=$1 src=$2 prefix=${3:-} only_gt=${4:-0}
[ -d "$dir" ] || { echo "seq-import.sh: '$dir' is not a directory" >&2; exit 2; }
case "$prefix" in *[!A-Za-z0-9._-]*) echo "seq-import.sh: PREFIX '$prefix': use letters, digits, '.', '_', '-'" >&2; exit 1 ;; esac
absdir=$(cd "$dir" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Split the scan into one file per sequence.
"$here/seq-scan.sh" import "$absdir" "$only_gt" | awk -v out="$tmp" -v prefix="$prefix" -v from="$absdir" '
    $1 == "name" { f = out "/" prefix $2 ".list"; print f > (out "/names")
                   print "# imported by scripts/seq-import.sh from " from "; regenerate with make -C sequences import" > f
                   next }
    { print > f }'
[ -s "$tmp/names" ] || { echo "seq-import.sh: no sequence (2 or more frames) found under '$dir'" >&2; exit 2; }

count=0
while read -r f; do
    name=$(basename "$f" .list)
    if [ -e "$src/$name" ] || ls "$src/$name".* 2>/dev/null | grep -qv '\.list$'; then
        echo "seq-import.sh: '$src/$name' already exists as another source; import with PREFIX=..." >&2
        exit 2
    fi
    frames=$(grep -c '^frame ' "$f")
    gts=$(grep -c '^gt ' "$f" || true)
    if cmp -s "$f" "$src/$name.list"; then state=unchanged; else cp "$f" "$src/$name.list.tmp" && mv -f "$src/$name.list.tmp" "$src/$name.list"; state=written; fi
    if [ "$gts" -gt 0 ]; then what="ground truth for $gts pair(s)"; else what="no ground truth"; fi
    printf '  %-7s %s (%d frames, %s; %s)\n' IMPORT "$name" "$frames" "$what" "$state"
    count=$((count + 1))
done < "$tmp/names"
echo "  $count sequence(s) from $absdir in $src/*.list"
