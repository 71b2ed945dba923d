//! Exact action values of an agent MDP under a discount, and how far a learned table is
//! from them (`q_error`).
//!
//! - [`action_values`]: `Q(slot) = r̄(slot) + γ · Σ p · V(s')`, with `V(s)` a backup of the
//!   state's own action values: the largest for Q* ([`optimal_action_values`]), the
//!   expectation under a behaviour policy for Q^π ([`behaviour_action_values`]). One
//!   backward pass: the MDP's states are in topological order (every transition goes to a
//!   larger state id). The expression is the MDP's own ([`AgentMdp::each_q`]) applied to
//!   `γ · V`; at `γ = 1` these are policy iteration's values (to within 1e-12).
//! - The discount is the learner's own `gamma`: a learner with `gamma < 1` learns (at
//!   best) the discounted values, since its target is `r` at the end and `γ · Q(s', ·)`
//!   before; the game's rewards come only at the end, so a discounted value is the
//!   undiscounted one with each outcome weighted by `γ^(agent moves still to play)`.
//! - [`q_error`]: the root-mean-square difference between a table and target values over
//!   every action of every state that the table's greedy policy reaches from the start
//!   (with positive probability against the MDP's opponent).
//!
//! Assumptions: the table's states and slots are the MDP's (as the fixed-opponent learners
//! build them). References: Sutton & Barto 2018, §3.5–3.6 (Bellman equations for q_π and
//! q_*).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, OnceLock};

use super::ground_truth::ground_truth;
use super::tabular::{Exploration, QTable};
use crate::game::Game;
use crate::mdp::{AgentMdp, Opponent, Seat, TERMINAL};

/// The action value of every slot of `mdp` under discount `gamma`, where the value of a
/// state is `backup(state, its slots' action values)`.
pub fn action_values(mdp: &AgentMdp, gamma: f64, backup: impl FnMut(usize, &[f64]) -> f64) -> Vec<f64> {
    let mut q = vec![0.0; mdp.slots()];
    walk(mdp, gamma, &mut q, backup);
    q
}

/// The backward pass of [`action_values`] into `q` (one entry per slot); returns `γ · V`
/// per state.
fn walk(mdp: &AgentMdp, gamma: f64, q: &mut [f64], mut backup: impl FnMut(usize, &[f64]) -> f64) -> Vec<f64> {
    // γ · V(s): the MDP's `q` expression then gives r̄ + γ · Σ p · V(s').
    let mut discounted = vec![0.0; mdp.len()];
    for s in (0..mdp.len()).rev() {
        mdp.each_q(s, &discounted, |slot, v| q[slot] = v);
        discounted[s] = gamma * backup(s, &q[mdp.actions(s)]);
    }
    discounted
}

/// Q*: the optimal action values under discount `gamma`.
pub fn optimal_action_values(mdp: &AgentMdp, gamma: f64) -> Vec<f64> {
    action_values(mdp, gamma, max)
}

fn max(_: usize, q: &[f64]) -> f64 {
    q.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// Q* of the ground truth's MDP of (game, seat, opponent) under `gamma`, kept per state
/// as `γ · V*` (a state's action values are [`AgentMdp::each_q`] of it, bit for bit
/// [`optimal_action_values`]): built once per process and shared by every job that
/// compares a table with it, like the MDPs.
pub fn optimal(game: Game, seat: Seat, opponent: Opponent, gamma: f64) -> &'static OptimalValues {
    optimal_cell(game, seat, opponent, gamma).get_or_init(|| {
        let mdp = &ground_truth(game, seat, opponent).mdp;
        let mut q = vec![0.0; mdp.slots()];
        OptimalValues { discounted: walk(mdp, gamma, &mut q, max) }
    })
}

/// Whether [`optimal`] of these is built already.
pub fn optimal_is_built(game: Game, seat: Seat, opponent: Opponent, gamma: f64) -> bool {
    optimal_cell(game, seat, opponent, gamma).get().is_some()
}

type OptimalKey = (Game, Seat, Opponent, u64);

fn optimal_cell(game: Game, seat: Seat, opponent: Opponent, gamma: f64) -> &'static OnceLock<OptimalValues> {
    static CACHE: Mutex<BTreeMap<OptimalKey, &'static OnceLock<OptimalValues>>> = Mutex::new(BTreeMap::new());
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let key = (game, seat, opponent, gamma.to_bits());
    cache.entry(key).or_insert_with(|| Box::leak(Box::new(OnceLock::new())))
}

/// Q* of one MDP under one discount, as `γ · V*` per state (see [`optimal`]).
#[derive(Debug)]
pub struct OptimalValues {
    discounted: Vec<f64>,
}

impl OptimalValues {
    /// The bytes it holds (see [`crate::cost::memory::optimal_values`]).
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of_val(&self.discounted[..])
    }
}

/// Q^π of the behaviour policy `exploration` acting on `table`, under discount `gamma`.
pub fn behaviour_action_values(mdp: &AgentMdp, gamma: f64, table: &QTable, exploration: Exploration) -> Vec<f64> {
    action_values(mdp, gamma, |s, q| {
        let first = mdp.actions(s).start;
        table.expectation(s, exploration, |slot| q[slot - first])
    })
}

/// The root-mean-square of `table - target` over the actions of the states that the
/// table's greedy policy reaches.
pub fn q_error(mdp: &AgentMdp, table: &QTable, target: &[f64]) -> f64 {
    rms_over_reached(mdp, table, |s, f| {
        for slot in mdp.actions(s) {
            f(slot, target[slot]);
        }
    })
}

/// [`q_error`] against Q* ([`optimal`]): the same number, bit for bit, computed only at
/// the states the greedy policy reaches.
pub fn q_error_optimal(mdp: &AgentMdp, table: &QTable, optimal: &OptimalValues) -> f64 {
    rms_over_reached(mdp, table, |s, f| mdp.each_q(s, &optimal.discounted, f))
}

/// The root-mean-square of `table - target` over the slots of the states the table's
/// greedy policy reaches, in state order (`targets(s, f)` calls `f(slot, target)` for
/// each slot of `s`, in slot order); only those states are visited.
fn rms_over_reached(mdp: &AgentMdp, table: &QTable, mut targets: impl FnMut(usize, &mut dyn FnMut(usize, f64))) -> f64 {
    // States in increasing order (topological: every transition goes to a larger id).
    let mut todo: BTreeSet<u32> = mdp.start().iter().map(|o| o.next).collect();
    let (mut sum, mut count) = (0.0, 0usize);
    while let Some(s) = todo.pop_first() {
        let s = s as usize;
        todo.extend(mdp.outcomes(table.greedy(s).0).map(|o| o.next).filter(|&n| n != TERMINAL));
        targets(s, &mut |slot, target| {
            let d = table.value(slot) - target;
            sum += d * d;
            count += 1;
        });
    }
    (sum / count as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mdp::{Opponent, Seat};
    use crate::solvers::{ground_truth, tabular::threshold};

    #[test]
    fn undiscounted_optimal_values_are_policy_iterations() {
        for &seat in Seat::ALL {
            for &opponent in Opponent::ALL {
                let truth = ground_truth(crate::game::Game::TIC_TAC_TOE, seat, opponent);
                let q = optimal_action_values(&truth.mdp, 1.0);
                for s in 0..truth.mdp.len() {
                    for slot in truth.mdp.actions(s) {
                        let want = truth.mdp.q(slot, &truth.solution.values);
                        assert!((q[slot] - want).abs() < 1e-12, "{seat} {opponent} {slot}: {} {want}", q[slot]);
                    }
                }
            }
        }
    }

    #[test]
    fn a_greedy_behaviour_on_the_optimal_table_has_the_optimal_values() {
        let truth = ground_truth(crate::game::Game::TIC_TAC_TOE, Seat::X, Opponent::Random);
        let mdp = &truth.mdp;
        let states = (0..mdp.len()).map(|s| (mdp.position(s), mdp.actions(s).map(|slot| mdp.cell(slot))));
        let mut table = QTable::new(crate::game::Game::TIC_TAC_TOE, states, 0.0, false);
        let optimal = optimal_action_values(mdp, 0.9);
        for (slot, &q) in optimal.iter().enumerate() {
            table.update(slot, 1.0, q);
        }
        let greedy = Exploration::EpsilonGreedy { threshold: threshold(0.0) };
        assert_eq!(behaviour_action_values(mdp, 0.9, &table, greedy), optimal);
        assert_eq!(q_error(mdp, &table, &optimal), 0.0);
        // Exploring costs value: Q^π < Q* at the start.
        let explore = Exploration::EpsilonGreedy { threshold: threshold(0.5) };
        let behaviour = behaviour_action_values(mdp, 0.9, &table, explore);
        let start = mdp.actions(0);
        assert!(behaviour[start.clone()].iter().zip(&optimal[start]).all(|(b, o)| b < o));
    }

    /// The q_error a job reports (Q* kept per state, only the reached states visited) is
    /// the full computation's, bit for bit, on trained tables of two boards.
    #[test]
    fn the_shared_optimum_gives_the_full_q_error_bit_for_bit() {
        for game in ["3x3k3", "3x4k3"].map(|g| g.parse::<Game>().unwrap()) {
            for (seat, gamma) in [(Seat::X, 0.9), (Seat::O, 1.0)] {
                let params = crate::solvers::QParams { game, seat, gamma, episodes: 2000, ..Default::default() };
                let trained = crate::solvers::q_learning::train_table(&params, 3, &[], |_, _| {});
                let mdp = &ground_truth(game, seat, Opponent::Random).mdp;
                let full = q_error(mdp, &trained.table, &optimal_action_values(mdp, gamma));
                let shared = q_error_optimal(mdp, &trained.table, optimal(game, seat, Opponent::Random, gamma));
                assert_eq!(full.to_bits(), shared.to_bits(), "{game} {seat}");
                assert!(full > 0.0);
            }
        }
    }
}
