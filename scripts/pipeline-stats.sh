#!/bin/sh
# pipeline-stats.sh -- `make stats`: gathers results/<sequence>/<method>/
# into one table and charts (seed 001 section 5.3.2).
#
#   pipeline-stats.sh csv RESULTS            stats.csv on stdout
#   pipeline-stats.sh md STATS.csv           stats.md on stdout
#   pipeline-stats.sh chart NAME STATS.csv OUT.png [GNUPLOT]
#                                            NAME: accuracy, time or time-size
#   pipeline-stats.sh check RESULTS SEQ_DIR  on stderr, each sequence and
#                                            method with fewer scored pairs
#                                            than pairs with ground truth
#
# stats.csv has one line per sequence and method:
#   sequence,method,width,height,pairs,gt_pairs,aae,aee,over1,masked,
#   time_ms,mean_ms,fps,mpx_s,backend,device,
#   scored,epe,epe_noc,epe_occ,scored_noc,scored_occ,fl,fl_noc,fl_occ
# aae, aee (degrees, pixels) and over1 (share of pixels with an endpoint
# error over 1 px) are means over the pairs with ground truth, empty without
# one; masked is 1 when the errors were scored inside a mask (Yosemite's
# terrain).  The last nine columns pool the scored pixels of every pair of
# the sequence instead (each pair weighs its number of scored pixels):
# scored, the endpoint error over them (epe), over the non-occluded and
# occluded ones (epe_noc, epe_occ, on scored_noc and scored_occ pixels: pairs
# with an occlusion mask or KITTI's noc flow), and KITTI's Fl (% of pixels
# with an endpoint error over 3 px and over 5% of the true vector's length)
# over all, non-occluded and occluded pixels; empty where no pair defines
# the measure.  The per-dataset tables of stats.md pool them likewise.  time_ms is the median time of one pair's computation from
# timing.stats (the TOTAL row: upload, solve and download, not file I/O, so
# that the first pair's one-time allocations do not skew it); mean_ms its
# mean; fps = 1000 / time_ms; mpx_s the megapixels per second at time_ms.
# Only the files the pipeline writes are read: timing.stats (flow-compute
# --timing-file) and P.error (flow-tool error --csv).
set -eu
export LC_ALL=C  # the same order and number format everywhere

die() { echo "pipeline-stats.sh: $*" >&2; exit 2; }

csv() {
    results=$1
    [ -d "$results" ] || die "'$results' is not a directory"
    echo "sequence,method,width,height,pairs,gt_pairs,aae,aee,over1,masked,time_ms,mean_ms,fps,mpx_s,backend,device,scored,epe,epe_noc,epe_occ,scored_noc,scored_occ,fl,fl_noc,fl_occ"
    for t in "$results"/*/*/timing.stats; do
        [ -f "$t" ] || continue
        dir=$(dirname "$t")
        method=$(basename "$dir")
        seq=$(basename "$(dirname "$dir")")
        # The error files of this run (none without ground truth).
        errs=$(ls "$dir"/*.error 2>/dev/null || true)
        # shellcheck disable=SC2086
        awk -F, -v seq="$seq" -v method="$method" -v tfile="$t" '
            function field(line, key,   i, n, kv) {
                n = split(line, kv, " ")
                for (i = 1; i <= n; i++) if (index(kv[i], key "=") == 1) return substr(kv[i], length(key) + 2)
                return ""
            }
            FILENAME == tfile {
                if (FNR == 1) {
                    if ($0 !~ /^# flow-compute timing:/) { printf "%s:1: not a flow-compute timing file\n", tfile > "/dev/stderr"; bad = 1; exit 2 }
                    w = field($0, "width"); h = field($0, "height"); pairs = field($0, "pairs")
                    backend = field($0, "backend")
                    dev = $0; sub(/.* device=/, "", dev); gsub(/,/, ";", dev)
                    next
                }
                if (FNR == 2) { for (i = 1; i <= NF; i++) col[$i] = i; next }
                if ($1 == "TOTAL") { med = $(col["median_ms"]); mean = $(col["mean_ms"]) }
                next
            }
            FNR == 1 { for (i = 1; i <= NF; i++) ecol[$i] = i; ncol = NF; next }
            FNR == 2 && NF == ncol {
                if (!("aae" in ecol) || !("aee" in ecol)) { printf "%s: no aae/aee columns\n", FILENAME > "/dev/stderr"; bad = 1; exit 2 }
                n++; aae += $(ecol["aae"]); aee += $(ecol["aee"]); over1 += $(ecol["over1"])
                if ($(ecol["outside_mask"]) > 0) masked = 1
                scored[FILENAME] = 1
                sc = $(ecol["scored"]); pool("epe", $(ecol["aee"]), sc); pool("fl", get("fl"), sc)
                pool("epe_noc", get("epe_noc"), get("scored_noc")); pool("fl_noc", get("fl_noc"), get("scored_noc"))
                pool("epe_occ", get("epe_occ"), get("scored_occ")); pool("fl_occ", get("fl_occ"), get("scored_occ"))
            }
            # A column of the error file, empty when it has none (older files).
            function get(key) { return (key in ecol) ? $(ecol[key]) : "" }
            # Adds measure m over w pixels to its pixel-weighted sum.
            function pool(m, value, w) { if (value != "" && w != "" && w > 0) { sum[m] += value * w; wt[m] += w } }
            function pooled(m) { return (wt[m] > 0) ? sprintf("%.4f", sum[m] / wt[m]) : "" }
            END {
                if (bad) exit 2
                for (i = 2; i < ARGC; i++)
                    if (!(ARGV[i] in scored)) printf "%s: no score (empty or cut), left out of the means: run make flows\n", ARGV[i] > "/dev/stderr"
                if (med == "") { printf "%s: no TOTAL row\n", tfile > "/dev/stderr"; exit 2 }
                printf "%s,%s,%s,%s,%s,%d,", seq, method, w, h, pairs, n
                if (n) printf "%.4f,%.4f,%.4f,%d,", aae / n, aee / n, over1 / n, masked
                else printf ",,,,"
                printf "%.4f,%.4f,%.2f,%.3f,%s,%s,", med, mean, (med > 0 ? 1000 / med : 0), (med > 0 ? w * h / (med * 1000) : 0), backend, dev
                if (n) printf "%d,%s,%s,%s,%d,%d,%s,%s,%s\n", wt["epe"], pooled("epe"), pooled("epe_noc"), pooled("epe_occ"), wt["epe_noc"], wt["epe_occ"], pooled("fl"), pooled("fl_noc"), pooled("fl_occ")
                else printf ",,,,,,,,\n"
            }' "$t" $errs
    done
}

# Says which sequence and method have fewer scored pairs (P.error with its
# row) than the sequence has pairs with ground truth (gt_P.flo of a frame
# that has a next one), so that a mean over some of them is not taken for
# the whole.  Sequences that SEQ_DIR does not hold (results brought back
# alone) are not checked.
check() {
    results=$1 seqdir=$2
    for t in "$results"/*/*/timing.stats; do
        [ -f "$t" ] || continue
        dir=$(dirname "$t")
        method=$(basename "$dir")
        seq=$(basename "$(dirname "$dir")")
        [ -d "$seqdir/$seq" ] || continue
        gt=$(ls "$seqdir/$seq" | awk '
            /^frame_.*\.png$/ { f[nf++] = substr($0, 7, length($0) - 10) }
            /^gt_.*\.flo$/ { g[substr($0, 4, length($0) - 7)] = 1 }
            END { for (i = 0; i < nf - 1; i++) n += (f[i] in g); print n + 0 }')
        errs=$(ls "$dir"/*.error 2>/dev/null || true)
        # shellcheck disable=SC2086
        scored=$(awk -F, 'FNR == 1 { n = NF } FNR == 2 && NF == n { k++ } END { print k + 0 }' $errs </dev/null)
        if [ "$scored" -lt "$gt" ]; then
            echo "stats: $seq/$method: errors over $scored of its $gt pairs with ground truth (the others have no score: run make flows)" >&2
        fi
    done
}

# md and chart_data list the methods in C-locale order (clg, clg-nl, hs,
# lk): the same in every table and chart, whatever the numbers.
methods_sorted='
    FNR == NR { if (FNR > 1) { split($0, fld, ","); mset[fld[2]] = 1 }; next }
    FNR == 1 && !sorted {
        for (m in mset) meths[nm++] = m
        for (i = 1; i < nm; i++) for (j = i; j > 0 && meths[j - 1] > meths[j]; j--) { t = meths[j]; meths[j] = meths[j - 1]; meths[j - 1] = t }
        sorted = 1
    }
'

md() {
    awk -F, "$methods_sorted"'
        # Three significant digits, without an exponent.
        function num(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.3g", x) }
        FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        {
            s = $(c["sequence"]); m = $(c["method"])
            if (!(s in seen)) { seen[s] = 1; seqs[ns++] = s; size[s] = $(c["width"]) "x" $(c["height"]) }
            if ($(c["aae"]) != "") { acc[s, m] = sprintf("%.2f / %.3f", $(c["aae"]), $(c["aee"])); hasgt[s] = 1; if ($(c["masked"]) == 1) mask[s] = 1 }
            tim[s, m] = num($(c["time_ms"])) " (" num($(c["fps"])) ")"
            d = $(c["backend"]) ": " $(c["device"]); if (!(d in dseen)) { dseen[d] = 1; devs = devs (devs == "" ? "" : "; ") d }
            if ((ds = dataset(s)) != "" && $(c["aae"]) != "") {
                hasds[ds] = 1; dpairs[ds, m] += $(c["gt_pairs"])
                dpool(ds, m, "epe", "scored"); dpool(ds, m, "fl", "scored")
                dpool(ds, m, "epe_noc", "scored_noc"); dpool(ds, m, "fl_noc", "scored_noc")
                dpool(ds, m, "epe_occ", "scored_occ"); dpool(ds, m, "fl_occ", "scored_occ")
            }
        }
        # The dataset of sequence s (the names make import gives them, after
        # any PREFIX), or "".
        function dataset(s) {
            if (match(s, /(^|-)sintel-(clean|final)-/)) return "Sintel " (s ~ /sintel-clean-/ ? "clean" : "final")
            if (match(s, /(^|-)kitti2012-[0-9]+$/)) return "KITTI 2012"
            if (match(s, /(^|-)kitti2015-[0-9]+$/)) return "KITTI 2015"
            return ""
        }
        # Adds a sequence'"'"'s measure to its dataset'"'"'s, weighed by its pixels.
        function dpool(ds, m, key, wkey,   v, w) {
            if (!(key in c) || !(wkey in c)) return
            v = $(c[key]); w = $(c[wkey])
            if (v != "" && w > 0) { dsum[ds, m, key] += v * w; dwt[ds, m, key] += w }
        }
        function dval(ds, m, key, unit) {
            return (dwt[ds, m, key] > 0) ? sprintf(unit == "%" ? "%.2f%%" : "%.3f", dsum[ds, m, key] / dwt[ds, m, key]) : "-"
        }
        function dataset_table(ds, kitti,   j, m) {
            if (!(ds in hasds)) return
            printf "\n## Accuracy on %s: %s\n\n", ds, kitti ? "EPE (pixels) and Fl" : "EPE (pixels)"
            printf "| method | pairs | EPE all | EPE noc | EPE occ |%s\n", kitti ? " Fl-all | Fl-noc | Fl-occ |" : ""
            printf "|---|---:|---:|---:|---:|%s\n", kitti ? "---:|---:|---:|" : ""
            for (j = 0; j < nm; j++) {
                m = meths[j]; if (!((ds, m) in dpairs)) continue
                printf "| %s | %d | %s | %s | %s |", m, dpairs[ds, m], dval(ds, m, "epe"), dval(ds, m, "epe_noc"), dval(ds, m, "epe_occ")
                if (kitti) printf " %s | %s | %s |", dval(ds, m, "fl", "%"), dval(ds, m, "fl_noc", "%"), dval(ds, m, "fl_occ", "%")
                printf "\n"
            }
        }
        function header(title,   j) {
            printf "\n## %s\n\n| sequence | size |", title
            for (j = 0; j < nm; j++) printf " %s |", meths[j]
            printf "\n|---|---|"
            for (j = 0; j < nm; j++) printf "---:|"
            printf "\n"
        }
        END {
            print "# Optical flow statistics"
            print ""
            print "Generated by `make stats` from the results of `make flows` (scripts/pipeline-stats.sh)."
            print "Computed on " devs "."
            header("Accuracy: AAE (degrees) / AEE (pixels)")
            for (i = 0; i < ns; i++) {
                s = seqs[i]; if (!(s in hasgt)) continue
                printf "| %s%s | %s |", s, (s in mask) ? " (mask)" : "", size[s]
                for (j = 0; j < nm; j++) printf " %s |", ((s, meths[j]) in acc) ? acc[s, meths[j]] : "-"
                printf "\n"
            }
            print ""
            printf "Means over the pairs with ground truth."
            for (s in mask) { anymask = 1; break }
            if (anymask) {
                print "  (mask): scored inside the sequence'"'"'s mask only"
                printf "(Yosemite: the terrain, without the sky), as published tables do."
            }
            print ""
            dataset_table("Sintel clean", 0); dataset_table("Sintel final", 0)
            dataset_table("KITTI 2012", 1); dataset_table("KITTI 2015", 1)
            for (ds in hasds) { anyds = 1; break }
            if (anyds) {
                print ""
                print "Every scored pixel of every pair of the dataset'"'"'s sequences pooled (a pair weighs its number of"
                print "scored pixels, as Sintel'"'"'s benchmark averages). noc, occ: the non-occluded and occluded pixels (Sintel'"'"'s"
                print "occlusion masks, KITTI'"'"'s flow_noc beside flow_occ); Fl: % of pixels with an endpoint error over"
                print "3 px and over 5% of the true vector'"'"'s length. \"-\": no pair defines the measure."
            }
            print ""
            header("Time per pair: milliseconds (frames per second)")
            for (i = 0; i < ns; i++) {
                s = seqs[i]
                printf "| %s | %s |", s, size[s]
                for (j = 0; j < nm; j++) printf " %s |", ((s, meths[j]) in tim) ? tim[s, meths[j]] : "-"
                printf "\n"
            }
            print ""
            print "Median over the pairs of the sequence of one computation (upload, motion tensor, solve,"
            print "download; no file I/O), from flow-compute --timing-file, on " devs "."
            print ""
            print "Runs that shared the machine measured longer times than alone: `make -j N flows` runs N"
            print "computations at once on the same cores (or GPU), and other jobs count too. For times to"
            print "compare, compute them alone: `make -B flows-compute` without -j (with GPUS=..., one run per GPU)."
        }' "$1" "$1"
}

# Writes the gnuplot data for chart $1 from $2 into directory $3:
#   matrix.dat  "sequence m1 m2 ..." then one row per sequence (histograms)
#   M.dat       "megapixels ms" per method M (time-size)
chart_data() {
    awk -F, -v kind="$1" -v out="$3" "$methods_sorted"'
        FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        {
            s = $(c["sequence"]); m = $(c["method"])
            if (kind == "accuracy") { if ($(c["aae"]) == "") next; a[s, m] = $(c["aae"]); e[s, m] = $(c["aee"]) }
            else if (kind == "time") a[s, m] = $(c["time_ms"])
            else { mp = $(c["width"]) * $(c["height"]) / 1e6; print mp, $(c["time_ms"]), s > (out "/" m ".dat") }
            if (!(s in seen)) { seen[s] = 1; seqs[ns++] = s }
        }
        END {
            printf "" > (out "/methods")
            for (j = 0; j < nm; j++) print meths[j] > (out "/methods")
            if (kind == "time-size") exit 0
            for (f = 0; f < (kind == "accuracy" ? 2 : 1); f++) {
                file = out "/" (f ? "aee" : "matrix") ".dat"
                printf "sequence" > file
                for (j = 0; j < nm; j++) printf " %s", meths[j] > file
                printf "\n" > file
                for (i = 0; i < ns; i++) {
                    printf "%s", seqs[i] > file
                    for (j = 0; j < nm; j++) {
                        k = seqs[i] SUBSEP meths[j]
                        printf " %s", ((k in a) ? (f ? e[k] : a[k]) : "?") > file
                    }
                    printf "\n" > file
                }
            }
        }' "$2" "$2"
}

chart() {
    kind=$1 csvfile=$2 out=$3 gnuplot=${4:-gnuplot}
    case "$kind" in accuracy|time|time-size) ;; *) die "unknown chart '$kind' (accuracy, time, time-size)" ;; esac
    command -v "$gnuplot" >/dev/null || die "the charts need gnuplot ('$gnuplot' not found)"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    chart_data "$kind" "$csvfile" "$tmp"
    if [ "$kind" != time-size ] && [ "$(wc -l < "$tmp/matrix.dat" 2>/dev/null || echo 0)" -lt 2 ]; then
        die "$csvfile: nothing to plot for the $kind chart (no sequence$( [ "$kind" = accuracy ] && echo ' with ground truth'))"
    fi
    nseq=$(awk -F, 'NR > 1 && !($1 in s) { s[$1] = 1; n++ } END { print n + 0 }' "$csvfile")
    # the devices that measured the times, as stats.md names them (quotes
    # dropped: they would end gnuplot's string)
    devices=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { d = $(c["backend"]) ": " $(c["device"]); if (!(d in s)) { s[d] = 1; out = out (out == "" ? "" : "; ") d } }
        END { print out }' "$csvfile" | tr -d "'\"\\\\")
    here=$(cd "$(dirname "$0")" && pwd)
    "$gnuplot" -e "kind='$kind'; dir='$tmp'; out='$out.tmp'; nseq=$nseq; methods='$(tr '\n' ' ' < "$tmp/methods")'; devices='$devices'" \
        "$here/stats.gp" || { rm -f "$out.tmp"; die "gnuplot failed on the $kind chart"; }
    mv -f "$out.tmp" "$out"
}

case "${1:-}" in
    csv) [ $# -eq 2 ] || die "usage: csv RESULTS"; csv "$2" ;;
    md) [ $# -eq 2 ] || die "usage: md STATS.csv"; md "$2" ;;
    check) [ $# -eq 3 ] || die "usage: check RESULTS SEQ_DIR"; check "$2" "$3" ;;
    chart) [ $# -ge 4 ] || die "usage: chart NAME STATS.csv OUT.png [GNUPLOT]"; chart "$2" "$3" "$4" "${5:-gnuplot}" ;;
    *) echo "usage: pipeline-stats.sh csv RESULTS | md STATS.csv | chart NAME STATS.csv OUT.png [GNUPLOT] | check RESULTS SEQ_DIR" >&2; exit 1 ;;
esac
