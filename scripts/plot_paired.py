#!/usr/bin/env python3
"""Paired differences: every configuration's difference to the baseline (the best
configuration by default) with the interval of its verdict, one panel per (solver, seat,
evaluation opponent, game), coloured by the verdict of `sweep compare` (better, worse,
indistinguishable, or cannot-reject where too few replicates could never reject; by the
Holm-adjusted paired t test at 0.05 unless --significance and --alpha say otherwise; the
t verdict's interval is Holm-adjusted like its p-value, so a line clear of zero is better or
worse; the rank and permutation tests draw none). With --by naming block columns (--by solver), one panel per block of the
others, one row per solver: each represented by its best configuration.

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
import pandas as pd  # noqa: E402

EXAMPLE = "python3 scripts/plot_paired.py results/epsilon --metric regret_auc"
METRICS = ["regret", "regret_auc", "solved_at", "value"]
VERDICTS = {"baseline": ("0.1", "D"), "better": ("tab:green", "o"),
            "worse": ("tab:red", "o"), "indistinguishable": ("0.55", "o"),
            "cannot-reject": ("tab:orange", "s"), "no-pairs": ("0.75", "x")}
BLOCK_COLUMNS = ["solver", "seat", "eval_opponent", "game"]
METRIC_NAMES = {"regret": "final regret", "regret_auc": "mean regret over the run (regret_auc)",
                "solved_at": "first episode solved (solved_at)", "value": "final value"}


def parse_args():
    p = pc.parser(__doc__, EXAMPLE)
    p.add_argument("--metric", choices=METRICS, default="regret",
                   help="the metric compared (default: regret)")
    p.add_argument("--baseline", default="best", metavar="best|CONFIG",
                   help="`best`, a label, or col=value,col=value (default: best)")
    p.add_argument("--by", metavar="COLS",
                   help="what is compared, comma separated: parameters (default: every "
                        "parameter but the seat), or block columns such as solver, each "
                        "value represented by its best configuration")
    p.add_argument("--significance", choices=["wilcoxon", "t", "permutation"],
                   help="the paired test behind the verdicts (default: t)")
    p.add_argument("--alpha", metavar="LEVEL", help="the level of the verdicts (default: 0.05)")
    p.add_argument("--eval-opponent", metavar="NAME", help="only the blocks evaluated against NAME")
    p.add_argument("--name", metavar="NAME", help="file name (default: paired_<metric>)")
    st.add_sweep_option(p)
    return p.parse_args()


def row_names(block):
    """Each row's name: its label when labels tell the configurations apart, else its
    configuration (the varying columns); with the label in front when the rows are groups
    (each one's best configuration)."""
    labels, configs = block["label"], block["configuration"]
    if "configurations" in block and (block["configurations"].astype(str) != "1").any():
        return [f"{lab} ({c})" if c else lab for c, lab in zip(configs, labels)]
    if labels.nunique() == len(block) and len(block) > 1:
        return list(labels)
    return [c if c else lab for c, lab in zip(configs, labels)]


def block_keys(df):
    """The block columns whose values split the table into blocks of one baseline each:
    all of them for a comparison of configurations; without the compared ones (`--by
    solver`, say) for a comparison of groups. Found from the baselines, so that a saved
    table is read the same way."""
    present = [c for c in BLOCK_COLUMNS if c in df.columns]
    for lifted in [[]] + [[c] for c in present] + [present[:i] + present[i + 1:] for i in range(len(present))]:
        keys = [c for c in present if c not in lifted]
        if not keys:
            continue
        counts = df.groupby(keys, sort=False)["verdict"].apply(lambda v: (v == "baseline").sum())
        if (counts == 1).all():
            return keys
    return present


def blocks_of(df):
    """(key, block) pairs in order of appearance, with the key as {column: value}."""
    keys = block_keys(df)
    return [(dict(zip(keys, k if isinstance(k, tuple) else (k,))), part)
            for k, part in df.groupby(keys, sort=False)]


def block_title(key):
    parts = [key["solver"]] if "solver" in key else []
    if "seat" in key or "eval_opponent" in key:
        parts.append(ps.facet_title(key.get("seat", ""), key.get("eval_opponent", "?")))
    if key.get("game") and key.get("game") != "3x3k3":
        parts.append(key["game"])
    return " · ".join(parts)


def draw_block(ax, block, metric):
    block = block.sort_values("difference", key=lambda d: d.fillna(np.inf), kind="stable")
    block = block.assign(_base=block["verdict"] != "baseline").sort_values("_base", kind="stable")
    names = row_names(block)
    ys = np.arange(len(block))[::-1]
    for y, (_, r) in zip(ys, block.iterrows()):
        colour, marker = VERDICTS.get(r["verdict"], ("tab:blue", "o"))
        if r["verdict"] != "baseline" and np.isfinite(r["ci_low"]):
            ax.plot([r["ci_low"], r["ci_high"]], [y, y], color=colour, linewidth=2.2,
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
    for ax, (key, block) in zip(axes[:, 0], blocks):
        draw_block(ax, block, metric)
        base = block[block["verdict"] == "baseline"]
        base_name = row_names(block)[list(block.index).index(base.index[0])] if len(base) else "?"
        ax.set_title(f"{block_title(key)} · baseline: {base_name}", fontsize=10)
    fig.suptitle(f"Paired differences to the baseline: {metric}", fontsize=13,
                 fontweight="bold")
    lower = "higher" if metric == "value" else "lower"
    frame = pd.concat([b for _, b in blocks])
    test = frame["test"].iloc[0] if "test" in frame else "t"
    lines = [
        "line: the verdict's interval of the mean difference over paired replicates (same seeds): paired t, "
        "Holm-adjusted as its p-value (none for a rank or permutation test)",
        f"colour: verdict of the Holm-adjusted {test} test (green better, red worse, grey "
        "indistinguishable, orange cannot-reject: too few replicates to ever reject)",
        f"{lower} {metric} is better", "numbers from `sweep compare --csv`"]
    if "configurations" in frame and (frame["configurations"].astype(str) != "1").any():
        lines.append("each row is its group's best configuration, chosen on the same runs: "
                     "optimistic")
    text = ps.caption(lines, width=110)
    fig.text(0.5, -0.01, text, ha="center", va="top", fontsize=8.5, color="0.25")
    return fig


def main():
    args = parse_args()
    options = ["--metric", args.metric, "--baseline", args.baseline]
    for flag, value in (("--by", args.by), ("--significance", args.significance),
                        ("--alpha", args.alpha)):
        if value:
            options += [flag, value]
    directory, df = st.table(args.results, "compare", options, st.COMPARE_COLUMNS, args.sweep)
    df = pc.only_eval_opponent(df, args.eval_opponent, "comparisons")
    every = blocks_of(df)
    blocks = [(k, b) for k, b in every if len(b) > 1]
    single = len(every) - len(blocks)
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
