//! Monte Carlo control: first-visit, on-policy, against a fixed opponent or in self-play.
//!
//! Algorithm (Sutton & Barto 2018, §5.4, on-policy first-visit MC control for ε-soft
//! policies): play a whole game by the behaviour policy (ε-greedy or softmax), then for
//! every move `(s,a)` of the game, last first, with `G` its return,
//!
//! `Q(s,a) += step * (G - Q(s,a))`, `G = gamma^k * r`,
//!
//! where `r` is the final reward and `k` the number of the agent's moves after this one;
//! `step` is `alpha` with its schedule (`step = "alpha"`) or `1/N(s,a)`, the number of
//! returns the entry has received (`step = "average"`: the entry is their mean). Every
//! visit is a first visit here: a position never repeats within a game (each move adds a
//! mark), and with `symmetry` two positions of one game never share a class (they have
//! different numbers of marks). The self-play form keeps one table seen from the side to
//! move: the last mover's return is `r`, and each earlier move's is `-gamma` times the
//! next move's.
//!
//! - Assumptions: episodic tasks (every game ends within 9 moves); those of
//!   [`q_learning`](super::q_learning) or [`self_play`](super::self_play).
//! - Hyperparameters: those of Q-learning, with `exploration` (and its temperature) and
//!   `step`. With `step = "average"` alpha and its schedule are unused (the curves'
//!   `alpha` column still shows the schedule). Draws: Q-learning's, in the same order.
//! - Stopping rule: a fixed number of `episodes` (games).
//! - What the table means: returns of the behaviour policy, so Q^π of it under its own
//!   `gamma` while the policy holds still (it drifts as the table changes, which the
//!   sample average remembers longest). `q_error` compares with Q^π of the final
//!   behaviour policy, or with Q* when that policy is greedy.
//!
//! The game's moves are kept as table entries in a buffer reused by every episode, so an
//! episode allocates nothing once the first game has been played. A move's return is the
//! final reward times a power of the factor from a table made once (exact, as the reward is
//! -1, 0 or 1), and the updates run first move first: the next game's first decision reads
//! the entry of this game's first move, and waits for one product and one update rather
//! than for a chain of them. During play the greedy scan runs only for moves that are not
//! exploring ones (the scan's result is not needed otherwise). References: Sutton & Barto
//! 2018, §5.3–5.4.

use super::params::{MonteCarloParams, StepRule, TrainOpponent};
use super::q_learning::{first_state, outcome, table, training_mdp};
use super::self_play::{END, build};
use super::tabular::{Checkpoint, Step, Table, Trained, run_schedule};
use crate::seed::{self, Stream};

/// The update of a finished game.
struct Returns {
    /// The slots played, in order.
    moves: Vec<u32>,
    /// `powers[k]` is `factor^k`, the return `k` moves before the last one's per unit of
    /// final reward, for every `k` a game allows.
    powers: Vec<f64>,
    /// Returns received per table entry (`step = "average"` only).
    counts: Vec<u32>,
    /// Whether the step is the sample average.
    average: bool,
}

impl Returns {
    /// Returns whose each earlier move's return is `factor` times the next one's.
    fn new(table: &Table, step: StepRule, factor: f64) -> Returns {
        let average = step == StepRule::Average;
        let counts = if average { vec![0; table.entries().len()] } else { Vec::new() };
        let mut powers = vec![1.0];
        for k in 1..table.game().cells() {
            powers.push(powers[k - 1] * factor);
        }
        Returns { moves: Vec::with_capacity(powers.len()), powers, counts, average }
    }

    /// Updates every move of the game, first first, whose last return is `reward` (the
    /// final reward, -1, 0 or 1): the return of the move `k` moves before the last is
    /// `reward * factor^k`, equal bit for bit to multiplying `reward` by `factor` `k`
    /// times, as multiplying by -1, 0 or 1 is exact. No return waits for another, so the
    /// next game's first decision, which reads the entry updated first, waits for one
    /// product only.
    #[inline(always)]
    fn update(&mut self, table: &mut Table, alpha: f64, reward: f64) {
        debug_assert!(reward == -1.0 || reward == 0.0 || reward == 1.0);
        let last = self.moves.len() - 1;
        for (k, &entry) in self.moves.iter().enumerate() {
            let entry = entry as usize;
            let g = reward * self.powers[last - k];
            let step = if self.average {
                let n = &mut self.counts[entry];
                *n += 1;
                1.0 / f64::from(*n)
            } else {
                alpha
            };
            table.update_entry(entry, step, g);
        }
        self.moves.clear();
    }
}

/// Trains Monte Carlo control against `params.learner.opponent` (a fixed one or itself);
/// calls `checkpoint` after each listed episode.
pub fn train(
    params: &MonteCarloParams,
    seed: u64,
    checkpoints: &[u64],
    mut checkpoint: impl FnMut(Checkpoint, &Table),
) -> Trained {
    let learner = &params.learner;
    let mut rng = seed::rng(seed, Stream::Train);
    let gamma = learner.gamma;
    if learner.opponent == TrainOpponent::SelfPlay {
        let (mut table, successors) = build(learner.game, learner.q_init, learner.symmetry);
        let mut returns = Returns::new(&table, params.step, -gamma);
        let exploration = run_schedule(learner, checkpoints, |step| match step {
            Step::Play { exploration, alpha } => {
                let mut id = 0usize;
                let reward = loop {
                    let slot = table.choose_lazily(id, exploration, &mut rng);
                    returns.moves.push(table.entry(slot) as u32);
                    match successors.child[slot] {
                        END => break successors.reward[slot],
                        next => id = next as usize,
                    }
                };
                returns.update(&mut table, alpha, reward);
            }
            Step::Checkpoint(c) => checkpoint(c, &table),
        });
        return Trained { table, exploration };
    }
    let mdp = training_mdp(learner, "monte carlo control");
    let mut table = table(mdp, learner.q_init, learner.symmetry);
    let mut returns = Returns::new(&table, params.step, gamma);
    let exploration = run_schedule(learner, checkpoints, |step| match step {
        Step::Play { exploration, alpha } => {
            let mut s = first_state(mdp, &mut rng);
            let reward = loop {
                let slot = table.choose_lazily(s, exploration, &mut rng);
                returns.moves.push(table.entry(slot) as u32);
                match outcome(mdp, slot, &mut rng) {
                    Err(reward) => break reward,
                    Ok(next) => s = next,
                }
            };
            returns.update(&mut table, alpha, reward);
        }
        Step::Checkpoint(c) => checkpoint(c, &table),
    });
    Trained { table, exploration }
}
