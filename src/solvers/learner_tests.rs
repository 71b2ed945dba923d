//! Textbook truths about the tabular learners, checked against exact values of the MDP.

use super::action_values::{behaviour_action_values, optimal_action_values, q_error};
use super::params::{MonteCarloParams, QParams, StepRule, TrainOpponent};
use super::tabular::{Checkpoint, Table, Trained, checkpoint_episodes};
use super::{double_q_learning, expected_sarsa, ground_truth, monte_carlo, q_learning, sarsa};
use crate::mdp::{Evaluator, Opponent, Seat};

/// The five learners, by name.
const LEARNERS: [&str; 5] = ["q-learning", "sarsa", "expected-sarsa", "double-q-learning", "monte-carlo"];

/// Trains learner `name` (Monte Carlo with sample averages).
fn train(name: &str, params: &QParams, seed: u64, marks: &[u64], checkpoint: impl FnMut(Checkpoint, &Table)) -> Trained {
    match name {
        "q-learning" => q_learning::train_table(params, seed, marks, checkpoint),
        "sarsa" => sarsa::train(params, seed, marks, checkpoint),
        "expected-sarsa" => expected_sarsa::train(params, seed, marks, checkpoint),
        "double-q-learning" => double_q_learning::train(params, seed, marks, checkpoint),
        "monte-carlo" => {
            let mc = MonteCarloParams { learner: *params, step: StepRule::Average };
            monte_carlo::train(&mc, seed, marks, checkpoint)
        }
        other => unreachable!("{other}"),
    }
}

fn regret(params: &QParams, table: &Table) -> f64 {
    let TrainOpponent::Fixed(opponent) = params.opponent else { unreachable!() };
    let truth = ground_truth(params.seat, opponent);
    let policy = table.policy();
    truth.solution.value - Evaluator::new().evaluate(&truth.mdp, |_, b| policy.get_or_first(b)).value
}

/// The table's estimate of the start value: the greedy value of each first state, weighed
/// by the start distribution.
fn start_estimate(params: &QParams, table: &Table) -> f64 {
    let TrainOpponent::Fixed(opponent) = params.opponent else { unreachable!() };
    let mdp = &ground_truth(params.seat, opponent).mdp;
    mdp.start().iter().map(|o| o.prob * table.greedy(o.next as usize).1).sum()
}

#[test]
#[ignore]
fn probe() {
    let base = QParams { episodes: 200_000, alpha: 0.5, alpha_decay: 0.99998, alpha_min: 0.02, gamma: 0.99, epsilon: 1.0, epsilon_decay: 0.99995, epsilon_min: 0.0, ..QParams::default() };
    for name in LEARNERS {
        let r: Vec<f64> = (0..5).map(|seed| regret(&base, &train(name, &base, seed, &[], |_, _| {}).table)).collect();
        println!("{name}: regrets {r:?}");
    }
    // Maximisation bias.
    let bias = QParams { episodes: 400_000, alpha: 0.1, gamma: 1.0, epsilon: 0.1, epsilon_decay: 1.0, epsilon_min: 0.1, seat: Seat::O, ..QParams::default() };
    let marks = [1000, 10000, 50000, 100000, 200000, 300000, 400000];
    let mdp = &ground_truth(bias.seat, Opponent::Random).mdp;
    let q = optimal_action_values(mdp, bias.gamma);
    let v: f64 = mdp.start().iter().map(|o| o.prob * mdp.actions(o.next as usize).map(|s| q[s]).fold(f64::MIN, f64::max)).sum();
    println!("V* = {v}");
    for name in LEARNERS {
        let mut sums = vec![0.0; marks.len()];
        for seed in 0..10 {
            let mut k = 0;
            train(name, &bias, seed, &marks, |_, t| { sums[k] += start_estimate(&bias, t) - v; k += 1; });
        }
        println!("{name}: bias {:?}", sums.iter().map(|s| s / 10.0).collect::<Vec<_>>());
    }
    let _ = (behaviour_action_values, q_error, checkpoint_episodes);
}
