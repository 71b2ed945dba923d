//! What a job costs: every estimate of time and memory. [`memory`] counts bytes (a job's
//! own and the tables jobs share); [`mcts`] holds MCTS's scaling law; [`boards`] what the
//! boards people use were measured to cost beyond tic-tac-toe; this file is time.
//!
//! The one time model: what a job does ([`Load`], described by its kind), the game's
//! figures and this machine's [`Calibration`] turned into seconds by one pure function,
//! [`seconds`]; the shared tables a run builds before its first job
//! ([`shared_seconds`]); and the passes a run makes one after another (a grid, a search's
//! rungs or rounds, a `[test]`), each as long as its longest-first schedule on the
//! threads ([`pass_seconds`]). `sweep plan`, `run`'s cost guard and the longest-job-first
//! order all read it.
//!
//! The terms, each a count of the kind's work times a measured cost:
//!
//! - training: episodes times the seconds of the calibration's kernel (one tic-tac-toe
//!   Q-learning episode) times the board's cost per episode over it for the way the
//!   learner plays (X, O or self-play) and its `symmetry` ([`boards::episode`]: measured
//!   on the boards people use, else the board's length times the slowdown of a table that
//!   outgrows the caches, [`slowdown`]), whose part beyond the kernel scales with how
//!   widely the learner's schedule and opponent spread its games ([`boards::spread`]);
//!   softmax's exponentials, one per legal move at each decision; and the learner's own
//!   work beyond Q-learning's, by its measured share of Q-learning's speed at the spread
//!   the share is measured at (a wider spread slows Q-learning's reads, not that work);
//! - a learner's setup and end: a self-play job's successors, Double Q-learning's pair of
//!   tables and values a thread cannot reuse (fresh pages: mapped and zeroed on first
//!   touch), the pass over the table for `q_error` or the final policy;
//! - exact evaluations (the untrained table, checkpoints and final rows): each walks the
//!   states the policy reaches, measured per board, seat and `symmetry` against `random`
//!   ([`boards::evaluation`]; else growing like the agent states to the power 3/4), a
//!   share of that against the other opponents, at tic-tac-toe's measured cost;
//! - passes over every slot of a table (`q_error` against an on-policy learner's own
//!   behaviour), solves of an MDP (exact kinds), MCTS searches (their scaling law,
//!   [`mcts::mcts_load`], from the reach of tic-tac-toe's optimal policy,
//!   [`mcts::tic_tac_toe_reach`]) and sampled games;
//! - on a board too big to enumerate, the positions an agent is asked and the search
//!   values ([`searched_load`]): the mean over seeds of a law fitted on Connect Four
//!   ([`random_reach`]), more in a seat the start's outcome (from the book, or searched
//!   where the board is nearly full) says is drawn or lost;
//! - a fixed cost per job.
//!
//! The calibration is measured in-process at `plan` time (about half a second, and a
//! tenth more for the learners' shares), or read from a `sweep bench --save` result
//! ([`Calibration::saved_path`]). Besides the kernels' speeds it measures the cost of a
//! fresh page and the host's other work (one spinning thread per core for a moment),
//! which turns the CPU estimate into a wall time.
//!
//! Not counted: two memory-bound jobs at once (4x4k4) slow each other on a host whose
//! cores share caches and memory (3-4 times on this project's 2-vCPU test host); the
//! estimate is per core (the boards' figures were measured with the other core busy, as
//! in a run on both).

pub mod boards;
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
    /// Training episodes (games).
    pub episodes: f64,
    /// The seat it plays against a fixed opponent; `None` in self-play (one table for
    /// both seats, over every position).
    pub seat: Option<Seat>,
    /// Whether its table stores states once per symmetry class (read through an index).
    pub symmetry: bool,
    /// How widely its games spread over the table, 1 at the reference of the measured
    /// boards ([`boards::spread`]).
    pub spread: f64,
    /// Softmax's exponentials per legal move at each of its decisions (0 when it explores
    /// epsilon-greedily; see [`SOFTMAX`]).
    pub softmax: f64,
    /// The bytes of the job's own values (every table of it).
    pub values: u64,
    /// The bytes of fresh memory it writes first (pages the system maps and zeroes then):
    /// values the thread cannot reuse from its last job, a second table.
    pub fresh: u64,
    /// The slots of its table (the agent's moves, or every position's in self-play).
    pub slots: u64,
    /// Work of its own per episode beyond its share of Q-learning's, in kernel episodes
    /// (Q(lambda)'s traces in self-play).
    pub extra: f64,
    /// How many times its episode costs what its share of Q-learning's says (1 but where
    /// measured otherwise: the other learners in self-play).
    pub slower: f64,
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
    /// Exact evaluations of a policy, in evaluations of tic-tac-toe's optimal policy (X
    /// against random, [`Calibration::eval_s`]): see [`boards::evaluation`].
    pub evaluations: f64,
    /// Slots visited by full passes over a table (`q_error` against Q^π).
    pub passes: f64,
    /// Exact solves of an MDP, in tic-tac-toe solves (scaled by the agent states).
    pub solves: f64,
    /// MCTS searches and their iterations, in tic-tac-toe-length searches.
    pub search_iterations: f64,
    /// Sampled games, all rows together.
    pub sampled_games: u64,
    /// Positions an agent is asked on a board too big to enumerate, each valued by the
    /// search ([`searched_load`]).
    pub searched_positions: f64,
}

impl Load {
    /// A job that does nothing yet on `game` for `seats`.
    pub fn new(game: Game, seats: &[Seat]) -> Load {
        Load {
            game,
            // A board too big to enumerate has no states to count (see [`searched_load`]).
            states_over_tic_tac_toe: if game.enumerable() { states_over_tic_tac_toe(game, seats) } else { 1.0 },
            training: None,
            evaluations: 0.0,
            passes: 0.0,
            solves: 0.0,
            search_iterations: 0.0,
            sampled_games: 0,
            searched_positions: 0.0,
        }
    }
}

/// A job on a board too big to enumerate (see `run/searched.rs`): its agent is asked the
/// positions its evaluation reaches, each an MCTS search of `iterations` (0 for a
/// program, whose own time is unknown until measured), and the search values the moves
/// there. Against `minimax` the agent is asked one game's positions, against
/// `minimax-uniform` a few games'; against `random` (and a best response, which builds
/// the same layers) every position it reaches with every reply, [`random_reach`], up to
/// the exact limit, past which it plays `games` sampled games. Each position asked costs
/// [`SEARCHED_POSITION_S`] and its search's iterations, whose playouts are shorter (per
/// iteration) the larger the search (`searched_iteration`).
///
/// How many positions one job is asked depends on how its agent plays, so on its seed
/// as much as on its parameters: what this gives is the mean over seeds, and a job may
/// be asked several times more or less (see [`random_reach`]).
pub fn searched_load(
    game: Game,
    seats: &[Seat],
    opponents: &[crate::mdp::EvalOpponent],
    iterations: u32,
    from: Option<&str>,
    games: u64,
) -> Load {
    let mut load = Load::new(game, seats);
    let (plies, outcome) = start(game, from);
    let left = game.cells().saturating_sub(plies);
    let d = left.div_ceil(2) as f64;
    let reach = |seat: Seat, o: &crate::mdp::EvalOpponent| match o.fixed() {
        Some(crate::mdp::Opponent::Minimax) => d,
        Some(crate::mdp::Opponent::MinimaxUniform) => (2f64.powf(d)).min(EXACT_LIMIT),
        _ => {
            // The seat's outcome: the mover's at the start, or its opposite.
            let mover = if plies % 2 == 0 { Seat::X } else { Seat::O };
            let own = outcome.map(|o| if seat == mover { o } else { o.flip() });
            let exact = random_reach(game, d, iterations) * unhurried(own, iterations);
            // Past the limit: the layers built until they overflowed (measured: 0.35-0.78
            // of the limit in agent positions, 0.6 on the mean), and the sampled games'
            // positions that those layers do not hold (a few percent).
            if exact <= OVERFLOW * EXACT_LIMIT { exact } else { OVERFLOW * EXACT_LIMIT + 0.05 * games as f64 * d }
        }
    };
    let asked: f64 = seats.iter().map(|&s| opponents.iter().map(|o| reach(s, o)).fold(0.0, f64::max)).sum();
    let moves = if game.family() == crate::game::Family::Gravity { game.cols() } else { left.max(1) } as f64;
    let longer = (game.cells() as f64 + moves) / (2.0 * Game::TIC_TAC_TOE.cells() as f64);
    load.search_iterations = asked * f64::from(iterations) * longer * searched_iteration(iterations);
    load.searched_positions = asked;
    load
}

/// The positions a job on a board too big to enumerate keeps for an exact evaluation
/// (`run/searched.rs`'s limit), and the share of them that are the agent's when the
/// layers overflow.
const EXACT_LIMIT: f64 = 2e6;
const OVERFLOW: f64 = 0.6;

/// The mean number of positions an MCTS agent of `iterations` is asked against `random`
/// with `d` of its moves left, if they all fit (a program counts as 1,000 iterations:
/// the example network of `experiments/connect-four.toml` was asked 0.5-4 times that,
/// its checkpoints included). Fitted on Connect Four from three positions of one game,
/// 8, 12 and 16 stones in (`d` = 17, 15, 13), at 30, 100, 300 and 1,000 iterations, six
/// seeds each (`uct_c` 1.414):
/// `ln R = 12.716 + 0.7925 (d - 15) - 0.7147 L - 0.1523 L^2`, `L = ln(iterations / 100)`
/// held within 30 to 1,000 iterations; on a gravity board of `b` columns each agent
/// move multiplies the reach by `2.21 b / 7` (Connect Four's 2.21). The fit is within
/// 0.59-1.69 of the nine measured means (d = 17 at 30 and 100 iterations overflowed the
/// limit), but one configuration's seeds differ far more: at 100 iterations and `d` = 15
/// they were asked 44k to 591k positions, at 1,000 iterations 11k to 51k. A stronger
/// agent ends its games sooner, so is asked less, but not below what it takes to win:
/// perfect play (which wins, not fast) was asked 59k there. On m,n,k boards, where a
/// reply may be any empty cell, the same law is a guess.
pub fn random_reach(game: Game, d: f64, iterations: u32) -> f64 {
    let l = (law_iterations(iterations) / 100.0).ln();
    let b = if game.family() == crate::game::Family::Gravity { game.cols() as f64 } else { 7.0 };
    let per_move = (0.7925f64.exp() * b / 7.0).ln();
    (12.716 + per_move * (d - 15.0) - 0.7147 * l - 0.1523 * l * l).exp()
}

/// The iterations the reach laws read: measured from 30 to 1,000 and held there; a
/// program (0) counts as 1,000.
fn law_iterations(iterations: u32) -> f64 {
    if iterations == 0 { 1000.0 } else { f64::from(iterations).clamp(30.0, 1000.0) }
}

/// How many times more positions an agent of `iterations` is asked in a seat of
/// `outcome` (under optimal play from the start) than in a won one: a search that finds
/// its seat drawn or lost sees no quick win, and its games against random run long, the
/// longer the larger the search. Measured on Connect Four 12 and 13 stones in, three
/// seeds each (the reach law's won seat: 335k positions at 100 iterations, 20k at
/// 1,000): drawn 599k and 132k, `1.8 (iterations / 100)^0.4`; lost 1.1-1.5 million at
/// 100 (past the limit) and 61k-793k at 1,000 (456k on the mean), `4 (iterations /
/// 100)^0.6`. Unknown (a start the plan does not search): as won.
fn unhurried(outcome: Option<crate::oracle::Outcome>, iterations: u32) -> f64 {
    use crate::oracle::Outcome;
    let its = law_iterations(iterations);
    match outcome {
        None | Some(Outcome::Win) => 1.0,
        Some(Outcome::Draw) => 1.8 * (its / 100.0).powf(0.4),
        Some(Outcome::Loss) => 4.0 * (its / 100.0).powf(0.6),
    }
}

/// The plies played at the evaluation's start (`from`, as the spec writes it) and the
/// outcome for the player to move there: from the book, or searched where at most
/// [`SEARCHED_START_CELLS`] cells are empty and the search settles it within 20 million
/// positions (0.3 s for Connect Four 12 stones in); else unknown. Kept for the process,
/// so a plan searches each start once.
fn start(game: Game, from: Option<&str>) -> (usize, Option<crate::oracle::Outcome>) {
    use crate::oracle::{Position, Shape, Solver, book, parse_moves};
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Starts = Mutex<HashMap<(Game, String), (usize, Option<crate::oracle::Outcome>)>>;
    static STARTS: OnceLock<Starts> = OnceLock::new();
    let from = from.map_or("", str::trim);
    let key = (game, from.to_string());
    let starts = STARTS.get_or_init(Default::default);
    if let Some(&known) = starts.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return known;
    }
    let shape = Shape::of_game(game);
    let found = match parse_moves(shape, from).ok().and_then(|m| Position::after(shape, &m).ok()) {
        // A spec's start is checked when it is read; one that does not parse costs as the
        // empty board's here.
        None => (0, None),
        Some(p) if p.is_over() => (p.plies() as usize, None),
        Some(p) => {
            let empty = game.cells() - p.plies() as usize;
            let outcome = book::known(p).or_else(|| {
                (empty <= SEARCHED_START_CELLS).then(|| Solver::new(64 << 20).outcome_within(p, 20_000_000)).flatten()
            });
            (p.plies() as usize, outcome)
        }
    };
    starts.lock().unwrap_or_else(|e| e.into_inner()).insert(key, found);
    found
}

/// The most empty cells of a start whose outcome a plan searches for.
const SEARCHED_START_CELLS: usize = 30;

/// An MCTS iteration's cost on a board too big to enumerate, over the calibration's
/// scaled by the cells: `(iterations / 100)^-0.1`, as a larger search ends more of its
/// playouts early in positions its tree has decided. Measured on Connect Four 8 to 16
/// stones in (the fit of [`random_reach`]): a position asked cost 14 µs and 0.33 µs an
/// iteration at 30 to 300 iterations, 0.25 µs at 1,000 (a 0.33 µs calibration).
fn searched_iteration(iterations: u32) -> f64 {
    (f64::from(iterations.max(1)) / 100.0).powf(-0.1)
}

/// The search's time to value the moves of one position an agent is asked on a board
/// too big to enumerate, and to ask it. Measured with MCTS on Connect Four (8 to 16
/// stones in, 30 to 1,000 iterations, one thread): a position asked cost 14 µs beside
/// its search's iterations.
pub const SEARCHED_POSITION_S: f64 = 14e-6;

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

/// How many learners a saved calibration that lists their shares holds (before they were
/// keyed by name): the first ones of the learner table, in its order.
const LISTED: usize = 5;

/// `shares` as a map by name, or as a list of the first [`LISTED`] learners' shares.
fn shares_by_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<BTreeMap<String, f64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Shares {
        ByName(BTreeMap<String, f64>),
        Listed(Vec<f64>),
    }
    Ok(match Shares::deserialize(d)? {
        Shares::ByName(map) => map,
        Shares::Listed(list) => {
            let names = crate::solvers::learners::LEARNERS.iter().take(LISTED).map(|l| l.name);
            names.zip(list).map(|(n, s)| (n.to_string(), s)).collect()
        }
    })
}

/// The figures of this machine with nothing running beside: what the constants of a
/// quick calibration are scaled from (by its measured Q-learning speed over this one).
/// The shared tables' cost per byte was measured again on 2026-12-05 on this project's
/// 2-core host: `sweep bench` gave 5.5 ns a byte at 10 M Q-learning episodes/s, and the
/// builds of 3x5k3's, 4x4k3's, 5x4g4's and 4x4k4's tables took 1.7 to 2.4 times what 7
/// ns at 8 M episodes/s (2.8 ns at their 20 M) said.
pub const REFERENCE: Reference =
    Reference { q_per_s: 8e6, big_table: 60.0, per_job_s: 5e-5, shared_s_per_byte: 1.4e-8, page_s: 2e-6 };

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
    // One episode of the calibration's kernel: the unit of a learner's costs.
    let kernel = 1.0 / cal.q_per_s;
    let mut total = cal.per_job_s;
    if let Some(t) = load.training {
        total += t.episodes * kernel * episode(game, &t, cal);
        match t.seat {
            // q_error's pass over the table against Q* (through the index with symmetry).
            Some(_) => total += t.slots as f64 * kernel * if t.symmetry { 0.075 } else { 0.03 },
            // The successors built for the job, then the final policy read off the table.
            None => total += t.slots as f64 * kernel * (successors(game) + 0.07),
        }
        // Pages first touched: a game touches a few states' values, at most every page.
        let pages = (t.fresh / 4096) as f64;
        let games = if t.seat.is_none() { 2.0 } else { 1.0 };
        total += (t.episodes * games * longer * 4.0).min(pages) * cal.page_s;
    }
    total += load.evaluations * cal.eval_s;
    total += load.passes * PASS_SLOT * kernel;
    total += load.solves * cal.solve_s;
    total += load.search_iterations / cal.mcts_per_s;
    total += load.sampled_games as f64 * 2e-7 * longer;
    total += load.searched_positions * SEARCHED_POSITION_S;
    total
}

/// A slot of an on-policy learner's exact Q^π (`q_error` against its behaviour), in
/// kernel episodes (measured: 6.4 ms for SARSA's 284,424 slots as O on 3x4k4, 4 ms for
/// Expected SARSA's and Monte Carlo's, against a 48 ns kernel episode).
const PASS_SLOT: f64 = 0.4;

/// Softmax's exponential per legal move at a decision, in kernel episodes, on a board
/// whose episode costs the kernel's; a board whose episode costs `base` times the
/// kernel's adds `SOFTMAX_READ` per exponential for each unit beyond 1 (the values it
/// weighs are read from a table beyond the caches). Measured with a temperature from 1 to
/// 0.05 over 60% of the episodes, beside what epsilon-greedy costs: as X 250 to 300 ns an
/// episode more on tic-tac-toe and on 4x4g4, 690 to 1,050 on 3x4k4, with 24, 25 and 42
/// legal moves at the learner's decisions of a random game; in self-play 420 to 470 on
/// tic-tac-toe, 800 on 4x4g4, 1,600 to 1,850 on 3x4k4 (43, 48 and 78 moves); about half
/// with the default decay to 0.01; Expected SARSA's expectation 1.6 times as much; the
/// kernel episode 48 to 62 ns.
pub const SOFTMAX: f64 = 0.15;

/// See [`SOFTMAX`].
const SOFTMAX_READ: f64 = 0.04;

/// A training episode of `t` on `game`, in kernel episodes: the board's measured (or
/// estimated) cost at the reference spread ([`boards::episode`]), whose part beyond the
/// kernel's scales with the job's spread ([`boards::spread`]), and softmax's
/// exponentials, one per legal move at each of the learner's decisions
/// ([`boards::playout`]); plus the learner's own work beyond Q-learning's (its share of
/// the episode at the spread its share is measured at, [`SHARE_SPREAD`]); times what
/// the symmetry index costs ([`boards::symmetry`]; for Q(lambda) and SARSA(lambda) the
/// episode's part only), times how much slower it was measured beyond that; then its own
/// extra work.
fn episode(game: Game, t: &Training, cal: &Calibration) -> f64 {
    let base = boards::episode(game, t.seat, t.values, cal.big_table);
    let mut cost = 1.0 + (base - 1.0).max(0.0) * t.spread;
    if t.softmax > 0.0 {
        let p = boards::playout(game);
        let legal = match t.seat {
            Some(Seat::X) => p.legal[0],
            Some(Seat::O) => p.legal[1],
            None => p.legal[0] + p.legal[1],
        };
        cost += (SOFTMAX + SOFTMAX_READ * (base - 1.0).max(0.0)) * t.softmax * legal;
    }
    let symmetry = if t.symmetry { boards::symmetry(game, t.seat) } else { 1.0 };
    let share = cal.share(t.learner);
    // The learner's work beyond Q-learning's: its share, measured at the seed settings
    // (spread [`SHARE_SPREAD`]), of the episode at that spread at most. A wider spread
    // sends Q-learning's reads beyond the caches more often, not the learner's own work.
    // Measured against a fixed opponent; in self-play (whose boards' figures and
    // `self_play_slower` were measured on the whole episode) the share stays a factor.
    let beyond = if t.seat.is_some() { (t.spread - SHARE_SPREAD).max(0.0) } else { 0.0 };
    let capped = cost - (base - 1.0).max(0.0) * beyond;
    let own = (1.0 / share - 1.0) * capped;
    // For a learner whose row says so (Q(lambda), SARSA(lambda)), the symmetry index's
    // cost is not paid again by its own work.
    let adds = crate::solvers::learners::find(t.learner).is_some_and(|l| l.symmetry_adds);
    let learner = if adds { cost * symmetry + own } else { (cost + own) * symmetry };
    learner * t.slower + t.extra
}

/// The spread ([`boards::spread`]) of the seed settings, at which the learners' shares of
/// Q-learning's speed are measured (epsilon 0.05 after the first 6,000 episodes). Beyond
/// it a learner's own work costs no more: measured on 3x4k4 as X against random, epsilon
/// from 1 to 0.05 over 60% of 200,000 episodes, Q(lambda) took 1.2 kernel episodes more
/// than Q-learning's 4.3, SARSA(lambda) 1.6, Monte Carlo 2.0, SARSA 0.1, where their
/// shares times the whole episode said 1.9, 2.4, 2.2 and 0.9; at the seed settings the
/// shares held (within 0.87 to 1.09 of what a run took).
const SHARE_SPREAD: f64 = 0.5;

/// Building a self-play job's successors, per slot, in kernel episodes: a position's
/// children are looked up in the game's index of positions, which beyond a core's
/// caches waits for memory (measured: 12 ns a slot on tic-tac-toe, 20 on 3x4k3 and
/// 3x4k4, whose index is 2 MB; 55 to 90 on 3x5g3 and 4x4g4, 57 and 172 MB; the kernel
/// episode 48 ns).
fn successors(game: Game) -> f64 {
    let index = if game.dense() { 4.0 * 3f64.powi(game.cells() as i32) } else { f64::MAX };
    0.4 + 1.1 * ((index.log2() - 21.0) / 5.0).clamp(0.0, 1.0)
}

/// How many times slower a training step is with `values` bytes of values than with
/// tic-tac-toe's: 1 up to [`CACHED_BYTES`] / 128 (256 KiB, a core's own cache), then
/// growing geometrically to `cal.big_table` at 8 · [`CACHED_BYTES`] (256 MiB) and beyond.
/// Measured: about 3.3 on 3x4k4 (2.4 MB of values), 60 on 4x4k4 (212 MB) with an
/// exploring schedule.
pub fn slowdown(values: u64, cal: &Calibration) -> f64 {
    slowdown_by(values, cal.big_table)
}

/// [`slowdown`] with `big_table` for [`Calibration::big_table`].
pub fn slowdown_by(values: u64, big_table: f64) -> f64 {
    let (small, big) = (((CACHED_BYTES / 128) as f64).log2(), ((CACHED_BYTES * 8) as f64).log2());
    let at = ((values.max(1) as f64).log2() - small) / (big - small);
    big_table.max(1.0).powf(at.clamp(0.0, 1.0))
}

/// Seconds of one core to build `tables` (the shared tables a run builds before its first
/// job, those not built yet): their bytes at the measured cost of a byte built, but for a
/// board's dense index of positions (4 bytes per base-3 code, `3^cells` of them), which
/// is mostly left zero: the system's pages, written once each (measured: 4x4g4's 172 MB
/// index and 6 MDPs took 0.19 s of CPU, which the bytes alone put at 0.7 s).
pub fn shared_seconds<'a>(tables: impl IntoIterator<Item = &'a Shared>, cal: &Calibration) -> f64 {
    tables
        .into_iter()
        .map(|t| {
            let index = match t {
                Shared::Positions(game) if game.dense() => 4 * 3u64.pow(game.cells() as u32),
                _ => 0,
            };
            let index = index.min(t.bytes());
            (t.bytes() - index) as f64 * cal.shared_s_per_byte + index as f64 / 4096.0 * cal.page_s
        })
        .sum()
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

/// Seconds of one core of the jobs of a pass, given as `(seconds of one job, jobs)`.
pub fn pass_cpu_seconds(jobs: &[(f64, u64)]) -> f64 {
    jobs.iter().map(|&(seconds, n)| seconds * n as f64).sum()
}

/// Wall seconds of one pass of jobs (a grid, a search's rung or round, a `[test]`) on
/// `threads` threads of a quiet host, its jobs given as `(seconds of one job, jobs)`: the
/// executor starts them longest first, each on the first thread free, and the next pass
/// waits for the last one (a barrier). So a pass takes at least its CPU time over the
/// threads and its longest job, and more when its jobs do not share out evenly: a pass of
/// 3 equal jobs on 2 threads takes 2 jobs' time, one thread idle for the second.
pub fn pass_seconds(jobs: &[(f64, u64)], threads: usize) -> f64 {
    let threads = threads.max(1);
    let mut sorted: Vec<(f64, u64)> = jobs.iter().copied().filter(|&(s, n)| n > 0 && s > 0.0).collect();
    sorted.sort_by(|a, b| b.0.total_cmp(&a.0));
    // Each thread's load; a job goes to the least loaded. Jobs of one cost that fill every
    // thread several times over are handed out a round at a time.
    let mut loads = vec![0.0f64; threads];
    for (seconds, mut n) in sorted {
        let rounds = n / threads as u64;
        if rounds > 1 {
            for load in &mut loads {
                *load += seconds * (rounds - 1) as f64;
            }
            n -= (rounds - 1) * threads as u64;
        }
        for _ in 0..n {
            let least = (0..threads).min_by(|&a, &b| loads[a].total_cmp(&loads[b])).expect("one thread");
            loads[least] += seconds;
        }
    }
    loads.into_iter().fold(0.0, f64::max)
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
    use crate::mdp::Opponent;

    fn cal() -> Calibration {
        Calibration::quick(8e6, 2.5e6, 3e-5, 1e-3)
    }

    /// Q-learning's training of `episodes` episodes on `game` as `seat` (`None`: self-play)
    /// at the reference spread.
    fn training(game: Game, episodes: f64, seat: Option<Seat>, symmetry: bool) -> Training {
        let side = match seat {
            Some(s) => memory::side(game, s),
            None => game.figures().all(),
        };
        Training {
            learner: "q-learning",
            episodes,
            seat,
            symmetry,
            spread: 1.0,
            softmax: 0.0,
            values: memory::values(side),
            fresh: 0,
            slots: side.moves,
            extra: 0.0,
            slower: 1.0,
        }
    }

    #[test]
    fn seconds_grow_with_each_kind_of_work() {
        let game = Game::TIC_TAC_TOE;
        let base = Load::new(game, &[Seat::X]);
        let idle = seconds(&base, &cal());
        assert!((idle - cal().per_job_s).abs() < 1e-15, "a job that does nothing costs its setup");
        let train = |episodes| Load { training: Some(training(game, episodes, Some(Seat::X), false)), ..base };
        let (a, b, c) = (seconds(&train(1e5), &cal()), seconds(&train(2e5), &cal()), seconds(&train(3e5), &cal()));
        assert!(((c - b) - (b - a)).abs() < 1e-12 && b > a, "training is linear in the episodes");
        // A slower learner (a share below 1) costs more per episode.
        let slow = Training { learner: "double-q-learning", ..training(game, 1e5, Some(Seat::X), false) };
        assert!(seconds(&Load { training: Some(slow), ..base }, &cal()) > a);
        // A table beyond the caches costs more per step, up to `big_table` times.
        assert_eq!(slowdown(1 << 16, &cal()), 1.0);
        assert!((slowdown(1 << 33, &cal()) - cal().big_table).abs() < 1e-9);
        assert!((1.0..cal().big_table).contains(&slowdown(3 << 20, &cal())));
        for more in [
            Load { evaluations: 10.0, ..base },
            Load { passes: 1e6, ..base },
            Load { solves: 1.0, ..base },
            Load { search_iterations: 1e5, ..base },
            Load { sampled_games: 1000, ..base },
        ] {
            assert!(seconds(&more, &cal()) > idle, "{more:?}");
        }
    }

    /// Q(lambda)'s traces read no symmetry index: with symmetry, its episode costs what
    /// Q-learning's does plus the same extra as without (measured on 4x4g4 as X: 1.21
    /// times Q-learning's with symmetry, 1.27 without).
    #[test]
    fn q_lambda_s_traces_do_not_pay_for_the_symmetry_index_nor_for_a_wide_spread() {
        let game: Game = "4x4g4".parse().unwrap();
        let cal = cal();
        let spread_of = |learner: &'static str, symmetry: bool, spread: f64| {
            let t = Training { learner, spread, ..training(game, 1e5, Some(Seat::X), symmetry) };
            let load = Load { training: Some(t), ..Load::new(game, &[Seat::X]) };
            let none = Load { training: Some(Training { episodes: 0.0, ..t }), ..load };
            (seconds(&load, &cal) - seconds(&none, &cal)) / t.episodes
        };
        let episode_of = |learner, symmetry| spread_of(learner, symmetry, 1.0);
        let extra = |symmetry| episode_of("q-lambda", symmetry) - episode_of("q-learning", symmetry);
        let share = cal.share("q-lambda");
        assert!(share < 1.0);
        assert!((extra(true) - extra(false)).abs() < 1e-9 * extra(false), "{} against {}", extra(true), extra(false));
        let ratio =
            |symmetry, spread| spread_of("q-lambda", symmetry, spread) / spread_of("q-learning", symmetry, spread);
        assert!(ratio(true, 1.0) < ratio(false, 1.0));
        // At the seed settings' spread, where the share is measured, the share is the
        // ratio; a wider spread costs Q-learning's reads more, not the traces.
        assert!((ratio(false, SHARE_SPREAD) - 1.0 / share).abs() < 1e-9);
        assert!((ratio(false, 0.2) - 1.0 / share).abs() < 1e-9);
        assert!(ratio(false, 1.0) < ratio(false, SHARE_SPREAD));
        assert!(extra(false) > 0.0, "the traces still cost");
    }

    #[test]
    fn symmetry_the_seat_self_play_the_spread_and_softmax_change_an_episodes_cost() {
        let game: Game = "3x4k4".parse().unwrap();
        let episode_of = |t: Training| {
            let load = Load { training: Some(t), ..Load::new(game, &[Seat::X]) };
            let none = Load { training: Some(Training { episodes: 0.0, ..t }), ..load };
            (seconds(&load, &cal()) - seconds(&none, &cal())) / t.episodes
        };
        let plain = episode_of(training(game, 1e5, Some(Seat::X), false));
        // Measured on 3x4k4: symmetry's index costs 1.5 to 2 times as much per episode.
        let symmetric = episode_of(training(game, 1e5, Some(Seat::X), true));
        assert!((1.5..2.1).contains(&(symmetric / plain)), "{symmetric} against {plain}");
        assert!(episode_of(training(game, 1e5, Some(Seat::O), false)) > plain);
        assert!(episode_of(training(game, 1e5, None, false)) < plain, "3x4k4's self-play is cheaper per game");
        let greedy = episode_of(Training {
            spread: boards::spread(0.0, Some(Opponent::Minimax)),
            ..training(game, 1e5, Some(Seat::X), false)
        });
        assert!(greedy < 0.3 * plain, "a greedy learner against minimax stays on few lines");
        let softmax = episode_of(Training { softmax: 1.0, ..training(game, 1e5, Some(Seat::X), false) });
        assert!(softmax > 1.5 * plain, "an exponential per legal move");
        // Tic-tac-toe's episode is the calibration's, give or take a tenth.
        let tic_tac_toe = Load {
            training: Some(training(Game::TIC_TAC_TOE, 1e6, Some(Seat::X), false)),
            ..Load::new(Game::TIC_TAC_TOE, &[Seat::X])
        };
        let per = seconds(&tic_tac_toe, &cal()) / 1e6 * cal().q_per_s;
        assert!((1.0..1.2).contains(&per), "{per}");
    }

    #[test]
    fn a_slower_machine_scales_every_constant() {
        let (fast, slow) = (Calibration::quick(8e6, 2.5e6, 3e-5, 1e-3), Calibration::quick(4e6, 2.5e6, 3e-5, 1e-3));
        assert_eq!(slow.per_job_s, 2.0 * fast.per_job_s);
        assert_eq!(slow.shared_s_per_byte, 2.0 * fast.shared_s_per_byte);
    }

    #[test]
    fn a_pass_waits_for_its_last_job() {
        // Three equal jobs on two threads: one thread idle for the third.
        assert_eq!(pass_seconds(&[(1.0, 3)], 2), 2.0);
        assert_eq!(pass_cpu_seconds(&[(1.0, 3)]), 3.0);
        // Longest first: 3, then 2 and 2 beside it, then 1 on the first thread free.
        assert_eq!(pass_seconds(&[(2.0, 2), (3.0, 1), (1.0, 1)], 2), 4.0);
        // One long job holds the pass however many threads there are.
        assert_eq!(pass_seconds(&[(5.0, 1), (0.1, 4)], 8), 5.0);
        // Many equal jobs share out evenly, up to a last round.
        assert_eq!(pass_seconds(&[(1.0, 1000)], 2), 500.0);
        assert_eq!(pass_seconds(&[(1.0, 1001)], 2), 501.0);
        assert_eq!(pass_seconds(&[], 2), 0.0);
    }

    #[test]
    fn a_calibration_that_lists_its_shares_names_the_first_five_learners_of_the_table() {
        let text = r#"{"q_per_s": 2e7, "shares": [1.0, 0.8, 0.6, 0.7, 0.9], "big_table": 60.0, "mcts_per_s": 1.2e7,
            "eval_s": 3.4e-6, "solve_s": 3.8e-4, "per_job_s": 5e-5, "shared_s_per_byte": 7e-9, "page_s": 2e-6,
            "free": 1.0, "others": 0.0, "source": "saved"}"#;
        let cal: Calibration = serde_json::from_str(text).unwrap();
        let shares: Vec<f64> = ["q-learning", "sarsa", "expected-sarsa", "double-q-learning", "monte-carlo"]
            .map(|n| cal.share(n))
            .to_vec();
        assert_eq!(shares, [1.0, 0.8, 0.6, 0.7, 0.9]);
        // Q(lambda), which no listed calibration knew, takes its table share.
        assert_eq!(cal.share("q-lambda"), crate::solvers::learners::learner("q-lambda").share);
    }

    /// The reach law against the means it was fitted to (MCTS on Connect Four, six seeds
    /// each, `random_reach`'s doc), and its shape: a weaker search or more moves left
    /// reach more, and past the exact limit a job is asked the overflowed layers.
    #[test]
    fn the_searched_reach_follows_its_measured_means() {
        let c4 = Game::parse_any("6x7g4").unwrap();
        // (agent moves left, iterations, the mean positions asked over six seeds)
        let measured = [
            (13.0, 30, 106_738.0),
            (13.0, 100, 109_886.0),
            (13.0, 300, 15_316.0),
            (13.0, 1000, 10_004.0),
            (15.0, 30, 657_666.0),
            (15.0, 100, 334_771.0),
            (15.0, 300, 98_401.0),
            (15.0, 1000, 19_547.0),
            (17.0, 300, 825_933.0),
        ];
        for (d, iterations, mean) in measured {
            let ratio = random_reach(c4, d, iterations) / mean;
            assert!((0.55..=1.75).contains(&ratio), "d {d}, {iterations} iterations: {ratio}");
        }
        for d in [11.0, 15.0, 19.0] {
            let reach: Vec<f64> = [10, 30, 100, 300, 1000, 5000].iter().map(|&i| random_reach(c4, d, i)).collect();
            assert!(reach.windows(2).all(|w| w[1] <= w[0]), "{reach:?}");
            assert!(random_reach(c4, d + 1.0, 100) > random_reach(c4, d, 100));
        }
        let random = [crate::mdp::EvalOpponent::Fixed(Opponent::Random)];
        // 21 agent moves from the empty board: past the limit, the overflowed layers.
        let from_empty = searched_load(c4, &[Seat::X], &random, 100, None, 1000);
        assert_eq!(from_empty.searched_positions, OVERFLOW * EXACT_LIMIT + 0.05 * 1000.0 * 21.0);
        // 12 stones in, X to move and winning (searched when planned): X is asked the
        // law's reach; O, in a lost seat, more than the limit holds.
        let twelve = Some("4,6,4,0,3,1,1,3,1,4,0,6");
        assert_eq!(start(c4, twelve), (12, Some(crate::oracle::Outcome::Win)));
        let x = searched_load(c4, &[Seat::X], &random, 1000, twelve, 1000);
        assert!((x.searched_positions - random_reach(c4, 15.0, 1000)).abs() < 1e-6);
        let o = searched_load(c4, &[Seat::O], &random, 1000, twelve, 1000);
        assert!((o.searched_positions / x.searched_positions - 4.0 * 10f64.powf(0.6)).abs() < 1e-9);
        assert_eq!(
            searched_load(c4, &[Seat::O], &random, 100, twelve, 1000).searched_positions,
            OVERFLOW * EXACT_LIMIT + 0.05 * 1000.0 * 15.0
        );
        // After X's drawing move: O's seat is drawn.
        assert_eq!(start(c4, Some("4,6,4,0,3,1,1,3,1,4,0,6,4")), (13, Some(crate::oracle::Outcome::Draw)));
        // The empty board is in the book; two stones in is not, nor searched.
        assert_eq!(start(c4, None), (0, Some(crate::oracle::Outcome::Win)));
        assert_eq!(start(c4, Some("3,3")), (2, None));
        let minimax = [crate::mdp::EvalOpponent::Fixed(Opponent::Minimax)];
        assert_eq!(searched_load(c4, &[Seat::X], &minimax, 100, twelve, 1000).searched_positions, 15.0);
    }
}
