#!/bin/sh
# seq-scan.sh -- finds the frames, ground truth, masks and parameter files of
# image sequences in directories, and prints them as sequence lists (the
# format of sequences/src/*.list, see docs/PIPELINE.md):
#
#   seq SUFFIX          starts a sequence (SUFFIX empty: the directory's only one)
#   frame PATH          the next frame, in order
#   gt I PATH           ground truth of the pair frame I -> frame I+1 (a flow file:
#                       an extension of `flow-tool formats`, read by flow-exts.sh)
#   mask I PATH         evaluation mask of pair I (non-zero = evaluated)
#   occ I PATH          occlusion mask of pair I (non-zero = occluded)
#   invalid I PATH      pixels of pair I left out of every measure (non-zero)
#   noc I PATH          KITTI: the flow on non-occluded pixels, beside gt
#   obj I PATH          KITTI 2015: the object map (non-zero = foreground)
#   params METHOD PATH  the sequence's own parameters for METHOD
#
# Usage:
#   seq-scan.sh dir DIR              DIR is one sequence: every image in it is a
#                                    frame, in natural order (frame9 before frame10)
#   seq-scan.sh import DIR [ONLY_GT] every directory under DIR (DIR included):
#                                    images grouped into sequences by name; prints
#                                    "name NAME" before each sequence instead of "seq"
#
# Ground truth is matched to a pair by its name, in this order (S_i is the
# name of frame I without extension, N_i its trailing number, P the common
# prefix of the frames):
#   S_i                    flow-synth and the demo sequences: frame_003.flo
#   S_i-S_i+1, S_i_S_i+1   Barron's Yosemite: yos09-yos10.flo
#   flowN_i, gtN_i         Middlebury: flow10.flo is frame10 -> frame11
#   correct_P              Barron's synthetic pairs: correct_square.flo (2 frames)
#   Qgt, Qflow             FlyingChairs pairs Qimg0/Qimg1 (0000000-gt.flo,
#                          00001_flow.flo for 00001_img1/00001_img2)
# A directory with images but no flow file takes its parent's flow files
# (Middlebury's RubberWhale/color/).  An image whose name contains "mask" is
# a mask: S_i-...mask... is the mask of pair I, "mask" alone of every pair.
#
# Two datasets are recognised by their own layout, as a whole ("import" only;
# nothing below their root is scanned by the rules above):
#   Sintel   a directory holding flow/ and clean/ or final/ (its training/):
#            each scene of each pass a sequence sintel-PASS-SCENE, frames
#            PASS/SCENE/*.png, the ground truth of frame S -> the next
#            flow/SCENE/S.flo, its masks occlusions/SCENE/S.png and
#            invalid/SCENE/S.png
#   KITTI    a directory holding colored_0/ (2012) or image_2/ (2015) and
#            flow_noc/ or flow_occ/, or named training or testing: each
#            NNNNNN_10 -> NNNNNN_11 a sequence kitti2012-NNNNNN or
#            kitti2015-NNNNNN (with every other NNNNNN_MM frame there, in
#            order); its ground truth flow_occ/NNNNNN_10.png with noc
#            flow_noc/NNNNNN_10.png, else flow_noc/NNNNNN_10.png alone; obj
#            obj_map/NNNNNN_10.png
# With ONLY_GT=1 an imported sequence keeps only the frames from its first to
# its last ground-truth pair, and sequences without ground truth are left out.
# Names with white space are skipped with a warning (make cannot handle them).
set -eu

mode=${1:-}
root=${2:-}
only_gt=${3:-0}
if [ -z "$mode" ] || [ -z "$root" ]; then
    echo "usage: seq-scan.sh dir|import DIR [ONLY_GT]" >&2
    exit 1
fi
if [ ! -d "$root" ]; then
    echo "seq-scan.sh: '$root' is not a directory" >&2
    exit 2
fi

# The flow formats' extensions, lower case (flow-exts.sh: from the table
# of formats); a file with one of them is a flow file unless it is an image.
flow_exts=$(sh "$(dirname "$0")/flow-exts.sh" | tr 'A-Z' 'a-z') || exit 2
[ -n "$flow_exts" ] || exit 2
is_flow() {
    for e in $flow_exts; do
        case "$1" in *."$e") return 0 ;; esac
    done
    return 1
}

# Lists the files of one directory, naturally sorted, as "KIND<TAB>PATH".
list_dir() {
    d=$1 kind_prefix=$2
    for f in "$d"/*; do
        [ -f "$f" ] || continue
        case "$f" in
            *[[:space:]]*) echo "seq-scan.sh: skipping '$f': white space in the name" >&2; continue ;;
        esac
        b=$(basename "$f")
        lower=$(printf '%s' "$b" | tr 'A-Z' 'a-z')
        case "$lower" in
            *.png|*.ppm|*.pgm|*.pnm|*.jpg|*.jpeg|*.bmp|*.tif|*.tiff)
                case "$lower" in
                    *mask*) printf '%smask\t%s\n' "$kind_prefix" "$f" ;;
                    *) printf '%simg\t%s\n' "$kind_prefix" "$f" ;;
                esac ;;
            *.params) printf '%sparams\t%s\n' "$kind_prefix" "$f" ;;
            *) if is_flow "$lower"; then printf '%sflow\t%s\n' "$kind_prefix" "$f"; fi ;;
        esac
    done | sort -t "$(printf '\t')" -k2,2V
}

# The awk program: reads the records of one directory (img, mask, flow,
# params, and pflow for the parent's flow files) and prints its sequences.
# Variables: group (0: one sequence of every image, 1: group by name),
# only_gt, base (the sequence name for "import", empty for "dir").
assign='
function stem(p,   b) { b = p; sub(/.*\//, "", b); sub(/\.[^.]*$/, "", b); return b }
function trail(s,   t) { t = s; if (match(t, /[0-9]+$/)) return substr(t, RSTART); return "" }
function strip_seps(s) { sub(/[-_.]+$/, "", s); return s }
{
    kind = $1; path = $0; sub(/^[^\t]*\t/, "", path)
    if (kind == "img") { img[ni++] = path }
    else if (kind == "mask") { msk[nm++] = path }
    else if (kind == "flow") { flo[nf++] = path }
    else if (kind == "pflow") { pflo[npf++] = path }
    else if (kind == "params") { par[np++] = path }
}
# Ground-truth index of flow file stem g in group G (frames gs[G, i]), or -1.
function gt_index(G, g,   i, n, q, lab) {
    n = gn[G]
    for (i = 0; i + 1 < n; i++) {
        if (g == gs[G, i] || g == gs[G, i] "-" gs[G, i + 1] || g == gs[G, i] "_" gs[G, i + 1])
            return i
    }
    for (i = 0; i + 1 < n; i++) {
        if (gk[G, i] != "" && (g ~ ("^(flow|gt)[-_]?0*" (gk[G, i] + 0) "$")))
            return i
    }
    if (n == 2) {
        lab = strip_seps(gp[G])
        if (lab != "" && g == "correct_" lab) return 0
        if (gp[G] ~ /img[-_]?$/) {
            q = gp[G]; sub(/img[-_]?$/, "", q)
            if (q != "" && (g == q "gt" || g == q "flow")) return 0
        }
    }
    return -1
}
function emit(G, label,   i, j, m, n, g, k, first, last, any, name, ms, cnt) {
    n = gn[G]
    if (n < 2) return
    delete gt; any = 0
    for (j = 0; j < nf; j++) { k = gt_index(G, stem(flo[j])); if (k >= 0) { gt[k] = flo[j]; any = 1 } }
    if (!any)
        for (j = 0; j < npf; j++) { k = gt_index(G, stem(pflo[j])); if (k >= 0) gt[k] = pflo[j] }
    first = 0; last = n - 1
    if (only_gt) {
        first = -1
        for (i = 0; i + 1 < n; i++) if (i in gt) { if (first < 0) first = i; last = i + 1 }
        if (first < 0) return
    }
    if (base == "") print "seq " label
    else { name = base; if (label != "") name = name (name == "" ? "" : "-") label; print "name " name }
    for (i = first; i <= last; i++) print "frame " gf[G, i]
    for (i = first; i < last; i++) if (i in gt) print "gt " (i - first) " " gt[i]
    for (j = 0; j < nm; j++) {
        ms = stem(msk[j])
        for (i = first; i < last; i++)
            if (tolower(ms) == "mask" || index(ms, gs[G, i] "-") == 1 || index(ms, gs[G, i] "_") == 1)
                print "mask " (i - first) " " msk[j]
    }
    for (j = 0; j < np; j++) print "params " stem(par[j]) " " par[j]
}
END {
    if (!group) {
        for (i = 0; i < ni; i++) { gf[0, i] = img[i]; gs[0, i] = stem(img[i]); gk[0, i] = trail(gs[0, i]) }
        gn[0] = ni; gp[0] = ""
        if (ni < 2) {
            printf "seq-scan.sh: %s: %d image(s); a sequence needs 2 or more frames\n", dir, ni > "/dev/stderr"
            exit 2
        }
        emit(0, "")
        exit 0
    }
    ng = 0
    for (i = 0; i < ni; i++) {
        s = stem(img[i]); k = trail(s); p = substr(s, 1, length(s) - length(k))
        if (!(p in gid)) { gid[p] = ng; gp[ng] = p; gn[ng] = 0; ng++ }
        G = gid[p]
        gf[G, gn[G]] = img[i]; gs[G, gn[G]] = s; gk[G, gn[G]] = k; gn[G]++
    }
    multi = 0
    for (G = 0; G < ng; G++) if (gn[G] >= 2) multi++
    for (G = 0; G < ng; G++) {
        label = ""
        if (multi > 1) {
            label = gp[G]
            if (label ~ /img[-_]?$/) sub(/img[-_]?$/, "", label)
            label = strip_seps(label)
            if (label == "") label = "seq" G
        }
        emit(G, label)
    }
}'

# Prints sequence NAME ("name NAME" first) from the records on stdin, whose
# pair numbers count the frames from 0: with ONLY_GT=1 only the frames from
# the first to the last ground-truth pair, renumbered; nothing for fewer than
# 2 frames, or without ground truth with ONLY_GT=1.
finish_seq() {
    awk -v name="$1" -v only_gt="$only_gt" '
        $1 == "frame" { f[n++] = $2; next }
        { rec[nr++] = $0; if ($1 == "gt") { i = $2 + 0; if (lo == "" || i < lo) lo = i; if (hi == "" || i > hi) hi = i } }
        END {
            first = 0; last = n - 1
            if (only_gt) { if (lo == "" || lo + 1 >= n) exit 0; first = lo; last = (hi + 1 < n) ? hi + 1 : n - 1 }
            if (last - first < 1) exit 0
            print "name " name
            for (i = first; i <= last; i++) print "frame " f[i]
            for (r = 0; r < nr; r++) {
                split(rec[r], w, " "); i = w[2] + 0
                if (i >= first && i < last) print w[1] " " (i - first) " " w[3]
            }
        }'
}

# The files of directory $1 matching the pattern $2, naturally sorted; names
# with white space skipped with a warning.
files_of() {
    for f in "$1"/$2; do
        [ -f "$f" ] || continue
        case "$f" in *[[:space:]]*) echo "seq-scan.sh: skipping '$f': white space in the name" >&2; continue ;; esac
        echo "$f"
    done | sort -V
}

# Is $1 the root of a Sintel or KITTI tree?  Prints sintel, kitti2012 or kitti2015.
dataset_kind() {
    if [ -d "$1/flow" ] && { [ -d "$1/clean" ] || [ -d "$1/final" ]; }; then echo sintel; return; fi
    for k in colored_0:kitti2012 image_2:kitti2015; do
        if [ -d "$1/${k%%:*}" ]; then
            case "$(basename "$1")" in
                training|testing) echo "${k#*:}"; return ;;
            esac
            if [ -d "$1/flow_noc" ] || [ -d "$1/flow_occ" ]; then echo "${k#*:}"; return; fi
        fi
    done
}

scan_sintel() {
    r=$1
    for pass in clean final; do
        [ -d "$r/$pass" ] || continue
        for sd in "$r/$pass"/*/; do
            [ -d "$sd" ] || continue
            scene=$(basename "$sd")
            case "$scene" in *[[:space:]]*) echo "seq-scan.sh: skipping '$sd': white space in the name" >&2; continue ;; esac
            i=0
            files_of "$r/$pass/$scene" '*.png' | while read -r f; do
                s=$(basename "$f" .png)
                echo "frame $f"
                [ ! -f "$r/flow/$scene/$s.flo" ] || echo "gt $i $r/flow/$scene/$s.flo"
                [ ! -f "$r/occlusions/$scene/$s.png" ] || echo "occ $i $r/occlusions/$scene/$s.png"
                [ ! -f "$r/invalid/$scene/$s.png" ] || echo "invalid $i $r/invalid/$scene/$s.png"
                i=$((i + 1))
            done | finish_seq "sintel-$pass-$scene"
        done
    done
}

# KITTI: the frames NNNNNN_MM of each NNNNNN, the ground truth at MM = 10.
scan_kitti() {
    r=$1 kind=$2
    case "$kind" in kitti2012) images=colored_0 ;; *) images=image_2 ;; esac
    cur='' recs='' i=0
    files_of "$r/$images" '*.png' | awk '{ b = $0; sub(/.*\//, "", b); sub(/_[0-9]+\.png$/, "", b); print b, $0 }' |
    { while read -r id f; do
        if [ "$id" != "$cur" ]; then
            [ -z "$cur" ] || printf '%s' "$recs" | finish_seq "$kind-$cur"
            cur=$id recs='' i=0
        fi
        recs="${recs}frame $f$nl"
        if [ "$(basename "$f")" = "${id}_10.png" ]; then
            g=$r/flow_occ/${id}_10.png noc=$r/flow_noc/${id}_10.png obj=$r/obj_map/${id}_10.png
            if [ -f "$g" ]; then
                recs="${recs}gt $i $g$nl"
                [ ! -f "$noc" ] || recs="${recs}noc $i $noc$nl"
            elif [ -f "$noc" ]; then
                recs="${recs}gt $i $noc$nl"
            fi
            [ ! -f "$obj" ] || recs="${recs}obj $i $obj$nl"
        fi
        i=$((i + 1))
    done
    [ -z "$cur" ] || printf '%s' "$recs" | finish_seq "$kind-$cur"; }
}
nl='
'

case "$mode" in
    dir)
        list_dir "$root" "" | awk -F '\t' -v group=0 -v only_gt=0 -v base= -v dir="$root" "$assign"
        ;;
    import)
        parent_name=$(basename "$(cd "$root" && pwd)")
        # A dataset root is scanned as a whole, and nothing below it again.
        inside=
        find "$root" -type d | sort | while read -r d; do
            case "$d" in *[[:space:]]*) echo "seq-scan.sh: skipping '$d': white space in the name" >&2; continue ;; esac
            if [ -n "$inside" ]; then
                case "$d" in "$inside"/*) continue ;; esac
            fi
            kind=$(dataset_kind "$d")
            case "$kind" in
                sintel) scan_sintel "$d"; inside=$d; continue ;;
                kitti*) scan_kitti "$d" "$kind"; inside=$d; continue ;;
            esac
            rel=${d#"$root"}
            rel=${rel#/}
            if [ -z "$rel" ]; then base=$parent_name; else base=$(printf '%s' "$rel" | tr '/' '-'); fi
            base=$(printf '%s' "$base" | tr -c 'A-Za-z0-9._\n-' '-')
            { list_dir "$d" ""; list_dir "$(dirname "$d")" "p" | grep '^pflow' || true; } |
                awk -F '\t' -v group=1 -v only_gt="$only_gt" -v base="$base" -v dir="$d" "$assign"
        done
        ;;
    *)
        echo "seq-scan.sh: unknown mode '$mode' (dir or import)" >&2
        exit 1
        ;;
esac
