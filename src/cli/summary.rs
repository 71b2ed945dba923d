//! `sweep summary`: one line per configuration, aggregated over replicates, best first
//! within each solver; from the test rows when the file has them (`[test]`), with each
//! configuration's tuning mean and the gap, else from the tuning rows (`--split`); both
//! when `--by` names the `split` column. With the default grouping, `vs_best` marks each
//! configuration against its block's best: by default whether it could be the best (Hsu's
//! multiple comparisons with the best at level `--alpha`, with the simultaneous interval of
//! its gap behind the best of the others in `mcb_low`/`mcb_high`, and under the table how
//! many replicates would likely shrink the set), or with `--significance` naming a paired
//! test, that test against the best (Holm-adjusted; `cannot-reject` where the replicates
//! could never separate them); and `sampled` counts each group's rows evaluated by sampled
//! games.
//! Under the table, self-play configurations evaluated against `best-response` get their
//! NashConv (the two seats' exploitability summed per job; see [`crate::report::nash_conv`]).
//! [`table`] computes all this as a [`Table`] (the lines under it are its notes), from the
//! results and plain [`SummaryOptions`]; the command prints it in the `--format` asked
//! (text shows only the grouping columns that vary; CSV and JSON show them all).

use std::path::PathBuf;

use crate::stats::robust::Stat;

use anyhow::Result;

use std::collections::BTreeMap;
use std::path::Path;

use super::compare::level_arg;
use super::table::FormatArgs;
use crate::error::{bad_input, exit};
use crate::job::Split;
use crate::report::compare::{Mark, Procedure, best_marks, solver_block_columns, solvers_compared};
use crate::report::paired_runs::{Metric, read_blocks_in};
use crate::report::result_row::each_result;
use crate::report::splits;
use crate::report::summary::{Aggregator, Group, NEEDED_COLUMNS, Strata, config_columns, strata};
use crate::report::table::{Cell, Column, Format, Table};
use crate::report::{Field, ParamColumn, RESULT_COLUMNS};
use crate::seed::fnv1a;
use crate::stats::robust::{RESAMPLES, bootstrap_interval};
use crate::stats::significance::{DEFAULT_LEVEL, Significance};

/// Flags of `sweep summary`.
#[derive(clap::Args, Debug)]
pub struct SummaryArgs {
    /// A results directory or its results.csv.
    results: PathBuf,
    #[command(flatten)]
    verification: super::reproduce::Verification,
    /// Group by these columns (comma separated); default: every parameter, seat and eval_opponent.
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    by: Vec<String>,
    #[command(flatten)]
    output: FormatArgs,
    /// What decides `vs_best`: mcb (which configurations could be the best: Hsu's multiple
    /// comparisons with the best), or a paired test against the best, Holm-adjusted:
    /// t (paired t), wilcoxon (signed ranks) or permutation (exact sign flips).
    #[arg(long, default_value = "mcb", value_parser = Procedure::parse, value_name = "mcb|t|wilcoxon|permutation")]
    significance: Procedure,
    /// The level: MCB's set holds the best with probability 1 - alpha; a paired test's
    /// Holm-adjusted p-value below it separates a configuration from the best.
    #[arg(long = "alpha", value_name = "ALPHA", default_value_t = DEFAULT_LEVEL, value_parser = level_arg)]
    level: f64,
    /// Also this statistic of the regret (mean, median or iqm) with a stratified percentile
    /// bootstrap 95% interval (2,000 resamples, seeded).
    #[arg(long, value_parser = stat_arg)]
    stat: Option<Stat>,
    /// The rows summarised: `test` (the configurations a [test] table chose, on fresh seeds;
    /// the default when the file has test rows; without --by, with each one's tuning mean and
    /// the gap) or
    /// `tune` (the grid or search; the default otherwise). `--by ...,split` shows both.
    #[arg(long, value_parser = splits::arg, value_name = "tune|test")]
    split: Option<Split>,
}

fn stat_arg(s: &str) -> Result<Stat, String> {
    s.parse().map_err(|e: crate::mdp::ParseNameError| e.to_string())
}

/// What the summary table is computed from, beside the results: the flags, without clap.
#[derive(Clone, Debug)]
pub struct SummaryOptions {
    /// Group by these columns (empty: every configuration column, with `vs_best`).
    pub by: Vec<String>,
    /// What decides `vs_best`.
    pub significance: Procedure,
    /// Its level.
    pub level: f64,
    /// A robust statistic of the regret with its bootstrap interval.
    pub stat: Option<Stat>,
    /// The rows summarised (default: the test rows when the file has them).
    pub split: Option<Split>,
    /// Every grouping column, not only those that vary (for machine-readable output).
    pub every_column: bool,
}

impl SummaryArgs {
    /// The options these flags give, for `format`.
    pub fn options(&self, format: Format) -> SummaryOptions {
        SummaryOptions {
            by: self.by.clone(),
            significance: self.significance,
            level: self.level,
            stat: self.stat,
            split: self.split,
            every_column: format != Format::Text,
        }
    }
}

/// Runs `sweep summary`.
pub fn summary(args: &SummaryArgs) -> Result<i32> {
    let dir = super::reproduce::results_dir(&args.results, args.verification)?;
    let format = args.output.format();
    super::table::print(&table(&dir, &args.options(format))?, format);
    Ok(exit::OK)
}

/// The summary of the results in `dir`: one row per group, the lines under it as notes.
pub fn table(dir: &Path, options: &SummaryOptions) -> Result<Table> {
    let by = grouping(options)?;
    // One row at a time: a results file of millions of rows is never held. A file of an
    // older version reads as if the columns it lacks were empty.
    let results = dir.join("results.csv");
    let shown = splits::shown(&results).map_err(|e| bad_input(format!("{e:#}")))?;
    let split = options.split.unwrap_or(shown);
    // Grouped by the split column (and no --split): every row.
    let filter = if by.contains(&Field::Split.name()) && options.split.is_none() { None } else { Some(split) };
    let (agg, tuned) = aggregate(&results, &by, filter)?;
    if agg.rows() == 0 {
        let what = if split == Split::Test { " of the test split" } else { "" };
        return Err(bad_input(format!("{}: results.csv has no rows{what} yet", dir.display())));
    }
    // With the test rows: the columns the tuning varied, each configuration's tuning mean,
    // and the gap.
    // The tuning mean and the gap need groups that are configurations: the default grouping.
    let test = filter == Some(Split::Test) && options.by.is_empty();
    let show = shown_columns(options, if test { &tuned } else { &agg }, &by);
    let tuned: BTreeMap<Vec<String>, Group> = match test {
        true => tuned.groups().into_iter().map(|g| (g.key.clone(), g)).collect(),
        false => BTreeMap::new(),
    };
    let groups = agg.groups();
    let numeric: Vec<bool> = show.iter().map(|&k| Column::key(by[k]).numeric()).collect();
    let bad = |e: anyhow::Error| bad_input(format!("{e:#}"));
    // On test rows, vs_best answers "which solver?" as `compare --by solver` does; else
    // "which configurations of each solver could be the best?".
    let across = test_verdict(options, test);
    let (marks, notes) = vs_best(options, across, &results, &by, split)?;
    let strata = if options.stat.is_some() { strata(&results, &by, filter).map_err(bad)? } else { BTreeMap::new() };
    let layout = Layout {
        show,
        numeric,
        // MCTS does not train: its cost is a search per move.
        moves: groups.iter().any(|g| !g.ms_per_move.is_nan()),
        stat: options.stat,
        mcb: marks.is_some() && options.significance == Procedure::Mcb && across.is_none(),
        diff: marks.is_some() && across == Some(Significance::T),
        test,
    };
    let mut table = Table::new("Regret per configuration, over replicates", layout.columns(&by, marks.is_some()));
    for g in &groups {
        let mut r = base_row(g, &layout.show, &layout.numeric);
        if layout.moves {
            r.push(Cell::Float(g.ms_per_move));
        }
        if let Some(stat) = options.stat {
            r.extend(bootstrap_cells(stat, &by, g, &strata));
        }
        if let Some(marks) = &marks {
            let mark = marks.get(&g.key);
            r.push(Cell::text(mark.map_or("", |m| m.verdict)));
            if layout.mcb || layout.diff {
                r.extend([mark.map_or(f64::NAN, |m| m.low), mark.map_or(f64::NAN, |m| m.high)].map(Cell::Float));
            }
        }
        if test {
            let t = tuned.get(&g.key);
            r.push(t.map_or(Cell::Missing, |t| Cell::int(t.n)));
            r.push(t.map_or(Cell::Missing, |t| Cell::Float(t.mean_regret)));
            r.push(t.map_or(Cell::Missing, |t| Cell::Float(g.mean_regret - t.mean_regret)));
        }
        r.push(Cell::int(g.sampled));
        table.push(r);
    }
    let failed: usize = groups.iter().map(|g| g.failed).sum();
    let sampled: usize = groups.iter().map(|g| g.sampled).sum();
    let marked = marks.is_some().then_some((options.significance, options.level));
    table.notes.push(footer(groups.len(), agg.rows(), failed, sampled, if across.is_some() { None } else { marked }));
    if let (Some(t), true) = (across, marks.is_some()) {
        table.notes.push(across_note(t, options.level));
    }
    table.notes.extend(notes);
    table.notes.extend(pooled_note(&groups));
    closing_notes(&mut table, &results, filter, (split, shown), options, test)?;
    Ok(table)
}

/// The rows of `results` in `filter` (every row without one) aggregated by `by`, and
/// beside them the tuning rows that the filter leaves out.
fn aggregate(results: &Path, by: &[&str], filter: Option<Split>) -> Result<(Aggregator, Aggregator)> {
    let (mut agg, mut tuned) = (Aggregator::new(by), Aggregator::new(by));
    each_result(results, &NEEDED_COLUMNS, |row| match (filter, row.split()) {
        (None, _) => agg.push(&row),
        (Some(f), s) if s == f => agg.push(&row),
        (_, Split::Tune) => tuned.push(&row),
        (_, Split::Test) => {}
    })
    .map_err(|e| bad_input(format!("{e:#}")))?;
    Ok((agg, tuned))
}

/// The `vs_best` marks by group key (none without a `vs_best` column) and the lines they
/// add under the table.
type VsBest = (Option<BTreeMap<Vec<String>, Mark>>, Vec<String>);

/// The `vs_best` marks by group key and the lines they add under the table: none with
/// `--by`; with `across` (test rows), the solvers compared as `compare --by solver` does;
/// else each solver's configurations against their block's best.
fn vs_best(
    options: &SummaryOptions,
    across: Option<Significance>,
    results: &Path,
    by: &[&str],
    split: Split,
) -> Result<VsBest> {
    let bad = |e: anyhow::Error| bad_input(format!("{e:#}"));
    Ok(match across {
        _ if !options.by.is_empty() => (None, Vec::new()),
        Some(t) => {
            let (outer, config) = solver_block_columns();
            let blocks = read_blocks_in(results, Metric::Regret, &outer, &config, Split::Test).map_err(bad)?;
            let (marks, sentences) = solvers_compared(&blocks, by, t, options.level);
            (Some(marks), sentences)
        }
        None => {
            let (marks, notes) = best_marks(results, by, options.significance, options.level, split).map_err(bad)?;
            (Some(marks), notes)
        }
    })
}

/// The summary table's grouping columns shown and its optional columns.
struct Layout {
    /// The grouping columns shown (positions in `by`).
    show: Vec<usize>,
    /// Which of them hold numbers.
    numeric: Vec<bool>,
    /// `ms_per_move`: some group searches per move.
    moves: bool,
    /// A robust statistic of the regret with its bootstrap interval.
    stat: Option<Stat>,
    /// `vs_best`'s MCB interval (`mcb_low`, `mcb_high`).
    mcb: bool,
    /// `vs_best`'s paired-t interval (`diff_low`, `diff_high`).
    diff: bool,
    /// The tuning mean and the gap (test rows, default grouping).
    test: bool,
}

impl Layout {
    /// The table's columns, `vs_best` among them when `marked`.
    fn columns(&self, by: &[&str], marked: bool) -> Vec<Column> {
        let mut columns: Vec<Column> = self.show.iter().map(|&k| Column::key(by[k])).collect();
        columns.extend([Column::integers("n"), Column::integers("failed")]);
        columns.extend(
            ["mean_regret", "sd_regret", "ci95_low", "ci95_high", "p_win", "p_draw", "p_loss"].map(Column::numbers),
        );
        columns.push(Column::decimals("train_ms", 1));
        if self.moves {
            columns.push(Column::numbers("ms_per_move"));
        }
        if let Some(stat) = self.stat {
            columns.extend(
                [format!("{}_regret", stat.name()), "boot_low".into(), "boot_high".into()].map(Column::numbers),
            );
        }
        if marked {
            columns.push(Column::text("vs_best"));
        }
        if self.mcb {
            columns.extend(["mcb_low", "mcb_high"].map(Column::numbers));
        }
        if self.diff {
            columns.extend(["diff_low", "diff_high"].map(Column::numbers));
        }
        if self.test {
            columns.extend([Column::integers("tune_n"), Column::numbers("tune_mean_regret"), Column::numbers("gap")]);
        }
        columns.push(Column::integers("sampled"));
        columns
    }
}

/// A group's `stat` of the regret and its stratified bootstrap interval, seeded by the
/// group's key.
fn bootstrap_cells(stat: Stat, by: &[&str], g: &Group, strata: &Strata) -> [Cell; 3] {
    let strata: Vec<Vec<f64>> = strata.get(&g.key).map(|m| m.values().cloned().collect()).unwrap_or_default();
    let all: Vec<f64> = strata.concat();
    let seed = fnv1a(crate::schema::seed_text(by, &g.key).as_bytes());
    let (low, high) = bootstrap_interval(stat, &strata, RESAMPLES, seed, true);
    [Cell::Float(stat.of(&all)), Cell::Float(low), Cell::Float(high)]
}

/// The line on groups that pool several configurations' runs, when any do.
fn pooled_note(groups: &[Group]) -> Option<String> {
    let pooled = groups.iter().filter(|g| g.pooled).count();
    (pooled > 0).then(|| {
        format!(
            "{} several configurations' runs on each replicate (same seeds, so not independent): each \
             replicate's rows are averaged first; n counts replicates, and mean_regret, sd_regret and ci95 are over \
             the replicate means",
            match pooled {
                _ if pooled == groups.len() => "every group pools".to_string(),
                1 => "1 group pools".to_string(),
                _ => format!("{pooled} groups pool"),
            }
        )
    })
}

/// The last lines under the table: NashConv and trivial blocks, the split summarised
/// (`split`, and the one shown by default), and what the gap means on test rows.
fn closing_notes(
    table: &mut Table,
    results: &Path,
    filter: Option<Split>,
    (split, shown): (Split, Split),
    options: &SummaryOptions,
    test: bool,
) -> Result<()> {
    let bad = |e: anyhow::Error| bad_input(format!("{e:#}"));
    table.notes.extend(crate::report::nash_conv::lines(results, filter).map_err(bad)?);
    table.notes.extend(crate::report::nash_conv::trivial_lines(results, filter).map_err(bad)?);
    match filter {
        None => table.notes.push("split: tuning and test rows, grouped by the split column".into()),
        Some(_) if shown == Split::Test || options.split.is_some() => {
            table.notes.push(splits::describe(split, shown == Split::Test))
        }
        Some(_) => {}
    }
    if test {
        table.notes.push(
            "gap = mean_regret (test seeds) - tune_mean_regret (the seeds that chose it): with exact regret, the \
             optimism of choosing on the same seeds plus the seeds' own spread"
                .into(),
        );
    }
    Ok(())
}

/// The test `vs_best` compares the solvers by on test rows (the default grouping): the
/// paired test asked for, or the t test where `--significance` is MCB (the way `compare
/// --by solver` judges); `None` elsewhere.
fn test_verdict(options: &SummaryOptions, test: bool) -> Option<Significance> {
    match (test && options.by.is_empty(), options.significance) {
        (false, _) => None,
        (true, Procedure::Pairwise(t)) => Some(t),
        (true, Procedure::Mcb) => Some(Significance::T),
    }
}

/// What `vs_best` means on test rows.
fn across_note(test: Significance, level: f64) -> String {
    let interval = if test == Significance::T {
        format!(
            "; diff_low..diff_high: the verdict's interval of its mean regret minus the best's (paired t at level 1 - \
             {level} x p_t / p_holm: it excludes 0 exactly when the verdict is worse or better)"
        )
    } else {
        String::new()
    };
    format!(
        "vs_best: each solver's chosen configuration against the best of them on the same fresh seeds, as `sweep \
         compare --by solver` does ({test} test, Holm-adjusted over each seat/opponent/board, level {level}): best, \
         equal (identical to the best on every replicate; where every solver is, all read equal), indistinguishable, worse, cannot-reject{interval}"
    )
}

/// The grouping columns: `--by`, checked, or every configuration column.
fn grouping(options: &SummaryOptions) -> Result<Vec<&str>> {
    if options.by.is_empty() {
        return Ok(config_columns());
    }
    for c in &options.by {
        if !RESULT_COLUMNS.contains(&c.as_str()) {
            return Err(bad_input(format!("--by {c}: no such column; columns are {}", RESULT_COLUMNS.join(", "))));
        }
    }
    Ok(options.by.iter().map(String::as_str).collect())
}

/// The grouping columns shown: all of them with `--by` or for machine-readable output;
/// else those that vary within some solver, plus the solver, the seat and the evaluation
/// opponent.
fn shown_columns(options: &SummaryOptions, agg: &Aggregator, by: &[&str]) -> Vec<usize> {
    if options.every_column || !options.by.is_empty() {
        return (0..by.len()).collect();
    }
    let mut show = agg.varying_within_kinds();
    let always = [Field::Solver.name(), ParamColumn::Seat.name(), Field::EvalOpponent.name()];
    show.extend((0..by.len()).filter(|&k| always.contains(&by[k])));
    show.sort_unstable();
    show.dedup();
    show
}

/// A configuration's shown keys (`numeric`: which hold numbers) and its Student-t
/// aggregates.
fn base_row(g: &Group, show: &[usize], numeric: &[bool]) -> Vec<Cell> {
    let mut r: Vec<Cell> = show.iter().zip(numeric).map(|(&k, &n)| Cell::key(&g.key[k], n)).collect();
    r.extend([
        Cell::int(g.n),
        Cell::int(g.failed),
        Cell::Float(g.mean_regret),
        Cell::Float(g.sd_regret),
        // A regret is never negative: neither is its interval.
        Cell::Float(if g.ci95.is_nan() { f64::NAN } else { (g.mean_regret - g.ci95).max(0.0) }),
        Cell::Float(g.mean_regret + g.ci95),
        Cell::Float(g.p[0]),
        Cell::Float(g.p[1]),
        Cell::Float(g.p[2]),
        Cell::Float(g.train_ms),
    ]);
    r
}

/// The line under the table.
fn footer(
    configurations: usize,
    rows: usize,
    failed: usize,
    sampled: usize,
    marked: Option<(Procedure, f64)>,
) -> String {
    format!(
        "{} from {}{}{}; ci95 is the Student-t 95% interval of the mean regret over replicates{}",
        crate::names::count(configurations, "configuration"),
        crate::names::count(rows, "row"),
        if failed > 0 {
            format!(", {} (counted in `failed`, not in the means)", crate::names::count(failed, "failed row"))
        } else {
            String::new()
        },
        if sampled > 0 {
            format!(", {sampled} of them evaluated by sampled games (counted in `sampled`, pooled in the means)")
        } else {
            String::new()
        },
        match marked {
            Some((Procedure::Mcb, level)) => format!(
                "; vs_best: which configurations could be the best of their block (Hsu's multiple comparisons with the \
                 best, level {level}, pooled variance of the paired design): could-be-best where the set that holds the \
                 best with probability {} keeps it, not-best where it is excluded, equal where it is identical to the \
                 best on every replicate; mcb_low..mcb_high: the simultaneous interval of its true mean regret minus \
                 the best of the others' (0 inside: could be the best)",
                1.0 - level
            ),
            Some((Procedure::Pairwise(test), level)) => format!(
                "; vs_best: = where the paired {test} test (Holm-adjusted, level {level}) cannot tell the configuration \
                 from the best, equal where it is identical to the best on every replicate, cannot-reject where it \
                 never could tell with these replicates"
            ),
            None => String::new(),
        }
    )
}
