# flow-completion.bash -- bash completion for flow-compute, flow-track,
# flow-tool, flow-synth and flow-studio.  Everything offered is read from
# the tool's own --help when TAB is pressed, so that it never drifts from
# the tool: the options, flow-tool's commands and each command's options,
# flow-compute's parameter options of the method named by -m (else of the
# default method: `flow-compute -m NAME --help`), and the values of an option
# that takes one of a list (-m/--method, --device, --solver, --motion, a 0|1
# switch ...).  Anything else completes file names.
# `make install` puts it in share/bash-completion/completions/ under each
# tool's name; or source it: . scripts/flow-completion.bash

# _flow_options: the options named in a help text (stdin): on its usage
# lines and on its option lines (indented, starting with '-').
_flow_options() {
    awk 'function scan(s,    o) {
             while (match(s, /(^|[ ,[|])--?[A-Za-z][A-Za-z0-9-]*/)) {
                 o = substr(s, RSTART, RLENGTH); sub(/^[ ,[|]/, "", o)
                 if (!(o in seen)) { seen[o] = 1; print o }
                 s = substr(s, RSTART + RLENGTH)
             }
         }
         NR == 1 && /^[Uu]sage:/ { prog = $2; usage = 1; scan($0); next }
         usage && /^ / && $1 == prog { scan($0); next }
         { usage = 0; match($0, /^ */) }
         RLENGTH >= 1 && RLENGTH <= 8 && substr($0, RLENGTH + 1, 1) == "-" { scan($0) }'
}

# _flow_commands: the commands listed in flow-tool's help (stdin): the
# indented lines that start with a lower-case word.
_flow_commands() {
    awk '/^  [a-z][a-z-]* / { print $1 }'
}

# _flow_values OPTION: the values OPTION takes when its help line lists
# them: a value placeholder such as 0|1 or N|auto (its lower-case words), or
# a description "a, b, c or d [default]" (the last "...: " before it cut off).
# cuda:N becomes cuda:0 ... for each GPU nvidia-smi lists (cuda:0 without it).
_flow_values() {
    local v n i out=
    v=$(awk -v opt="$1" '
        function flush(    d, list) {
            if (meta ~ /\|/) { gsub(/\|/, " ", meta); print meta; return }
            d = desc; sub(/\[.*/, "", d); gsub(/  +/, " ", d)
            while (match(d, /: /)) d = substr(d, RSTART + 2)
            gsub(/^ +| +$/, "", d)
            if (d ~ /^[a-z0-9][a-zA-Z0-9:-]*((, | or )[a-z0-9][a-zA-Z0-9:-]*)+$/) {
                gsub(/, | or /, " ", d); print d
            }
        }
        { match($0, /^ */); ind = RLENGTH }
        found && (/^ *$/ || ind <= 8) { flush(); found = 0; exit }
        found { desc = desc " " $0; next }
        ind >= 1 && ind <= 8 && substr($0, ind + 1, 1) == "-" {
            t = $0; sub(/^ +/, "", t); desc = ""
            if (match(t, /[^ ]  +[^ ]/)) { desc = substr(t, RSTART + 1); t = substr(t, 1, RSTART) }
            k = split(t, w, " "); meta = ""; hit = 0
            for (j = 1; j <= k; j++) {
                o = w[j]; sub(/,$/, "", o)
                if (o ~ /^-/) { if (meta != "") break; if (o == opt) hit = 1 }
                else meta = meta (meta == "" ? "" : " ") o
            }
            if (hit && meta != "") found = 1
        }
        END { if (found) flush() }')
    for i in $v; do
        case $i in
        [a-z0-9]*[a-z]:N)
            n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
            [ "${n:-0}" -gt 0 ] || n=1
            for ((k = 0; k < n; k++)); do out+=" ${i%N}$k"; done ;;
        [a-z0-9]*) out+=" $i" ;;
        esac
    done
    printf '%s\n' "${out# }"
}

# _flow_complete: the completion function of the tools
_flow_complete() {
    local tool=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= help values i
    COMPREPLY=()
    [[ $tool == "~/"* ]] && tool=$HOME/${tool#"~/"}
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    # --name=value: bash splits the word at '=' (COMP_WORDBREAKS)
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi
    if [[ ${tool##*/} == flow-tool ]]; then
        for ((i = 1; i < COMP_CWORD; i++)); do
            [[ ${COMP_WORDS[i]} != -* ]] && { cmd=${COMP_WORDS[i]}; break; }
        done
        if [[ -z $cmd ]]; then
            help=$("$tool" --help 2>/dev/null) || return 0
            COMPREPLY=($(compgen -W "$(_flow_commands <<<"$help") $(_flow_options <<<"$help")" -- "$cur"))
            return 0
        fi
        help=$("$tool" "$cmd" --help 2>/dev/null) || return 0
    else
        help=$("$tool" --help 2>/dev/null) || return 0
    fi
    if [[ ${tool##*/} == flow-compute ]]; then
        # the parameter options are the method's: -m NAME's, else the default's
        local method=
        for ((i = 1; i < COMP_CWORD - 1; i++)); do
            if [[ ${COMP_WORDS[i]} == -m || ${COMP_WORDS[i]} == --method ]]; then
                method=${COMP_WORDS[i + 1]}
                [[ $method == = ]] && method=${COMP_WORDS[i + 2]}
            fi
        done
        [[ -n $method && $method != -* ]] ||
            method=$(sed '/--method NAME/{/\]/!{N;s/\n */ /;}}' <<<"$help" |
                sed -n 's/^  -m, --method NAME .*\[\([a-z0-9-]*\)\].*/\1/p')
        [[ -z $method ]] || help=$("$tool" -m "$method" --help 2>/dev/null) ||
            help=$("$tool" --help 2>/dev/null) || return 0
    fi
    if [[ $prev == -* ]]; then
        values=$(_flow_values "$prev" <<<"$help")
        if [[ -n $values ]]; then
            COMPREPLY=($(compgen -W "$values" -- "$cur"))
            return 0
        fi
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_flow_options <<<"$help")" -- "$cur"))
    fi
    # nothing offered: file names (complete -o default)
    return 0
}
complete -o default -F _flow_complete flow-compute flow-track flow-tool flow-synth flow-studio
