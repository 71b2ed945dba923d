//! What a tabular learner's job costs on a given board, beyond what the calibration
//! measures on tic-tac-toe: its training per episode and its exact evaluations, measured
//! on the boards people use ([`MEASURED`]), estimated from the board's figures on the
//! others; and the moves a game offers ([`playout`]), counted in random games.
//!
//! A training episode's cost on a board over tic-tac-toe's is not its length alone: a
//! step waits for memory when the values, the MDP rows and the layout it reads outgrow a
//! core's caches, how often depends on how widely the games spread over the table (an
//! exploring schedule, a random opponent), and a table with `symmetry` reads each value
//! through an index. So each measured board holds, per way of playing (X or O against a
//! fixed opponent, self-play) and without or with `symmetry`, the seconds of an episode
//! over the calibration's ([`crate::cost::Calibration::q_per_s`]: tic-tac-toe Q-learning,
//! X against random, seed settings), measured with Q-learning against `random`, epsilon
//! from 1 to 0.05 over the first 60% of the episodes (the reference spread, 1), on this
//! project's 2-core host with its other core busy (as in a run on both cores): on
//! 3x4k3, 3x4k4, 3x5g3 and 4x4g4 the mean of one job beside other work and two jobs at
//! once, on the other boards the first. A job that spreads less (a greedy schedule, a
//! `minimax` opponent) pays the same base and a share of the rest ([`spread`]).
//!
//! An exact evaluation walks the states the policy reaches; per board and seat, the
//! seconds of one over the calibration's (tic-tac-toe's optimal policy, X against
//! random), measured for Q-learning's policies after 20,000 episodes of the reference
//! schedule, against `random`; the other opponents reach a share of that
//! ([`opponent_reach`]).
//!
//! Measured 2026-12-05 (medians of 5 repetitions; the evaluations of 3 jobs of 21
//! checkpoints each). The training of X and of O on 3x3k3, 3x4k3, 3x4k4, 3x5g3 and
//! 4x4g4 measured again 2026-12-07, each the median of 3 rounds of 4 jobs of 200,000
//! episodes, 2 at once (the earlier figures were up to 1.4 times these); those of 3x4k4
//! and 4x4g4, self-play's too, then raised by 8%, toward what the same kind of jobs took
//! late in a CI run on this host (up to 1.4 times a fresh host's: memory-bound work
//! slows with the host's state, which the calibration's tic-tac-toe kernel does not
//! see). On 3x4k4 an
//! episode costs more the longer the run, as its games reach more of the table (as X
//! without symmetry 4.5 kernel episodes a run of 100,000, 5.5 of 300,000, 7.1 of
//! 1,000,000), which one figure does not follow; on 4x4g4 it stays at 3.5 to 3.7. On a board not measured, an episode costs its length (cells over
//! 9) times the slowdown of its values beyond the caches ([`super::slowdown`]), and an
//! evaluation grows with the agent states to the power 3/4 (both the model before these
//! measurements, which holds on 4x4k4).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::game::{Board, Family, Game, Player};
use crate::mdp::{EvalOpponent, Opponent, Seat};

/// Per way of playing (X, O, self-play), without and with `symmetry`.
pub type PerPlay = [[f64; 2]; 3];

/// The measured boards: the game, its training episode over the calibration's, its
/// evaluation over the calibration's (per seat; a self-play policy's per seat it is
/// evaluated in); 0 where not measured (4x4k4's self-play, whose table over every
/// position takes 400 MB a job). A transposed m,n,k-game (`4x3k3`) counts as its twin.
/// 4x4k4 was measured with two jobs of 200,000 episodes at once (X's and O's values
/// take 200 MB each), its evaluations after 100,000 and 200,000 episodes.
pub const MEASURED: &[(&str, PerPlay, Option<PerPlay>)] = &[
    ("3x3k3", [[1.13, 1.27], [1.15, 1.31], [1.74, 1.99]], Some([[2.6, 2.5], [8.0, 7.5], [3.5, 4.5]])),
    ("3x4k3", [[2.09, 2.45], [2.88, 3.19], [4.31, 4.96]], Some([[21.0, 23.0], [103.0, 206.0], [32.0, 70.0]])),
    ("3x4k4", [[5.20, 10.0], [5.40, 9.80], [5.10, 7.10]], Some([[21.0, 103.0], [48.0, 244.0], [35.0, 38.0]])),
    ("3x5k3", [[10.1, 8.7], [24.3, 20.5], [34.0, 57.0]], None),
    ("3x4g3", [[1.01, 1.06], [1.33, 1.51], [1.51, 1.80]], None),
    ("4x3g3", [[1.08, 1.17], [1.19, 1.30], [1.64, 1.86]], None),
    ("4x4g3", [[0.95, 1.28], [1.46, 1.86], [2.12, 2.50]], None),
    ("3x5g3", [[1.23, 1.48], [1.72, 2.50], [2.37, 3.02]], Some([[3.7, 4.4], [39.0, 39.0], [32.0, 36.0]])),
    ("4x4g4", [[4.00, 5.80], [4.60, 7.10], [5.40, 7.40]], Some([[47.0, 58.0], [59.0, 111.0], [45.0, 75.0]])),
    ("3x5g4", [[5.44, 8.98], [5.31, 8.77], [5.10, 8.02]], None),
    ("5x4g4", [[13.2, 48.0], [23.3, 67.0], [25.7, 76.0]], None),
    ("4x4k4", [[41.0, 52.7], [100.0, 88.0], [0.0, 0.0]], Some([[6_500.0, 19_000.0], [11_600.0, 46_600.0], [0.0, 0.0]])),
];

/// The row of [`MEASURED`] for `game` (or its transpose, for an m,n,k-game).
fn measured(game: Game) -> Option<&'static (&'static str, PerPlay, Option<PerPlay>)> {
    let (name, twin) = (game.to_string(), transposed(game));
    MEASURED.iter().find(|m| m.0 == name || Some(m.0) == twin.as_deref())
}

/// The index of a way of playing: X or O against a fixed opponent (`Some(seat)`), or
/// self-play (`None`).
fn play_index(seat: Option<Seat>) -> usize {
    match seat {
        Some(Seat::X) => 0,
        Some(Seat::O) => 1,
        None => 2,
    }
}

/// A training episode on `game` over the calibration's at the reference spread: seat
/// `seat` against a fixed opponent (`None`: self-play), without `symmetry`; `values` (the
/// bytes of the job's values) serves a board not measured.
pub fn episode(game: Game, seat: Option<Seat>, values: u64, big_table: f64) -> f64 {
    if let Some(t) = measured_episode(game, seat, false) {
        return t;
    }
    // Not measured: the length of a game (cells over tic-tac-toe's), twice in self-play
    // (the learner makes both sides' moves), times the slowdown of the values beyond the
    // caches.
    let longer = game.cells() as f64 / Game::TIC_TAC_TOE.cells() as f64;
    let games = if seat.is_none() { 2.0 } else { 1.0 };
    games * longer * super::slowdown_by(values, big_table)
}

/// How many times an episode costs with `symmetry` what it costs without: a table with
/// the symmetry index reads each value through it, whatever the spread of the games (on
/// 3x4k4 as X, 1.9 times with the reference schedule and 2.1 with the default one). 1.3
/// on a board not measured.
pub fn symmetry(game: Game, seat: Option<Seat>) -> f64 {
    match (measured_episode(game, seat, true), measured_episode(game, seat, false)) {
        (Some(with), Some(without)) => with / without,
        _ => 1.3,
    }
}

/// The measured episode of [`MEASURED`], if measured.
fn measured_episode(game: Game, seat: Option<Seat>, symmetry: bool) -> Option<f64> {
    measured(game).map(|m| m.1[play_index(seat)][usize::from(symmetry)]).filter(|&t| t > 0.0)
}

/// How widely a job's games spread over its table, against the reference of [`MEASURED`]
/// (1): `exploring` is the mean exploration rate over its episodes (epsilon, or the
/// softmax temperature), `opponent` the fixed opponent it trains against (`None`:
/// self-play). A greedy schedule still meets the random opponent's replies (measured on
/// 3x4k3, 3x4k4 and 4x4g4: the default schedule, epsilon 0.05 after its first 6,000
/// episodes, costs the base and half the rest); a deterministic opponent (`minimax`, a
/// saved policy) keeps the games to few lines (a tenth: 3x4k4's episode against it costs
/// 0.22 of one against random, 4x4g4's 0.27), `minimax-uniform` to half.
pub fn spread(exploring: f64, opponent: Option<Opponent>) -> f64 {
    let explore = (0.35 + 0.65 * exploring / 0.21).clamp(0.35, 3.0);
    let opponent = match opponent {
        None | Some(Opponent::Random) => 1.0,
        Some(Opponent::MinimaxUniform) => 0.5,
        Some(_) => 0.1,
    };
    explore * opponent
}

/// One exact evaluation of a learned policy on `game` in `seat` against `opponent`, over
/// the calibration's (tic-tac-toe's optimal policy, X against random); `self_play` for a
/// self-play learner's policy, `symmetry` for a table with the symmetry index.
pub fn evaluation(game: Game, seat: Seat, opponent: EvalOpponent, self_play: bool, symmetry: bool) -> f64 {
    let play = if self_play { 2 } else { play_index(Some(seat)) };
    let measured = measured(game).and_then(|m| m.2).map(|e| e[play][usize::from(symmetry)]).filter(|&e| e > 0.0);
    let against_random = match measured {
        Some(evaluation) => evaluation,
        None => {
            // A learner's policy against random reaches more than the optimal one: 2.6
            // times on tic-tac-toe as X, 8 as O (measured); growing with the agent states
            // to the power 3/4.
            let states = super::states_over_tic_tac_toe(game, &[seat]);
            let seat = if seat == Seat::X { 2.6 } else { 8.0 };
            seat * states.powf(0.75) * if symmetry { 1.5 } else { 1.0 }
        }
    };
    let reach = match opponent {
        // A self-play policy meets minimax-uniform's many optimal lines on its own
        // (measured on 3x4k4: 0.8 to 1.5 times its reach against random).
        EvalOpponent::Fixed(Opponent::MinimaxUniform) if self_play => 1.2,
        _ => opponent_reach(opponent),
    };
    against_random * reach
}

/// What an evaluation against `opponent` costs over one against `random` (measured on
/// the boards of [`MEASURED`], medians over boards and seats, for a policy trained against
/// a fixed opponent): `minimax` answers each
/// move one way and reaches a twentieth, `minimax-uniform` among its optimal moves about
/// half, a saved policy like `minimax`; the best response is found over every reply and
/// costs 1.8 times as much.
pub fn opponent_reach(opponent: EvalOpponent) -> f64 {
    match opponent {
        EvalOpponent::BestResponse => 1.8,
        EvalOpponent::Fixed(Opponent::Random) => 1.0,
        EvalOpponent::Fixed(Opponent::MinimaxUniform) => 0.45,
        EvalOpponent::Fixed(_) => 0.05,
    }
}

/// MCTS's reach on the measured boards, per seat (X, O): the positions its policy
/// searches in an evaluation against `random`, over tic-tac-toe's (measured at 100 and
/// 1,000 iterations a search, 2 jobs each, geometric mean: tic-tac-toe's X 105, O 390;
/// 3x4k3's O again at 500 iterations and three values of `uct_c`, 1,700). A board where
/// X wins fast against random (3x4k3, 3x5g3) reaches far fewer than its states say.
pub const MCTS_REACH: &[(&str, [f64; 2])] = &[
    ("3x3k3", [1.0, 1.0]),
    ("3x4k3", [1.9, 4.4]),
    ("3x4k4", [34.0, 36.0]),
    ("4x4g4", [15.0, 8.3]),
    ("3x5g3", [0.76, 1.9]),
];

/// The positions an MCTS evaluation on `game` searches in `seat` over tic-tac-toe's, on a
/// measured board ([`MCTS_REACH`]; a transposed m,n,k-game counts as its twin).
pub fn mcts_reach(game: Game, seat: Seat) -> Option<f64> {
    let twin = transposed(game);
    MCTS_REACH
        .iter()
        .find(|m| m.0 == game.to_string() || Some(m.0) == twin.as_deref())
        .map(|m| m.1[usize::from(seat == Seat::O)])
}

/// An m,n,k-game's transpose, which has its figures (none for a gravity board).
fn transposed(game: Game) -> Option<String> {
    (game.family() == Family::Mnk)
        .then(|| Game::of(game.family(), game.cols() as u8, game.rows() as u8, game.k() as u8))
        .flatten()
        .map(|g| g.to_string())
}

/// Eligibility traces in self-play, per board: kernel episodes an episode costs beyond
/// its one-step learner's at the learner's share (measured with Q(lambda)). The traces
/// span both sides' moves, so they cost
/// where self-play games last (boards drawn under good play: tic-tac-toe, 3x4k4, 4x4g4)
/// and not where X learns to win fast (3x4k3, 3x5g3, 4x4g3). Measured with lambda 0.5 and
/// 0.9, which cost the same.
pub const TRACES_SELF_PLAY: &[(&str, f64)] =
    &[("3x3k3", 5.0), ("3x4k3", 0.0), ("3x4k4", 4.0), ("4x4g4", 6.6), ("3x5g3", 0.0), ("4x4g3", 0.5)];

/// Eligibility traces in self-play on `game`, in kernel episodes an episode (see
/// [`TRACES_SELF_PLAY`]; 4 on a board not measured).
pub fn traces_self_play(game: Game) -> f64 {
    let twin = transposed(game);
    TRACES_SELF_PLAY.iter().find(|m| m.0 == game.to_string() || Some(m.0) == twin.as_deref()).map_or(4.0, |m| m.1)
}

/// The moves a game offers, counted over random games: per game, the legal moves summed
/// over X's turns, over O's turns, and the moves played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Playout {
    /// Legal moves summed over X's turns, then O's, per game.
    pub legal: [f64; 2],
    /// Moves played per game.
    pub length: f64,
}

/// [`Playout`] of `game` from 2,000 random games (a fixed seed; cached per game; well
/// under a millisecond on the boards of up to 16 cells).
pub fn playout(game: Game) -> Playout {
    static CACHE: OnceLock<Mutex<HashMap<Game, Playout>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(p) = cache.lock().expect("not poisoned").get(&game) {
        return *p;
    }
    const GAMES: u32 = 2_000;
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        // xorshift64*: a fixed stream, so that the estimate is the same in every run.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let (mut legal, mut length) = ([0u64; 2], 0u64);
    for _ in 0..GAMES {
        let mut board = Board::empty(game);
        loop {
            let moves = board.legal_moves();
            if moves == 0 {
                break;
            }
            let n = moves.count_ones();
            legal[usize::from(board.to_move() == Player::O)] += u64::from(n);
            let pick = ((next() >> 32) * u64::from(n)) >> 32;
            let mut rest = moves;
            for _ in 0..pick {
                rest &= rest - 1;
            }
            board = board.play(rest.trailing_zeros() as u8);
            length += 1;
        }
    }
    let per = |n: u64| n as f64 / f64::from(GAMES);
    let p = Playout { legal: [per(legal[0]), per(legal[1])], length: per(length) };
    cache.lock().expect("not poisoned").insert(game, p);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transposed_board_is_measured_as_its_twin_and_others_are_estimated() {
        let g = |s: &str| s.parse::<Game>().unwrap();
        assert_eq!(episode(g("4x3k4"), Some(Seat::X), 0, 60.0), episode(g("3x4k4"), Some(Seat::X), 0, 60.0));
        assert!(measured(g("4x3g4")).is_none(), "a gravity board's transpose is another game");
        // Every measured episode costs about the kernel's or more; 0 is "not measured".
        for (name, training, _) in MEASURED {
            for play in training {
                assert!(play.iter().all(|&t| t > 0.5 || t == 0.0), "{name}");
            }
        }
        let big = episode(g("4x4k3"), Some(Seat::X), 98 << 20, 60.0);
        assert!(big > 20.0, "{big}");
        assert!(symmetry(g("3x4k4"), Some(Seat::X)) > 1.5 && symmetry(g("4x4k3"), None) == 1.3);
    }

    #[test]
    fn a_random_game_of_tic_tac_toe_has_its_known_length() {
        // Random play: 7.626 moves a game in expectation (by enumeration).
        let p = playout(Game::TIC_TAC_TOE);
        assert!((p.length - 7.626).abs() < 0.15, "{p:?}");
        assert!(p.legal[0] > p.legal[1], "X moves first, on fuller boards of choices");
        assert_eq!(playout(Game::TIC_TAC_TOE), p, "the same stream every time");
    }

    #[test]
    fn spread_and_reach_order_the_opponents() {
        assert_eq!(spread(0.21, Some(Opponent::Random)), 1.0);
        assert!(spread(0.05, None) < spread(0.21, None) && spread(1.0, None) <= 3.0);
        assert!(spread(0.21, Some(Opponent::Minimax)) < spread(0.21, Some(Opponent::MinimaxUniform)));
        assert!(opponent_reach(EvalOpponent::BestResponse) > opponent_reach(EvalOpponent::Fixed(Opponent::Random)));
    }
}
