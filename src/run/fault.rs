//! Faults injected on purpose, to test how a run survives failing jobs and a full disk.
//!
//! The command line reads them from the environment variable [`FAULT_VAR`]; the library
//! takes them as a plain value in [`RunOptions`](super::RunOptions), so that runs in one
//! process (tests on parallel threads) do not share them.

use anyhow::Result;

/// Environment variable that makes chosen jobs fail on purpose, to test failure handling:
/// `panic:PREFIX` or `error:PREFIX` fails every job whose id starts with `PREFIX`;
/// `write:N` and `write:start` fail the writer as a full disk would.
pub const FAULT_VAR: &str = "SWEEP_FAULT";

/// A fault to inject.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// `panic:PREFIX`: every job whose id starts with `PREFIX` panics.
    Panic(String),
    /// `error:PREFIX`: every job whose id starts with `PREFIX` returns an error.
    Error(String),
    /// `write:N`: the writer fails after N jobs, as a full disk would.
    Write(usize),
    /// `write:start`: the disk is full when the run starts: `results.csv` is created but
    /// its header cannot be written, and there is no manifest.
    WriteAtStart,
}

impl Fault {
    /// Parses `panic:PREFIX`, `error:PREFIX`, `write:N` or `write:start`; anything else is
    /// no fault.
    pub fn parse(text: &str) -> Option<Fault> {
        match text.split_once(':')? {
            ("panic", prefix) => Some(Fault::Panic(prefix.to_string())),
            ("error", prefix) => Some(Fault::Error(prefix.to_string())),
            ("write", "start") => Some(Fault::WriteAtStart),
            ("write", count) => count.parse().ok().map(Fault::Write),
            _ => None,
        }
    }

    /// The fault that [`FAULT_VAR`] asks for, if any.
    pub fn from_env() -> Option<Fault> {
        std::env::var(FAULT_VAR).ok().as_deref().and_then(Fault::parse)
    }

    /// Fails as a full disk would if this fault asks the writer to fail after `written`
    /// jobs.
    pub fn check_write(fault: Option<&Fault>, written: usize) -> Result<()> {
        match fault {
            Some(&Fault::Write(n)) if written >= n => {
                Err(anyhow::anyhow!("cannot write results.csv: No space left on device (injected by {FAULT_VAR})"))
            }
            _ => Ok(()),
        }
    }

    /// Fails as a full disk at the start of a run would, if this fault asks for it: leaves
    /// in `dir` what such a disk leaves, an empty `results.csv` (its creation needs no
    /// space, its header does) and no manifest.
    pub fn check_start(fault: Option<&Fault>, dir: &std::path::Path) -> Result<()> {
        if fault != Some(&Fault::WriteAtStart) {
            return Ok(());
        }
        let path = dir.join("results.csv");
        std::fs::OpenOptions::new().create(true).append(true).open(&path)?;
        Err(anyhow::anyhow!("cannot write {}: No space left on device (injected by {FAULT_VAR})", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse() {
        assert_eq!(Fault::parse("panic:3fa"), Some(Fault::Panic("3fa".into())));
        assert_eq!(Fault::parse("error:"), Some(Fault::Error(String::new())));
        assert_eq!(Fault::parse("write:5"), Some(Fault::Write(5)));
        assert_eq!(Fault::parse("write:start"), Some(Fault::WriteAtStart));
        for none in ["", "write:x", "crash:1", "panic"] {
            assert_eq!(Fault::parse(none), None, "{none}");
        }
    }

    #[test]
    fn the_writer_fails_after_n_jobs() {
        let fault = Fault::Write(2);
        assert!(Fault::check_write(Some(&fault), 1).is_ok());
        assert!(Fault::check_write(Some(&fault), 2).is_err());
        assert!(Fault::check_write(Some(&Fault::Error(String::new())), 9).is_ok());
        assert!(Fault::check_write(None, 9).is_ok());
    }
}
