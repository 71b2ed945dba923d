//! Where the executor's lines go while it runs: what a shard, a rung or a resume is about to
//! do, the shared tables it built, a directory it moved aside. The caller decides: the
//! command line sends them to stderr, a library caller may keep them or drop them. (The
//! end-of-run summary is not a notice: the run returns it in its report.)

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

/// The destination of the executor's lines while it runs.
#[derive(Clone, Default)]
pub enum Notices {
    /// Standard error, a line each (the command line's choice, and the default).
    #[default]
    Stderr,
    /// Nowhere.
    Silent,
    /// Kept, in order, for the caller to read.
    Kept(Arc<Mutex<Vec<String>>>),
}

impl Notices {
    /// A destination that keeps the lines, and the list they go to.
    pub fn kept() -> (Notices, Arc<Mutex<Vec<String>>>) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        (Notices::Kept(lines.clone()), lines)
    }

    /// Sends one line.
    pub fn say(&self, line: &str) {
        match self {
            Notices::Stderr => eprintln!("{line}"),
            Notices::Silent => {}
            Notices::Kept(lines) => lines.lock().unwrap_or_else(PoisonError::into_inner).push(line.to_string()),
        }
    }
}

impl fmt::Debug for Notices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Notices::Stderr => "Stderr",
            Notices::Silent => "Silent",
            Notices::Kept(_) => "Kept",
        })
    }
}
