//! The worker pool and the writer loop: workers take the pending jobs in order and send
//! their rows to the writer (the calling thread), which appends and flushes them job by
//! job.
//!
//! The workers run detached on their own rayon pool and share nothing with the caller but
//! the [`Queue`], so that the writer can abandon jobs still running when a stop's grace period
//! ends: their rows are never written, and they run again on resume. Workers start no new
//! job once the run is halted (`--fail-fast`, a failed write) or its [`StopToken`] asks
//! to stop.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::budget::Budget;
use super::fault::Fault;
use super::job::{self, JobOutput};
use super::progress::Bar;
use super::{GRACE, StopToken};
use crate::job::Job;
use crate::report::files::Appender;
use crate::spec::EvaluationSpec;

/// The queue the workers take jobs from, and what they share with the writer: the jobs in
/// the order to start them, the memory budget, and when to stop.
pub struct Queue {
    /// The jobs to run, first started first.
    pub jobs: Vec<Job>,
    /// Each job's own memory, by the estimates.
    needs: Vec<u64>,
    /// What may run at once.
    budget: Budget,
    /// How every job is evaluated.
    pub evaluation: EvaluationSpec,
    /// The solvers' labels, by [`Job::solver`].
    pub labels: Vec<String>,
    /// A fault to inject, if any.
    pub fault: Option<Fault>,
    /// Stop starting jobs at the first failure.
    pub fail_fast: bool,
    /// The owner's request to stop.
    pub stop: StopToken,
    /// The results folder, the program slots and the program parameters' columns (see
    /// [`job::Place`]).
    pub place: (std::path::PathBuf, super::program::Slots, Vec<&'static str>),
    /// The index of the next job to start.
    next: AtomicUsize,
    /// Set by this run itself (`--fail-fast`, a failed write) to start no new job.
    halted: AtomicBool,
}

/// A finished job: its index in [`Queue::jobs`] and its rows.
type Finished = (usize, JobOutput);

/// What the writer loop did.
#[derive(Debug, Default)]
pub struct Written {
    /// Jobs whose rows were written.
    pub ran: usize,
    /// Of those, the failed ones.
    pub failed: usize,
    /// A failed job stopped the run (`--fail-fast`).
    pub fail_fast_stop: bool,
    /// The write that failed, after which nothing more was written.
    pub write_error: Option<anyhow::Error>,
}

impl Queue {
    /// A queue of `jobs`, none started yet.
    pub fn new(
        jobs: Vec<Job>,
        (needs, budget): (Vec<u64>, Budget),
        evaluation: EvaluationSpec,
        labels: Vec<String>,
        fault: Option<Fault>,
        (fail_fast, stop): (bool, StopToken),
        place: (std::path::PathBuf, super::program::Slots, Vec<&'static str>),
    ) -> Queue {
        assert_eq!(needs.len(), jobs.len(), "one memory need per job");
        Queue {
            jobs,
            needs,
            budget,
            evaluation,
            labels,
            fault,
            fail_fast,
            stop,
            place,
            next: AtomicUsize::new(0),
            halted: AtomicBool::new(false),
        }
    }

    /// Starts no new job from now on.
    pub fn halt(&self) {
        self.halted.store(true, Ordering::SeqCst);
    }

    fn is_halted(&self) -> bool {
        self.halted.load(Ordering::SeqCst) || self.stop.is_stopped()
    }

    /// One worker: runs jobs until none is left, the run halts, or the writer is gone. A
    /// job starts once its memory fits in the budget beside the running ones.
    fn run_jobs(&self, finished: &mpsc::Sender<Finished>) {
        while !self.is_halted() {
            let index = self.next.fetch_add(1, Ordering::SeqCst);
            let Some(job) = self.jobs.get(index) else { break };
            if !self.budget.acquire(self.needs[index], || self.is_halted()) {
                break;
            }
            debug_assert!(
                job.params.memory(&self.evaluation).shared.into_iter().all(super::shared::is_built),
                "job {}'s shared tables are built before it starts, timed apart",
                job.id
            );
            let place =
                job::Place { results: &self.place.0, stop: &self.stop, slots: &self.place.1, extras: &self.place.2 };
            let out = job::execute(job, &self.evaluation, &self.labels[job.solver], self.fault.as_ref(), &place);
            self.budget.release(self.needs[index]);
            if out.abandoned {
                // The run stopped while its program ran: it runs again on resume.
                continue;
            }
            if self.fail_fast && out.failure.is_some() {
                self.halt();
            }
            if finished.send((index, out)).is_err() {
                break;
            }
        }
    }
}

/// Starts `threads` workers on `queue`; the receiver gets every finished job and is
/// disconnected when all workers have stopped.
pub fn start(queue: &Arc<Queue>, threads: usize) -> Result<mpsc::Receiver<Finished>> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().context("cannot start worker threads")?;
    let (sender, receiver) = mpsc::channel();
    for _ in 0..threads {
        let (sender, queue) = (sender.clone(), Arc::clone(queue));
        pool.spawn(move || queue.run_jobs(&sender));
    }
    // Dropping the pool does not wait: its threads end when their workers return.
    Ok(receiver)
}

/// The writer loop: appends each finished job's rows until every worker has stopped, a
/// write fails, or the grace period after a stop request ends (the jobs still running
/// are then abandoned). Halts the queue before it returns.
pub fn write_rows(queue: &Queue, finished: &mpsc::Receiver<Finished>, appender: &mut Appender, bar: &Bar) -> Written {
    let mut written = Written::default();
    let mut deadline: Option<Instant> = None;
    loop {
        if queue.stop.is_stopped() && deadline.is_none() {
            deadline = Some(Instant::now() + GRACE);
        }
        if deadline.is_some_and(|d| Instant::now() > d) {
            bar.println("running jobs did not finish in time; they are abandoned and will run again on resume");
            break;
        }
        let (index, out) = match finished.recv_timeout(Duration::from_millis(100)) {
            Ok(x) => x,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let appended = Fault::check_write(queue.fault.as_ref(), written.ran)
            .and_then(|()| appender.append(&out.rows, &out.curves));
        if let Err(e) = appended {
            written.write_error = Some(e);
            break;
        }
        written.ran += 1;
        if let Some(line) = &out.pieces {
            bar.println(line);
        }
        if let Some(message) = &out.failure {
            let job = &queue.jobs[index];
            written.failed += 1;
            bar.println(&format!("job {} ({}) failed: {message}", job.id, job.params.solver_name()));
            if queue.fail_fast {
                bar.println("--fail-fast: starting no new jobs");
                written.fail_fast_stop = true;
                queue.halt();
            }
        }
        bar.job_done(written.failed);
    }
    queue.halt();
    written
}
