#!/bin/sh
# flows-progress.sh -- the overall progress of `make flows` across its
# flow-compute and flow-track runs (scripts/flows.mk), safe under make -j:
#
#   flows-progress.sh start DIR TOTAL   DIR: a fresh directory for this make;
#                                       TOTAL: the runs it will do
#   flows-progress.sh done DIR WHAT     one run (WHAT: "demo-large/dis") done:
#                                       prints "  RUNS    3/16 done (demo-large/dis),
#                                       42 s, about 2 min 10 s left"
#
# The time left is the time so far per run done, times the runs left: runs
# of different methods and sizes differ, so it is an estimate that firms up
# as the runs go.  Each run appends a line to DIR/done.  Without DIR/total (a stage run on its
# own) `done` prints nothing.
set -eu

human() { # seconds -> "42 s" or "2 min 10 s" or "1 h 05 min"
    s=$1
    if [ "$s" -ge 3600 ]; then printf '%d h %02d min' $((s / 3600)) $((s % 3600 / 60))
    elif [ "$s" -ge 60 ]; then printf '%d min %02d s' $((s / 60)) $((s % 60))
    else printf '%d s' "$s"; fi
}

case "${1:-}" in
    start)
        [ $# -eq 3 ] || { echo "usage: flows-progress.sh start DIR TOTAL" >&2; exit 1; }
        mkdir -p "$2"
        date +%s > "$2/start"
        echo "$3" > "$2/total"
        : > "$2/done"
        ;;
    done)
        [ $# -eq 3 ] || { echo "usage: flows-progress.sh done DIR WHAT" >&2; exit 1; }
        [ -n "$2" ] && [ -f "$2/total" ] || exit 0
        # the append, the count and the line under one lock: two runs that
        # end together print 1/N and 2/N, in that order, never 2/N twice
        exec 9>>"$2/lock"
        ! command -v flock >/dev/null 2>&1 || flock 9
        echo "$3" >> "$2/done"
        total=$(cat "$2/total") start=$(cat "$2/start") now=$(date +%s)
        k=$(wc -l < "$2/done")
        elapsed=$((now - start))
        line="$k/$total done ($3), $(human "$elapsed")"
        if [ "$k" -lt "$total" ]; then
            line="$line, about $(human $(( (elapsed * (total - k) + k / 2) / k ))) left"
        fi
        [ ! -t 1 ] || printf '\r\033[K'
        printf '  %-7s %s\n' RUNS "$line"
        ;;
    *) echo "usage: flows-progress.sh start DIR TOTAL | done DIR WHAT" >&2; exit 1 ;;
esac
