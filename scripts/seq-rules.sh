#!/bin/sh
# seq-rules.sh -- turns one sequence list (the format seq-scan.sh prints and
# sequences/src/*.list holds) into the make rules that build the sequence's
# central format in sequences/dst/NAME/ (see docs/PIPELINE.md):
#
#   frame_000.png ...      the frames, PNG: links to PNG sources, conversions
#                          (ImageMagick) of other formats
#   gt_000.flo             ground truth of pair 000: a link to a .flo source,
#                          a conversion (flow-tool convert) of the others
#                          (every format of `flow-tool formats`, read by
#                          flow-exts.sh)
#   mask_000.png           evaluation mask of pair 000, like the frames
#   occ_000.png, invalid_000.png, obj_000.png   its occlusion mask, pixels
#                          left out, KITTI object map: like the frames
#   noc_000.png            KITTI's flow on non-occluded pixels: a link to
#                          the .png (noc_000.flo for a .flo, a conversion of
#                          the others)
#   gt_000.png, gt_000-vectors.png   the ground truth's pictures (flow-tool),
#   gt_000.scale           on this scale (scripts/flow-scale.sh)
#
# Usage: seq-rules.sh NAME LIST DST MANIFEST > rules.mk
#   LIST      the list file, or - for stdin; relative paths in a list file
#             are relative to the directory that holds it
#   DST       the sequence's output directory (sequences/dst/NAME)
#   MANIFEST  written with one "FILE<TAB>SOURCE" line per converted file (FILE
#             the name inside DST),
#             so that sequences/Makefile can drop outputs whose source changed
# The rules call the recipes $(seq_link), $(seq_png), $(seq_flo) that
# sequences/Makefile defines.  Errors name the list, the line and the value,
# and exit 2.
set -eu

if [ $# -ne 4 ]; then
    echo "usage: seq-rules.sh NAME LIST DST MANIFEST" >&2
    exit 1
fi
name=$1 list=$2 dst=$3 manifest=$4
if [ "$list" = - ]; then
    listdir=. label=${SEQ_LABEL:-"$dst (scanned)"}
else
    [ -r "$list" ] || { echo "seq-rules.sh: cannot read '$list'" >&2; exit 2; }
    listdir=$(dirname "$list") label=$list
fi

# the flow formats' extensions, from the table of formats
flow_exts=$(sh "$(dirname "$0")/flow-exts.sh" | tr '\n' ' ')
[ -n "$flow_exts" ] || exit 2

awk -v flow_exts="$flow_exts" -v name="$name" -v dst="$dst" -v listdir="$listdir" -v label="$label" -v manifest="$manifest" '
function fail(msg) { printf "%s:%d: %s\n", label, NR, msg > "/dev/stderr"; failed = 1; exit 2 }
function resolve(p) { return (p ~ /^\//) ? p : (listdir == "." ? p : listdir "/" p) }
function ext(p,   e) { e = p; if (!match(e, /\.[^.\/]*$/)) return ""; return tolower(substr(e, RSTART + 1)) }
function exists(p) { return (system("test -f \"" p "\"") == 0) }
function idx(i) { return sprintf("%03d", i) }
function is_flow(p) { return ext(p) in flow_ext }
# noc_NNN keeps a .flo or KITTI .png source as it is; the others become .flo.
function noc_ext(p) { return (ext(p) == "png") ? "png" : "flo" }
BEGIN {
    split("mask occ invalid obj", k, " "); for (j in k) image_kinds[k[j]] = 1
    nfe = split(flow_exts, fe, " ")
    for (j = 1; j <= nfe; j++) { flow_ext[tolower(fe[j])] = 1; FLOW_EXTS = FLOW_EXTS (j > 1 ? ", " : "") "." fe[j] }
}
/^[ \t]*(#|$)/ { next }
{
    kind = $1
    if (kind == "frame") {
        if (NF != 2) fail("expected \"frame PATH\", got \"" $0 "\"")
        frames[nfr++] = resolve($2)
    } else if (kind == "gt" || kind == "noc" || kind in image_kinds) {
        if (NF != 3 || $2 !~ /^[0-9]+$/) fail("expected \"" kind " PAIR PATH\" with PAIR a frame number, got \"" $0 "\"")
        i = $2 + 0
        if (kind == "gt") { if (i in gt) fail("second ground truth for pair " i); gt[i] = resolve($3); gtl[i] = NR }
        else { if ((kind, i) in file) fail("second " kind " file for pair " i); file[kind, i] = resolve($3); line[kind, i] = NR }
    } else if (kind == "params") {
        if (NF != 3 || $2 !~ /^[A-Za-z0-9._-]+$/) fail("expected \"params METHOD PATH\", got \"" $0 "\"")
        params[$2] = resolve($3); pl[$2] = NR
    } else if (kind == "seq" || kind == "name") {
        if (started) fail("a list holds one sequence; this is a second one")
        started = 1
    } else {
        fail("unknown entry \"" kind "\" (expected frame, gt, mask, occ, invalid, noc, obj or params)")
    }
}
END {
    if (failed) exit 2
    if (nfr < 2) { printf "%s: %d frame(s); a sequence needs 2 or more\n", label, nfr > "/dev/stderr"; exit 2 }
    if (nfr > 1000) { printf "%s: %d frames; the central format numbers at most 1000 (frame_000..frame_999)\n", label, nfr > "/dev/stderr"; exit 2 }
    for (i = 0; i < nfr; i++) if (!exists(frames[i])) { printf "%s: frame %d: no file \"%s\"\n", label, i, frames[i] > "/dev/stderr"; exit 2 }
    for (i in gt) {
        if (i + 0 >= nfr - 1) { printf "%s:%d: ground truth of pair %d, but the %d frames make pairs 0..%d\n", label, gtl[i], i, nfr, nfr - 2 > "/dev/stderr"; exit 2 }
        if (!is_flow(gt[i])) { printf "%s:%d: \"%s\" is not a flow file (%s)\n", label, gtl[i], gt[i], FLOW_EXTS > "/dev/stderr"; exit 2 }
        if (!exists(gt[i])) { printf "%s:%d: no file \"%s\"\n", label, gtl[i], gt[i] > "/dev/stderr"; exit 2 }
    }
    for (ki in file) {
        split(ki, w, SUBSEP); kind = w[1]; i = w[2]
        if (i + 0 >= nfr - 1) { printf "%s:%d: %s of pair %d, but the %d frames make pairs 0..%d\n", label, line[ki], kind, i, nfr, nfr - 2 > "/dev/stderr"; exit 2 }
        if (kind == "noc" && !is_flow(file[ki])) { printf "%s:%d: \"%s\" is not a flow file (%s)\n", label, line[ki], file[ki], FLOW_EXTS > "/dev/stderr"; exit 2 }
        if (!exists(file[ki])) { printf "%s:%d: no file \"%s\"\n", label, line[ki], file[ki] > "/dev/stderr"; exit 2 }
    }
    for (m in params) if (!exists(params[m])) { printf "%s:%d: no file \"%s\"\n", label, pl[m], params[m] > "/dev/stderr"; exit 2 }

    printf "# %s/rules.mk -- generated by scripts/seq-rules.sh from %s; do not edit.\n", dst, label
    printf "SEQ_NAMES += %s\n", name
    files = ""
    for (i = 0; i < nfr; i++) files = files " " dst "/frame_" idx(i) ".png"
    for (i = 0; i < nfr - 1; i++) {
        if (i in gt) files = files " " dst "/gt_" idx(i) ".flo " dst "/gt_" idx(i) ".scale " dst "/gt_" idx(i) ".png " dst "/gt_" idx(i) "-vectors.png"
        for (j = 1; j <= 4; j++) if ((k[j], i) in file) files = files " " dst "/" k[j] "_" idx(i) ".png"
        if (("noc", i) in file) files = files " " dst "/noc_" idx(i) "." noc_ext(file["noc", i])
    }
    printf "SEQ_FILES.%s :=%s\n", name, files
    own = ""
    for (m in params) { own = own " " m; printf "SEQ_OWN_PARAMS.%s.%s := %s\n", name, m, params[m] }
    printf "SEQ_OWN_PARAMS.%s :=%s\n", name, own
    printf "" > manifest
    for (i = 0; i < nfr; i++) {
        t = dst "/frame_" idx(i) ".png"
        printf "%s: %s\n\t$(call %s,%s,%s)\n", t, frames[i], ext(frames[i]) == "png" ? "seq_link" : "seq_png", frames[i], name "/frame_" idx(i)
        printf "frame_%s.png\t%s\n", idx(i), frames[i] > manifest
    }
    for (i = 0; i < nfr - 1; i++) {
        if (i in gt) {
            t = dst "/gt_" idx(i) ".flo"
            if (ext(gt[i]) == "flo") printf "%s: %s\n\t$(call seq_link,%s,%s)\n", t, gt[i], gt[i], name "/gt_" idx(i)
            else printf "%s: %s | $(FLOW_TOOL)\n\t$(call seq_flo,%s,%s)\n", t, gt[i], gt[i], name "/gt_" idx(i)
            printf "gt_%s.flo\t%s\n", idx(i), gt[i] > manifest
        }
        for (j = 1; j <= 4; j++) {
            if (!((k[j], i) in file)) continue
            f = file[k[j], i]; t = k[j] "_" idx(i) ".png"
            printf "%s/%s: %s\n\t$(call %s,%s,%s)\n", dst, t, f, ext(f) == "png" ? "seq_link" : "seq_png", f, name "/" k[j] "_" idx(i)
            printf "%s\t%s\n", t, f > manifest
        }
        if (("noc", i) in file) {
            f = file["noc", i]; t = "noc_" idx(i) "." noc_ext(f)
            if (ext(f) == "png" || ext(f) == "flo") printf "%s/%s: %s\n\t$(call seq_link,%s,%s)\n", dst, t, f, f, name "/noc_" idx(i)
            else printf "%s/%s: %s | $(FLOW_TOOL)\n\t$(call seq_flo,%s,%s)\n", dst, t, f, f, name "/noc_" idx(i)
            printf "%s\t%s\n", t, f > manifest
        }
    }
}' "$list"
