//! `sweep plan`: what a spec would run and roughly how long it takes here. Writes nothing.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use crate::bench::Calibration;
use crate::error::{bad_input, exit};
use crate::mdp::{Opponent, Seat};
use crate::solvers::{Params, TrainOpponent};
use crate::spec;

/// Seconds one job of `params` takes on one core, by the calibration.
pub fn job_seconds(params: &Params, evaluation: &spec::EvaluationSpec, cal: &Calibration) -> f64 {
    let seats = params.eval_seats();
    let evals = (seats.len() * evaluation.opponents.len()) as f64;
    let games = evaluation.games as f64 * evals * 2e-7;
    // Each job also pays a fixed cost (setting up its tables, building and writing its
    // rows): about 50 µs measured on 100,000 tiny jobs.
    const PER_JOB: f64 = 5e-5;
    PER_JOB
        + games
        + match params {
            Params::PolicyIteration(_) | Params::ValueIteration(_) => cal.solve_s * 2.0 + evals * cal.eval_s,
            Params::QLearning(q) => {
                // Self-play games are about twice as long as the agent's half of a game.
                let per_episode = if q.opponent == TrainOpponent::SelfPlay { 2.0 } else { 1.0 } / cal.q_per_s;
                q.episodes as f64 * per_episode + f64::from(evaluation.checkpoints) * evals * (cal.eval_s + 2e-5)
            }
            Params::Mcts(m) => {
                // One search per position reached (searches are shared between evaluation
                // opponents, so the largest reach counts); the optimal policy's reach is
                // the proxy.
                let index = |seat: Seat| Seat::ALL.iter().position(|&s| s == seat).expect("a seat");
                let opp = |o: Opponent| Opponent::ALL.iter().position(|&x| x == o).expect("an opponent");
                let positions: usize = seats
                    .iter()
                    .map(|&s| evaluation.opponents.iter().map(|&o| cal.reach[index(s)][opp(o)]).max().unwrap_or(0))
                    .sum();
                positions as f64 * f64::from(m.iterations) / cal.mcts_per_s
            }
        }
}

/// Runs `sweep plan`.
pub fn plan(spec_path: &Path, threads: Option<usize>) -> Result<i32> {
    let sweep = spec::load(spec_path).map_err(|e| bad_input(e.to_string()))?;
    let threads = match threads {
        Some(0) => return Err(bad_input("--threads 0: give at least 1 thread")),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let cal = Calibration::measure(Duration::from_millis(400));
    println!("{} ({}): seed {}, {} replicates", sweep.name, spec_path.display(), sweep.seed, sweep.replicates);
    println!(
        "{:<22} {:<17} {:>8} {:>10} {:>16} {:>16} {:>12}",
        "solver", "kind", "points", "jobs", "episodes", "mcts iters/move", "cpu time"
    );
    let (mut total_s, mut longest) = (0.0f64, 0.0f64);
    let (mut jobs, mut episodes) = (0u64, 0u128);
    for s in &sweep.solvers {
        let reps = u64::from(sweep.replicates);
        let n = s.points.len() as u64 * reps;
        let mut secs = 0.0;
        let mut eps = 0u128;
        let mut iters = 0u128;
        for p in &s.points {
            let t = job_seconds(p, &sweep.evaluation, &cal);
            secs += t * reps as f64;
            longest = longest.max(t);
            match p {
                Params::QLearning(q) => eps += u128::from(q.episodes) * u128::from(reps),
                Params::Mcts(m) => iters += u128::from(m.iterations) * u128::from(reps),
                _ => {}
            }
        }
        println!(
            "{:<22} {:<17} {:>8} {:>10} {:>16} {:>16} {:>11.1}s",
            s.label,
            s.kind.name(),
            s.points.len(),
            n,
            eps,
            iters,
            secs
        );
        total_s += secs;
        jobs += n;
        episodes += eps;
    }
    let wall = (total_s / threads as f64).max(longest);
    println!("total: {jobs} jobs, {episodes} training episodes, {:.1} s of CPU", total_s);
    println!(
        "estimated wall time on {threads} threads: {} (measured here: {:.1} M Q-learning episodes/s, {:.1} M MCTS iterations/s per core)",
        human(wall),
        cal.q_per_s / 1e6,
        cal.mcts_per_s / 1e6
    );
    if jobs > crate::run::HUGE {
        println!("more than {} jobs: `sweep run` will ask for --yes", crate::run::HUGE);
    }
    Ok(exit::OK)
}

/// A duration for people.
pub fn human(secs: f64) -> String {
    if secs < 90.0 {
        format!("{secs:.1} s")
    } else if secs < 5400.0 {
        format!("{:.1} min", secs / 60.0)
    } else {
        format!("{:.1} h", secs / 3600.0)
    }
}
