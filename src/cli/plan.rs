//! `sweep plan`: what a spec would run and roughly how long it takes here. Writes nothing.
//!
//! The estimate ([`estimate`]) is also what `sweep run`'s cost guard reads (see
//! `guard.rs`), so the two always agree. For a `[search]`, the per-solver table is the full
//! grid at the last rung's budget (each line says so), followed by the search's rungs and
//! its own work. A `[test]` adds a line: its jobs and their CPU time, at most (which
//! configurations it re-runs depends on the scores; each is costed as its solver's
//! dearest point), included in the estimate. Besides the table, `plan` prints the spec's notes
//! (whole-number axes rounded, sampled points drawn) and, on stderr, the schedule warnings
//! of `schedule.rs`. A job that cannot fit the memory budget ends `plan` with the error
//! `sweep run` would give (exit 2).

use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use super::schedule;
use crate::bench::Calibration;
use crate::cost::memory::{self, Shared};
use crate::error::{bad_input, exit};
use crate::names::count;
use crate::report::result_row::each_result;
use crate::report::table::{Cell, Column, Doc, Format, Table};
use crate::report::{Field, ParamColumn};
use crate::run::budget::Needs;
use crate::spec::{self, Sweep};

/// An hour, in seconds: the estimate above which `run` asks.
pub const HOUR: f64 = 3600.0;

/// One solver's share of an estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct SolverEstimate {
    /// Its grid points.
    pub points: u64,
    /// Its jobs (points × its replicates).
    pub jobs: u64,
    /// Its training episodes, all jobs together.
    pub episodes: u128,
    /// Its MCTS iterations per move, all jobs together.
    pub iterations: u128,
    /// Seconds of one core.
    pub seconds: f64,
    /// The largest memory of one of its jobs (its own, without the shared tables).
    pub memory: u64,
}

/// What a sweep costs by one calibration.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Per solver, in spec order.
    pub solvers: Vec<SolverEstimate>,
    /// Seconds of one core, all jobs together.
    pub cpu_seconds: f64,
    /// Wall-clock seconds on the given threads: building the shared tables, then pass
    /// after pass (a grid, a search's rungs or rounds, a `[test]`), each its jobs started
    /// longest first on the threads, so never less than its longest job.
    pub wall_seconds: f64,
    /// Wall-clock seconds of building the shared tables, before the first job.
    pub shared_seconds: f64,
    /// Seconds of one core of building them.
    pub shared_cpu_seconds: f64,
}

/// The cost of every job of `sweep` on `threads` threads, by `cal`.
///
/// The CPU time is every job's own estimate ([`crate::spec::Params::seconds`]) summed
/// over the passes a run makes: a grid's one pass, a search's rungs (each configuration at
/// the rung's budget) or rounds, then a `[test]`'s pass. The wall time is the shared
/// tables' build, then pass after pass, each as long as its jobs take on the threads
/// when started longest first ([`crate::cost::pass_seconds`]): a pass's last jobs may
/// leave threads idle, and the next pass waits for them.
pub fn estimate(sweep: &Sweep, threads: usize, cal: &Calibration) -> Estimate {
    let mut solvers: Vec<SolverEstimate> = sweep
        .solvers
        .iter()
        .map(|s| {
            let reps = u64::from(s.replicates);
            let mut e = SolverEstimate {
                points: s.points.len() as u64,
                jobs: s.points.len() as u64 * reps,
                episodes: 0,
                iterations: 0,
                seconds: 0.0,
                memory: 0,
            };
            for p in &s.points {
                e.seconds += p.seconds(&sweep.evaluation, cal) * reps as f64;
                e.memory = e.memory.max(p.memory(&sweep.evaluation).job);
                let work = p.work();
                e.episodes += u128::from(work.episodes) * u128::from(reps);
                e.iterations += u128::from(work.iterations) * u128::from(reps);
            }
            e
        })
        .collect();
    if sweep.search.as_ref().is_some_and(|s| s.method.proposes()) {
        // The points are round 0's: every trial (a solver's share of them, in one search
        // over the sweep) costs what they cost on average.
        for ((e, s), (_, jobs)) in solvers.iter_mut().zip(&sweep.solvers).zip(sweep.job_counts()) {
            let trials = jobs / u64::from(s.replicates).max(1);
            let scale = trials as f64 / s.points.len().max(1) as f64;
            e.seconds *= scale;
            e.episodes = (e.episodes as f64 * scale) as u128;
            e.iterations = (e.iterations as f64 * scale) as u128;
            e.points = trials;
            e.jobs = jobs;
        }
    }
    let passes = passes(sweep, cal);
    let cpu_seconds: f64 = passes.iter().map(|p| crate::cost::pass_cpu_seconds(p)).sum();
    let shared = needs(sweep).shared;
    let shared_seconds = crate::cost::shared_wall_seconds(&shared, threads, cal);
    let shared_cpu_seconds = crate::cost::shared_seconds(&shared, cal);
    let quiet = shared_seconds + passes.iter().map(|p| crate::cost::pass_seconds(p, threads)).sum::<f64>();
    let wall_seconds = crate::cost::wall_seconds(quiet, threads.min(jobs_to_run(&passes).max(1)), cal);
    Estimate { solvers, cpu_seconds, wall_seconds, shared_seconds, shared_cpu_seconds }
}

/// The passes a run of `sweep` makes, one after another, each as its jobs' `(seconds of
/// one job, jobs)`: a grid's jobs in one pass; a search's rungs (halving, Hyperband,
/// BOHB), each bracket's surviving configurations at the rung's budget, costed at the
/// mean of the bracket's configurations (which survive depends on the scores), or its
/// rounds (TPE), each trial at the mean cost of round 0's points; then a `[test]`'s
/// jobs.
fn passes(sweep: &Sweep, cal: &Calibration) -> Vec<Vec<(f64, u64)>> {
    let evaluation = &sweep.evaluation;
    let mut passes: Vec<Vec<(f64, u64)>> = Vec::new();
    match &sweep.search {
        None => passes.push(
            sweep
                .solvers
                .iter()
                .flat_map(|s| s.points.iter().map(|p| (p.seconds(evaluation, cal), u64::from(s.replicates))))
                .collect(),
        ),
        Some(search) if search.method.proposes() => {
            // Each solver's jobs (its trials, or its share of one search's over the
            // sweep) at the mean cost of its round-0 points, shared out over the rounds
            // as their trials are.
            let means: Vec<(f64, u64)> = sweep
                .solvers
                .iter()
                .zip(sweep.job_counts())
                .map(|(s, (_, jobs))| {
                    let total: f64 = s.points.iter().map(|p| p.seconds(evaluation, cal)).sum();
                    (total / s.points.len().max(1) as f64, jobs)
                })
                .collect();
            let rounds = planned_rounds(sweep);
            let trials = rounds.iter().sum::<u64>().max(1) as f64;
            for configurations in rounds {
                let share = configurations as f64 / trials;
                passes.push(
                    means.iter().map(|&(seconds, jobs)| (seconds, (jobs as f64 * share).round() as u64)).collect(),
                );
            }
        }
        Some(search) => {
            // The configurations as the search numbers them (solver by solver, point by
            // point), each with its replicates.
            let configurations: Vec<(&crate::kinds::Params, u64)> =
                sweep.solvers.iter().flat_map(|s| s.points.iter().map(move |p| (p, u64::from(s.replicates)))).collect();
            let brackets = search.brackets(configurations.len());
            let planned = crate::search::planned_brackets(sweep);
            for (rung, &budget) in search.budgets().iter().enumerate() {
                let mut pass = Vec::new();
                for (bracket, (start, rungs_of)) in brackets.iter().zip(&planned) {
                    let Some(&(survivors, _)) = rung.checked_sub(*start).and_then(|k| rungs_of.get(k)) else {
                        continue;
                    };
                    let members: Vec<(f64, u64)> = bracket
                        .configurations
                        .iter()
                        .filter_map(|&c| configurations.get(c))
                        .map(|&(p, reps)| (at_budget(p, search.parameter, budget).seconds(evaluation, cal), reps))
                        .collect();
                    let jobs: u64 = members.iter().map(|m| m.1).sum();
                    let seconds: f64 = members.iter().map(|&(s, n)| s * n as f64).sum();
                    let share = survivors as f64 / members.len().max(1) as f64;
                    pass.push((seconds / jobs.max(1) as f64, (jobs as f64 * share).round() as u64));
                }
                passes.push(pass);
            }
        }
    }
    let (jobs, seconds) = test_cost(sweep, cal);
    if jobs > 0 {
        passes.push(vec![(seconds / jobs as f64, jobs)]);
    }
    passes
}

/// `p` with its budget parameter `name` at `budget`, as a rung runs it (a rate's decay
/// given by its `_min_at` follows the budget); a command solver's point as it is (its
/// cost here is sweep's scoring, whatever its program's budget).
fn at_budget(p: &crate::kinds::Params, name: &str, budget: u64) -> crate::kinds::Params {
    let kind = p.kind();
    let Some(i) = kind.params().iter().position(|q| q.name == name) else { return *p };
    let mut values = p.values();
    values[i] = crate::kinds::Val::Count(budget);
    kind.build(&values).unwrap_or(*p)
}

/// The planned rounds of a search that runs in rounds, as the configurations of each (over
/// all solvers; the test pass, if any, not counted).
pub fn planned_rounds(sweep: &Sweep) -> Vec<u64> {
    let search = sweep.search.as_ref().expect("a searched spec");
    // One search over the sweep counts its trials in all; else each solver has its own.
    let solvers = if search.per_sweep { 1 } else { sweep.solvers.len() as u64 };
    search.round_sizes().into_iter().map(|n| n * solvers).collect()
}

/// The jobs a run starts at most at once: those of its largest pass (see [`passes`]).
fn jobs_to_run(passes: &[Vec<(f64, u64)>]) -> usize {
    passes.iter().map(|p| p.iter().map(|j| j.1).sum::<u64>()).max().unwrap_or(1) as usize
}

/// Adds the lines of a search that runs in rounds: the method's words and its rounds.
fn round_lines(doc: &mut Doc, sweep: &Sweep, seat: &str) {
    let search = sweep.search.as_ref().expect("a searched spec");
    doc.line(format!(
        "search: {}; ranked by {} against {} ({seat}), mean over replicates; the table above counts every trial at \
         round 0's mean cost",
        search.method.describe(search),
        search.metric.name(),
        search.opponent.name(),
    ));
    let columns = vec![
        Column::integers("round").right().at_least(6),
        Column::integers("configurations").right().at_least(15).gap(1),
        Column::integers("jobs").right().at_least(10).gap(1),
    ];
    // Jobs at the solvers' mean replicates (exact when they all run as many).
    let replicates: u64 = sweep.solvers.iter().map(|s| u64::from(s.replicates)).sum();
    let mean_replicates = replicates as f64 / sweep.solvers.len().max(1) as f64;
    let mut table = Table::new("the search's rounds", columns);
    for (r, n) in planned_rounds(sweep).iter().enumerate() {
        let jobs = (*n as f64 * mean_replicates).round() as u64;
        table.push(vec![Cell::int(r), Cell::Integer(*n), Cell::Integer(jobs)]);
    }
    doc.table(table);
}

/// A `[test]`'s jobs and seconds of one core, at most: each solver's share of the chosen
/// configurations (see [`crate::search::test_pass::planned`]) costed at its dearest point.
pub fn test_cost(sweep: &Sweep, cal: &Calibration) -> (u64, f64) {
    let (Some(test), Some((_, jobs))) = (&sweep.test, crate::search::test_pass::planned(sweep)) else {
        return (0, 0.0);
    };
    // Each group's share (its best `top`) at its dearest point, then scaled to the planned
    // count (a search may bring fewer configurations to its last rung).
    let top = u64::from(test.top);
    let (mut total, mut seconds) = (0u64, 0.0);
    for group in crate::search::test_pass::groups(sweep, test.per) {
        let share = (group.len() as u64).min(top);
        let dearest = group.iter().map(|&(s, p)| sweep.solvers[s].points[p].seconds(&sweep.evaluation, cal));
        total += share;
        seconds += share as f64 * dearest.fold(0.0, f64::max);
    }
    let per_job = seconds / total.max(1) as f64;
    (jobs, per_job * jobs as f64)
}

/// Adds a `[test]`'s line.
fn test_line(doc: &mut Doc, sweep: &Sweep, cal: &Calibration) {
    let (Some(test), Some((configurations, _))) = (&sweep.test, crate::search::test_pass::planned(sweep)) else {
        return;
    };
    let (jobs, seconds) = test_cost(sweep, cal);
    let seat = test.seat.map_or("the mean over its seats".to_string(), |s| format!("seat {s}"));
    let bound = if sweep.search.is_some() { "at most " } else { "" };
    doc.line(format!(
        "test: the best {} per {} by {} against {} ({seat}) re-run on {} fresh seeds each: {bound}{}, {bound}{}, \
         at most {seconds:.1} s of CPU (counted in the CPU and wall time)",
        test.top,
        test.per.name(),
        test.metric.name(),
        test.opponent.name(),
        test.replicates,
        count(configurations, "configuration"),
        count(jobs, "job"),
    ));
}

/// A search's planned jobs and budget units (episodes or iterations) over all rungs, and
/// the budget units of the full grid at the last rung's budget.
pub fn search_work(sweep: &Sweep) -> (u64, u128, u128) {
    let search = sweep.search.as_ref().expect("a searched spec");
    let rungs = crate::search::planned(sweep);
    let jobs = rungs.iter().map(|r| r.2).sum();
    let work = rungs.iter().map(|&(_, budget, jobs)| u128::from(budget) * u128::from(jobs)).sum();
    let grid_jobs: u64 = sweep.job_counts().iter().map(|(_, n)| n).sum::<u64>() / search.budgets().len() as u64;
    (jobs, work, u128::from(grid_jobs) * u128::from(search.max_budget))
}

/// Adds a search's rungs and its work against the full grid.
fn search_lines(doc: &mut Doc, sweep: &Sweep) {
    let Some(search) = &sweep.search else { return };
    let seat = search.seat.map_or("the mean over its seats".to_string(), |s| format!("seat {s}"));
    if search.method.proposes() {
        round_lines(doc, sweep, &seat);
        return;
    }
    doc.line(format!(
        "search: {}; ranked by {} against {} ({seat}), mean over replicates; \
         the table above is the full grid at {} = {}",
        search.method.describe(search),
        search.metric.name(),
        search.opponent.name(),
        search.parameter,
        search.max_budget
    ));
    let columns = vec![
        Column::integers("rung").right().at_least(6),
        Column::integers("configurations").right().at_least(15).gap(1),
        Column::integers(search.parameter.to_string()).right().at_least(12).gap(1),
        Column::integers("jobs").right().at_least(10).gap(1),
    ];
    let mut rungs = Table::new("the search's rungs", columns);
    for (rung, (configurations, budget, jobs)) in crate::search::planned(sweep).into_iter().enumerate() {
        rungs.push(vec![
            Cell::int(rung),
            Cell::Integer(configurations as u64),
            Cell::Integer(budget),
            Cell::Integer(jobs),
        ]);
    }
    if search.method.shows_brackets() {
        for (start, rungs_of) in crate::search::planned_brackets(sweep) {
            let shown: Vec<String> = rungs_of.iter().map(|(n, budget)| format!("{n} at {budget}")).collect();
            rungs.notes.push(format!("  bracket from rung {start}: {}", shown.join(" -> ")));
        }
    }
    doc.table(rungs);
    let (jobs, work, grid_work) = search_work(sweep);
    let grid_jobs: u64 = sweep.solvers.iter().map(|s| s.points.len() as u64 * u64::from(s.replicates)).sum();
    doc.line(format!(
        "search total: {}, {work} {} ({:.1}% of the full grid's {}, {grid_work} {})",
        count(jobs, "job"),
        search.parameter,
        100.0 * work as f64 / grid_work.max(1) as f64,
        count(grid_jobs, "job"),
        search.parameter
    ));
}

/// A search that cannot help (printed by `plan` and before `run`): one too small for its
/// method ([`crate::spec::SearchMethod::warnings`]); rungs of which there is one (nothing
/// is cut), or that cost more than the full grid.
pub(super) fn search_warnings(sweep: &Sweep) -> Vec<String> {
    let Some(search) = &sweep.search else { return Vec::new() };
    let mut out = search.method.warnings(sweep);
    if search.method.proposes() {
        return out;
    }
    let budgets = search.budgets();
    if budgets.len() == 1 {
        out.push(format!(
            "the search has one rung ({} = {} with eta = {}): it runs the full grid at that budget and cuts \
             nothing; lower min_budget (to at most max_budget / eta) or eta",
            search.parameter, budgets[0], search.eta
        ));
    }
    let (_, work, grid_work) = search_work(sweep);
    if work > grid_work {
        out.push(format!(
            "the search costs {work} {} in all, {:.0}% of the full grid's {grid_work}: running the full grid at {} = \
             {} would be cheaper and sees every configuration at the full budget; use method = \"halving\", fewer \
             rungs or a larger eta",
            search.parameter,
            100.0 * work as f64 / grid_work.max(1) as f64,
            search.parameter,
            search.max_budget
        ));
    }
    out
}

/// What ends a searched spec's solver lines: they show the full grid at the last rung's
/// budget, of which the search runs a share decided by the scores (its rungs follow the
/// table). Empty without a search.
fn grid_note(sweep: &Sweep) -> String {
    sweep.search.as_ref().map_or(String::new(), |search| match search.method.proposes() {
        true => "  (every trial, at round 0's mean cost)".to_string(),
        false => {
            format!("  (full grid at {} = {}; the search runs a share, see below)", search.parameter, search.max_budget)
        }
    })
}

/// The memory of every job of `sweep`, by the estimates.
pub fn needs(sweep: &Sweep) -> Needs {
    let mut needs = Needs::default();
    for s in &sweep.solvers {
        for p in &s.points {
            needs.add(p.memory(&sweep.evaluation), s.replicates as usize);
        }
    }
    needs
}

/// Adds the memory the sweep needs (`needs`) at `threads` jobs at once against the budget.
fn memory_lines(doc: &mut Doc, needs: &Needs, threads: usize, max_memory: Option<u64>) {
    let shared = needs.shared_bytes();
    let games: std::collections::BTreeSet<String> = needs
        .shared
        .iter()
        .map(|s| match s {
            Shared::Positions(g) | Shared::Mdp(g, ..) => g.to_string(),
            Shared::Layout(key) => key.game.to_string(),
            Shared::OptimalValues(game, ..) => game.to_string(),
        })
        .collect();
    let peak = needs.peak(threads);
    let tables = if games.is_empty() {
        "none".to_string()
    } else {
        format!(
            "{} of {}",
            count(needs.shared.iter().filter(|s| matches!(s, Shared::Mdp(..))).count(), "MDP"),
            games.into_iter().collect::<Vec<_>>().join(", ")
        )
    };
    doc.line(format!(
        "memory: {} of tables shared by all jobs ({tables}), largest job {}; {} at once: {}",
        memory::show(shared),
        memory::show(needs.largest()),
        count(threads.min(needs.jobs.len()), "job"),
        memory::show(peak),
    ));
    let budget = match max_memory {
        Some(b) => Some((b, "--max-memory")),
        None => memory::default_budget(),
    };
    let Some((limit, source)) = budget else { return };
    let verdict = if shared + needs.largest() > limit {
        "the largest job does not fit: `sweep run` will refuse it"
    } else if peak > limit {
        "fewer jobs run at once where they would not fit"
    } else {
        "fits"
    };
    doc.line(format!("memory budget: {} ({source}): {verdict}", memory::show(limit)));
}

/// Runs `sweep plan`.
pub fn plan(
    spec_path: &Path,
    threads: Option<usize>,
    max_memory: Option<u64>,
    peak_only: bool,
    out: Option<&Path>,
    format: Format,
) -> Result<i32> {
    let sweep = spec::load(spec_path).map_err(|e| bad_input(e.to_string()))?;
    // At least 1: `--threads` is checked where it is parsed (`ranges::threads`).
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if peak_only {
        println!("{}", needs(&sweep).peak(threads).div_ceil(1 << 20));
        return Ok(exit::OK);
    }
    let cal = crate::bench::calibration(Duration::from_millis(400));
    let estimate = estimate(&sweep, threads, &cal);
    let replicates = count(sweep.replicates, "replicate");
    let mut doc = Doc::new(format!("sweep plan: {}", sweep.name));
    doc.line(format!("{} ({}): seed {}, {replicates}", sweep.name, spec_path.display(), sweep.seed));
    doc.table(solver_table(&sweep, &estimate));
    let need = needs(&sweep);
    cost_lines(&mut doc, &sweep, &estimate, (threads, need.peak(threads)), &cal);
    let dir = out.map_or_else(|| Path::new("results").join(&sweep.name), Path::to_path_buf);
    if let Some(line) = already_done(&sweep, &dir, threads, &cal) {
        doc.line(line);
    }
    memory_lines(&mut doc, &need, threads, max_memory);
    for line in program_notes(&sweep, &dir).into_iter().chain(searched_notes(&sweep, &dir)) {
        doc.line(line);
    }
    for note in &sweep.notes {
        doc.line(format!("note: {note}"));
    }
    let jobs: u64 = estimate.solvers.iter().map(|e| e.jobs).sum();
    if jobs > crate::run::HUGE {
        doc.line(format!("more than {} jobs: `sweep run` will ask for --yes", crate::run::HUGE));
    } else if estimate.wall_seconds > HOUR {
        doc.line("more than an hour: `sweep run` will ask before starting (or needs --yes)");
    }
    super::table::print_doc(&doc, format);
    for warning in schedule::warnings(&sweep).into_iter().chain(search_warnings(&sweep)) {
        eprintln!("warning: {warning}");
    }
    refuse_what_run_refuses(&sweep, max_memory)?;
    Ok(exit::OK)
}

/// The table of each solver's jobs and cost (for a searched spec, each line says what it
/// counts).
fn solver_table(sweep: &Sweep, estimate: &Estimate) -> Table {
    let mut columns = vec![
        Column::text("solver").at_least(22),
        Column::text("kind").at_least(17).gap(1),
        Column::integers("points").right().at_least(8).gap(1),
        Column::integers("jobs").right().at_least(10).gap(1),
        Column::integers("episodes").right().at_least(16).gap(1),
        Column::integers("mcts iters/move").right().at_least(16).gap(1),
        Column::decimals("cpu time", 1).right().at_least(12).gap(1),
        Column::integers("memory/job").right().at_least(11).gap(1),
    ];
    // A searched spec's lines are the full grid at the last rung's budget: each says so.
    let grid_note = grid_note(sweep);
    if !grid_note.is_empty() {
        columns.push(Column::text("grid").untitled().at_least(0));
    }
    let mut solvers = Table::new("each solver's jobs and cost", columns);
    for (s, e) in sweep.solvers.iter().zip(&estimate.solvers) {
        let mut row = vec![
            Cell::text(s.label.clone()),
            Cell::text(s.kind.name()),
            Cell::Integer(e.points),
            Cell::Integer(e.jobs),
            Cell::Written(e.episodes.to_string()),
            Cell::Written(e.iterations.to_string()),
            Cell::number_as(format!("{:.1}s", e.seconds), e.seconds),
            Cell::Shown { text: memory::show(e.memory), full: e.memory.to_string() },
        ];
        if !grid_note.is_empty() {
            row.push(Cell::text(grid_note.trim_start()));
        }
        solvers.push(row);
    }
    solvers
}

/// Adds what the whole sweep costs: the search's passes or the grid's total, a `[test]`'s
/// line, the wall time on `threads` threads, and the estimate as data (with `peak`, the
/// memory of that many jobs at once).
fn cost_lines(doc: &mut Doc, sweep: &Sweep, estimate: &Estimate, (threads, peak): (usize, u64), cal: &Calibration) {
    let jobs: u64 = estimate.solvers.iter().map(|e| e.jobs).sum();
    let episodes: u128 = estimate.solvers.iter().map(|e| e.episodes).sum();
    if sweep.search.is_some() {
        search_lines(doc, sweep);
        doc.line(format!("CPU of the search: {:.1} s", estimate.cpu_seconds));
    } else {
        let (jobs, episodes) = (count(jobs, "job"), count(episodes, "training episode"));
        doc.line(format!("total: {jobs}, {episodes}, {:.1} s of CPU", estimate.cpu_seconds));
    }
    test_line(doc, sweep, cal);
    doc.line(format!(
        "estimated wall time on {threads} threads: {} ({:.1} s of it building the shared tables; {:.1} s of CPU in all; \
         calibration {}, a thread got {:.0}% of a core{}: {:.1} M Q-learning episodes/s, {:.1} M MCTS iterations/s \
         per core)",
        human(estimate.wall_seconds),
        estimate.shared_seconds + 0.0,
        estimate.cpu_seconds + estimate.shared_cpu_seconds,
        cal.source,
        100.0 * cal.free,
        cal.others.map_or(String::new(), |o| format!(", other work on the host {o:.1} threads' worth")),
        cal.q_per_s / 1e6,
        cal.mcts_per_s / 1e6
    ));
    let columns = vec![Column::integers("jobs"), Column::integers("threads")];
    let columns = columns.into_iter().chain(["cpu_s", "shared_cpu_s", "wall_s", "shared_wall_s"].map(Column::numbers));
    let mut total = Table::new("the estimate", columns.chain([Column::integers("peak_memory")]).collect());
    // The jobs a run starts: the search's own when searched (the table shows its full grid).
    let planned = match &sweep.search {
        Some(search) if search.method.proposes() => jobs,
        Some(_) => search_work(sweep).0,
        None => jobs,
    };
    total.push(vec![
        Cell::Integer(planned),
        Cell::int(threads),
        Cell::Float(estimate.cpu_seconds),
        Cell::Float(estimate.shared_cpu_seconds),
        Cell::Float(estimate.wall_seconds),
        Cell::Float(estimate.shared_seconds),
        Cell::Integer(peak),
    ]);
    doc.data(total);
}

/// The job ids with rows in `dir/results.csv` (read only; a partial last line ends the
/// reading).
fn job_ids_in(dir: &Path) -> std::collections::HashSet<String> {
    let Ok(mut reader) = csv::Reader::from_path(dir.join("results.csv")) else { return Default::default() };
    let Some(id) = reader.headers().ok().and_then(|h| h.iter().position(|c| c == "job_id")) else {
        return Default::default();
    };
    reader.records().map_while(Result::ok).filter_map(|r| r.get(id).map(String::from)).collect()
}

/// The line that says how many of the spec's jobs `dir` already holds, and (for a grid)
/// what the rest costs: a run there resumes or extends, and runs only the rest.
pub fn already_done(sweep: &Sweep, dir: &Path, threads: usize, cal: &Calibration) -> Option<String> {
    let done = job_ids_in(dir);
    if done.is_empty() {
        return None;
    }
    let jobs = sweep.jobs();
    let left: Vec<&crate::job::Job> = jobs.iter().filter(|j| !done.contains(&j.id)).collect();
    let held = jobs.len() - left.len();
    let mut line = format!("{} already holds {held} of these {} jobs", dir.display(), jobs.len());
    if sweep.search.is_some() || sweep.test.is_some() {
        line.push_str(
            " (a search or [test] decides the rest as it goes: the estimate above is for a run from scratch)",
        );
        return Some(line);
    }
    let seconds: Vec<f64> = left.iter().map(|j| j.params.seconds(&sweep.evaluation, cal)).collect();
    let cpu: f64 = seconds.iter().sum();
    let longest = seconds.iter().copied().fold(0.0, f64::max);
    let shared =
        if left.is_empty() { 0.0 } else { crate::cost::shared_wall_seconds(&needs(sweep).shared, threads, cal) };
    let quiet = shared + (cpu / threads as f64).max(longest);
    let wall = crate::cost::wall_seconds(quiet, threads.min(left.len().max(1)), cal);
    line.push_str(&format!(
        "; a run there runs the other {}: {:.1} s of CPU, about {} on {threads} threads",
        left.len(),
        cpu,
        human(wall)
    ));
    Some(line)
}

/// A line per command solver: its program's own time is unknown until measured (the CPU
/// time above is only the scoring's); with finished rows of it in `dir` (the default
/// results folder), an estimate from their `train_ms` (the program's wall time) per
/// training episode.
pub fn program_notes(sweep: &Sweep, dir: &Path) -> Vec<String> {
    let mut lines = Vec::new();
    // A program on a board too big to enumerate has its whole job measured instead (see
    // [`searched_notes`]).
    let enumerated = |s: &&crate::spec::SolverSpec| s.points.iter().all(|p| p.game().enumerable());
    for solver in sweep.solvers.iter().filter(|s| s.kind.runs_a_program()).filter(enumerated) {
        let name = solver.points.first().map_or("", |p| p.solver_name());
        let measured = measured_program_ms(&dir.join("results.csv"), name);
        let episodes: u64 = solver.points.iter().map(|p| p.work().episodes).sum::<u64>() * u64::from(solver.replicates);
        lines.push(match measured {
            Some((ms_per_episode, jobs)) => format!(
                "note: {}: the program's own time, estimated from {} finished in {}: {} for all its jobs ({:.3} ms \
                 per episode; the CPU time above is sweep's scoring only)",
                solver.label,
                count(jobs, "job"),
                dir.display(),
                human(ms_per_episode * episodes as f64 / 1e3),
                ms_per_episode
            ),
            None => format!(
                "note: {}: the program's own time is unknown until its jobs run (the CPU time above is sweep's \
                 scoring only); `sweep plan` estimates it from finished jobs once some have run",
                solver.label
            ),
        });
    }
    lines
}

/// A line per solver on a board too big to enumerate: how many positions its agent is
/// asked depends on how it plays (a strong agent ends games sooner), so the estimate
/// above is rough; with finished jobs of the solver in `dir`, their measured time per
/// job for the rest.
pub fn searched_notes(sweep: &Sweep, dir: &Path) -> Vec<String> {
    let mut lines = Vec::new();
    for solver in &sweep.solvers {
        let games: std::collections::BTreeSet<String> =
            solver.points.iter().map(|p| p.game()).filter(|g| !g.enumerable()).map(|g| g.to_string()).collect();
        if games.is_empty() {
            continue;
        }
        let jobs = solver.points.len() as f64 * f64::from(solver.replicates);
        let measured = measured_job_ms(&dir.join("results.csv"), &solver.label);
        let games = games.into_iter().collect::<Vec<_>>().join(", ");
        lines.push(match measured {
            Some((ms, n)) => format!(
                "note: {}: on {games} the positions an agent is asked depend on how it plays; from {} finished in \
                 {}: {:.1} s a job, about {} of CPU for all its jobs",
                solver.label,
                count(n, "job"),
                dir.display(),
                ms / 1e3,
                human(ms * jobs / 1e3)
            ),
            None if solver.kind.runs_a_program() => format!(
                "note: {}: on {games} the program's own time (training, answering) is unknown until its jobs run \
                 and the positions it is asked depend on how it plays: the CPU time above is the search's only, \
                 and rough; `sweep plan` measures whole jobs once some have run",
                solver.label
            ),
            None => format!(
                "note: {}: on {games} the positions an agent is asked depend on how it plays, so on its seed as much as \
                 its parameters: the estimate is the mean over seeds (on Connect Four within 0.6-1.7 of measured \
                 means), and a job may take several times more or less (at 100 iterations, 12 stones in, six seeds \
                 were asked 44k to 591k positions); `sweep plan` measures it from finished jobs once some have run",
                solver.label
            ),
        });
    }
    lines
}

/// The mean milliseconds of a finished job (its `train_ms` and `eval_ms`, once per job)
/// of the solver labelled `label` in `results`, and how many jobs it is over.
fn measured_job_ms(results: &Path, label: &str) -> Option<(f64, usize)> {
    let mut per_job: std::collections::HashMap<String, f64> = std::collections::HashMap::new();
    let needed = [Field::JobId, Field::Label, Field::Status, Field::TrainMs, Field::EvalMs].map(Field::name);
    each_result(results, &needed, |r| {
        if r.label() == label && r.ok() {
            per_job.insert(r.job_id().to_string(), r.train_ms().unwrap_or(0.0) + r.eval_ms().unwrap_or(0.0));
        }
    })
    .ok()?;
    (!per_job.is_empty()).then(|| (per_job.values().sum::<f64>() / per_job.len() as f64, per_job.len()))
}

/// The program's wall milliseconds per training episode over the finished rows of
/// `solver` in `results` (one per job), and how many jobs they are from.
fn measured_program_ms(results: &Path, solver: &str) -> Option<(f64, usize)> {
    let mut per_job: std::collections::HashMap<String, (f64, f64)> = std::collections::HashMap::new();
    let needed = [
        Field::JobId.name(),
        Field::Solver.name(),
        Field::Status.name(),
        Field::TrainMs.name(),
        ParamColumn::Episodes.name(),
    ];
    each_result(results, &needed, |r| {
        if r.solver() == solver && r.ok() {
            if let (Some(ms), Ok(e)) = (r.train_ms(), r.episodes().parse::<f64>()) {
                per_job.insert(r.job_id().to_string(), (ms, e));
            }
        }
    })
    .ok()?;
    let (ms, episodes) = per_job.values().fold((0.0, 0.0), |a, v| (a.0 + v.0, a.1 + v.1));
    (episodes > 0.0).then(|| (ms / episodes, per_job.len()))
}

/// The error `sweep run` gives for a job that cannot fit the memory budget (`--max-memory`,
/// or the machine's), so that `plan` exits as `run` would (2, bad input).
fn refuse_what_run_refuses(sweep: &Sweep, max_memory: Option<u64>) -> Result<()> {
    let budget = match max_memory {
        Some(bytes) => Some((bytes, "--max-memory".to_string())),
        None => memory::default_budget().map(|(bytes, source)| (bytes, source.to_string())),
    };
    let Some((limit, source)) = budget else { return Ok(()) };
    let jobs = sweep.jobs();
    let jobs: Vec<&crate::job::Job> = jobs.iter().collect();
    let needs = Needs::of(jobs.iter().copied(), &sweep.evaluation);
    crate::run::budget::Budget::new(limit, &needs, &jobs, &source).map(drop)
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

#[cfg(test)]
mod tests {
    use crate::report::{RESULT_COLUMNS, column};

    #[test]
    fn a_programs_time_is_unknown_until_measured_then_estimated_from_finished_jobs() {
        let spec = "name = \"p\"\nreplicates = 2\n[evaluation]\ncheckpoints = 1\n[[solver]]\nkind = \"command\"\n\
                    label = \"prog\"\ncommand = [\"sh\", \"-c\", \"true\"]\nepisodes = 1000\n[solver.params]\nk = [1, 2]\n";
        let sweep = crate::spec::parse(spec, "p.toml").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let unknown = super::program_notes(&sweep, dir.path());
        assert_eq!(unknown.len(), 1);
        assert!(unknown[0].contains("prog: the program's own time is unknown until its jobs run"), "{unknown:?}");
        // Two finished jobs of 1,000 episodes: 500 ms and 1,500 ms, so 1 ms per episode;
        // the solver's 4 jobs of 1,000 episodes then take 4 s.
        let mut text = RESULT_COLUMNS.join(",") + "\n";
        for (id, ms) in [("a", "500"), ("b", "1500")] {
            let mut row = vec![String::new(); RESULT_COLUMNS.len()];
            row[column("job_id")] = id.into();
            row[column("solver")] = "command:prog".into();
            row[column("status")] = "ok".into();
            row[column("train_ms")] = ms.into();
            row[column("episodes")] = "1000".into();
            text += &(row.join(",") + "\n");
        }
        std::fs::write(dir.path().join("results.csv"), text).unwrap();
        let known = super::program_notes(&sweep, dir.path());
        assert!(known[0].contains("estimated from 2 jobs finished"), "{known:?}");
        assert!(known[0].contains("4.0 s for all its jobs (1.000 ms per episode"), "{known:?}");
    }
}
