//! `sweep summary`: one line per configuration, aggregated over replicates, best first
//! within each solver.

use std::path::PathBuf;

use anyhow::Result;

use crate::error::{bad_input, exit};
use crate::report::files::{each_row, encode};
use crate::report::summary::{Aggregator, NEEDED_COLUMNS, config_columns};
use crate::report::{RESULT_COLUMNS, Record};

/// Flags of `sweep summary`.
#[derive(clap::Args, Debug)]
pub struct SummaryArgs {
    /// A results directory or its results.csv.
    results: PathBuf,
    /// Group by these columns (comma separated); default: every parameter, seat and eval_opponent.
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    by: Vec<String>,
    /// Write the table as CSV to standard output.
    #[arg(long)]
    csv: bool,
}

fn num(x: f64) -> String {
    if x.is_nan() { String::new() } else { format!("{x:.6}") }
}

/// Runs `sweep summary`.
pub fn summary(args: &SummaryArgs) -> Result<i32> {
    let dir = super::reproduce::results_dir(&args.results)?;
    let by: Vec<&str> = if args.by.is_empty() {
        config_columns()
    } else {
        for c in &args.by {
            if !RESULT_COLUMNS.contains(&c.as_str()) {
                return Err(bad_input(format!("--by {c}: no such column; columns are {}", RESULT_COLUMNS.join(", "))));
            }
        }
        args.by.iter().map(String::as_str).collect()
    };
    // One row at a time: a results file of millions of rows is never held. A file of an
    // older version reads as if the columns it lacks were empty.
    let mut agg = Aggregator::new(&by);
    each_row(&dir.join("results.csv"), &RESULT_COLUMNS, &NEEDED_COLUMNS, |rec| agg.push(|i| &rec[i]))
        .map_err(|e| bad_input(format!("{e:#}")))?;
    if agg.rows() == 0 {
        return Err(bad_input(format!("{}: results.csv has no rows yet", dir.display())));
    }
    let groups = agg.groups();
    // Show the grouping columns that vary (all of them with --by or --csv).
    let show: Vec<usize> = if args.csv || !args.by.is_empty() {
        (0..by.len()).collect()
    } else {
        // Columns that vary within some solver, plus the solver and the evaluation.
        let mut show = agg.varying_within_kinds();
        let always = ["solver", "seat", "eval_opponent"];
        show.extend((0..by.len()).filter(|&k| always.contains(&by[k])));
        show.sort_unstable();
        show.dedup();
        show
    };
    let mut header: Vec<String> = show.iter().map(|&k| by[k].to_string()).collect();
    header.extend(
        ["n", "failed", "mean_regret", "sd_regret", "ci95_low", "ci95_high", "p_win", "p_draw", "p_loss", "train_ms"]
            .map(String::from),
    );
    let table: Vec<Record> = groups
        .iter()
        .map(|g| {
            let mut r: Record = show.iter().map(|&k| g.key[k].clone()).collect();
            r.extend([
                g.n.to_string(),
                g.failed.to_string(),
                num(g.mean_regret),
                num(g.sd_regret),
                num(g.mean_regret - g.ci95),
                num(g.mean_regret + g.ci95),
                num(g.p[0]),
                num(g.p[1]),
                num(g.p[2]),
                if g.train_ms.is_nan() { String::new() } else { format!("{:.1}", g.train_ms) },
            ]);
            r
        })
        .collect();
    if args.csv {
        print!("{}", encode(std::iter::once(header).chain(table)));
        return Ok(exit::OK);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| table.iter().map(|r| r[c].len()).chain([header[c].len()]).max().unwrap_or(0))
        .collect();
    let line = |r: &Record| r.iter().zip(&widths).map(|(s, w)| format!("{s:<w$}")).collect::<Vec<_>>().join("  ");
    println!("{}", line(&header).trim_end());
    for r in &table {
        println!("{}", line(r).trim_end());
    }
    let failed: usize = groups.iter().map(|g| g.failed).sum();
    println!(
        "{} configurations from {} rows{}; ci95 is the Student-t 95% interval of the mean regret over replicates",
        groups.len(),
        agg.rows(),
        if failed > 0 {
            format!(", {failed} failed rows (counted in `failed`, not in the means)")
        } else {
            String::new()
        }
    );
    Ok(exit::OK)
}
