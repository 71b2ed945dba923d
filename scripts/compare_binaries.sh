#!/usr/bin/env bash
# Does a change keep every output of the tool? Runs two builds of `sweep` over specs and
# diffs what they write and print:
#
#   scripts/compare_binaries.sh OLD_SWEEP NEW_SWEEP [SPEC...]
#
# (default specs: every experiments/*.toml but the heavy boards.toml and four.toml). For
# each spec both builds run it; their results.csv and curves.csv must be equal but for
# the timing columns (train_ms, eval_ms). Then, on the new build's results, both builds
# print summary, compare (by configuration and by solver), importance, fidelity and the
# report page, which must be equal byte for byte (the report's run times and directory
# aside, which differ between runs). Also `columns`, `solve` and `plan`'s job table.
# Prints one line per check and exits 1 if any differs.
set -uo pipefail
[ $# -ge 2 ] || { sed -n 2,12p "$0"; exit 2; }
old=$(realpath "$1")
new=$(realpath "$2")
shift 2
cd "$(dirname "$0")/.."
specs=("$@")
[ ${#specs[@]} -gt 0 ] || mapfile -t specs < <(ls experiments/*.toml | grep -v -e '/boards.toml$' -e '/four.toml$')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
same() { # NAME FILE_A FILE_B
    if cmp -s "$2" "$3"; then
        echo "same     $1"
    else
        echo "DIFFERS  $1"
        diff "$2" "$3" | head -5 | sed 's/^/    /'
        failed=1
    fi
}
# A CSV file without its timing columns.
untimed() {
    python3 - "$1" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
drop = {i for i, c in enumerate(rows[0]) if c in ("train_ms", "eval_ms")} if rows else set()
w = csv.writer(sys.stdout, lineterminator="\n")
for r in rows:
    w.writerow([c for i, c in enumerate(r) if i not in drop])
EOF
}
# Both builds' output of one read-only command on the same results.
# (`solve` prints its own run time on a `time:` line: left out.)
both() { # NAME ARGS...
    local name=$1
    shift
    { "$old" "$@" 2>&1; echo "exit $?"; } | grep -v '^time: ' >"$work/a.out"
    { "$new" "$@" 2>&1; echo "exit $?"; } | grep -v '^time: ' >"$work/b.out"
    same "$name" "$work/a.out" "$work/b.out"
}
for spec in "${specs[@]}"; do
    name=$(basename "$spec" .toml)
    "$old" run "$spec" --quiet --yes --out "$work/$name-old" >/dev/null 2>&1
    "$new" run "$spec" --quiet --yes --out "$work/$name-new" >/dev/null 2>&1
    for file in results.csv curves.csv; do
        [ -f "$work/$name-old/$file" ] || [ -f "$work/$name-new/$file" ] || continue
        untimed "$work/$name-old/$file" >"$work/a.csv" 2>/dev/null
        untimed "$work/$name-new/$file" >"$work/b.csv" 2>/dev/null
        same "$name: $file (timings aside)" "$work/a.csv" "$work/b.csv"
    done
    dir="$work/$name-new"
    both "$name: summary" summary "$dir"
    both "$name: summary --format csv" summary "$dir" --format csv
    both "$name: compare" compare "$dir"
    both "$name: compare --by solver" compare "$dir" --by solver
    both "$name: importance" importance "$dir"
    both "$name: fidelity" fidelity "$dir"
    "$old" report "$dir" --out "$work/a.html" >/dev/null 2>&1
    "$new" report "$dir" --out "$work/b.html" >/dev/null 2>&1
    same "$name: report" "$work/a.html" "$work/b.html"
    # plan's job table (its times come from a calibration measured now: left out).
    "$old" plan "$spec" 2>&1 | grep -v -e 'wall time' -e 'cpu time' -e 's of CPU' -e calibration | sed 's/ [0-9.]*s  / _ /g' >"$work/a.out"
    "$new" plan "$spec" 2>&1 | grep -v -e 'wall time' -e 'cpu time' -e 's of CPU' -e calibration | sed 's/ [0-9.]*s  / _ /g' >"$work/b.out"
    same "$name: plan (times aside)" "$work/a.out" "$work/b.out"
done
both "columns" columns
both "columns --json" columns --json
both "solve" solve
both "solve --game 3x4k3 --seat o --opponent minimax" solve --game 3x4k3 --seat o --opponent minimax
exit $failed
