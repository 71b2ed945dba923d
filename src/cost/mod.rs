//! What a job costs: every estimate of time and memory. [`memory`] counts bytes (a job's
//! own and the tables jobs share); [`mcts`] holds MCTS's scaling law; this file is time.
//!
//! The one time model: what a job does ([`Load`], described by its kind), the game's
//! figures and this machine's [`Calibration`] turned into seconds by one pure function,
//! [`seconds`]; and the shared tables a run builds before its first job
//! ([`shared_seconds`]). `sweep plan`, `run`'s cost guard and the longest-job-first
//! order all read it.
//!
//! The terms, each a count of the kind's work times a measured cost:
//!
//! - training: episodes (twice as many games in self-play) times the seconds of one
//!   tic-tac-toe Q-learning episode, divided by the learner's measured share of
//!   Q-learning's speed, times the board's length (cells over 9), times the slowdown of a
//!   table that outgrows the caches ([`slowdown`]);
//! - the first touch of the values' pages (a job's values start lazily zeroed, so it
//!   pays for the pages its episodes reach, at most all of them);
//! - exact evaluations (checkpoints and final rows): each walks the states the policy
//!   reaches, which grows with the board like its agent states to the power 3/4
//!   (measured for X against random: about 120 on tic-tac-toe, 700 to 2,400 on 3x4k4, 7,300
//!   to 17,000 on 4x4k4), at tic-tac-toe's measured cost per state;
//! - passes over every slot of a table (`q_error` against an on-policy learner's own
//!   behaviour), solves of an MDP (exact kinds), MCTS searches (their scaling law,
//!   [`mcts::mcts_load`], from the reach of tic-tac-toe's optimal policy,
//!   [`mcts::tic_tac_toe_reach`]) and sampled games;
//! - a fixed cost per job.
//!
//! The calibration is measured in-process at `plan` time (about half a second), or read
//! from a `sweep bench --save` result ([`Calibration::saved_path`]). Besides the kernels'
//! speeds it measures the cost of a fresh page and the host's other work (one spinning
//! thread per core for a moment), which turns the CPU estimate into a wall time.
//!
//! Not counted: two memory-bound jobs at once (4x4k4) slow each other on a host whose
//! cores share caches and memory (3-4 times on this project's 2-vCPU test host); the
//! estimate is per core, measured on one thread.

pub mod mcts;
pub mod memory;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::game::Game;
use crate::mdp::Seat;
use memory::Shared;

/// Values up to this size stay in the caches of a current core (its L2 and a share of
/// L3); beyond, a step waits for memory.
pub const CACHED_BYTES: u64 = 32 << 20;

/// A tabular learner's training, as the cost model counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Training {
    /// The learner's name (its share of Q-learning's speed: [`Calibration::share`]).
    pub learner: &'static str,
    /// Games played: episodes, twice as many in self-play.
    pub games: f64,
    /// The bytes of the job's own values.
    pub values: u64,
}

/// What one job does, described by its kind (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Load {
    /// The game.
    pub game: Game,
    /// Its seats' agent states over tic-tac-toe's (1 on tic-tac-toe).
    pub states_over_tic_tac_toe: f64,
    /// Tabular training, if it trains a table.
    pub training: Option<Training>,
    /// Exact evaluations of a table policy.
    pub evaluations: u64,
    /// Slots visited by full passes over a table (`q_error` against Q^π).
    pub passes: f64,
    /// Exact solves of an MDP, in tic-tac-toe solves (scaled by the agent states).
    pub solves: f64,
    /// MCTS searches and their iterations, in tic-tac-toe-length searches.
    pub search_iterations: f64,
    /// Sampled games, all rows together.
    pub sampled_games: u64,
}

impl Load {
    /// A job that does nothing yet on `game` for `seats`.
    pub fn new(game: Game, seats: &[Seat]) -> Load {
        Load {
            game,
            states_over_tic_tac_toe: states_over_tic_tac_toe(game, seats),
            training: None,
            evaluations: 0,
            passes: 0.0,
            solves: 0.0,
            search_iterations: 0.0,
            sampled_games: 0,
        }
    }
}

/// How many times more agent states `game` has than tic-tac-toe in `seats` (1 for
/// tic-tac-toe).
pub fn states_over_tic_tac_toe(game: Game, seats: &[Seat]) -> f64 {
    let states = |g: Game| seats.iter().map(|&s| memory::side(g, s).states).sum::<u64>() as f64;
    states(game) / states(Game::TIC_TAC_TOE).max(1.0)
}

/// This machine's costs (see the module doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Q-learning episodes per second on tic-tac-toe.
    pub q_per_s: f64,
    /// Each tabular learner's speed over Q-learning's, by name (measured by `sweep bench`;
    /// a learner it lacks counts at its reference share, [`crate::solvers::learners`]).
    /// An older saved file lists them in the learners' order of its day.
    #[serde(deserialize_with = "shares_by_name")]
    pub shares: BTreeMap<String, f64>,
    /// How many times slower a step is on a table far beyond the caches than on
    /// tic-tac-toe's, per cell of the board (see [`slowdown`]).
    pub big_table: f64,
    /// MCTS iterations per second (mid-game and opening mixed).
    pub mcts_per_s: f64,
    /// Seconds per exact evaluation on tic-tac-toe (the optimal policy, X against random).
    pub eval_s: f64,
    /// Seconds per exact solve on tic-tac-toe.
    pub solve_s: f64,
    /// Seconds per job beyond its work (setting it up, its rows).
    pub per_job_s: f64,
    /// Seconds per byte of shared tables built.
    pub shared_s_per_byte: f64,
    /// Seconds per fresh page (4 KiB) a job first touches.
    pub page_s: f64,
    /// The share of a core one thread got while the figures were measured (1 on a quiet
    /// host); the wall time of a run on this host now is its CPU time over what its
    /// threads get ([`wall_seconds`]).
    #[serde(default = "one")]
    pub free: f64,
    /// The other work on this host, in threads' worth, when one thread per core was
    /// busy for a moment of the calibration (each got `cores / (cores + others)` of a
    /// core); `None` where it was not measured, and [`wall_seconds`] infers it from
    /// `free`.
    #[serde(default)]
    pub others: Option<f64>,
    /// Where the figures come from, for people.
    pub source: String,
}

fn one() -> f64 {
    1.0
}

/// The learners in the order of a saved calibration that lists their shares (before they
/// were keyed by name).
const LISTED: [&str; 5] = ["q-learning", "sarsa", "expected-sarsa", "double-q-learning", "monte-carlo"];

/// `shares` as a map by name, or as a list in the order of [`LISTED`].
fn shares_by_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<BTreeMap<String, f64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Shares {
        ByName(BTreeMap<String, f64>),
        Listed(Vec<f64>),
    }
    Ok(match Shares::deserialize(d)? {
        Shares::ByName(map) => map,
        Shares::Listed(list) => LISTED.iter().zip(list).map(|(n, s)| (n.to_string(), s)).collect(),
    })
}

/// The figures of this machine with nothing running beside: what the constants of a
/// quick calibration are scaled from (by its measured Q-learning speed over this one).
pub const REFERENCE: Reference =
    Reference { q_per_s: 8e6, big_table: 60.0, per_job_s: 5e-5, shared_s_per_byte: 7e-9, page_s: 2e-6 };

/// See [`REFERENCE`].
#[derive(Clone, Copy, Debug)]
pub struct Reference {
    /// Tic-tac-toe Q-learning episodes per second.
    pub q_per_s: f64,
    /// See [`Calibration::big_table`].
    pub big_table: f64,
    /// See [`Calibration::per_job_s`].
    pub per_job_s: f64,
    /// See [`Calibration::shared_s_per_byte`].
    pub shared_s_per_byte: f64,
    /// See [`Calibration::page_s`].
    pub page_s: f64,
}

impl Calibration {
    /// The figures a quick measurement gives (`q_per_s`, `mcts_per_s`, `eval_s`,
    /// `solve_s`), the others from [`REFERENCE`] scaled by the measured speed.
    pub fn quick(q_per_s: f64, mcts_per_s: f64, eval_s: f64, solve_s: f64) -> Calibration {
        let slower = REFERENCE.q_per_s / q_per_s;
        Calibration {
            q_per_s,
            shares: BTreeMap::new(),
            big_table: REFERENCE.big_table,
            mcts_per_s,
            eval_s,
            solve_s,
            per_job_s: REFERENCE.per_job_s * slower,
            shared_s_per_byte: REFERENCE.shared_s_per_byte * slower,
            page_s: REFERENCE.page_s * slower,
            free: 1.0,
            others: None,
            source: "measured now (half a second)".into(),
        }
    }

    /// Where `sweep bench --save` keeps its calibration and `plan` looks for it:
    /// `$SWEEP_CALIBRATION` if set, else `$XDG_CACHE_HOME/sweep/calibration.json`, else
    /// `$HOME/.cache/sweep/calibration.json`.
    pub fn saved_path() -> Option<std::path::PathBuf> {
        let var = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(std::path::PathBuf::from);
        var("SWEEP_CALIBRATION").or_else(|| {
            let cache = var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache")))?;
            Some(cache.join("sweep").join("calibration.json"))
        })
    }

    /// The saved calibration, if there is one that reads.
    pub fn saved() -> Option<Calibration> {
        let path = Calibration::saved_path()?;
        let text = std::fs::read_to_string(&path).ok()?;
        let mut cal: Calibration = serde_json::from_str(&text).ok()?;
        cal.source = format!("{} ({})", cal.source, path.display());
        Some(cal)
    }

    /// A learner's speed over Q-learning's: this machine's if measured, else the
    /// reference's.
    pub fn share(&self, learner: &str) -> f64 {
        let reference = crate::solvers::learners::find(learner).map_or(1.0, |l| l.share);
        self.shares.get(learner).copied().filter(|s| *s > 0.0).unwrap_or(reference)
    }
}

/// Seconds of one core that a job of `load` takes by `cal`.
pub fn seconds(load: &Load, cal: &Calibration) -> f64 {
    let game = load.game;
    let longer = game.cells() as f64 / Game::TIC_TAC_TOE.cells() as f64;
    let mut total = cal.per_job_s;
    if let Some(t) = load.training {
        total += t.games / cal.q_per_s / cal.share(t.learner) * longer * slowdown(t.values, cal);
        // Pages first touched: a game touches a few states' values, at most every page.
        let pages = (t.values / 4096) as f64;
        total += (t.games * longer * 4.0).min(pages) * cal.page_s * f64::from(t.values > CACHED_BYTES);
    }
    // An evaluation walks the states the policy reaches, which grow like the agent states
    // to the power 3/4; tic-tac-toe's cost per evaluation is measured.
    total += load.evaluations as f64 * cal.eval_s * load.states_over_tic_tac_toe.powf(0.75);
    total += load.passes * 4e-8;
    total += load.solves * cal.solve_s;
    total += load.search_iterations / cal.mcts_per_s;
    total += load.sampled_games as f64 * 2e-7 * longer;
    total
}

/// How many times slower a training step is with `values` bytes of values than with
/// tic-tac-toe's: 1 up to [`CACHED_BYTES`] / 128 (256 KiB, a core's own cache), then
/// growing geometrically to `cal.big_table` at 8 · [`CACHED_BYTES`] (256 MiB) and beyond.
/// Measured: about 3.3 on 3x4k4 (2.4 MB of values), 60 on 4x4k4 (212 MB) with an
/// exploring schedule.
pub fn slowdown(values: u64, cal: &Calibration) -> f64 {
    let (small, big) = (((CACHED_BYTES / 128) as f64).log2(), ((CACHED_BYTES * 8) as f64).log2());
    let at = ((values.max(1) as f64).log2() - small) / (big - small);
    cal.big_table.max(1.0).powf(at.clamp(0.0, 1.0))
}

/// Seconds of one core to build `tables` (the shared tables a run builds before its first
/// job, those not built yet).
pub fn shared_seconds<'a>(tables: impl IntoIterator<Item = &'a Shared>, cal: &Calibration) -> f64 {
    tables.into_iter().map(|t| t.bytes() as f64 * cal.shared_s_per_byte).sum()
}

/// Wall seconds of `cpu` seconds of one core's work spread over `threads` threads, on a
/// host with `cal.others` threads' worth of other work, which `threads` threads then share
/// the cores with. Where that was not measured, it is inferred from the share of a core
/// one thread got: `cores / free - 1`, which on a quiet host (`free` = 1) counts a whole
/// thread of others that may not be there.
pub fn wall_seconds(cpu: f64, threads: usize, cal: &Calibration) -> f64 {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let others = cal.others.unwrap_or(cores / cal.free.clamp(0.05, 1.0) - 1.0).max(0.0);
    let share = (cores / (others + threads as f64)).min(1.0);
    cpu / share
}

/// Wall seconds of building `tables` on `threads` threads: positions first, then the rest
/// shared out (see `run::shared`).
pub fn shared_wall_seconds(tables: &BTreeSet<Shared>, threads: usize, cal: &Calibration) -> f64 {
    let (positions, rest): (Vec<&Shared>, Vec<&Shared>) =
        tables.iter().partition(|t| matches!(t, Shared::Positions(_)));
    let longest = |v: &[&Shared]| v.iter().map(|t| shared_seconds([*t], cal)).fold(0.0, f64::max);
    let spread = |v: &[&Shared]| (shared_seconds(v.iter().copied(), cal) / threads.max(1) as f64).max(longest(v));
    spread(&positions) + spread(&rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cal() -> Calibration {
        Calibration::quick(8e6, 2.5e6, 3e-5, 1e-3)
    }

    #[test]
    fn seconds_grow_with_each_kind_of_work() {
        let game = Game::TIC_TAC_TOE;
        let base = Load::new(game, &[Seat::X]);
        let idle = seconds(&base, &cal());
        assert!((idle - cal().per_job_s).abs() < 1e-15, "a job that does nothing costs its setup");
        let train = |games| Load { training: Some(Training { learner: "q-learning", games, values: 1 << 16 }), ..base };
        let (a, b) = (seconds(&train(1e5), &cal()), seconds(&train(2e5), &cal()));
        assert!(((b - idle) / (a - idle) - 2.0).abs() < 1e-9, "training is linear in the games");
        // A slower learner (a share below 1) costs more per episode.
        let slow =
            Load { training: Some(Training { learner: "double-q-learning", games: 1e5, values: 1 << 16 }), ..base };
        assert!(seconds(&slow, &cal()) > a);
        // A table beyond the caches costs more per step, up to `big_table` times.
        let big = Load { training: Some(Training { learner: "q-learning", games: 1e5, values: 1 << 30 }), ..base };
        assert!(seconds(&big, &cal()) > 5.0 * (a - idle));
        assert_eq!(slowdown(1 << 16, &cal()), 1.0);
        assert!((slowdown(1 << 33, &cal()) - cal().big_table).abs() < 1e-9);
        assert!((1.0..cal().big_table).contains(&slowdown(3 << 20, &cal())));
        for more in [
            Load { evaluations: 10, ..base },
            Load { passes: 1e6, ..base },
            Load { solves: 1.0, ..base },
            Load { search_iterations: 1e5, ..base },
            Load { sampled_games: 1000, ..base },
        ] {
            assert!(seconds(&more, &cal()) > idle, "{more:?}");
        }
    }

    #[test]
    fn a_slower_machine_scales_every_constant() {
        let (fast, slow) = (Calibration::quick(8e6, 2.5e6, 3e-5, 1e-3), Calibration::quick(4e6, 2.5e6, 3e-5, 1e-3));
        assert_eq!(slow.per_job_s, 2.0 * fast.per_job_s);
        assert_eq!(slow.shared_s_per_byte, 2.0 * fast.shared_s_per_byte);
    }
}
