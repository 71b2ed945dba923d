#!/usr/bin/env bash
# MCTS of several builds side by side, by CPU time: builds `mcts_cpu.rs` against each
# checkout given (copied into its `examples/` for the build, then removed), then runs the
# builds alternately, ROUNDS rounds in a rotating order, each run 5 repetitions of 300
# 10,000-iteration searches per kernel (tic-tac-toe's empty board and mid-game, 4x4k4's
# empty board). Prints each round's medians (M iterations per CPU-second) and, per kernel,
# every build's ratio to the first build: the median over the rounds and the range.
#
#   scripts/bench/mcts_cpu.sh [-r ROUNDS] CHECKOUT...    (default 8 rounds)
#
# A checkout is a directory holding a clone of the repository at the commit to measure
# (e.g. `git worktree add /tmp/old <commit>`); its `target/` is used for the build.
set -euo pipefail
rounds=8
if [[ "${1:-}" == "-r" ]]; then rounds=$2; shift 2; fi
(($# > 0)) || { echo "usage: $0 [-r ROUNDS] CHECKOUT..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

names=()
for dir in "$@"; do
    name=$(basename "$dir")
    [[ -d "$dir/examples" ]] && had_examples=1 || had_examples=0
    mkdir -p "$dir/examples"
    cp "$here/mcts_cpu.rs" "$dir/examples/mcts_cpu.rs"
    (cd "$dir" && cargo build --release --quiet --example mcts_cpu)
    cp "${CARGO_TARGET_DIR:-$dir/target}/release/examples/mcts_cpu" "$work/$name"
    rm "$dir/examples/mcts_cpu.rs"
    ((had_examples)) || rmdir "$dir/examples"
    names+=("$name")
done

n=${#names[@]}
for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < n; i++)); do
        name=${names[$(((i + r) % n))]}
        "$work/$name" 5 300 | sed "s/^/$r $name /" >> "$work/runs"
    done
done

python3 - "$work/runs" "${names[@]}" <<'PY'
import collections, statistics, sys
runs, names = sys.argv[1], sys.argv[2:]
rates = collections.defaultdict(list)
for line in open(runs):
    r, name, _, kernel, rate = line.split()
    rates[(int(r), name, kernel)].append(float(rate))
rounds = sorted({k[0] for k in rates})
for kernel in ["empty", "midgame", "4x4k4"]:
    print(f"== {kernel} (M iterations per CPU-second, median of 5 per round)")
    med = {(r, n): statistics.median(rates[(r, n, kernel)]) for r in rounds for n in names}
    for r in rounds:
        print(f"  round {r + 1}: " + "  ".join(f"{n} {med[(r, n)]:.2f}" for n in names))
    for n in names[1:]:
        q = [med[(r, n)] / med[(r, names[0])] for r in rounds]
        print(f"  {n} / {names[0]}: median {statistics.median(q):.3f}, range {min(q):.3f}-{max(q):.3f}")
PY
