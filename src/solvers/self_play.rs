//! Q-learning in self-play: one table plays both seats.
//!
//! The table is seen from the side to move: `Q(s,a)` is the return that the player to move
//! in position `s` expects after playing `a` (X and O are swapped when O moves; since X and
//! O positions never coincide, keying by position is the same table). Both sides pick
//! ε-greedily (greedy ties: lowest cell). After every move, the negamax update
//!
//! `Q(s,a) += alpha * (target - Q(s,a))`, `target = r` if the move ended the game (the
//! mover's reward: +1 for a win, 0 for a draw), else `-gamma * max_a' Q(s',a')`, where
//! `s'` is the position the opponent now faces.
//!
//! The sign flip is what makes O learn to win: each side's reward is its own (an update
//! that gave O's moves X's reward would teach O to lose). Schedules for epsilon and alpha,
//! `q_init`, `symmetry` and the random-number scheme are those of
//! [`q_learning`](super::q_learning). Stopping rule: a fixed number of `episodes` (games).
//! References: Tesauro 1995 (self-play); Littman 1994 (minimax-Q / negamax values).

use rand::RngCore;

use super::params::QParams;
use super::q_learning::{Checkpoint, Step, below, run_schedule};
use crate::game::{Status, symmetry};
use crate::mdp::Policy;
use crate::seed::{self, Stream};

/// No next position: the move ended the game.
const END: u16 = u16::MAX;

/// The move table of all ongoing positions, flat: position → slots (cell, child).
struct Layout {
    start: Vec<u32>,
    cell: Vec<u8>,
    child: Vec<u16>,
    /// The mover's reward when the move ends the game.
    reward: Vec<f64>,
}

impl Layout {
    fn build() -> Layout {
        let pos = crate::game::Game::TIC_TAC_TOE.positions();
        let mut l = Layout { start: vec![0], cell: Vec::new(), child: Vec::new(), reward: Vec::new() };
        for id in 0..pos.len() {
            let mover = pos.board(id).to_move();
            for c in pos.board(id).legal_cells() {
                let n = pos.child(id, c) as usize;
                l.cell.push(c);
                match pos.status(n) {
                    Status::Ongoing => {
                        l.child.push(n as u16);
                        l.reward.push(0.0);
                    }
                    s => {
                        l.child.push(END);
                        l.reward.push(s.reward(mover).expect("finished"));
                    }
                }
            }
            l.start.push(l.cell.len() as u32);
        }
        l
    }
}

/// The self-play table.
pub struct SelfPlayTable {
    layout: Layout,
    index: Vec<u32>,
    q: Vec<f64>,
}

impl SelfPlayTable {
    /// Every entry `q_init`; keyed by symmetry class when `symmetry`.
    pub fn new(q_init: f64, symmetry: bool) -> SelfPlayTable {
        let layout = Layout::build();
        let pos = crate::game::Game::TIC_TAC_TOE.positions();
        let slots = layout.cell.len();
        let (index, size) = if symmetry {
            let mut index = vec![0u32; slots];
            for id in 0..pos.len() {
                let (_, t) = symmetry::canonical(pos.board(id));
                let slots = layout.start[id] as usize..layout.start[id + 1] as usize;
                for (entry, &c) in index[slots.clone()].iter_mut().zip(&layout.cell[slots]) {
                    *entry = (pos.class(id) * 9 + symmetry::PERM[t][c as usize] as usize) as u32;
                }
            }
            (index, pos.classes() * 9)
        } else {
            ((0..slots as u32).collect(), slots)
        };
        SelfPlayTable { layout, index, q: vec![q_init; size] }
    }

    /// The greedy slot of position `id` for the side to move, and its value.
    #[inline(always)]
    fn greedy(&self, id: usize) -> (usize, f64) {
        let (a, b) = (self.layout.start[id] as usize, self.layout.start[id + 1] as usize);
        let mut best = (a, self.q[self.index[a] as usize]);
        for slot in a + 1..b {
            let v = self.q[self.index[slot] as usize];
            if v > best.1 {
                best = (slot, v);
            }
        }
        best
    }

    /// The greedy move in every ongoing position (for either seat).
    pub fn policy(&self) -> Policy {
        let mut p = Policy::new(crate::game::Game::TIC_TAC_TOE);
        for id in 0..self.layout.start.len() - 1 {
            if self.layout.start[id] < self.layout.start[id + 1] {
                p.set(id, self.layout.cell[self.greedy(id).0]);
            }
        }
        p
    }
}

/// Trains by self-play; calls `checkpoint` after each listed episode. Returns the greedy
/// policy, defined for both seats.
pub fn train(
    params: &QParams,
    seed: u64,
    checkpoints: &[u64],
    mut checkpoint: impl FnMut(Checkpoint, &SelfPlayTable),
) -> Policy {
    let mut table = SelfPlayTable::new(params.q_init, params.symmetry);
    let mut rng = seed::rng(seed, Stream::Train);
    run_schedule(params, checkpoints, |step| match step {
        Step::Play { explore, alpha } => run_episode(&mut table, &mut rng, explore, alpha, params.gamma),
        Step::Checkpoint(c) => checkpoint(c, &table),
    });
    table.policy()
}

fn run_episode(table: &mut SelfPlayTable, rng: &mut impl RngCore, explore: u64, alpha: f64, gamma: f64) {
    let mut id = 0usize;
    let mut greedy = table.greedy(id).0;
    loop {
        let (a, b) = (table.layout.start[id] as usize, table.layout.start[id + 1] as usize);
        let draw = rng.next_u64();
        let slot = if draw >> 32 < explore { a + below(draw as u32, b - a) } else { greedy };
        let next = table.layout.child[slot];
        let target = if next == END {
            table.layout.reward[slot]
        } else {
            let (g, v) = table.greedy(next as usize);
            greedy = g;
            -gamma * v
        };
        let entry = &mut table.q[table.index[slot] as usize];
        *entry += alpha * (target - *entry);
        if next == END {
            return;
        }
        id = next as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mdp::{Evaluator, Opponent, Seat};
    use crate::solvers::ground_truth;

    /// The schedule the `selfplay` experiment uses.
    pub(crate) fn schedule() -> QParams {
        QParams {
            opponent: crate::solvers::TrainOpponent::SelfPlay,
            episodes: 500_000,
            alpha: 0.5,
            alpha_decay: 0.999_99,
            alpha_min: 0.05,
            gamma: 1.0,
            epsilon: 1.0,
            epsilon_decay: 0.999_99,
            epsilon_min: 0.1,
            ..QParams::default()
        }
    }

    fn value(policy: &Policy, seat: Seat, opp: Opponent) -> (f64, f64) {
        let truth = ground_truth(crate::game::Game::TIC_TAC_TOE, seat, opp);
        let e = Evaluator::new().evaluate(&truth.mdp, |_, b| policy.get_or_first(b));
        (e.value, truth.solution.value - e.value)
    }

    #[test]
    fn self_play_learns_not_to_lose_to_minimax_in_either_seat() {
        let policy = train(&schedule(), 1, &[], |_, _| {});
        // Measured with this schedule (seeds 0..5): value 0 against minimax in both seats;
        // regret against random 0 as X and 0.1185 as O (self-play learns safe, not
        // exploiting, play for O).
        for &seat in Seat::ALL {
            let (v, _) = value(&policy, seat, Opponent::Minimax);
            assert_eq!(v, 0.0, "{seat} against minimax");
        }
        let (_, rx) = value(&policy, Seat::X, Opponent::Random);
        assert!((-1e-12..0.01).contains(&rx), "x against random: regret {rx}");
        let (_, ro) = value(&policy, Seat::O, Opponent::Random);
        assert!((-1e-12..0.15).contains(&ro), "o against random: regret {ro}");
    }
}
