//! `sweep plan`: what a spec would run and roughly how long it takes here. Writes nothing.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use crate::bench::Calibration;
use crate::error::{bad_input, exit};
use crate::spec;

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
            let t = p.seconds(&sweep.evaluation, &cal);
            secs += t * reps as f64;
            longest = longest.max(t);
            let work = p.work();
            eps += u128::from(work.episodes) * u128::from(reps);
            iters += u128::from(work.iterations) * u128::from(reps);
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
