//! Charts as inline SVG, drawn by hand: a frame with axes, ticks, a title, axis labels and a
//! legend ([`Plot`]), and what goes in it (lines, bands, points with intervals); horizontal
//! bars with whiskers ([`bars`]); a heatmap ([`heatmap`]). Colours are Okabe and Ito's
//! eight, readable by colour-blind readers; a ninth series and on is dashed. Pure: text in,
//! text out.

use std::fmt::Write;

use super::escape;

/// Okabe and Ito's colour-blind-safe palette, in the order the plot scripts use.
pub const OKABE_ITO: [&str; 8] =
    ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"];

/// The colour of series `i`, and whether it is dashed (after the palette's eight).
pub fn series(i: usize) -> (&'static str, bool) {
    (OKABE_ITO[i % OKABE_ITO.len()], i >= OKABE_ITO.len())
}

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 300.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 46.0;

/// About `n` round tick values covering `[lo, hi]`.
pub fn ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if hi <= lo || !lo.is_finite() || !hi.is_finite() {
        return vec![lo];
    }
    let raw = (hi - lo) / n.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A tick's label: few digits, no trailing zeros, thousands as k.
pub fn tick_label(x: f64) -> String {
    if x != 0.0 && x.abs() >= 10_000.0 && (x / 1000.0).fract() == 0.0 {
        return format!("{}k", x / 1000.0);
    }
    let s = format!("{:.4}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

/// A chart's axis: its label (with units) and range.
#[derive(Clone, Debug)]
pub struct PlotAxis {
    /// The label, with its unit.
    pub label: String,
    /// The lowest value shown.
    pub lo: f64,
    /// The highest value shown.
    pub hi: f64,
}

impl PlotAxis {
    /// An axis over `[lo, hi]`, widened a little when empty.
    pub fn new(label: &str, lo: f64, hi: f64) -> PlotAxis {
        let (lo, hi) = if lo.is_finite() && hi.is_finite() { (lo, hi) } else { (0.0, 1.0) };
        let (lo, hi) = if hi > lo { (lo, hi) } else { (lo - 0.5 * lo.abs().max(1e-3), hi + 0.5 * hi.abs().max(1e-3)) };
        PlotAxis { label: label.to_string(), lo, hi }
    }
}

/// A chart in the making: a frame, its marks, and the legend.
pub struct Plot {
    title: String,
    x: PlotAxis,
    y: PlotAxis,
    marks: String,
    legend: Vec<(String, &'static str, bool)>,
    /// Labels of the y axis's categories (a forest plot), top to bottom.
    categories: Vec<String>,
    /// The width of the drawing.
    width: f64,
}

impl Plot {
    /// An empty chart.
    pub fn new(title: &str, x: PlotAxis, y: PlotAxis) -> Plot {
        Plot {
            title: title.to_string(),
            x,
            y,
            marks: String::new(),
            legend: Vec::new(),
            categories: Vec::new(),
            width: WIDTH,
        }
    }

    /// The chart drawn across the page's width (for long category labels).
    pub fn wide(mut self) -> Plot {
        self.width = 1000.0;
        self
    }

    fn left(&self) -> f64 {
        let longest = self.categories.iter().map(|c| c.chars().count()).max();
        longest.map_or(LEFT, |n| (24.0 + 6.2 * n as f64).clamp(80.0, self.width * 0.5))
    }

    /// Characters of a category label that fit left of the frame.
    fn fits(&self) -> usize {
        ((self.left() - 24.0) / 6.2) as usize
    }

    fn px(&self, x: f64) -> f64 {
        let l = self.left();
        l + (x - self.x.lo) / (self.x.hi - self.x.lo) * (self.width - l - RIGHT)
    }

    fn py(&self, y: f64) -> f64 {
        let bottom = self.frame_height() - BOTTOM;
        bottom - (y - self.y.lo) / (self.y.hi - self.y.lo) * (bottom - TOP)
    }

    /// The height of the chart without its legend: fixed, or 22 px per category.
    fn frame_height(&self) -> f64 {
        match self.categories.len() {
            0 => HEIGHT,
            n => TOP + BOTTOM + (22.0 * n as f64).max(44.0),
        }
    }

    fn path(&self, points: &[(f64, f64)]) -> String {
        let mut d = String::new();
        for (i, &(x, y)) in points.iter().filter(|(x, y)| x.is_finite() && y.is_finite()).enumerate() {
            let _ = write!(d, "{}{:.1},{:.1}", if i == 0 { "M" } else { "L" }, self.px(x), self.py(y));
        }
        d
    }

    /// A polyline through `points`; `opacity` below 1 draws it faintly (a replicate).
    pub fn line(&mut self, points: &[(f64, f64)], series: (&'static str, bool), width: f64, opacity: f64) {
        let dash = if series.1 { " stroke-dasharray=\"6 3\"" } else { "" };
        let d = self.path(points);
        let _ = write!(
            self.marks,
            "<path d=\"{d}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{width}\" stroke-opacity=\"{opacity}\"{dash}/>",
            series.0
        );
    }

    /// A step function through `points` (a cumulative fraction).
    pub fn steps(&mut self, points: &[(f64, f64)], series: (&'static str, bool)) {
        let mut stepped = Vec::with_capacity(points.len() * 2);
        for (i, &(x, y)) in points.iter().enumerate() {
            if i > 0 {
                stepped.push((x, points[i - 1].1));
            }
            stepped.push((x, y));
        }
        self.line(&stepped, series, 2.0, 1.0);
    }

    /// A shaded band between `low` and `high` at each x.
    pub fn band(&mut self, x: &[f64], low: &[f64], high: &[f64], colour: &str) {
        let mut pts: Vec<(f64, f64)> = x.iter().zip(high).map(|(&x, &y)| (x, y)).collect();
        pts.extend(x.iter().zip(low).rev().map(|(&x, &y)| (x, y)));
        let d = self.path(&pts);
        let _ = write!(self.marks, "<path d=\"{d}Z\" fill=\"{colour}\" fill-opacity=\"0.15\" stroke=\"none\"/>");
    }

    /// A dot at each of `points` in `colour` (`opacity` below 1 for many dots).
    pub fn dots(&mut self, points: &[(f64, f64)], colour: &str, opacity: f64) {
        for &(x, y) in points.iter().filter(|(x, y)| x.is_finite() && y.is_finite()) {
            let _ = write!(
                self.marks,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\" fill-opacity=\"{opacity}\"/>",
                self.px(x),
                self.py(y)
            );
        }
    }

    /// A vertical reference line at `x` (dotted).
    pub fn rule_x(&mut self, x: f64) {
        let (px, top, bottom) = (self.px(x), self.py(self.y.hi), self.py(self.y.lo));
        let _ = write!(
            self.marks,
            "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{top:.1}\" y2=\"{bottom:.1}\" stroke=\"#555\" stroke-dasharray=\"3 3\"/>"
        );
    }

    /// Rows of a forest plot, top to bottom: a label and a point with its interval, in
    /// the row's colour.
    pub fn forest(&mut self, rows: &[(String, f64, f64, f64, &'static str)]) {
        self.categories = rows.iter().map(|r| r.0.clone()).collect();
        self.y = PlotAxis { label: String::new(), lo: 0.0, hi: rows.len().max(1) as f64 };
        for (i, (_, mean, low, high, colour)) in rows.iter().enumerate() {
            let y = self.py(rows.len() as f64 - i as f64 - 0.5);
            if low.is_finite() && high.is_finite() {
                let _ = write!(
                    self.marks,
                    "<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" stroke-width=\"2\"/>",
                    self.px(*low),
                    self.px(*high)
                );
            }
            if mean.is_finite() {
                let _ = write!(
                    self.marks,
                    "<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"3.5\" fill=\"{colour}\"/>",
                    self.px(*mean)
                );
            }
        }
    }

    /// Adds a legend entry.
    pub fn legend(&mut self, name: &str, series: (&'static str, bool)) {
        self.legend.push((name.to_string(), series.0, series.1));
    }

    /// The legend laid out under the chart: (x, row) of each entry, and the rows used.
    fn legend_layout(&self) -> (Vec<(f64, usize)>, usize) {
        let (mut x, mut row, mut at) = (self.left(), 0, Vec::new());
        for (name, _, _) in &self.legend {
            let w = 34.0 + 6.2 * shorten(name, 60).chars().count() as f64;
            if x + w > self.width - RIGHT && x > self.left() {
                x = self.left();
                row += 1;
            }
            at.push((x, row));
            x += w;
        }
        (at, if self.legend.is_empty() { 0 } else { row + 1 })
    }

    /// The finished `<svg>`: frame, grid, ticks, labels, marks and legend (under the chart).
    pub fn finish(self) -> String {
        let plot_height = self.frame_height();
        let (legend_at, legend_rows) = self.legend_layout();
        let height = plot_height + 16.0 * legend_rows as f64 + if legend_rows > 0 { 6.0 } else { 0.0 };
        let (width, wide) = (self.width, if self.width > WIDTH { " wide" } else { "" });
        let edges = (self.left(), width - RIGHT, TOP, plot_height - BOTTOM);
        let mut s = String::new();
        let _ = write!(
            s,
            "<svg class=\"chart{wide}\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{}\"><title>{}</title>",
            escape(&self.title),
            escape(&self.title)
        );
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"18\" class=\"title\">{}</text>",
            width / 2.0,
            escape(&shorten(&self.title, 95))
        );
        self.grid(&mut s, edges);
        s.push_str(&self.marks);
        self.frame_and_labels(&mut s, edges, plot_height);
        self.legend_marks(&mut s, legend_at, plot_height);
        s.push_str("</svg>");
        s
    }

    /// Writes the grid lines and the ticks of the plot area (`edges`: left, right, top,
    /// bottom): numbers along both axes, or the categories' names down the left.
    fn grid(&self, s: &mut String, (l, r, t, b): (f64, f64, f64, f64)) {
        for x in ticks(self.x.lo, self.x.hi, 6) {
            let px = self.px(x);
            let _ = write!(
                s,
                "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{t}\" y2=\"{b}\" class=\"grid\"/><text x=\"{px:.1}\" y=\"{}\" \
                 class=\"tick\" text-anchor=\"middle\">{}</text>",
                b + 14.0,
                tick_label(x)
            );
        }
        if self.categories.is_empty() {
            for y in ticks(self.y.lo, self.y.hi, 5) {
                let py = self.py(y);
                let _ = write!(
                    s,
                    "<line x1=\"{l}\" x2=\"{r}\" y1=\"{py:.1}\" y2=\"{py:.1}\" class=\"grid\"/><text x=\"{}\" y=\"{:.1}\" \
                     class=\"tick\" text-anchor=\"end\">{}</text>",
                    l - 4.0,
                    py + 4.0,
                    tick_label(y)
                );
            }
        } else {
            let n = self.categories.len();
            for (i, c) in self.categories.iter().enumerate() {
                let py = self.py(n as f64 - i as f64 - 0.5);
                let _ = write!(
                    s,
                    "<text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\"><title>{}</title>{}</text>",
                    l - 6.0,
                    py + 4.0,
                    escape(c),
                    escape(&shorten(c, self.fits()))
                );
            }
        }
    }

    /// Writes the frame of the plot area (`edges`: left, right, top, bottom) and the axes'
    /// labels: the x label near the bottom of the frame's `plot_height`, the y label (if
    /// any) turned up the left.
    fn frame_and_labels(&self, s: &mut String, (l, r, t, b): (f64, f64, f64, f64), plot_height: f64) {
        let _ = write!(s, "<rect x=\"{l}\" y=\"{t}\" width=\"{}\" height=\"{}\" class=\"frame\"/>", r - l, b - t);
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" class=\"label\" text-anchor=\"middle\">{}</text>",
            (l + r) / 2.0,
            plot_height - 12.0,
            escape(&self.x.label)
        );
        if !self.y.label.is_empty() {
            let _ = write!(
                s,
                "<text transform=\"translate(14,{}) rotate(-90)\" class=\"label\" text-anchor=\"middle\">{}</text>",
                (t + b) / 2.0,
                escape(&self.y.label)
            );
        }
    }

    /// Writes the legend under the plot (`plot_height`), each entry at its place of
    /// `legend_at` (x and row).
    fn legend_marks(&self, s: &mut String, legend_at: Vec<(f64, usize)>, plot_height: f64) {
        for ((name, colour, dashed), (x, row)) in self.legend.iter().zip(legend_at) {
            let y = plot_height + 4.0 + 16.0 * row as f64;
            let dash = if *dashed { " stroke-dasharray=\"6 3\"" } else { "" };
            let _ = write!(
                s,
                "<line x1=\"{x:.1}\" x2=\"{:.1}\" y1=\"{y}\" y2=\"{y}\" stroke=\"{colour}\" stroke-width=\"3\"{dash}/><text \
                 x=\"{:.1}\" y=\"{}\" class=\"legend\">{}</text>",
                x + 22.0,
                x + 26.0,
                y + 4.0,
                escape(&shorten(name, 60))
            );
        }
    }
}

/// A label cut to `n` characters, with an ellipsis.
pub fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { s.chars().take(n - 1).chain(['…']).collect() }
}

/// Horizontal bars (value, and a whisker from low to high), one per label, top to bottom.
pub fn bars(title: &str, x_label: &str, rows: &[(String, f64, f64, f64)]) -> String {
    let hi = rows.iter().flat_map(|r| [r.1, r.3]).filter(|v| v.is_finite()).fold(0.0, f64::max);
    let mut plot = Plot::new(
        title,
        PlotAxis::new(x_label, 0.0, if hi > 0.0 { hi * 1.05 } else { 1.0 }),
        PlotAxis::new("", 0.0, 1.0),
    );
    plot.categories = rows.iter().map(|r| r.0.clone()).collect();
    plot.y = PlotAxis { label: String::new(), lo: 0.0, hi: rows.len().max(1) as f64 };
    let n = rows.len() as f64;
    for (i, (_, value, low, high)) in rows.iter().enumerate() {
        let centre = plot.py(n - i as f64 - 0.5);
        let (x0, x1) = (plot.px(0.0), plot.px(value.max(0.0)));
        let _ = write!(
            plot.marks,
            "<rect x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"12\" fill=\"{}\"/>",
            centre - 6.0,
            (x1 - x0).max(0.0),
            OKABE_ITO[0]
        );
        if low.is_finite() && high.is_finite() {
            let _ = write!(
                plot.marks,
                "<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{centre:.1}\" y2=\"{centre:.1}\" stroke=\"#000\" stroke-width=\"1.5\"/>",
                plot.px(*low),
                plot.px(*high)
            );
        }
    }
    plot.finish()
}

/// A heatmap: `values[row][col]`, darker for lower (better) values, each cell labelled.
pub fn heatmap(title: &str, x: (&str, &[String]), y: (&str, &[String]), values: &[Vec<f64>], unit: &str) -> String {
    let (cell_w, cell_h) = ((520.0 / x.1.len().max(1) as f64).min(90.0), 30.0);
    let (left, top) = (110.0, 30.0);
    let width = (left + cell_w * x.1.len() as f64 + 20.0).max(560.0);
    // Column labels wider than their cells are drawn slanted, below the grid.
    let slant = x.1.iter().any(|l| l.chars().count().min(14) as f64 * 6.5 > cell_w);
    let under = if slant { 60.0 } else { 0.0 };
    let height = top + cell_h * y.1.len() as f64 + 60.0 + under;
    let grid = HeatGrid { left, top, cell_w, cell_h };
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"chart heat\" viewBox=\"0 0 {width} {height}\" \
         style=\"max-width:{width}px\" role=\"img\" aria-label=\"{t}\"><title>{t}</title><text x=\"{}\" y=\"18\" \
         class=\"title\">{t}</text>",
        width / 2.0,
        t = escape(title)
    );
    heat_cells(&mut s, &grid, x, y, values, unit);
    let bottom = top + cell_h * y.1.len() as f64;
    heat_column_labels(&mut s, &grid, x.1, bottom, slant);
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" class=\"label\" text-anchor=\"middle\">{} (columns; rows: {}; cells: {}, \
         darker = lower)</text></svg>",
        left + cell_w * x.1.len() as f64 / 2.0,
        bottom + 36.0 + under,
        escape(x.0),
        escape(y.0),
        escape(unit)
    );
    s
}

/// Where a heatmap's cells lie: the left and top edges of its grid and a cell's width
/// and height.
struct HeatGrid {
    left: f64,
    top: f64,
    cell_w: f64,
    cell_h: f64,
}

/// Writes a heatmap's rows: each row's label, then its cells, shaded from the lowest
/// finite value (darkest) to the highest, each with its value and a tooltip naming its
/// column (`x`), row (`y`) and `unit`.
fn heat_cells(
    s: &mut String,
    grid: &HeatGrid,
    x: (&str, &[String]),
    y: (&str, &[String]),
    values: &[Vec<f64>],
    unit: &str,
) {
    let HeatGrid { left, top, cell_w, cell_h } = *grid;
    let finite = values.iter().flatten().copied().filter(|v| v.is_finite());
    let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    for (r, row) in values.iter().enumerate() {
        let py = top + cell_h * r as f64;
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            py + cell_h / 2.0 + 4.0,
            escape(&shorten(&y.1[r], 14))
        );
        for (c, &v) in row.iter().enumerate() {
            let px = left + cell_w * c as f64;
            // A spread at the rounding level is no spread: one shade for all.
            let spread = hi - lo > 1e-12 * hi.abs().max(lo.abs());
            let t = if v.is_finite() && spread { (v - lo) / (hi - lo) } else { 0.0 };
            let (fill, ink) = shade(t, v.is_finite());
            let _ = write!(
                s,
                "<rect x=\"{px:.1}\" y=\"{py:.1}\" width=\"{cell_w:.1}\" height=\"{cell_h}\" fill=\"{fill}\" \
                 stroke=\"#fff\"><title>{}={}, {}={}: {} {}</title></rect><text x=\"{:.1}\" y=\"{:.1}\" \
                 class=\"cell\" fill=\"{ink}\" text-anchor=\"middle\">{}</text>",
                escape(x.0),
                escape(&x.1[c]),
                escape(y.0),
                escape(&y.1[r]),
                if v.is_finite() { format!("{v:.4}") } else { "no runs".into() },
                escape(unit),
                px + cell_w / 2.0,
                py + cell_h / 2.0 + 4.0,
                if v.is_finite() { format!("{v:.3}") } else { "–".into() }
            );
        }
    }
}

/// Writes a heatmap's column labels under its grid (whose lower edge is `bottom`):
/// slanted when some are wider than their cells (`slant`), else level and centred.
fn heat_column_labels(s: &mut String, grid: &HeatGrid, levels: &[String], bottom: f64, slant: bool) {
    for (c, level) in levels.iter().enumerate() {
        let cx = grid.left + grid.cell_w * (c as f64 + 0.5);
        if slant {
            let _ = write!(
                s,
                "<text x=\"{cx:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\" \
                 transform=\"rotate(-40 {cx:.1} {:.1})\">{}</text>",
                bottom + 12.0,
                bottom + 12.0,
                escape(&shorten(level, 14))
            );
        } else {
            let _ = write!(
                s,
                "<text x=\"{cx:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"middle\">{}</text>",
                bottom + 14.0,
                escape(&shorten(level, 10))
            );
        }
    }
}

/// A cell's fill for `t` in [0, 1] (0 = lowest value: dark blue; 1 = highest: pale), and
/// the ink that reads on it. One hue, so it reads in any colour vision.
fn shade(t: f64, known: bool) -> (String, &'static str) {
    if !known {
        return ("#eeeeee".into(), "#555");
    }
    let (dark, pale) = ((0.0, 0.27, 0.55), (0.94, 0.97, 1.0));
    let mix = |a: f64, b: f64| ((a + (b - a) * t) * 255.0).round() as u8;
    let fill = format!("#{:02x}{:02x}{:02x}", mix(dark.0, pale.0), mix(dark.1, pale.1), mix(dark.2, pale.2));
    (fill, if t < 0.5 { "#fff" } else { "#000" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 1.0, 5), vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]);
        let t = ticks(0.0, 100_000.0, 6);
        assert_eq!((t[0], *t.last().unwrap()), (0.0, 100_000.0));
        assert_eq!(tick_label(20_000.0), "20k");
        assert_eq!(tick_label(0.25), "0.25");
    }

    #[test]
    fn charts_escape_their_text() {
        let mut p = Plot::new("a<b", PlotAxis::new("x & y", 0.0, 1.0), PlotAxis::new("y", 0.0, 1.0));
        p.line(&[(0.0, 0.0), (1.0, 1.0)], series(0), 2.0, 1.0);
        p.legend("<script>", series(9));
        let s = p.finish();
        assert!(s.contains("a&lt;b") && s.contains("x &amp; y") && s.contains("&lt;script&gt;"));
        assert!(!s.contains("<script>"));
        assert!(s.contains("stroke-dasharray"), "the ninth series is dashed");
    }
}
