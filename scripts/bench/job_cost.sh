#!/usr/bin/env bash
# The cost of one more job: `sweep run` wall time of N jobs minus 1 job, over N - 1, on one
# thread, for each binary given, alternated run by run so that a busy machine weighs on
# every binary alike. Prints one line per (binary, case, repetition) and the spread.
#
#   scripts/bench/job_cost.sh [-r REPS] [-p] BINARY...
#
# Cases: a 1,000-episode Q-learning job on 4x4k4 with and without `symmetry = true`, and a
# 3,000-episode one on 3x4k4; N = 5. Each run writes to a fresh temporary directory.
#
# Then, per repetition and binary, the pieces of 50 such 3x4k4 jobs (medians), where the
# binary splits `train_ms` (SWEEP_JOB_PIECES): setup (before the first checkpoint), episodes,
# the 11 checkpoints' exact evaluations, what follows them (`q_error`), and `eval_ms`; and
# the overhead, setup over episodes: what a job costs beyond its episodes and the exact
# evaluations it asked for.
set -euo pipefail
reps=3
only_pieces=0
while getopts "r:p" flag; do
    case $flag in
        r) reps=$OPTARG ;;
        p) only_pieces=1 ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
(($# > 0)) || { echo "usage: $0 [-r REPS] [-p] BINARY...   (-p: only the pieces of the 3x4k4 job)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

spec() { # name game episodes symmetry replicates
    cat > "$work/$1.toml" <<TOML
name = "$1"
seed = 1
replicates = $5
[[solver]]
kind = "q-learning"
game = "$2"
episodes = $3
symmetry = $4
TOML
}
cases=("4x4k4 1000 false" "4x4k4 1000 true" "3x4k4 3000 false")
n=5
for c in "${cases[@]}"; do
    read -r game episodes symmetry <<<"$c"
    spec "$game-$symmetry-1" "$game" "$episodes" "$symmetry" 1
    spec "$game-$symmetry-$n" "$game" "$episodes" "$symmetry" "$n"
done
spec pieces 3x4k4 3000 false 50

wall() { # binary spec
    local start end
    rm -rf "$work/out"
    start=$(date +%s.%N)
    "$1" run "$work/$2.toml" --threads 1 --quiet --yes --out "$work/out" >/dev/null
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}

# The median over the jobs of the last run of train_ms + eval_ms (a job's own time,
# which the machine's other work changes less than the wall time of the shared tables).
own() {
    python3 - "$work/out/results.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"{statistics.median(float(r['train_ms']) + float(r['eval_ms']) for r in rows) / 1e3:.3f}")
PY
}

if ((only_pieces)); then cases=(); fi
printf '%-28s %-22s %s\n' binary case "one more job (s)"
# (--fresh is not used: each run starts from an empty directory)
for ((r = 1; r <= reps; r++)); do
    for c in "${cases[@]}"; do
        read -r game episodes symmetry <<<"$c"
        for bin in "$@"; do
            one=$(wall "$bin" "$game-$symmetry-1")
            many=$(wall "$bin" "$game-$symmetry-$n")
            per=$(echo "($many - $one) / ($n - 1)" | bc -l)
            printf '%-28s %-22s %.3f   (1 job %.2f s, %d jobs %.2f s; a job train+eval %s s)\n' \
                "$(basename "$bin")" "$game ${episodes}ep sym=$symmetry" "$per" "$one" "$n" "$many" "$(own)"
        done
    done
done

# The medians of the pieces SWEEP_JOB_PIECES prints, one line per job on standard error.
pieces() { # binary
    rm -rf "$work/out"
    SWEEP_JOB_PIECES=1 "$1" run "$work/pieces.toml" --threads 1 --quiet --yes --out "$work/out" 2>"$work/pieces.txt" >/dev/null
    python3 - "$work/pieces.txt" "$work/out/results.csv" <<'PY'
import re, statistics, sys
pattern = (r"train_ms ([\d.]+) = setup ([\d.]+) \+ episodes ([\d.-]+) \+ \d+ checkpoints ([\d.]+) "
           r"\+ after ([\d.-]+); eval_ms ([\d.]+)")
rows = [list(map(float, m.groups())) for m in map(re.compile(pattern).search, open(sys.argv[1])) if m]
if not rows:
    import csv
    done = list(csv.DictReader(open(sys.argv[2])))
    t, v = (statistics.median(float(r[k]) for r in done) for k in ("train_ms", "eval_ms"))
    print(f"train_ms {t:.3f}; eval_ms {v:.3f} (does not split train_ms; {len(done)} jobs, medians)")
    sys.exit()
t, s, e, c, a, v = (statistics.median(col) for col in zip(*rows))
print(f"train_ms {t:.3f} = setup {s:.3f} + episodes {e:.3f} + checkpoints {c:.3f} + after {a:.3f}; "
      f"eval_ms {v:.3f}; setup / episodes {100 * s / e:.1f}% ({len(rows)} jobs, medians)")
PY
}

echo
echo "3x4k4, 3,000 episodes: where a job's time goes"
for ((r = 1; r <= reps; r++)); do
    for bin in "$@"; do
        printf '%-28s %s\n' "$(basename "$bin")" "$(pieces "$bin")"
    done
done
