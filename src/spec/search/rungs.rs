//! What the rung methods (halving, Hyperband, BOHB) share: the rest of their `[search]`
//! (both budgets, the solvers' budget parameter, a first rung that fits), their rung
//! budgets, their resolved form and their words for `plan`.

use super::{Bracket, Metric, Reading, SearchSpec, TPE_KEYS, check_solvers};
use crate::spec::error::Report;
use crate::spec::tree::Entry;

/// The rest of a `[search]` of a rung method: no TPE keys, both budgets in order, solvers
/// that share a budget parameter (set by no solver, at most `max_budget`), a first rung of
/// at least `checkpoints` episodes and a metric its solvers write.
pub(super) fn read_rungs(table: &mut Reading) -> Option<SearchSpec> {
    let name = table.method.name();
    if table.refuse(&TPE_KEYS, format!("is a key of method = \"tpe\", not of {name}: remove it")) {
        return None;
    }
    let (Some(min_budget), Some(max_budget)) = (table.fields.min_budget, table.fields.max_budget) else {
        if !table.given("min_budget") || !table.given("max_budget") {
            table.problem("needs min_budget and max_budget (the budgets of the first and last rungs)".into());
        }
        return None;
    };
    if min_budget > max_budget {
        table.problem(format!("has min_budget = {min_budget} above max_budget = {max_budget}: swap them"));
        return None;
    }
    let opponent = table.opponent();
    let parameter = check_solvers(table.report, table.drafts, table.tables, max_budget)?;
    let search = SearchSpec {
        method: table.method,
        eta: table.fields.eta,
        min_budget,
        max_budget,
        metric: table.fields.metric,
        opponent,
        seat: table.fields.seat,
        parameter,
        trials: 0,
        batch: 0,
        startup: 0,
        per_sweep: false,
    };
    let fits = first_rung_fits(table.report, table.entry, &search, table.checkpoints)
        && metric_is_written(table.report, table.entry, &search);
    fits.then_some(search)
}

/// The rung budgets of `search`'s `eta`, `min_budget` and `max_budget`: `max_budget /
/// eta^k` (rounded) for every `k` that keeps them at or above `min_budget`, increasing.
pub(super) fn rung_budgets(search: &SearchSpec) -> Vec<u64> {
    let (eta, min, max) = (u128::from(search.eta), u128::from(search.min_budget), u128::from(search.max_budget));
    let mut divisors = vec![1u128];
    while min * divisors.last().expect("one") * eta <= max {
        divisors.push(divisors.last().expect("one") * eta);
    }
    divisors.iter().rev().map(|d| ((max + d / 2) / d) as u64).collect()
}

/// One bracket of every configuration, from rung 0.
pub(super) fn one_bracket(count: usize) -> Vec<Bracket> {
    vec![Bracket { start: 0, configurations: (0..count).collect() }]
}

/// The resolved form of a rung method's search.
pub(super) fn rung_json(search: &SearchSpec) -> serde_json::Value {
    serde_json::json!({
        "method": search.method.name(),
        "eta": search.eta,
        "min_budget": search.min_budget,
        "max_budget": search.max_budget,
        "metric": search.metric.name(),
        "opponent": search.opponent.name(),
        "seat": search.seat.map(|s| s.name()),
        "parameter": search.parameter,
        "budgets": search.budgets(),
    })
}

/// A rung method's search in words, for `plan`.
pub(super) fn describe_rungs(search: &SearchSpec) -> String {
    format!("{}, eta {}, {} rungs", search.method.name(), search.eta, search.budgets().len())
}

/// A learner's first rung has at least `checkpoints` episodes.
pub(super) fn first_rung_fits(report: &mut Report, entry: &Entry, search: &SearchSpec, checkpoints: u32) -> bool {
    let lowest = search.budgets()[0];
    if search.parameter == "episodes" && lowest < u64::from(checkpoints) {
        let message = format!(
            "has a first rung of {lowest} episodes, fewer than evaluation.checkpoints = {checkpoints}: \
             raise min_budget or lower checkpoints"
        );
        report.entry("search", entry, message);
        return false;
    }
    true
}

/// The metric's column is filled for the search's solvers: `regret_auc` is the mean regret
/// over a learner's run, which MCTS (budgeted by `iterations`) does not have.
pub(super) fn metric_is_written(report: &mut Report, entry: &Entry, search: &SearchSpec) -> bool {
    if search.metric == Metric::RegretAuc && search.parameter != "episodes" {
        let message = format!(
            "has metric = \"regret_auc\" over {}: only learners (budget episodes) have a regret curve; \
             use metric = \"regret\"",
            search.parameter
        );
        report.entry("search", entry, message);
        return false;
    }
    true
}
