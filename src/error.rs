//! The error kinds the command line maps to exit codes.

/// Bad input (spec, flags, files): exit code 2, nothing written.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInput(pub String);

/// Shorthand for a bad-input error.
pub fn bad_input(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(BadInput(message.into()))
}

/// The start of a bad input for a message, quoted: at most 32 characters (invalid UTF-8
/// shown as `\u{FFFD}`), then how long the whole was, so that a message never echoes a
/// huge line.
pub fn excerpt(text: &[u8]) -> String {
    const SHOWN: usize = 32;
    let lossy = String::from_utf8_lossy(&text[..text.len().min(4 * SHOWN)]);
    let start: String = lossy.chars().take(SHOWN).collect();
    let whole = text.len() <= 4 * SHOWN && lossy.chars().count() <= SHOWN;
    if whole { format!("{start:?}") } else { format!("{start:?}... ({} bytes)", text.len()) }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_is_short_and_says_how_long_the_whole_was() {
        assert_eq!(excerpt(b"X.O"), "\"X.O\"");
        let long = vec![b'X'; 1 << 20];
        assert_eq!(excerpt(&long), format!("\"{}\"... (1048576 bytes)", "X".repeat(32)));
        assert_eq!(excerpt(&[0xff, b'a']), "\"\u{fffd}a\"");
    }
}
