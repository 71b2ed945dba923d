//! Successive halving (`method = "halving"`): one bracket, every configuration (a grid
//! point of a solver, its budget aside) from the first rung; each rung keeps the best
//! `max(1, floor(n / eta))` of its `n` (see [`crate::search`]).

use super::{Bracket, Reading, SearchMethod, SearchSpec, Sweep};

/// Successive halving.
pub struct Halving;

impl SearchMethod for Halving {
    fn name(&self) -> &'static str {
        "halving"
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

    fn brackets(&self, _: &SearchSpec, count: usize) -> Vec<Bracket> {
        super::one_bracket(count)
    }

    fn round_sizes(&self, _: &SearchSpec) -> Vec<u64> {
        Vec::new()
    }

    fn shows_brackets(&self) -> bool {
        false
    }

    fn describe(&self, search: &SearchSpec) -> String {
        super::describe_rungs(search)
    }

    fn warnings(&self, _: &Sweep) -> Vec<String> {
        Vec::new()
    }
}
