#!/bin/sh
# pipeline_gpus.sh -- `make -j N flows GPUS=...` (scripts/gpu-slot) without
# GPUs: flow-compute is replaced, through FLOW_COMPUTE, by a recorder that
# writes down the --device the pipeline gave it and when it ran, then
# computes the flows on the CPU and holds on for half a second, as a longer
# GPU run would.  Checked: every run got cuda:N of GPUS, two runs never held
# one GPU at once while both GPUs worked together, the flows equal those of a
# plain CPU run; one GPU serialises the runs; bad GPUS and GPUS with DEVICE
# are refused; a killed run frees its GPU.
# Prints "N passed, N failed".
. "$(dirname "$0")/../common/harness.sh"
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
harness_need_bins "$BIN/flow-compute" "$BIN/flow-tool" "$BIN/flow-synth" "$BIN/flow-track"

DEMOS="translate rotate zoom object"
mkdir -p "$T/params"
cp params/lk.params "$T/params/"
make --no-print-directory -C sequences SRC="$T/src" DST="$T/dst" BIN="$BIN" PARAMS_DIR="$T/params" \
    demo DEMO_FRAMES=2 DEMO_SELECT="$DEMOS" >"$T/demo.log" 2>&1 || {
    bad "make -C sequences demo: $(tail -n 5 "$T/demo.log")"
    harness_report
    exit
}
flowmake() { # flowmake RESULTS ARGS...
    r=$1
    shift
    make --no-print-directory -f scripts/flows.mk SEQ_SRC="$T/src" SEQ_DIR="$T/dst" RESULTS="$r" \
        BIN="$BIN" PARAMS_DIR="$T/params" GPU_LOCKS="$T/locks" METHODS=lk "$@"
}

# The recorder: "DEVICE START_NS END_NS SEQUENCE" per run into $T/runs.
cat >"$T/record-compute" <<EOF
#!/bin/sh
[ "\$1" = --device ] || { echo "record-compute: --device first expected, got '\$1'" >&2; exit 9; }
dev=\$2
shift 2
start=\$(date +%s%N)
"$BIN/flow-compute" --device cpu "\$@" || exit
sleep 0.5
seq=\$(printf '%s\n' "\$@" | sed -n 's|.*/\([^/]*\)/frame_%03d.png\$|\1|p')
echo "\$dev \$start \$(date +%s%N) \$seq" >>"\$RUNS"
EOF
chmod +x "$T/record-compute"

# same_gpu_overlaps RUNS: the number of pairs of runs on one device whose
# times overlap; most_at_once RUNS: the most runs at one time.
same_gpu_overlaps() {
    awk '{ d[NR] = $1; s[NR] = $2; e[NR] = $3 }
         END { n = 0; for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++)
                   if (d[i] == d[j] && s[i] < e[j] && s[j] < e[i]) n++; print n }' "$1"
}
most_at_once() {
    awk '{ s[NR] = $2; e[NR] = $3 }
         END { m = 0; for (i = 1; i <= NR; i++) { k = 0; for (j = 1; j <= NR; j++) if (s[j] <= s[i] && s[i] < e[j]) k++; if (k > m) m = k } print m }' "$1"
}

# ---- the reference: a plain CPU run ---------------------------------------------
flowmake "$T/ref" flows-compute DEVICE=cpu >"$T/out" 2>&1
check "make flows-compute DEVICE=cpu (reference): $(tail -n 3 "$T/out")" '[ $? -eq 0 ]'

# ---- two GPUs, four jobs at once ------------------------------------------------
export RUNS="$T/runs"
flowmake "$T/two" -j4 flows-compute GPUS=0,1 FLOW_COMPUTE="$T/record-compute" >"$T/out" 2>&1
check "make -j4 flows-compute GPUS=0,1: $(tail -n 3 "$T/out")" '[ $? -eq 0 ]'
check "GPUS=0,1: one run per sequence ($(wc -l <"$RUNS"))" '[ "$(wc -l <"$RUNS")" -eq 4 ]'
check "GPUS=0,1: every run on cuda:0 or cuda:1 ($(cut -d" " -f1 "$RUNS" | tr "\n" " "))" \
    '[ -z "$(cut -d" " -f1 "$RUNS" | grep -vx "cuda:[01]")" ]'
check "GPUS=0,1: both GPUs used" '[ "$(cut -d" " -f1 "$RUNS" | sort -u | wc -l)" -eq 2 ]'
check "GPUS=0,1: no two runs on one GPU at once ($(same_gpu_overlaps "$RUNS") overlaps)" \
    '[ "$(same_gpu_overlaps "$RUNS")" -eq 0 ]'
check "GPUS=0,1: both GPUs busy together (at most $(most_at_once "$RUNS") at once)" \
    '[ "$(most_at_once "$RUNS")" -eq 2 ]'
for d in $DEMOS; do
    check "GPUS=0,1: demo-$d/lk/000.flo equals the CPU run's" \
        'cmp -s "$T/two/demo-$d/lk/000.flo" "$T/ref/demo-$d/lk/000.flo"'
    check "GPUS=0,1: demo-$d ran once" '[ "$(grep -c " demo-$d\$" "$RUNS")" -eq 1 ]'
done

# ---- one GPU, given as a list with spaces: the runs take turns -------------------
rm -f "$RUNS"
flowmake "$T/one" -j4 flows-compute GPUS="3 " FLOW_COMPUTE="$T/record-compute" >"$T/out" 2>&1
check "make -j4 flows-compute GPUS='3 ': $(tail -n 3 "$T/out")" '[ $? -eq 0 ]'
check "GPUS=3: four runs, all on cuda:3" '[ "$(grep -c "^cuda:3 " "$RUNS")" -eq 4 ]'
check "GPUS=3: one run at a time (at most $(most_at_once "$RUNS"))" '[ "$(most_at_once "$RUNS")" -eq 1 ]'

# ---- refusals --------------------------------------------------------------------
expect "GPUS=0,x names the bad GPU" 2 err "GPUS: 'x' is not a GPU number" \
    flowmake "$T/bad" flows-compute GPUS=0,x SEQUENCES=demo-translate
check "GPUS=0,x leaves no flow directory" '[ -z "$(ls "$T/bad/demo-translate" 2>/dev/null)" ]'
expect "GPUS with DEVICE is refused" 2 err "GPUS=0 and DEVICE=cuda: give one" \
    flowmake "$T/bad" flows-compute GPUS=0 DEVICE=cuda
expect "gpu-slot without a command" 2 err "usage: gpu-slot" scripts/gpu-slot "$T/locks" 0

# ---- a killed run frees its GPU ------------------------------------------------------
# hold: keeps its GPU for 30 s; note: writes the device it got into FILE and
# exits 7.
printf '#!/bin/sh\nexec sleep 30\n' >"$T/hold"
printf '#!/bin/sh\necho "$2" >"$3"\nexit 7\n' >"$T/note"
chmod +x "$T/hold" "$T/note"
scripts/gpu-slot "$T/locks" 5 "$T/hold" &
holder=$!
sleep 0.5
scripts/gpu-slot "$T/locks" 5 "$T/note" "$T/second" &
second=$!
sleep 1
check "gpu-slot waits while its GPU is held" '[ ! -e "$T/second" ]'
kill "$holder"
wait "$holder" 2>/dev/null
i=0
while [ ! -s "$T/second" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
check "gpu-slot runs once the holder was killed, on cuda:5 ($(cat "$T/second" 2>/dev/null))" \
    '[ "$(cat "$T/second" 2>/dev/null)" = cuda:5 ]'
wait "$second"
check "gpu-slot exits with the command's status (7)" '[ $? -eq 7 ]'

harness_report
