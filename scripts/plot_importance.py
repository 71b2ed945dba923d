#!/usr/bin/env python3
"""Importance: the share of a metric's variance over the grid explained by each
parameter's main effect and by each pair's interaction (functional ANOVA of `sweep
importance`), as horizontal bars, one panel per (solver, seat, evaluation opponent).
What the main effects and pairs leave is drawn as "higher-order interactions".

RESULTS is either a results directory (or its results.csv), on which the script runs
`sweep importance RESULTS --csv` with --metric and --by, or a CSV file saved from
`sweep importance ... --csv > FILE` (then --metric only names the axis). `sweep
importance` needs a full grid in every block: where the grid over every parameter is not
full (self-play beside a grid over opponents, a search whose later rungs keep a few
configurations), the script picks, with a note, the largest set of parameters that
forms a full grid in every block (ties: the larger grid, then the earlier columns); --by
chooses them yourself. The sweep
binary is --sweep, $SWEEP, sweep on PATH, or target/release/sweep (or
target/debug/sweep) of this repository, in that order.

Writes importance_<metric>.png into the results directory (or the CSV file's
directory), or --out, and prints its path.
"""

import plot_common as pc  # first: it checks the packages and selects the Agg backend
import plot_style as ps
import sweep_tables as st
import itertools

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

EXAMPLE = "python3 scripts/plot_importance.py results/qlearning --metric regret_auc"
METRICS = ["regret", "regret_auc", "solved_at", "value"]
REST = "higher-order interactions"


def parse_args():
    p = pc.parser(__doc__, EXAMPLE)
    p.add_argument("--metric", choices=METRICS, default="regret",
                   help="the metric decomposed (default: regret)")
    p.add_argument("--by", metavar="COLS",
                   help="the parameters, comma separated (default: every parameter but the seat)")
    p.add_argument("--eval-opponent", metavar="NAME", help="only the blocks evaluated against NAME")
    p.add_argument("--name", metavar="NAME", help="file name (default: importance_<metric>)")
    st.add_sweep_option(p)
    return p.parse_args()


BLOCK = ["solver", "seat", "eval_opponent", "game"]


def grid_columns(rows):
    """The parameters (the seat aside) for `sweep importance --by`: the largest set that
    forms a full grid in every (solver, seat, evaluation opponent, game) block of `rows`
    (results.csv's ok tuning rows) and varies in at least one; ties go to the larger
    grids, then to the earlier columns. [] when no parameter can."""
    params = [c for c in pc.PARAM_COLUMNS if c != "seat"]
    blocks = [part for _, part in rows.groupby([c for c in BLOCK if c in rows], sort=False)]
    vary = [c for c in params if any(part[c].nunique() > 1 for part in blocks)]

    def full(columns):
        for part in blocks:
            cols = [c for c in columns if part[c].nunique() > 1]
            if cols:
                cells = np.prod([part[c].nunique() for c in cols])
                if len(part[cols].drop_duplicates()) != cells:
                    return False
        return True

    def size(columns):  # the summed grid size over the blocks
        return sum(int(np.prod([part[c].nunique() for c in columns])) for part in blocks)

    for k in range(len(vary), 0, -1):
        fits = [list(c) for c in itertools.combinations(vary, k) if full(c)]
        if fits:
            return max(fits, key=size)  # max keeps the first (earlier columns) of a tie
    return []


def results_grid_columns(arg):
    """grid_columns of the ok tuning rows of a results directory (or its results.csv)."""
    _, csv = pc.results_dir(arg)
    df = pc.read_csv(csv, pc.RESULTS_COLUMNS, "results.csv of `sweep run`",
                     required=pc.RESULTS_COLUMNS[:pc.FIRST_RESULTS_WIDTH])
    return grid_columns(df[(df["status"] == "ok") & (df["split"] != "test")])


def terms(block):
    """(term, share) rows of a block, largest first, with the rest of the variance (the
    higher-order interactions) last when it is visible."""
    rows = block[["term", "share"]].sort_values("share", ascending=False, kind="stable")
    rows = [(t, s) for t, s in rows.itertuples(index=False)]
    rest = 1.0 - sum(s for _, s in rows)
    if rest > 5e-4:
        rows.append((REST, rest))
    return rows


def draw_block(ax, block):
    if not block["share"].notna().any():
        ax.text(0.5, 0.5, "the metric does not vary over the grid: nothing to explain",
                ha="center", va="center", transform=ax.transAxes, fontsize=9, color="0.3")
        ax.set_yticks([])
        return
    rows = terms(block)
    ys = np.arange(len(rows))[::-1]
    for y, (term, share) in zip(ys, rows):
        colour = "0.7" if term == REST else "tab:purple" if ":" in term else "tab:blue"
        ax.barh(y, share, color=colour, height=0.65)
        ax.text(share + 0.01, y, f"{share:.1%}", va="center", fontsize=8.5)
    ax.set_yticks(ys, [t.replace(":", " × ") for t, _ in rows], fontsize=9)
    ax.set_xlim(0, 1.12)
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}" if v <= 1 else ""))
    ax.grid(True, axis="x", alpha=0.3)


def draw(blocks, metric):
    sizes = [len(terms(b)) if b["share"].notna().any() else 1 for _, b in blocks]
    ratios = [0.8 + 0.3 * n for n in sizes]
    fig, axes = plt.subplots(len(blocks), 1, squeeze=False, layout="constrained",
                             figsize=(8, max(3.6, sum(ratios) + 1.4)),
                             gridspec_kw={"height_ratios": ratios})
    for ax, ((solver, seat, opp), block) in zip(axes[:, 0], blocks):
        draw_block(ax, block)
        ax.set_title(f"{solver} · {ps.facet_title(seat, opp)}", fontsize=10)
    axes[-1, 0].set_xlabel(f"share of the variance of the mean {metric} over the grid")
    fig.suptitle(f"Which parameter matters: {metric}", fontsize=13, fontweight="bold")
    text = ps.caption([
        "functional ANOVA over the full grid of configuration means (replicates averaged)",
        "blue: a parameter's main effect", "purple: a pair's interaction",
        "grey: the rest (interactions of three or more)", "numbers from `sweep importance --csv`"],
        width=95)
    fig.text(0.5, -0.01, text, ha="center", va="top", fontsize=8.5, color="0.25")
    return fig


def main():
    args = parse_args()
    options = ["--metric", args.metric] + (["--by", args.by] if args.by else [])
    try:
        directory, df = st.table(args.results, "importance", options, st.IMPORTANCE_COLUMNS,
                                 args.sweep)
    except pc.UsageError as refused:
        if args.by or "is not full" not in str(refused):
            raise
        by = results_grid_columns(args.results)
        if not by:
            raise pc.UsageError(f"{refused}; and no set of parameters forms a full grid in "
                                "every block, so there is no importance to show") from None
        pc.note(f"note: the grid over every parameter is not full; importance over "
                f"{', '.join(by)}, the largest set that is (choose with --by)")
        options = ["--metric", args.metric, "--by", ",".join(by)]
        directory, df = st.table(args.results, "importance", options,
                                 st.IMPORTANCE_COLUMNS, args.sweep)
    df = pc.only_eval_opponent(df, args.eval_opponent, "importance rows")
    fig = draw(st.blocks(df), args.metric)
    name = args.name or f"importance_{args.metric}"
    if args.eval_opponent and not args.name:
        name += "_" + args.eval_opponent
    ps.save(fig, pc.out_dir(args, directory) / f"{pc.slug(name)}.png")


if __name__ == "__main__":
    pc.main_wrapper(main)
