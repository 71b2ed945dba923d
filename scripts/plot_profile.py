#!/usr/bin/env python3
"""Performance profile (in the style of rliable): for each configuration, the fraction
of its runs whose regret (or --metric) is at most τ, over τ from 0 up, one panel per
(seat, evaluation opponent). A curve that rises earlier is better; its height at τ = 0 is
the fraction of runs that play optimally. The τ axis is linear from 0 up to a fixed
threshold and logarithmic beyond (symlog), so 0 and small regrets both show: 0.001 for
regret and regret_auc, 1 episode for solved_at, the same in every figure.

The --top best configurations (default 8; ranked by their mean metric over all panels,
lower first) are drawn one by one; the rest are pooled into one grey "others" curve, so
that a large sweep stays readable. --top 0 draws every configuration.

A configuration is the solver and every parameter that varies (the seat aside), or the
columns of --by (e.g. --by label). Every solver with the metric is drawn unless --solver
picks some. With --metric solved_at (the first episode from which regret stays 0), a
learner that never got there counts as above every τ. Failed jobs are skipped, and the
count is printed.

Writes profile_<metric>.png into the results directory, or --out, and prints its path.
"""

import plot_common as pc  # first: it checks the packages and selects the Agg backend
import plot_style as ps
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

EXAMPLE = "python3 scripts/plot_profile.py results/epsilon --metric regret_auc --by label"
METRICS = ["regret", "regret_auc", "solved_at"]
ZERO = 1e-12  # regret at most this counts as 0 (as sweep's solved_at does)
# Where the τ axis turns from linear to logarithmic, fixed per metric so that figures
# compare: a regret of 0.001 is one game lost in a thousand; solved_at is in episodes.
THRESHOLDS = {"regret": 1e-3, "regret_auc": 1e-3, "solved_at": 1.0}
OTHERS_STYLE = ("0.55", ":", None)


def parse_args():
    p = pc.parser(__doc__, EXAMPLE)
    p.add_argument("--metric", choices=METRICS, default="regret",
                   help="the per-run metric (default: regret)")
    p.add_argument("--by", metavar="COLS",
                   help="columns that make a configuration, comma separated, e.g. label "
                        "(default: solver and every parameter that varies)")
    p.add_argument("--solver", action="append", choices=pc.SOLVERS, default=[],
                   help="draw only this solver's runs (repeatable; default: all)")
    p.add_argument("--eval-opponent", metavar="NAME", help="only the evaluations against NAME")
    pc.add_fix_option(p)
    p.add_argument("--top", type=int, default=8, metavar="K",
                   help="draw the K best configurations and pool the rest as \"others\" "
                        "(default: 8; 0: draw every configuration)")
    p.add_argument("--band", action="store_true",
                   help="add the 95%% Wilson interval of each fraction")
    return p.parse_args()


def load(args):
    """(directory, ok rows with the metric as floats, failed job count)."""
    directory, csv = pc.results_dir(args.results)
    head = pc.read_csv(csv, pc.RESULTS_COLUMNS, "results.csv of `sweep run`",
                       required=pc.RESULTS_COLUMNS[:pc.FIRST_RESULTS_WIDTH])
    solvers = args.solver or pc.in_order(head["solver"])
    parts, failed = [], 0
    for solver in solvers:
        _, ok, bad = pc.load_results(args.results, solver)
        parts.append(ok)
        failed += bad["job_id"].nunique()
    df = pd.concat(parts, ignore_index=True)
    if args.metric == "solved_at":  # learners only; never solved: beyond every τ
        df = df[df["regret_auc"].notna()].assign(solved_at=df["solved_at"].fillna(np.inf))
    else:
        df = df[df[args.metric].notna()]
    if df.empty:
        raise pc.UsageError(f"no run of {', '.join(solvers)} has a {args.metric} value "
                            "(regret_auc and solved_at are filled for learners only)")
    return directory, df, failed


def with_configs(df, by):
    """(df with a `configuration` column naming each row's configuration, the columns
    that make one). Without --by: the solver and the parameters that vary among its rows
    (the seat aside, since each seat has its own panels)."""
    if by:
        columns = [c.strip() for c in by.split(",") if c.strip()]
        bad = [c for c in columns if c not in df.columns]
        if bad:
            raise pc.UsageError(f"--by {by}: no column {', '.join(bad)}; use parameter "
                                "columns, solver or label")
    else:
        columns = ["solver"] + [c for c in pc.PARAM_COLUMNS if c != "seat"]
    names = pd.Series("", index=df.index)
    for solver, rows in df.groupby("solver", sort=False):
        vary = pc.varying(rows, [c for c in columns if c != "solver"])
        shown = (["solver"] if "solver" in columns else []) + vary
        names[rows.index] = rows.apply(lambda r: "  ".join(
            str(r[c]) if c in ("solver", "label") else f"{c}={pc.show(r[c])}"
            for c in shown) or "all runs", axis=1)
    return df.assign(configuration=names)


def top_and_others(df, metric, k):
    """(df with the configurations beyond the `k` best renamed `others (N
    configurations)`, the configuration names in drawing order: best first, others last).
    Best = lowest mean metric over all its runs (a run never solved counts as the largest
    finite value seen). k = 0 or k at least the number of configurations: all kept."""
    values = df[metric].replace(np.inf, np.nan)
    worst = values.max() if values.notna().any() else 0.0
    means = values.fillna(worst).groupby(df["configuration"], sort=False).mean()
    order = list(means.sort_values(kind="stable").index)
    if k <= 0 or len(order) <= k + 1:  # pooling a single configuration gains nothing
        return df, order
    rest = set(order[k:])
    others = f"others ({len(rest)} configurations)"
    renamed = df["configuration"].where(~df["configuration"].isin(rest), others)
    return df.assign(configuration=renamed), order[:k] + [others]


def fractions(values, taus):
    v = np.sort(np.asarray(values, float))
    return np.searchsorted(v, taus + ZERO, side="right") / len(v)


def wilson(p, n, z=1.959964):
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def draw(df, metric, band, failed, fixed, order):
    columns = ["configuration"]
    enc = ps.Encoding(pd.DataFrame({"configuration": order}), columns)
    pooled = order[-1].startswith("others (") if order else False
    if pooled:
        enc.styles[-1] = OTHERS_STYLE
        handle = enc.rows[-1][0]
        handle.set_color(OTHERS_STYLE[0])
        handle.set_linestyle(OTHERS_STYLE[1])
        handle.set_marker("None")
    enc.rows = [(h, label.removeprefix("configuration="), header)
                for h, label, header in enc.rows if not header]  # one column: no headers
    fig, axes = ps.facet_grid(ps.facets_of(df), enc)
    finite = df[metric][np.isfinite(df[metric])]
    threshold = THRESHOLDS[metric]
    top = max(finite.max() if len(finite) else 1.0, threshold) * 1.5
    for (seat, opp), ax in axes.items():
        part = df[(df["seat"] == seat) & (df["eval_opponent"] == opp)]
        taus = np.unique(np.concatenate([[0.0, top], part[metric][np.isfinite(part[metric])]]))
        for (_, config), (colour, ls, marker) in zip(enc.configs.iterrows(), enc.styles):
            mask = np.ones(len(part), bool)
            for c in columns:
                mask &= (part[c] == config[c]).to_numpy()
            runs = part.loc[mask, metric]
            if runs.empty:
                continue
            y = fractions(runs, taus)
            ax.step(taus, y, where="post", color=colour, linestyle=ls, linewidth=1.6)
            if band:
                lo, hi = wilson(y, len(runs))
                ax.fill_between(taus, lo, hi, step="post", color=colour, alpha=0.1, linewidth=0)
        ax.set_xscale("symlog", linthresh=threshold, linscale=0.6)
        ax.set_xlim(0, top)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(ps.facet_title(seat, opp), fontsize=10)
        ax.set_xlabel(f"τ ({metric}; linear up to {threshold:g}, log beyond)")
        ax.set_ylabel(f"fraction of runs with {metric} ≤ τ")
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"Performance profile: {metric}", fontsize=13, fontweight="bold")
    if len(enc.configs) > 1:
        enc.legend(fig, title="configuration")
    fig.text(0.5, -0.01, caption(df, metric, band, failed, fixed, pooled), ha="center",
             va="top", fontsize=8.5, color="0.25")
    return fig


def caption(df, metric, band, failed, fixed, pooled=False):
    drawn = df[~df["configuration"].str.startswith("others (")] if pooled else df
    counts = drawn.groupby(["configuration", "seat", "eval_opponent"]).size()
    runs = f"{counts.min()}" if counts.min() == counts.max() else f"{counts.min()} to {counts.max()}"
    parts = [f"{runs} run(s) per configuration and panel",
             "higher and further left is better; at τ = 0: the runs that are exactly optimal"]
    if metric == "solved_at":
        parts.append("runs never solved stay below 1")
    if pooled:
        parts.append("legend: best first (lowest mean); others: the runs of the rest, pooled")
    if band:
        parts.append("band: 95% Wilson interval of the fraction")
    if fixed:
        parts.append("fixed by --fix: " + ", ".join(f"{k}={v}" for k, v in fixed.items()))
    if failed:
        parts.append(f"{failed} failed job(s) skipped")
    return ps.caption(parts, width=110)


def main():
    args = parse_args()
    directory, df, failed = load(args)
    df = pc.only_eval_opponent(df, args.eval_opponent, "runs evaluated")
    df, fixed = pc.parse_fix(args.fix, df, pc.PARAM_COLUMNS)
    if args.top < 0:
        raise pc.UsageError(f"--top {args.top}: give 0 (every configuration) or more")
    df = with_configs(df, args.by)
    df, order = top_and_others(df, args.metric, args.top)
    fig = draw(df, args.metric, args.band, failed, fixed, order)
    name = f"profile_{args.metric}"
    if args.eval_opponent:
        name += "_" + pc.slug(args.eval_opponent)
    for k, v in fixed.items():
        name += "_" + pc.slug(f"{k}={v}")
    ps.save(fig, pc.out_dir(args, directory) / f"{name}.png")


if __name__ == "__main__":
    pc.main_wrapper(main)
