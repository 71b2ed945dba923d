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

use super::tabular::{Exploration, Table};
use crate::mdp::{AgentMdp, TERMINAL};

/// The action value of every slot of `mdp` under discount `gamma`, where the value of a
/// state is `backup(state, its slots' action values)`.
pub fn action_values(mdp: &AgentMdp, gamma: f64, mut backup: impl FnMut(usize, &[f64]) -> f64) -> Vec<f64> {
    let mut q = vec![0.0; mdp.slots()];
    // γ · V(s): the MDP's `q` expression then gives r̄ + γ · Σ p · V(s').
    let mut discounted = vec![0.0; mdp.len()];
    for s in (0..mdp.len()).rev() {
        mdp.each_q(s, &discounted, |slot, v| q[slot] = v);
        discounted[s] = gamma * backup(s, &q[mdp.actions(s)]);
    }
    q
}

/// Q*: the optimal action values under discount `gamma`.
pub fn optimal_action_values(mdp: &AgentMdp, gamma: f64) -> Vec<f64> {
    action_values(mdp, gamma, |_, q| q.iter().copied().fold(f64::NEG_INFINITY, f64::max))
}

/// Q^π of the behaviour policy `exploration` acting on `table`, under discount `gamma`.
pub fn behaviour_action_values(mdp: &AgentMdp, gamma: f64, table: &Table, exploration: Exploration) -> Vec<f64> {
    action_values(mdp, gamma, |s, q| {
        let first = mdp.actions(s).start;
        table.expectation(s, exploration, |slot| q[slot - first])
    })
}

/// The root-mean-square of `table - target` over the actions of the states that the
/// table's greedy policy reaches.
pub fn q_error(mdp: &AgentMdp, table: &Table, target: &[f64]) -> f64 {
    let mut reached = vec![false; mdp.len()];
    for o in mdp.start() {
        reached[o.next as usize] = true;
    }
    let (mut sum, mut count) = (0.0, 0usize);
    for s in 0..mdp.len() {
        if !reached[s] {
            continue;
        }
        for o in mdp.outcomes(table.greedy(s).0) {
            if o.next != TERMINAL {
                reached[o.next as usize] = true;
            }
        }
        for slot in mdp.actions(s) {
            let d = table.value(slot) - target[slot];
            sum += d * d;
            count += 1;
        }
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
        let mut table = Table::new(crate::game::Game::TIC_TAC_TOE, states, 0.0, false);
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
}
