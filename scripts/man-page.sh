#!/bin/sh
# man-page.sh -- writes the man page of a tool on stdout, made from the
# tool's own --help and --version, so that the page never drifts from them:
#     scripts/man-page.sh BINARY [SEE_ALSO...]
# SEE_ALSO: the other tools (pages in section 1) and the guides of the
# sources (names ending in .md).  A tool whose usage names a COMMAND
# (flow-tool) gets a COMMANDS section with each command's own --help; one
# whose help points to "-m NAME --help" for a method's parameters
# (flow-compute) gets a METHODS section with each method's parameters.
set -e
bin=$1
shift
name=$(basename "$bin")
awk_file=$(dirname "$0")/man-page.awk
help=$("$bin" --help) && version=$("$bin" --version) || {
    echo "man-page.sh: '$bin --help' or '$bin --version' failed" >&2
    exit 1
}
part() { printf '%s\n' "$help" | awk -v part="$1" -f "$awk_file"; }
upper=$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]')

printf '.TH %s 1 "" "%s" "User Commands"\n' "$upper" "$(printf '%s\n' "$version" | sed -n '1s/ (.*//p')"
# no hyphenation: an option's name stays whole, to be searched for
printf '.nh\n'
printf '.SH NAME\n%s \\- %s\n' "$name" "$(part name)"
printf '.SH SYNOPSIS\n'
part synopsis
printf '.SH DESCRIPTION\n'
part description
if printf '%s\n' "$help" | sed -n 1p | grep -q ' COMMAND '; then
    printf '.SH COMMANDS\n'
    part options
    for cmd in $(part commands); do
        printf '.SS %s\n' "$cmd"
        "$bin" "$cmd" --help | awk -v part=all -f "$awk_file"
    done
else
    printf '.SH OPTIONS\n'
    part options
fi
if printf '%s\n' "$help" | grep -q ' -m NAME --help$'; then
    printf '.SH METHODS\n.PP\n'
    printf 'The parameters of each method, with its defaults (\\fB%s \\-m\\fR \\fINAME\\fR \\fB\\-\\-help\\fR).\n' "$name"
    methods=$(printf '%s\n' "$help" | sed '/--method NAME/{/\]/!{N;s/\n */ /;}}' | sed -n 's/^  -m, --method NAME *\([^[]*\) \[.*/\1/p' | sed 's/,//g; s/ or / /')
    for m in $methods; do
        printf '.SS %s\n' "$m"
        "$bin" -m "$m" --help | awk '/^Parameters of / { on = 1; next } on && /^[^ ]/ { exit } on' |
            awk -v part=all -f "$awk_file"
    done
fi
printf '.SH "EXIT STATUS"\n'
part exit
if printf '%s\n' "$help" | grep -q '^Examples:$'; then
    printf '.SH EXAMPLES\n'
    part examples
fi
printf '.SH VERSION\n.nf\n'
printf '%s\n' "$version" | sed 's/\\/\\e/g; s/^[.'\'']/\\\&&/'
printf '.fi\n'
if [ $# -gt 0 ]; then
    printf '.SH "SEE ALSO"\n'
    for see in "$@"; do
        case $see in
        *.md) guides="${guides:+$guides, }$see" ;;
        *) pages="${pages:+$pages,\n}.BR $see (1)" ;;
        esac
    done
    [ -z "$pages" ] || printf "$pages\n"
    [ -z "$guides" ] || printf '.PP\nThe guides in the flow-platform sources: %s.\n' "$guides"
fi
