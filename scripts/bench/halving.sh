#!/usr/bin/env bash
# The successive-halving benchmark: runs experiments/halving.toml (a search) and the
# same grid in full at max_budget (the spec without [search], episodes = max_budget),
# each from scratch with the same threads, and reports for both: training episodes
# spent, wall time and the configuration chosen (the grid: lowest mean regret; the
# search: its last rung), and a paired t-test over the replicates between the two
# chosen configurations at max_budget (the same job ids, so the same seeds).
#
#   scripts/bench/halving.sh [SPEC]          (default experiments/halving.toml)
#
# Environment: SWEEP (default target/release/sweep, built first), THREADS (default all
# cores), OUT (working folder, default a temporary one, removed at the end).
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/../.."
spec=${1:-experiments/halving.toml}
threads=${THREADS:-$(nproc)}
if [[ -z ${SWEEP:-} ]]; then
    cargo build --release --quiet
    SWEEP=target/release/sweep
fi
work=${OUT:-$(mktemp -d)}
[[ -n ${OUT:-} ]] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"

# The full grid: [search] removed, episodes = max_budget in every solver.
max=$(sed -n 's/^max_budget[[:space:]]*=[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$spec")
awk -v max="$max" '
    /^\[search\]/ { skip = 1; next }
    /^\[/ { skip = 0 }
    skip { next }
    { print }
    /^kind[[:space:]]*=/ { print "episodes = " max }' "$spec" >"$work/grid.toml"

timed() { # NAME SPEC: runs it into $work/NAME, prints the wall seconds
    local start end
    start=${EPOCHREALTIME}
    "$SWEEP" run "$2" --out "$work/$1" --threads "$threads" --quiet --yes </dev/null
    end=${EPOCHREALTIME}
    python3 -c "print(f'{$end - $start:.3f}')"
}
grid_s=$(timed grid "$work/grid.toml")
search_s=$(timed search "$spec")

python3 - "$work/grid/results.csv" "$work/search/results.csv" "$grid_s" "$search_s" "$threads" <<'EOF'
import csv, math, sys
from collections import defaultdict

grid_path, search_path, grid_s, search_s, threads = sys.argv[1:]
CONFIG = ["alpha", "epsilon", "gamma", "alpha_decay", "epsilon_decay", "q_init", "symmetry",
          "epsilon_min_at", "alpha_min_at", "temperature_min_at"]
# Two-sided 95% critical values of Student's t, by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
       9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}

def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))

def episodes(rows):
    return sum(int(r["episodes"]) for r in {r["job_id"]: r for r in rows}.values())

def config(r):
    return tuple((c, r[c]) for c in CONFIG)

def shown(c):
    return ", ".join(f"{k}={v}" for k, v in c if v)

grid, search = read(grid_path), read(search_path)
by_config = defaultdict(dict)
for r in grid:
    by_config[config(r)][int(r["replicate"])] = float(r["regret"])
mean = lambda d: sum(d.values()) / len(d)
best = min(by_config, key=lambda c: (mean(by_config[c]), list(by_config).index(c)))
last = max(int(r["rung"]) for r in search)
chosen = {config(r) for r in search if int(r["rung"]) == last}
assert len(chosen) == 1, chosen
chosen = chosen.pop()
a, b = by_config[chosen], by_config[best]
diffs = [a[k] - b[k] for k in sorted(a)]
n = len(diffs)
d = sum(diffs) / n
sd = math.sqrt(sum((x - d) ** 2 for x in diffs) / (n - 1)) if n > 1 else 0.0
df = n - 1
crit = T95.get(df) or T95[max(k for k in T95 if k <= df)]
if sd == 0.0:
    t, verdict = 0.0 if d == 0 else math.inf, d == 0
else:
    t = d / (sd / math.sqrt(n))
    verdict = abs(t) < crit
ge, se = episodes(grid), episodes(search)
print(f"threads: {threads}")
print(f"| | training episodes | wall time | configuration chosen | mean regret vs random at {max(int(r['episodes']) for r in grid)} episodes |")
print("| --- | ---: | ---: | --- | ---: |")
print(f"| full grid | {ge:,} | {float(grid_s):.2f} s | {shown(best)} | {mean(b):.4f} |")
print(f"| successive halving | {se:,} ({100 * se / ge:.1f}%) | {float(search_s):.2f} s | {shown(chosen)} | {mean(a):.4f} |")
print(f"paired over {n} replicates (halving - grid): mean difference {d:.4f}, t = {t:.3f}, "
      f"|t| < {crit} (95%, {df} df): {'cannot distinguish' if verdict else 'DISTINGUISHABLE'}")
ok = verdict and se * 3 <= ge
print("goal (indistinguishable, at most a third of the episodes):", "met" if ok else "NOT met")
sys.exit(0 if ok else 1)
EOF
