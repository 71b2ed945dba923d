#!/usr/bin/env python3
"""Heatmap of final regret over two parameters for the jobs of one solver of a results
directory, one PNG per (seat, evaluation opponent).

The solver is --solver; by default q-learning, or when its runs vary in fewer than two
parameters, the first solver of results.csv whose runs vary in two. The axes are --x and
--y; by default the two parameters that take the most values among the solver's runs
(ties: the earlier column of results.csv), the larger on the x axis; in a search (rows
with a `rung`) the episodes, which are the rung's budget, are not chosen by default, nor
is the game (each game has its own heatmaps) or a parameter with more than 20 values (a
random search's samples, not a grid).
When fewer than two parameters vary there is no grid to draw, and the script says so.

Every cell is annotated with its value. Each configuration's regret is first averaged
over its replicates; the configurations that fall into one cell (they differ in other
parameters that vary) are then combined by --aggregate (mean by default; min shows the
best setting of the other parameters). Pin other parameters with --fix COL=VALUE; the
title says which were fixed and which were aggregated. Failed jobs are skipped, and the
count is printed.

--eval-opponent NAME draws only the evaluations against NAME.

Writes heatmap_<solver>_<x>_<y>_<seat>_vs_<opponent>.png files into the results
directory, or --out, and prints their paths; where the rows span several games (boards),
one per game, named with a _<game> suffix (regrets of different boards are not pooled).
"""

import plot_common as pc  # first: it checks the packages and selects the Agg backend
import plot_style as ps
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

EXAMPLE = ("python3 scripts/plot_heatmap.py results/qlearning --x alpha --y gamma "
           "--fix epsilon_decay=0.9995")
SOLVER_NAMES = {"q-learning": "Q-learning", "mcts": "MCTS", "sarsa": "SARSA",
                "expected-sarsa": "Expected SARSA", "double-q-learning": "Double Q-learning",
                "monte-carlo": "Monte Carlo", "q-lambda": "Q(λ)", "sarsa-lambda": "SARSA(λ)",
                "policy-iteration": "Policy iteration",
                "value-iteration": "Value iteration"}
AGGREGATES = ["mean", "median", "min", "max"]
# A parameter with more values than this (sampled by a random search) is no default axis.
MAX_VALUES = 20


def parse_args():
    p = pc.parser(__doc__, EXAMPLE)
    p.add_argument("--x", metavar="COL",
                   help="parameter on the x axis (default: the parameter that takes the "
                        "most values)")
    p.add_argument("--y", metavar="COL",
                   help="parameter on the y axis (default: the one that takes the most "
                        "values after --x)")
    p.add_argument("--eval-opponent", metavar="NAME",
                   help="draw only the evaluations against NAME (e.g. random, minimax)")
    pc.add_fix_option(p)
    p.add_argument("--aggregate", choices=AGGREGATES, default="mean",
                   help="how configurations that share a cell are combined, after the "
                        "mean over replicates (default: mean)")
    p.add_argument("--solver", choices=pc.SOLVERS,
                   help="whose rows to plot (any solver kind, e.g. sarsa, monte-carlo or "
                        "mcts; default: q-learning, or the first solver whose runs vary in "
                        "two parameters)")
    return p.parse_args()


def solver_name(solver):
    """How a title names `solver` (a kind unknown here is shown as it is spelled)."""
    return SOLVER_NAMES.get(solver, solver)


def axis_candidates(df, params):
    """The parameters that vary in `df` and can be a grid's axis, most values first
    (ties: the earlier column). Left out: the game (each game has its own heatmaps), in
    a search the episodes (the rung's budget), and parameters with more than MAX_VALUES
    values (sampled by a random search: not a grid)."""
    search = "rung" in df and (df["rung"] != "").any()
    vary = [c for c in pc.varying(df, params) if c != "game"
            and not (search and c == "episodes") and df[c].nunique() <= MAX_VALUES]
    return sorted(vary, key=lambda c: -df[c].nunique())  # stable


def choose_solver(arg):
    """The default solver: q-learning when its runs vary in two parameters, else the
    first solver of results.csv whose runs do; q-learning (or the first solver) when
    none does, for default_axes to explain."""
    _, csv = pc.results_dir(arg)
    table = pc.read_csv(csv, pc.RESULTS_COLUMNS, "results.csv of `sweep run`",
                        required=pc.RESULTS_COLUMNS[:pc.FIRST_RESULTS_WIDTH])
    table = table[(table["status"] == "ok") & (table["split"] != "test")]
    solvers = pc.in_order(table["solver"], first=("q-learning",))
    params = [c for c in pc.PARAM_COLUMNS if c != "seat"]
    for solver in solvers:
        if len(axis_candidates(table[table["solver"] == solver], params)) >= 2:
            return solver
    return solvers[0] if solvers else "q-learning"


def default_axes(df, params, x=None, y=None):
    """(x, y): the given ones, the missing ones filled with the parameters that take the
    most values in `df` (ties: the earlier column), the larger on x. A UsageError when
    fewer than two parameters vary: a heatmap needs a grid."""
    vary = axis_candidates(df, params)
    free = [c for c in vary if c not in (x, y)]
    if x is None and y is None:
        if len(vary) < 2:
            said = (f"only {vary[0]} varies" if vary else "no parameter varies")
            sampled = [c for c in pc.varying(df, params) if df[c].nunique() > MAX_VALUES]
            if sampled:
                said += (f" over a grid ({', '.join(sampled)} take more than {MAX_VALUES} "
                         "values, as a random search samples them)")
            raise pc.UsageError(
                f"{said} among the {df['solver'].iloc[0]} runs: a heatmap needs two "
                "parameters that vary; plot_curves.py and plot_profile.py show such a "
                "sweep")
        return free[0], free[1]
    if x is None or y is None:
        if not free:
            given = x or y
            raise pc.UsageError(
                f"no other parameter varies besides {given}; name the other axis with "
                f"{'--y' if y is None else '--x'}")
        return (x or free[0]), (y or free[0])
    return x, y


def check_axes(args, params):
    for flag, col in (("--x", args.x), ("--y", args.y)):
        if col in pc.PARAM_COLUMNS and col not in params:
            raise pc.UsageError(f"{flag} {col}: not a parameter of {args.solver} (its rows "
                                f"leave it empty); use one of {', '.join(params)}")
        if col not in params:
            raise pc.UsageError(f"{flag} {col}: not a parameter column; use one of "
                                f"{', '.join(params)}")
    if args.x == args.y:
        raise pc.UsageError(f"--x and --y are both {args.x}; pick two different parameters")


def cell_table(df, x, y, others, how):
    """Per (x, y) cell: `how` over the configurations of the per-configuration means,
    and how many runs and configurations went in."""
    per_config = df.groupby([x, y] + others, sort=False)["regret"].agg(["mean", "count"])
    per_config = per_config.reset_index()
    cells = per_config.groupby([x, y], sort=False).agg(
        value=("mean", how), runs=("count", "sum"), configs=("mean", "size"))
    return cells.reset_index()


def draw(cells, x, y, title, subtitle):
    xs, ys = pc.sorted_values(cells[x]), pc.sorted_values(cells[y])
    grid = np.full((len(ys), len(xs)), np.nan)
    runs = np.zeros((len(ys), len(xs)), int)
    for _, c in cells.iterrows():
        grid[ys.index(c[y]), xs.index(c[x])] = c["value"]
        runs[ys.index(c[y]), xs.index(c[x])] = c["runs"]
    width = max(6.4, 2.6 + 1.05 * len(xs))
    height = max(4.6, 2.2 + 0.62 * len(ys))
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    cmap = plt.get_cmap("YlOrRd").with_extremes(bad="0.85")
    lo, hi = np.nanmin(grid), np.nanmax(grid)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.01, hi + 0.01
    image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=lo, vmax=hi,
                      origin="lower", aspect="auto")
    uneven = len(set(runs[~np.isnan(grid)])) > 1
    for i in range(len(ys)):
        for j in range(len(xs)):
            annotate(ax, i, j, grid[i, j], runs[i, j], uneven, image)
    ax.set_xticks(range(len(xs)), tick_labels(xs))
    ax.set_yticks(range(len(ys)), tick_labels(ys))
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    bar = fig.colorbar(image, ax=ax, shrink=0.9)
    bar.set_label("final regret (expected return lost per game)")
    fig.suptitle(title, fontsize=12, fontweight="bold")
    ax.set_title(subtitle, fontsize=8.5, color="0.25")
    return fig


def tick_labels(values):
    """Labels for an axis: numbers with the fewest significant digits (at least 3) that
    still tell every value apart, so that long values such as 0.99975854625 fit."""
    try:
        numbers = [float(v) for v in values]
    except ValueError:
        return [pc.show(v) for v in values]
    for digits in range(3, 18):
        labels = [f"{x:.{digits}g}" for x in numbers]
        if len(set(labels)) == len(labels):
            return labels
    return [pc.show(v) for v in values]


def annotate(ax, i, j, value, runs, uneven, image):
    if np.isnan(value):
        ax.text(j, i, "no runs", ha="center", va="center", fontsize=8, color="0.3")
        return
    r, g, b, _ = image.cmap(image.norm(value))
    dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
    text = f"{value:.3f}" + (f"\n(n={runs})" if uneven else "")
    ax.text(j, i, text, ha="center", va="center", fontsize=9,
            color="white" if dark else "black")


def describe(df, args, fixed, others, only, failed):
    """The subtitle: what each cell is, what was fixed and what was aggregated."""
    parts = []
    agg = [f"{c} ({df[c].nunique()} values)" for c in others]  # each varies: >= 2 values
    if agg:
        parts.append(f"cell: {args.aggregate} over {', '.join(agg)} of the mean over "
                     "replicates")
    else:
        parts.append("cell: mean over replicates")
    parts.append(f"{df['job_id'].nunique()} runs in all")
    if fixed:
        parts.append("fixed: " + ", ".join(f"{k}={v}" for k, v in fixed.items()))
    if only:
        parts.append("all runs here: " + ", ".join(only))
    if failed:
        parts.append(f"{failed} failed job(s) skipped")
    if df.groupby([args.x, args.y])["job_id"].nunique().nunique() > 1:
        parts.append("n = runs in the cell")
    return ps.caption(parts, width=90)


def main():
    args = parse_args()
    args.solver = args.solver or choose_solver(args.results)
    directory, df, failed = pc.load_results(args.results, args.solver)
    # seat is not an axis: each (seat, evaluation opponent) gets its own heatmap
    params = [c for c in pc.PARAM_COLUMNS if c != "seat" and (df[c] != "").any()]
    args.x, args.y = default_axes(df, params, args.x, args.y)
    check_axes(args, params)
    df = pc.only_eval_opponent(df, args.eval_opponent, f"{args.solver} rows evaluated")
    df, fixed = pc.parse_fix(args.fix, df, params)
    out = pc.out_dir(args, directory)
    name = solver_name(args.solver)
    # regrets on different boards are never pooled: one heatmap per game too
    games = sorted(df["game"].unique()) if "game" in df and df["game"].nunique() > 1 else [None]
    for (seat, opp), game in ((f, g) for f in ps.facets_of(df) for g in games):
        part = df[(df["seat"] == seat) & (df["eval_opponent"] == opp)]
        if game is not None:
            part = part[part["game"] == game]
            if part.empty:
                continue
        # the other parameters that vary among this seat's and opponent's runs
        others = [c for c in pc.varying(part, params) if c not in (args.x, args.y)]
        # parameters that vary elsewhere but take one value here (self-play's seat o)
        only = pc.constants(part, [c for c in pc.varying(df, params)
                                   if c not in others and c not in (args.x, args.y)])
        cells = cell_table(part, args.x, args.y, others, args.aggregate)
        how = args.aggregate if others else "mean"
        on = f" on {game}" if game is not None else ""
        title = (f"{name}{on}: {how} final regret over {args.x} × {args.y}\n"
                 f"{ps.facet_title(seat, opp)}")
        lost = pc.failed_jobs(failed, fixed, seat=seat, eval_opponent=opp)
        fig = draw(cells, args.x, args.y, title, describe(part, args, fixed, others, only, lost))
        file = f"heatmap_{args.solver}_{args.x}_{args.y}_{seat}_vs_{opp}"
        if game is not None:
            file += f"_{game}"
        for k, v in fixed.items():
            file += "_" + f"{k}={v}"
        ps.save(fig, out / f"{pc.slug(file)}.png")


if __name__ == "__main__":
    pc.main_wrapper(main)
