#!/usr/bin/env bash
# Loads the reports of a few sweeps in a real browser (headless Chromium from the
# distribution's packages): the smoke spec, the learners, a search (halving), a 4x4 sweep,
# a TPE search (its search section), the main example (whose leaderboard must exclude
# some configuration from the best), Connect Four (rows scored by search),
# and two directories side by side. For each page: no console message at all (an error, a
# failed script), one table row per configuration in the DOM after the scripts ran (as many
# as `sweep summary --csv` prints), the embedded CSV inflated by the browser to the results
# file's line count, and a screenshot (PNG) for a person to look at.
#
# usage: scripts/report_check.sh [OUT]    screenshots go to OUT (default: a temporary folder)
# SWEEP names the binary (default: target/release/sweep, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

sweep=${SWEEP:-target/release/sweep}
[ -x "$sweep" ] || cargo build --release --locked
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && apt-get install -y -qq chromium >/dev/null
    else
        echo "chromium is not installed (apt-get install chromium)" >&2
        exit 1
    fi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=${1:-$work/shots}
mkdir -p "$out"

browser() {
    chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$(mktemp -d -p "$work")" --hide-scrollbars "$@"
}

failed=0
fail() { echo "FAIL: $*" >&2; failed=1; }

# check PAGE NAME ROWS LINES BYTES: ROWS configuration rows expected; LINES and BYTES the
# results file's lines and size (0: no embedded file).
check() {
    local page=$1 name=$2 rows=$3 lines=$4 bytes=${5:-0}
    # A copy that also inflates the embedded file and writes its line count into the DOM.
    local probe="$work/$name.probe.html"
    cp "$page" "$probe"
    [ "$lines" = 0 ] || sed 's#</body></html>#<script>if(window.inflate)inflate().then(function(b){return b.text()}).then(function(t){document.body.setAttribute("data-csv-lines",t.split("\\n").length-1);document.body.setAttribute("data-csv-bytes",new Blob([t]).size)},function(e){document.body.setAttribute("data-csv-lines","error "+e)})</script></body></html>#' \
        "$page" >"$probe"
    browser --enable-logging=stderr --v=0 --virtual-time-budget=10000 --dump-dom "file://$probe" \
        >"$work/$name.dom" 2>"$work/$name.log" || fail "$name: chromium exited with an error"
    if grep -q 'CONSOLE' "$work/$name.log"; then
        fail "$name: console messages:"
        grep 'CONSOLE' "$work/$name.log" >&2
    fi
    local found
    found=$(grep -o '<tr data-config=' "$work/$name.dom" | wc -l)
    [ "$found" = "$rows" ] || fail "$name: $found configuration rows in the DOM, expected $rows"
    if [ "$lines" != 0 ]; then
        grep -q "data-csv-lines=\"$lines\" data-csv-bytes=\"$bytes\"" "$work/$name.dom" ||
            fail "$name: the embedded CSV did not inflate to $lines lines, $bytes bytes ($(grep -o 'data-csv-[a-z]*="[^"]*"' "$work/$name.dom" | tr '\n' ' '))"
    fi
    browser --window-size=1200,2400 --screenshot="$out/$name.png" "file://$page" 2>/dev/null ||
        fail "$name: no screenshot"
    [ -s "$out/$name.png" ] || fail "$name: empty screenshot"
    echo "$name: $found configuration rows, console clean, screenshot $out/$name.png"
}

for spec in smoke learners halving four qlearning search-tpe connect-four; do
    dir="$work/$spec"
    "$sweep" run "experiments/$spec.toml" --quiet --yes --out "$dir"
    "$sweep" report "$dir" 2>/dev/null
    lines=$("$sweep" summary "$dir" --csv | wc -l)
    configurations=$((lines - 1))
    check "$dir/report.html" "$spec" "$configurations" "$(wc -l <"$dir/results.csv")" "$(wc -c <"$dir/results.csv")"
    # The leaderboard's verdicts are summary's: the same count of each.
    for verdict in best equal could-be-best not-best; do
        in_page=$( (grep -o ">$verdict<" "$work/$spec.dom" || true) | wc -l)
        in_summary=$("$sweep" summary "$dir" --csv | grep -c ",$verdict," || true)
        [ "$in_page" = "$in_summary" ] ||
            fail "$spec: $in_page '$verdict' marks in the report, $in_summary in sweep summary"
    done
done
# The main example speaks: some configuration is excluded from the best against random,
# and the all-zero rows against minimax read equal.
grep -q '>not-best<' "$work/qlearning.dom" || fail "qlearning: no not-best mark in the report"
grep -q '>equal<' "$work/qlearning.dom" || fail "qlearning: no equal mark in the report"

# The TPE search's section: best so far against trials and time, and each of its four
# sampled axes' proposals.
grep -q 'id="tpe"' "$work/search-tpe.dom" || fail "search-tpe: no search (TPE) section in the report"
axes=$(grep -o 'proposed, trial by trial</title>' "$work/search-tpe.dom" | wc -l)
[ "$axes" = 4 ] || fail "search-tpe: $axes charts of proposals per axis, expected 4"
# Two directories side by side: every configuration of either once, in one of three tables.
keys() {
    "$sweep" summary "$1" --csv | python3 -c 'import csv, sys
rows = list(csv.reader(sys.stdin))
k = rows[0].index("n")
print("\n".join("|".join(r[:k]) for r in rows[1:]))'
}
"$sweep" report "$work/smoke" "$work/learners" 2>/dev/null
check "$work/smoke/report-vs-learners.html" "smoke-vs-learners" \
    "$( (keys "$work/smoke"; keys "$work/learners") | sort -u | wc -l)" 0

if [ "$failed" != 0 ]; then
    echo "report check: FAILED" >&2
    exit 1
fi
echo "report check: every page loads cleanly ($out)"
