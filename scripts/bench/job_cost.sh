#!/usr/bin/env bash
# The cost of one more job: `sweep run` wall time of N jobs minus 1 job, over N - 1, on one
# thread, for each binary given, alternated run by run so that a busy machine weighs on
# every binary alike. Prints one line per (binary, case, repetition) and the spread.
#
#   scripts/bench/job_cost.sh [-r REPS] BINARY...
#
# Cases: a 1,000-episode Q-learning job on 4x4k4 with and without `symmetry = true`, and a
# 3,000-episode one on 3x4k4; N = 5. Each run writes to a fresh temporary directory.
set -euo pipefail
reps=3
if [[ "${1:-}" == "-r" ]]; then reps=$2; shift 2; fi
(($# > 0)) || { echo "usage: $0 [-r REPS] BINARY..." >&2; exit 2; }
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
