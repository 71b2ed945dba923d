//! `sweep bench`: this machine's speed for each kernel, one core each, and the executor's
//! parallel speedup on all cores.

use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::json;

use crate::bench::{
    Calibration, Figure, evaluation_seconds, learner_rate, mcts_rate, midgame, qlearning_rates_on, repeat,
    share_of_qlearning, solve_seconds,
};
use crate::error::{bad_input, exit};
use crate::game::{Board, Game};
use crate::job::Job;
use crate::kinds::Params;
use crate::mdp::{Evaluator, Opponent};
use crate::report::table::{Cell, Column, Doc, Table};
use crate::run::job;
use crate::solvers::QParams;
use crate::solvers::learners::LEARNERS;
use crate::spec::EvaluationSpec;

/// The episodes of each run in the pairs that give a learner's share of Q-learning: the
/// largest run that the episodes/s figures time, which holds most of their episodes.
const SHARE_EPISODES: u64 = 2_000_000;

/// Flags of `sweep bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Print one JSON object with a key per figure (each its median, min and max).
    #[arg(long, conflicts_with = "format")]
    json: bool,
    #[command(flatten)]
    format: super::table::FormatFlag,
    /// Rough time budget in seconds for all figures: above 0, at most 86400 (a day).
    #[arg(long, default_value_t = 20.0, value_parser = super::ranges::bench_seconds)]
    seconds: f64,
    /// Save the figures `sweep plan` estimates with (see `Calibration::saved_path`:
    /// $SWEEP_CALIBRATION, else ~/.cache/sweep/calibration.json); `plan` then uses them
    /// instead of measuring.
    #[arg(long)]
    save: bool,
}

/// The fixed small grid of the speedup figure: 8 Q-learning jobs.
fn speedup_jobs(episodes: u64) -> Vec<Job> {
    (0..8u32)
        .map(|k| {
            let params =
                Params::QLearning(QParams { episodes, alpha: 0.1 + 0.05 * f64::from(k), ..QParams::default() });
            Job {
                index: k as usize,
                solver: 0,
                point: k as usize,
                replicate: 0,
                seed: crate::seed::job_seed(1, k),
                id: format!("bench{k}"),
                params,
                rung: None,
                split: crate::job::Split::Tune,
                trial: None,
            }
        })
        .collect()
}

fn wall_seconds(jobs: &[Job], threads: usize) -> f64 {
    let evaluation = EvaluationSpec {
        opponents: vec![Opponent::Random.into()],
        games: 0,
        checkpoints: 10,
        spacing: crate::solvers::spacing::Spacing::Even,
        exact_searches: crate::spec::EXACT_SEARCHES,
        from: None,
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a thread pool");
    let started = Instant::now();
    pool.install(|| {
        use rayon::prelude::*;
        jobs.par_iter().with_max_len(1).for_each(|j| {
            let (stop, slots) = (crate::run::StopToken::new(), crate::run::program::Slots::new(1));
            let place = job::Place { results: std::path::Path::new("."), stop: &stop, slots: &slots, extras: &[] };
            let out = job::execute(j, &evaluation, "bench", None, &place);
            assert!(out.failure.is_none());
        })
    });
    started.elapsed().as_secs_f64()
}

/// Runs `sweep bench`.
pub fn bench(args: &BenchArgs) -> Result<i32> {
    let figures = measure(args);
    if args.save {
        let path = Calibration::saved_path()
            .ok_or_else(|| bad_input("--save: neither SWEEP_CALIBRATION nor HOME is set; set one"))?;
        let text = serde_json::to_string_pretty(&figures.calibration()).expect("JSON");
        let written = path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&path, text));
        written.map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        eprintln!("saved the calibration `sweep plan` uses to {}", path.display());
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&figures.to_json()).expect("JSON"));
    } else {
        super::table::print_doc(&figures.doc(), args.format.format());
    }
    Ok(exit::OK)
}

/// Every figure of `sweep bench`.
struct Figures {
    /// Each tabular learner's episodes/s, in the order of [`LEARNERS`].
    learners: Vec<Figure>,
    /// Each one's share of Q-learning's episodes/s (see [`share_of_qlearning`]).
    shares: Vec<Figure>,
    mcts_empty: Figure,
    mcts_midgame: Figure,
    mcts_4x4: Figure,
    /// Q-learning training episodes/s on 4x4k4 on a warmed table (the kernel), or why it
    /// could not be measured.
    q_4x4: Result<Figure, String>,
    /// The same for the first episodes of a fresh table (with the first touch of its pages).
    q_4x4_cold: Result<Figure, String>,
    /// The same on the gravity board 4x4g4.
    q_gravity: Result<Figure, String>,
    solve: Figure,
    eval: Figure,
    speedup: Figure,
    threads: usize,
    reps: usize,
}

/// Measures every figure within about `args.seconds`.
fn measure(args: &BenchArgs) -> Figures {
    let slice = Duration::from_secs_f64(args.seconds / 30.0);
    let reps = 5;
    let say = |what: &str| {
        if !args.json {
            eprintln!("measuring {what} ...");
        }
    };
    say("tabular learners' episodes/s");
    // Interleaved, one repetition of each learner in turn, so that a busy spell of the
    // machine falls on all of them alike.
    let mut samples = vec![Vec::new(); LEARNERS.len()];
    for learner in LEARNERS {
        learner_rate(learner, slice / 4);
    }
    for _ in 0..reps {
        for (k, learner) in LEARNERS.iter().enumerate() {
            samples[k].push(learner_rate(learner, slice));
        }
    }
    let learners: Vec<Figure> = samples.into_iter().map(Figure::of).collect();
    say("each learner's share of Q-learning's episodes/s, in pairs of runs");
    let alone = Figure::of(vec![1.0]);
    let shares: Vec<Figure> = std::iter::once(alone)
        .chain(LEARNERS[1..].iter().map(|learner| share_of_qlearning(learner, SHARE_EPISODES, 4 * slice)))
        .collect();
    say("Q-learning episodes/s on 4x4k4 (building its MDP first, a few seconds)");
    let four_by_four = Game::new(4, 4, 4).expect("4x4k4 is a game");
    // About a slice of work per repetition at a million episodes per second.
    let q_episodes = ((slice.as_secs_f64() * 1e6) as u64).max(100_000);
    let (q_4x4_cold, q_4x4) = qlearning_figures(four_by_four, q_episodes, reps);
    say("Q-learning episodes/s on the gravity board 4x4g4");
    let gravity: Game = "4x4g4".parse().expect("4x4g4 is a game");
    let (_, q_gravity) = qlearning_figures(gravity, q_episodes, reps);
    say("MCTS iterations/s from the empty board");
    let mcts_empty = repeat(reps, || mcts_rate(Board::EMPTY, slice));
    say("MCTS iterations/s from the mid-game position");
    let mcts_midgame = repeat(reps, || mcts_rate(midgame(), slice));
    say("MCTS iterations/s from the empty 4x4k4 board");
    let four = Board::empty(four_by_four);
    let mcts_4x4 = repeat(reps, || mcts_rate(four, slice));
    say("exact solve");
    let solve = repeat(reps, || solve_seconds() * 1e3);
    say("exact evaluation");
    let mut evaluator = Evaluator::new();
    let eval = repeat(reps, || evaluation_seconds(&mut evaluator) * 1e6);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    say(&format!("executor speedup, 1 vs {threads} threads"));
    let episodes = ((learners[0].median * slice.as_secs_f64() * 2.0) as u64).clamp(10_000, 2_000_000);
    let jobs = speedup_jobs(episodes);
    let speedup = Figure::of((0..3).map(|_| wall_seconds(&jobs, 1) / wall_seconds(&jobs, threads)).collect());
    Figures {
        learners,
        shares,
        q_4x4,
        q_4x4_cold,
        q_gravity,
        mcts_empty,
        mcts_midgame,
        mcts_4x4,
        solve,
        eval,
        speedup,
        threads,
        reps,
    }
}

/// Q-learning's figures on a bigger `game` from `reps` runs after a warm-up one (see
/// [`qlearning_rates_on`]): the first `episodes` of a fresh table, and the next ones.
fn qlearning_figures(game: Game, episodes: u64, reps: usize) -> (Result<Figure, String>, Result<Figure, String>) {
    let _ = qlearning_rates_on(game, episodes);
    let (cold, steady): (Vec<_>, Vec<_>) = (0..reps.max(1)).map(|_| qlearning_rates_on(game, episodes)).unzip();
    (Figure::of_samples(cold), Figure::of_samples(steady))
}

impl Figures {
    /// The cost model's calibration from these figures and a fresh page's cost, measured
    /// now; what they do not measure (the per-job and shared-table costs, and the slowdown
    /// of big tables, which the 4x4k4 figure's near-greedy schedule understates) is the
    /// reference's, scaled by the measured Q-learning speed.
    fn calibration(&self) -> Calibration {
        let q_per_s = self.learners[0].median;
        let mcts = (self.mcts_empty.median + self.mcts_midgame.median) / 2.0;
        let mut cal = Calibration::quick(q_per_s, mcts, self.eval.median / 1e6, self.solve.median / 1e3);
        cal.shares = LEARNERS.iter().zip(&self.shares).map(|(l, f)| (l.name.to_string(), f.median)).collect();
        if let Some(page_s) = crate::bench::page_seconds() {
            cal.page_s = page_s;
        }
        cal.source = format!("saved by `sweep bench --save` on {}", crate::report::manifest::now_utc());
        cal
    }

    /// One JSON object with a key per figure.
    fn to_json(&self) -> serde_json::Value {
        let by_name = |figures: &[Figure]| -> serde_json::Map<_, _> {
            LEARNERS.iter().zip(figures).map(|(l, f)| (l.name.to_string(), json!(f))).collect()
        };
        let (learners, shares) = (by_name(&self.learners), by_name(&self.shares));
        let mut not_measured = serde_json::Map::new();
        let mut maybe = |name: &str, figure: &Result<Figure, String>| match figure {
            Ok(f) => json!(f),
            Err(reason) => {
                not_measured.insert(name.to_string(), json!(reason));
                serde_json::Value::Null
            }
        };
        let q_4x4 = maybe("qlearning_4x4k4_episodes_per_s", &self.q_4x4);
        let q_4x4_cold = maybe("qlearning_4x4k4_fresh_table_episodes_per_s", &self.q_4x4_cold);
        let q_gravity = maybe("qlearning_4x4g4_episodes_per_s", &self.q_gravity);
        let mut object = json!({
            "qlearning_episodes_per_s": self.learners[0],
            "learner_episodes_per_s": learners,
            "learner_share_of_qlearning": shares,
            "mcts_empty_iterations_per_s": self.mcts_empty,
            "mcts_midgame_iterations_per_s": self.mcts_midgame,
            "mcts_4x4k4_empty_iterations_per_s": self.mcts_4x4,
            "qlearning_4x4k4_episodes_per_s": q_4x4,
            "qlearning_4x4k4_fresh_table_episodes_per_s": q_4x4_cold,
            "qlearning_4x4g4_episodes_per_s": q_gravity,
            "solve_ms": self.solve,
            "evaluate_us": self.eval,
            "parallel_speedup": self.speedup,
            "threads": self.threads,
            "repetitions": self.reps,
        });
        if !not_measured.is_empty() {
            object["not_measured"] = serde_json::Value::Object(not_measured);
        }
        object
    }

    /// The figures as a table, with the two lines that say how they were measured.
    fn doc(&self) -> Doc {
        let columns = vec![
            Column::text("figure").at_least(52),
            Column::numbers("median").right().at_least(12).gap(1),
            Column::text("unit").at_least(12).gap(1),
            Column::text("spread").gap(1),
        ];
        let mut table = Table::new("sweep bench: this machine's speed, one core each", columns).headless();
        let mut row =
            |name: &str, f: Result<&Figure, &str>, unit: &str, scale: f64| table.push(line(name, f, unit, scale));
        let q = self.learners[0];
        row("Q-learning training (x vs random, seed settings)", Ok(&q), "M episodes/s", 1e6);
        for ((learner, f), share) in LEARNERS.iter().zip(&self.learners).zip(&self.shares).skip(1) {
            let name = learner.name;
            let percent = 100.0 * share.median;
            row(&format!("{name} training ({percent:.0}% of Q-learning)"), Ok(f), "M episodes/s", 1e6);
        }
        row(
            "Q-learning on 4x4k4 (x vs random, warmed table)",
            self.q_4x4.as_ref().map_err(String::as_str),
            "M episodes/s",
            1e6,
        );
        row(
            "  its first episodes on a fresh table",
            self.q_4x4_cold.as_ref().map_err(String::as_str),
            "M episodes/s",
            1e6,
        );
        row(
            "Q-learning on 4x4g4, gravity (x vs random, warmed table)",
            self.q_gravity.as_ref().map_err(String::as_str),
            "M episodes/s",
            1e6,
        );
        row("MCTS, empty board, 10,000 iterations per move", Ok(&self.mcts_empty), "M iter/s", 1e6);
        row("MCTS, mid-game (X4 O0 X2, O to move)", Ok(&self.mcts_midgame), "M iter/s", 1e6);
        row("MCTS, 4x4k4 empty board, 10,000 iterations", Ok(&self.mcts_4x4), "M iter/s", 1e6);
        row("exact solve (build MDP + policy iteration)", Ok(&self.solve), "ms", 1.0);
        row("exact evaluation of one policy", Ok(&self.eval), "µs", 1.0);
        let threads = self.threads;
        row(&format!("executor speedup, 8 jobs, 1 -> {threads} threads"), Ok(&self.speedup), "x", 1.0);
        let mut doc = Doc::new("sweep bench");
        doc.line(format!("one core each, median of {} after a warm-up:", self.reps));
        doc.line(format!(
            "(a learner's share of Q-learning: the median over pairs of {SHARE_EPISODES}-episode runs of both)"
        ));
        doc.table(table);
        doc
    }
}

/// One row of the table: the figure's median in `unit` (the figures divided by `scale`)
/// with its min and max and how many repetitions were left out, or why it could not be
/// measured.
fn line(name: &str, figure: Result<&Figure, &str>, unit: &str, scale: f64) -> Vec<Cell> {
    match figure {
        Ok(f) => {
            let left_out = match f.unmeasured {
                0 => String::new(),
                n => format!("; {n} not measured"),
            };
            let median = f.median / scale;
            vec![
                Cell::text(name),
                Cell::number_as(format!("{median:.3}"), median),
                Cell::text(unit),
                Cell::text(format!("(min {:.3}, max {:.3}{left_out})", f.min / scale, f.max / scale)),
            ]
        }
        Err(reason) => vec![
            Cell::text(name),
            Cell::Shown { text: "-".into(), full: String::new() },
            Cell::text(unit),
            Cell::text(format!("(not measured: {reason})")),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_shows_the_figure_or_why_there_is_none() {
        let f = Figure::of(vec![2e6, 1e6, 3e6]);
        let shown = |cells: Vec<Cell>| {
            let columns = ["figure", "median", "unit", "spread"].map(Column::text).to_vec();
            let mut t = Table::new("", columns).headless();
            t.push(cells);
            crate::report::table::text(&t)
        };
        let one = shown(line("rate", Ok(&f), "M/s", 1e6));
        assert!(one.contains("2.000  M/s") && one.ends_with("(min 1.000, max 3.000)\n"), "{one}");
        let partial = Figure::of_samples(vec![Ok(1.0), Err("noise".into()), Ok(3.0)]).unwrap();
        assert!(shown(line("rate", Ok(&partial), "x", 1.0)).ends_with("(min 1.000, max 3.000; 1 not measured)\n"));
        let none = shown(line("rate", Err("too short"), "M/s", 1e6));
        assert!(none.ends_with("(not measured: too short)\n") && !none.chars().any(|c| c.is_ascii_digit()), "{none}");
        // A figure not measured is missing, not a number, for programs.
        assert_eq!(line("rate", Err("too short"), "M/s", 1e6)[1].number(), None);
    }

    #[test]
    fn a_figure_not_measured_is_null_in_json_with_its_reason() {
        let one = Figure::of(vec![1.0]);
        let mut figures = Figures {
            learners: vec![one; LEARNERS.len()],
            shares: vec![one; LEARNERS.len()],
            mcts_empty: one,
            mcts_midgame: one,
            mcts_4x4: one,
            q_4x4: Err("too short".into()),
            q_4x4_cold: Ok(one),
            q_gravity: Ok(one),
            solve: one,
            eval: one,
            speedup: one,
            threads: 2,
            reps: 5,
        };
        let json = figures.to_json();
        assert!(json["qlearning_4x4k4_episodes_per_s"].is_null());
        assert_eq!(json["not_measured"]["qlearning_4x4k4_episodes_per_s"], "too short");
        assert_eq!(json["solve_ms"]["median"], 1.0);
        figures.q_4x4 = Ok(one);
        let json = figures.to_json();
        assert_eq!(json["qlearning_4x4k4_episodes_per_s"]["max"], 1.0);
        assert!(json.get("not_measured").is_none(), "no reasons when every figure was measured");
    }
}
