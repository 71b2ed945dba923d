//! The progress bar: jobs done / total, elapsed, ETA, jobs per second and failures, on
//! stderr; hidden when stderr is not a terminal, with `--quiet`, and when there is no job
//! to run (a resume of a finished run). The jobs a resume kept count as done but not in
//! the rate, which is of the jobs run now.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar, or nothing.
pub struct Bar {
    bar: Option<ProgressBar>,
}

impl Bar {
    /// A bar over `total` jobs of which `done` are already done.
    pub fn new(total: u64, done: u64, quiet: bool) -> Bar {
        if !shown(total, done, quiet, std::io::stderr().is_terminal()) {
            return Bar { bar: None };
        }
        // Drawn nowhere until it stands at the kept jobs, so that no frame shows their rate.
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{wide_bar}] {pos}/{len} jobs  {per_sec}  ETA {eta}  {msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        start_at(&bar, done);
        bar.set_message("0 failed");
        bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(8));
        Bar { bar: Some(bar) }
    }

    /// One more job done; `failed` so far.
    pub fn job_done(&self, failed: usize) {
        if let Some(b) = &self.bar {
            b.inc(1);
            b.set_message(format!("{failed} failed"));
        }
    }

    /// Prints a line above the bar (or to stderr without one). Errors are printed even
    /// with `--quiet`.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(b) => b.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// Sets the bar at the `done` jobs kept from before, out of its rate: its estimate takes
/// in the position it has seen, then starts again from it (the kept jobs were not done in
/// the bar's first instant).
fn start_at(bar: &ProgressBar, done: u64) {
    bar.set_position(done);
    bar.tick();
    bar.reset_eta();
}

/// Whether a bar is drawn: not with `quiet`, not when stderr is not a `terminal`, and not
/// when `done` of `total` leaves no job to run.
fn shown(total: u64, done: u64, quiet: bool, terminal: bool) -> bool {
    !quiet && terminal && done < total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_bar_and_so_no_rate_when_nothing_is_left_to_run() {
        assert!(shown(280, 279, false, true));
        assert!(!shown(280, 280, false, true), "a resume with nothing to run");
        assert!(!shown(280, 0, true, true));
        assert!(!shown(280, 0, false, false));
    }

    #[test]
    fn the_jobs_kept_from_before_are_not_in_the_rate() {
        // A bar drawn nowhere keeps its state: the rate after a resume's position is set.
        let bar = ProgressBar::with_draw_target(Some(280), ProgressDrawTarget::hidden());
        start_at(&bar, 279);
        assert!(bar.per_sec() < 1.0, "{} jobs a second", bar.per_sec());
    }
}
