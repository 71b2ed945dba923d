#!/usr/bin/env bash
# Runs every plotting script on a results directory and checks each PNG it writes.
#
#   scripts/check_plots.sh RESULTS        RESULTS: a results directory or its results.csv
#   scripts/check_plots.sh --self-test    the same on synthetic results made in a
#                                         temporary directory, plus the unit tests
#
# Creates a virtual environment ($VENV, default .venv at the repository root, with
# $PYTHON, default python3, which must be 3.11 or newer) if there is none, installs
# scripts/requirements.txt into it when that file changed since the last install, runs
# every plot script on RESULTS (the PNGs land next to the results), and checks that every
# PNG exists and is a valid, non-trivial image (tests/check_png.py). Safe to run again:
# it reuses the environment and rewrites the PNGs.
#
# plot_paired.py and plot_importance.py run the sweep binary ($SWEEP, sweep on PATH, or
# target/release/sweep); importance gets --by $IMPORTANCE_BY when it is set, and
# otherwise the parameters of a full grid that plot_importance.py finds in RESULTS (it
# is skipped with a note when no parameter forms one). A script whose solver is absent
# from RESULTS (plot_mcts.py on a Q-learning-only sweep), or that needs the binary when
# there is none, is skipped with a note, unless PLOTS_REQUIRE_ALL=1, which makes that a
# failure (CI).
#
# Exit status: 0 all good, 1 a script or an image failed, 2 bad usage or no usable Python.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
venv=${VENV:-$root/.venv}
python=${PYTHON:-python3}

usage() {
    sed -n '2,/^# Exit status/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

case ${1:-} in
    -h | --help) usage; exit 0 ;;
esac
if [ $# -ne 1 ]; then
    usage >&2
    exit 2
fi

ensure_venv() {
    if [ ! -x "$venv/bin/python" ]; then
        if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "error: the plots need Python 3.11 or newer; '$python' is not (set PYTHON)" >&2
            exit 2
        fi
        echo "creating a virtual environment in $venv"
        "$python" -m venv "$venv"
    fi
    local stamp="$venv/.plot-requirements.txt"
    if ! cmp -s "$here/requirements.txt" "$stamp" \
        || ! "$venv/bin/python" -c 'import matplotlib, numpy, pandas' 2>/dev/null; then
        echo "installing scripts/requirements.txt into $venv"
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            -r "$here/requirements.txt"
        cp "$here/requirements.txt" "$stamp"
    fi
}

results=$1
if [ "$results" != "--self-test" ] && [ ! -e "$results" ]; then
    echo "error: no such results directory or file: $results" >&2
    exit 2
fi

ensure_venv
py="$venv/bin/python"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
self_test=

if [ "$results" = "--self-test" ]; then
    self_test=1
    results="$tmp/fake-results"
    "$py" "$here/tests/make_fake_results.py" "$results"
    echo "== unit tests"
    if ! (cd "$here" && "$py" -m unittest discover -s tests 2>&1); then
        failed=$((failed + 1))
    fi
fi

: >"$tmp/pngs"
# Does RESULTS hold rows of this solver?
has_solver() {
    "$py" - "$results" "$1" <<'PY'
import csv, pathlib, sys
path = pathlib.Path(sys.argv[1])
path = path / "results.csv" if path.is_dir() else path
with open(path, newline="") as f:
    sys.exit(0 if any(r.get("solver") == sys.argv[2] for r in csv.DictReader(f)) else 1)
PY
}

# Does some solver of RESULTS vary in two parameters (a heatmap's grid)?
has_grid() {
    (cd "$here" && "$py" - "$results" <<'PY'
import sys, plot_common as pc, plot_heatmap as h
_, csv = pc.results_dir(sys.argv[1])
df = pc.read_csv(csv, pc.RESULTS_COLUMNS, "results.csv", required=[])
df = df[(df["status"] == "ok") & (df["split"] != "test")]
params = [c for c in pc.PARAM_COLUMNS if c != "seat"]
sys.exit(0 if any(len(h.axis_candidates(p, params)) >= 2 for _, p in df.groupby("solver")) else 1)
PY
    )
}

# Does RESULTS hold learning curves (curves.csv with a row beyond its header)?
has_curves() {
    local dir=$results
    [ -d "$dir" ] || dir=$(dirname "$dir")
    [ -f "$dir/curves.csv" ] && [ "$(head -n 2 "$dir/curves.csv" | wc -l)" -ge 2 ]
}

# Does some block (solver, seat, evaluation opponent, game) of RESULTS hold two
# configurations for plot_paired.py to compare? Like `sweep compare`, the test split's
# rows when there are any, else the tuning rows.
has_pairs() {
    (cd "$here" && "$py" - "$results" <<'PY'
import sys, plot_common as pc
_, csv = pc.results_dir(sys.argv[1])
df = pc.read_csv(csv, pc.RESULTS_COLUMNS, "results.csv", required=[])
test = df["split"] == "test"
df = df[(df["status"] == "ok") & (test if test.any() else ~test)]
params = [c for c in pc.PARAM_COLUMNS if c != "seat"]
sizes = df.drop_duplicates(["solver", "seat", "eval_opponent", "game"] + params).groupby(
    ["solver", "seat", "eval_opponent", "game"]).size()
sys.exit(0 if (sizes >= 2).any() else 1)
PY
    )
}

# The parameters of a full grid in RESULTS for plot_importance.py (empty: none).
grid_columns() {
    (cd "$here" && "$py" -c 'import sys, plot_importance as p
print(",".join(p.results_grid_columns(sys.argv[1])))' "$results")
}

# Can the sweep binary be found (plot_paired.py and plot_importance.py run it)?
has_sweep() {
    (cd "$here" && "$py" -c 'import sweep_tables; sweep_tables.find_sweep()' 2>/dev/null)
}

for script in plot_curves.py plot_heatmap.py plot_mcts.py plot_profile.py plot_paired.py \
    plot_importance.py; do
    args=("$results")
    case $script in
        plot_mcts.py) needs=mcts ;;
        plot_profile.py) needs= ;;
        plot_paired.py | plot_importance.py) needs=sweep ;;
        plot_curves.py) needs=curves ;;
        plot_heatmap.py) needs=grid ;;
    esac
    if [ -n "$self_test" ]; then
        # the synthetic results come with the tables of sweep compare and importance
        case $script in
            plot_paired.py) args=("$results/compare.csv") needs= ;;
            plot_importance.py) args=("$results/importance.csv") needs= ;;
        esac
    elif [ "$script" = plot_importance.py ]; then
        by=${IMPORTANCE_BY:-$(grid_columns)}
        if [ -z "$by" ]; then
            echo "== $script ${args[*]}"
            echo "skip $script: no parameter varies over a full grid in $results (set IMPORTANCE_BY)"
            continue
        fi
        args+=(--by "$by")
    fi
    echo "== $script ${args[*]}"
    if [ "$needs" = sweep ]; then
        if ! has_sweep && [ "${PLOTS_REQUIRE_ALL:-0}" != 1 ]; then
            echo "skip $script: no sweep binary (set SWEEP, put sweep on PATH or cargo build --release)"
            continue
        fi
        if [ "$script" = plot_paired.py ] && ! has_pairs && [ "${PLOTS_REQUIRE_ALL:-0}" != 1 ]; then
            echo "skip $script: no solver, seat and opponent with two configurations to compare in $results"
            continue
        fi
    elif [ "$needs" = curves ]; then
        if ! has_curves && [ "${PLOTS_REQUIRE_ALL:-0}" != 1 ]; then
            echo "skip $script: no learning curves (curves.csv) in $results"
            continue
        fi
    elif [ "$needs" = grid ]; then
        if ! has_grid && [ "${PLOTS_REQUIRE_ALL:-0}" != 1 ]; then
            echo "skip $script: no solver's runs vary in two parameters over a grid in $results"
            continue
        fi
    elif [ -n "$needs" ] && ! has_solver "$needs" && [ "${PLOTS_REQUIRE_ALL:-0}" != 1 ]; then
        echo "skip $script: no $needs rows in $results"
        continue
    fi
    if "$py" "$here/$script" "${args[@]}" >"$tmp/out"; then
        cat "$tmp/out"
        if [ ! -s "$tmp/out" ]; then
            echo "FAIL $script printed no PNG path"
            failed=$((failed + 1))
        fi
        cat "$tmp/out" >>"$tmp/pngs"
    else
        echo "FAIL $script exited with status $?"
        failed=$((failed + 1))
    fi
done

echo "== checking the images"
passed=0
if [ -s "$tmp/pngs" ]; then
    tr '\n' '\0' <"$tmp/pngs" | xargs -0 "$py" "$here/tests/check_png.py" >"$tmp/check" || true
    cat "$tmp/check"
    passed=$(grep -c '^ok ' "$tmp/check" || true)
    failed=$((failed + $(grep -c '^FAIL ' "$tmp/check" || true)))
    if [ "$((passed + $(grep -c '^FAIL ' "$tmp/check" || true)))" -ne "$(wc -l <"$tmp/pngs")" ]; then
        echo "FAIL the image check did not report on every PNG"
        failed=$((failed + 1))
    fi
fi
echo "plots: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
