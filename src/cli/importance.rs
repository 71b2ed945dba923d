//! `sweep importance`: within each block (solver, seat, evaluation opponent), the share
//! of the metric's variance over the grid explained by each parameter's main effect and by
//! each pair's interaction (functional ANOVA, [`crate::stats::anova`]), from each
//! configuration's mean over its replicates. Only a full grid can be decomposed this way:
//! the tuning rows (a `[test]` table's rows re-run a few configurations only).

use std::path::PathBuf;

use anyhow::Result;

use super::compare::{config_columns, metric_arg};
use super::table::{number_format, print_table};
use crate::error::{bad_input, exit};
use crate::report::Record;
use crate::report::files::encode;
use crate::report::paired_runs::{Metric, block_columns, block_grid, read_blocks_in};

/// Flags of `sweep importance`.
#[derive(clap::Args, Debug)]
pub struct ImportanceArgs {
    /// A results directory or its results.csv.
    results: PathBuf,
    /// The metric: regret, regret_auc, solved_at or value.
    #[arg(long, default_value = "regret", value_parser = metric_arg)]
    metric: Metric,
    /// The parameters (comma separated); default: every parameter but the seat.
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    by: Vec<String>,
    /// Write the table as CSV to standard output (numbers in full).
    #[arg(long)]
    csv: bool,
}

/// Runs `sweep importance`.
pub fn importance(args: &ImportanceArgs) -> Result<i32> {
    let dir = super::reproduce::results_dir(&args.results)?;
    let columns = config_columns(&args.by);
    let bad = |e: anyhow::Error| bad_input(format!("{e:#}"));
    let results = dir.join("results.csv");
    let blocks =
        read_blocks_in(&results, args.metric, &block_columns(), &columns, crate::spec::Split::Tune).map_err(bad)?;
    let mut header: Vec<String> = block_columns().iter().map(|c| c.to_string()).collect();
    header.extend(["term", "share"].map(String::from));
    let mut table: Vec<Record> = Vec::new();
    for block in &blocks {
        if block.varying().is_empty() {
            continue;
        }
        let (factors, grid) = block_grid(block, &columns).map_err(bad)?;
        for term in grid.importance() {
            let names: Vec<&str> = term.factors.iter().map(|&f| columns[factors[f]]).collect();
            let mut r = block.key.clone();
            r.extend([names.join(":"), number_format(args.csv)(term.share)]);
            table.push(r);
        }
    }
    if table.is_empty() {
        return Err(bad_input(format!("{}: no block has a parameter that varies", dir.display())));
    }
    if args.csv {
        print!("{}", encode(std::iter::once(header).chain(table)));
        return Ok(exit::OK);
    }
    print_table(&header, &table);
    println!(
        "share: of the variance of the mean {} over the grid, by main effect (one column) and pairwise interaction \
         (a:b); higher-order interactions take the rest",
        args.metric.name()
    );
    Ok(exit::OK)
}
