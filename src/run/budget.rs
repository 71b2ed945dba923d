//! The memory budget of a run (`--max-memory`): the shared tables of the selected jobs
//! are counted once, each job's own memory while it runs, and a worker waits before
//! starting a job that would go over the budget. A job that could not fit even alone is
//! refused before anything is written.
//!
//! The estimates come from [`crate::cost::memory`]; they are upper bounds of the structures'
//! sizes, so a run that keeps within the budget by these figures keeps within it in fact
//! (the process's own code, stacks and the writer add a few MiB).

use std::collections::BTreeSet;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

use crate::cost::memory::{self, Shared};
use crate::error::bad_input;
use crate::job::Job;
use crate::spec::EvaluationSpec;

/// What the memory budget admits: the jobs' own bytes at once, after the shared tables.
#[derive(Debug)]
pub struct Budget {
    /// Bytes the running jobs may hold together.
    limit: u64,
    /// Bytes the running jobs hold now.
    used: Mutex<u64>,
    /// Signalled when a job ends.
    freed: Condvar,
}

/// The memory a run's jobs need, by the estimates.
#[derive(Debug, Clone, Default)]
pub struct Needs {
    /// Each job's own bytes, in job order.
    pub jobs: Vec<u64>,
    /// The shared tables of all of them.
    pub shared: BTreeSet<Shared>,
}

impl Needs {
    /// Adds `times` jobs of `need`.
    pub fn add(&mut self, need: crate::cost::memory::Need, times: usize) {
        self.jobs.extend(std::iter::repeat_n(need.job, times));
        self.shared.extend(need.shared);
    }

    /// The needs of `jobs` evaluated by `evaluation`.
    pub fn of<'a>(jobs: impl IntoIterator<Item = &'a Job>, evaluation: &EvaluationSpec) -> Needs {
        let mut needs = Needs::default();
        for job in jobs {
            needs.add(job.params.memory(evaluation), 1);
        }
        needs
    }

    /// The bytes of the shared tables.
    pub fn shared_bytes(&self) -> u64 {
        memory::shared_bytes(&self.shared)
    }

    /// The largest job's own bytes.
    pub fn largest(&self) -> u64 {
        self.jobs.iter().copied().max().unwrap_or(0)
    }

    /// The peak of `threads` jobs at once: the shared tables and the largest jobs.
    pub fn peak(&self, threads: usize) -> u64 {
        let mut jobs = self.jobs.clone();
        jobs.sort_unstable_by(|a, b| b.cmp(a));
        self.shared_bytes() + jobs.iter().take(threads).sum::<u64>()
    }
}

impl Budget {
    /// The budget of `limit` bytes for `needs`; refuses a run whose shared tables and
    /// largest job do not fit (`jobs` names that job).
    pub fn new(limit: u64, needs: &Needs, jobs: &[&Job], source: &str) -> anyhow::Result<Budget> {
        let shared = needs.shared_bytes();
        let largest = needs.largest();
        if shared + largest > limit {
            let at = needs.jobs.iter().position(|&b| b == largest).unwrap_or(0);
            let job = jobs.get(at).map_or(String::new(), |j| format!("job {} ({}) ", j.id, j.params.solver_name()));
            return Err(bad_input(format!(
                "{job}needs about {} of its own, and the tables every job shares (positions, exact MDPs, table layouts) \
                 about {}: {} in all, more than the memory budget of {} ({source}); raise --max-memory, or \
                 evaluate against fewer opponents, or run the biggest boards on a machine with more memory",
                memory::show(largest),
                memory::show(shared),
                memory::show(shared + largest),
                memory::show(limit),
            )));
        }
        Ok(Budget { limit: limit - shared, used: Mutex::new(0), freed: Condvar::new() })
    }

    /// A budget that admits everything.
    pub fn unlimited() -> Budget {
        Budget { limit: u64::MAX, used: Mutex::new(0), freed: Condvar::new() }
    }

    /// Takes `bytes` for a job, waiting while they do not fit beside the running jobs (a
    /// job always starts when none runs); gives up and returns `false` when `halted`
    /// says so.
    pub fn acquire(&self, bytes: u64, halted: impl Fn() -> bool) -> bool {
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if halted() {
                return false;
            }
            if *used == 0 || used.saturating_add(bytes) <= self.limit {
                *used += bytes;
                return true;
            }
            used = self.freed.wait_timeout(used, Duration::from_millis(100)).unwrap_or_else(PoisonError::into_inner).0;
        }
    }

    /// Gives back a finished job's `bytes`.
    pub fn release(&self, bytes: u64) {
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        *used -= bytes;
        self.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn jobs_that_do_not_fit_together_wait_and_never_exceed_the_budget() {
        let budget = Arc::new(Budget { limit: 100, used: Mutex::new(0), freed: Condvar::new() });
        let peak = Arc::new(AtomicU64::new(0));
        let now = Arc::new(AtomicU64::new(0));
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let (budget, peak, now) = (Arc::clone(&budget), Arc::clone(&peak), Arc::clone(&now));
                std::thread::spawn(move || {
                    for _ in 0..20 {
                        assert!(budget.acquire(60, || false));
                        let held = now.fetch_add(60, Ordering::SeqCst) + 60;
                        peak.fetch_max(held, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(1));
                        now.fetch_sub(60, Ordering::SeqCst);
                        budget.release(60);
                    }
                })
            })
            .collect();
        workers.into_iter().for_each(|w| w.join().unwrap());
        assert_eq!(peak.load(Ordering::SeqCst), 60, "two 60-byte jobs never ran together under 100");
        let small = Budget { limit: 100, used: Mutex::new(0), freed: Condvar::new() };
        assert!(small.acquire(40, || false) && small.acquire(40, || false), "two 40-byte jobs fit together");
        assert!(!small.acquire(40, || true), "a halted run starts nothing");
    }
}
