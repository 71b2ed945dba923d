//! BOHB (`method = "bohb"`; Falkner, Klein and Hutter, 2018): Hyperband's brackets and
//! rungs (its keys, its nominal bracket sizes) over the solvers' searched space, each
//! bracket's configurations proposed by TPE from the scores so far when it starts, or
//! Sobol points while no rung has enough scores (see [`crate::search::rounds`]).

use super::{Bracket, Reading, SearchMethod, SearchSpec, Sweep};

/// BOHB.
pub struct Bohb;

impl SearchMethod for Bohb {
    fn name(&self) -> &'static str {
        "bohb"
    }

    fn models(&self) -> bool {
        true
    }

    fn proposes(&self) -> bool {
        false
    }

    fn read(&self, table: &mut Reading<'_, '_>) -> Option<SearchSpec> {
        let search = super::read_rungs(table)?;
        // Its brackets' nominal configurations in all; the Sobol points drawn when the
        // spec is read are that many (a bracket takes them while no model can propose).
        // Its points are TPE's, and messages about them name it.
        super::check_searched(table.report, table.drafts, "tpe");
        let configurations = search.nominal_brackets().iter().sum::<u64>();
        Some(SearchSpec { trials: configurations, startup: configurations, ..search })
    }

    fn to_json(&self, search: &SearchSpec) -> serde_json::Value {
        super::rung_json(search)
    }

    fn budgets(&self, search: &SearchSpec) -> Vec<u64> {
        super::rung_budgets(search)
    }

    /// The configurations in proposal order: each bracket its nominal share, in turn.
    fn brackets(&self, search: &SearchSpec, count: usize) -> Vec<Bracket> {
        let mut first = 0;
        let mut out = Vec::new();
        for (start, n) in search.nominal_brackets().into_iter().enumerate() {
            let end = (first + n as usize).min(count);
            out.push(Bracket { start, configurations: (first..end).collect() });
            first = end;
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
