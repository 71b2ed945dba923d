#!/usr/bin/env bash
# Side-by-side benchmark: OpenSpiel (from PyPI) and `sweep bench`, same
# workloads, one core. See scripts/bench/README.md.
#
#   scripts/bench/peers.sh [--json-out FILE] [--no-build] [--no-pin] [--quick]
#                          [--sweep-seconds S]
#
# Environment:
#   VENV    virtual environment to create or reuse (default scripts/bench/.venv)
#   PYTHON  interpreter that creates it (default python3.11 if found, else python3)
#   SWEEP   sweep binary (default: target/release/sweep, built with cargo build --release)
#   CORE    CPU to pin to with taskset (default 0)
set -euo pipefail

usage() {
  # the comment block at the top of this file
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"
  cat <<'EOF'
Options:
  --json-out FILE     also write the comparison as JSON to FILE
  --no-build          do not run cargo build --release before using the default binary
  --no-pin            do not pin to one CPU with taskset
  --quick             fewer and shorter repetitions (a smoke test, not a measurement)
  --sweep-seconds S   passed to `sweep bench` as --seconds S
EOF
}

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$BENCH_DIR/../.." && pwd)"

json_out=""
build=1
pin=1
quick=0
sweep_seconds=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --json-out) [[ $# -ge 2 ]] || { echo "peers.sh: --json-out needs a file" >&2; exit 2; }
                json_out="$2"; shift 2 ;;
    --json-out=*) json_out="${1#*=}"; shift ;;
    --no-build) build=0; shift ;;
    --no-pin) pin=0; shift ;;
    --quick) quick=1; shift ;;
    --sweep-seconds) [[ $# -ge 2 ]] || { echo "peers.sh: --sweep-seconds needs a value" >&2; exit 2; }
                     sweep_seconds="$2"; shift 2 ;;
    --sweep-seconds=*) sweep_seconds="${1#*=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "peers.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
# --json-out is relative to where the script was called from.
if [[ -n "$json_out" && "$json_out" != /* ]]; then
  json_out="$PWD/$json_out"
fi

started=$SECONDS
say() { echo "== $*" >&2; }

# --- pinning ---------------------------------------------------------------
core="${CORE:-0}"
pin_cmd=()
if [[ $pin -eq 1 ]]; then
  if command -v taskset >/dev/null 2>&1 && taskset -c "$core" true 2>/dev/null; then
    pin_cmd=(taskset -c "$core")
    say "pinning the measurements to CPU $core (taskset -c $core)"
  else
    say "taskset not available (or CPU $core not usable): measurements are not pinned"
  fi
fi

# --- virtual environment with OpenSpiel -------------------------------------
venv="${VENV:-$BENCH_DIR/.venv}"
requirements="$BENCH_DIR/requirements.txt"
if [[ ! -x "$venv/bin/python" ]]; then
  python="${PYTHON:-}"
  if [[ -z "$python" ]]; then
    if command -v python3.11 >/dev/null 2>&1; then python=python3.11; else python=python3; fi
  fi
  say "creating virtual environment $venv with $python ($("$python" --version 2>&1))"
  if ! "$python" -m venv "$venv"; then
    echo "peers.sh: could not create a virtual environment with $python" \
         "(on Debian/Ubuntu: apt-get install python3-venv)" >&2
    exit 1
  fi
else
  say "reusing virtual environment $venv ($("$venv/bin/python" --version 2>&1))"
fi
stamp="$venv/.peers-requirements.sha256"
if command -v sha256sum >/dev/null 2>&1; then
  want="$(sha256sum "$requirements" | cut -d' ' -f1)"
else
  want="$(shasum -a 256 "$requirements" | cut -d' ' -f1)"
fi
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  say "installing $(grep -m1 '^open-spiel==' "$requirements") and its dependencies"
  if ! "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$requirements"; then
    echo "peers.sh: pip could not install $requirements into $venv." \
         "If PyPI has no open-spiel wheel for this interpreter or platform," \
         "remove $venv and set PYTHON to an interpreter it has one for." >&2
    exit 1
  fi
  echo "$want" > "$stamp"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# --- the sweep binary ---------------------------------------------------------
if [[ -n "${SWEEP:-}" ]]; then
  sweep="$SWEEP"
else
  sweep="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/release/sweep"
  if [[ "$sweep" != /* ]]; then sweep="$REPO_ROOT/$sweep"; fi
  if [[ $build -eq 1 ]]; then
    if command -v cargo >/dev/null 2>&1; then
      say "building sweep (cargo build --release)"
      if ! (cd "$REPO_ROOT" && cargo build --release >&2); then
        say "cargo build --release failed; using whatever binary is already at $sweep"
      fi
    else
      say "cargo not found; using whatever binary is already at $sweep"
    fi
  fi
fi

# --- (a) and (b): OpenSpiel -----------------------------------------------------
os_args=()
if [[ $quick -eq 1 ]]; then
  os_args=(--q-episodes 1000 --q-warmup-episodes 200 --q-reps 3 --mcts-reps 3 --mcts-warmup 1)
fi
say "measuring OpenSpiel"
"${pin_cmd[@]}" "$venv/bin/python" "$BENCH_DIR/openspiel_peers.py" \
  --out "$work/openspiel.json" "${os_args[@]}"

# --- (c): sweep bench --------------------------------------------------------------
report_args=(--openspiel "$work/openspiel.json")
sweep_error=""
if [[ ! -x "$sweep" ]]; then
  sweep_error="no sweep binary at $sweep (build it with cargo build --release, or set SWEEP)"
else
  bench_args=(bench --json)
  if [[ -n "$sweep_seconds" ]]; then bench_args+=(--seconds "$sweep_seconds"); fi
  say "measuring sweep ($sweep ${bench_args[*]})"
  status=0
  "${pin_cmd[@]}" "$sweep" "${bench_args[@]}" >"$work/sweep.json" 2>"$work/sweep.err" || status=$?
  if [[ $status -ne 0 ]]; then
    detail="$(grep -v '^[[:space:]]*$' "$work/sweep.err" | head -n 3 | tr '\n' ' ' | cut -c1-300)"
    if grep -qiE "unrecognized subcommand|unknown (sub)?command|invalid subcommand" "$work/sweep.err"; then
      sweep_error="this sweep build has no \`bench\` subcommand yet; OpenSpiel figures only. ($detail)"
    else
      sweep_error="\`sweep bench --json\` failed with status $status: $detail"
    fi
  elif [[ ! -s "$work/sweep.json" ]]; then
    sweep_error="\`sweep bench --json\` printed nothing on stdout"
  fi
fi
if [[ -n "$sweep_error" ]]; then
  say "no sweep figures: $sweep_error"
  report_args+=(--sweep-error "$sweep_error")
else
  report_args+=(--sweep "$work/sweep.json")
fi

# --- (d): the table ----------------------------------------------------------------
if [[ -n "$json_out" ]]; then report_args+=(--json-out "$json_out"); fi
"$venv/bin/python" "$BENCH_DIR/peers_report.py" "${report_args[@]}"
say "done in $((SECONDS - started)) s"
