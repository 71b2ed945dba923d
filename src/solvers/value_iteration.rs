//! Value iteration on an agent MDP: an independent check of policy iteration.
//!
//! Algorithm (Bellman 1957; Sutton & Barto 2018, §4.4): synchronous (Jacobi) sweeps of the
//! optimality backup `V'(s) = max_a Σ p · (r + V(s'))` from `V = 0`, every state updated
//! from the previous sweep's values. Stopping rule: the largest change in a sweep is below
//! 1e-12. On these acyclic MDPs values are exact after as many sweeps as the longest game
//! has agent moves, so it stops after at most 6 sweeps (the last one changes nothing).
//! Undiscounted; no parameters.

use super::policy_iteration::{Solution, TIE, greedy, start_value};
use crate::mdp::AgentMdp;

/// Solves `mdp` by value iteration. The solution's `rounds` is empty; `sweeps` is returned.
pub fn solve(mdp: &AgentMdp) -> (Solution, u32) {
    let mut values = vec![0.0; mdp.len()];
    let mut next = vec![0.0; mdp.len()];
    let mut sweeps = 0;
    loop {
        sweeps += 1;
        let mut delta: f64 = 0.0;
        for (s, v) in next.iter_mut().enumerate() {
            *v = greedy(mdp, &values, s).1;
            delta = delta.max((*v - values[s]).abs());
        }
        std::mem::swap(&mut values, &mut next);
        if delta < TIE {
            break;
        }
        assert!(sweeps < 100, "value iteration does not converge on an acyclic MDP");
    }
    let actions = (0..mdp.len()).map(|s| greedy(mdp, &values, s).0 as u32).collect();
    let value = start_value(mdp, &values);
    (Solution { values, actions, value, rounds: Vec::new() }, sweeps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::mdp::{Opponent, Seat};
    use crate::solvers::policy_iteration;

    #[test]
    fn agrees_with_policy_iteration_on_every_mdp() {
        for &seat in Seat::ALL {
            for &opp in Opponent::ALL {
                let mdp = AgentMdp::build(Game::TIC_TAC_TOE, seat, opp);
                let (vi, sweeps) = solve(&mdp);
                let pi = policy_iteration::solve(&mdp);
                assert!(sweeps <= 7, "{sweeps}");
                for s in 0..mdp.len() {
                    assert!((vi.values[s] - pi.values[s]).abs() < 1e-12, "{seat} {opp} state {s}");
                }
            }
        }
    }
}
