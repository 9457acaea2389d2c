#!/bin/sh
# flow_corpus.sh -- CLI tests of the flow images (flow-compute --flow-images,
# flow-tool from-images) and of scripts/flow-corpus on a small generated
# corpus: the quantisation's round trip on PNG, bad input, counts, a
# failing video reported while the others complete, and a run killed
# mid-corpus whose re-run gives the bytes of an uninterrupted run.
. "$(dirname "$0")/../common/harness.sh"
FC="$BUILD/bin/flow-compute" FT="$BUILD/bin/flow-tool" FS="$BUILD/bin/flow-synth"
PY=${PYTHON:-/usr/bin/python3}
harness_need_bins "$FC" "$FT" "$FS"

"$FS" -s 64x48 -n 4 --video "$T/a.y4m" >/dev/null 2>&1
expect "flow images" 0 out EMPTY "$FC" --video "$T/a.y4m" --flow-images "$T/o" \
    --flow-names 'x_%05d.png,y_%05d.png' -o "$T/f%d.flo" -q
check "three pairs, numbered from 1, and flow.params" \
    '[ -f "$T/o/x_00003.png" ] && [ -f "$T/o/y_00001.png" ] && [ ! -e "$T/o/x_00000.png" ] && [ -f "$T/o/flow.params" ]'
expect "from-images" 0 out EMPTY "$FT" from-images "$T/o/x_00001.png" "$T/o/y_00001.png" "$T/back.flo"
# each component within half a level, B/255 px, so the endpoint within
# sqrt(2) B/255 = 0.1109 px (the flow's 64x48 translation is inside the bound)
max_ee=$("$FT" error --csv "$T/back.flo" "$T/f0.flo" 2>/dev/null | tail -n 1 | cut -d, -f7)
check "round trip within half a level (B/255 px)" \
    '[ -n "$max_ee" ] && awk -v e="$max_ee" "BEGIN { exit !(e <= 0.1109) }"'
expect "missing y image" 2 err "missing.png" "$FT" from-images "$T/o/x_00001.png" "$T/missing.png" "$T/b.flo"
"$FS" -s 32x24 -n 2 -o "$T/s%d.png" >/dev/null 2>&1
expect "size mismatch" 2 err "one size" "$FT" from-images "$T/o/x_00001.png" "$T/s0.png" "$T/b.flo"
expect "bound 0" 1 err "flow-bound: 0 is out of range" "$FC" --video "$T/a.y4m" --flow-images "$T/o2" --flow-bound 0
expect "bound -1 (flow-tool)" 1 err "bound: -1 is out of range" "$FT" from-images -b -1 "$T/o/x_00001.png" "$T/o/y_00001.png" "$T/b.flo"
expect "bad names" 1 err "flow-names" "$FC" --video "$T/a.y4m" --flow-images "$T/o2" --flow-names 'x.png'

# ---- the corpus driver -------------------------------------------------------
mkdir "$T/v"
for i in 1 2 3 4 5 6; do "$FS" -s 96x72 -n 12 --seed $i --video "$T/v/c$i.y4m" >/dev/null 2>&1; done
echo "not a video" >"$T/v/bad.y4m"
expect "corpus with a corrupt video" 2 err "bad.y4m: .*YUV4MPEG2" scripts/flow-corpus "$T/v" -o "$T/ref" -d cpu -q -- -m lk
check "every good video done, the bad one absent" \
    '[ $(ls "$T/ref" | wc -l) -eq 6 ] && [ ! -e "$T/ref/bad" ] && [ $(ls "$T/ref/c3" | wc -l) -eq 23 ]'
rm "$T/v/bad.y4m"
# a run in a session of its own (killed as a group), SIGINT at its default:
# a script's background job would ignore it
LAUNCH='import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.setsid(); os.execvp(sys.argv[1], sys.argv[1:])'
# killed outright mid-corpus (the whole process group), then re-run
"$PY" -c "$LAUNCH" scripts/flow-corpus "$T/v" -o "$T/k" -d cpu -q -- -m lk >/dev/null 2>&1 &
pid=$!
while [ "$(ls "$T/k" 2>/dev/null | wc -l)" -lt 1 ]; do sleep 0.1; done
"$PY" -c "import os, signal; os.killpg($pid, signal.SIGKILL)"
wait "$pid" 2>/dev/null
# a machine fast enough to finish the corpus before the signal tests nothing
if [ "$(ls "$T/k" | wc -l)" -lt 6 ]; then ok; else skip "SIGKILL came after the last video"; fi
expect "re-run after SIGKILL" 0 err ", 0 failed" scripts/flow-corpus "$T/v" -o "$T/k" -d cpu -q -- -m lk
check "SIGKILL: outputs equal an uninterrupted run" \
    '(cd "$T/ref" && find . -type f ! -name flow.params | sort | xargs cat) | cmp -s - "$(cd "$T/k" && find . -type f ! -name flow.params | sort | xargs cat >"$T/kcat"; echo "$T/kcat")"'
# interrupted with SIGINT
"$PY" -c "$LAUNCH" scripts/flow-corpus "$T/v" -o "$T/i" -d cpu -q -- -m lk >/dev/null 2>&1 &
pid=$!
while [ "$(ls "$T/i" 2>/dev/null | wc -l)" -lt 1 ]; do sleep 0.1; done
kill -INT "$pid"
wait "$pid"
rc=$?
check "SIGINT: exit 130" '[ $rc -eq 130 ]'
check "SIGINT: no partial video left" '[ ! -e "$T/i/.partial" ]'
if [ "$(ls "$T/i" | wc -l)" -lt 6 ]; then ok; else skip "SIGINT came after the last video"; fi
expect "re-run after SIGINT" 0 err ", 0 failed" scripts/flow-corpus "$T/v" -o "$T/i" -d cpu -q -- -m lk
check "SIGINT: outputs equal an uninterrupted run" \
    '(cd "$T/ref" && find . -type f ! -name flow.params | sort | xargs cat) | cmp -s - "$(cd "$T/i" && find . -type f ! -name flow.params | sort | xargs cat >"$T/icat"; echo "$T/icat")"'

# scripts/bench-corpus: the rate over a generated corpus, every output checked
expect "bench-corpus: png outputs verified" 0 out "checked: 2 of 2 videos" \
    scripts/bench-corpus -n 2 -f 4 -s 64x48 --format png -d cpu -j 2 -- -m lk
expect "bench-corpus: a clamped flow fails the png check" 2 err "more than half a level" \
    scripts/bench-corpus -n 2 -f 3 -s 64x48 --format png -d cpu -j 2 -- -m lk --flow-bound 0.2
expect "bench-corpus: a bad option is named" 1 err "--format must be jpg or png, not 'gif'" \
    scripts/bench-corpus --format gif
harness_report
