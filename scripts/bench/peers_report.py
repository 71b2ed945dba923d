#!/usr/bin/env python3
"""Puts OpenSpiel's figures and `sweep bench --json`'s side by side.

Run by scripts/bench/peers.sh. Standard library only.

  peers_report.py --openspiel OS.json [--sweep SWEEP.json | --sweep-error TEXT]
                  [--json-out FILE]

Prints a table (figure, OpenSpiel, sweep, ratio = sweep / OpenSpiel) and, with
--json-out, writes the same figures as one JSON object.
"""

import argparse
import json
import sys

# (key shared by both sides, label, unit)
FIGURES = (
    ("qlearning_episodes_per_s", "Q-learning, X vs random", "episodes/s"),
    ("mcts_empty_iterations_per_s", "MCTS 10k, empty board", "iterations/s"),
    ("mcts_midgame_iterations_per_s", "MCTS 10k, mid-game (X4 O0 X2)", "iterations/s"),
)

# Below this share of wall time on the CPU, the core was clearly shared.
CONTENDED_SHARE = 0.9

# No figure here can pass this on one core: an episode or an iteration takes
# far more than a few CPU cycles. Above it, the measurement itself is broken
# (work optimised away, wrong units or counts).
IMPLAUSIBLE_RATE = 1e9


def load_json_object(path):
    """Reads a JSON object; tolerates text printed around it."""
    with open(path) as f:
        text = f.read()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        first, last = text.find("{"), text.rfind("}")
        if first < 0 or last <= first:
            raise ValueError(f"{path}: no JSON object in the output") from None
        value = json.loads(text[first:last + 1])
    if not isinstance(value, dict):
        raise ValueError(f"{path}: expected a JSON object, got {type(value).__name__}")
    return value


def figure_of(raw):
    """{"median", "min", "max"} from a figure's value, or None if unusable."""
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return {"median": float(raw), "min": float(raw), "max": float(raw)}
    if isinstance(raw, dict) and isinstance(raw.get("median"), (int, float)):
        median = float(raw["median"])
        return {
            "median": median,
            "min": float(raw.get("min", median)),
            "max": float(raw.get("max", median)),
        }
    return None


def human(x):
    if x is None:
        return "n/a"
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3g}{suffix}"
    return f"{x:.3g}"


def cell(fig):
    if fig is None:
        return "n/a"
    return f"{human(fig['median'])} ({human(fig['min'])}-{human(fig['max'])})"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--openspiel", required=True, help="JSON written by openspiel_peers.py")
    p.add_argument("--sweep", help="JSON printed by `sweep bench --json`")
    p.add_argument("--sweep-error", help="why there are no sweep figures (printed in the report)")
    p.add_argument("--json-out", help="also write the comparison as JSON here")
    args = p.parse_args(argv)

    openspiel = load_json_object(args.openspiel)
    sweep_raw, sweep_error = None, args.sweep_error
    if args.sweep and sweep_error is None:
        try:
            sweep_raw = load_json_object(args.sweep)
        except (OSError, ValueError) as e:
            sweep_error = f"could not read `sweep bench --json` output: {e}"

    rows, out_figures, missing = [], {}, []
    for key, label, unit in FIGURES:
        os_fig = figure_of(openspiel["figures"].get(key))
        sw_fig = None
        if sweep_raw is not None:
            sw_fig = figure_of(sweep_raw.get(key))
            if sw_fig is None:
                missing.append(key)
        ratio = None
        if os_fig and sw_fig and os_fig["median"] > 0:
            ratio = sw_fig["median"] / os_fig["median"]
        rows.append((f"{label} [{unit}]", cell(os_fig), cell(sw_fig),
                     "n/a" if ratio is None else f"{ratio:,.1f}x"))
        out_figures[key] = {"unit": unit, "openspiel": os_fig, "sweep": sw_fig, "ratio": ratio}

    header = ("figure", "OpenSpiel median (min-max)", "sweep median (min-max)", "ratio sweep/OpenSpiel")
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(4)]
    line = "  ".join("-" * w for w in widths)
    print()
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print(line)
    for r in rows:
        print("  ".join([r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]))
    print(line)

    env = openspiel.get("environment", {})
    print(f"OpenSpiel {env.get('open_spiel_version', '?')} (Python {env.get('python', '?')}),"
          f" CPUs {env.get('cpu_affinity')}; MCTS with solve=False, timed bot.step(state).")
    extra = openspiel.get("extra", {})
    solver_bits = []
    for key, label in (("mcts_empty_solver_iterations_per_s", "empty board"),
                       ("mcts_midgame_solver_iterations_per_s", "mid-game")):
        fig = extra.get(key)
        if fig:
            solver_bits.append(f"{label}: {fig['simulations_run']['median']:.0f} simulations,"
                               f" {human(fig['median'])}/s")
    if solver_bits:
        print("OpenSpiel MCTS with solve=True stops once the root is proved: " + "; ".join(solver_bits) + ".")
    warnings = []
    contended = []
    for key, label, _ in FIGURES:
        fig = openspiel["figures"].get(key, {})
        share = fig.get("cpu_share", 1.0)
        if share < CONTENDED_SHARE:
            per_cpu = fig.get("median_per_cpu_second")
            contended.append(f"{label} ({share:.0%}"
                             + (f", {human(per_cpu)} per CPU second" if per_cpu else "") + ")")
    if contended:
        warnings.append(f"OpenSpiel was on the CPU less than {CONTENDED_SHARE:.0%} of the wall time for: "
                        + "; ".join(contended) + ". The core was shared with other work, so those figures are low.")
    implausible = [f"{key} = {human(fig['sweep']['median'])}/s" for key, fig in out_figures.items()
                   if fig["sweep"] and fig["sweep"]["median"] > IMPLAUSIBLE_RATE]
    if implausible:
        warnings.append(f"implausible sweep figures (over {human(IMPLAUSIBLE_RATE)} per second on one core): "
                        + "; ".join(implausible) + ". The benchmark is probably not running the work it counts.")
    if not sweep_error and missing:
        warnings.append("`sweep bench --json` has no usable figure for: " + ", ".join(missing)
                        + ' (each should be an object {"median", "min", "max"}).')
    for w in warnings:
        print(f"warning: {w}")
    if sweep_error:
        print(f"sweep: {sweep_error}")

    if args.json_out:
        report = {
            "figures": out_figures,
            "sweep_error": sweep_error,
            "warnings": warnings,
            "openspiel": openspiel,
            "sweep_raw": sweep_raw,
        }
        with open(args.json_out, "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
        print(f"wrote {args.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
