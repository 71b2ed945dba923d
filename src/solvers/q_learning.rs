//! Tabular Q-learning for one seat against a fixed opponent.
//!
//! Algorithm (Watkins 1989; Sutton & Barto 2018, §6.5), in the seed articles' formulation:
//! the agent picks ε-greedily among the legal moves (greedy ties: lowest cell); after its
//! move and the opponent's reply,
//!
//! `Q(s,a) += alpha * (target - Q(s,a))`, `target = r` if the game ended, else
//! `gamma * max_a' Q(s',a')`, where `s'` is the agent's next position.
//!
//! - Assumptions: a fixed opponent (uniform over its support in each position), so the
//!   agent's problem is the agent MDP of (seat, opponent), used here as the simulator: an
//!   action's outcomes are equally likely, and the opponent's reply is one uniform draw
//!   among them (one 64-bit draw per reply, multiply-shift map), as is the first agent
//!   state when the agent plays O.
//! - Hyperparameters: `alpha`, `alpha_decay`, `alpha_min`, `gamma`, `epsilon`,
//!   `epsilon_decay`, `epsilon_min`, `q_init`, `symmetry`, `episodes`. The table, the
//!   symmetry index, the greedy scan, the schedules, the ε-greedy step and the
//!   checkpoints are the shared core's ([`tabular`]); this file holds the
//!   update rule and the episode loop.
//! - Stopping rule: a fixed number of `episodes` (games).
//! - What the table means: Q* of the agent MDP under the learner's own `gamma`, which
//!   Q-learning estimates off-policy whatever its exploration
//!   ([`action_values`](super::action_values), the `q_error` column).
//!
//! The helpers that every fixed-opponent learner shares (the table over the MDP, the
//! first state, the opponent's sampled reply) are here too.
//!
//! No allocation inside an episode; the table's states and slots are the MDP's.

use rand::RngCore;

use super::ground_truth::ground_truth;
use super::layout::{Layout, LayoutKey, layout};
use super::params::{QParams, TrainOpponent};
use super::self_play::Successors;
use super::tabular::{self, Exploration, Step, Table, Trained};
use crate::mdp::{AgentMdp, Policy};
use crate::seed::{self, Stream};

pub use super::tabular::{Checkpoint, checkpoint_episodes};

/// A table over the agent states of `mdp` (one of the ground truth's), whose slots are
/// the MDP's action slots: the run's shared layout and values of its own.
pub(super) fn table(mdp: &AgentMdp, q_init: f64, symmetry: bool) -> Table {
    let key = LayoutKey { game: mdp.game(), agent: Some((mdp.seat(), mdp.opponent())), symmetry };
    let table = Table::with_layout(layout(key), q_init);
    assert_eq!(table.states(), mdp.len(), "the table's states are the MDP's");
    table
}

/// The MDP a fixed-opponent learner trains on (a bug to ask for self-play's).
pub(super) fn training_mdp(params: &QParams, learner: &str) -> &'static AgentMdp {
    let TrainOpponent::Fixed(opponent) = params.opponent else {
        panic!("{learner} trains against a fixed opponent here; self-play has its own loop");
    };
    &ground_truth(params.game, params.seat, opponent).mdp
}

/// The agent's first state of an episode: one uniform draw among the opponent's openings
/// when the agent plays O, no draw when it plays X.
#[inline(always)]
pub(super) fn first_state(mdp: &AgentMdp, rng: &mut impl RngCore) -> usize {
    let start = mdp.start();
    let first = if start.len() == 1 { start[0] } else { start[tabular::below(rng.next_u64() as u32, start.len())] };
    first.next as usize
}

/// The outcome of playing `slot`: the opponent's reply is one uniform draw among the
/// action's outcomes (no draw when there is one). `Ok(next state)` or `Err(reward)`.
///
/// On a big board each step of an episode waits on memory: the next state's slot range
/// (`layout`), then its values and its rows, then the chosen move's outcome codes. The
/// rows are asked for here, as soon as the next state is known, so that they arrive with
/// its values instead of after them: one wait fewer per step (see `docs/performance.md`
/// §16). The table's own layout gives the slot range, the one the values' read needs too;
/// on a board whose tables stay in the caches (tic-tac-toe, 3x4k4) nothing is asked.
#[inline(always)]
pub(super) fn outcome(mdp: &AgentMdp, layout: &Layout, slot: usize, rng: &mut impl RngCore) -> Result<usize, f64> {
    let next = plain_outcome(mdp, slot, rng);
    if let (Ok(next), true) = (next, layout.deep()) {
        mdp.prefetch_rows(layout.slots(next));
    }
    next
}

/// [`outcome`] without asking for anything: for a loop that knows its tables stay in the
/// caches.
#[inline(always)]
fn plain_outcome(mdp: &AgentMdp, slot: usize, rng: &mut impl RngCore) -> Result<usize, f64> {
    let n = mdp.outcome_count(slot);
    mdp.sampled(slot, if n == 1 { 0 } else { tabular::below(rng.next_u64() as u32, n) })
}

/// Trains a Q-learner against a fixed opponent; calls `checkpoint` with the table after
/// each episode listed in `checkpoints` (increasing). Returns the final greedy policy.
pub fn train(params: &QParams, seed: u64, checkpoints: &[u64], checkpoint: impl FnMut(Checkpoint, &Table)) -> Policy {
    train_table(params, seed, checkpoints, checkpoint).table.policy()
}

/// [`train`], returning the final table and behaviour policy.
pub fn train_table(
    params: &QParams,
    seed: u64,
    checkpoints: &[u64],
    checkpoint: impl FnMut(Checkpoint, &Table),
) -> Trained {
    let gamma = params.gamma;
    let fixed = |table: &mut Table, mdp: &AgentMdp, rng: &mut seed::Rng, s, exploration, alpha| {
        run_episode(table, mdp, rng, s, exploration, alpha, gamma)
    };
    drive(params, seed, "q_learning::train", checkpoints, checkpoint, fixed, None::<SelfPlayEpisode>)
}

/// One self-play episode of a one-table learner: table, successors, generator,
/// exploration, step size.
pub(super) type SelfPlayEpisode = fn(&mut Table, &Successors, &mut seed::Rng, Exploration, f64);

/// The training loop of the one-table learners: against a fixed opponent, `fixed` plays
/// an episode from the agent's first state; in self-play (`params.opponent` is `self`),
/// `self_play` plays one on the table over every position. `learner` names the learner
/// in the message of a bug (self-play asked of a learner without a self-play form).
pub(super) fn drive(
    params: &QParams,
    seed: u64,
    learner: &str,
    checkpoints: &[u64],
    mut checkpoint: impl FnMut(Checkpoint, &Table),
    mut fixed: impl FnMut(&mut Table, &AgentMdp, &mut seed::Rng, usize, Exploration, f64),
    self_play: Option<impl FnMut(&mut Table, &Successors, &mut seed::Rng, Exploration, f64)>,
) -> Trained {
    let mut rng = seed::rng(seed, Stream::Train);
    if let (TrainOpponent::SelfPlay, Some(mut self_play)) = (params.opponent, self_play) {
        let (mut table, successors) = super::self_play::build(params.game, params.q_init, params.symmetry);
        let exploration = tabular::run_schedule(params, checkpoints, |step| match step {
            Step::Play { exploration, alpha } => self_play(&mut table, &successors, &mut rng, exploration, alpha),
            Step::Checkpoint(c) => checkpoint(c, &table),
        });
        return Trained { table, exploration };
    }
    let mdp = training_mdp(params, learner);
    let mut table = table(mdp, params.q_init, params.symmetry);
    table.expect_episodes(params.episodes);
    let exploration = tabular::run_schedule(params, checkpoints, |step| match step {
        Step::Play { exploration, alpha } => {
            let first = first_state(mdp, &mut rng);
            fixed(&mut table, mdp, &mut rng, first, exploration, alpha);
        }
        Step::Checkpoint(c) => checkpoint(c, &table),
    });
    Trained { table, exploration }
}

/// One game from agent state `s`.
#[inline]
fn run_episode(
    table: &mut Table,
    mdp: &AgentMdp,
    rng: &mut impl RngCore,
    s: usize,
    exploration: Exploration,
    alpha: f64,
    gamma: f64,
) {
    // On a table that stays in the caches and whose writes are not marked (tic-tac-toe's),
    // the loop is the one without prefetches and marks: the same steps, fewer tests.
    if table.is_plain() {
        episode::<false>(table, mdp, rng, s, exploration, alpha, gamma);
    } else {
        episode::<true>(table, mdp, rng, s, exploration, alpha, gamma);
    }
}

/// [`run_episode`]'s loop; `BIG`: the table may prefetch and mark its writes.
#[inline(always)]
fn episode<const BIG: bool>(
    table: &mut Table,
    mdp: &AgentMdp,
    rng: &mut impl RngCore,
    mut s: usize,
    exploration: Exploration,
    alpha: f64,
    gamma: f64,
) {
    let mut greedy = table.greedy(s).0;
    loop {
        let slot = table.choose(s, greedy, exploration, rng);
        let outcome = if BIG { outcome(mdp, table.layout(), slot, rng) } else { plain_outcome(mdp, slot, rng) };
        let target = match outcome {
            Err(reward) => reward,
            Ok(next) => {
                let (g, v) = table.greedy(next);
                greedy = g;
                gamma * v
            }
        };
        if BIG {
            table.update(slot, alpha, target);
        } else {
            table.update_plain(slot, alpha, target);
        }
        match outcome {
            Err(_) => return,
            Ok(next) => s = next,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mdp::{Evaluator, Opponent, Seat};

    fn regret_after(params: &QParams, seed: u64) -> f64 {
        let policy = train(params, seed, &[], |_, _| {});
        let truth = ground_truth(crate::game::Game::TIC_TAC_TOE, params.seat, Opponent::Random);
        let eval = Evaluator::new().evaluate(&truth.mdp, |_, b| policy.get_or_first(b));
        truth.solution.value - eval.value
    }

    #[test]
    fn outcomes_are_equally_likely_in_every_mdp() {
        for &seat in Seat::ALL {
            for &opp in Opponent::ALL {
                let m = &ground_truth(crate::game::Game::TIC_TAC_TOE, seat, opp).mdp;
                for slot in 0..m.slots() {
                    let o: Vec<_> = m.outcomes(slot).collect();
                    assert!(o.iter().all(|x| x.prob == o[0].prob));
                    for (k, x) in o.iter().enumerate() {
                        let want = if x.next == crate::mdp::TERMINAL { Err(x.reward) } else { Ok(x.next as usize) };
                        assert_eq!(m.sampled(slot, k), want);
                    }
                }
                assert!(m.start().iter().all(|x| x.prob == m.start()[0].prob));
            }
        }
    }

    #[test]
    fn same_seed_same_policy() {
        let p = QParams { episodes: 3000, ..QParams::default() };
        assert_eq!(train(&p, 9, &[], |_, _| {}), train(&p, 9, &[], |_, _| {}));
        assert_ne!(train(&p, 9, &[], |_, _| {}), train(&p, 10, &[], |_, _| {}));
    }

    #[test]
    fn symmetry_learns_faster() {
        // The `symmetry` experiment's settings after 4,000 episodes, seeds 0..10: measured
        // mean regret 0.0346 without symmetry and 0.0060 with it (the experiment's own
        // seeds give 0.033 and 0.0096).
        let base = QParams { episodes: 4000, alpha: 0.25, gamma: 0.99, ..QParams::default() };
        let mean = |symmetry: bool| {
            let p = QParams { symmetry, ..base };
            (0..10).map(|seed| regret_after(&p, seed)).sum::<f64>() / 10.0
        };
        let (plain, shared) = (mean(false), mean(true));
        assert!(shared < 0.5 * plain, "with symmetry {shared}, without {plain}");
    }

    #[test]
    fn a_tuned_schedule_reaches_regret_below_one_percent_on_five_seeds() {
        let params = QParams {
            episodes: 1_000_000,
            alpha: 0.5,
            alpha_decay: 0.999_995,
            alpha_min: 0.01,
            gamma: 1.0,
            epsilon: 1.0,
            epsilon_decay: 0.999_99,
            epsilon_min: 0.05,
            ..QParams::default()
        };
        for seed in 0..5 {
            let r = regret_after(&params, seed);
            assert!((-1e-12..=0.01).contains(&r), "seed {seed}: regret {r}");
        }
    }
}
