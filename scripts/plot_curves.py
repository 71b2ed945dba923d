#!/usr/bin/env python3
"""Learning curves of the q-learning jobs (or of the learners given by --solver) of a results
directory: regret against training
episodes, one line per configuration, mean over replicates with a 95% band.

Reads curves.csv (one row per checkpoint) and joins it to results.csv on job_id for the
parameters. A configuration is every parameter plus the evaluation opponent; the legend
names the parameters that vary. One panel per (seat, evaluation opponent). The band is
the 95% Student-t interval of the mean over replicates (none where a configuration has a
single replicate). Jobs that failed are skipped, and the count is printed.

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
                        "--solver monte-carlo; default: q-learning); with several, `solver` "
                        "is a parameter like the others")
    p.add_argument("--no-band", action="store_true", help="draw the means only")
    p.add_argument("--title", metavar="TEXT", help="the figure's title")
    p.add_argument("--name", metavar="NAME",
                   help="write NAME.png (default: curves, plus the options' suffixes)")
    return p.parse_args()


def load(args):
    """Curve rows of the jobs that finished, joined to their parameters."""
    parts = [pc.load_results(args.results, kind) for kind in args.solver or ["q-learning"]]
    directory = parts[0][0]
    rows = pd.concat([part[1] for part in parts])
    failed = pd.concat([part[2] for part in parts])
    path = directory / "curves.csv"
    if not path.is_file():
        raise pc.UsageError(f"{directory} has no curves.csv: learning curves come from "
                            "the checkpoints that q-learning jobs write there")
    curves = pc.read_csv(path, pc.CURVES_COLUMNS, "curves.csv of `sweep run`",
                         required=pc.CURVES_COLUMNS[:pc.FIRST_CURVES_WIDTH])
    # curves.csv's alpha and epsilon are the values in force at the checkpoint, not the
    # parameters of the same names; keep them apart
    curves = curves.rename(columns={"alpha": "alpha_now", "epsilon": "epsilon_now"})
    params = [c for c in ["solver"] + pc.PARAM_COLUMNS if c != "seat"]  # the curve's own seat is kept
    jobs = rows[["job_id"] + params].drop_duplicates("job_id")
    # a newer curves.csv may carry a parameter column of its own: the job's row decides
    curves = curves.drop(columns=[c for c in params if c in curves.columns])
    merged = curves.merge(jobs, on="job_id", how="inner")
    dropped = len(curves) - len(merged)
    if dropped:
        pc.note(f"note: skipped {dropped} curve row(s) of jobs that failed or are not "
                "ok q-learning jobs in results.csv")
    if merged.empty:
        raise pc.UsageError(f"{path} has no checkpoints of the ok q-learning jobs in "
                            "results.csv")
    merged = pc.numeric(merged, ["episode", "regret", "value"])
    merged = merged[merged["regret"].notna() & merged["episode"].notna()]
    # the optimum of the checkpoint's (seat, evaluation opponent) caps the band
    merged["optimal_value"] = merged["value"] + merged["regret"]
    return directory, merged, failed


def select(df, args):
    df = pc.only_eval_opponent(df, args.eval_opponent, "curves")
    df, fixed = pc.parse_fix(args.fix, df, [c for c in ["solver"] + pc.PARAM_COLUMNS if c != "seat"])
    return df, fixed


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


def draw(df, log_x, band, failed, fixed, colour_by=None, title=None):
    params = [c for c in ["solver"] + pc.PARAM_COLUMNS if c != "seat"]
    vary = pc.varying(df, params)
    stats = pc.summarize(df, ["seat", "eval_opponent"] + vary + ["episode"])
    enc = ps.Encoding(pc.sorted_configs(df, vary), vary, colour_by=colour_by)
    fig, axes = ps.facet_grid(ps.facets_of(df), enc)
    ps.draw_lines(axes, stats, enc, "episode", band=band, positive_x=log_x)
    style_axes(axes, ps.log_span(df["episode"]) if log_x else None)
    fig.suptitle(title or "Q-learning learning curves: regret against training episodes",
                 fontsize=13, fontweight="bold")
    if len(enc.configs) > 1:
        enc.legend(fig)
    text = caption(df, stats, band, failed, fixed, vary, width=int(11 * fig.get_figwidth()))
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
    directory, df, failed = load(args)
    df, fixed = select(df, args)
    colour_by = colour_columns(df, args.colour)
    name = file_name(args, fixed)
    failed = pc.failed_jobs(failed, fixed, eval_opponent=args.eval_opponent)
    log_x = use_log(df["episode"], args.log_x)
    if log_x and (df["episode"] <= 0).any():
        pc.note("note: checkpoints at episode 0 are not shown on the log-scaled axis")
    fig = draw(df, log_x, not args.no_band, failed, fixed, colour_by, args.title)
    ps.save(fig, pc.out_dir(args, directory) / f"{name}.png")


if __name__ == "__main__":
    pc.main_wrapper(main)
