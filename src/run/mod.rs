//! The executor: runs a sweep's jobs in parallel on a rayon pool, appends each finished
//! job's rows as it arrives, resumes, shards, and survives interruptions and failures.
//!
//! [`run`] validates everything (spec, shard, `--only`, size) before touching the disk,
//! takes the directory lock and decides resume / `--fresh` / `--extend`; then it runs in
//! named phases: `resume` keeps the finished jobs' rows, `schedule` orders the rest
//! most expensive first, `shared` builds the tables they share (timed apart, recorded in
//! the manifest), `pool` runs them on worker threads while its writer loop (this
//! thread) appends and flushes rows, and `finish` rewrites both files sorted by job in
//! spec order (atomically) and completes the manifest.
//!
//! The manifest records what the writer wrote to each file (see
//! [`crate::report::integrity`]): when the pass starts, open (rows follow), and when it
//! ends or stops, sealed. A file that another process wrote to during the run is found
//! before it is sorted, and the run ends with an error naming it.
//!
//! Invariants: results never depend on the thread count (each job is a pure function of its
//! seed and there is no reduction across jobs); the writer is the only code that touches
//! the files while jobs run. The executor never ends the process: it stops when its
//! [`StopToken`] asks (the command line's Ctrl-C handler holds it), returns an
//! [`RunOutcome`], and leaves the exit code to the caller.

pub mod budget;
mod checks;
mod fault;
pub mod fence;
mod hand_back;
pub mod job;
pub mod merge;
mod notices;
pub mod pipe;
pub mod policy_server;
mod pool;
pub mod program;
mod progress;
mod rungs;
mod searched;
mod shared;
pub mod state;
mod stop;
pub mod trust;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::error::bad_input;
use crate::job::Job;
use crate::report::files::{Appender, Run, rewrite_runs, scan_runs};
use crate::report::integrity::Running;
use crate::report::manifest::{GENERATOR, Manifest, RAND_PCG_VERSION, RAND_VERSION, Shard, SharedTables, now_utc};
use crate::report::{CURVE_COLUMNS, Field, summary};
use crate::spec::{self, Sweep};
use budget::{Budget, Needs};
use checks::{check_unique_ids, check_writable, prepare};
pub use checks::{select_only, shard_from_env};
pub use fault::{FAULT_VAR, Fault};
pub use notices::Notices;
use pool::Queue;
pub use state::Existing;
pub use stop::StopToken;

/// More jobs than this need `--yes`.
pub const HUGE: u64 = 100_000;

/// How long running jobs may take to finish after an interruption before they are
/// abandoned (they run again on resume).
pub const GRACE: Duration = Duration::from_secs(10);

/// Everything `sweep run` needs, parsed from the command line.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The spec file.
    pub spec: PathBuf,
    /// Worker threads (`None`: all cores).
    pub threads: Option<usize>,
    /// The results directory (`None`: `results/<name>`).
    pub out: Option<PathBuf>,
    /// What to do with an existing directory.
    pub existing: Existing,
    /// The shard to run.
    pub shard: Option<Shard>,
    /// Only these job ids (or unique prefixes).
    pub only: Vec<String>,
    /// Stop at the first failure.
    pub fail_fast: bool,
    /// Allow more than [`HUGE`] jobs.
    pub yes: bool,
    /// No progress bar, no summary.
    pub quiet: bool,
    /// A fault to inject on purpose (tests; the command line reads [`FAULT_VAR`]).
    pub fault: Option<Fault>,
    /// The memory budget in bytes (`None`: [`crate::cost::memory::default_budget`]).
    pub max_memory: Option<u64>,
    /// Where the lines said while the run goes go (not the end-of-run summary, which
    /// [`RunReport::summary`] holds).
    pub notices: Notices,
    /// Resume into a folder of command solvers that another spec file wrote (see
    /// [`trust`]).
    pub trust: bool,
}

/// How a run ended.
#[derive(Debug)]
pub enum RunOutcome {
    /// Every selected job ran (some may have failed); the files are sorted and the
    /// manifest is complete.
    Completed,
    /// A job failed with `--fail-fast`: no job was started after it, the ones running
    /// finished, and the files are sorted.
    StoppedByFailFast,
    /// The [`StopToken`] asked to stop: the finished jobs are saved, the jobs still
    /// running after [`GRACE`] were abandoned, and the same run resumes.
    Interrupted,
    /// Writing rows failed; everything written before is intact and the same run resumes.
    WriteFailed(anyhow::Error),
}

/// What a run did.
#[derive(Debug)]
pub struct RunReport {
    /// The directory written.
    pub dir: PathBuf,
    /// Jobs run now.
    pub ran: usize,
    /// Jobs kept from before.
    pub kept: usize,
    /// Jobs that failed now.
    pub failed: usize,
    /// How it ended.
    pub outcome: RunOutcome,
    /// The shared tables it built before its first job.
    pub shared_tables: SharedTables,
    /// The end-of-run lines, for the caller to print: a search's rungs, the counts and wall
    /// time, the best configuration per solver, seat and evaluation, NashConv (see
    /// [`summary::run_summary`]); or why there is no summary. Empty with `quiet`, when the
    /// run stopped, and for a search's passes but the last.
    pub summary: Vec<String>,
}

/// Orders jobs most expensive first, by each kind's own estimate at nominal speeds.
fn longest_first(jobs: &mut [&Job], evaluation: &spec::EvaluationSpec) {
    let nominal = crate::bench::nominal();
    let mut costed: Vec<(f64, &Job)> = jobs.iter().map(|&j| (j.params.seconds(evaluation, &nominal), j)).collect();
    costed.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (slot, (_, job)) in jobs.iter_mut().zip(costed) {
        *slot = job;
    }
}

/// A validated run: the sweep, the jobs it selects and where they go.
struct Plan<'a> {
    opts: &'a RunOptions,
    sweep: &'a Sweep,
    /// Every job of the sweep, in spec order.
    all_jobs: &'a [Job],
    /// The jobs this run selects (shard, `--only`).
    jobs: Vec<&'a Job>,
    dir: PathBuf,
    threads: usize,
    shard: Option<Shard>,
    /// Whether this is the run's last pass (a search runs one pass per rung): only the
    /// last completes the manifest and prints the summary.
    last: bool,
    /// Whether to say what resume kept (a search's later passes keep its earlier rungs).
    tell_resume: bool,
    /// The memory budget in bytes and where it comes from (`None`: no limit known).
    memory: Option<(u64, String)>,
    /// What a search's earlier passes did, for the end-of-run lines of its last.
    earlier: Earlier,
}

impl<'a> Plan<'a> {
    /// This plan's settings for another pass (its own sweep, jobs and earlier passes are
    /// the pass's to set).
    fn share(&self) -> Plan<'a> {
        Plan {
            opts: self.opts,
            sweep: self.sweep,
            all_jobs: self.all_jobs,
            jobs: Vec::new(),
            dir: self.dir.clone(),
            threads: self.threads,
            shard: self.shard,
            last: self.last,
            tell_resume: self.tell_resume,
            memory: self.memory.clone(),
            earlier: Earlier::default(),
        }
    }
}

/// A search's earlier passes: the jobs they ran and failed, the jobs the first kept from
/// before, their wall time, the shared tables they built, and one line per rung to print
/// before the summary.
#[derive(Default)]
struct Earlier {
    ran: usize,
    failed: usize,
    kept: Option<usize>,
    wall: Duration,
    shared_tables: SharedTables,
    rung_lines: Vec<String>,
}

/// Runs a sweep until it completes or stops, and says how it ended; stops early when
/// `stop` asks. Errors are bad input (refused before anything is written) or failures
/// outside the writer loop.
pub fn run(opts: &RunOptions, stop: &StopToken) -> Result<RunReport> {
    let sweep = spec::load(&opts.spec).map_err(|e| bad_input(e.to_string()))?;
    let threads = thread_count(opts)?;
    check_size(opts, &sweep)?;
    let all_jobs = sweep.jobs();
    check_unique_ids(&all_jobs)?;
    let shard = match opts.shard {
        Some(s) => Some(s),
        None => shard_from_env(|k| std::env::var(k).ok(), &opts.notices)?,
    };
    if (sweep.search.is_some() || sweep.test.is_some()) && !opts.only.is_empty() {
        let table = if sweep.search.is_some() { "[search]" } else { "[test]" };
        return Err(bad_input(format!("--only cannot pick jobs of a {table}: the results decide which jobs run")));
    }
    let only = select_only(&all_jobs, &opts.only)?;
    let jobs: Vec<&Job> = all_jobs
        .iter()
        .filter(|j| shard.is_none_or(|s| s.owns(j.index)))
        .filter(|j| only.is_empty() || only.contains(&j.id))
        .collect();
    let base = opts.out.clone().unwrap_or_else(|| Path::new("results").join(&sweep.name));
    let dir = match shard {
        Some(s) => base.join("shards").join(s.dir_name()),
        None => base.clone(),
    };
    check_writable(&dir)?;
    let decided_jobs;
    let all_jobs: &[Job] = match sweep.search.as_ref().filter(|s| s.method.models()) {
        // A model-based search's jobs so far are what its results decide.
        Some(_) => {
            let scores = crate::search::test_pass::Scores::read(&base.join("results.csv"), &sweep);
            decided_jobs = crate::search::rounds::decide(&sweep, &scores.unwrap_or_default()).jobs;
            &decided_jobs
        }
        None => &all_jobs,
    };
    let memory = memory_budget(opts);
    if let Some((limit, source)) = &memory {
        // Refuse a job that cannot fit even alone before anything is written.
        Budget::new(*limit, &Needs::of(jobs.iter().copied(), &sweep.evaluation), &jobs, source)?;
    }
    if let (Some(s), false, None, None) = (shard, opts.quiet, &sweep.search, &sweep.test) {
        let from = if opts.shard.is_some() { "--shard" } else { "the Slurm array variables" };
        let of = crate::names::count(all_jobs.len(), "job");
        opts.notices.say(&format!("shard {} of {} (0-based, from {from}): {} of {of}", s.index, s.count, jobs.len()));
    }
    // The lock first, before anything in the folder is read: a run that starts at the same
    // moment then finds it held, never a folder that the other has only begun to write.
    let lock = state::lock(&dir)?;
    prepare(&dir, (&opts.spec, &sweep), opts.existing, all_jobs, (opts.trust, &opts.notices))?;
    // --fresh moved the locked folder aside: lock the new one.
    let _lock = if lock.holds(&dir) { lock } else { state::lock(&dir)? };
    state::unseal(&dir)?;
    let plan = Plan {
        opts,
        sweep: &sweep,
        all_jobs,
        jobs,
        dir,
        threads,
        shard,
        last: true,
        tell_resume: true,
        memory,
        earlier: Earlier::default(),
    };
    match (&sweep.search, &sweep.test) {
        (None, None) => execute(&plan, stop),
        _ => rungs::execute_search(plan, &base, stop),
    }
}

/// The memory budget: `--max-memory`, else the default (the Slurm allocation, or a share
/// of the available memory), with where it comes from.
fn memory_budget(opts: &RunOptions) -> Option<(u64, String)> {
    match opts.max_memory {
        Some(bytes) => Some((bytes, "--max-memory".to_string())),
        None => crate::cost::memory::default_budget().map(|(bytes, source)| (bytes, source.to_string())),
    }
}

/// The worker threads `--threads` asks for (default: all cores).
fn thread_count(opts: &RunOptions) -> Result<usize> {
    match opts.threads {
        Some(0) => Err(bad_input("--threads 0: give at least 1 thread (default: all cores)")),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// Refuses more than [`HUGE`] jobs without `--yes`.
fn check_size(opts: &RunOptions, sweep: &Sweep) -> Result<()> {
    let test = crate::search::test_pass::planned(sweep).map_or(0, |(_, jobs)| jobs);
    if sweep.job_count() + test > HUGE && !opts.yes {
        let mut per: Vec<String> = sweep.job_counts().iter().map(|(l, n)| format!("{l}: {n}")).collect();
        if test > 0 {
            per.push(format!("[test]: {test}"));
        }
        return Err(bad_input(format!(
            "{} has {} jobs ({}), more than {HUGE}; run `sweep plan` to see the cost, and add --yes to run it anyway",
            opts.spec.display(),
            sweep.job_count() + test,
            per.join(", ")
        )));
    }
    Ok(())
}

/// The manifest for this run.
fn manifest(plan: &Plan<'_>) -> Result<Manifest> {
    let spec = &plan.opts.spec;
    let spec_text = std::fs::read_to_string(spec).with_context(|| format!("cannot read {}", spec.display()))?;
    Ok(Manifest {
        spec_path: Some(trust::absolute(spec).display().to_string()),
        spec_fnv1a: Some(format!("{:016x}", crate::seed::fnv1a(spec_text.as_bytes()))),
        programs: trust::programs(plan.sweep),
        written: None,
        tool: "sweep".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        rand_version: RAND_VERSION.into(),
        rand_pcg_version: RAND_PCG_VERSION.into(),
        generator: GENERATOR.into(),
        spec_file: spec.display().to_string(),
        spec_text,
        spec_hash: plan.sweep.hash(),
        spec: plan.sweep.resolved(),
        master_seed: plan.sweep.seed,
        threads: plan.threads,
        shard: plan.shard,
        started: now_utc(),
        ended: None,
        jobs_total: plan.jobs.len() as u64,
        jobs_done: 0,
        jobs_failed: 0,
        complete: false,
        policies: plan.sweep.policies(),
        shared_tables: None,
    })
}

/// Runs the selected jobs of a validated sweep in its locked directory: resume, schedule,
/// the worker pool with its writer loop, then finish (or record where it stopped).
/// The solvers' labels, in spec order (what [`crate::job::Job::solver`] indexes).
fn labels(sweep: &Sweep) -> Vec<String> {
    sweep.solvers.iter().map(|s| s.label.clone()).collect()
}

fn execute(plan: &Plan<'_>, stop: &StopToken) -> Result<RunReport> {
    let (resumed, pending) = resume(plan)?;
    let kept = plan.jobs.len() - pending.len();
    let pending = schedule(pending, &plan.sweep.evaluation);
    let needs = Needs::of(&pending, &plan.sweep.evaluation);
    let budget = match &plan.memory {
        Some((limit, source)) => Budget::new(*limit, &needs, &pending.iter().collect::<Vec<_>>(), source)?,
        None => Budget::unlimited(),
    };
    let opts = plan.opts;
    let started = Instant::now();
    // A run that cannot write its first bytes (a full disk) leaves nothing that blocks the
    // same command (see `state::clear_unstarted`).
    let unstarted =
        |e: anyhow::Error| anyhow::anyhow!("{e:#}; no job ran: run the same command again once it can write");
    Fault::check_start(opts.fault.as_ref(), &plan.dir).map_err(unstarted)?;
    // A resume with nothing to run keeps the run's start and end: the run is what ran.
    let ran_before = if pending.is_empty() {
        state::existing_manifest(&plan.dir)?.and_then(|m| Some((m.started, m.ended?)))
    } else {
        None
    };
    // What resume kept, recorded at once: the files hold these bytes, and rows will follow.
    let mut appender = Appender::open(&plan.dir, &plan.sweep.result_header()).map_err(unstarted)?;
    let mut manifest = manifest(plan)?;
    if let Some((started, ended)) = ran_before {
        manifest.started = started;
        manifest.ended = Some(ended);
    }
    manifest.written = Some(appender.written(false));
    manifest.write(&plan.dir).map_err(unstarted)?;
    // Shared tables: built here, before any job, so that no job's train_ms holds them.
    let built = shared::build(&needs.shared, plan.threads);
    if let (false, Some(line)) = (opts.quiet, shared::line(&built)) {
        opts.notices.say(&line);
    }
    let mut shared_tables = plan.earlier.shared_tables.clone();
    shared_tables.add(&built);
    manifest.shared_tables = Some(shared_tables);
    manifest.write(&plan.dir)?;
    let bar = progress::Bar::new(plan.jobs.len() as u64, kept as u64, plan.opts.quiet);
    let queue = Queue::new(
        pending,
        (needs.jobs, budget),
        plan.sweep.evaluation.clone(),
        labels(plan.sweep),
        opts.fault.clone(),
        (opts.fail_fast, stop.clone()),
        (plan.dir.clone(), program::Slots::new(plan.threads as u32), plan.sweep.extra_columns()),
    );
    let queue = Arc::new(queue);
    let finished = pool::start(&queue, plan.threads)?;
    let written = pool::write_rows(&queue, &finished, &mut appender, &bar);
    bar.finish();
    let (ran, failed) = (written.ran, written.failed);
    let outcome = match written.write_error {
        Some(error) => RunOutcome::WriteFailed(error),
        None if stop.is_stopped() => RunOutcome::Interrupted,
        None if written.fail_fast_stop => RunOutcome::StoppedByFailFast,
        None => RunOutcome::Completed,
    };
    let mut report =
        RunReport { dir: plan.dir.clone(), ran, kept, failed, outcome, shared_tables: built, summary: Vec::new() };
    if matches!(report.outcome, RunOutcome::WriteFailed(_) | RunOutcome::Interrupted) {
        // The jobs still running are abandoned: their rows are never written.
        let failed_before = resumed.done.values().filter(|&&f| f).count();
        finish_stopped(&mut appender, &mut manifest, &plan.dir, kept + ran, failed_before + failed);
        return Ok(report);
    }
    appender.sync()?;
    if let Err(changed) = appender.check_unchanged() {
        // Recorded as sweep wrote them, sealed: every later reader names the file too.
        manifest.written = Some(appender.written(true));
        manifest.ended = Some(now_utc());
        let _ = manifest.write(&plan.dir);
        return Err(changed);
    }
    finish(plan, &mut manifest, &appender)?;
    if !opts.quiet && plan.last {
        let results = plan.dir.join("results.csv");
        report.summary = plan.earlier.rung_lines.clone();
        let e = &plan.earlier;
        let (ran, failed, wall) = (e.ran + ran, e.failed + failed, e.wall + started.elapsed());
        match summary::run_summary(plan.sweep, &results, &plan.dir, ran, e.kept.unwrap_or(kept), failed, wall) {
            Ok(lines) => report.summary.extend(lines),
            Err(e) => report.summary.push(format!("warning: no summary: {e:#}")),
        }
    }
    Ok(report)
}

/// Resume phase: keeps the rows of the jobs already done (dropping any other rows) and
/// returns what it found with the selected jobs still to run.
fn resume<'a>(plan: &Plan<'a>) -> Result<(state::Resumed, Vec<&'a Job>)> {
    let rows_per_job = |j: &Job| j.params.eval_seats().len() * plan.sweep.evaluation.opponents.len();
    let expected: HashMap<&str, usize> = plan.all_jobs.iter().map(|j| (j.id.as_str(), rows_per_job(j))).collect();
    let selected: HashSet<&str> = plan.jobs.iter().map(|j| j.id.as_str()).collect();
    let resumed = state::resume(&plan.dir, &plan.sweep.result_header(), &expected, &selected)?;
    for note in &resumed.notes {
        plan.opts.notices.say(note);
    }
    let pending: Vec<&Job> = plan.jobs.iter().copied().filter(|j| !resumed.done.contains_key(&j.id)).collect();
    let kept = plan.jobs.len() - pending.len();
    if !plan.opts.quiet && plan.tell_resume && (kept > 0 || resumed.repaired > 0) {
        plan.opts.notices.say(&format!(
            "resuming in {}: {} already done, {} to run{}",
            plan.dir.display(),
            crate::names::count(kept, "job"),
            pending.len(),
            if resumed.repaired > 0 {
                format!(" (cut a partial last line of {} bytes)", resumed.repaired)
            } else {
                String::new()
            }
        ));
    }
    Ok((resumed, pending))
}

/// Schedule phase: the jobs to run, most expensive first.
fn schedule(mut pending: Vec<&Job>, evaluation: &spec::EvaluationSpec) -> Vec<Job> {
    longest_first(&mut pending, evaluation);
    pending.into_iter().cloned().collect()
}

/// Finish phase of a run that was not stopped: rewrites both files sorted by job in spec
/// order and completes the manifest, with what it wrote (`appender`, unless sorting
/// rewrote a file); sealed after the last pass, open between a search's passes (the next
/// pass rewrites the files before it records them).
fn finish(plan: &Plan<'_>, manifest: &mut Manifest, appender: &Appender) -> Result<()> {
    let order: HashMap<&str, usize> = plan.all_jobs.iter().map(|j| (j.id.as_str(), j.index)).collect();
    let status = Field::Status.column();
    let header = plan.sweep.result_header();
    let mut written = appender.written(plan.last);
    let (runs, sorted) = sort_by_job(&plan.dir.join("results.csv"), &header, &order, |r| &r[status] != b"ok")?;
    if let Some(sorted) = sorted {
        written.results = sorted.digest();
    }
    if let (_, Some(sorted)) = sort_by_job(&plan.dir.join("curves.csv"), &CURVE_COLUMNS, &order, |_| false)? {
        written.curves = sorted.digest();
    }
    manifest.written = Some(written);
    let done: HashSet<&str> = runs.iter().map(|r| &*r.job).collect();
    manifest.jobs_done = plan.jobs.iter().filter(|j| done.contains(j.id.as_str())).count() as u64;
    let failed_ids: HashSet<&str> = runs.iter().filter(|r| r.flagged).map(|r| &*r.job).collect();
    manifest.jobs_failed = plan.jobs.iter().filter(|j| failed_ids.contains(j.id.as_str())).count() as u64;
    manifest.complete = manifest.jobs_done == manifest.jobs_total && plan.opts.only.is_empty() && plan.last;
    // Set already by a resume that had nothing to run (the run's own end).
    manifest.ended = Some(manifest.ended.take().unwrap_or_else(now_utc));
    manifest.write(&plan.dir)
}

/// Finish phase of a stopped run: flushes what was written and records the counts in the
/// manifest, which stays incomplete (the same run resumes).
fn finish_stopped(appender: &mut Appender, manifest: &mut Manifest, dir: &Path, done: usize, failed: usize) {
    let _ = appender.sync();
    manifest.written = Some(appender.written(true));
    manifest.jobs_done = done as u64;
    manifest.jobs_failed = failed as u64;
    manifest.ended = Some(now_utc());
    let _ = manifest.write(dir);
}

/// Rewrites a CSV file sorted by job in spec order (stable within a job; rows of jobs not
/// in the spec last), moving each job's rows as one byte range; returns the sorted runs,
/// and the hash of the file when it was rewritten.
fn sort_by_job(
    path: &Path,
    header: &[&str],
    order: &HashMap<&str, usize>,
    flag: impl Fn(&csv::ByteRecord) -> bool,
) -> Result<(Vec<Run>, Option<Running>)> {
    let mut runs = scan_runs(path, header, flag)?;
    let key = |r: &Run| order.get(&*r.job).copied().unwrap_or(usize::MAX);
    if runs.is_sorted_by_key(key) {
        return Ok((runs, None));
    }
    runs.sort_by_key(key);
    let written = rewrite_runs(path, header, &runs)?;
    Ok((runs, Some(written)))
}
