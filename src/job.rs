//! A job: one solver, one grid point, one replicate, with its paired seed and stable id,
//! and whether it tunes or tests. The spec reader makes the jobs (`spec::Sweep::jobs`);
//! the searches, the executor and the command line take them from here.

use crate::kinds::Params;

/// Whether a job tunes (chooses configurations) or tests (re-runs a chosen one on fresh
/// seeds, see `[test]`): the `split` column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    /// A job of the grid or of a search's rungs.
    Tune,
    /// A job of the `[test]` pass.
    Test,
}

impl Split {
    /// The spelling in the `split` column.
    pub fn name(self) -> &'static str {
        match self {
            Split::Tune => "tune",
            Split::Test => "test",
        }
    }
}

/// What ends a test job's canonical key (a tuning job's key has no `split`).
pub const TEST_KEY: &str = ";split=test";

/// One run: a grid point of a solver and a replicate.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Position in the spec's jobs (`Sweep::jobs`, spec order).
    pub index: usize,
    /// Index of the solver in the spec's solvers (`Sweep::solvers`).
    pub solver: usize,
    /// Index of the grid point in the solver's `points`.
    pub point: usize,
    /// The replicate, `0..replicates`.
    pub replicate: u32,
    /// `seed::job_seed(master seed, replicate)`: the same at every grid point.
    pub seed: u64,
    /// `seed::job_id` of the canonical key of the parameters, master seed and replicate.
    pub id: String,
    /// The parameters.
    pub params: Params,
    /// The rung of a search (`None` without a `[search]`, and for test jobs).
    pub rung: Option<u32>,
    /// A search's trial (the configuration's number within its solver) and the round
    /// (pass) it runs in; `None` for a grid and for test jobs.
    pub trial: Option<(u32, u32)>,
    /// Tuning or test: a test job's seed is [`crate::seed::test_seed`] and its key ends in
    /// `;split=test`.
    pub split: Split,
}
