//! The exact optimum of every (game, seat, opponent) MDP, built once and shared.
//!
//! Per game six MDPs (2 seats × 3 opponents), each solved on first use by backward
//! induction, which ends exactly where policy iteration ends (see
//! [`policy_iteration::backward`]; a test checks it on every MDP of the small boards), in
//! one pass (a few milliseconds in all for tic-tac-toe, about 0.2 s for 4x4k4 against
//! random), and kept in a cache keyed by (game, seat, opponent); a saved policy opponent is keyed
//! by its file's hash. Learners read the MDPs to train and to be evaluated against.

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use super::policy_iteration::{self, Solution};
use crate::game::Game;
use crate::game::rules::SLOTS;
use crate::mdp::{AgentMdp, Opponent, PolicyRef, Seat};

/// One MDP and its optimal solution.
#[derive(Debug)]
pub struct GroundTruth {
    /// The MDP of (game, seat, opponent).
    pub mdp: AgentMdp,
    /// Its optimal values and policy.
    pub solution: Solution,
}

/// (seat, opponent) pairs per game.
const PAIRS: usize = 6;

fn slot(game: Game, seat: Seat, opponent: Opponent) -> usize {
    let s = Seat::ALL.iter().position(|&x| x == seat).expect("a seat");
    let o = Opponent::ALL.iter().position(|&x| x == opponent).expect("an opponent");
    game.slot() * PAIRS + s * Opponent::ALL.len() + o
}

/// The MDP of `seat` against `opponent` in `game` with its exact solution.
pub fn ground_truth(game: Game, seat: Seat, opponent: Opponent) -> &'static GroundTruth {
    cell(game, seat, opponent).get_or_init(|| {
        let mdp = AgentMdp::build(game, seat, opponent);
        let solution = policy_iteration::backward(&mdp);
        GroundTruth { mdp, solution }
    })
}

/// Whether the ground truth of (game, seat, opponent) is built already (the next
/// [`ground_truth`] of it is free).
pub fn is_built(game: Game, seat: Seat, opponent: Opponent) -> bool {
    cell(game, seat, opponent).get().is_some()
}

/// The cache cell of (game, seat, opponent); a saved policy opponent's is keyed by
/// (game, seat, the file's hash) and made on first use.
fn cell(game: Game, seat: Seat, opponent: Opponent) -> &'static OnceLock<GroundTruth> {
    static CACHE: [OnceLock<GroundTruth>; SLOTS * PAIRS] = [const { OnceLock::new() }; SLOTS * PAIRS];
    type Key = (Game, Seat, PolicyRef);
    static SAVED: Mutex<BTreeMap<Key, &'static OnceLock<GroundTruth>>> = Mutex::new(BTreeMap::new());
    let Opponent::Policy(policy) = opponent else { return &CACHE[slot(game, seat, opponent)] };
    let mut saved = SAVED.lock().unwrap_or_else(|e| e.into_inner());
    saved.entry((game, seat, policy)).or_insert_with(|| Box::leak(Box::new(OnceLock::new())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_distinct_and_games_coexist() {
        assert_eq!(Seat::ALL.len() * Opponent::ALL.len(), PAIRS);
        let wide: Game = "3x4k3".parse().unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for game in [Game::TIC_TAC_TOE, wide] {
            for &seat in Seat::ALL {
                for &opponent in Opponent::ALL {
                    assert!(seen.insert(slot(game, seat, opponent)));
                }
            }
        }
        // Against a perfect opponent: tic-tac-toe is a draw, 3x4k3 a first-player win.
        let small = ground_truth(Game::TIC_TAC_TOE, Seat::X, Opponent::Minimax);
        let large = ground_truth(wide, Seat::X, Opponent::Minimax);
        assert_eq!(small.solution.value, 0.0);
        assert_eq!(large.solution.value, 1.0);
        assert_eq!(ground_truth(wide, Seat::O, Opponent::MinimaxUniform).mdp.game(), wide);
        let random = ground_truth(Game::TIC_TAC_TOE, Seat::X, Opponent::Random);
        assert_eq!(random.mdp.len(), 2423);
        assert!((random.solution.value - 191.0 / 192.0).abs() < 1e-12);
    }
}
