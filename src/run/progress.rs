//! The progress bar: jobs done / total, elapsed, ETA, jobs per second and failures, on
//! stderr; hidden when stderr is not a terminal or with `--quiet`.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar, or nothing.
pub struct Bar {
    bar: Option<ProgressBar>,
}

impl Bar {
    /// A bar over `total` jobs of which `done` are already done.
    pub fn new(total: u64, done: u64, quiet: bool) -> Bar {
        if quiet || !std::io::stderr().is_terminal() {
            return Bar { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(8));
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{wide_bar}] {pos}/{len} jobs  {per_sec}  ETA {eta}  {msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        bar.set_position(done);
        bar.set_message("0 failed");
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
