//! `sweep fidelity`: on a full grid with learning curves, how well the ranking of
//! configurations at each checkpoint predicts the final ranking (Spearman's rho, see
//! [`crate::report::fidelity`]), so that a user can see whether successive halving could
//! pick the winner from short runs before trusting it with a search.

use std::path::PathBuf;

use anyhow::Result;

use super::table::{FormatArgs, print};
use crate::error::{bad_input, exit};
use crate::report::fidelity::fidelity as checkpoints;
use crate::report::paired_runs::block_columns;
use crate::report::table::{Cell, Column, Table};
use crate::solvers::params::fmt_f64;

/// Flags of `sweep fidelity`.
#[derive(clap::Args, Debug)]
pub struct FidelityArgs {
    /// A results directory of a full grid (not a search) whose learners wrote curves.csv.
    results: PathBuf,
    #[command(flatten)]
    verification: super::reproduce::Verification,
    #[command(flatten)]
    format: FormatArgs,
}

/// What `--help` says after the flags.
pub const HELP: &str = "\
How to read it: for every block (solver, seat, evaluation opponent, game, episodes), each
row is one checkpoint episode of the learners' curves. Configurations (every other
parameter) are ranked by their mean regret over replicates at that checkpoint and at the
end of training; spearman is the rank correlation of the two rankings (1: the checkpoint
already ranks them as the end does; near 0: it says nothing about the end; below 0: it
misleads), and final_best_rank is where the configuration that is best at the end stands
at that checkpoint (1 = first). Successive halving with eta keeps the best 1/eta of each
rung: it can only find the winner if, at its first rung's share of the budget, spearman is
high and final_best_rank is within the kept share. With per-episode decays (_decay) a
checkpoint at episode e is exactly what a rung of e episodes would see (a rung is the
first e episodes of the run). With budget-relative schedules (_min_at) a rung is instead
a scaled copy of the whole run, which a checkpoint is not: there the table tells how far
the partly trained runs already agree with the end, not what each rung will see.

Examples:
  sweep fidelity results/qlearning
  sweep fidelity results/qlearning --csv > fidelity.csv
  sweep fidelity results/qlearning --format markdown";

/// Runs `sweep fidelity`.
pub fn fidelity(args: &FidelityArgs) -> Result<i32> {
    let dir = super::reproduce::results_dir(&args.results, args.verification)?;
    let rows = checkpoints(&dir).map_err(|e| match e.downcast_ref::<crate::error::BadInput>() {
        Some(_) => e,
        None => bad_input(format!("{e:#}")),
    })?;
    if rows.is_empty() {
        return Err(bad_input(format!(
            "{}: no block has three or more configurations with curves: fidelity ranks the configurations of a \
             grid (same solver, seat, evaluation opponent, game and episodes)",
            dir.display()
        )));
    }
    let mut columns: Vec<Column> = block_columns().iter().chain(&["episodes"]).map(|c| Column::key(c)).collect();
    columns.extend([Column::integers("episode"), Column::numbers("share"), Column::integers("configurations")]);
    columns.extend([Column::numbers("spearman"), Column::numbers("final_best_rank")]);
    let mut table = Table::new("fidelity: how well each checkpoint's ranking predicts the final one", columns);
    // Numbers shown rounded and written in full as `results.csv` writes a real.
    let number = |x: f64, digits: usize| Cell::Shown { text: format!("{x:.digits$}"), full: fmt_f64(x) };
    for c in &rows {
        let episodes: f64 = c.block.last().and_then(|e| e.parse().ok()).unwrap_or(f64::NAN);
        let mut r: Vec<Cell> = c.block.iter().zip(&table.columns).map(|(v, k)| Cell::key(v, k.numeric())).collect();
        r.extend([
            Cell::int(c.episode as usize),
            number(c.episode as f64 / episodes, 3),
            Cell::int(c.configurations),
            c.spearman.map_or(Cell::Missing, |rho| number(rho, 3)),
            number(c.final_best_rank, 1),
        ]);
        table.push(r);
    }
    table.notes.push(
        "spearman: rank correlation between the ranking by mean regret at the checkpoint and the final one (empty: \
         every score equal); final_best_rank: the final best's rank at the checkpoint; see --help"
            .into(),
    );
    print(&table, args.format.format());
    Ok(exit::OK)
}
