#!/usr/bin/env bash
# CI check against a real one-node Slurm cluster on this machine.
#
#   bash .ci/slurm.sh [SWEEP_BINARY]      e.g. bash .ci/slurm.sh target/release/sweep
#
# Installs Slurm and munge from the distribution's packages, starts munged, slurmctld
# and slurmd on localhost, submits the smoke spec as a 4-task array with its dependent
# merge job through scripts/slurm/submit.sh (a spec with a [search]: an array and a merge
# per rung, chained), waits, checks that every task and merge ended COMPLETED with exit
# code 0, runs the same spec locally and compares: results.csv must be equal apart from
# its two timing columns (train_ms, eval_ms), curves.csv equal.
# Whatever happens, it then cancels the jobs and stops every daemon it started, by PID.
#
# Environment:
#   SWEEP             sweep binary when no argument is given (default: sweep on PATH);
#                     its directory is put on PATH for the jobs
#   SWEEP_CI_SPEC     spec to run (default experiments/smoke.toml, relative to the repo root)
#   SWEEP_CI_SHARDS   number of array tasks (default 4)
#   SWEEP_CI_TIMEOUT  seconds to wait for the jobs (default 300)
#   SWEEP_CI_DIR      working folder (default $TMPDIR or /tmp, then sweep-slurm-ci): the
#                     cluster's config, state and logs and the results; cleared at the
#                     start, removed on success, kept on failure for inspection
# Needs root (package install, daemons). A cluster left by an earlier run of this script
# is stopped first. Exit code: 0 when everything matched, 1 on any failure.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
start_us=${EPOCHREALTIME//[.,]/}

elapsed() {
    local now=${EPOCHREALTIME//[.,]/}
    printf '%d.%d' $(((now - start_us) / 1000000)) $(((now - start_us) / 100000 % 10))
}
log() { printf '[slurm-ci %6ss] %s\n' "$(elapsed)" "$*"; }
fail() {
    printf '[slurm-ci %6ss] FAIL: %s\n' "$(elapsed)" "$*" >&2
    exit 1
}

spec=${SWEEP_CI_SPEC:-experiments/smoke.toml}
shards=${SWEEP_CI_SHARDS:-4}
timeout=${SWEEP_CI_TIMEOUT:-300}
ci_dir=${SWEEP_CI_DIR:-${TMPDIR:-/tmp}/sweep-slurm-ci}
cluster=$ci_dir/cluster
work=$ci_dir/work
conf=$cluster/slurm.conf

# ---- the binary: resolved before leaving the caller's folder ----
(($# <= 1)) || fail "usage: .ci/slurm.sh [SWEEP_BINARY] (see the comment at its top)"
sweep=${1:-${SWEEP:-sweep}}
if [[ $sweep == */* ]]; then
    [[ -f $sweep && -x $sweep ]] || fail "SWEEP=$sweep is not an executable file"
    sweep=$(cd "$(dirname "$sweep")" && pwd)/${sweep##*/}
else
    found=$(command -v "$sweep") || fail "'$sweep' is not on PATH: set SWEEP to the binary"
    sweep=$found
fi
export SWEEP=$sweep
PATH=$(dirname "$sweep"):$PATH
export PATH

cd "$root"
[[ -f $spec ]] || fail "spec $spec not found (relative paths start at the repo root)"
[[ $shards =~ ^[1-9][0-9]*$ ]] || fail "SWEEP_CI_SHARDS must be a positive integer"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || fail "SWEEP_CI_TIMEOUT must be a positive integer"
(($(id -u) == 0)) || fail "must run as root (installs packages and starts daemons)"

# Slurm commands and daemons see this cluster's config only through SLURM_CONF, which
# is set per command, never exported here: every process that carries it belongs to
# this cluster, which is how stray job processes are found at the end.
slurm() { SLURM_CONF=$conf "$@"; }

# Alive and not a zombie; with a name, also that /proc/PID/comm is that name.
alive() {
    local pid=$1 name=${2:-} stat
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
    [[ ${stat##*) } != Z* ]] || return 1
    [[ -z $name || $(cat "/proc/$pid/comm" 2>/dev/null) == "$name" ]]
}

daemon_pid() { cat "$cluster/pids/$1" 2>/dev/null || true; }

# Processes other than this shell whose environment holds our SLURM_CONF.
cluster_processes() {
    local dir pid
    for dir in /proc/[0-9]*; do
        pid=${dir#/proc/}
        ((pid != $$)) || continue
        if tr '\0' '\n' 2>/dev/null <"$dir/environ" | grep -qxF "SLURM_CONF=$conf"; then
            echo "$pid"
        fi
    done
}

# Idempotent: stops whatever this script's cluster folder says is running.
stop_cluster() {
    local name pid left i
    [[ -d $cluster/pids ]] || return 0
    if alive "$(daemon_pid slurmctld)" slurmctld; then
        slurm scancel --full --partition=debug 2>/dev/null || true
        for ((i = 0; i < 60; i++)); do
            [[ -z $(slurm squeue -h 2>/dev/null) ]] && break
            sleep 0.5
        done
    fi
    left=()
    for name in slurmd slurmctld munged; do
        pid=$(daemon_pid "$name")
        if alive "$pid" "$name"; then
            kill -TERM "$pid" 2>/dev/null || true
            left+=("$name:$pid")
        fi
    done
    for ((i = 0; i < 100 && ${#left[@]} > 0; i++)); do
        sleep 0.1
        for name in "${!left[@]}"; do
            pid=${left[$name]#*:}
            alive "$pid" "${left[$name]%%:*}" || unset "left[$name]"
        done
    done
    for name in "${left[@]}"; do
        log "${name%%:*} (pid ${name#*:}) ignored SIGTERM for 10 s: SIGKILL"
        kill -KILL "${name#*:}" 2>/dev/null || true
    done
    for pid in $(cluster_processes); do
        log "stray process $pid ($(cat "/proc/$pid/comm" 2>/dev/null)): SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
    done
    for name in slurmd slurmctld; do # reap our own children
        wait "$(daemon_pid "$name")" 2>/dev/null || true
    done
    rm -f "$cluster"/pids/*
}

# On failure: the jobs' own logs, then the daemons' last lines without the known
# harmless complaints about the MPI plugin library (MPI is not used).
show_logs() {
    local f
    for f in "$work"/cluster-out/logs/*.out "$cluster"/*.log "$cluster"/munged.out; do
        [[ -s $f ]] || continue
        echo "---- last lines of ${f#"$ci_dir"/}"
        grep -v -e 'mpi/pmix' -e 'MPI: Cannot create context' "$f" | tail -n 12
    done >&2
}

on_exit() {
    local rc=$?
    set +e
    trap - INT TERM
    if ((rc != 0)); then
        show_logs
    fi
    stop_cluster
    if ((rc == 0)); then
        rm -rf "$cluster" "$work"
        rmdir "$ci_dir" 2>/dev/null
        log "PASS (cluster stopped)"
    else
        log "FAILED with exit code $rc; cluster stopped; files kept in $ci_dir"
    fi
    exit "$rc"
}

# ---- 0. stop a cluster left by an earlier run, then start clean ----
if [[ -n $(ls -A "$cluster/pids" 2>/dev/null) ]]; then
    log "stopping a cluster left by an earlier run"
fi
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
stop_cluster
rm -rf "$cluster" "$work"
mkdir -p "$cluster/pids" "$cluster/state" "$cluster/spool" "$work"

# ---- 1. packages ----
packages=(slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
    log "installing ${packages[*]}"
    {
        apt-get update &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"
    } >"$work/apt.log" 2>&1 || {
        tail -n 20 "$work/apt.log" >&2
        fail "package install failed"
    }
else
    log "packages already installed: ${packages[*]}"
fi

# ---- 2. munge (reused when one already answers: not ours to stop) ----
if munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
    log "munged already running: using it"
else
    [[ -f /etc/munge/munge.key ]] || runuser -u munge -- mungekey --create >/dev/null
    chown munge:munge /etc/munge/munge.key
    chmod 0400 /etc/munge/munge.key
    install -d -o munge -g munge -m 0755 /run/munge
    runuser -u munge -- /usr/sbin/munged </dev/null >"$cluster/munged.out" 2>&1 ||
        fail "munged did not start: $(cat "$cluster/munged.out")"
    cp /run/munge/munged.pid "$cluster/pids/munged"
    for ((i = 0; i < 50; i++)); do
        munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && break
        sleep 0.1
    done
    ((i < 50)) || fail "munged does not answer"
    log "munged started (pid $(daemon_pid munged))"
fi

# ---- 3. slurm.conf, slurmctld, slurmd ----
cat >"$conf" <<EOF
ClusterName=sweepci
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$cluster/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
KillWait=5
StateSaveLocation=$cluster/state
SlurmdSpoolDir=$cluster/spool
SlurmctldPidFile=$cluster/slurmctld.pid
SlurmdPidFile=$cluster/slurmd.pid
SlurmctldLogFile=$cluster/slurmctld.log
SlurmdLogFile=$cluster/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$(awk '/^MemTotal:/ { print int($2 / 1024 * 0.9) }' /proc/meminfo) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

# Not through slurm(): a function would run in a subshell and $! be that shell's PID.
SLURM_CONF=$conf slurmctld -D </dev/null >"$cluster/slurmctld.out" 2>&1 &
echo $! >"$cluster/pids/slurmctld"
SLURM_CONF=$conf slurmd -D </dev/null >"$cluster/slurmd.out" 2>&1 &
echo $! >"$cluster/pids/slurmd"
for ((i = 0; ; i++)); do
    alive "$(daemon_pid slurmctld)" || fail "slurmctld exited"
    alive "$(daemon_pid slurmd)" || fail "slurmd exited"
    [[ $(slurm sinfo -h -o %t 2>/dev/null) == idle ]] && break
    ((i < 150)) || fail "node not idle after 30 s: $(slurm sinfo -h -o '%t %E' 2>&1)"
    sleep 0.2
done
log "cluster up: slurmctld pid $(daemon_pid slurmctld), slurmd pid $(daemon_pid slurmd)," \
    "node localhost idle with $(nproc) CPUs"

# ---- 4. submit through submit.sh ----
out=$work/cluster-out
sbatch_options=(--partition=debug --cpus-per-task=1 --time=10)
log "submitting: scripts/slurm/submit.sh $spec $shards ${sbatch_options[*]}"
submitted=$(OUT=$out slurm scripts/slurm/submit.sh "$spec" "$shards" "${sbatch_options[@]}" 2>&1) || {
    printf '%s\n' "$submitted" >&2
    fail "submit.sh failed"
}
while IFS= read -r l; do printf '    | %s\n' "$l"; done <<<"$submitted"
# One array and one merge per rung of a [search]; one of each otherwise.
mapfile -t array_ids < <(sed -n 's/^array job \([0-9][0-9]*\) .*/\1/p' <<<"$submitted")
# submit.sh asks for the memory `sweep plan --peak-memory` estimates; each task must get it.
task_mib=$(sed -n 's/^memory per task: \([0-9][0-9]*\) MiB.*/\1/p' <<<"$submitted")
[[ $task_mib =~ ^[0-9]+$ ]] || fail "submit.sh did not say the memory it asks per task"
log "memory per task: $task_mib MiB"

mapfile -t merge_ids < <(sed -n 's/^merge job \([0-9][0-9]*\) .*/\1/p' <<<"$submitted")
((${#array_ids[@]} > 0 && ${#array_ids[@]} == ${#merge_ids[@]})) ||
    fail "submit.sh did not print an array and a merge job id per rung"

# jobcomp/filetxt writes one line per finished task: KEY=VALUE fields separated by spaces.
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<" $1"; }

# ---- 5. wait until every array and merge job has left the queue ----
deadline=$((SECONDS + timeout))
while :; do
    queue=$(slurm squeue -h -o '%i %T %r') || fail "squeue failed"
    ours=$(awk -v ids="${array_ids[*]} ${merge_ids[*]}" \
        'BEGIN { n = split(ids, a, " "); for (i = 1; i <= n; i++) mine[a[i]] = 1 }
         { id = $1; sub(/_.*/, "", id) } id in mine' <<<"$queue")
    [[ -z $ours ]] && break
    if awk '$3 == "DependencyNeverSatisfied" { f = 1 } END { exit !f }' <<<"$ours"; then
        for array_id in "${array_ids[@]}"; do
            for ((k = 0; k < shards; k++)); do
                line=$(grep -h "ArrayJobId=$array_id ArrayTaskId=$k " "$cluster/jobcomp.txt" 2>/dev/null) &&
                    echo "    array task ${array_id}_$k: $(field "$line" JobState), exit code $(field "$line" ExitCode)"
            done
        done >&2
        fail "a job failed, so the jobs after it can never start"
    fi
    ((SECONDS < deadline)) || fail "jobs still queued after ${timeout} s:"$'\n'"$ours"
    sleep 0.5
done
log "arrays ${array_ids[*]} and merges ${merge_ids[*]} have left the queue"

# ---- 6. every task and every merge: COMPLETED, exit code 0 ----
check_job() { # LABEL LINE
    local label=$1 line=$2 state code part limit
    [[ -n $line ]] || { echo "$label: no record in the job completion log"; return 1; }
    state=$(field "$line" JobState)
    code=$(field "$line" ExitCode)
    part=$(field "$line" Partition)
    limit=$(field "$line" TimeLimit)
    if [[ $state != COMPLETED || $code != 0:0 ]]; then
        echo "$label: JobState=$state ExitCode=$code"
        return 1
    fi
    if [[ $part != debug || $limit != 10 ]]; then
        echo "$label: sbatch options not applied (Partition=$part TimeLimit=$limit)"
        return 1
    fi
}
problems=()
expected=$(((shards + 1) * ${#array_ids[@]}))
for ((i = 0; i < 20; i++)); do # the log can trail the queue by a moment
    records=0
    for r in "${!array_ids[@]}"; do
        n=$(grep -c -E "^JobId=${merge_ids[r]} | ArrayJobId=${array_ids[r]} " "$cluster/jobcomp.txt" 2>/dev/null) || true
        records=$((records + n))
    done
    ((records >= expected)) && break
    sleep 0.2
done
for r in "${!array_ids[@]}"; do
    array_id=${array_ids[r]}
    for ((k = 0; k < shards; k++)); do
        line=$(grep -h "ArrayJobId=$array_id ArrayTaskId=$k " "$cluster/jobcomp.txt" 2>/dev/null | tail -n 1) || true
        problems+=("$(check_job "array task ${array_id}_$k" "$line")") || true
        task_log=$out/logs/sweep-${array_id}_$k.out
        grep -q "shard $k/$shards, 1 threads, memory $task_mib MiB" "$task_log" 2>/dev/null ||
            problems+=("array task ${array_id}_$k: its log does not say 'shard $k/$shards, 1 threads, memory $task_mib MiB'")
    done
    line=$(grep -h "^JobId=${merge_ids[r]} " "$cluster/jobcomp.txt" 2>/dev/null | tail -n 1) || true
    problems+=("$(check_job "merge job ${merge_ids[r]}" "$line")") || true
done
mapfile -t problems < <(printf '%s\n' "${problems[@]}" | grep -v '^$' || true)
if ((${#problems[@]} > 0)); then
    printf '    %s\n' "${problems[@]}" >&2
    fail "Slurm jobs did not all succeed"
fi
log "all ${#array_ids[@]} x $shards array tasks and ${#merge_ids[@]} merge jobs: COMPLETED, exit code 0"

for f in results.csv curves.csv manifest.json; do
    [[ -s $out/$f ]] || fail "the merge job wrote no $f"
done

# ---- 7. the same spec on one machine, then compare ----
log "running the spec locally"
"$sweep" run "$spec" --out "$work/local" --quiet </dev/null >"$work/local-run.log" 2>&1 || {
    tail -n 20 "$work/local-run.log" >&2
    fail "local run failed"
}
log "local run done; comparing"
python3 - "$out" "$work/local" <<'EOF' || fail "merged cluster results differ from the local run"
import csv
import sys

merged_dir, local_dir = sys.argv[1], sys.argv[2]
problems = []


def rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


merged = rows(f"{merged_dir}/results.csv")
local = rows(f"{local_dir}/results.csv")
if not merged or not local:
    problems.append("results.csv: empty file")
elif merged[0] != local[0]:
    problems.append(f"results.csv: headers differ:\n  merged {merged[0]}\n  local  {local[0]}")
elif not {"train_ms", "eval_ms"} <= set(merged[0]):
    problems.append("results.csv: no train_ms, eval_ms columns")
else:
    header = merged[0]
    timed = {header.index("train_ms"), header.index("eval_ms")}

    def untimed(row):
        return [c for i, c in enumerate(row) if i not in timed]

    if len(merged) != len(local):
        problems.append(f"results.csv: {len(merged) - 1} rows merged, {len(local) - 1} local")
    if len(merged) < 2:
        problems.append("results.csv: no rows")
    shown = 0
    for line, (m, l) in enumerate(zip(merged[1:], local[1:]), start=2):
        if len(m) != len(header) or len(l) != len(header):
            problems.append(f"results.csv line {line}: {len(m)} / {len(l)} fields, header has {len(header)}")
        elif untimed(m) != untimed(l):
            cells = [f"{c}: {a!r} vs {b!r}" for c, a, b in zip(untimed(header), untimed(m), untimed(l)) if a != b]
            problems.append(f"results.csv line {line} (merged vs local): " + "; ".join(cells))
        else:
            continue
        shown += 1
        if shown == 10:
            problems.append("results.csv: more differences not shown")
            break
    if not problems:
        print(f"    results.csv: {len(merged) - 1} rows x {len(header)} columns,"
              " equal apart from train_ms, eval_ms")

with open(f"{merged_dir}/curves.csv", "rb") as f:
    merged_curves = f.read().splitlines()
with open(f"{local_dir}/curves.csv", "rb") as f:
    local_curves = f.read().splitlines()
if merged_curves == local_curves:
    print(f"    curves.csv:  {len(merged_curves) - 1} rows, identical")
else:
    for line, (m, l) in enumerate(zip(merged_curves, local_curves), start=1):
        if m != l:
            problems.append(f"curves.csv line {line}:\n  merged {m.decode()}\n  local  {l.decode()}")
            break
    else:
        problems.append(f"curves.csv: {len(merged_curves)} lines merged, {len(local_curves)} local")

for p in problems:
    print(f"    {p}", file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
log "merged cluster results equal the local run ($shards shards, spec $spec)"
