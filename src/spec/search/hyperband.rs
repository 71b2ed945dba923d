//! Hyperband (`method = "hyperband"`): one bracket per rung it may start at, over the
//! solvers' grid points.
//!
//! The bracket of `s` cuts (`s = 0..=last rung`) starts at rung `last - s` with a nominal
//! `ceil((last + 1) * eta^s / (s + 1))` configurations
//! ([`SearchSpec::nominal_brackets`]); the configurations are shared out in those
//! proportions by a fixed rule (configuration `c` goes to the bracket whose share of `[0,
//! 1)` holds the fractional part of `(c + 1) / golden ratio`, so that neighbouring grid
//! points land in different brackets), each in exactly one bracket. With one rung it is
//! successive halving.

use super::{Bracket, Reading, SearchMethod, SearchSpec, Sweep};

/// Hyperband.
pub struct Hyperband;

impl SearchMethod for Hyperband {
    fn name(&self) -> &'static str {
        "hyperband"
    }

    fn models(&self) -> bool {
        false
    }

    fn proposes(&self) -> bool {
        false
    }

    fn read(&self, table: &mut Reading<'_, '_>) -> Option<SearchSpec> {
        super::read_rungs(table)
    }

    fn to_json(&self, search: &SearchSpec) -> serde_json::Value {
        super::rung_json(search)
    }

    fn budgets(&self, search: &SearchSpec) -> Vec<u64> {
        super::rung_budgets(search)
    }

    fn brackets(&self, search: &SearchSpec, count: usize) -> Vec<Bracket> {
        let last = search.budgets().len() - 1;
        if last == 0 {
            return super::one_bracket(count);
        }
        // Bracket of s cuts, s = last..=0, starts at rung last - s.
        let nominal: Vec<f64> = search.nominal_brackets().into_iter().map(|n| n as f64).collect();
        let total: f64 = nominal.iter().sum();
        let mut bounds = Vec::with_capacity(nominal.len());
        let mut sum = 0.0;
        for n in &nominal {
            sum += n;
            bounds.push(sum / total);
        }
        let mut out: Vec<Bracket> = (0..=last).map(|start| Bracket { start, configurations: Vec::new() }).collect();
        const GOLDEN: f64 = 0.618_033_988_749_894_9;
        for c in 0..count {
            let u = ((c + 1) as f64 * GOLDEN).fract();
            let b = bounds.iter().position(|&bound| u < bound).unwrap_or(last);
            out[b].configurations.push(c);
        }
        out.retain(|b| !b.configurations.is_empty());
        out
    }

    fn round_sizes(&self, _: &SearchSpec) -> Vec<u64> {
        Vec::new()
    }

    fn shows_brackets(&self) -> bool {
        true
    }

    fn describe(&self, search: &SearchSpec) -> String {
        super::describe_rungs(search)
    }

    fn warnings(&self, _: &Sweep) -> Vec<String> {
        Vec::new()
    }
}
