#!/usr/bin/env bash
# Plan versus measured: for each spec, `sweep plan`'s estimate against `sweep run` on the
# same threads, run right after the plan (whose calibration is measured in the same minute).
# Compared: the CPU time (plan's "s of CPU in all" against the run's user + system time),
# which other work on the host does not change; and the wall time, held to the bound only
# when the host is quiet (its load average below the threads used), since a busy host
# stretches a run's wall time by whatever else runs. Fails when an estimate is off by more
# than a factor of BOUND (default 1.5) either way at each of ATTEMPTS readings (default 2:
# one repeat of a spec that was off).
#
#   scripts/plan_check.sh [SPEC...]      default: the specs in tests/data/plan/
#
# Specs generated to cover every kind, board family, seat, symmetry, evaluation opponent
# and search method: python3 scripts/plan_specs.py DIR, then scripts/plan_check.sh DIR/*.toml.
#
# SWEEP: the binary (default target/release/sweep); THREADS (default 2); BOUND (1.5);
# ATTEMPTS (2): readings of a spec before it fails;
# SHORT (1): runs and estimates both under this many seconds pass when within it.
# A saved `sweep bench --save` calibration is ignored here (SWEEP_CALIBRATION points at a
# file that does not exist), so that the check measures the estimate users get by default.
set -euo pipefail
cd "$(dirname "$0")/.."
sweep=${SWEEP:-target/release/sweep}
threads=${THREADS:-2}
bound=${BOUND:-1.5}
attempts=${ATTEMPTS:-2}
(($# > 0)) || set -- tests/data/plan/*.toml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SWEEP_CALIBRATION="$work/none.json"

seconds() { # "12.3 s" | "4.5 min" | "1.2 h" -> seconds
    awk '{ f = ($2 == "min") ? 60 : ($2 == "h") ? 3600 : 1; printf "%.3f", $1 * f }' <<<"$1"
}

one() { # spec -> "estimated-wall measured-wall estimated-cpu measured-cpu"
    local plan estimate cpu times
    plan=$("$sweep" plan "$1" --threads "$threads" 2>/dev/null)
    estimate=$(grep -o 'estimated wall time on [0-9]* threads: [0-9.]* [a-z]*' <<<"$plan" | sed 's/.*: //')
    cpu=$(grep -o '[0-9.]* s of CPU in all' <<<"$plan" | cut -d' ' -f1)
    times=$( { /usr/bin/time -f '%e %U %S' "$sweep" run "$1" --threads "$threads" --quiet --yes \
        --out "$(mktemp -u -p "$work" out-XXXXXXXX)" >/dev/null; } 2>&1 | tail -1)
    read -r wall user sys <<<"$times"
    echo "$(seconds "$estimate") $wall $cpu $(echo "$user + $sys" | bc -l)"
}

within() { echo "$1 <= $bound && $1 >= 1 / $bound" | bc -l; }

# Under a second, a run is mostly its fixed costs (starting the process, tic-tac-toe's
# tables, the final sort of the files), which a ratio magnifies: a short run passes when
# the estimate is within SHORT seconds (default 1) of it.
short=${SHORT:-1}
near() { echo "$1 < $short && $2 < $short" | bc -l; }
ratio() { echo "if ($2 > 0) $1 / $2 else 0" | bc -l; }

failed=0
width=40
for spec in "$@"; do if ((${#spec} > width)); then width=${#spec}; fi; done
printf '%-*s %9s %9s %6s %9s %9s %6s\n' "$width" spec "plan wall" "run wall" ratio "plan cpu" "run cpu" ratio
for spec in "$@"; do
    for ((attempt = 1; attempt <= attempts; attempt++)); do
        read -r estimate measured cpu used < <(one "$spec")
        wall_ratio=$(ratio "$estimate" "$measured")
        cpu_ratio=$(ratio "$cpu" "$used")
        # The CPU time does not depend on what else the host runs; the wall time does, so
        # it is held to the bound only on a quiet host (load below the threads used).
        quiet=$(awk -v t="$threads" '{ print ($1 < t) ? 1 : 0 }' /proc/loadavg)
        ok=$(within "$cpu_ratio")
        [[ $(near "$cpu" "$used") == 1 ]] && ok=1
        [[ $quiet == 1 && $(within "$wall_ratio") == 0 && $(near "$estimate" "$measured") == 0 ]] && ok=0
        printf '%-*s %9.1f %9.1f %6.2f %9.1f %9.1f %6.2f%s\n' "$width" "$spec" "$estimate" "$measured" "$wall_ratio" \
            "$cpu" "$used" "$cpu_ratio" \
            "$([[ $ok == 1 ]] || echo "  off by more than ${bound}x$([[ $attempt -lt $attempts ]] && echo ", repeating")")"
        [[ $ok == 1 ]] && break
        [[ $attempt == "$attempts" ]] && failed=$((failed + 1))
    done
done
if ((failed > 0)); then
    echo "plan_check: $failed spec(s) estimated beyond ${bound}x of what they measured" >&2
    exit 1
fi
echo "plan_check: every estimate within ${bound}x of what it measured"
