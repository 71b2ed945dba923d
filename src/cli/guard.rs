//! What `sweep run` checks before it starts: the schedule warnings (see `schedule.rs`,
//! printed on stderr, never failing) and the cost guard.
//!
//! The cost guard: when `sweep plan`'s estimate ([`super::plan::estimate`]) of the jobs
//! this invocation runs (all of the spec's, or a shard's share) exceeds an hour of wall
//! time on its threads, `run` asks before starting when stdin is a terminal, and otherwise
//! needs `--yes` (bad input, exit 2, with the estimate in the message). Measuring this
//! machine takes about 0.4 s, so it happens only when the estimate at nominal speeds is
//! within a factor of four of an hour. `--only` runs named jobs and skips the guard; a spec
//! of more than `run::HUGE` jobs without `--yes` is left to the executor's own refusal.

use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

use anyhow::Result;

use super::plan::{HOUR, estimate, human};
use super::schedule;
use crate::bench::Calibration;
use crate::error::bad_input;
use crate::run::{HUGE, Notices, RunOptions, shard_from_env};
use crate::spec::{self, Sweep};

/// Below this nominal estimate the machine is not measured.
const NEAR_AN_HOUR: f64 = HOUR / 4.0;

/// What to do about a run's estimated cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Start.
    Go,
    /// Ask on the terminal.
    Ask,
    /// Refuse: more than an hour, no `--yes` and no terminal to ask on.
    Refuse,
}

/// The decision for an estimate of `wall_seconds`.
pub fn decide(wall_seconds: f64, yes: bool, terminal: bool) -> Decision {
    match (wall_seconds > HOUR, yes, terminal) {
        (false, _, _) | (true, true, _) => Decision::Go,
        (true, false, true) => Decision::Ask,
        (true, false, false) => Decision::Refuse,
    }
}

/// Prints the schedule warnings and applies the cost guard. `Ok(false)`: the user said no.
/// A spec that does not load is left to `run::run`, which reports it.
pub fn before_run(opts: &RunOptions) -> Result<bool> {
    let Ok(sweep) = spec::load(&opts.spec) else { return Ok(true) };
    for warning in schedule::warnings(&sweep).into_iter().chain(super::plan::search_warnings(&sweep)) {
        eprintln!("warning: {warning}");
    }
    let threads = match opts.threads {
        Some(0) => return Ok(true),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    if opts.yes || !opts.only.is_empty() || sweep.job_count() > HUGE {
        return Ok(true);
    }
    let shards = match opts.shard {
        Some(s) => s.count,
        None => shard_from_env(|k| std::env::var(k).ok(), &Notices::Silent).ok().flatten().map_or(1, |s| s.count),
    };
    let wall = |cal: &Calibration| estimate(&sweep, threads, cal).wall_seconds / f64::from(shards);
    if wall(&crate::bench::nominal()) < NEAR_AN_HOUR {
        return Ok(true);
    }
    let seconds = wall(&crate::bench::calibration(Duration::from_millis(400)));
    let terminal = std::io::stdin().is_terminal();
    match decide(seconds, opts.yes, terminal) {
        Decision::Go => Ok(true),
        Decision::Ask => ask(&sweep, opts, seconds, threads),
        Decision::Refuse => Err(bad_input(format!(
            "{}: `sweep plan` estimates {} of wall time on {threads} threads ({} jobs), more than an hour; \
             add --yes to run it anyway, or shrink the grids, samples or replicates",
            opts.spec.display(),
            human(seconds),
            sweep.job_count()
        ))),
    }
}

/// Asks on the terminal whether to start; true for yes.
fn ask(sweep: &Sweep, opts: &RunOptions, seconds: f64, threads: usize) -> Result<bool> {
    eprint!(
        "{} has {} jobs; `sweep plan` estimates {} on {threads} threads. Start? [y/N] ",
        opts.spec.display(),
        sweep.job_count(),
        human(seconds)
    );
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    let yes = matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes");
    if !yes {
        eprintln!("not started");
    }
    Ok(yes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_an_hour_asks_or_needs_yes() {
        assert_eq!(decide(10.0, false, false), Decision::Go);
        assert_eq!(decide(HOUR, false, false), Decision::Go);
        assert_eq!(decide(HOUR + 1.0, true, false), Decision::Go);
        assert_eq!(decide(HOUR + 1.0, false, true), Decision::Ask);
        assert_eq!(decide(HOUR + 1.0, false, false), Decision::Refuse);
    }
}
