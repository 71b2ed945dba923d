//! Policy iteration on an agent MDP: the exact optimum that every learner is measured
//! against.
//!
//! Algorithm (Howard 1960; Sutton & Barto 2018, §4.3): start from "first legal action
//! everywhere"; repeat (1) policy evaluation, (2) greedy improvement, until no state
//! changes its action.
//!
//! - [`solve`], the fast path: the MDP's states are stored in topological order, so one
//!   backward sweep, `V(s) = Σ p · (r + V(s'))`, evaluates a policy exactly.
//! - [`solve_traced`] follows the seed article's procedure step by step: states in its DFS
//!   order, values kept between rounds (starting at 0), in-place (Gauss–Seidel) sweeps
//!   until the largest change is below 1e-12 (at most 200 sweeps). Its trace for X against
//!   random is, per round, V(empty) and states changed: 0.604167/1241, 0.945312/345,
//!   0.994792/7, 0.994792/0, with 6, 4, 2, 1 sweeps (the article prints 3, 4, 4, 4, which
//!   its own code does not do).
//!
//! Improvement scans actions in cell order and switches to an action only when its value
//! exceeds the best so far by more than 1e-12, so among near-equal actions the lowest cell
//! wins. Undiscounted (every game ends once the board is full). Stopping rule: a round with no
//! change; the number of rounds is small (4 for X against random) because every policy
//! is a finite improvement chain.

use crate::mdp::{AgentMdp, Policy};

/// Values closer than this are ties.
pub const TIE: f64 = 1e-12;

/// One round of policy iteration.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Round {
    /// Evaluation sweeps in this round.
    pub sweeps: u32,
    /// Value of the start after evaluation.
    pub value: f64,
    /// States whose action the improvement changed.
    pub changed: u32,
}

/// An optimal value function and policy of an agent MDP.
#[derive(Clone, Debug)]
pub struct Solution {
    /// Optimal value of every state.
    pub values: Vec<f64>,
    /// The chosen action slot of every state.
    pub actions: Vec<u32>,
    /// Optimal value of the start.
    pub value: f64,
    /// The rounds it took.
    pub rounds: Vec<Round>,
}

impl Solution {
    /// The policy as a table over positions.
    pub fn policy(&self, mdp: &AgentMdp) -> Policy {
        let mut p = Policy::new(mdp.game());
        for (s, &slot) in self.actions.iter().enumerate() {
            p.set(mdp.position(s), mdp.cell(slot as usize));
        }
        p
    }

    /// The value of each action of state `s`, as (cell, value).
    pub fn action_values<'a>(&'a self, mdp: &'a AgentMdp, s: usize) -> impl Iterator<Item = (u8, f64)> + 'a {
        mdp.actions(s).map(|slot| (mdp.cell(slot), mdp.q(slot, &self.values)))
    }

    /// The cells of state `s` whose value is within [`TIE`] of the best.
    pub fn optimal_cells(&self, mdp: &AgentMdp, s: usize) -> Vec<u8> {
        let best = self.values[s];
        self.action_values(mdp, s).filter(|&(_, q)| q >= best - TIE).map(|(c, _)| c).collect()
    }
}

/// Solves `mdp` by policy iteration with exact backward evaluation.
pub fn solve(mdp: &AgentMdp) -> Solution {
    let mut actions: Vec<u32> = (0..mdp.len()).map(|s| mdp.actions(s).start as u32).collect();
    let mut values = vec![0.0; mdp.len()];
    let mut rounds = Vec::new();
    loop {
        for s in (0..mdp.len()).rev() {
            values[s] = mdp.q(actions[s] as usize, &values);
        }
        let changed = improve(mdp, &values, &mut actions);
        rounds.push(Round { sweeps: 1, value: start_value(mdp, &values), changed });
        if changed == 0 {
            break;
        }
    }
    Solution { value: start_value(mdp, &values), values, actions, rounds }
}

/// The optimum of `mdp` by backward induction: one pass over the states in reverse
/// topological order, each taking its greedy action (lowest cell among near-ties) under
/// the values already final after it. It gives exactly the values and actions that
/// [`solve`] ends with (whose last improvement leaves every state's greedy action in
/// place, under values computed in the same order by the same expression), in one pass
/// instead of one evaluation and one improvement per round; `rounds` holds that one pass.
pub fn backward(mdp: &AgentMdp) -> Solution {
    let mut values = vec![0.0; mdp.len()];
    let mut actions = vec![0u32; mdp.len()];
    for s in (0..mdp.len()).rev() {
        let (slot, value) = greedy(mdp, &values, s);
        actions[s] = slot as u32;
        values[s] = value;
    }
    let value = start_value(mdp, &values);
    Solution { value, values, actions, rounds: vec![Round { sweeps: 1, value, changed: 0 }] }
}

/// Solves `mdp` by the seed article's procedure (see the module doc), recording its trace.
pub fn solve_traced(mdp: &AgentMdp) -> Solution {
    let order = mdp.dfs_order();
    let mut actions: Vec<u32> = (0..mdp.len()).map(|s| mdp.actions(s).start as u32).collect();
    let mut values = vec![0.0; mdp.len()];
    let mut rounds = Vec::new();
    loop {
        let mut sweeps = 0;
        loop {
            sweeps += 1;
            let mut delta: f64 = 0.0;
            for &s in &order {
                let s = s as usize;
                let q = mdp.q(actions[s] as usize, &values);
                delta = delta.max((q - values[s]).abs());
                values[s] = q;
            }
            if delta < TIE || sweeps > 200 {
                break;
            }
        }
        let changed = improve(mdp, &values, &mut actions);
        rounds.push(Round { sweeps, value: start_value(mdp, &values), changed });
        if changed == 0 {
            break;
        }
    }
    Solution { value: start_value(mdp, &values), values, actions, rounds }
}

/// Greedy improvement; returns how many states changed their action.
fn improve(mdp: &AgentMdp, values: &[f64], actions: &mut [u32]) -> u32 {
    let mut changed = 0;
    for (s, action) in actions.iter_mut().enumerate() {
        let best = greedy(mdp, values, s).0 as u32;
        if best != *action {
            *action = best;
            changed += 1;
        }
    }
    changed
}

/// The best action slot of state `s` under `values` (lowest cell among near-ties) and
/// its value.
#[inline]
pub fn greedy(mdp: &AgentMdp, values: &[f64], s: usize) -> (usize, f64) {
    let mut best = (usize::MAX, f64::NEG_INFINITY);
    mdp.each_q(s, values, |slot, q| {
        if q > best.1 + TIE {
            best = (slot, q);
        }
    });
    best
}

/// The value of the start distribution.
pub fn start_value(mdp: &AgentMdp, values: &[f64]) -> f64 {
    mdp.start_value(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::mdp::{Opponent, Seat};

    #[test]
    fn backward_induction_ends_where_policy_iteration_ends_bit_for_bit() {
        for game in ["3x3k3", "3x4k3", "4x3k4"].map(|g| g.parse::<Game>().unwrap()) {
            for &seat in Seat::ALL {
                for &opp in Opponent::ALL {
                    let mdp = AgentMdp::build(game, seat, opp);
                    let (pi, bi) = (solve(&mdp), backward(&mdp));
                    assert_eq!(pi.actions, bi.actions, "{game} {seat} {opp}: actions");
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&pi.values), bits(&bi.values), "{game} {seat} {opp}: values");
                    assert_eq!(pi.value.to_bits(), bi.value.to_bits());
                }
            }
        }
    }

    #[test]
    fn x_against_random_is_worth_191_over_192() {
        let mdp = AgentMdp::build(Game::TIC_TAC_TOE, Seat::X, Opponent::Random);
        let sol = solve(&mdp);
        assert!((sol.value - 191.0 / 192.0).abs() < 1e-12, "{}", sol.value);
        assert_eq!(sol.rounds.len(), 4);
    }

    #[test]
    fn traced_run_reproduces_the_seed_article() {
        let mdp = AgentMdp::build(Game::TIC_TAC_TOE, Seat::X, Opponent::Random);
        let sol = solve_traced(&mdp);
        let trace: Vec<(String, u32)> = sol.rounds.iter().map(|r| (format!("{:.6}", r.value), r.changed)).collect();
        let expected = [("0.604167", 1241), ("0.945312", 345), ("0.994792", 7), ("0.994792", 0)];
        let expected: Vec<(String, u32)> = expected.iter().map(|&(v, c)| (v.to_string(), c)).collect();
        assert_eq!(trace, expected);
        let sweeps: Vec<u32> = sol.rounds.iter().map(|r| r.sweeps).collect();
        assert_eq!(sweeps, [6, 4, 2, 1]);
    }

    #[test]
    fn both_paths_agree_everywhere() {
        for &seat in Seat::ALL {
            for &opp in Opponent::ALL {
                let mdp = AgentMdp::build(Game::TIC_TAC_TOE, seat, opp);
                let (a, b) = (solve(&mdp), solve_traced(&mdp));
                for s in 0..mdp.len() {
                    assert!((a.values[s] - b.values[s]).abs() < 1e-12);
                }
            }
        }
    }
}
