//! Learning-curve metrics of one run, computed exactly from its checkpoints.
//!
//! - `regret_auc`: the mean regret over the run, the trapezoidal area under the regret
//!   curve through the untrained start `(0, r_0)` and every checkpoint `(e_k, r_k)`,
//!   divided by the last checkpoint's episode.
//! - `solved_at`: the first checkpoint episode from which the regret stays at or below
//!   [`SOLVED`] up to the last checkpoint (none if the last is above).

/// A regret at or below this counts as solved (regrets below it are printed as 0).
pub const SOLVED: f64 = 1e-12;

/// The metrics of one learning curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurveMetrics {
    /// The mean regret over the run.
    pub regret_auc: f64,
    /// The first episode from which the run stays solved.
    pub solved_at: Option<u64>,
}

/// The metrics of a curve starting at regret `start` (episode 0) through `points`
/// (`(episode, regret)`, increasing episodes); none without points.
pub fn curve_metrics(start: f64, points: &[(u64, f64)]) -> Option<CurveMetrics> {
    let &(last, _) = points.last()?;
    let mut area = 0.0;
    let mut previous = (0u64, start);
    for &(episode, regret) in points {
        area += (episode - previous.0) as f64 * (regret + previous.1) / 2.0;
        previous = (episode, regret);
    }
    let mut solved_at = None;
    for &(episode, regret) in points.iter().rev() {
        if regret.abs() > SOLVED {
            break;
        }
        solved_at = Some(episode);
    }
    Some(CurveMetrics { regret_auc: area / last as f64, solved_at })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trapezoids_through_the_start() {
        // 0..10: (1 + 0.5) / 2 · 10 = 7.5; 10..30: (0.5 + 0) / 2 · 20 = 5; 30..40: 0.
        let m = curve_metrics(1.0, &[(10, 0.5), (30, 0.0), (40, 0.0)]).unwrap();
        assert!((m.regret_auc - 12.5 / 40.0).abs() < 1e-15);
        assert_eq!(m.solved_at, Some(30));
    }

    #[test]
    fn solved_means_solved_to_the_end() {
        let m = curve_metrics(1.0, &[(10, 0.0), (20, 0.1), (30, 0.0)]).unwrap();
        assert_eq!(m.solved_at, Some(30));
        assert_eq!(curve_metrics(1.0, &[(10, 0.0), (20, 0.1)]).unwrap().solved_at, None);
        assert_eq!(curve_metrics(0.0, &[(5, 0.0)]).unwrap(), CurveMetrics { regret_auc: 0.0, solved_at: Some(5) });
        assert_eq!(curve_metrics(1.0, &[]), None);
    }
}
