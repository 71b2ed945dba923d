//! The stop token: how the owner of a run (the command line, on Ctrl-C) asks it to stop.
//!
//! A token is cheap to clone; every clone shares one count of stop requests. The executor
//! starts no new job once a stop is requested and gives the running ones [`GRACE`] to
//! finish; what to do on a further request (the command line exits at once) is up to the
//! owner, which sees the count.
//!
//! [`GRACE`]: super::GRACE

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A shared request to stop a run.
#[derive(Clone, Debug, Default)]
pub struct StopToken {
    requests: Arc<AtomicUsize>,
}

impl StopToken {
    /// A token with no stop requested.
    pub fn new() -> StopToken {
        StopToken::default()
    }

    /// Asks the run to stop; returns how many stops have been asked, this one included.
    pub fn stop(&self) -> usize {
        self.requests.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Whether a stop has been asked.
    pub fn is_stopped(&self) -> bool {
        self.requests.load(Ordering::SeqCst) > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_requests() {
        let token = StopToken::new();
        let clone = token.clone();
        assert!(!token.is_stopped());
        assert_eq!(clone.stop(), 1);
        assert!(token.is_stopped());
        assert_eq!(token.stop(), 2);
        assert!(!StopToken::new().is_stopped(), "a new token starts afresh");
    }
}
