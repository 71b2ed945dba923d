//! The executor: runs a sweep's jobs in parallel on a rayon pool, appends each finished
//! job's rows as it arrives, resumes, shards, and survives interruptions and failures.
//!
//! Flow: validate everything (spec, shard, `--only`, size) before touching the disk; take
//! the directory lock; decide resume / `--fresh` / `--extend`; keep the finished jobs'
//! rows; run the rest, most expensive first, with one writer (this thread) appending and
//! flushing rows; at the end rewrite both files sorted by job in spec order (atomically)
//! and complete the manifest.
//!
//! Invariants: results never depend on the thread count (each job is a pure function of its
//! seed and there is no reduction across jobs); the writer is the only code that touches
//! the files while jobs run.

mod checks;
pub mod job;
pub mod merge;
mod progress;
pub mod state;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::bench::Calibration;
use crate::error::{Interrupted, bad_input};
use crate::report::files::{Appender, Run, rewrite_runs, scan_runs};
use crate::report::manifest::{GENERATOR, Manifest, RAND_PCG_VERSION, RAND_VERSION, Shard, now_utc};
use crate::report::{CURVE_COLUMNS, RESULT_COLUMNS, column, summary};
use crate::spec::{self, Job, Sweep};
use checks::{check_unique_ids, check_writable, prepare};
pub use checks::{select_only, shard_from_env};
pub use state::Existing;

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
}

/// What a finished run reports.
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
}

/// Orders jobs most expensive first, by each kind's own estimate at nominal speeds.
fn longest_first(jobs: &mut [&Job], evaluation: &spec::EvaluationSpec) {
    let nominal = Calibration::nominal();
    let mut costed: Vec<(f64, &Job)> = jobs.iter().map(|&j| (j.params.seconds(evaluation, &nominal), j)).collect();
    costed.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (slot, (_, job)) in jobs.iter_mut().zip(costed) {
        *slot = job;
    }
}

/// Runs a sweep.
pub fn run(opts: &RunOptions) -> Result<RunReport> {
    let sweep = spec::load(&opts.spec).map_err(|e| bad_input(e.to_string()))?;
    let threads = match opts.threads {
        Some(0) => return Err(bad_input("--threads 0: give at least 1 thread (default: all cores)")),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    if sweep.job_count() > HUGE && !opts.yes {
        let per: Vec<String> = sweep.job_counts().iter().map(|(l, n)| format!("{l}: {n}")).collect();
        return Err(bad_input(format!(
            "{} has {} jobs ({}), more than {HUGE}; run `sweep plan` to see the cost, and add --yes to run it anyway",
            opts.spec.display(),
            sweep.job_count(),
            per.join(", ")
        )));
    }
    let all_jobs = sweep.jobs();
    check_unique_ids(&all_jobs)?;
    let shard = match opts.shard {
        Some(s) => Some(s),
        None => shard_from_env(|k| std::env::var(k).ok())?,
    };
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
    if let (Some(s), false) = (shard, opts.quiet) {
        let from = if opts.shard.is_some() { "--shard" } else { "the Slurm array variables" };
        eprintln!("shard {} of {} (0-based, from {from}): {} of {} jobs", s.index, s.count, jobs.len(), all_jobs.len());
    }
    if dir.join("manifest.json").exists() {
        // Refuse at once if another sweep writes here, before moving anything aside.
        drop(state::lock(&dir)?);
    }
    prepare(&dir, &sweep, opts.existing, &all_jobs)?;
    let _lock = state::lock(&dir)?;
    execute(opts, &sweep, &all_jobs, &jobs, &dir, threads, shard)
}

/// The manifest for this run.
fn manifest(opts: &RunOptions, sweep: &Sweep, threads: usize, shard: Option<Shard>, total: usize) -> Result<Manifest> {
    let spec_text =
        std::fs::read_to_string(&opts.spec).with_context(|| format!("cannot read {}", opts.spec.display()))?;
    Ok(Manifest {
        tool: "sweep".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        rand_version: RAND_VERSION.into(),
        rand_pcg_version: RAND_PCG_VERSION.into(),
        generator: GENERATOR.into(),
        spec_file: opts.spec.display().to_string(),
        spec_text,
        spec_hash: sweep.hash(),
        spec: sweep.resolved(),
        master_seed: sweep.seed,
        threads,
        shard,
        started: now_utc(),
        ended: None,
        jobs_total: total as u64,
        jobs_done: 0,
        jobs_failed: 0,
        complete: false,
    })
}

static STOP: AtomicBool = AtomicBool::new(false);
static SIGNALS: AtomicUsize = AtomicUsize::new(0);

fn install_signal_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if SIGNALS.fetch_add(1, Ordering::SeqCst) > 0 {
                eprintln!("\nsecond interrupt: exiting now; rows already written are valid");
                std::process::exit(crate::error::exit::INTERRUPTED);
            }
            STOP.store(true, Ordering::SeqCst);
            eprintln!(
                "\ninterrupted: starting no new jobs; waiting up to {} s for running ones (Ctrl-C again to exit now)",
                GRACE.as_secs()
            );
        });
    });
}

fn execute(
    opts: &RunOptions,
    sweep: &Sweep,
    all_jobs: &[Job],
    jobs: &[&Job],
    dir: &Path,
    threads: usize,
    shard: Option<Shard>,
) -> Result<RunReport> {
    let rows_per_job = |j: &Job| j.params.eval_seats().len() * sweep.evaluation.opponents.len();
    let expected: HashMap<&str, usize> = all_jobs.iter().map(|j| (j.id.as_str(), rows_per_job(j))).collect();
    let selected: HashSet<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
    let resumed = state::resume(dir, &expected, &selected)?;
    let mut man = manifest(opts, sweep, threads, shard, jobs.len())?;
    let mut pending: Vec<&Job> = jobs.iter().copied().filter(|j| !resumed.done.contains_key(&j.id)).collect();
    let kept = jobs.len() - pending.len();
    if !opts.quiet && (kept > 0 || resumed.repaired > 0) {
        eprintln!(
            "resuming in {}: {kept} jobs already done, {} to run{}",
            dir.display(),
            pending.len(),
            if resumed.repaired > 0 {
                format!(" (cut a partial last line of {} bytes)", resumed.repaired)
            } else {
                String::new()
            }
        );
    }
    longest_first(&mut pending, &sweep.evaluation);
    man.write(dir)?;
    let mut appender = Appender::open(dir)?;
    install_signal_handler();
    let bar = progress::Bar::new(jobs.len() as u64, kept as u64, opts.quiet);
    let started = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().context("cannot start worker threads")?;
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(&Job, job::JobOutput)>();
    let (mut ran, mut failed) = (0usize, 0usize);
    let mut write_error = None;
    std::thread::scope(|scope| -> Result<()> {
        let pending = &pending;
        let next = &next;
        let evaluation = &sweep.evaluation;
        let fail_fast = opts.fail_fast;
        scope.spawn(move || {
            pool.scope(|s| {
                for _ in 0..threads {
                    let tx = tx.clone();
                    s.spawn(move |_| {
                        while !STOP.load(Ordering::SeqCst) {
                            let i = next.fetch_add(1, Ordering::SeqCst);
                            let Some(&job) = pending.get(i) else { break };
                            let out = job::execute(job, evaluation);
                            if fail_fast && out.failure.is_some() {
                                STOP.store(true, Ordering::SeqCst);
                            }
                            if tx.send((job, out)).is_err() {
                                break;
                            }
                        }
                    });
                }
                drop(tx);
            });
        });
        let mut deadline: Option<Instant> = None;
        loop {
            if SIGNALS.load(Ordering::SeqCst) > 0 && deadline.is_none() {
                deadline = Some(Instant::now() + GRACE);
            }
            if deadline.is_some_and(|d| Instant::now() > d) {
                bar.println("running jobs did not finish in time; they are abandoned and will run again on resume");
                break;
            }
            let (job, out) = match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(x) => x,
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            if let Err(e) = injected_write_fault(ran).and_then(|_| appender.append(&out.rows, &out.curves)) {
                write_error = Some(e);
                STOP.store(true, Ordering::SeqCst);
                break;
            }
            ran += 1;
            if let Some(msg) = &out.failure {
                failed += 1;
                bar.println(&format!("job {} ({}) failed: {msg}", job.id, job.params.kind().name()));
                if opts.fail_fast {
                    bar.println("--fail-fast: starting no new jobs");
                    STOP.store(true, Ordering::SeqCst);
                }
            }
            bar.job_done(failed);
        }
        if deadline.is_some() || write_error.is_some() {
            // Abandon the jobs still running: their rows were never written.
            finish_interrupted(&mut appender, &mut man, dir, kept + ran, resumed_failed(&resumed) + failed);
            bar.finish();
            if let Some(e) = write_error.take() {
                eprintln!("error: {e:#}");
                eprintln!("everything written before is intact; fix the problem and run the same command to resume");
                std::process::exit(crate::error::exit::FAILED);
            }
            print_resume_hint(opts);
            std::process::exit(crate::error::exit::INTERRUPTED);
        }
        Ok(())
    })?;
    bar.finish();
    appender.sync()?;
    if STOP.load(Ordering::SeqCst) && SIGNALS.load(Ordering::SeqCst) > 0 {
        finish_interrupted(&mut appender, &mut man, dir, kept + ran, resumed_failed(&resumed) + failed);
        print_resume_hint(opts);
        return Err(Interrupted.into());
    }
    let order: HashMap<&str, usize> = all_jobs.iter().map(|j| (j.id.as_str(), j.index)).collect();
    let status = column("status");
    let results = dir.join("results.csv");
    let runs = sort_by_job(&results, &RESULT_COLUMNS, &order, |r| &r[status] != b"ok")?;
    sort_by_job(&dir.join("curves.csv"), &CURVE_COLUMNS, &order, |_| false)?;
    let done: HashSet<&str> = runs.iter().map(|r| &*r.job).collect();
    man.jobs_done = jobs.iter().filter(|j| done.contains(j.id.as_str())).count() as u64;
    let failed_ids: HashSet<&str> = runs.iter().filter(|r| r.flagged).map(|r| &*r.job).collect();
    man.jobs_failed = jobs.iter().filter(|j| failed_ids.contains(j.id.as_str())).count() as u64;
    man.complete = man.jobs_done == man.jobs_total && opts.only.is_empty();
    man.ended = Some(now_utc());
    man.write(dir)?;
    if !opts.quiet
        && let Err(e) = summary::print_run_summary(sweep, &results, dir, ran, kept, failed, started.elapsed())
    {
        eprintln!("warning: no summary: {e:#}");
    }
    Ok(RunReport { dir: dir.to_path_buf(), ran, kept, failed })
}

/// `SWEEP_FAULT=write:N` makes the writer fail after N jobs, as a full disk would.
fn injected_write_fault(written: usize) -> Result<()> {
    match std::env::var(job::FAULT_VAR)
        .ok()
        .and_then(|v| v.strip_prefix("write:").and_then(|n| n.parse::<usize>().ok()))
    {
        Some(n) if written >= n => {
            Err(anyhow::anyhow!("cannot write results.csv: No space left on device (injected by {})", job::FAULT_VAR))
        }
        _ => Ok(()),
    }
}

fn resumed_failed(r: &state::Resumed) -> usize {
    r.done.values().filter(|&&f| f).count()
}

fn finish_interrupted(appender: &mut Appender, man: &mut Manifest, dir: &Path, done: usize, failed: usize) {
    let _ = appender.sync();
    man.jobs_done = done as u64;
    man.jobs_failed = failed as u64;
    man.ended = Some(now_utc());
    let _ = man.write(dir);
}

fn print_resume_hint(opts: &RunOptions) {
    let mut cmd = format!("sweep run {}", opts.spec.display());
    if let Some(out) = &opts.out {
        cmd.push_str(&format!(" --out {}", out.display()));
    }
    if let Some(s) = opts.shard {
        cmd.push_str(&format!(" --shard {}/{}", s.index, s.count));
    }
    eprintln!("stopped; finished jobs are saved. To resume, run the same command again: {cmd}");
}

/// Rewrites a CSV file sorted by job in spec order (stable within a job; rows of jobs not
/// in the spec last), moving each job's rows as one byte range; returns the sorted runs.
fn sort_by_job(
    path: &Path,
    header: &[&str],
    order: &HashMap<&str, usize>,
    flag: impl Fn(&csv::ByteRecord) -> bool,
) -> Result<Vec<Run>> {
    let mut runs = scan_runs(path, header, flag)?;
    let key = |r: &Run| order.get(&*r.job).copied().unwrap_or(usize::MAX);
    if !runs.is_sorted_by_key(key) {
        runs.sort_by_key(key);
        rewrite_runs(path, header, &runs)?;
    }
    Ok(runs)
}
