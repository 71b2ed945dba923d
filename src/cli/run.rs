//! `sweep run`: runs a sweep with Ctrl-C routed to it, prints on stderr what the run says
//! (its notices as it goes, its end-of-run summary when it returns), and turns how it ended
//! into an exit code (0 every job ok, 1 a job or a write failed, 130 interrupted).
//!
//! The command line owns the process, so the Ctrl-C (and SIGTERM) handler lives here. It
//! is installed once per process and asks the current run to stop through its
//! [`StopToken`]; the run then starts no new job and waits up to [`GRACE`] for the running
//! ones. A second interrupt exits at once: the one exit outside `main`, since the thread
//! that would return the exit code is still waiting for the run.

use std::sync::{Mutex, Once, PoisonError};

use anyhow::Result;

use crate::error::exit;
use crate::run::{GRACE, RunOptions, RunOutcome, StopToken};

/// The stop token of the run under way, which an interrupt stops.
static CURRENT: Mutex<Option<StopToken>> = Mutex::new(None);

/// Runs a sweep and returns the exit code.
pub fn run(options: &RunOptions) -> Result<i32> {
    let stop = StopToken::new();
    *CURRENT.lock().unwrap_or_else(PoisonError::into_inner) = Some(stop.clone());
    install_interrupt_handler();
    let report = crate::run::run(options, &stop);
    // The programs' states files are the run's, not the results'.
    crate::run::program::remove_scratch();
    let report = report?;
    for line in &report.summary {
        eprintln!("{line}");
    }
    Ok(match report.outcome {
        RunOutcome::Completed | RunOutcome::StoppedByFailFast if report.failed == 0 => exit::OK,
        RunOutcome::Completed | RunOutcome::StoppedByFailFast => exit::FAILED,
        RunOutcome::Interrupted => {
            print_resume_hint(options);
            exit::INTERRUPTED
        }
        RunOutcome::WriteFailed(error) => {
            eprintln!("error: {error:#}");
            eprintln!("everything written before is intact; fix the problem and run the same command to resume");
            exit::FAILED
        }
    })
}

fn install_interrupt_handler() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(interrupt);
    });
}

/// The first interrupt stops the current run; the second exits now.
fn interrupt() {
    let current = CURRENT.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let Some(stop) = current else { return };
    if stop.stop() > 1 {
        // No program a command solver started may outlive the run.
        crate::run::program::kill_all();
        eprintln!("\nsecond interrupt: exiting now; rows already written are valid");
        std::process::exit(exit::INTERRUPTED);
    }
    eprintln!(
        "\ninterrupted: starting no new jobs; waiting up to {} s for running ones, stopping the programs of \
         command solvers now (Ctrl-C again to exit now)",
        GRACE.as_secs()
    );
}

fn print_resume_hint(options: &RunOptions) {
    let mut command = format!("sweep run {}", options.spec.display());
    if let Some(out) = &options.out {
        command.push_str(&format!(" --out {}", out.display()));
    }
    if let Some(s) = options.shard {
        command.push_str(&format!(" --shard {}/{}", s.index, s.count));
    }
    if let Some(threads) = options.threads {
        command.push_str(&format!(" --threads {threads}"));
    }
    if let Some(bytes) = options.max_memory {
        command.push_str(&format!(" --max-memory {bytes}"));
    }
    let flags = [
        (options.fail_fast, " --fail-fast"),
        (options.yes, " --yes"),
        (options.quiet, " --quiet"),
        (options.trust, " --trust"),
    ];
    for (set, flag) in flags {
        if set {
            command.push_str(flag);
        }
    }
    eprintln!("stopped; finished jobs are saved. To resume, run the same command again: {command}");
}
