//! `sweep summary`: one line per configuration, aggregated over replicates, best first
//! within each solver; from the test rows when the file has them (`[test]`), with each
//! configuration's tuning mean and the gap, else from the tuning rows (`--split`); both
//! when `--by` names the `split` column. With the default grouping, `vs_best` marks each
//! configuration by a paired comparison with its block's best (the test and level of
//! `--significance` and `--alpha`, `cannot-reject` where the replicates could never
//! separate them), and `sampled` counts each group's rows evaluated by sampled games.
//! Under the table, self-play configurations evaluated against `best-response` get their
//! NashConv (the two seats' exploitability summed per job; see [`crate::report::nash_conv`]).

use std::path::PathBuf;

use crate::stats::robust::Stat;

use anyhow::Result;

use std::collections::BTreeMap;

use super::compare::{alpha_arg, significance_arg};
use super::table::number_format;
use crate::error::{bad_input, exit};
use crate::report::compare::{Verdicts, best_marks};
use crate::report::files::{each_row, encode};
use crate::report::splits;
use crate::report::summary::{Aggregator, Group, NEEDED_COLUMNS, config_columns, strata};
use crate::report::{RESULT_COLUMNS, Record};
use crate::seed::fnv1a;
use crate::spec::Split;
use crate::stats::robust::{RESAMPLES, bootstrap_interval};
use crate::stats::significance::{DEFAULT_ALPHA, Significance};

/// Flags of `sweep summary`.
#[derive(clap::Args, Debug)]
pub struct SummaryArgs {
    /// A results directory or its results.csv.
    results: PathBuf,
    /// Group by these columns (comma separated); default: every parameter, seat and eval_opponent.
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    by: Vec<String>,
    /// Write the table as CSV to standard output (numbers in full).
    #[arg(long)]
    csv: bool,
    /// The paired test behind `vs_best`: wilcoxon (signed ranks), t (paired t) or
    /// permutation (exact sign flips of the mean difference).
    #[arg(long, default_value = "wilcoxon", value_parser = significance_arg)]
    significance: Significance,
    /// The level below which a Holm-adjusted p-value separates a configuration from the best.
    #[arg(long, default_value_t = DEFAULT_ALPHA, value_parser = alpha_arg)]
    alpha: f64,
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

/// Runs `sweep summary`.
pub fn summary(args: &SummaryArgs) -> Result<i32> {
    let dir = super::reproduce::results_dir(&args.results)?;
    let by = grouping(args)?;
    // One row at a time: a results file of millions of rows is never held. A file of an
    // older version reads as if the columns it lacks were empty.
    let results = dir.join("results.csv");
    let shown = splits::shown(&results).map_err(|e| bad_input(format!("{e:#}")))?;
    let split = args.split.unwrap_or(shown);
    // Grouped by the split column (and no --split): every row.
    let filter = if by.contains(&"split") && args.split.is_none() { None } else { Some(split) };
    let (mut agg, mut tuned) = (Aggregator::new(&by), Aggregator::new(&by));
    each_row(&results, &RESULT_COLUMNS, &NEEDED_COLUMNS, |rec| match (filter, splits::of_row(rec)) {
        (None, _) => agg.push(|i| &rec[i]),
        (Some(f), s) if s == f => agg.push(|i| &rec[i]),
        (_, Split::Tune) => tuned.push(|i| &rec[i]),
        (_, Split::Test) => {}
    })
    .map_err(|e| bad_input(format!("{e:#}")))?;
    if agg.rows() == 0 {
        let what = if split == Split::Test { " of the test split" } else { "" };
        return Err(bad_input(format!("{}: results.csv has no rows{what} yet", dir.display())));
    }
    // With the test rows: the columns the tuning varied, each configuration's tuning mean,
    // and the gap.
    // The tuning mean and the gap need groups that are configurations: the default grouping.
    let test = filter == Some(Split::Test) && args.by.is_empty();
    let show = shown_columns(args, if test { &tuned } else { &agg }, &by);
    let tuned: BTreeMap<Vec<String>, Group> = match test {
        true => tuned.groups().into_iter().map(|g| (g.key.clone(), g)).collect(),
        false => BTreeMap::new(),
    };
    let groups = agg.groups();
    let mut header: Vec<String> = show.iter().map(|&k| by[k].to_string()).collect();
    header.extend(
        ["n", "failed", "mean_regret", "sd_regret", "ci95_low", "ci95_high", "p_win", "p_draw", "p_loss", "train_ms"]
            .map(String::from),
    );
    let bad = |e: anyhow::Error| bad_input(format!("{e:#}"));
    let verdicts = Verdicts { test: args.significance, alpha: args.alpha };
    let (marks, notes) = if args.by.is_empty() {
        let (marks, notes) = best_marks(&results, &by, verdicts, split).map_err(bad)?;
        (Some(marks), notes)
    } else {
        (None, Vec::new())
    };
    let number = number_format(args.csv);
    let strata = if args.stat.is_some() { strata(&results, &by, filter).map_err(bad)? } else { BTreeMap::new() };
    if let Some(stat) = args.stat {
        header.extend([format!("{}_regret", stat.name()), "boot_low".into(), "boot_high".into()]);
    }
    if marks.is_some() {
        header.push("vs_best".into());
    }
    if test {
        header.extend(["tune_n", "tune_mean_regret", "gap"].map(String::from));
    }
    header.push("sampled".into());
    let mut table: Vec<Record> = groups.iter().map(|g| base_row(g, &show, args.csv)).collect();
    for (r, g) in table.iter_mut().zip(&groups) {
        if let Some(stat) = args.stat {
            let strata: Vec<Vec<f64>> = strata.get(&g.key).map(|m| m.values().cloned().collect()).unwrap_or_default();
            let all: Vec<f64> = strata.concat();
            let seed = fnv1a(g.key.join(",").as_bytes());
            let (low, high) = bootstrap_interval(stat, &strata, RESAMPLES, seed, true);
            r.extend([number(stat.of(&all)), number(low), number(high)]);
        }
        if let Some(marks) = &marks {
            r.push(marks.get(&g.key).copied().unwrap_or("").to_string());
        }
        if test {
            let t = tuned.get(&g.key);
            r.push(t.map_or(String::new(), |t| t.n.to_string()));
            r.push(t.map_or(String::new(), |t| number(t.mean_regret)));
            r.push(t.map_or(String::new(), |t| number(g.mean_regret - t.mean_regret)));
        }
        r.push(g.sampled.to_string());
    }
    if args.csv {
        print!("{}", encode(std::iter::once(header).chain(table)));
        return Ok(exit::OK);
    }
    print_aligned(&header, &table);
    let failed: usize = groups.iter().map(|g| g.failed).sum();
    let sampled: usize = groups.iter().map(|g| g.sampled).sum();
    println!("{}", footer(groups.len(), agg.rows(), failed, sampled, marks.is_some().then_some(verdicts)));
    for note in notes {
        println!("{note}");
    }
    for line in crate::report::nash_conv::lines(&results, filter).map_err(|e| bad_input(format!("{e:#}")))? {
        println!("{line}");
    }
    match filter {
        None => println!("split: tuning and test rows, grouped by the split column"),
        Some(_) if shown == Split::Test || args.split.is_some() => {
            println!("{}", splits::describe(split, shown == Split::Test))
        }
        Some(_) => {}
    }
    if test {
        println!(
            "gap = mean_regret (test seeds) - tune_mean_regret (the seeds that chose it): with exact regret, the \
             optimism of choosing on the same seeds plus the seeds' own spread"
        );
    }
    Ok(exit::OK)
}

/// The grouping columns: `--by`, checked, or every configuration column.
fn grouping(args: &SummaryArgs) -> Result<Vec<&str>> {
    if args.by.is_empty() {
        return Ok(config_columns());
    }
    for c in &args.by {
        if !RESULT_COLUMNS.contains(&c.as_str()) {
            return Err(bad_input(format!("--by {c}: no such column; columns are {}", RESULT_COLUMNS.join(", "))));
        }
    }
    Ok(args.by.iter().map(String::as_str).collect())
}

/// The grouping columns shown: all of them with `--by` or `--csv`; else those that vary
/// within some solver, plus the solver, the seat and the evaluation opponent.
fn shown_columns(args: &SummaryArgs, agg: &Aggregator, by: &[&str]) -> Vec<usize> {
    if args.csv || !args.by.is_empty() {
        return (0..by.len()).collect();
    }
    let mut show = agg.varying_within_kinds();
    let always = ["solver", "seat", "eval_opponent"];
    show.extend((0..by.len()).filter(|&k| always.contains(&by[k])));
    show.sort_unstable();
    show.dedup();
    show
}

/// A configuration's shown keys and its Student-t aggregates, in full for CSV.
fn base_row(g: &Group, show: &[usize], csv: bool) -> Record {
    let number = number_format(csv);
    let mut r: Record = show.iter().map(|&k| g.key[k].clone()).collect();
    r.extend([
        g.n.to_string(),
        g.failed.to_string(),
        number(g.mean_regret),
        number(g.sd_regret),
        // A regret is never negative: neither is its interval.
        number(if g.ci95.is_nan() { f64::NAN } else { (g.mean_regret - g.ci95).max(0.0) }),
        number(g.mean_regret + g.ci95),
        number(g.p[0]),
        number(g.p[1]),
        number(g.p[2]),
        if g.train_ms.is_nan() {
            String::new()
        } else if csv {
            number(g.train_ms)
        } else {
            format!("{:.1}", g.train_ms)
        },
    ]);
    r
}

/// Prints the header and rows in aligned columns.
fn print_aligned(header: &[String], table: &[Record]) {
    let widths: Vec<usize> = (0..header.len())
        .map(|c| table.iter().map(|r| r[c].len()).chain([header[c].len()]).max().unwrap_or(0))
        .collect();
    let line = |r: &[String]| r.iter().zip(&widths).map(|(s, w)| format!("{s:<w$}")).collect::<Vec<_>>().join("  ");
    println!("{}", line(header).trim_end());
    for r in table {
        println!("{}", line(r).trim_end());
    }
}

/// The line under the table.
fn footer(configurations: usize, rows: usize, failed: usize, sampled: usize, marked: Option<Verdicts>) -> String {
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
            Some(v) => format!(
                "; vs_best: = where the paired {} test (Holm-adjusted, level {}) cannot tell the configuration from \
                 the best, cannot-reject where it never could with these replicates",
                v.test, v.alpha
            ),
            None => String::new(),
        }
    )
}
