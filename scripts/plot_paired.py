#!/usr/bin/env python3
"""Paired differences: every configuration's difference to the baseline (the best
configuration by default) with its 95% paired-t interval, one panel per (solver, seat,
evaluation opponent), coloured by the verdict of `sweep compare` (better, worse,
indistinguishable: the Holm-adjusted Wilcoxon signed-rank test at 0.05).

RESULTS is either a results directory (or its results.csv), on which the script runs
`sweep compare RESULTS --csv` with --metric, --baseline and --by, or a CSV file saved
from `sweep compare ... --csv > FILE` (then --metric only names the axis: pass the one the
table was made with). The sweep binary is --sweep, $SWEEP, sweep on PATH, or
target/release/sweep (or target/debug/sweep) of this repository, in that order.

Writes paired_<metric>.png into the results directory (or the CSV file's directory), or
--out, and prints its path.
"""

import plot_common as pc  # first: it checks the packages and selects the Agg backend
import plot_style as ps
import sweep_tables as st
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

EXAMPLE = "python3 scripts/plot_paired.py results/epsilon --metric regret_auc"
METRICS = ["regret", "regret_auc", "solved_at", "value"]
VERDICTS = {"baseline": ("0.1", "D"), "better": ("tab:green", "o"),
            "worse": ("tab:red", "o"), "indistinguishable": ("0.55", "o")}
METRIC_NAMES = {"regret": "final regret", "regret_auc": "mean regret over the run (regret_auc)",
                "solved_at": "first episode solved (solved_at)", "value": "final value"}


def parse_args():
    p = pc.parser(__doc__, EXAMPLE)
    p.add_argument("--metric", choices=METRICS, default="regret",
                   help="the metric compared (default: regret)")
    p.add_argument("--baseline", default="best", metavar="best|CONFIG",
                   help="`best`, a label, or col=value,col=value (default: best)")
    p.add_argument("--by", metavar="COLS",
                   help="configuration columns, comma separated (default: every parameter "
                        "but the seat)")
    p.add_argument("--eval-opponent", metavar="NAME", help="only the blocks evaluated against NAME")
    p.add_argument("--name", metavar="NAME", help="file name (default: paired_<metric>)")
    st.add_sweep_option(p)
    return p.parse_args()


def row_names(block):
    """Each row's name: its label when labels tell the configurations apart, else its
    configuration (the varying columns)."""
    labels, configs = block["label"], block["configuration"]
    if labels.nunique() == len(block) and len(block) > 1:
        return list(labels)
    return [c if c else lab for c, lab in zip(configs, labels)]


def draw_block(ax, block, metric):
    block = block.sort_values("difference", key=lambda d: d.fillna(np.inf), kind="stable")
    block = block.assign(_base=block["verdict"] != "baseline").sort_values("_base", kind="stable")
    names = row_names(block)
    ys = np.arange(len(block))[::-1]
    for y, (_, r) in zip(ys, block.iterrows()):
        colour, marker = VERDICTS.get(r["verdict"], ("tab:blue", "o"))
        if r["verdict"] != "baseline" and np.isfinite(r["ci95_low"]):
            ax.plot([r["ci95_low"], r["ci95_high"]], [y, y], color=colour, linewidth=2.2,
                    solid_capstyle="butt")
        ax.plot([r["difference"]], [y], marker=marker, color=colour, markersize=6,
                linestyle="none")
    ax.axvline(0, color="0.3", linewidth=0.9, zorder=0)
    ax.set_yticks(ys, names, fontsize=8.5)
    ax.set_ylim(-0.7, len(block) - 0.3)
    ax.grid(True, axis="x", alpha=0.3)
    for y, (_, r) in zip(ys, block.iterrows()):
        note = f"mean {r['mean']:.4g}"
        if r["verdict"] != "baseline":
            note += f" · p_holm {r['p_holm']:.2g}" if np.isfinite(r["p_holm"]) else ""
            note += f" · {r['verdict']}"
        ax.annotate(note, (1.01, y), xycoords=("axes fraction", "data"), va="center",
                    fontsize=7.5, color=VERDICTS.get(r["verdict"], ("0.2",))[0])
    ax.set_xlabel(f"difference in {METRIC_NAMES[metric]}: configuration − baseline")
    return names


def draw(blocks, metric):
    rows = [len(b) for _, b in blocks]
    height = sum(0.9 + 0.32 * n for n in rows) + 1.2
    fig, axes = plt.subplots(len(blocks), 1, squeeze=False, layout="constrained",
                             figsize=(10, max(3.6, height)),
                             gridspec_kw={"height_ratios": [0.9 + 0.32 * n for n in rows]})
    for ax, ((solver, seat, opp), block) in zip(axes[:, 0], blocks):
        draw_block(ax, block, metric)
        base = block[block["verdict"] == "baseline"]
        base_name = row_names(block)[list(block.index).index(base.index[0])] if len(base) else "?"
        ax.set_title(f"{solver} · {ps.facet_title(seat, opp)} · baseline: {base_name}",
                     fontsize=10)
    fig.suptitle(f"Paired differences to the baseline: {metric}", fontsize=13,
                 fontweight="bold")
    lower = "higher" if metric == "value" else "lower"
    text = ps.caption([
        "line: 95% paired-t interval of the mean difference over paired replicates (same seeds)",
        "colour: verdict of the Holm-adjusted Wilcoxon signed-rank test at 0.05 "
        "(green better, red worse, grey indistinguishable)",
        f"{lower} {metric} is better", "numbers from `sweep compare --csv`"], width=110)
    fig.text(0.5, -0.01, text, ha="center", va="top", fontsize=8.5, color="0.25")
    return fig


def main():
    args = parse_args()
    options = ["--metric", args.metric, "--baseline", args.baseline]
    if args.by:
        options += ["--by", args.by]
    directory, df = st.table(args.results, "compare", options, st.COMPARE_COLUMNS, args.sweep)
    df = pc.only_eval_opponent(df, args.eval_opponent, "comparisons")
    blocks = [(k, b) for k, b in st.blocks(df) if len(b) > 1]
    single = len(st.blocks(df)) - len(blocks)
    if single:
        pc.note(f"note: left out {single} block(s) with a single configuration (nothing to compare)")
    if not blocks:
        raise pc.UsageError("no block has two configurations to compare")
    fig = draw(blocks, args.metric)
    name = args.name or f"paired_{args.metric}"
    if args.eval_opponent and not args.name:
        name += "_" + args.eval_opponent
    ps.save(fig, pc.out_dir(args, directory) / f"{pc.slug(name)}.png")


if __name__ == "__main__":
    pc.main_wrapper(main)
