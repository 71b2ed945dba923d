#!/usr/bin/env python3
"""Learning curves of the learners of a results directory (every solver whose jobs wrote
checkpoints, or those given by --solver): regret against training episodes, one line per
configuration, mean over replicates with a 95% band.

Reads curves.csv (one row per checkpoint) and joins it to results.csv on job_id for the
parameters. A configuration is every parameter plus the evaluation opponent; the legend
names the parameters that vary. One panel per (seat, evaluation opponent). The band is
the 95% Student-t interval of the mean over replicates (none where a configuration has a
single replicate) and clipped to the regret's range (0 to the optimum + 1). Jobs that
failed are skipped, and the count is printed; so are, apart, the checkpoints of solvers
not drawn.

For a search (results with a `rung`), only each solver's final rung is drawn, and with
fewer than 5 replicates per line the lines are drawn without bands.

With more than 10 configurations, each solver's best ones are drawn (lowest mean regret
at its last checkpoint, over the panels), 10 lines in all shared among the solvers;
--top K keeps K per solver (0: every configuration). A note and the caption say so.

Writes curves.png into the results directory, or --out, and prints its path (with
--eval-opponent or --fix, the name gains _<opponent> and _<COL>=<VALUE>; --name sets it).
"""

import pandas as pd
import plot_common as pc
import plot_style as ps
from matplotlib.ticker import MaxNLocator  # noqa: E402

EXAMPLE = "python3 scripts/plot_curves.py results/qlearning --eval-opponent random --log-x auto"
# Against a best response, the regret is the policy's exploitability.
EXPLOITABILITY_LABEL = "exploitability (game value − worst case)"


def parse_args():
    p = pc.parser(__doc__, EXAMPLE)
    p.add_argument("--eval-opponent", metavar="NAME",
                   help="plot only the evaluations against NAME (e.g. random, minimax, best-response)")
    p.add_argument("--log-x", choices=["auto", "on", "off"], default="auto",
                   help="log-scaled episode axis; auto (the default) = on when the "
                        "checkpoints span two decades or more")
    pc.add_fix_option(p)
    p.add_argument("--colour", metavar="COL", action="append", default=[],
                   help="show this varying parameter by colour and the others by line "
                        "style (repeatable; default: chosen from the number of lines)")
    p.add_argument("--solver", metavar="KIND", action="append", default=[],
                   help="plot this learner kind's jobs (repeatable, e.g. --solver sarsa "
                        "--solver monte-carlo; default: every learner whose jobs wrote "
                        "checkpoints); with several, `solver` is a parameter like the others")
    p.add_argument("--top", type=int, metavar="K",
                   help="draw each solver's K best configurations (lowest final regret; "
                        "0: all; default: all up to 10 lines, else 10 shared among the solvers)")
    p.add_argument("--no-band", action="store_true", help="draw the means only")
    p.add_argument("--title", metavar="TEXT", help="the figure's title")
    p.add_argument("--name", metavar="NAME",
                   help="write NAME.png (default: curves, plus the options' suffixes)")
    return p.parse_args()


NAMES = {"q-learning": "Q-learning", "sarsa": "SARSA", "expected-sarsa": "Expected SARSA",
         "double-q-learning": "Double Q-learning", "monte-carlo": "Monte Carlo", "q-lambda": "Q(λ)",
         "sarsa-lambda": "SARSA(λ)"}
# Below this many replicates per line, a search's lines are drawn without bands: a
# Student-t interval of 2 or 3 runs is wider than the effect it would show.
SEARCH_MIN_BAND_N = 5


def load(args):
    """(directory, curve rows of the jobs that finished joined to their parameters,
    failed rows, whether the results are a search).

    Without --solver every learner whose jobs wrote checkpoints is drawn. For a search
    (rows with a `rung`), only each solver's final rung is kept: the earlier rungs are
    shorter runs of the same configurations. Every curve row left out is counted, by
    reason, in a note."""
    directory, csv = pc.results_dir(args.results)
    path = directory / "curves.csv"
    if not path.is_file():
        raise pc.UsageError(f"{directory} has no curves.csv: learning curves come from "
                            "the checkpoints that learners (q-learning, sarsa, ...) write there")
    curves = pc.read_csv(path, pc.CURVES_COLUMNS, "curves.csv of `sweep run`",
                         required=pc.CURVES_COLUMNS[:pc.FIRST_CURVES_WIDTH])
    table = pc.read_csv(csv, pc.RESULTS_COLUMNS, "results.csv of `sweep run`",
                        required=pc.RESULTS_COLUMNS[:pc.FIRST_RESULTS_WIDTH])
    solvers = args.solver or learners_with_curves(table, curves) or ["q-learning"]
    parts = [pc.load_results(args.results, kind) for kind in solvers]
    rows = pd.concat([part[1] for part in parts])
    failed = pd.concat([part[2] for part in parts])
    rows, search = final_rung(rows)
    # curves.csv's alpha and epsilon are the values in force at the checkpoint, not the
    # parameters of the same names; keep them apart
    curves = curves.rename(columns={"alpha": "alpha_now", "epsilon": "epsilon_now"})
    params = [c for c in ["solver"] + pc.PARAM_COLUMNS if c != "seat"]  # the curve's own seat is kept
    jobs = rows[["job_id"] + params].drop_duplicates("job_id")
    # a newer curves.csv may carry a parameter column of its own: the job's row decides
    curves = curves.drop(columns=[c for c in params if c in curves.columns])
    merged = curves.merge(jobs, on="job_id", how="inner")
    left_out = left_out_reasons(curves, merged, table, solvers, failed)
    if left_out:
        pc.note("note: left out " + "; ".join(left_out))
    if merged.empty:
        raise pc.UsageError(f"{path} has no checkpoints of the ok {', '.join(solvers)} "
                            "jobs in results.csv")
    merged = pc.numeric(merged, ["episode", "regret", "value"])
    merged = merged[merged["regret"].notna() & merged["episode"].notna()]
    # the optimum of the checkpoint's (seat, evaluation opponent) caps the band
    merged["optimal_value"] = merged["value"] + merged["regret"]
    return directory, merged, failed, search


def learners_with_curves(table, curves):
    """The solvers of results.csv (in file order) whose jobs wrote checkpoints."""
    with_curves = set(table.loc[table["job_id"].isin(set(curves["job_id"])), "solver"])
    return [s for s in pc.in_order(table["solver"]) if s in with_curves]


def final_rung(rows):
    """(rows of each solver's last rung, whether `rows` are a search)."""
    rung = pd.to_numeric(rows["rung"].replace("", None), errors="coerce")
    if rung.isna().all():
        return rows, False
    last = rung.groupby(rows["solver"]).transform("max")
    kept = rows[(rung == last).to_numpy()]
    dropped = rows["job_id"].nunique() - kept["job_id"].nunique()
    if dropped:
        pc.note(f"note: a search: drawing the final rung of each solver (rung "
                f"{', '.join(pc.show(v) for v in sorted(set(last.dropna())))}); left out "
                f"{dropped} job(s) of earlier rungs")
    return kept, True


def left_out_reasons(curves, merged, table, solvers, failed):
    """Why the curve rows that did not join were left out, each reason with its count:
    jobs that failed, jobs of solvers not drawn, the test split, earlier rungs of a
    search, and checkpoints of no job in results.csv."""
    lost = curves[~curves["job_id"].isin(set(merged["job_id"]))]
    if lost.empty:
        return []
    by_job = table.drop_duplicates("job_id").set_index("job_id")
    failed_ids = set(failed["job_id"])
    reasons = {}

    def why(jid):
        if jid in failed_ids:
            return "of jobs that failed (see results.csv's `error` column)"
        if jid not in by_job.index:
            return "of jobs absent from results.csv"
        row = by_job.loc[jid]
        if row["solver"] not in solvers:
            return f"of {row['solver']} jobs (not drawn; choose with --solver)"
        if row["split"] == "test":
            return "of the test split"
        if row["rung"] != "":
            return "of earlier rungs of the search"
        return "of jobs with no usable regret"

    for jid, count in lost.groupby("job_id").size().items():
        reason = why(jid)
        reasons[reason] = reasons.get(reason, 0) + int(count)
    return [f"{n} curve row(s) {reason}" for reason, n in reasons.items()]


def select(df, args):
    df = pc.only_eval_opponent(df, args.eval_opponent, "curves")
    df, fixed = pc.parse_fix(args.fix, df, [c for c in ["solver"] + pc.PARAM_COLUMNS if c != "seat"])
    return df, fixed


MAX_LINES = 10


def best_configs(df, top):
    """(rows of each solver's `top` best configurations, 'the K best of N' text or None).
    Best: the lowest mean regret at the configuration's last checkpoint, averaged over
    its panels. `top` None: every configuration when there are at most MAX_LINES, else
    MAX_LINES shared among the solvers (at least one each); 0: every configuration."""
    params = [c for c in ["solver"] + pc.PARAM_COLUMNS if c != "seat"]
    vary = pc.varying(df, params)
    if not vary:
        return df, None
    keys = df[vary].astype(str).agg("\x1f".join, axis=1)
    total = keys.nunique()
    solvers = pc.in_order(df["solver"])
    if top is None:
        top = 0 if total <= MAX_LINES else max(1, MAX_LINES // len(solvers))
    if top == 0:
        return df, None
    last = df["episode"] == df.groupby(keys)["episode"].transform("max")
    final = df[last].assign(_key=keys[last]).groupby(["_key", "seat", "eval_opponent"])[
        "regret"].mean().groupby("_key").mean()
    solver_of = df.assign(_key=keys).drop_duplicates("_key").set_index("_key")["solver"]
    keep = set()
    for solver in solvers:
        ranked = final[solver_of.reindex(final.index) == solver].sort_values(kind="stable")
        keep.update(ranked.index[:top])
    if len(keep) == total:
        return df, None
    text = (f"the {top} best configuration(s) of each solver (lowest final regret) of "
            f"{total} in all")
    return df[keys.isin(keep).to_numpy()], text


def use_log(episodes, mode):
    """Whether the episode axis is log-scaled: `auto` means when the positive episodes
    span two decades or more."""
    positive = episodes[episodes > 0]
    if mode == "on":
        return True
    if mode == "off" or positive.empty:
        return False
    return positive.max() / positive.min() >= 100


def colour_columns(df, names):
    """The --colour columns, each a parameter that varies in `df` (None: not given)."""
    if not names:
        return None
    vary = pc.varying(df, [c for c in ["solver"] + pc.PARAM_COLUMNS if c != "seat"])
    for name in names:
        if name not in vary:
            raise pc.UsageError(f"--colour {name}: not a parameter that varies between the "
                                f"lines; use one of {', '.join(vary) or '(none varies)'}")
    return list(dict.fromkeys(names))


def default_title(df):
    solvers = pc.in_order(df["solver"])
    who = NAMES.get(solvers[0], solvers[0]) if len(solvers) == 1 else "Learning curves"
    return f"{who}{' learning curves' if len(solvers) == 1 else ''}: regret against training episodes"


def draw(df, log_x, band, failed, fixed, colour_by=None, title=None, shown=None):
    params = [c for c in ["solver"] + pc.PARAM_COLUMNS if c != "seat"]
    vary = pc.varying(df, params)
    stats = pc.summarize(df, ["seat", "eval_opponent"] + vary + ["episode"])
    enc = ps.Encoding(pc.sorted_configs(df, vary), vary, colour_by=colour_by)
    fig, axes = ps.facet_grid(ps.facets_of(df), enc)
    ps.draw_lines(axes, stats, enc, "episode", band=band, positive_x=log_x)
    style_axes(axes, ps.log_span(df["episode"]) if log_x else None)
    fig.suptitle(title or default_title(df),
                 fontsize=13, fontweight="bold")
    if len(enc.configs) > 1:
        enc.legend(fig)
    text = caption(df, stats, band, failed, fixed, vary, width=int(11 * fig.get_figwidth()))
    if shown:
        text = f"lines: {shown}\n{text}"
    fig.text(0.5, -0.01, text, ha="center", va="top", fontsize=8.5, color="0.25")
    return fig


def style_axes(axes, span):
    """Titles, labels and scales; `span` is the decades of a log axis (None: linear)."""
    log_x = span is not None
    for (seat, opp), ax in axes.items():
        ax.set_title(ps.facet_title(seat, opp), fontsize=10)
        ax.set_xlabel("training episodes (games)" + (", log scale" if log_x else ""))
        ax.set_ylabel(EXPLOITABILITY_LABEL if opp == "best-response" else ps.REGRET_LABEL)
        ax.axhline(0, color="0.4", linewidth=0.8, zorder=0)
        ax.grid(True, which="major", alpha=0.3)
        if log_x:
            ax.set_xscale("log")
        else:  # few enough ticks that labels such as 150,000 do not run together
            ax.xaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))
        ps.thousands(ax, span)
        ax.set_ylim(bottom=-0.04 * ax.get_ylim()[1])  # room to see lines at 0


def caption(df, stats, band, failed, fixed, vary, width):
    params = [c for c in ["solver"] + pc.PARAM_COLUMNS if c not in vary and c != "seat"]
    return ps.replicate_caption(df, stats, band, failed, fixed, params, "line", width)


def file_name(args, fixed):
    """curves[_<opponent>][_<COL>=<VALUE>...], or --name."""
    if args.name:
        name = pc.slug(args.name.removesuffix(".png"))
        if not name:
            raise pc.UsageError(f"--name {args.name!r}: give a file name such as learning-curves")
        return name
    name = "curves"
    if args.eval_opponent:
        name += "_" + pc.slug(args.eval_opponent)
    for k, v in fixed.items():
        name += "_" + pc.slug(f"{k}={v}")
    return name


def main():
    args = parse_args()
    directory, df, failed, search = load(args)
    df, fixed = select(df, args)
    if args.top is not None and args.top < 0:
        raise pc.UsageError(f"--top {args.top}: give 0 (every configuration) or more")
    df, shown = best_configs(df, args.top)
    if shown:
        pc.note(f"note: drawing {shown} (--top K to choose, --top 0 for all)")
    colour_by = colour_columns(df, args.colour)
    name = file_name(args, fixed)
    failed = pc.failed_jobs(failed, fixed, eval_opponent=args.eval_opponent)
    log_x = use_log(df["episode"], args.log_x)
    if log_x and (df["episode"] <= 0).any():
        pc.note("note: checkpoints at episode 0 are not shown on the log-scaled axis")
    band = not args.no_band
    if band and search:
        vary = pc.varying(df, [c for c in ["solver"] + pc.PARAM_COLUMNS if c != "seat"])
        n = df.groupby(["seat", "eval_opponent"] + vary + ["episode"])["job_id"].nunique()
        if n.min() < SEARCH_MIN_BAND_N:
            pc.note(f"note: a search with {n.min()} replicate(s) per line: lines drawn "
                    f"without bands (bands from {SEARCH_MIN_BAND_N} replicates)")
            band = False
    fig = draw(df, log_x, band, failed, fixed, colour_by, args.title, shown)
    ps.save(fig, pc.out_dir(args, directory) / f"{name}.png")


if __name__ == "__main__":
    pc.main_wrapper(main)
