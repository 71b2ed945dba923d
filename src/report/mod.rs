//! The result files: `results.csv`, `curves.csv` and `manifest.json`.
//!
//! Rows are plain vectors of strings in the fixed column order, built once by [`rows`] and
//! written by [`files`]; numbers are printed in Rust's shortest round-trip form so that a
//! value read back parses to the same bits and a re-run can be compared cell by cell.

pub mod columns;
pub mod files;
pub mod manifest;
pub mod rows;
pub mod summary;

/// The columns of `results.csv`, in order.
pub const RESULT_COLUMNS: [&str; 36] = [
    "job_id",
    "solver",
    "replicate",
    "seed",
    "seat",
    "opponent",
    "episodes",
    "alpha",
    "alpha_decay",
    "alpha_min",
    "gamma",
    "epsilon",
    "epsilon_decay",
    "epsilon_min",
    "q_init",
    "symmetry",
    "iterations",
    "uct_c",
    "opponent_model",
    "final_move",
    "eval_opponent",
    "value",
    "optimal_value",
    "regret",
    "p_win",
    "p_draw",
    "p_loss",
    "games",
    "wins",
    "draws",
    "losses",
    "states",
    "status",
    "error",
    "train_ms",
    "eval_ms",
];

/// The columns of `curves.csv`, in order.
pub const CURVE_COLUMNS: [&str; 11] =
    ["job_id", "episode", "seat", "eval_opponent", "value", "regret", "p_win", "p_draw", "p_loss", "epsilon", "alpha"];

/// The columns that hold timings: the only ones that may differ between two runs.
pub const TIMING_COLUMNS: [&str; 2] = ["train_ms", "eval_ms"];

/// Position of a results column.
pub fn column(name: &str) -> usize {
    RESULT_COLUMNS.iter().position(|&c| c == name).unwrap_or_else(|| panic!("no column {name}"))
}

/// A row of either file: one string per column.
pub type Record = Vec<String>;

#[cfg(test)]
mod tests {
    #[test]
    fn the_parameter_columns_sit_between_seed_and_eval_opponent() {
        assert_eq!(super::RESULT_COLUMNS[4..20], crate::solvers::params::PARAM_COLUMNS);
        assert_eq!(super::RESULT_COLUMNS[20], "eval_opponent");
    }
}
