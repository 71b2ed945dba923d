//! `sweep compare`: within each block (solver, seat, evaluation opponent), every
//! configuration against a baseline, paired by replicate (see [`crate::report::compare`]);
//! from the test rows when the file has them (`[test]`), then with each tested
//! configuration's gap to its tuning mean, else from the tuning rows (`--split`).

use std::path::PathBuf;

use anyhow::Result;

use super::table::{num, print_table};
use crate::error::{bad_input, exit};
use crate::report::Record;
use crate::report::compare::{ALPHA, Baseline, compare_block};
use crate::report::files::encode;
use crate::report::paired_runs::{Metric, block_columns, default_config_columns, read_blocks_in};
use crate::report::splits;
use crate::spec::Split;

/// Flags of `sweep compare`.
#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// A results directory or its results.csv.
    results: PathBuf,
    /// The metric: regret, regret_auc, solved_at or value.
    #[arg(long, default_value = "regret", value_parser = metric_arg)]
    metric: Metric,
    /// `best` (the best mean in each block), a label, or col=value,col=value.
    #[arg(long, default_value = "best", value_name = "best|CONFIG")]
    baseline: String,
    /// Configuration columns (comma separated); default: every parameter but the seat.
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    by: Vec<String>,
    /// Write the table as CSV to standard output.
    #[arg(long)]
    csv: bool,
    /// The rows compared: `test` (the configurations a [test] table chose, on fresh seeds;
    /// the default when the file has test rows) or `tune` (the grid or search).
    #[arg(long, value_parser = splits::arg, value_name = "tune|test")]
    split: Option<Split>,
}

/// Parses a metric name for clap.
pub fn metric_arg(s: &str) -> Result<Metric, String> {
    s.parse().map_err(|e: crate::mdp::ParseNameError| e.to_string())
}

/// The columns `--by` names, or the default configuration columns.
pub fn config_columns(by: &[String]) -> Vec<&str> {
    if by.is_empty() { default_config_columns() } else { by.iter().map(String::as_str).collect() }
}

/// Runs `sweep compare`.
pub fn compare(args: &CompareArgs) -> Result<i32> {
    let dir = super::reproduce::results_dir(&args.results)?;
    let columns = config_columns(&args.by);
    let results = dir.join("results.csv");
    let shown = splits::shown(&results).map_err(|e| bad_input(format!("{e:#}")))?;
    let split = args.split.unwrap_or(shown);
    let blocks = read_blocks_in(&results, args.metric, &columns, split).map_err(|e| bad_input(format!("{e:#}")))?;
    if blocks.is_empty() {
        return Err(bad_input(format!("{}: no successful rows with a {} value", dir.display(), args.metric.name())));
    }
    let baseline = Baseline::parse(&args.baseline);
    let mut header: Vec<String> = block_columns().iter().map(|c| c.to_string()).collect();
    header.extend(["label", "configuration", "n", "mean", "difference", "ci95_low", "ci95_high"].map(String::from));
    header.extend(["p_t", "p_wilcoxon", "p_holm", "p_improve", "verdict"].map(String::from));
    let mut table: Vec<Record> = Vec::new();
    let mut skipped = 0;
    for block in &blocks {
        let Some(base) = baseline.find(block, &columns, args.metric).map_err(|e| bad_input(format!("{e:#}")))? else {
            skipped += 1;
            continue;
        };
        let varying = block.varying();
        for c in compare_block(block, base, args.metric) {
            let config = &block.configs[c.config];
            let name: Vec<String> = varying.iter().map(|&k| format!("{}={}", columns[k], config.key[k])).collect();
            let mut r: Record = block.key.clone();
            r.extend([config.label.clone(), name.join(" "), c.runs.to_string(), num(c.mean)]);
            let d = &c.difference;
            r.extend([num(d.mean), num(d.low), num(d.high), num(d.p_value), num(c.wilcoxon.p_value)]);
            r.extend([num(c.p_holm), num(c.p_improve), c.verdict.to_string()]);
            table.push(r);
        }
    }
    if table.is_empty() {
        return Err(bad_input(format!("--baseline {}: no configuration matches", args.baseline)));
    }
    if args.csv {
        print!("{}", encode(std::iter::once(header).chain(table)));
        return Ok(exit::OK);
    }
    print_table(&header, &table);
    println!(
        "{}: difference = configuration - baseline over paired replicates (ci95: paired t); p_wilcoxon: \
         signed-rank test (exact up to 25 pairs), Holm-adjusted in p_holm; p_improve: P(a run beats a baseline run); \
         verdicts at {ALPHA}{}",
        args.metric.name(),
        if skipped > 0 { format!("; {skipped} blocks without the baseline left out") } else { String::new() }
    );
    if shown == Split::Test || args.split.is_some() {
        println!("{}", splits::describe(split, shown == Split::Test));
    }
    if split == Split::Test && args.by.is_empty() {
        // The default columns make each configuration one grid point: its tuning mean.
        print_gaps(&results, args.metric, &columns)?;
    }
    Ok(exit::OK)
}

/// One line per tested configuration: its mean over the tuning and the test seeds.
fn print_gaps(results: &std::path::Path, metric: Metric, columns: &[&str]) -> Result<()> {
    let gaps = splits::gaps(results, metric, columns).map_err(|e| bad_input(format!("{e:#}")))?;
    println!("gap = test mean - tuning mean of each tested configuration ({}):", metric.name());
    for g in gaps {
        let on = g.block.get(3).map(|game| format!(" on {game}")).unwrap_or_default();
        println!(
            "  {} {} ({} vs {}{on}): tune {} over {}, test {} over {}, gap {}",
            g.label,
            g.name,
            g.block[1],
            g.block[2],
            num(g.tune.1),
            g.tune.0,
            num(g.test.1),
            g.test.0,
            num(g.gap())
        );
    }
    Ok(())
}
