//! `sweep importance`: within each block (solver, seat, evaluation opponent), the share
//! of the metric's variance over the grid explained by each parameter's main effect and by
//! each pair's interaction (functional ANOVA, [`crate::stats::anova`]), from each
//! configuration's mean over its replicates. Only a full grid can be decomposed this way:
//! the tuning rows (a `[test]` table's rows re-run a few configurations only). [`table`]
//! computes the shares as a [`Table`]; the command prints it in the `--format` asked.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::compare::{config_columns, metric_arg};
use super::table::FormatArgs;
use crate::error::{bad_input, exit};
use crate::report::ParamColumn;
use crate::report::paired_runs::{Metric, block_columns, block_grid, read_blocks_in};
use crate::report::table::{Cell, Column, Table};

/// Flags of `sweep importance`.
#[derive(clap::Args, Debug)]
pub struct ImportanceArgs {
    /// A results directory or its results.csv.
    results: PathBuf,
    #[command(flatten)]
    verification: super::reproduce::Verification,
    /// The metric: regret, regret_auc, solved_at or value.
    #[arg(long, default_value = "regret", value_parser = metric_arg)]
    metric: Metric,
    /// The parameters (comma separated); default: every parameter but the seat.
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    by: Vec<String>,
    #[command(flatten)]
    output: FormatArgs,
}

/// Runs `sweep importance`.
pub fn importance(args: &ImportanceArgs) -> Result<i32> {
    let dir = super::reproduce::results_dir(&args.results, args.verification)?;
    super::table::print(&table(&dir, args.metric, &args.by)?, args.output.format());
    Ok(exit::OK)
}

/// Replaces a command solver's `params` column (`name=value ..`) by one column per
/// program parameter, in every block's configurations, so that each is a factor of its
/// own; returns the columns after the split (`columns` as they were without `params`).
fn split_program_params(blocks: &mut [crate::report::paired_runs::Block], columns: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
    let Some(at) = columns.iter().position(|&c| c == ParamColumn::Params.name()) else { return out };
    let pairs = |cell: &str| -> Vec<(String, String)> {
        cell.split(' ').filter_map(|p| p.split_once('=')).map(|(n, v)| (n.to_string(), v.to_string())).collect()
    };
    let mut names: Vec<String> = Vec::new();
    for c in blocks.iter().flat_map(|b| &b.configs) {
        for (name, _) in pairs(&c.key[at]) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    for c in blocks.iter_mut().flat_map(|b| b.configs.iter_mut()) {
        let own = pairs(&c.key[at]);
        c.key.remove(at);
        c.key.extend(names.iter().map(|n| own.iter().find(|(m, _)| m == n).map(|p| p.1.clone()).unwrap_or_default()));
    }
    out.remove(at);
    out.extend(names);
    out
}

/// The importance of the parameters `by` (empty: every parameter but the seat) for
/// `metric` in the results in `dir`: one row per block and term, what a share is as a note.
pub fn table(dir: &Path, metric: Metric, by: &[String]) -> Result<Table> {
    let columns = config_columns(by);
    let bad = |e: anyhow::Error| bad_input(format!("{e:#}"));
    let results = dir.join("results.csv");
    let mut blocks =
        read_blocks_in(&results, metric, &block_columns(), &columns, crate::job::Split::Tune).map_err(bad)?;
    let split = split_program_params(&mut blocks, &columns);
    let columns: Vec<&str> = split.iter().map(String::as_str).collect();
    let mut header: Vec<Column> = block_columns().iter().map(|&c| Column::key(c)).collect();
    header.extend([Column::text("term"), Column::numbers("share")]);
    let mut table = Table::new(format!("Importance: shares of the variance of the mean {}", metric.name()), header);
    let mut flat = Vec::new();
    for block in &blocks {
        if block.varying().is_empty() {
            continue;
        }
        let (factors, grid) = block_grid(block, &columns).map_err(bad)?;
        let terms = grid.importance();
        if terms.iter().all(|t| t.share.is_nan()) {
            flat.push(block.key.join("/"));
        }
        for term in terms {
            let names: Vec<&str> = term.factors.iter().map(|&f| columns[factors[f]]).collect();
            let mut r: Vec<Cell> = block.key.iter().map(|k| Cell::key(k, false)).collect();
            r.extend([Cell::Text(names.join(":")), Cell::Float(term.share)]);
            table.push(r);
        }
    }
    if table.rows.is_empty() {
        return Err(bad_input(format!("{}: no block has a parameter that varies", dir.display())));
    }
    table.notes.push(format!(
        "share: of the variance of the mean {} over the grid, by main effect (one column) and pairwise interaction \
         (a:b); higher-order interactions take the rest",
        metric.name()
    ));
    if !flat.is_empty() {
        table.notes.push(format!(
            "no share (empty) where the mean {} is the same for every configuration of the grid: {}",
            metric.name(),
            flat.join(", ")
        ));
    }
    Ok(table)
}
