//! Specs: a TOML file turned into a validated [`Sweep`] and its list of
//! [`Job`](crate::job::Job)s.
//!
//! ```
//! let spec = r#"
//!     seed = 7
//!     replicates = 2
//!     [[solver]]
//!     kind = "q-learning"
//!     alpha = [0.1, 0.5]
//!     gamma = { linspace = [0.9, 1.0, 3] }
//! "#;
//! let sweep = sweep::spec::parse(spec, "demo.toml").unwrap();
//! assert_eq!(sweep.name, "demo");
//! assert_eq!(sweep.job_count(), 2 * 3 * 2);
//! let jobs = sweep.jobs();
//! assert_eq!(jobs[0].id.len(), 12);
//!
//! let err = sweep::spec::parse("[[solver]]\nkind = \"q-learning\"\nalpha = 1.5\n", "x.toml").unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "x.toml:3: solver[1].alpha = 1.5 is out of range: alpha must be in (0, 1] (the initial step size)."
//! );
//! ```
//!
//! The format, with the choices this module makes where the design leaves them open:
//!
//! - Top level: `name` (default: the file's stem), `seed` (a TOML integer, so
//!   `0..=i64::MAX`; default 0), `replicates` (default 1), `[evaluation]` (`opponents`,
//!   fixed opponents and `"best-response"`, default `["random"]`; `games`, default 0; `checkpoints`, default 10, at most the
//!   episodes of every q-learning grid point; `checkpoint_spacing`, `"even"` (default) or
//!   `"log"`; `exact_searches`, default 50,000) and one or more `[[solver]]` tables.
//! - A solver has a `kind`, an optional `label`, an optional `replicates` (its own, instead
//!   of the top-level value; the ids of the replicates both have are the same) and the
//!   parameters of its kind, each a scalar or a grid axis: a non-empty list of distinct
//!   values, `{ linspace = [from, to, n] }`, `{ logspace = [from_exp, to_exp, n] }` or
//!   `{ one_minus_logspace = [from_exp, to_exp, n] }` (see `axis.rs`), or a sampled form
//!   (`uniform`, `loguniform`, `one_minus_loguniform`, `int_uniform`, `int_loguniform`,
//!   `choice`; see `sample.rs`). Whole-number parameters also accept whole floats
//!   (`episodes = 1e4`), and a `linspace` or `logspace` of them is rounded to whole numbers
//!   (repeats dropped; [`Sweep::notes`] says so). Missing parameters take their defaults.
//!   In messages, `solver[1]` is the first `[[solver]]` table.
//! - A solver with a sampled axis needs `samples = N` (and may set `sampler = "random"`,
//!   the default, or `"sobol"`); a solver without one may set neither. Its grid is the
//!   product of its list axes with its distinct drawn points, the sample varying slowest.
//!   The points are drawn when the spec is read, from the master seed and the solver's
//!   label only, and raising `samples` keeps the first ones (prefix stability).
//! - `[search]` (see `search/mod.rs`, one file per method): successive halving or Hyperband
//!   over the solvers' budget parameter, which the solvers then may not set.
//!   [`Sweep::jobs`] lists every grid point at every rung's budget (rung by rung, each rung
//!   in the usual order): the jobs a search may run, of which [`crate::search`] picks
//!   those it does run.
//! - `[test]` (see `test_table.rs`): after tuning (the grid, or the search's last rung),
//!   the best `top` configurations (per solver entry by default) re-run at the full budget
//!   on `replicates` fresh seeds. [`Sweep::jobs`] then ends with every configuration's
//!   test jobs (split `test`), of which [`crate::search::test_pass`] picks those that run.
//! - Default labels: the kind's name if that kind occurs once, else `<kind>-<n>` for its
//!   n-th occurrence (counting labelled solvers too). Labels must be distinct.
//! - A q-learning solver whose `opponent` includes `self` may not set `seat`: self-play
//!   plays both seats.
//! - A solver's grid points are the cartesian product of its axes, the first axis in
//!   order of the kind's parameters varying slowest. Jobs: for each solver in file order, for each
//!   point, for each replicate. Two solvers that share a grid point would share job ids:
//!   an error. A sweep has at most [`MAX_JOBS`] jobs.
//!
//! Every problem is collected before failing; see [`SpecError`].
//!
//! The parameters, their types, ranges and defaults are declared once, in
//! [`crate::kinds::param`]. The files: `tree.rs` (TOML with spans), `axis.rs` (one axis),
//! `sample.rs` (sampled forms and the draws, by [`crate::stats::sobol`] for `"sobol"`),
//! `solver.rs` (one `[[solver]]`), `validate.rs` (the whole spec), `across.rs` (checks
//! across solvers), `grid.rs` (a solver's grid), `jobs.rs` (the job list), `error.rs`
//! (problems and their messages).

mod across;
mod axis;
pub mod command_solver;
mod error;
mod grid;
mod jobs;
pub(crate) mod policy_file;
pub(crate) mod sample;
pub mod search;
mod solver;
pub mod test_table;
mod tree;
mod validate;
mod values;

pub(crate) use values::range_rule;

use std::path::Path;

/// The closest of some names to a word, when it is close enough to be a likely typo.
pub use error::closest as closest_name;
pub use error::{Problem, SpecError};
pub use search::{Bracket, METHODS, Method, Metric, SearchMethod, SearchSpec};
pub use test_table::{Per, TestSpec};

use crate::kinds::{Kind, Params};
use crate::solvers::spacing::Spacing;

pub use crate::evaluation::{EXACT_SEARCHES, EvaluationSpec, SAMPLED_GAMES};
pub use policy_file::PolicyFile;
pub use validate::start_position;

/// The most jobs one sweep may have: larger grids are refused when the spec is read, before
/// anything is listed (a sweep this size holds its points and jobs in about 0.5 GB).
pub const MAX_JOBS: u64 = 2_000_000;

/// A validated sweep: everything needed to list its jobs.
///
/// Treat it as read-only: [`Sweep::jobs`], [`Sweep::resolved`] and [`Sweep::hash`] describe
/// the spec as parsed, whatever is done to the public fields afterwards.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// The results go to `results/<name>/`.
    pub name: String,
    /// The master seed.
    pub seed: u64,
    /// Runs per grid point, >= 1 (a solver may set its own: [`SolverSpec::replicates`]).
    pub replicates: u32,
    /// How some values of the spec were read (integer axes rounded, samples drawn), in
    /// words for `sweep plan`.
    pub notes: Vec<String>,
    /// How every job is evaluated.
    pub evaluation: EvaluationSpec,
    /// The solvers, in file order.
    pub solvers: Vec<SolverSpec>,
    /// Successive halving or Hyperband over the solvers' budget parameter (`[search]`);
    /// the solvers' points then hold `max_budget`, and [`Sweep::jobs`] lists every point
    /// at every rung's budget (see `search/mod.rs` and [`crate::search`]).
    pub search: Option<SearchSpec>,
    /// The best configurations re-run on fresh seeds after tuning (`[test]`); then
    /// [`Sweep::jobs`] ends with every configuration's test jobs at the full budget, of
    /// which [`crate::search::test_pass`] picks those that run.
    pub test: Option<TestSpec>,
    /// The spec as resolved (see [`Sweep::resolved`]).
    resolved: serde_json::Value,
    /// The solvers' axes, from which [`Sweep::jobs`] builds job keys.
    grids: Vec<grid::Grid>,
}

/// One `[[solver]]` table with its grid expanded.
#[derive(Clone, Debug, PartialEq)]
pub struct SolverSpec {
    /// The label, unique within the sweep.
    pub label: String,
    /// The kind.
    pub kind: Kind,
    /// The grid points, in order (first axis slowest; with sampled axes, the sample
    /// slowest of all).
    pub points: Vec<Params>,
    /// Runs per grid point: its own `replicates`, else the top-level value.
    pub replicates: u32,
}

/// Reads and validates the spec at `path`.
///
/// A missing file, a directory or a file that is not UTF-8 text is an error naming the
/// path.
pub fn load(path: &Path) -> Result<Sweep, SpecError> {
    let file = path.display().to_string();
    if path.is_dir() {
        return Err(SpecError::whole_file(
            &file,
            "is a directory, not a spec file: give the path of a .toml spec".into(),
        ));
    }
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|_| SpecError::whole_file(&file, "cannot be read: it is not UTF-8 text".into()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SpecError::whole_file(&file, "does not exist: give the path of a .toml spec".into()));
        }
        Err(e) => return Err(SpecError::whole_file(&file, format!("cannot be read: {e}"))),
    };
    parse(&text, &file)
}

/// Validates the spec `text`; `file` names it in messages and gives the default name.
pub fn parse(text: &str, file: &str) -> Result<Sweep, SpecError> {
    let checked = validate::check(text, file)?;
    let solvers = checked
        .solvers
        .iter()
        .map(|s| SolverSpec {
            label: s.label.clone(),
            kind: s.grid.kind,
            points: s.grid.points(),
            replicates: s.replicates.unwrap_or(checked.replicates),
        })
        .collect();
    let mut resolved = serde_json::json!({
        "name": checked.name,
        "seed": checked.seed,
        "replicates": checked.replicates,
        "evaluation": {
            "opponents": checked.evaluation.opponents.iter().map(|o| o.key()).collect::<Vec<_>>(),
            "games": checked.evaluation.games,
            "checkpoints": checked.evaluation.checkpoints,
        },
        "solvers": checked.solvers.iter().map(resolved_solver).collect::<Vec<_>>(),
    });
    if checked.evaluation.spacing != Spacing::Even {
        // Only when set: the hash of a spec without it stays what it was.
        resolved["evaluation"]["checkpoint_spacing"] = checked.evaluation.spacing.name().into();
    }
    if checked.evaluation.exact_searches != EXACT_SEARCHES {
        resolved["evaluation"]["exact_searches"] = checked.evaluation.exact_searches.into();
    }
    if let Some(from) = &checked.evaluation.from {
        resolved["evaluation"]["from"] = from.clone().into();
    }
    if let (Some(search), Some(object)) = (&checked.search, resolved.as_object_mut()) {
        object.insert("search".into(), search.to_json());
    }
    if let (Some(test), Some(object)) = (&checked.test, resolved.as_object_mut()) {
        object.insert("test".into(), test.to_json());
    }
    Ok(Sweep {
        name: checked.name,
        seed: checked.seed,
        replicates: checked.replicates,
        notes: checked.notes,
        evaluation: checked.evaluation,
        solvers,
        search: checked.search,
        test: checked.test,
        resolved,
        grids: checked.solvers.into_iter().map(|s| s.grid).collect(),
    })
}

/// A solver's resolved form; `replicates` appears only when the solver sets its own (so
/// the resolved form, and the hash, of a spec without the newer keys stay as they were).
fn resolved_solver(solver: &validate::CheckedSolver) -> serde_json::Value {
    let mut json = solver.grid.to_json(&solver.label);
    if let (Some(replicates), Some(object)) = (solver.replicates, json.as_object_mut()) {
        object.insert("replicates".into(), replicates.into());
    }
    json
}

impl Sweep {
    /// The spec as resolved: `name`, `seed`, `replicates`, `evaluation` (`opponents`,
    /// `games`, `checkpoints`, and `checkpoint_spacing` unless it is `even`) and `solvers`, each with `label`, `kind` and every
    /// parameter of its kind as the list of its axis values (defaults included).
    pub fn resolved(&self) -> serde_json::Value {
        self.resolved.clone()
    }

    /// The saved policy files its opponents read (training and evaluation), each once, in
    /// the order first met.
    pub fn policies(&self) -> Vec<PolicyFile> {
        let training = self.solvers.iter().flat_map(|s| s.points.iter()).flat_map(|p| p.values());
        let names = training.filter_map(|v| match v {
            crate::kinds::Val::Name(s) if s.starts_with("policy:") => crate::mdp::Opponent::from_name(s),
            _ => None,
        });
        let mut files: Vec<PolicyFile> = Vec::new();
        for opponent in self.evaluation.opponents.iter().filter_map(|o| o.fixed()).chain(names) {
            if let crate::mdp::Opponent::Policy(p) = opponent {
                if !files.iter().any(|f| f.path == p.path) {
                    files.push(PolicyFile { path: p.path.clone(), fnv1a: format!("{:016x}", p.hash) });
                }
            }
        }
        files
    }

    /// The columns of the program parameters of its command solvers, appended to
    /// `results.csv` after every fixed column: each name once, in spec order.
    pub fn extra_columns(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for program in self.grids.iter().filter_map(|g| g.program) {
            for p in program.own() {
                if !names.contains(&p.name) {
                    names.push(p.name);
                }
            }
        }
        names
    }

    /// The header of its `results.csv`: today's fixed columns, then [`Sweep::extra_columns`].
    pub fn result_header(&self) -> Vec<&'static str> {
        let mut header = crate::schema::RESULT_COLUMNS.clone();
        header.extend(self.extra_columns());
        header
    }

    /// The programs of its command solvers, in spec order.
    pub fn programs(&self) -> Vec<&'static crate::kinds::Program> {
        self.grids.iter().filter_map(|g| g.program).collect()
    }

    /// 16 hex digits of the FNV-1a hash of the canonical JSON of [`Sweep::resolved`]
    /// (object keys sorted, no whitespace).
    pub fn hash(&self) -> String {
        let mut text = String::new();
        grid::canonical_json(&self.resolved, &mut text);
        format!("{:016x}", crate::seed::fnv1a(text.as_bytes()))
    }
}

#[cfg(test)]
mod grid_tests;
#[cfg(test)]
mod problem_tests;
#[cfg(test)]
mod sampled_tests;
