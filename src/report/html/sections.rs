//! The sections of a one-directory page, chosen by what the results hold: the
//! leaderboard always; learning curves when learners ran; importance and a heatmap when a
//! block's grid is full; performance profiles; paired differences; a search's rungs;
//! failures. Pure: [`Data`] in, sections out.

use std::collections::{BTreeMap, BTreeSet};

use super::data::{Data, FAILURE_COLUMNS, PANEL, at, panel};
use super::svg::{Plot, PlotAxis, bars, heatmap};
use super::{Cell, Facts, Part, Section, Stands, page_table};
use crate::job::Split;
use crate::report::Field;
use crate::report::compare::{Comparison, Verdicts, best, compare_block, represent};
use crate::report::paired_runs::{Block, Config, Metric, default_config_columns, grid_over};
use crate::report::summary::Group;
use crate::seed::fnv1a;
use crate::stats::robust::{RESAMPLES, Stat, bootstrap_interval};

/// Charts of one kind on a page.
const CHARTS: usize = 6;

/// The note under a section that drew [`CHARTS`] of its panels and left `n` out, naming
/// the command that prints them all (none when nothing was left out).
fn left_out_note(n: usize, what: &str, command: &str) -> Option<Part> {
    (n > 0).then(|| {
        Part::Note(format!(
            "{n} more panels of {what} are not drawn (at most {CHARTS} per section); `{command}` prints them all."
        ))
    })
}
/// Configurations drawn in a forest of paired differences.
const FOREST: usize = 15;

/// A colour of [`super::svg::series`]: the colour and whether its line is dashed.
type Colour = (&'static str, bool);

/// A line of a performance profile: its label, its runs' regrets sorted, its colour.
type ProfileLine = (String, Vec<f64>, Colour);

/// A row of a forest chart: label, difference, the verdict's interval, colour.
type ForestRow = (String, f64, f64, f64, &'static str);

/// The facts at the top: spec, hash, seeds, tool, boards, what is exact.
pub fn facts(d: &Data) -> Facts {
    let mut f: Facts = Vec::new();
    if let Some(m) = &d.manifest {
        let spec = |k: &str| m.spec.get(k).map(|v| v.to_string().trim_matches('"').to_string()).unwrap_or_default();
        f.push(("spec".into(), format!("{} ({})", spec("name"), m.spec_file)));
        f.push(("spec hash".into(), m.spec_hash.clone()));
        f.push((
            "seeds".into(),
            format!("master seed {}, {} replicates per configuration", m.master_seed, spec("replicates")),
        ));
        f.push((
            "tool".into(),
            format!(
                "{} {} ({} {}, rand_pcg {})",
                m.tool, m.tool_version, m.generator, m.rand_version, m.rand_pcg_version
            ),
        ));
        f.push((
            "run".into(),
            format!(
                "{} of {} jobs done, {} failed; started {}{}{}",
                m.jobs_done,
                m.jobs_total,
                m.jobs_failed,
                m.started,
                m.ended.as_ref().map(|e| format!(", ended {e}")).unwrap_or_default(),
                if m.complete { "" } else { " (not complete)" }
            ),
        ));
    } else {
        f.push(("spec".into(), "no manifest.json: the results file alone, unverified (read with --unverified)".into()));
    }
    f.push(("board".into(), d.boards.iter().cloned().collect::<Vec<_>>().join(", ")));
    let (exact, sampled, bound, unknown) = d.evaluation;
    f.push((
        "evaluation".into(),
        if sampled + bound + unknown == 0 {
            format!("exact: every regret of the {exact} successful rows is computed, not estimated")
        } else {
            let mut parts = vec![format!("{exact} rows exact")];
            if sampled > 0 {
                parts.push(format!(
                    "{sampled} rows by sampled games (their regret is an estimate; value_se in the CSV)"
                ));
            }
            if bound > 0 {
                parts.push(format!(
                    "{bound} rows a bound (a best response's search ran out of nodes: the regret is at least the \
                     figure)"
                ));
            }
            if unknown > 0 {
                parts.push(format!(
                    "{unknown} rows without an exact optimum (against random on a board too big to enumerate, in a \
                     seat that cannot force a win: no regret)"
                ));
            }
            parts.join(", ")
        },
    ));
    f.push((
        "rows".into(),
        match d.split {
            Split::Test => {
                "test rows: the configurations the [test] table chose, re-run on fresh seeds, each with its \
                            tuning mean and the gap; importance and heatmaps come from the tuning rows (the full grid)"
                    .into()
            }
            Split::Tune => "the grid's (or search's) rows; the file has no test rows".into(),
        },
    ));
    f.push(("directory".into(), d.dir.clone()));
    f
}

/// The sections of the page, in reading order.
pub fn sections(d: &Data) -> Vec<Section> {
    let mut out: Vec<Section> = answer(d).into_iter().collect();
    out.push(leaderboard(d));
    out.extend(curves(d));
    out.extend(importance(d));
    out.extend(profiles(d));
    out.extend(paired(d));
    out.extend(search(d));
    out.extend(trials(d));
    out.extend(failures(d));
    out
}

/// Panels in the order the results first have them (the spec's order of seats and
/// opponents).
fn ordered<T>(d: &Data, panels: BTreeMap<Vec<String>, T>) -> Vec<(Vec<String>, T)> {
    let mut v: Vec<(Vec<String>, T)> = panels.into_iter().collect();
    v.sort_by_key(|(p, _)| d.panels.iter().position(|q| q == p).unwrap_or(usize::MAX));
    v
}

/// A configuration's name: its solver and the shown columns that vary.
fn name(d: &Data, key: &[String]) -> String {
    let mut parts = vec![at(&d.by, Field::Solver.name()).map(|k| key[k].clone()).unwrap_or_default()];
    for &k in &d.show {
        let col = d.by[k];
        if col != Field::Solver.name() && !PANEL.contains(&col) && !key[k].is_empty() {
            parts.push(crate::report::setting(col, &key[k]));
        }
    }
    parts.join(" ")
}

fn panel_title(p: &[String]) -> String {
    match p {
        [seat, opponent, game] => format!("{seat} against {opponent} on {game}"),
        other => other.join(" / "),
    }
}

/// The leaderboard: one table per (seat, evaluation opponent, game), best first, with
/// `summary`'s numbers.
fn leaderboard(d: &Data) -> Section {
    let test = d.split == Split::Test;
    // MCTS does not train: its cost is a search per move.
    let moves = d.groups.iter().any(|g| !g.ms_per_move.is_nan());
    let header = leaderboard_header(d, test, moves);
    let mut panels: BTreeMap<Vec<String>, Vec<&Group>> = BTreeMap::new();
    for g in &d.groups {
        panels.entry(panel(&d.by, &g.key)).or_default().push(g);
    }
    let mut parts = Vec::new();
    for (p, mut groups) in ordered(d, panels) {
        groups.sort_by(|a, b| a.mean_regret.total_cmp(&b.mean_regret));
        let shown = super::data::shown(d.groups.len(), groups.len());
        let mut rows: Vec<(Stands, Vec<Cell>)> =
            groups[..shown].iter().map(|g| (Stands::Config(g.key.join("|")), row(d, g, test, moves))).collect();
        if shown < groups.len() {
            let rest = &groups[shown..];
            let mut cells = vec![Cell::text(format!(
                "others: {} more configurations, mean regret {:.6} to {:.6} (all in the CSV below)",
                rest.len(),
                rest[0].mean_regret,
                rest[rest.len() - 1].mean_regret
            ))];
            cells.resize(header.len(), Cell::Missing);
            rows.push((Stands::Others, cells));
        }
        parts.push(Part::Heading(format!("{} ({} configurations)", panel_title(&p), groups.len())));
        parts.push(Part::Table(page_table(header.clone(), rows)));
    }
    for n in &d.notes {
        parts.push(Part::Note(n.clone()));
    }
    if test {
        parts.push(Part::Note("gap = mean_regret (test seeds) - tune_mean_regret (the seeds that chose it): the optimism of choosing on the same seeds plus the seeds' own spread.".into()));
    }
    let vs_best = vs_best_how(test);
    Section {
        id: "leaderboard",
        title: "Leaderboard".into(),
        how: format!(
            "Lower regret is better (0 = optimal). One table per seat, opponent and board, best first; ci95 is the \
             Student-t 95% interval of the mean over replicates, boot_low..boot_high the bootstrap 95% interval of the \
             IQM. {vs_best} train_ms is a learner's training time per job; MCTS does not train, and ms_per_move is its \
             cost: a job's evaluation time over the positions it searched. Click a column to sort. The same numbers as \
             `sweep summary`."
        ),
        parts,
    }
}

/// The leaderboard's columns: the grouping columns shown, `summary`'s numbers (on test
/// rows (`test`) with the paired-t interval and the tuning mean and gap, else with MCB's
/// interval), and `ms_per_move` where some group searches per move (`moves`).
fn leaderboard_header(d: &Data, test: bool, moves: bool) -> Vec<String> {
    let mut header: Vec<String> = table_columns(d).iter().map(|&k| d.by[k].to_string()).collect();
    header.extend(
        [
            "n",
            "failed",
            "mean_regret",
            "ci95_low",
            "ci95_high",
            "vs_best",
            if test { "diff_low" } else { "mcb_low" },
            if test { "diff_high" } else { "mcb_high" },
            "iqm_regret",
            "boot_low",
            "boot_high",
            "sd_regret",
        ]
        .map(String::from),
    );
    if test {
        header.extend(["tune_n", "tune_mean_regret", "gap"].map(String::from));
    }
    header.extend(["p_win", "p_draw", "p_loss", "train_ms"].map(String::from));
    if moves {
        header.push("ms_per_move".into());
    }
    header.push("sampled".into());
    header
}

/// What `vs_best` means on the leaderboard: the solvers compared on test rows (`test`),
/// else MCB within each solver's block.
fn vs_best_how(test: bool) -> &'static str {
    if test {
        "vs_best answers \"which solver?\" as `sweep compare --by solver` does: each solver's chosen configuration \
         against the best of them on the same fresh seeds, by the paired t test, Holm-adjusted over the table's \
         comparisons at 0.05: best, equal (identical to the best on every replicate; where every solver is, all read equal), indistinguishable, worse; diff_low..diff_high \
         is that verdict's interval of its mean regret minus the best's (the paired t interval at level 1 - 0.05 x p_t \
         / p_holm, widened as Holm's adjustment raised the p-value: it excludes 0 exactly when the verdict is worse)."
    } else {
        "vs_best answers \"which configurations could be the best of their solver's block?\" with Hsu's multiple \
         comparisons with the best (MCB, 95%): best = lowest mean, could-be-best = in the set that holds the true best \
         with 95% confidence, not-best = excluded from it, equal = identical to the best on every replicate; \
         mcb_low..mcb_high is the simultaneous interval of its true mean minus the best of the others' (it contains 0 \
         exactly when the configuration could be the best). MCB is the default because it treats the best as unknown \
         instead of testing everything against the best of the same runs, and uses every configuration's runs for one \
         pooled variance (assumed common: the paired design's residuals). The lines under each table say how many \
         replicates would likely shrink the set."
    }
}

/// With test rows: one sentence per block on which solver is best and how each other one
/// compares, before everything else.
fn answer(d: &Data) -> Option<Section> {
    (!d.answer.is_empty()).then(|| Section {
        id: "answer",
        title: "Which solver?".into(),
        how: "Each solver's configuration chosen on the tuning seeds, compared on fresh seeds with the best of them \
              (paired by replicate), as `sweep compare --by solver` does; the leaderboard below has the numbers."
            .into(),
        parts: d.answer.iter().map(|a| Part::Note(a.clone())).collect(),
    })
}

/// The grouping columns a leaderboard table shows: `summary`'s, but for those its panel's
/// heading names (seat, evaluation opponent, game).
fn table_columns(d: &Data) -> Vec<usize> {
    d.show.iter().copied().filter(|&k| !PANEL.contains(&d.by[k])).collect()
}

fn row(d: &Data, g: &Group, test: bool, moves: bool) -> Vec<Cell> {
    let mut r: Vec<Cell> = table_columns(d).iter().map(|&k| Cell::text(g.key[k].clone())).collect();
    let low = if g.ci95.is_nan() { f64::NAN } else { (g.mean_regret - g.ci95).max(0.0) };
    r.extend([
        Cell::int(g.n),
        Cell::int(g.failed),
        Cell::Float(g.mean_regret),
        Cell::Float(low),
        Cell::Float(g.mean_regret + g.ci95),
    ]);
    let mark = d.marks.get(&g.key);
    r.push(Cell::text(mark.map_or("", |m| m.verdict)));
    r.extend([mark.map_or(f64::NAN, |m| m.low), mark.map_or(f64::NAN, |m| m.high)].map(Cell::Float));
    let strata: Vec<Vec<f64>> = d.strata.get(&g.key).map(|m| m.values().cloned().collect()).unwrap_or_default();
    let (iqm, lo, hi) = if strata.is_empty() {
        (f64::NAN, f64::NAN, f64::NAN)
    } else {
        let seed = fnv1a(crate::schema::seed_text(&d.by, &g.key).as_bytes());
        let (lo, hi) = bootstrap_interval(Stat::Iqm, &strata, RESAMPLES, seed, true);
        (Stat::Iqm.of(&strata.concat()), lo, hi)
    };
    r.extend([Cell::Float(iqm), Cell::Float(lo), Cell::Float(hi), Cell::Float(g.sd_regret)]);
    if test {
        let t = d.tuned.get(&g.key);
        r.push(t.map_or(Cell::Missing, |t| Cell::int(t.n)));
        r.push(t.map_or(Cell::Missing, |t| Cell::Float(t.mean_regret)));
        r.push(t.map_or(Cell::Missing, |t| Cell::Float(g.mean_regret - t.mean_regret)));
    }
    r.extend([Cell::Float(g.p[0]), Cell::Float(g.p[1]), Cell::Float(g.p[2])]);
    r.push(if g.train_ms.is_nan() { Cell::Missing } else { Cell::number_as(format!("{:.1}", g.train_ms), g.train_ms) });
    if moves {
        r.push(if g.ms_per_move.is_nan() {
            Cell::Missing
        } else {
            Cell::number_as(format!("{:.6}", g.ms_per_move), g.ms_per_move)
        });
    }
    r.push(Cell::int(g.sampled));
    r
}

/// Learning curves of each panel's best learners: replicates faint, their mean bold.
fn curves(d: &Data) -> Option<Section> {
    if d.curves.is_empty() {
        return None;
    }
    let mut panels: BTreeMap<Vec<String>, Vec<(&Group, &super::data::Curves)>> = BTreeMap::new();
    for g in &d.groups {
        if let Some(c) = d.curves.get(&g.key) {
            panels.entry(panel(&d.by, &g.key)).or_default().push((g, c));
        }
    }
    let mut parts = Vec::new();
    for (p, configs) in ordered(d, panels) {
        let points = configs.iter().flat_map(|(_, c)| c.iter().flatten());
        let (xmax, ymax) = points.fold((1.0f64, 0.0f64), |(x, y), &(e, r)| (x.max(e), y.max(r)));
        let mut plot = Plot::new(
            &format!("Regret while learning: {}", panel_title(&p)),
            PlotAxis::new("training episodes", 0.0, xmax),
            PlotAxis::new("exact regret (value units, 0 = optimal)", 0.0, ymax.max(1e-3) * 1.05),
        );
        for (g, c) in &configs {
            let colour = d.colour_of_group(&g.key);
            for run in c.iter() {
                plot.line(run, colour, 1.0, 0.25);
            }
            let longest = c.iter().map(Vec::len).max().unwrap_or(0);
            let mean: Vec<(f64, f64)> = (0..longest)
                .filter_map(|j| {
                    let at: Vec<(f64, f64)> = c.iter().filter_map(|run| run.get(j).copied()).collect();
                    (!at.is_empty()).then(|| (at[0].0, at.iter().map(|p| p.1).sum::<f64>() / at.len() as f64))
                })
                .collect();
            plot.line(&mean, colour, 2.5, 1.0);
            plot.legend(&format!("{} ({:.4})", name(d, &g.key), g.mean_regret), colour);
        }
        parts.push(Part::Chart(plot.finish()));
    }
    Some(Section {
        id: "curves",
        title: "Learning curves".into(),
        how: "Exact regret of the greedy policy at each checkpoint, for the best learners of each seat and opponent \
              (legend: final mean regret); each replicate is a faint line, their mean the bold one."
            .into(),
        parts,
    })
}

/// A term's name: its columns joined by `:`.
fn term_name(columns: &[&str], factors: &[usize], term: &[usize]) -> String {
    term.iter().map(|&f| columns[factors[f]]).collect::<Vec<_>>().join(":")
}

/// Importance bars (share of variance; whiskers: range over replicates) and the heatmap
/// of the two most important parameters, per block with a full grid.
fn importance(d: &Data) -> Option<Section> {
    let columns = default_config_columns();
    let mut parts = Vec::new();
    let grids: Vec<_> = d.tune_blocks.iter().map(|b| (b, b.factors(&columns))).filter(|(_, v)| v.len() > 1).collect();
    let left_out = grids.len().saturating_sub(CHARTS);
    for (block, varying) in grids.into_iter().take(CHARTS) {
        let value = |r: Option<u32>| {
            move |c: &Config| r.map_or_else(|| c.mean(), |r| c.runs().get(&r).copied().unwrap_or(f64::NAN))
        };
        let Ok((factors, grid)) = grid_over(block, varying.clone(), &columns, value(None)) else { continue };
        let mut terms = grid.importance();
        terms.retain(|t| !t.share.is_nan());
        terms.sort_by(|a, b| b.share.total_cmp(&a.share));
        let replicates: BTreeSet<u32> = block.configs.iter().flat_map(|c| c.runs().into_keys()).collect();
        let per_replicate: Vec<Vec<(String, f64)>> = replicates
            .iter()
            .filter_map(|&r| grid_over(block, varying.clone(), &columns, value(Some(r))).ok())
            .map(|(f, g)| g.importance().into_iter().map(|t| (term_name(&columns, &f, &t.factors), t.share)).collect())
            .collect();
        let rows: Vec<(String, f64, f64, f64)> = terms
            .iter()
            .take(8)
            .map(|t| {
                let n = term_name(&columns, &factors, &t.factors);
                let spread: Vec<f64> = per_replicate
                    .iter()
                    .flat_map(|v| v.iter().filter(|x| x.0 == n).map(|x| x.1))
                    .filter(|x| x.is_finite())
                    .collect();
                let (lo, hi) = spread.iter().fold((f64::NAN, f64::NAN), |(a, b), &x| (a.min(x), b.max(x)));
                (n, t.share, lo, hi)
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let title = block.key.join(" / ");
        parts.push(Part::Chart(bars(
            &format!("Importance: {title}"),
            "share of the variance of mean regret over the grid (0..1)",
            &rows,
        )));
        let mains: Vec<usize> =
            terms.iter().filter(|t| t.factors.len() == 1).map(|t| factors[t.factors[0]]).take(2).collect();
        if let [a, b] = mains[..] {
            parts.push(Part::Chart(heat(block, &columns, b, a, &title)));
        }
    }
    if parts.is_empty() {
        return None;
    }
    parts.extend(left_out_note(left_out, "parameter importance", "sweep importance"));
    Some(Section {
        id: "importance",
        title: "What matters".into(),
        how: "Bars: each parameter's (and pair's, a:b) share of the variance of the mean regret over the grid, as `sweep \
              importance` computes it; whiskers: the share's range when computed on each replicate alone. Heatmap: mean \
              regret over the two parameters that matter most, averaged over the others; darker is better."
            .into(),
        parts,
    })
}

/// Levels of configuration column `k` in `block`, numeric ones in numeric order.
fn levels(block: &Block, k: usize) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut v: Vec<String> = Vec::new();
    for c in &block.configs {
        if seen.insert(&c.key[k]) {
            v.push(c.key[k].clone());
        }
    }
    if v.iter().all(|x| x.parse::<f64>().is_ok()) {
        v.sort_by(|a, b| a.parse::<f64>().unwrap_or(0.0).total_cmp(&b.parse::<f64>().unwrap_or(0.0)));
    }
    v
}

/// Heatmap rows or columns at most: more levels are put in consecutive bins.
const HEAT_LEVELS: usize = 12;

/// The levels of column `k` in bins of consecutive levels (one bin per level when few):
/// each bin's label, and each level's bin.
fn bins(block: &Block, k: usize) -> (Vec<String>, std::collections::HashMap<String, usize>) {
    let levels = levels(block, k);
    let per = levels.len().div_ceil(HEAT_LEVELS).max(1);
    let labels = levels
        .chunks(per)
        .map(|c| if c.len() == 1 { short(&c[0]) } else { format!("{}–{}", short(&c[0]), short(&c[c.len() - 1])) })
        .collect();
    (labels, levels.into_iter().enumerate().map(|(i, l)| (l, i / per)).collect())
}

/// A level as a heatmap label: a long number cut to 4 significant digits, or to 2 of its
/// distance from 1 when that is closer (0.99998551 stays 0.999986, not 1); the tables keep
/// it in full. Anything else as written.
fn short(level: &str) -> String {
    match level.parse::<f64>() {
        Ok(x) if level.len() > 6 && x.is_finite() && x != 0.0 => {
            let mut decimals = 3 - x.abs().log10().floor() as i32;
            if x < 1.0 && x > 0.5 {
                decimals = decimals.max(1 - (1.0 - x).log10().floor() as i32);
            }
            let decimals = decimals.clamp(0, 12) as usize;
            let text = format!("{x:.decimals$}");
            if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_string() } else { text }
        }
        _ => level.to_string(),
    }
}

fn heat(block: &Block, columns: &[&str], x: usize, y: usize, title: &str) -> String {
    let ((xs, xbin), (ys, ybin)) = (bins(block, x), bins(block, y));
    let mut sums = vec![vec![(0.0, 0usize); xs.len()]; ys.len()];
    for c in &block.configs {
        let m = c.mean();
        if m.is_finite() {
            let cell = &mut sums[ybin[&c.key[y]]][xbin[&c.key[x]]];
            *cell = (cell.0 + m, cell.1 + 1);
        }
    }
    let values: Vec<Vec<f64>> =
        sums.iter().map(|r| r.iter().map(|&(s, n)| if n == 0 { f64::NAN } else { s / n as f64 }).collect()).collect();
    heatmap(
        &format!("Mean regret by {} and {}: {title}", columns[x], columns[y]),
        (columns[x], &xs),
        (columns[y], &ys),
        &values,
        "mean regret",
    )
}

/// Performance profiles: per panel, the fraction of each solver's best configuration's
/// runs with regret at most tau, on one tau axis for the whole page.
fn profiles(d: &Data) -> Option<Section> {
    let mut panels: BTreeMap<Vec<String>, Vec<ProfileLine>> = BTreeMap::new();
    for block in &d.blocks {
        let Some(b) = best(block, Metric::Regret) else { continue };
        let c = &block.configs[b];
        let mut runs = c.values();
        runs.sort_by(f64::total_cmp);
        let p: Vec<String> = block.key[1..].to_vec();
        let varying = block.factors(&default_config_columns());
        let what: Vec<String> =
            varying.iter().map(|&k| crate::report::setting(default_config_columns()[k], &c.key[k])).collect();
        let label = if c.label == block.key[0] { String::new() } else { format!("{} ", c.label) };
        panels.entry(p).or_default().push((
            format!(
                "{} ({label}{})",
                block.key[0],
                if what.is_empty() { "its one configuration".into() } else { what.join(" ") }
            )
            .replace(" ()", ""),
            runs,
            d.colour_of_config(&block.key[0], &c.key),
        ));
    }
    let tau_max =
        panels.values().flatten().flat_map(|(_, r, _)| r.last().copied()).fold(0.0f64, f64::max).max(1e-3) * 1.05;
    let mut parts = Vec::new();
    let panels = ordered(d, panels);
    let left_out = panels.len().saturating_sub(CHARTS);
    for (p, lines) in panels.into_iter().take(CHARTS) {
        let mut plot = Plot::new(
            &format!("Performance profile: {}", panel_title(&p)),
            PlotAxis::new("regret threshold tau (value units)", 0.0, tau_max),
            PlotAxis::new("fraction of runs with regret <= tau", 0.0, 1.0),
        );
        for (label, runs, colour) in lines.iter().take(8) {
            let n = runs.len() as f64;
            let mut pts = vec![(0.0, runs.iter().filter(|&&r| r <= 0.0).count() as f64 / n)];
            for (j, &r) in runs.iter().enumerate() {
                pts.push((r, (j + 1) as f64 / n));
            }
            pts.push((tau_max, 1.0));
            plot.steps(&pts, *colour);
            plot.legend(label, *colour);
        }
        parts.push(Part::Chart(plot.finish()));
    }
    parts.extend(left_out_note(left_out, "performance profiles", "sweep summary"));
    (!parts.is_empty()).then(|| Section {
        id: "profiles",
        title: "Performance profiles".into(),
        how: "For each solver's best configuration: the fraction of its runs whose regret is at most tau. Higher and \
              further left is better; a curve at 1 from tau = 0 solved every run. Every chart shares the same tau axis."
            .into(),
        parts,
    })
}

/// Paired differences with each block's best, and between the solvers' best.
fn paired(d: &Data) -> Option<Section> {
    let columns = default_config_columns();
    let mut parts = Vec::new();
    // One chart per (seat, opponent, board) block: each solver's best against the best
    // solver, then each solver's other configurations against its best.
    for panel in d.solver_blocks.iter().take(CHARTS) {
        let mut rows = solvers_against_best(d, panel);
        let mut more = 0;
        let within: Vec<_> = d
            .blocks
            .iter()
            .zip(&d.compared)
            .filter(|(b, _)| b.configs.len() > 1 && b.key[1..] == panel.key[..])
            .collect();
        let solvers = within.len();
        for (block, compared) in within {
            let Some((base, cs)) = compared else { continue };
            let varying = block.factors(&columns);
            let name = |c: &Config| {
                let words: Vec<String> =
                    varying.iter().map(|&k| crate::report::setting(columns[k], &c.key[k])).collect();
                let label =
                    if solvers > 1 { format!("{}: {}", block.key[0], words.join(" ")) } else { words.join(" ") };
                (label, d.colour_of_config(&block.key[0], &c.key))
            };
            let mut these = forest_rows(block, *base, cs, &name);
            more += these.len().saturating_sub(FOREST);
            these.truncate(FOREST);
            rows.extend(these);
        }
        parts.extend(forest_chart(format!("Paired differences: {}", panel_title(&panel.key)), rows, more));
    }
    let left_out = d.solver_blocks.len().saturating_sub(CHARTS);
    parts.extend(left_out_note(left_out, "paired differences", "sweep compare"));
    (!parts.is_empty()).then(|| Section {
        id: "paired",
        title: "Paired differences".into(),
        how: "One chart per seat, opponent and board: first each solver's best configuration against the best \
              solver (\"sarsa vs q-learning\"), then each solver's other configurations against its own best \
              (named by their settings). Each dot is a mean regret minus \
              the best's over the same replicates (common random numbers); right of the dotted line is worse. In brackets: the verdict of `sweep compare` (paired t, \
              Holm, 0.05), and its bar is that verdict's interval: the paired t interval at level 1 - 0.05 x p_t / \
              p_holm, widened as Holm's adjustment raised the p-value, so a bar clear of zero always reads better or \
              worse and one across zero indistinguishable; equal means identical on every replicate. Solvers are each represented by their best configuration, chosen on \
              these runs (optimistic for solvers with many configurations)."
            .into(),
        parts,
    })
}

/// The forest rows of a solver block (seat, opponent, board) that compare each solver's
/// best configuration with the best solver's ("sarsa vs q-learning"); none with fewer
/// than two solvers.
fn solvers_against_best(d: &Data, panel: &Block) -> Vec<ForestRow> {
    let mut rows = Vec::new();
    if let Ok(reps) = represent(panel, &[0], Metric::Regret, &[])
        && reps.len() > 1
    {
        let sub =
            Block { key: panel.key.clone(), configs: reps.iter().map(|r| panel.configs[r.config].clone()).collect() };
        if let Some(base) = best(&sub, Metric::Regret) {
            let best_name = sub.configs[base].label.clone();
            let name = |c: &Config| {
                let solver = if c.label == c.key[0] { c.key[0].clone() } else { format!("{} ({})", c.key[0], c.label) };
                (format!("{solver} vs {best_name}"), d.colour_of_config(&c.key[0], &c.key[1..]))
            };
            let cs = compare_block(&sub, base, Metric::Regret, Verdicts::default());
            rows.extend(forest_rows(&sub, base, &cs, &name));
        }
    }
    rows
}

/// The rows of a block's comparisons `cs` with its best (`base`), best first, each
/// labelled and coloured by `name` with its verdict in brackets.
fn forest_rows(
    block: &Block,
    base: usize,
    cs: &[Comparison],
    name: &dyn Fn(&Config) -> (String, Colour),
) -> Vec<ForestRow> {
    let mut cs: Vec<&Comparison> = cs.iter().filter(|c| c.config != base).collect();
    cs.sort_by(|a, b| a.difference.mean.total_cmp(&b.difference.mean));
    cs.iter()
        .map(|c| {
            let (label, colour) = name(&block.configs[c.config]);
            (format!("{label} [{}]", c.verdict), c.difference.mean, c.low, c.high, colour.0)
        })
        .collect::<Vec<ForestRow>>()
}

/// One forest chart of paired differences (label, difference, the verdict's interval,
/// colour), saying how many more rows were not drawn; none without rows.
fn forest_chart(title: String, rows: Vec<ForestRow>, more: usize) -> Option<Part> {
    if rows.is_empty() {
        return None;
    }
    let lo = rows.iter().map(|r| r.2.min(r.1)).filter(|x| x.is_finite()).fold(0.0f64, f64::min);
    let hi = rows.iter().map(|r| r.3.max(r.1)).filter(|x| x.is_finite()).fold(0.0f64, f64::max);
    let more = if more > 0 { format!(" ({more} more not drawn)") } else { String::new() };
    let mut plot = Plot::new(
        &format!("{title}{more}"),
        PlotAxis::new(
            "regret difference with the best (paired by replicate; paired t, Holm-adjusted 95% interval)",
            lo - 0.02 * (hi - lo),
            hi + 0.02 * (hi - lo),
        ),
        PlotAxis::new("", 0.0, 1.0),
    )
    .wide();
    plot.forest(&rows);
    plot.rule_x(0.0);
    Some(Part::Chart(plot.finish()))
}

/// A search's rungs: budget, configurations, survivors, jobs, cost.
fn search(d: &Data) -> Option<Section> {
    if d.rungs.is_empty() {
        return None;
    }
    let header =
        ["rung", "budget", "configurations", "survivors", "jobs", "failed", "train_s"].map(String::from).to_vec();
    let mut rows = Vec::new();
    let mut cost = Vec::new();
    for (i, r) in d.rungs.iter().enumerate() {
        let survivors = d.rungs.get(i + 1).map_or(Cell::text("(last rung)"), |n| Cell::int(n.configurations.len()));
        let secs = r.train_ms / 1000.0;
        rows.push((
            Stands::Plain,
            vec![
                Cell::int(r.rung as usize),
                Cell::text(r.budgets.iter().cloned().collect::<Vec<_>>().join(", ")),
                Cell::int(r.configurations.len()),
                survivors,
                Cell::int(r.jobs.len()),
                Cell::int(r.failed),
                Cell::number_as(format!("{secs:.2}"), secs),
            ],
        ));
        cost.push((format!("rung {} ({} configurations)", r.rung, r.configurations.len()), secs, f64::NAN, f64::NAN));
    }
    Some(Section {
        id: "search",
        title: "Search".into(),
        how: "Each rung runs its configurations at its budget; survivors go on to the next. Cost is the training time \
              summed over the rung's jobs (CPU seconds, not wall time)."
            .into(),
        parts: vec![
            Part::Table(page_table(header, rows)),
            Part::Chart(bars("Training time per rung", "training time summed over jobs (s)", &cost)),
        ],
    })
}

/// A search that runs trials in rounds (TPE, random search), per solver: the best score so far against trials and against
/// training time (every trial a dot), and each searched axis's proposals against the trial
/// number, so a reader sees whether the search narrowed in.
fn trials(d: &Data) -> Option<Section> {
    let (trials, metric, opponent) = &d.trials;
    if trials.is_empty() {
        return None;
    }
    let mut labels: Vec<&str> = trials.iter().map(|t| t.label.as_str()).collect();
    labels.dedup();
    let mut parts = Vec::new();
    for label in labels {
        let mine: Vec<&super::data::Trial> = trials.iter().filter(|t| t.label == label).collect();
        parts.extend(best_so_far_charts(label, &mine, metric, opponent));
        // The axes: configuration columns that vary among the trials.
        let n = mine.first().map_or(0, |t| t.config.len());
        parts.extend((0..n).filter_map(|k| proposals_chart(label, &mine, k)));
        let best_trial = mine.iter().min_by(|a, b| a.score().total_cmp(&b.score()).then(a.trial.cmp(&b.trial)));
        if let Some(b) = best_trial {
            let rounds = mine.iter().map(|t| t.round).max().unwrap_or(0) + 1;
            parts.push(Part::Note(format!(
                "{label}: {} trials in {rounds} rounds; best trial {} (round {}), mean {metric} {:.6}.",
                mine.len(),
                b.trial,
                b.round,
                b.score()
            )));
        }
    }
    Some(Section {
        id: "tpe",
        title: match d.manifest.as_ref().and_then(|m| m.spec.get("search")?.get("method")?.as_str()) {
            Some("tpe") | None => "Search (TPE)".to_string(),
            Some(method) => format!("Search ({method})"),
        },
        how: "Each dot is a trial's mean score over its replicates; the line is the best so far, against trials and \
              against the training time spent. Below, each searched axis's proposals in trial order: a search that \
              learns gathers them where the scores are low (round 0 is spread evenly by Sobol points)."
            .into(),
        parts,
    })
}

/// Two charts of a solver's trials (`mine`, labelled `label`): every trial's score as a
/// dot and the best so far as a line, against the trial number and against the training
/// time spent so far.
fn best_so_far_charts(label: &str, mine: &[&super::data::Trial], metric: &str, opponent: &str) -> Vec<Part> {
    let scores: Vec<f64> = mine.iter().map(|t| t.score()).collect();
    let finite = scores.iter().copied().filter(|s| s.is_finite());
    let top = finite.fold(0.0f64, f64::max).max(1e-3) * 1.05;
    let mut best = f64::INFINITY;
    let best_so_far: Vec<f64> = scores
        .iter()
        .map(|&s| {
            best = best.min(s);
            best
        })
        .collect();
    let mut cpu = 0.0;
    let cumulative: Vec<f64> = mine
        .iter()
        .map(|t| {
            cpu += t.train_ms / 1000.0;
            cpu
        })
        .collect();
    let colour = super::svg::series(0);
    let y = || PlotAxis::new(&format!("mean {metric} against {opponent}"), 0.0, top);
    let mut parts = Vec::new();
    for (x, name, what) in [
        (mine.iter().map(|t| f64::from(t.trial) + 1.0).collect::<Vec<_>>(), "trials", "trials"),
        (cumulative, "training time of the trials so far (CPU s)", "training time"),
    ] {
        let xmax = x.last().copied().unwrap_or(1.0);
        let mut plot = Plot::new(&format!("{label}: best so far against {what}"), PlotAxis::new(name, 0.0, xmax), y());
        let points: Vec<(f64, f64)> = x.iter().copied().zip(best_so_far.iter().copied()).collect();
        plot.steps(&points, colour);
        plot.dots(&x.iter().copied().zip(scores.iter().copied()).collect::<Vec<_>>(), "#555", 0.6);
        plot.legend("best so far", colour);
        parts.push(Part::Chart(plot.finish()));
    }
    parts
}

/// The chart of a solver's proposals on its `k`-th configuration column, trial by trial
/// (on a log scale where positive values span more than a factor 20, as levels where
/// they are not numbers); none for the solver and label columns, a column that does not
/// vary, or one that every trial derives from the others.
fn proposals_chart(label: &str, mine: &[&super::data::Trial], k: usize) -> Option<Part> {
    let name = mine[0].config[k].0;
    let columns: Vec<&str> = mine[0].config.iter().map(|c| c.0).collect();
    let derived = |t: &super::data::Trial| {
        let key: Vec<String> = t.config.iter().map(|c| c.1.clone()).collect();
        crate::schema::derived(&columns, &key, k)
    };
    let same = mine.iter().all(|t| t.config[k].1 == mine[0].config[k].1);
    if [Field::Solver.name(), Field::Label.name()].contains(&name) || same || mine.iter().all(|t| derived(t)) {
        return None;
    }
    let values: Vec<Option<f64>> = mine.iter().map(|t| t.config[k].1.parse::<f64>().ok()).collect();
    let numeric = values.iter().all(Option::is_some);
    let (lo, hi) = values.iter().flatten().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    let log = numeric && lo > 0.0 && hi / lo > 20.0;
    let mut levels: Vec<&str> = Vec::new();
    let ys: Vec<f64> = mine
        .iter()
        .zip(&values)
        .map(|(t, v)| match (numeric, v) {
            (true, Some(v)) if log => v.log10(),
            (true, Some(v)) => *v,
            _ => {
                let level = t.config[k].1.as_str();
                if !levels.contains(&level) {
                    levels.push(level);
                }
                levels.iter().position(|l| *l == level).unwrap_or(0) as f64
            }
        })
        .collect();
    let axis_name = match (numeric, log) {
        (true, true) => format!("log10 {name}"),
        (true, false) => name.to_string(),
        (false, _) => format!("{name} ({})", levels.join(" = 0, ") + " = last"),
    };
    let (ylo, yhi) = ys.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    let mut plot = Plot::new(
        &format!("{label}: {name} proposed, trial by trial"),
        PlotAxis::new("trial", 0.0, mine.len() as f64 + 1.0),
        PlotAxis::new(&axis_name, ylo, yhi),
    );
    let points: Vec<(f64, f64)> = mine.iter().map(|t| f64::from(t.trial) + 1.0).zip(ys).collect();
    plot.dots(&points, super::svg::series(1).0, 0.8);
    Some(Part::Chart(plot.finish()))
}

/// Failed rows with their errors.
fn failures(d: &Data) -> Option<Section> {
    let (list, count) = &d.failures;
    if *count == 0 {
        return None;
    }
    let header = FAILURE_COLUMNS.map(String::from).to_vec();
    let rows = list.iter().map(|f| (Stands::Plain, f.cells.iter().map(|c| Cell::text(c.clone())).collect())).collect();
    let mut parts = vec![Part::Table(page_table(header, rows))];
    if *count > list.len() {
        parts.push(Part::Note(format!(
            "{} failed rows in all; the first {} are listed (all in the CSV).",
            count,
            list.len()
        )));
    }
    Some(Section {
        id: "failures",
        title: format!("Failures ({count})"),
        how: "Rows whose job failed, with the error; they are counted in `failed` and left out of every mean. `sweep run` \
              with the same spec runs them again."
            .into(),
        parts,
    })
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn heatmap_labels_are_short_numbers_or_the_level_as_written() {
        assert_eq!(short("0.505050505051"), "0.5051");
        assert_eq!(short("0.545454545454"), "0.5455");
        assert_eq!(short("0.9999855111308705"), "0.999986");
        assert_eq!(short("0.99950000001"), "0.9995");
        assert_eq!(short("0.00012345678"), "0.0001235");
        assert_eq!(short("1234.56789"), "1235");
        assert_eq!(short("0.25"), "0.25");
        assert_eq!(short("random"), "random");
        assert_eq!(short("0.0000000"), "0.0000000");
    }
}
