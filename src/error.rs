//! The error kinds the command line maps to exit codes.

/// Bad input (spec, flags, files): exit code 2, nothing written.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInput(pub String);

/// Shorthand for a bad-input error.
pub fn bad_input(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(BadInput(message.into()))
}

/// Exit codes.
pub mod exit {
    /// Success.
    pub const OK: i32 = 0;
    /// A job failed, a write failed, or a reproduction differed.
    pub const FAILED: i32 = 1;
    /// Bad input.
    pub const BAD_INPUT: i32 = 2;
    /// Interrupted.
    pub const INTERRUPTED: i32 = 130;
}
