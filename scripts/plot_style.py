"""Shared drawing of the plot scripts: how configurations are told apart (colour, line
style, marker) and explained in the legend, panels per (seat, evaluation opponent), axis
formatting, captions and saving. Not a script of its own.
"""

import textwrap

import plot_common as pc  # first: it selects the Agg backend
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.cm import ScalarMappable  # noqa: E402
from matplotlib.colors import ListedColormap, LogNorm, Normalize  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

REGRET_LABEL = "regret (expected return lost per game)"
BAND_NOTE = "band: 95% Student-t interval of the mean over replicates"

# Colours of distinct configurations: the Okabe-Ito palette (yellow last, as it is the
# faintest on white), told apart by readers with the common colour-vision deficiencies.
# Beyond 8 configurations the colours repeat with another line style.
OKABE_ITO = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
             "#000000", "#F0E442"]
LINESTYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "D"]


class Encoding:
    """How configurations are told apart in a plot: a (colour, linestyle, marker) per
    configuration, and the legend rows that explain it. With up to 10 configurations each
    gets its own colour (colour-blind safe: OKABE_ITO, then again dashed) and
    legend row. With more, the varying columns are split: line
    style shows one with at most 4 values, marker another (when colour would otherwise
    need more than 10 shades), colour the rest; the legend then lists each value once."""

    def __init__(self, configs, columns, colour_by=None):
        self.configs = configs.reset_index(drop=True)
        self.columns = columns
        self.rows = []  # (handle, label, is_header)
        if colour_by is None and len(configs) <= 10:
            self._one_each("okabe-ito")
            return
        if len(configs) > 30:
            pc.note(f"note: {len(configs)} configurations in one panel; pick fewer with "
                    "--fix COL=VALUE for a readable plot")
        if colour_by is None:
            colour_by, style_by, marker_by = self._split()
        else:
            style_by, marker_by = [c for c in columns if c not in colour_by], []
        dims = [_levels(configs, cols) for cols in (colour_by, style_by, marker_by)]
        if (not colour_by or len(dims[0]) > 20 or len(dims[1]) > len(LINESTYLES)
                or len(dims[2]) > len(MARKERS)):
            self._one_each("turbo")
            return
        ordered = len(colour_by) == 1 and _is_numeric(configs, colour_by[0])
        colours = _palette(len(dims[0]), ordered)
        self.styles = []
        for _, row in self.configs.iterrows():
            h, k, m = (d.index(tuple(row[c] for c in cols))
                       for d, cols in zip(dims, (colour_by, style_by, marker_by)))
            self.styles.append((colours[h], LINESTYLES[k], MARKERS[m]))
        self._header("colour: " + ", ".join(colour_by))
        for h, values in enumerate(dims[0]):
            self._row(colours[h], "-", MARKERS[0] if not marker_by else None,
                      _pairs(colour_by, values))
        if style_by and len(dims[1]) > 1:
            self._header("line style: " + ", ".join(style_by))
            for k, values in enumerate(dims[1]):
                self._row("0.2", LINESTYLES[k], None, _pairs(style_by, values))
        if marker_by:
            self._header("marker: " + ", ".join(marker_by))
            for m, values in enumerate(dims[2]):
                self._row("0.2", "none", MARKERS[m], _pairs(marker_by, values))

    def _split(self):
        """(colour, line style, marker) columns: style and marker each take a column of
        at most 4 values (the last such), marker only when colour needs more than 10."""
        few = [c for c in self.columns if self.configs[c].nunique() <= len(LINESTYLES)]
        style = few[-1:]
        colour = [c for c in self.columns if c not in style]
        marker = []
        if len(_levels(self.configs, colour)) > 10 and len(few) >= 2:
            marker = few[-2:-1]
            colour = [c for c in colour if c not in marker]
        return colour, style, marker

    def _one_each(self, cmap):
        n = len(self.configs)
        if cmap == "okabe-ito":  # the colour-blind-safe colours, repeated dashed beyond 8
            k = len(OKABE_ITO)
            self.styles = [(OKABE_ITO[i % k], LINESTYLES[(i // k) % 4], MARKERS[0])
                           for i in range(n)]
        else:
            self.styles = [(plt.get_cmap(cmap)(0.05 + 0.9 * i / max(n - 1, 1)),
                            LINESTYLES[(i // 10) % 4], MARKERS[0]) for i in range(n)]
        for (_, row), (colour, ls, m) in zip(self.configs.iterrows(), self.styles):
            self._row(colour, ls, m, pc.config_label(row, self.columns))

    def _header(self, text):
        self.rows.append((Line2D([], [], linestyle="none"), text, True))

    def _row(self, colour, ls, marker, label):
        self.rows.append((Line2D([], [], color=colour, linestyle=ls, linewidth=1.6,
                                 marker=marker, markersize=4), label, False))

    def legend(self, fig, title=None):
        """Draws the legend outside the axes, on the right; headers in bold."""
        if not self.rows:
            return
        handles, labels, headers = zip(*self.rows)
        if title is None and not any(headers):
            title = "configuration"
        ncol = 1 if len(labels) <= 30 else 2
        leg = fig.legend(handles, labels, title=title, loc="outside right center",
                         fontsize=8, title_fontsize=9, frameon=False, ncol=ncol,
                         handlelength=2.6)
        for text, header in zip(leg.get_texts(), headers):
            if header:
                text.set_fontweight("bold")

    def height(self):
        """Inches the legend needs."""
        return 0.6 + 0.19 * (len(self.rows) if len(self.rows) <= 30 else (len(self.rows) + 1) // 2)

    def width(self):
        """Inches the legend needs (0 when there is none to draw)."""
        if len(self.rows) <= 1:
            return 0.0
        chars = max(len(label) for _, label, _ in self.rows)
        return (0.7 + 0.068 * chars) * (1 if len(self.rows) <= 30 else 2)


class ScaleEncoding(Encoding):
    """Colour from a continuous scale over one numeric column, explained by a colourbar
    (logarithmic when its values are positive and span a decade or more), and line style
    (then marker) for the combinations of the other columns, explained in the legend. For
    a column with many values, where a legend row per value would not be read."""

    def __init__(self, configs, columns, scale_by):
        self.configs = configs.reset_index(drop=True)
        self.columns = columns
        self.rows = []
        self.scale_by = scale_by
        values = self.configs[scale_by].astype(float)
        low, high = values.min(), values.max()
        logarithmic = low > 0 and high / low >= 10
        self.norm = (LogNorm if logarithmic else Normalize)(vmin=low, vmax=high)
        self.cmap = plt.get_cmap("viridis")
        others = [c for c in columns if c != scale_by]
        levels = _levels(self.configs, others)
        self.styles = []
        for _, row in self.configs.iterrows():
            k = levels.index(tuple(row[c] for c in others))
            self.styles.append((self.cmap(0.92 * self.norm(float(row[scale_by]))),
                                LINESTYLES[k % 4], MARKERS[(k // 4) % 4]))
        if others and len(levels) > 1:
            self._header("line style: " + ", ".join(others))
            for k, level in enumerate(levels):
                self._row("0.2", LINESTYLES[k % 4], MARKERS[(k // 4) % 4], _pairs(others, level))

    def colourbar(self, fig, axes):
        """The colourbar of the scale, beside `axes` (a list)."""
        mappable = ScalarMappable(norm=self.norm, cmap=ListedColormap(
            self.cmap(np.linspace(0, 0.92, 256))))
        bar = fig.colorbar(mappable, ax=axes, shrink=0.85, pad=0.02)
        bar.set_label(f"colour: {self.scale_by}")
        plain = FuncFormatter(lambda v, _: f"{v:g}")
        bar.ax.yaxis.set_major_formatter(plain)
        bar.ax.yaxis.set_minor_formatter(plain if isinstance(self.norm, LogNorm) else NullFormatter())

    def width(self):
        return super().width() + 1.2


def _pairs(columns, values):
    return "  ".join(f"{c}={pc.show(v)}" for c, v in zip(columns, values))


def _levels(df, columns):
    tuples = {tuple(r) for r in df[columns].itertuples(index=False)} if columns else {()}
    return sorted(tuples, key=lambda t: [pc.sort_key(v) for v in t])


def _is_numeric(df, column):
    return all(pc.sort_key(v)[0] == 0 for v in df[column])


def _palette(n, ordered):
    if ordered and n > 1:
        cmap = plt.get_cmap("viridis")
        return [cmap(0.9 * i / (n - 1)) for i in range(n)]
    if n <= len(OKABE_ITO):
        return OKABE_ITO[:n]
    if n <= 20:
        return [plt.get_cmap("tab20")(i) for i in range(n)]
    cmap = plt.get_cmap("turbo")
    return [cmap(0.05 + 0.9 * i / (n - 1)) for i in range(n)]


def draw_lines(axes, stats, enc, x, band=True, positive_x=False):
    """One line (mean) and band (95% interval) per configuration of `enc` in every
    facet of `axes`, from the `summarize` table `stats` with x values in column `x`."""
    alpha = 0.12 if len(enc.configs) <= 10 else 0.07 if len(enc.configs) <= 30 else 0.04
    for (_, config), (colour, ls, marker) in zip(enc.configs.iterrows(), enc.styles):
        mask = np.ones(len(stats), bool)
        for c in enc.columns:
            mask &= (stats[c] == config[c]).to_numpy()
        for (seat, opp), ax in axes.items():
            s = stats[mask & (stats["seat"] == seat).to_numpy()
                      & (stats["eval_opponent"] == opp).to_numpy()].sort_values(x)
            if positive_x:
                s = s[s[x] > 0]
            ax.plot(s[x], s["mean"], color=colour, linestyle=ls, linewidth=1.4,
                    marker=marker, markersize=3.5)
            if band and s["lo"].notna().any():
                ax.fill_between(s[x], s["lo"], s["hi"], color=colour, alpha=alpha, linewidth=0)


def thousands(ax, log_span=None):
    """Plain numbers with thousands separators on the x axis. On a log axis spanning
    `log_span` decades, ticks at 1-2-5 (short spans) or 1-3 (medium) times powers of 10."""
    if log_span is not None:
        subs = (1.0, 2.0, 5.0) if log_span < 2 else (1.0, 3.0) if log_span < 3.5 else (1.0,)
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}" if x >= 1 else f"{x:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def log_span(values):
    """Decades between the smallest and largest positive value."""
    v = np.asarray([x for x in values if x > 0], float)
    return float(np.log10(v.max() / v.min())) if len(v) else 0.0


def facet_title(seat, eval_opponent):
    return f"agent plays {seat.upper() if seat else '?'} · evaluated against {eval_opponent}"


def facets_of(df):
    """The (seat, eval_opponent) pairs in `df`: seats x then o, opponents in file order."""
    seats = pc.in_order(df["seat"], first=("x", "o"))
    opponents = pc.in_order(df["eval_opponent"])
    present = set(zip(df["seat"], df["eval_opponent"]))
    return [(s, o) for s in seats for o in opponents if (s, o) in present]


def facet_grid(facets, enc, width=5.6, height=4.0):
    """A figure with one axes per (seat, eval_opponent) in `facets` (ordered): seats in
    rows, evaluation opponents in columns, and room on the right for the legend of the
    Encoding `enc`. Returns (figure, {facet: axes})."""
    seats = pc.in_order(s for s, _ in facets)
    opponents = pc.in_order(o for _, o in facets)
    fig, axes = plt.subplots(len(seats), len(opponents), squeeze=False,
                             figsize=(width * len(opponents) + enc.width(),
                                      max(height * len(seats), enc.height() + 1.0)),
                             layout="constrained")
    grid = {}
    for i, s in enumerate(seats):
        for j, o in enumerate(opponents):
            ax = axes[i][j]
            if (s, o) in facets:
                grid[(s, o)] = ax
            else:
                ax.set_visible(False)
    return fig, grid


def caption(parts, width=120):
    """Joins caption parts with ' · ', breaking lines between parts where it can."""
    lines, line = [], ""
    for part in (p for p in parts if p):
        joined = f"{line} · {part}" if line else part
        if len(joined) <= width or not line:
            line = joined
        else:
            lines.append(line)
            line = part
    lines.append(line)
    return "\n".join(w for ln in lines for w in textwrap.wrap(ln, width))


def save(fig, path):
    """Writes `fig` as PNG and prints its path."""
    fig.savefig(path, dpi=120, bbox_inches="tight", facecolor="white")
    plt.close(fig)
    print(path)


def replicate_caption(df, stats, band, failed, fixed, params, mark, width):
    """The caption of a figure of means over replicates: how many, the band, what --fix
    fixed, the parameters shared by every run (among `params`), failures skipped."""
    n = stats["n"]
    reps = f"{n.min()}" if n.min() == n.max() else f"{n.min()} to {n.max()}"
    parts = [f"{mark}: mean over {reps} replicate(s)"]
    if band:
        parts.append(BAND_NOTE)
    if fixed:
        parts.append("fixed by --fix: " + ", ".join(f"{k}={v}" for k, v in fixed.items()))
    same = pc.constants(df, [c for c in params if c not in fixed])
    if same:
        parts.append("all runs: " + ", ".join(same))
    if failed:
        parts.append(f"{failed} failed job(s) skipped")
    parts.append("0 = optimal play")
    return caption(parts, width)
