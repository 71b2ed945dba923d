//! Where a learner's checkpoints fall: evenly over the episodes (the default, see
//! [`checkpoint_episodes`]) or log-spaced, so that early learning is visible.

use super::q_learning::checkpoint_episodes;

crate::names::named_enum!(
    /// How checkpoints are spaced over a run (`checkpoint_spacing` in `[evaluation]`).
    Spacing, "checkpoint spacing", {
        /// `round(k · episodes / n)`, k = 1..=n.
        Even = "even",
        /// `round(episodes^(k / n))`, k = 1..=n: a geometric series from about 1 to the
        /// last episode.
        Log = "log",
    }
);

impl Spacing {
    /// The episodes after which `checkpoints` checkpoints fall in a run of `episodes`,
    /// increasing, duplicates removed, the last one `episodes` (none for 0 episodes).
    pub fn episodes(self, episodes: u64, checkpoints: u32) -> Vec<u64> {
        match self {
            Spacing::Even => checkpoint_episodes(episodes, checkpoints),
            Spacing::Log => log_checkpoint_episodes(episodes, checkpoints),
        }
    }
}

/// Log-spaced checkpoints: `round(episodes^(k / n))`, k = 1..=n, duplicates removed; the
/// last is exactly `episodes`.
pub fn log_checkpoint_episodes(episodes: u64, checkpoints: u32) -> Vec<u64> {
    if episodes == 0 || checkpoints == 0 {
        return Vec::new();
    }
    let n = f64::from(checkpoints);
    let mut v: Vec<u64> = (1..checkpoints)
        .map(|k| ((episodes as f64).powf(f64::from(k) / n).round() as u64).clamp(1, episodes))
        .collect();
    v.push(episodes);
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_spacing_is_geometric_and_ends_at_the_last_episode() {
        assert_eq!(log_checkpoint_episodes(10_000, 4), vec![10, 100, 1000, 10_000]);
        assert_eq!(log_checkpoint_episodes(20_000, 10)[..3], [3, 7, 20]);
        assert_eq!(log_checkpoint_episodes(3, 5), vec![1, 2, 3]);
        assert_eq!(log_checkpoint_episodes(0, 5), Vec::<u64>::new());
        assert_eq!(Spacing::Even.episodes(100, 4), vec![25, 50, 75, 100]);
    }
}
