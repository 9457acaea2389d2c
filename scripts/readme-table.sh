#!/bin/sh
# readme-table.sh -- `make readme-table`: rewrites the README's table of the
# demo sequences from the results of `make demo` (results/stats.csv), so
# that the table says what the code measures, not what it once measured.
#
#   readme-table.sh STATS.csv README.md DEFAULT_METHOD
#
# The table lies between the lines "<!-- demo-table begin -->" and
# "<!-- demo-table end -->" of README.md: a row per demo sequence (demo-*),
# a column per method (C-locale order; DEFAULT_METHOD marked "(default)"),
# cells "AAE / AEE", means over the pairs as stats.md gives them, "-" where
# results/ has no score; then a line saying how and where it was measured
# (the backend and device of the timing files, the date of STATS.csv, the
# commit when README.md is in a git checkout).  README.md is replaced
# whole or not at all.
set -eu
export LC_ALL=C

die() { echo "readme-table.sh: $*" >&2; exit 2; }
[ $# -eq 3 ] || { echo "usage: readme-table.sh STATS.csv README.md DEFAULT_METHOD" >&2; exit 1; }
csv=$1 readme=$2 default=$3
[ -f "$csv" ] || die "no $csv: run make demo first"
[ -f "$readme" ] || die "no $readme"
[ "$(grep -c '^<!-- demo-table \(begin\|end\) -->$' "$readme")" -eq 2 ] \
    || die "$readme: no '<!-- demo-table begin -->' and '<!-- demo-table end -->' lines"
grep -q '^demo-' "$csv" || die "$csv: no demo sequence (run make demo)"

when=$(date -u -r "$csv" +%Y-%m-%d)
dir=$(dirname "$readme")
commit=$(git -C "$dir" rev-parse --short HEAD 2>/dev/null || true)
if [ -n "$commit" ] && [ -n "$(git -C "$dir" status --porcelain --untracked-files=no -- . 2>/dev/null | grep -v ' README.md$' || true)" ]; then
    commit="$commit with local changes"
fi

table=$(mktemp)
trap 'rm -f "$table" "$readme.tmp"' EXIT
awk -F, -v default="$default" -v when="$when" -v commit="$commit" '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $1 !~ /^demo-/ { next }
    {
        s = $(c["sequence"]); m = $(c["method"])
        if (!(s in seen)) { seen[s] = 1; seqs[ns++] = s; size[s] = $(c["width"]) "x" $(c["height"]) }
        if (!(m in mset)) { mset[m] = 1; meths[nm++] = m }
        if ($(c["aae"]) != "") cell[s, m] = sprintf("%.2f / %.3f", $(c["aae"]), $(c["aee"]))
        d = $(c["backend"]) " backend (" $(c["device"]) ")"
        if (!(d in dseen)) { dseen[d] = 1; devs = devs (devs == "" ? "" : "; ") d }
    }
    END {
        for (i = 1; i < ns; i++) for (j = i; j > 0 && seqs[j - 1] > seqs[j]; j--) { t = seqs[j]; seqs[j] = seqs[j - 1]; seqs[j - 1] = t }
        for (i = 1; i < nm; i++) for (j = i; j > 0 && meths[j - 1] > meths[j]; j--) { t = meths[j]; meths[j] = meths[j - 1]; meths[j - 1] = t }
        printf "| sequence | size |"
        for (j = 0; j < nm; j++) printf " %s%s |", meths[j], meths[j] == default ? " (default)" : ""
        printf "\n|---|---|"
        for (j = 0; j < nm; j++) printf "---:|"
        printf "\n"
        for (i = 0; i < ns; i++) {
            printf "| %s | %s |", seqs[i], size[seqs[i]]
            for (j = 0; j < nm; j++) printf " %s |", ((seqs[i], meths[j]) in cell) ? cell[seqs[i], meths[j]] : "-"
            printf "\n"
        }
        printf "\nAAE (degrees) / AEE (pixels), means over the pairs: `make demo` on the %s, %s%s,\n", devs, when, commit != "" ? ", commit " commit : ""
        printf "written here by `make readme-table`.\n"
    }' "$csv" > "$table"

awk -v table="$table" '
    /^<!-- demo-table begin -->$/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
    /^<!-- demo-table end -->$/ { skip = 0 }
    !skip' "$readme" > "$readme.tmp"
mv -f "$readme.tmp" "$readme"
trap - EXIT
rm -f "$table"
echo "readme-table: $readme: the demo table from $csv ($(grep -c '^demo-' "$csv") runs)"
