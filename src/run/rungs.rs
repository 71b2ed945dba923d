//! Running a search (`[search]`) or a tuning/test split (`[test]`): one pass of the
//! executor per rung (per round of TPE), then one for the test.
//!
//! Before each pass, the scores in the results file decide the jobs (see
//! [`crate::search::test_pass::decide`]): every rung whose predecessors are all scored,
//! then the test configurations once tuning is scored (a grid is one tuning pass). A pass
//! runs the decided jobs that are not done yet (resume keeps the rest), sorts the files
//! and reads the scores again, until the last rung is done. Since decisions depend only on the
//! spec and the finished jobs' rows, a search stopped at any moment resumes with the same
//! command to the same files.
//!
//! When the test pass is decided, test rows of configurations that are no longer chosen
//! (tuning grew with `--extend`, and another configuration won) are set apart in
//! `superseded-tests.csv` (and their curves in `superseded-tests-curves.csv`), never
//! deleted: `results.csv` holds only the current choice's test rows, so nothing reads an
//! old choice's fresh seeds as the new one's.
//!
//! A model-based search (TPE, BOHB) runs the same way, but its jobs are not known in
//! advance: before each pass [`crate::search::rounds::decide`] lists the jobs of every
//! round (rung) decided so far from the scores, in pass order, so a job's index never
//! changes as rounds are added; a run keeps the rounds it proposed
//! ([`crate::search::rounds::Memo`]), so each pass proposes only its new one. After each
//! round it says the best trial so far; at the end, the best trial against the runner-up
//! (paired, Holm-adjusted, as `sweep compare`).
//!
//! A shard (`--shard K/N` or a Slurm array task) runs its share of the jobs that the
//! *merged* results in the base directory decide, in one pass, and stops: a sharded
//! search alternates "every shard runs" and `sweep merge` once per rung.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::Result;

use super::{Plan, RunOutcome, RunReport, StopToken, execute, state};
use crate::error::bad_input;
use crate::job::Split;
use crate::names::count;
use crate::report::manifest::Manifest;
use crate::report::{CurveField, Field, ParamColumn};
use crate::search::test_pass::{Scores, decide, tuning_passes};

/// Runs the search or test split of `plan` (whose `jobs` are ignored: the passes decide
/// them).
pub(super) fn execute_search(mut plan: Plan<'_>, base: &Path, stop: &StopToken) -> Result<RunReport> {
    if plan.sweep.search.as_ref().is_some_and(|s| s.method.models()) {
        return execute_rounds(plan, base, stop);
    }
    let sweep = plan.sweep;
    let tuning = tuning_passes(sweep);
    let passes = tuning + usize::from(sweep.test.is_some());
    let scores_dir = match plan.shard {
        Some(_) => {
            check_base(base, &sweep.hash())?;
            base.to_path_buf()
        }
        None => {
            clean(&plan)?;
            plan.dir.clone()
        }
    };
    let mut tally = Tally::new();
    loop {
        let scores = Scores::read(&scores_dir.join("results.csv"), sweep).map_err(|e| bad_input(format!("{e:#}")))?;
        let decided = decide(sweep, plan.all_jobs, &scores);
        let rung = decided.rungs.len() - 1;
        plan.jobs =
            decided.jobs().map(|i| &plan.all_jobs[i]).filter(|j| plan.shard.is_none_or(|s| s.owns(j.index))).collect();
        plan.last = plan.shard.is_some() || rung + 1 == passes;
        if sweep.test.is_some() && rung == tuning && plan.shard.is_none() {
            let current: HashSet<&str> = decided.rungs[rung].iter().map(|&i| plan.all_jobs[i].id.as_str()).collect();
            let moved = set_apart_superseded_tests(&plan.dir, &current)?;
            if moved > 0 && !plan.opts.quiet {
                plan.opts.notices.say(&format!(
                    "{} of a test choice that tuning no longer makes set apart in {}",
                    count(moved, "row"),
                    plan.dir.join(SUPERSEDED).display()
                ));
            }
        }
        if !plan.opts.quiet {
            let configurations = decided.configurations[rung].len();
            let jobs = decided.rungs[rung].len();
            let shard =
                plan.shard.map(|s| format!(" (shard {}/{}: {} jobs in all)", s.index, s.count, plan.jobs.len()));
            let shard = shard.unwrap_or_default();
            let line = match (&sweep.search, &sweep.test) {
                (_, Some(test)) if rung == tuning => test_pass_line(test, configurations, jobs, &shard),
                (Some(search), _) => {
                    let budgets = search.budgets();
                    format!(
                        "{} rung {rung} of {}: {} at {} = {}, {}{shard}",
                        search.method.name(),
                        budgets.len(),
                        count(configurations, "configuration"),
                        search.parameter,
                        budgets[rung],
                        count(jobs, "job"),
                    )
                }
                (None, _) => {
                    format!("tuning: {}, {}{shard}", count(configurations, "configuration"), count(jobs, "job"))
                }
            };
            plan.opts.notices.say(&line);
        }
        if plan.last && plan.shard.is_none() {
            plan.earlier.rung_lines = pass_lines(sweep, &decided);
        }
        let report = execute(&plan, stop)?;
        plan.tell_resume = false;
        match tally.add(report, plan.last) {
            Next::Done(report) => return Ok(report),
            Next::Go(earlier) => plan.earlier = earlier,
        }
    }
}

/// What a search's passes have done so far: the jobs they ran and failed, the jobs the
/// first kept from before, the shared tables they built, and when the first began.
struct Tally {
    ran: usize,
    failed: usize,
    kept: Option<usize>,
    shared_tables: crate::report::manifest::SharedTables,
    started: std::time::Instant,
}

/// After a pass: the run's report (the last pass, or one that stopped), or what the next
/// pass is told of the earlier ones.
enum Next {
    Done(RunReport),
    Go(super::Earlier),
}

impl Tally {
    fn new() -> Tally {
        Tally { ran: 0, failed: 0, kept: None, shared_tables: Default::default(), started: std::time::Instant::now() }
    }

    /// Adds a pass's report; `last` when no pass follows.
    fn add(&mut self, report: RunReport, last: bool) -> Next {
        self.ran += report.ran;
        self.failed += report.failed;
        self.shared_tables.add(&report.shared_tables);
        let kept = *self.kept.get_or_insert(report.kept);
        let (ran, failed, shared_tables) = (self.ran, self.failed, self.shared_tables.clone());
        if last || !matches!(report.outcome, RunOutcome::Completed) {
            return Next::Done(RunReport { ran, kept, failed, shared_tables, ..report });
        }
        let wall = self.started.elapsed();
        Next::Go(super::Earlier { ran, failed, kept: Some(kept), wall, shared_tables, rung_lines: Vec::new() })
    }
}

/// The line before a `[test]` pass: what it re-runs, on how many fresh seeds.
fn test_pass_line(test: &crate::spec::TestSpec, configurations: usize, jobs: usize, shard: &str) -> String {
    format!(
        "test: the best {} per {} by {} against {}: {}, {} fresh seeds each, {}{shard}",
        test.top,
        test.per.name(),
        test.metric.name(),
        test.opponent.name(),
        count(configurations, "configuration"),
        test.replicates,
        count(jobs, "job")
    )
}

/// Runs a model-based search (`method = "tpe"`) round by round: before each pass the
/// scores decide the rounds ([`crate::search::rounds::decide`]), and the pass runs the
/// jobs of every decided round that are not done (so a job's index, which shards share
/// out, never changes). After a round, one line: the best trial so far per solver.
fn execute_rounds(plan: Plan<'_>, base: &Path, stop: &StopToken) -> Result<RunReport> {
    let sweep = plan.sweep;
    let scores_dir = match plan.shard {
        Some(_) => {
            check_base(base, &sweep.hash())?;
            base.to_path_buf()
        }
        None => plan.dir.clone(),
    };
    let mut tally = Tally::new();
    let mut earlier = super::Earlier::default();
    let mut tell_resume = true;
    // Each pass proposes only its new round: the earlier ones are kept.
    let mut memo = crate::search::rounds::Memo::default();
    loop {
        let read = |dir: &Path| Scores::read(&dir.join("results.csv"), sweep).map_err(|e| bad_input(format!("{e:#}")));
        let mut scores = read(&scores_dir)?;
        if plan.shard.is_none() && tell_resume {
            // Cut what an interrupted run left half written, then read again.
            let rounds = crate::search::rounds::decide_with(sweep, &scores, &mut memo);
            let pass = Plan { all_jobs: &rounds.jobs, sweep: &rounds.sweep, jobs: Vec::new(), ..plan.share() };
            clean(&pass)?;
            scores = read(&scores_dir)?;
        }
        let rounds = crate::search::rounds::decide_with(sweep, &scores, &mut memo);
        let decided = &rounds.decided;
        let test_pass = sweep.test.is_some() && rounds.tuned;
        let last = plan.shard.is_some() || rounds.last_pass;
        if !plan.opts.quiet {
            announce_pass(&plan, &rounds, test_pass);
        }
        let mut pass = Plan {
            all_jobs: &rounds.jobs,
            sweep: &rounds.sweep,
            jobs: decided
                .jobs()
                .map(|i| &rounds.jobs[i])
                .filter(|j| plan.shard.is_none_or(|s| s.owns(j.index)))
                .collect(),
            ..plan.share()
        };
        pass.last = last;
        pass.tell_resume = tell_resume;
        pass.earlier = std::mem::take(&mut earlier);
        let mut report = execute(&pass, stop)?;
        if last && plan.shard.is_none() && !plan.opts.quiet && matches!(report.outcome, RunOutcome::Completed) {
            // The end of the search: its rounds, its best, and whether that is better
            // than the rest, from every row (the last round's included).
            let scores = read(&scores_dir)?;
            let rounds = crate::search::rounds::decide_with(sweep, &scores, &mut memo);
            let mut lines = round_lines(&rounds);
            lines.extend(verdict_lines(&rounds.sweep, &plan.dir.join("results.csv")));
            lines.append(&mut report.summary);
            report.summary = lines;
        }
        tell_resume = false;
        match tally.add(report, last) {
            Next::Done(report) => return Ok(report),
            Next::Go(next) => earlier = next,
        }
    }
}

/// Says, before a pass of a model-based search, the best trial so far per solver (after
/// the first round) and what the pass runs: a TPE round, a BOHB rung or the test pass
/// (`test_pass`).
fn announce_pass(plan: &Plan<'_>, rounds: &crate::search::rounds::Rounds, test_pass: bool) {
    let (sweep, decided) = (plan.sweep, &rounds.decided);
    let pass_index = decided.rungs.len() - 1;
    if pass_index > 0 {
        for line in best_so_far(rounds, pass_index) {
            plan.opts.notices.say(&line);
        }
    }
    let shard = plan.shard.map(|s| format!(" (shard {}/{})", s.index, s.count)).unwrap_or_default();
    let jobs = decided.rungs[pass_index].len();
    let configurations = decided.configurations[pass_index].len();
    let line = match (&sweep.test, test_pass) {
        (Some(test), true) => test_pass_line(test, configurations, jobs, &shard),
        _ => {
            let search = sweep.search.as_ref().expect("a searched spec");
            match search.method.proposes() {
                true => format!(
                    "{} round {pass_index} of {}: {}, {}{shard}",
                    search.method.name(),
                    search.rounds(),
                    count(configurations, "configuration"),
                    count(jobs, "job")
                ),
                false => format!(
                    "{} rung {pass_index} of {}: {} at {} = {}, {}{shard}",
                    search.method.name(),
                    search.budgets().len(),
                    count(configurations, "configuration"),
                    search.parameter,
                    search.budgets()[pass_index],
                    count(jobs, "job")
                ),
            }
        }
    };
    plan.opts.notices.say(&line);
}

/// One line per solver: the best of its scored trials so far (by the search's metric,
/// ties to the earlier trial) with its configuration, after round `round - 1`.
fn best_so_far(rounds: &crate::search::rounds::Rounds, round: usize) -> Vec<String> {
    let sweep = &rounds.sweep;
    let search = sweep.search.as_ref().expect("a searched spec");
    let mut lines = Vec::new();
    for (s, scored) in rounds.scores.iter().enumerate() {
        let Some(&(trial, score)) = scored.iter().min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0))) else {
            continue;
        };
        let shown: Vec<String> = sweep
            .searched_axes(s)
            .iter()
            .zip(sweep.searched_values(s, trial))
            .map(|((name, _), v)| format!("{name}={}", v.show()))
            .collect();
        lines.push(format!(
            "after {} {}: {} best so far trial {trial} (round {}), {} {score:.6}: {}",
            if search.method.proposes() { "round" } else { "rung" },
            round - 1,
            sweep.solvers[s].label,
            rounds.trials[s][trial].round,
            search.metric.name(),
            shown.join(", ")
        ));
    }
    lines
}

/// The end-of-run line of a model-based search: its trials, rounds and jobs.
fn round_lines(rounds: &crate::search::rounds::Rounds) -> Vec<String> {
    let mut lines = Vec::new();
    let search = rounds.sweep.search.as_ref().expect("a searched spec");
    let tuning = rounds.decided.rungs.len() - usize::from(rounds.sweep.test.is_some() && rounds.tuned);
    let jobs: usize = rounds.decided.rungs[..tuning].iter().map(Vec::len).sum();
    let trials: usize = rounds.trials.iter().map(Vec::len).sum();
    let passes = if search.method.proposes() { "round" } else { "rung" };
    lines.push(format!(
        "search: {}, {} in {}, {}; ranked by {} against {}",
        search.method.name(),
        count(trials, "trial"),
        count(tuning, passes),
        count(jobs, "job"),
        search.metric.name(),
        search.opponent.name()
    ));
    lines
}

/// The end-of-search verdict per solver (and seat, where the search is judged per seat):
/// the best trial (for BOHB, of those at the last rung) against the runner-up, paired by
/// replicate (the same seeds), with the power-aware verdict of `sweep compare` (paired t,
/// Holm-adjusted over every trial against the best, level 0.05), and how many trials are
/// within noise of the best (not `worse`). Empty when the results cannot be read.
fn verdict_lines(sweep: &crate::spec::Sweep, results: &Path) -> Vec<String> {
    use crate::report::compare::{Verdicts, best, compare_block};
    use crate::report::paired_runs::{Metric, read_blocks_in};
    let search = sweep.search.as_ref().expect("a searched spec");
    let metric = match search.metric {
        crate::spec::Metric::Regret => Metric::Regret,
        crate::spec::Metric::RegretAuc => Metric::RegretAuc,
    };
    // One search over the sweep compares its trials across solvers: the label is part of
    // the configuration, not of the block.
    let [judged, seated, label, trial, rung] = [
        Field::EvalOpponent.name(),
        ParamColumn::Seat.name(),
        Field::Label.name(),
        Field::Trial.name(),
        Field::Rung.name(),
    ];
    let (by, config) = match search.per_sweep {
        true => (vec![judged, seated], vec![trial, rung, label]),
        false => (vec![judged, seated, label], vec![trial, rung]),
    };
    let Ok(blocks) = read_blocks_in(results, metric, &by, &config, crate::job::Split::Tune) else {
        return Vec::new();
    };
    // BOHB: only the last rung's trials, at the full budget, compare.
    let last = search.budgets().len().checked_sub(1).map(|r| r.to_string()).unwrap_or_default();
    let mut lines = Vec::new();
    for mut block in blocks {
        block.configs.retain(|c| c.key[1] == last);
        let (opponent, seat) = (&block.key[0], &block.key[1]);
        let label = block.key.get(2).cloned().unwrap_or_else(|| "the sweep".to_string());
        if opponent != search.opponent.name() || search.seat.is_some_and(|s| s.name() != seat) {
            continue;
        }
        let Some(top) = best(&block, metric) else { continue };
        let comparisons = compare_block(&block, top, metric, Verdicts::default());
        let runner_up = comparisons
            .iter()
            .filter(|c| c.config != top && c.mean.is_finite())
            .min_by(|a, b| a.mean.total_cmp(&b.mean).then(a.config.cmp(&b.config)));
        let trial = |c: usize| match block.configs[c].key.get(2) {
            Some(label) => format!("{} ({label})", block.configs[c].key[0]),
            None => block.configs[c].key[0].clone(),
        };
        let within = comparisons.iter().filter(|c| c.config != top && c.verdict != "worse").count();
        let mut line = format!(
            "{label} ({seat} vs {opponent}): best trial {} at mean {} {:.6} over {} replicates",
            trial(top),
            metric.name(),
            block.configs[top].mean(),
            comparisons[top].runs
        );
        if let Some(r) = runner_up {
            let (low, high) = r.difference.interval(0.95);
            line.push_str(&format!(
                "; runner-up trial {} is {} ({:+.6}, 95% CI {low:+.6} to {high:+.6}, Holm p {}); {} of {} other \
                 trials within noise of the best",
                trial(r.config),
                r.verdict,
                r.difference.mean,
                crate::report::compare::short_p(r.p_holm),
                within,
                comparisons.len() - 1
            ));
        }
        lines.push(line);
    }
    lines
}

/// One line per pass of a run whose every pass is decided: for a search, each rung's
/// configurations and budget, what it cost (jobs, budget units) and how many went on, then
/// the search's total; for a `[test]`, the test pass. Empty for a grid without `[test]`.
fn pass_lines(sweep: &crate::spec::Sweep, decided: &crate::search::Decided) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(search) = &sweep.search {
        let budgets = search.budgets();
        let mut total = (0, 0u128);
        for (rung, configurations) in decided.configurations.iter().enumerate().take(budgets.len()) {
            let jobs = decided.rungs[rung].len();
            let work = u128::from(budgets[rung]) * jobs as u128;
            total = (total.0 + jobs, total.1 + work);
            let next = match decided.configurations.get(rung + 1).filter(|_| rung + 1 < budgets.len()) {
                Some(next) => {
                    let went_on = next.iter().filter(|c| configurations.contains(c)).count();
                    match next.len() - went_on {
                        0 => format!("{went_on} went on"),
                        joined => format!("{went_on} went on, {joined} joined (a later bracket)"),
                    }
                }
                None => "the last".to_string(),
            };
            lines.push(format!(
                "rung {rung}: {} at {} = {}, {}, {work} {}; {next}",
                count(configurations.len(), "configuration"),
                search.parameter,
                budgets[rung],
                count(jobs, "job"),
                search.parameter
            ));
        }
        lines.push(format!("search: {} in all, {} {}", count(total.0, "job"), total.1, search.parameter));
    }
    if let Some(test) = &sweep.test
        && decided.rungs.len() > crate::search::test_pass::tuning_passes(sweep)
    {
        let configurations = decided.configurations.last().map_or(0, Vec::len);
        lines.push(format!(
            "test: {} on {} fresh seeds each, {}",
            count(configurations, "configuration"),
            test.replicates,
            count(decided.rungs.last().map_or(0, Vec::len), "job")
        ));
    }
    lines
}

/// Where the rows of a superseded test choice go, in the results directory.
pub const SUPERSEDED: &str = "superseded-tests.csv";

/// Where their curves go.
pub const SUPERSEDED_CURVES: &str = "superseded-tests-curves.csv";

/// Moves the test rows of `dir/results.csv` whose job is not in `current` (the test pass
/// decided now) to [`SUPERSEDED`], appended with the same header, and their curves to
/// [`SUPERSEDED_CURVES`]; each results file is rewritten atomically. Returns the results
/// rows moved.
fn set_apart_superseded_tests(dir: &Path, current: &HashSet<&str>) -> Result<usize> {
    let results = dir.join("results.csv");
    if !results.exists() {
        return Ok(0);
    }
    let mut stale: HashSet<String> = HashSet::new();
    let moved = move_rows(&results, &dir.join(SUPERSEDED), |header, row| {
        let at = |name: &str| header.iter().position(|c| c == name);
        let (Some(split), Some(id)) = (at(Field::Split.name()), at(Field::JobId.name())) else { return false };
        let old = row[split] == Split::Test.name() && !current.contains(row[id].as_str());
        if old {
            stale.insert(row[id].clone());
        }
        old
    })?;
    let curves = dir.join("curves.csv");
    if moved > 0 && curves.exists() {
        move_rows(&curves, &dir.join(SUPERSEDED_CURVES), |header, row| {
            header.iter().position(|c| c == CurveField::JobId.name()).is_some_and(|id| stale.contains(&row[id]))
        })?;
    }
    Ok(moved)
}

/// Moves the rows of CSV `from` for which `take(header, row)` holds to the end of `to`
/// (created with `from`'s header), rewriting `from` atomically; the count moved.
fn move_rows(from: &Path, to: &Path, mut take: impl FnMut(&[String], &[String]) -> bool) -> Result<usize> {
    let mut reader = csv::ReaderBuilder::new().flexible(false).from_path(from)?;
    let header: Vec<String> = reader.headers()?.iter().map(String::from).collect();
    let (mut kept, mut taken): (Vec<Vec<String>>, Vec<Vec<String>>) = (Vec::new(), Vec::new());
    for record in reader.records() {
        let row: Vec<String> = record?.iter().map(String::from).collect();
        if take(&header, &row) { taken.push(row) } else { kept.push(row) }
    }
    if taken.is_empty() {
        return Ok(0);
    }
    let fresh = !to.exists();
    let file = std::fs::OpenOptions::new().create(true).append(true).open(to)?;
    let mut out = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(file);
    if fresh {
        out.write_record(&header)?;
    }
    for row in &taken {
        out.write_record(row)?;
    }
    out.flush()?;
    out.into_inner().map_err(|e| anyhow::anyhow!("{}: {e}", to.display()))?.sync_all()?;
    let names: Vec<&str> = header.iter().map(String::as_str).collect();
    crate::report::files::write_atomic(from, &names, kept)?;
    Ok(taken.len())
}

/// Before the first decision: keeps only the rows of complete jobs (cutting a partial
/// last line), so that a job killed while its rows were written does not count as scored.
fn clean(plan: &Plan<'_>) -> Result<()> {
    if !plan.dir.join("results.csv").exists() {
        return Ok(());
    }
    let evaluations = plan.sweep.evaluation.opponents.len();
    let expected: HashMap<&str, usize> =
        plan.all_jobs.iter().map(|j| (j.id.as_str(), j.params.eval_seats().len() * evaluations)).collect();
    let resumed = state::resume(&plan.dir, &plan.sweep.result_header(), &expected, &HashSet::new())?;
    for note in &resumed.notes {
        plan.opts.notices.say(note);
    }
    if resumed.repaired > 0 && !plan.opts.quiet {
        plan.opts.notices.say(&format!(
            "cut a partial last line of {} bytes in {}",
            resumed.repaired,
            plan.dir.display()
        ));
    }
    Ok(())
}

/// Refuses a base directory whose merged results belong to another spec.
fn check_base(base: &Path, hash: &str) -> Result<()> {
    if !base.join("manifest.json").exists() {
        return Ok(());
    }
    let manifest = Manifest::read(base)?;
    manifest.check_files(base)?;
    if manifest.spec_hash != hash {
        return Err(bad_input(format!(
            "{} holds merged results of a different spec (hash {}, this one {hash}); a shard of a [search] \
             decides its rung from them: use another --out",
            base.display(),
            manifest.spec_hash
        )));
    }
    Ok(())
}
