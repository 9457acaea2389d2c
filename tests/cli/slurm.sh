#!/bin/sh
# slurm.sh -- scripts/slurm-flows against a real Slurm: a one-node cluster on
# localhost (munged, slurmctld and slurmd of Debian's munge and slurm-wlm,
# with their key, configuration, state and logs in the scratch directory),
# started here and stopped at the end, whatever happens.  A pipeline of three
# small demo sequences goes through `slurm-flows --wait` on the CPU; checked:
# the job array ran one task per sequence, each flow equals that of a local
# `make flows-compute`, `make stats` sees them, the job script and its
# sequence list are kept beside the results and resubmitting the job script
# for one task redoes that sequence only; then the options slurm-flows
# refuses and what --dry-run writes; and that no daemon is left running.
# Needs root (slurmd runs jobs as their user); skipped without the packages.
# Prints "N passed, N failed[, N skipped]".
. "$(dirname "$0")/../common/harness.sh"
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
harness_need_bins "$BIN/flow-compute" "$BIN/flow-tool" "$BIN/flow-synth" "$BIN/flow-track"

for c in munged mungekey slurmctld slurmd sbatch scontrol sinfo; do
    if ! command -v "$c" >/dev/null; then
        skip "no $c: install slurm-wlm and munge (scripts/setup.sh lists them)"
        harness_report
        exit
    fi
done
if [ "$(id -u)" -ne 0 ]; then
    skip "not root: slurmd has to run as root"
    harness_report
    exit
fi

# ---- the cluster -------------------------------------------------------------------
S=$T/slurm
mkdir -p "$S/munge" "$S/state" "$S/spool" "$S/log"
chmod 755 "$T" "$S" "$S/munge" # munged wants its socket's directories searchable by all
daemons=
stop_daemons() {
    for pid in $daemons; do kill "$pid" 2>/dev/null; done
    for pid in $daemons; do
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    daemons=
}
trap 'stop_daemons; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
# cluster_log: the daemons' last words, after a failure.
cluster_log() { tail -n 5 "$S"/log/* | sed 's/^/    /'; }

# A free TCP port pair, from the ports listening in /proc/net/tcp{,6}.
listening=$(awk '$4 == "0A" { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
port=$((20000 + $$ % 20000))
while printf '%s\n' "$listening" | grep -qx "$(printf '%04X' $port)\|$(printf '%04X' $((port + 1)))"; do
    port=$((port + 2))
done

mungekey --create --keyfile="$S/munge/munge.key" 2>"$S/log/mungekey" || bad "mungekey: $(cat "$S/log/mungekey")"
# --force: munged refuses a key below /tmp (a directory others can write to).
munged --foreground --force --socket="$S/munge/socket" --key-file="$S/munge/munge.key" \
    --pid-file="$S/munge/pid" --seed-file="$S/munge/seed" --log-file="$S/log/munged" \
    >"$S/log/munged.out" 2>&1 &
daemons="$!"
i=0
while [ ! -S "$S/munge/socket" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

node=$(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]*/NodeName=localhost NodeAddr=127.0.0.1/')
cat >"$S/slurm.conf" <<EOF
ClusterName=flowtest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$S/munge/socket
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ReturnToService=2
$node State=UNKNOWN
PartitionName=flowtest Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$S/slurm.conf"
slurmctld -D -i -f "$S/slurm.conf" >"$S/log/slurmctld.out" 2>&1 &
daemons="$! $daemons"
slurmd -D -N localhost -f "$S/slurm.conf" >"$S/log/slurmd.out" 2>&1 &
daemons="$! $daemons"
i=0
while [ "$(sinfo -h -o %T 2>/dev/null)" != idle ] && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
if [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; then
    ok
else
    bad "the one-node cluster did not come up (sinfo: $(sinfo -h -o %T 2>&1))"
    cluster_log
    harness_report
    exit
fi

# ---- a pipeline of three sequences ------------------------------------------------
DEMOS="translate object large"
mkdir -p "$T/params"
cp params/lk.params "$T/params/"
make --no-print-directory -C sequences SRC="$T/src" DST="$T/dst" BIN="$BIN" PARAMS_DIR="$T/params" \
    demo DEMO_FRAMES=2 DEMO_SELECT="$DEMOS" >"$T/demo.log" 2>&1 || bad "make -C sequences demo: $(tail -n 5 "$T/demo.log")"
VARS="SEQ_SRC=$T/src SEQ_DIR=$T/dst PARAMS_DIR=$T/params BUILD=$BUILD METHODS=lk"
start=$(date +%s)
make --no-print-directory -f scripts/flows.mk $VARS RESULTS="$T/local" DEVICE=cpu flows-compute \
    >"$T/local.log" 2>&1 || bad "local make flows-compute: $(tail -n 5 "$T/local.log")"
echo "  local make flows-compute over 3 sequences: $(($(date +%s) - start)) s"

start=$(date +%s)
scripts/slurm-flows --wait --gpus 0 --partition flowtest --time 5 $VARS RESULTS="$T/results" >"$T/out" 2>&1
rc=$?
took=$(($(date +%s) - start))
echo "  slurm-flows --wait over 3 sequences: $took s"
check "slurm-flows --wait (exit $rc): $(tail -n 3 "$T/out")" '[ $rc -eq 0 ]'
[ $rc -eq 0 ] || cluster_log
job=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$T/out")
check "slurm-flows printed the job id ($job)" '[ -n "$job" ]'
# Finished jobs stay in slurmctld's memory for MinJobAge (300 s).
scontrol -o show job "$job" >"$T/tasks" 2>&1
check "the job array had 3 tasks ($(grep -c ArrayTaskId= "$T/tasks"))" '[ "$(grep -c ArrayTaskId= "$T/tasks")" -eq 3 ]'
check "every task COMPLETED with exit code 0:0" \
    '[ "$(grep -c "JobState=COMPLETED .*ExitCode=0:0" "$T/tasks")" -eq 3 ]'
check "tasks 0, 1 and 2" '[ "$(grep -o "ArrayTaskId=[0-9]*" "$T/tasks" | sort | tr "\n" " ")" = "ArrayTaskId=0 ArrayTaskId=1 ArrayTaskId=2 " ]'
R=$T/results/slurm
check "the job script is kept: $R/flows.sbatch" '[ -f "$R/flows.sbatch" ]'
check "flows.sbatch asks for no GPU (--gpus 0) and the partition" \
    '! grep -q "^#SBATCH --gres" "$R/flows.sbatch" && grep -q "^#SBATCH --partition=flowtest" "$R/flows.sbatch"'
check "sequences.list names the 3 sequences" \
    '[ "$(sort "$R/sequences.list" | tr "\n" " ")" = "demo-large demo-object demo-translate " ]'
task=0
while read -r s; do
    log=$R/logs/flows-${job}_$task.log
    check "task $task logged its sequence $s" 'grep -q "^flows.sbatch: task $task of job $job on .*: $s \$" "$log"'
    check "$s/lk/000.flo equals the local make flows-compute's" \
        'cmp -s "$T/results/$s/lk/000.flo" "$T/local/$s/lk/000.flo"'
    task=$((task + 1))
done <"$R/sequences.list"

if command -v gnuplot >/dev/null; then stats=stats; else stats=$T/results/stats.csv; fi
make --no-print-directory -f scripts/flows.mk RESULTS="$T/results" "$stats" >"$T/stats.log" 2>&1
check "make stats on the results: $(tail -n 3 "$T/stats.log")" '[ $? -eq 0 ]'
check "stats.csv: one line per sequence, computed on the CPU" \
    '[ "$(grep -c "^demo-[a-z]*,lk,.*,cpu," "$T/results/stats.csv")" -eq 3 ]'

# ---- resubmitting the kept job script for one task ----------------------------------
redo=$(sed -n 2p "$R/sequences.list")
keep=$(sed -n 1p "$R/sequences.list")
rm -rf "${T:?}/results/$redo"
touch -d '2000-01-01' "$T/results/$keep/lk/timing.stats"
sbatch --wait --array=1 "$R/flows.sbatch" >"$T/out" 2>&1
check "sbatch --wait --array=1 flows.sbatch: $(tail -n 2 "$T/out")" '[ $? -eq 0 ]'
check "the resubmitted task redid $redo" 'cmp -s "$T/results/$redo/lk/000.flo" "$T/local/$redo/lk/000.flo"'
check "and left $keep alone" '[ "$(date -r "$T/results/$keep/lk/timing.stats" +%Y)" = 2000 ]'

# ---- refusals and --dry-run (no cluster needed) ----------------------------------------
expect "--gpus x is refused" 2 err "--gpus: 'x' is not a number of GPUs" scripts/slurm-flows --dry-run --gpus x
expect "an unknown variable is refused" 2 err "'RESULT' is not a pipeline variable" \
    scripts/slurm-flows --dry-run $VARS RESULT=x
expect "SEQUENCES matching nothing is refused" 2 err "no sequence in .* matches SEQUENCES=nothing-%" \
    scripts/slurm-flows --dry-run $VARS RESULTS="$T/dry" SEQUENCES='nothing-%'
expect "a missing method is refused, naming it" 2 err "no .*/params/xx.params" \
    scripts/slurm-flows --dry-run $VARS RESULTS="$T/dry" METHODS=xx
expect "--dry-run prints the sbatch command" 0 out "^sbatch $T/dry/slurm/flows.sbatch\$" \
    scripts/slurm-flows --dry-run --per-task 2 -s --mem=1G $VARS RESULTS="$T/dry"
check "--per-task 2: 2 tasks over 3 sequences" 'grep -q "^#SBATCH --array=0-1\$" "$T/dry/slurm/flows.sbatch"'
check "by default a GPU per task, DEVICE=cuda, the extra sbatch option" \
    'grep -q "^#SBATCH --gres=gpu:1\$" "$T/dry/slurm/flows.sbatch" && grep -q "DEVICE=.cuda." "$T/dry/slurm/flows.sbatch" && grep -q "^#SBATCH --mem=1G\$" "$T/dry/slurm/flows.sbatch"'
check "--dry-run submitted nothing" '[ "$(squeue -h | wc -l)" -eq 0 ] && [ ! -e "$T/dry/demo-translate" ]'

# ---- no daemon left ------------------------------------------------------------------
stop_daemons
check "no munged, slurmctld or slurmd left ($(pgrep -f "$S/" | tr '\n' ' '))" '[ -z "$(pgrep -f "$S/")" ]'

harness_report
