#!/usr/bin/env bash
# Submit a sweep to Slurm as a job array of N shards plus a merge job that runs
# after every shard has succeeded. Run with --help for usage.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
me=$0

usage() {
    cat <<EOF
Usage: $me [--tasks LIST] [--max-parallel M] SPEC N [sbatch options...]

Submit the sweep SPEC to Slurm as N array tasks, task K running shard K of N,
and a merge job that starts when all of them have succeeded
(--dependency=afterok). Both job ids are printed.

A spec with a [search] (successive halving, Hyperband or TPE) runs rung by rung
(TPE: round by round): one array and one merge per rung, each array starting
after the previous rung's merge (afterok), since the merged results decide which
configurations go on (TPE: which configurations the next round proposes).
The rungs are counted with '\$SWEEP plan SPEC', so sweep must run here too.
A [test] adds one more array and merge after tuning (after the last rung, or
after the grid's), since the merged results decide which configurations re-run.
If a task fails, cancel what is left and submit the same command again:
finished jobs are kept and finished rungs are only merged again.

Arguments:
  SPEC                the sweep spec (TOML)
  N                   number of shards (array tasks 0..N-1)
  sbatch options      passed unchanged to both the array and the merge job:
                      --partition, --time, --mem, --cpus-per-task, --account, ...
                      Each task runs with --threads = its --cpus-per-task.
                      Without --mem (or --mem-per-cpu), each task asks for the
                      memory '\$SWEEP plan SPEC --peak-memory' estimates for
                      its threads, plus 10% and 64 MiB; the task's sweep keeps
                      its jobs within that allocation (SLURM_MEM_PER_NODE).

Options (before SPEC):
  --tasks LIST        submit only these array tasks, e.g. 2 or 1,3 or 4-7:
                      re-runs failed shards (finished jobs in them are kept)
  --max-parallel M    run at most M tasks at a time (sbatch --array=...%M)
  -h, --help          show this help

Environment:
  OUT     results directory (default: results/<name>, where <name> is the
          spec's top-level name = "..." or else the file name without .toml).
          Shard K is written to OUT/shards/K-of-N/, the merged results to OUT/,
          the Slurm logs to OUT/logs/.
  SWEEP   the sweep binary the jobs run (default: sweep on PATH). The jobs get
          the environment of this shell (sbatch's default --export=ALL).

Examples:
  $me experiments/smoke.toml 4 --partition=short --time=00:10:00
  OUT=/scratch/me/big $me big.toml 64 --cpus-per-task=8 --mem=4G
  $me --tasks 5 big.toml 64 --cpus-per-task=8 --mem=4G   # re-run shard 5
EOF
}

die() {
    echo "submit.sh: error: $1" >&2
    echo "Try '$me --help'." >&2
    exit 2
}

# The spec's top-level `name = "..."` (before any [table]), else the file stem.
spec_name() {
    local name
    name=$(awk '
        /^[[:space:]]*\[/ { exit }
        /^[[:space:]]*name[[:space:]]*=/ {
            v = $0
            sub(/^[^=]*=[[:space:]]*/, "", v)
            q = substr(v, 1, 1)
            if (q == "\"" || q == "\047") {
                v = substr(v, 2)
                end = index(v, q)
                if (end > 0) { print substr(v, 1, end - 1); exit }
            }
        }' "$1")
    if [[ -z $name ]]; then
        name=${1##*/}
        name=${name%.toml}
    fi
    printf '%s\n' "$name"
}

# Number of indices in an array list such as 0-3 or 1,3,5-7; fails if any is >= max.
count_tasks() {
    local list=$1 max=$2 part lo hi total=0
    local IFS=,
    for part in $list; do
        lo=${part%-*}
        hi=${part#*-}
        ((10#$lo <= 10#$hi)) || return 1
        ((10#$hi < max)) || return 1
        total=$((total + 10#$hi - 10#$lo + 1))
    done
    echo "$total"
}

# A search: per rung, an array (after the previous rung's merge) and its merge.
submit_search() {
    local rung after=() array_id merge_id ids=()
    for ((rung = 0; rung < rungs; rung++)); do
        array_id=$(sbatch --parsable --job-name="sweep-$name-rung$rung" \
            --output="$out/logs/sweep-%A_%a.out" "${extra[@]}" "${after[@]}" --array="$array" \
            "$here/sweep-array.sbatch" "$spec_abs" "$out" "$shards")
        array_id=${array_id%%;*}
        merge_id=$(sbatch --parsable --job-name="sweep-merge-$name-rung$rung" \
            --output="$out/logs/merge-%j.out" "${extra[@]}" --dependency="afterok:$array_id" \
            "$here/merge.sbatch" "$out") || {
            echo "submit.sh: error: the merge of rung $rung was not submitted; cancel: scancel ${ids[*]} $array_id" >&2
            exit 1
        }
        merge_id=${merge_id%%;*}
        ids+=("$array_id" "$merge_id")
        after=(--dependency="afterok:$merge_id")
        echo "array job $array_id (rung $rung of $rungs: $ntasks tasks of $shards shards)"
        echo "merge job $merge_id (after array $array_id succeeds)"
    done
    cat <<EOF
spec:    $spec_abs
results: $out   (logs in $out/logs/)

Watch:   squeue -j $(IFS=,; echo "${ids[*]}")
Cancel:  scancel ${ids[*]}
If a task fails, the later jobs stay pending (reason DependencyNeverSatisfied):
cancel them and submit the same command again (finished jobs are kept).
EOF
}

tasks=
tasks_given=
max_parallel=
while (($# > 0)); do
    case $1 in
        -h | --help) usage; exit 0 ;;
        --tasks) (($# >= 2)) || die "--tasks needs a list"; tasks=$2; tasks_given=1; shift 2 ;;
        --tasks=*) tasks=${1#*=}; tasks_given=1; shift ;;
        --max-parallel) (($# >= 2)) || die "--max-parallel needs a number"; max_parallel=$2; shift 2 ;;
        --max-parallel=*) max_parallel=${1#*=}; shift ;;
        --) shift; break ;;
        -*) die "unknown option '$1' before SPEC (sbatch options go after SPEC N)" ;;
        *) break ;;
    esac
done

(($# >= 2)) || die "expected SPEC and N"
spec=$1
shards=$2
shift 2
extra=("$@")

[[ -f $spec && -r $spec ]] || die "spec '$spec' is not a readable file"
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "N must be a positive integer, not '$shards'"
[[ -z $max_parallel || $max_parallel =~ ^[1-9][0-9]*$ ]] ||
    die "--max-parallel must be a positive integer, not '$max_parallel'"
for opt in "${extra[@]}"; do
    case $opt in
        --array | --array=* | -a | -a[0-9]*)
            die "do not pass --array: N sets it; use --tasks to re-run some shards" ;;
    esac
done

if [[ -z $tasks ]]; then
    tasks="0-$((shards - 1))"
    [[ $shards == 1 ]] && tasks=0
fi
[[ $tasks =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] ||
    die "--tasks must look like 2, 1,3 or 4-7, not '$tasks'"
ntasks=$(count_tasks "$tasks" "$shards") ||
    die "--tasks '$tasks' must list shards between 0 and $((shards - 1)), ranges low-high"
array=$tasks${max_parallel:+%$max_parallel}

command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm login node"

spec_dir=$(cd "$(dirname "$spec")" && pwd)
spec_abs=$spec_dir/${spec##*/}
name=$(spec_name "$spec")
[[ -n $name ]] || die "cannot tell the sweep's name from '$spec'"
out=${OUT:-results/$name}
[[ $out == /* ]] || out=$PWD/$out
mkdir -p "$out/logs"

sweep=${SWEEP:-sweep}
if ! command -v "$sweep" >/dev/null; then
    echo "submit.sh: warning: '$sweep' is not found here; the compute nodes must have it" \
        "(set SWEEP to its path)" >&2
fi

# Memory per task: the estimate for its threads, unless the user asked for some.
asks_memory=
cpus=1
for ((i = 0; i < ${#extra[@]}; i++)); do
    case ${extra[i]} in
        --mem | --mem=* | --mem-per-cpu | --mem-per-cpu=* | --mem-per-gpu | --mem-per-gpu=*) asks_memory=1 ;;
        --cpus-per-task=*) cpus=${extra[i]#*=} ;;
        --cpus-per-task | -c) cpus=${extra[i + 1]:-1} ;;
        -c[0-9]*) cpus=${extra[i]#-c} ;;
    esac
done
if [[ -z $asks_memory ]]; then
    if peak=$("$sweep" plan "$spec" --peak-memory --threads "$cpus" 2>/dev/null) && [[ $peak =~ ^[0-9]+$ ]]; then
        mem=$((peak + peak / 10 + 64))
        extra=(--mem="${mem}M" "${extra[@]}")
        echo "memory per task: ${mem} MiB (sweep plan --peak-memory: $peak MiB for $cpus threads, plus 10% and 64 MiB)"
    else
        echo "submit.sh: warning: cannot estimate the memory with '$sweep plan'; pass --mem" >&2
    fi
fi

# A [search] runs one array and one merge per rung, and a [test] one more after tuning
# (a grid with a [test]: two); count them.
table() { grep -q "^[[:space:]]*\[$1\][[:space:]]*\(#.*\)\{0,1\}\$" "$spec"; }
if table search || table test; then
    command -v "$sweep" >/dev/null ||
        die "'$sweep' is not found here: a [search] or [test] spec needs it to count its passes (set SWEEP)"
    [[ -z $tasks_given ]] ||
        die "--tasks does not apply to a [search] or [test]: submit the same command again (finished jobs are kept)"
    rungs=1
    if table search; then
        # A method that runs rungs says "N rungs;", one that runs rounds "in N rounds (" (or
        # "in 1 round (").
        rungs=$("$sweep" plan "$spec" 2>/dev/null |
            sed -n -e 's/^search: .*, \([0-9][0-9]*\) rungs;.*/\1/p' -e 's/^search: [a-z]*, .* in \([0-9][0-9]*\) rounds\{0,1\} (.*/\1/p')
        [[ $rungs =~ ^[1-9][0-9]*$ ]] || die "cannot count the rungs of '$spec': see '$sweep plan $spec'"
    fi
    if table test; then
        rungs=$((rungs + 1))
    fi
    submit_search
    exit 0
fi

# Our defaults come before the user's options (so those win); what the scheme needs comes after.
array_id=$(sbatch --parsable --job-name="sweep-$name" --output="$out/logs/sweep-%A_%a.out" \
    "${extra[@]}" --array="$array" \
    "$here/sweep-array.sbatch" "$spec_abs" "$out" "$shards")
array_id=${array_id%%;*}

if ! merge_id=$(sbatch --parsable --job-name="sweep-merge-$name" --output="$out/logs/merge-%j.out" \
    "${extra[@]}" --dependency="afterok:$array_id" \
    "$here/merge.sbatch" "$out"); then
    echo "submit.sh: error: array job $array_id was submitted but the merge job was not." >&2
    echo "Cancel it with 'scancel $array_id', or merge by hand when it is done: sweep merge $out" >&2
    exit 1
fi
merge_id=${merge_id%%;*}

if ((ntasks == 1)); then
    what="1 task: shard $tasks of $shards"
else
    what="$ntasks tasks: shards $tasks of $shards"
fi
logs="logs in $out/logs/"
for opt in "${extra[@]}"; do
    case $opt in
        -o | -o?* | --output | --output=*) logs="logs where your --output says" ;;
    esac
done
quoted_extra=
((${#extra[@]} == 0)) || quoted_extra=" $(printf '%q ' "${extra[@]}")"
quoted_extra=${quoted_extra% }

cat <<EOF
array job $array_id ($what${max_parallel:+, at most $max_parallel at a time})
merge job $merge_id (after array $array_id succeeds)
spec:    $spec_abs
results: $out   ($logs)

Watch:   squeue -j $array_id,$merge_id
Cancel:  scancel $array_id $merge_id
If a task fails, the merge job stays pending (reason DependencyNeverSatisfied).
Re-run the failed shard K (its finished jobs are kept) with a new merge:
  scancel $merge_id
  OUT=$(printf '%q' "$out") $me --tasks K $(printf '%q' "$spec") $shards$quoted_extra
or, by hand, one task and then the merge:
  sbatch --array=K$quoted_extra $here/sweep-array.sbatch $(printf '%q' "$spec_abs") $(printf '%q' "$out") $shards
  sweep merge $(printf '%q' "$out")
EOF
