#!/usr/bin/env bash
# The exact solve of an m,n,k game by `sweep solve` against the memoising C reference
# (solve_ref.c), side by side: the two programs alternate, pair by pair, so that a busy
# machine weighs on both alike. Prints each program's wall, user and system time and
# peak RSS per pair, the ratio sweep / C of the wall times (lower is faster), and the
# median and range of the ratios. More `sweep` binaries may be given (e.g. an older
# build): each joins every pair and gets its own ratio.
#
#   scripts/bench/solve_ref.sh [-n PAIRS] [-g GAME] [SWEEP...]
#
# GAME is "<rows>x<cols>k<k>" (default 4x4k4); SWEEP defaults to target/release/sweep.
# CC (default cc) builds the reference with -O2 into target/solve_ref. Before timing,
# the figures that both print (positions, game value, agent states, V*, the first moves'
# values) are compared once per binary; a difference stops the script.
set -euo pipefail
cd "$(dirname "$0")/../.."
pairs=5
game=4x4k4
while getopts "n:g:" opt; do
    case $opt in
        n) pairs=$OPTARG ;;
        g) game=$OPTARG ;;
        *) echo "usage: $0 [-n PAIRS] [-g GAME] [SWEEP...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
binaries=("$@")
((${#binaries[@]} > 0)) || binaries=(target/release/sweep)
[[ $game =~ ^([0-9]+)x([0-9]+)k([0-9]+)$ ]] || { echo "$0: -g $game: not <rows>x<cols>k<k>" >&2; exit 2; }
board=("${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}")
[[ -x /usr/bin/time ]] || { echo "$0: needs /usr/bin/time (GNU time) for the peak RSS" >&2; exit 2; }
for b in "${binaries[@]}"; do [[ -x $b ]] || { echo "$0: $b: no such binary (cargo build --release?)" >&2; exit 2; }; done

mkdir -p target
reference=target/solve_ref
"${CC:-cc}" -O2 -std=c99 -o "$reference" scripts/bench/solve_ref.c
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The figures both programs print, in the reference's form (see tests/integration/solve.rs).
figures() {
    sed -n -e '/legal positions;/p' -e '/^seat x against random:/p' -e '/^first decisions/p' \
        -e 's/^\(optimal value V\* = [^ ]*\).*/\1/p' -e 's/^ *[^ ]*\(  cell [0-9]*  value .*\)$/\1/p'
}
"$reference" "${board[@]}" > "$work/reference.txt"
for b in "${binaries[@]}"; do
    "$b" solve --game "$game" | figures > "$work/ours.txt"
    diff "$work/reference.txt" "$work/ours.txt" > /dev/null || {
        echo "$0: $b and the reference print different figures for $game:" >&2
        diff "$work/reference.txt" "$work/ours.txt" >&2
        exit 1
    }
done
echo "$game: the figures agree (positions, game value, agent states, V*, first moves); load: $(uptime | sed 's/.*load/load/')"

# Runs a command, leaves "wall user sys rss_mb" in $work/last.
timed() {
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > /dev/null
    awk '{ printf "%.2f %.2f %.2f %.0f\n", $1, $2, $3, $4 / 1024 }' "$work/time" > "$work/last"
}

printf '%-4s %-28s %7s %7s %7s %7s %7s\n' pair program wall_s user_s sys_s rss_mb ratio
declare -A ratios
for ((p = 1; p <= pairs; p++)); do
    timed "$reference" "${board[@]}"
    read -r c_wall c_user c_sys c_rss < "$work/last"
    printf '%-4s %-28s %7s %7s %7s %7s\n' "$p" "C reference" "$c_wall" "$c_user" "$c_sys" "$c_rss"
    for b in "${binaries[@]}"; do
        timed "$b" solve --game "$game"
        read -r wall user sys rss < "$work/last"
        # A wall time below the timer's 10 ms has no ratio.
        ratio=$(awk -v a="$wall" -v b="$c_wall" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "-" }')
        [[ $ratio == - ]] || ratios[$b]+="$ratio "
        printf '%-4s %-28s %7s %7s %7s %7s %7s\n' "$p" "$b" "$wall" "$user" "$sys" "$rss" "$ratio"
    done
done
echo
for b in "${binaries[@]}"; do
    [[ -n ${ratios[$b]:-} ]] || { echo "$b / C: no ratio (the reference ran in under 10 ms)"; continue; }
    # shellcheck disable=SC2086
    printf '%s\n' ${ratios[$b]} | sort -g | awk -v b="$b" '
        { r[NR] = $1 }
        END { m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
              printf "%s / C: median %.3f, range %.3f-%.3f over %d pairs\n", b, m, r[1], r[NR], NR }'
done
