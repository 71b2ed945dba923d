#!/usr/bin/env bash
# Does a change keep every output of the tool? Runs two builds of `sweep` over specs and
# diffs what they write and print:
#
#   scripts/compare_binaries.sh OLD_SWEEP NEW_SWEEP [SPEC...]
#
# (default specs: every experiments/*.toml but the heavy boards.toml and four.toml). For
# each spec both builds run it; their results.csv and curves.csv must be equal but for
# the timing columns (train_ms, eval_ms) and the columns one build has and the other
# lacks (listed). Then, on the new build's results, both builds
# print summary (means, and IQMs with their bootstrap intervals), compare (by
# configuration and by solver), importance, fidelity and the
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
# A calibration both builds read (shares as a list in the five learners' order, the form
# every build since the calibration was saved reads).
cat >"$work/calibration.json" <<'EOF'
{"q_per_s": 2e7, "shares": [1.0, 0.93, 0.72, 0.62, 0.75], "big_table": 60.0, "mcts_per_s": 1.2e7, "eval_s": 3.4e-6, "solve_s": 3.8e-4,
 "per_job_s": 5e-5, "shared_s_per_byte": 7e-9, "page_s": 2e-6, "free": 1.0, "others": 0.0, "source": "fixed"}
EOF
same() { # NAME FILE_A FILE_B
    if cmp -s "$2" "$3"; then
        echo "same     $1"
    else
        echo "DIFFERS  $1"
        diff "$2" "$3" | head -5 | cut -c1-160 | sed 's/^/    /'
        failed=1
    fi
}
# Two CSV files without their timing columns, and without the columns only one of them
# has (a newer build may append columns, empty in every row of these specs): A to $3,
# B to $4; the columns only one has are listed.
untimed() {
    python3 - "$1" "$2" "$3" "$4" <<'EOF'
import csv, sys
a = list(csv.reader(open(sys.argv[1], newline="")))
b = list(csv.reader(open(sys.argv[2], newline="")))
ha, hb = (a[0] if a else []), (b[0] if b else [])
common = [c for c in ha if c in hb and c not in ("train_ms", "eval_ms")]
extra = [c for c in ha + hb if (c in ha) != (c in hb)]
if extra:
    filled = [c for c in extra for rows, h in ((a, ha), (b, hb)) if c in h and any(r[h.index(c)] for r in rows[1:])]
    print("    columns in one file only:", ", ".join(extra), "(not empty: " + ", ".join(filled) + ")" if filled else "(empty)")
for rows, header, out in ((a, ha, sys.argv[3]), (b, hb, sys.argv[4])):
    keep = [header.index(c) for c in common]
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        for r in rows:
            w.writerow([r[i] for i in keep])
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
        untimed "$work/$name-old/$file" "$work/$name-new/$file" "$work/a.csv" "$work/b.csv"
        same "$name: $file (timings aside)" "$work/a.csv" "$work/b.csv"
    done
    dir="$work/$name-new"
    both "$name: summary" summary "$dir"
    both "$name: summary --stat iqm" summary "$dir" --stat iqm
    # A CSV table lists every parameter column: a parameter one build lacks is left out.
    "$old" summary "$dir" --format csv >"$work/a.out" 2>&1
    "$new" summary "$dir" --format csv >"$work/b.out" 2>&1
    untimed "$work/a.out" "$work/b.out" "$work/a.csv" "$work/b.csv"
    same "$name: summary --format csv" "$work/a.csv" "$work/b.csv"
    both "$name: compare" compare "$dir"
    both "$name: compare --by solver" compare "$dir" --by solver
    both "$name: importance" importance "$dir"
    both "$name: fidelity" fidelity "$dir"
    # (a row's data-config key joins every parameter column: left out, as above)
    "$old" report "$dir" --out "$work/a.html" >/dev/null 2>&1
    "$new" report "$dir" --out "$work/b.html" >/dev/null 2>&1
    sed -i 's/data-config="[^"]*"/data-config/g' "$work/a.html" "$work/b.html"
    same "$name: report" "$work/a.html" "$work/b.html"
    # plan, under one fixed calibration (its CPU estimates then depend on the spec alone;
    # the wall estimate and the memory budget, which read the host's load and free memory
    # now, are left out).
    SWEEP_CALIBRATION="$work/calibration.json" "$old" plan "$spec" 2>&1 | grep -v -e 'wall time' -e 'memory budget' >"$work/a.out"
    SWEEP_CALIBRATION="$work/calibration.json" "$new" plan "$spec" 2>&1 | grep -v -e 'wall time' -e 'memory budget' >"$work/b.out"
    same "$name: plan (fixed calibration, wall aside)" "$work/a.out" "$work/b.out"
done
both "columns" columns
both "columns --json" columns --json
both "solve" solve
both "solve --game 3x4k3 --seat o --opponent minimax" solve --game 3x4k3 --seat o --opponent minimax
exit $failed
