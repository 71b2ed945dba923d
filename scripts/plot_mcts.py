#!/usr/bin/env python3
"""MCTS: final regret against search iterations per move (log scale), one line per
(uct_c, opponent_model), mean over replicates with a 95% band, one panel per (seat,
evaluation opponent).

Reads the mcts rows of results.csv. Colour shows uct_c (a colour scale with a colourbar
when it takes more than 6 values) and line style the opponent model; any other MCTS parameter that varies (final_move, game: regrets of different boards are never pooled) also gets its own lines. The band
is the 95% Student-t interval of the mean over replicates (none where a point has a
single replicate). Failed jobs are skipped, and the count is printed.

Writes mcts.png into the results directory, or --out, and prints its path (with
--eval-opponent or --fix, the name gains _<opponent> and _<COL>=<VALUE>).
"""

import plot_common as pc
import plot_style as ps

EXAMPLE = "python3 scripts/plot_mcts.py results/mcts"
LINE_PARAMS = ["uct_c", "opponent_model", "final_move", "game"]
SCALE_FROM = 6


def parse_args():
    p = pc.parser(__doc__, EXAMPLE)
    p.add_argument("--eval-opponent", metavar="NAME",
                   help="plot only the evaluations against NAME (e.g. random, minimax)")
    pc.add_fix_option(p)
    p.add_argument("--no-band", action="store_true", help="draw the means only")
    return p.parse_args()


def select(df, args):
    df = pc.only_eval_opponent(df, args.eval_opponent, "mcts rows evaluated")
    return pc.parse_fix(args.fix, df, ["iterations"] + LINE_PARAMS)


def draw(df, band, failed, fixed):
    vary = pc.varying(df, LINE_PARAMS)
    stats = pc.summarize(df, ["seat", "eval_opponent"] + vary + ["iterations"])
    enc = encoding(df, vary)
    fig, axes = ps.facet_grid(ps.facets_of(df), enc)
    ps.draw_lines(axes, stats, enc, "iterations", band=band)
    ticks = sorted(set(stats["iterations"]))
    for (seat, opp), ax in axes.items():
        ax.set_title(ps.facet_title(seat, opp), fontsize=10)
        ax.set_xscale("log")
        if len(ticks) <= 8:  # a tick at every iteration count of the grid
            ax.set_xticks(ticks)
            ps.thousands(ax)
        else:
            ps.thousands(ax, ps.log_span(ticks))
        ax.set_xlabel("search iterations per move (log scale)")
        ax.set_ylabel(ps.REGRET_LABEL)
        ax.axhline(0, color="0.4", linewidth=0.8, zorder=0)
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=-0.04 * ax.get_ylim()[1])  # room to see lines at 0
    fig.suptitle("MCTS: regret against search iterations", fontsize=13, fontweight="bold")
    if isinstance(enc, ps.ScaleEncoding):
        enc.colourbar(fig, list(axes.values()))
    if len(enc.configs) > 1:
        enc.legend(fig)
    text = caption(df, stats, band, failed, fixed, vary, width=int(11 * fig.get_figwidth()))
    fig.text(0.5, -0.01, text, ha="center", va="top", fontsize=8.5, color="0.25")
    return fig


def encoding(df, vary):
    """Colour for uct_c: a colour scale with a colourbar when it takes more than
    SCALE_FROM values (a legend row each would not be read), else a colour per value;
    line style for the other parameters that vary."""
    configs = pc.sorted_configs(df, vary)
    if "uct_c" in vary and df["uct_c"].nunique() > SCALE_FROM:
        return ps.ScaleEncoding(configs, vary, "uct_c")
    colour_by = ["uct_c"] if "uct_c" in vary and len(vary) > 1 else None
    return ps.Encoding(configs, vary, colour_by=colour_by)


def caption(df, stats, band, failed, fixed, vary, width):
    params = [c for c in LINE_PARAMS if c not in vary]
    return ps.replicate_caption(df, stats, band, failed, fixed, params, "point", width)


def main():
    args = parse_args()
    directory, df, failed = pc.load_results(args.results, "mcts")
    df, fixed = select(df, args)
    failed = pc.failed_jobs(failed, fixed, eval_opponent=args.eval_opponent)
    df = pc.numeric(df, ["iterations"])
    df = df[df["iterations"] > 0]
    if df["iterations"].nunique() == 1:
        pc.note("note: every mcts run has the same iterations; the plot has one point per line")
    fig = draw(df, not args.no_band, failed, fixed)
    name = "mcts"
    if args.eval_opponent:
        name += "_" + pc.slug(args.eval_opponent)
    for k, v in fixed.items():
        name += "_" + pc.slug(f"{k}={v}")
    ps.save(fig, pc.out_dir(args, directory) / f"{name}.png")


if __name__ == "__main__":
    pc.main_wrapper(main)
