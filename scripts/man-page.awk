# man-page.awk -- one part of a man page (roff, man macros) from a tool's
# --help text on stdin; scripts/man-page.sh puts the parts together.
#   -v part=name         the NAME line's summary: the description's first clause
#   -v part=synopsis     the usage lines
#   -v part=description  the paragraphs of text, less the exit status
#   -v part=options      the headings (.SS) and their items (.TP)
#   -v part=exit         the "Exit status: ..." sentences
#   -v part=examples     the lines under "Examples:"
#   -v part=commands     the names of the subcommands listed (flow-tool)
#   -v part=all          everything in the order of the help, for a subcommand
# The help's layout: "Usage:" lines; paragraphs of text at column 0; a
# heading (text ending with ':') over indented items, each an option or
# operand with its description beside it or below, continued further in.
{ line[++n] = $0 }

function indent(s) { match(s, /^ */); return RLENGTH }
function strip(s) { sub(/^ +/, "", s); sub(/ +$/, "", s); gsub(/  +/, " ", s); return s }

# esc(s): roff-safe text; a dash that starts an option or a negative number
# is a minus sign (\-), so that the page can be searched for "--name".
function esc(s,    out, i, c, prev, escaped) {
    gsub(/\\/, "\\e", s)
    out = ""; prev = " "; escaped = 0
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "-" && (escaped || index(" ([|`'\"/=,", prev)) && substr(s, i + 1, 1) ~ /[-A-Za-z0-9]/) {
            out = out "\\-"; escaped = 1
        } else {
            out = out c; escaped = 0
        }
        prev = c
    }
    # a line may break after a comma inside a long word (a,b,c,...)
    gsub(/,/, ",\\:", out)
    sub(/,\\:$/, ",", out)
    if (out ~ /^[.']/) out = "\\&" out
    return out
}

# term(s): an item's term, options in bold, their values in italics
function term(s,    w, k, out, tok, tail, i) {
    k = split(s, w, " ")
    out = ""
    for (i = 1; i <= k; i++) {
        tok = w[i]; tail = ""
        if (tok ~ /,$/) { tok = substr(tok, 1, length(tok) - 1); tail = "," }
        if (tok ~ /^-/ || (i == 1 && tok ~ /^[a-z]/))
            out = out (i > 1 ? " " : "") "\\fB" esc(tok) "\\fR" tail
        else
            out = out (i > 1 ? " " : "") "\\fI" esc(tok) "\\fR" tail
    }
    return out
}

function text_lines(txt,    k, w, i) {
    k = split(txt, w, "\n")
    for (i = 1; i <= k; i++)
        if (strip(w[i]) != "") print esc(strip(w[i]))
}

# The exit status sentences of a paragraph: from "Exit status:" to the end of
# its sentence (a period before two spaces or a line end); the rest in rest.
function split_exit(txt,    s, tail) {
    exit_part = ""; rest = txt
    s = index(txt, "Exit status:")
    if (!s) return
    tail = substr(txt, s)
    if (match(tail, /\.(  |\n)/)) {
        exit_part = substr(tail, 1, RSTART)
        rest = substr(txt, 1, s - 1) substr(tail, RSTART + RLENGTH)
    } else {
        exit_part = tail
        rest = substr(txt, 1, s - 1)
    }
}

# summary(txt): the first clause of txt, up to the first '.', ':' or ';'
# outside parentheses that ends a sentence or clause
function summary(txt,    i, c, depth) {
    gsub(/\n/, " ", txt)
    depth = 0
    for (i = 1; i <= length(txt); i++) {
        c = substr(txt, i, 1)
        if (c == "(") depth++
        else if (c == ")") depth--
        else if (depth == 0 && index(".:;", c) && substr(txt, i + 1, 1) ~ /^( |$)/)
            return substr(txt, 1, i - 1)
    }
    return txt
}

function heading(txt,    title, note) {
    gsub(/\n/, " ", txt)
    sub(/:$/, "", txt)
    title = txt; note = ""
    if (match(txt, / \(/)) { title = substr(txt, 1, RSTART - 1); note = substr(txt, RSTART + 1) }
    if (part == "options") {
        print ".SS \"" esc(title) "\""
        if (note != "") print esc(note)
    }
}

function paragraph(txt,    s) {
    # whatis and apropos read the NAME line as it is written: no break points
    if (part == "name" && !named) { s = esc(summary(txt)); gsub(/,\\:/, ",", s); print s; named = 1 }
    split_exit(txt)
    if (part == "exit" && exit_part != "") text_lines(substr(exit_part, length("Exit status: ") + 1))
    if ((part == "description" && rest ~ /[^ \n]/) || part == "all") {
        print ".PP"
        text_lines(part == "all" ? txt : rest)
    }
}

# items(i): the indented lines from line i on; returns the next line's index
function items(i,    ind, t, d, col, cind, ct, k, w, j, r) {
    while (i <= n && line[i] ~ /^ +[^ ]/) {
        ind = indent(line[i]); t = substr(line[i], ind + 1)
        d = ""
        if (ind <= 8 && (t ~ /^-/ || match(t, /[^ ]  +[^ ]/))) {
            # the term ends at a gap of two spaces, or (options) at the first
            # word that is neither an option nor a value (--vector-scale S arrow ...)
            if (match(t, /[^ ]  +[^ ]/)) { d = substr(t, RSTART + 1); t = substr(t, 1, RSTART) }
            if (t ~ /^-/) {
                k = split(t, w, " "); t = w[1]
                for (j = 2; j <= k && (w[j] ~ /^-/ || w[j] ~ /^[A-Z0-9]/ || w[j] ~ /\|/); j++) t = t " " w[j]
                for (r = ""; j <= k; j++) r = r " " w[j]
                d = r " " d
            }
            d = strip(d)
            col = d == "" ? -1 : length(line[i]) - length(d)
            if (part == "options" || part == "all") { print ".TP"; print term(t); if (d != "") print esc(d) }
            if (part == "commands" && t ~ /^[a-z]/) { split(t, w, " "); print w[1] }
        } else if (part == "options" || part == "all") {
            col = ind
            print ".IP"
            print esc(strip(t))
        }
        for (i++; i <= n && line[i] ~ /^ +[^ ]/; i++) {
            cind = indent(line[i]); ct = strip(line[i])
            if (cind <= ind || (cind <= 8 && ct ~ /^-/)) break
            if (col < 0) col = cind
            if (part != "options" && part != "all") continue
            # the methods under -m, and the defaults under a parameter, on lines of their own
            if ((cind > col && ct ~ /^[a-z][a-z0-9-]*: /) || (cind == col && ct ~ /^\[/)) print ".br"
            print esc(ct)
        }
    }
    return i
}

END {
    i = 1
    if (line[1] ~ /^[Uu]sage: /) {
        u = line[1]; sub(/^[Uu]sage: +/, "", u)
        split(u, w, " "); prog = w[1]
        usage[nus = 1] = u
        for (i = 2; i <= n && line[i] ~ /^ +[^ ]/; i++) {
            split(line[i], w, " ")
            if (w[1] != prog) break
            usage[++nus] = strip(line[i])
        }
        if (part == "synopsis" || part == "all") {
            if (part == "all") print ".PP"
            for (k = 1; k <= nus; k++) {
                split(usage[k], w, " ")
                print "\\fB" esc(w[1]) "\\fR" esc(substr(usage[k], length(w[1]) + 1))
                if (k < nus) print ".br"
            }
        }
    }
    while (i <= n) {
        if (line[i] ~ /^ *$/) { i++; continue }
        if (line[i] ~ /^ /) { i = items(i); continue }
        txt = line[i]
        for (i++; i <= n && line[i] ~ /^[^ ]/; i++) txt = txt "\n" line[i]
        if (txt == "Examples:") {
            if (part == "examples" || part == "all") { print ".PP"; print ".nf"; print ".RS 4" }
            for (; i <= n && line[i] ~ /^ +[^ ]/; i++)
                if (part == "examples" || part == "all") print esc(strip(line[i]))
            if (part == "examples" || part == "all") { print ".RE"; print ".fi" }
        } else if (txt ~ /:$/ && i <= n && line[i] ~ /^ +[^ ]/ && part != "all") {
            heading(txt)
        } else {
            paragraph(txt)
        }
    }
}
