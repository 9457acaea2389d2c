#!/bin/sh
# man_completion.sh -- the man pages ($BUILD/man/man1, made by make man from
# the tools' --help) and the bash completion (scripts/flow-completion.bash).
# A page must render without warnings, have its sections and name every long
# option of its tool's --help (and of each flow-tool command's); the
# completion must offer the options, methods, commands and their options the
# tools' help lists.
# Prints "N passed, N failed[, N skipped]".
. "$(dirname "$0")/../common/harness.sh" # BUILD, BIN, T, expect, ok, bad, skip, check, ...
root=$(pwd)
harness_need_bins "$BIN/flow-compute" "$BIN/flow-tool" "$BIN/flow-synth" "$BIN/flow-track"
M="$BUILD/man/man1"

# long_options HELP_FILE: the long options a help text names
long_options() { grep -oE -- '--[a-zA-Z][a-zA-Z0-9-]*' "$1" | sort -u; }

# flow-studio where the build has it (with the Python module)
studio=""
[ -x "$BIN/flow-studio" ] && studio=flow-studio || skip "flow-studio.1: flow-studio is not built (no Python module)"
for t in flow-compute flow-tool flow-synth flow-track $studio; do
    page="$M/$t.1"
    check "$t.1 made" '[ -s "$page" ]'
    [ -s "$page" ] || continue
    if command -v groff >/dev/null; then
        expect "$t.1 renders without warnings (groff -ww)" 0 err EMPTY groff -man -Tutf8 -ww -z "$page"
        # spaces squeezed: a justified line has some doubled
        groff -man -Tascii -P-cbou "$page" 2>/dev/null | tr -s ' ' >"$T/$t.txt"
    else
        skip "$t.1 renders without warnings: no groff"
        continue
    fi
    if command -v man >/dev/null; then
        expect "$t.1 renders without warnings (man -l)" 0 err EMPTY \
            sh -c 'MANWIDTH=80 man -l --warnings=all "$1" >/dev/null' sh "$page"
    else
        skip "$t.1 with man -l: no man"
    fi
    sections="NAME SYNOPSIS DESCRIPTION OPTIONS|COMMANDS EXIT.STATUS VERSION SEE.ALSO"
    for s in $sections; do
        check "$t.1 has ${s%%|*}" 'grep -Eq "^($s)\$" "$T/$t.txt"'
    done
    check "$t.1: NAME '$t - ...'" 'grep -Eq "^ $t - [A-Z]" "$T/$t.txt"'
    # whatis reads the NAME line's source: a roff break point (\:) shows as ':'
    check "$t.1: NAME line without roff escapes other than \\-" \
        'sed -n "/^\.SH NAME\$/{n;p;}" "$page" | sed "s/\\\\-//g" | grep -qv "\\\\"'
    if command -v lexgrog >/dev/null; then
        check "$t.1: whatis says '$t - ...' with no stray ' :'" \
            'lexgrog "$page" | grep -q "\"$t - [A-Z]" && ! lexgrog "$page" | grep -q " :"'
    fi
    check "$t.1: the exit codes" 'sed -n "/^EXIT STATUS/,/^[A-Z]/p" "$T/$t.txt" | grep -q "0 ok, 1 usage"'
    "$BIN/$t" --help >"$T/help" 2>&1
    if [ "$t" = flow-tool ]; then
        for c in $(awk '/^  [a-z][a-z-]* / { print $1 }' "$T/help"); do
            "$BIN/$t" "$c" --help >>"$T/help" 2>&1
            check "flow-tool.1 has the command $c" 'grep -Eq "^ $c\$" "$T/$t.txt"'
        done
    fi
    if [ "$t" = flow-compute ]; then
        # each method's parameters are in its -m NAME --help and in METHODS
        for m in $("$BIN/$t" --help | sed '/--method NAME/{/\]/!{N;s/\n */ /;}}' | sed -n 's/^  -m, --method NAME *\([^[]*\) \[.*/\1/p' | sed 's/,//g; s/ or / /'); do
            "$BIN/$t" -m "$m" --help >>"$T/help" 2>&1
            check "flow-compute.1 has the method $m under METHODS" \
                'sed -n "/^METHODS\$/,/^EXIT STATUS\$/p" "$T/$t.txt" | grep -Eq "^ $m\$"'
        done
        check "flow-compute.1: dis's --preset under dis" \
            'sed -n "/^METHODS\$/,/^EXIT STATUS\$/p" "$T/$t.txt" | sed -n "/^ dis\$/,\$p" | grep -q -- "--preset"'
    fi
    check "$t: its help (every command's, every method's) names no internal report (seed 00N)" \
        '! grep -q "seed 0[0-9]" "$T/help" && ! grep -q "seed 0[0-9]" "$page"'
    missing=$(long_options "$T/help" | while read -r o; do grep -qF -- "$o" "$T/$t.txt" || printf '%s ' "$o"; done)
    n=$(long_options "$T/help" | wc -l)
    check "$t.1 names the $n long options of --help (missing: ${missing:-none})" '[ "$n" -gt 1 ] && [ -z "$missing" ]'
done
# make help: the goals and options, each description whole (one once stopped
# at "where python3-dev and numpy are")
expect "make help" 0 out "^  make install " env MAKEFLAGS= make -s -C "$root" help BUILD="$BUILD"
check "make help: no line ends on a word that leaves its sentence open" \
    '! grep -Eqw "(a|an|the|and|or|of|where|are|is|to|with|by|for)\$" "$T/out"'
# a page follows its tool: a changed --help is a changed page
printf '#!/bin/sh\ncase $1 in --version) echo "flow-fake 9.9.9 (libflow 9.9.9)";; *) printf "Usage: flow-fake [options] IN\\nFakes.\\n\\n  -z, --zebra-stripes N  stripes [3]\\n\\nExit status: 0 ok.\\n";; esac\n' >"$T/flow-fake"
chmod +x "$T/flow-fake"
expect "man-page.sh on another tool" 0 out 'zebra-stripes' sh scripts/man-page.sh "$T/flow-fake"
check "its version in the header" 'grep -q "^\.TH FLOW-FAKE 1 \"\" \"flow-fake 9\.9\.9\"" "$T/out"'
expect "man-page.sh: a tool that does not run fails" 1 err . sh scripts/man-page.sh "$T/no-such-tool"

# The completion, driven by hand as bash would (COMP_WORDS, COMP_CWORD).
if command -v bash >/dev/null; then
    # complete WORD...: what _flow_complete offers for the last word
    complete_words() {
        PATH="$BIN:$PATH" bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _flow_complete
                                   printf "%s\n" "${COMPREPLY[@]}"' "$root/scripts/flow-completion.bash" "$@"
    }
    words() { complete_words "$@" | tr '\n' ' ' | sed 's/ $//'; }
    check "flow-compute --me: --method" 'words flow-compute --me | grep -qw -- --method'
    methods=$("$BIN/flow-compute" --help | sed '/--method NAME/{/\]/!{N;s/\n */ /;}}' | sed -n 's/^  -m, --method NAME *\([^[]*\) \[.*/\1/p' | sed 's/,//g; s/ or / /')
    check "flow-compute -m: the methods of --help ($methods)" '[ -n "$methods" ] && [ "$(words flow-compute -m "")" = "$methods" ]'
    check "flow-compute --method cl: clg clg-nl" '[ "$(words flow-compute --method cl)" = "clg clg-nl" ]'
    check "flow-compute --method=: the methods" '[ "$(words flow-compute --method = "")" = "$methods" ]'
    check "flow-compute --device: auto cpu cuda cuda:0..." 'words flow-compute --device "" | grep -q "^auto cpu cuda cuda:0"'
    check "flow-compute --solver: its values" '[ "$(words flow-compute --solver "")" = "jacobi rbsor v w cascadic fmg" ]'
    check "flow-compute -m lk --fill-unknown: 0 1" '[ "$(words flow-compute -m lk --fill-unknown "")" = "0 1" ]'
    check "flow-compute --pres: the default method's (robust) has no --preset" '[ -z "$(words flow-compute --pres)" ]'
    check "flow-compute --median-o: the default method's (robust) options" \
        '[ "$(words flow-compute --median-o)" = "--median-occ-d --median-occ-e" ]'
    check "flow-compute -m dis --pre: --preset" '[ "$(words flow-compute -m dis --pre)" = "--preset" ]'
    check "flow-compute --method=dis --pre: --preset" '[ "$(words flow-compute --method = dis --pre)" = "--preset" ]'
    check "flow-compute -m dis --preset: its values" '[ "$(words flow-compute -m dis --preset "")" = "ultrafast fast medium" ]'
    check "flow-compute -m dis --win: nothing (a parameter of lk)" '[ -z "$(words flow-compute -m dis --win)" ]'
    check "flow-compute -m lk --win: lk's" '[ "$(words flow-compute -m lk --win)" = "--window --window-size" ]'
    check "flow-compute -o: nothing (file names)" '[ -z "$(words flow-compute -o "")" ]'
    check "flow-compute --rgb: nothing (a switch; file names)" '[ -z "$(words flow-compute --rgb "")" ]'
    check "flow-synth -m: the motions" '[ "$(words flow-synth -m "")" = "translate rotate zoom rotozoom smooth object" ]'
    check "flow-track --no-: its switches" '[ "$(words flow-track --no-)" = "--no-affine --no-replace" ]'
    cmds=$("$BIN/flow-tool" --help | awk '/^  [a-z][a-z-]* / { print $1 }' | tr '\n' ' ')
    check "flow-tool: its commands ($cmds) and --help --version" '[ "$(words flow-tool "")" = "$cmds--help --version" ]'
    check "flow-tool co: color, confidence, convert" '[ "$(words flow-tool co)" = "convert color confidence" ]'
    check "flow-tool color --: color's options" '[ "$(words flow-tool color --)" = "--max --legend --border --scale-label --exact --verbose --help" ]'
    check "flow-tool -v color --l: color's options after an option" '[ "$(words flow-tool color -v --l)" = "--legend" ]'
    check "flow-tool vectors --step: auto" '[ "$(words flow-tool vectors --step "")" = "auto" ]'
    check "flow-tool error x: nothing (file names)" '[ -z "$(words flow-tool error x)" ]'
    check "registered for the five tools" \
        '[ "$(bash -c ". scripts/flow-completion.bash; complete -p" | grep -c "_flow_complete flow-")" -ge 1 ] &&
         [ "$(bash -c ". scripts/flow-completion.bash; complete -p flow-compute flow-tool flow-synth flow-track flow-studio" | wc -l)" -eq 5 ]'
    if [ -n "$studio" ]; then
        check "flow-studio --de: --device" '[ "$(words flow-studio --de)" = "--device" ]'
        check "flow-studio --device: auto cpu cuda cuda:0..." 'words flow-studio --device "" | grep -q "^auto cpu cuda cuda:0"'
    fi
else
    skip "completion: no bash"
fi
harness_report
