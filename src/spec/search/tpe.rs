//! TPE (`method = "tpe"`): rounds of configurations at the solvers' own budgets, round 0
//! the first `startup` Sobol points of each solver's space and every later one `batch`
//! configurations proposed by a tree-structured Parzen estimator from the scores of the
//! rounds before (see [`crate::search::rounds`] and [`crate::search::tpe`]).

use super::{Bracket, Reading, SearchMethod, SearchSpec, Sweep};
use crate::names::count;

/// The tree-structured Parzen estimator's search.
pub struct Tpe;

impl SearchMethod for Tpe {
    fn name(&self) -> &'static str {
        "tpe"
    }

    fn models(&self) -> bool {
        true
    }

    fn proposes(&self) -> bool {
        true
    }

    fn read(&self, table: &mut Reading<'_, '_>) -> Option<SearchSpec> {
        super::read_trials(table)
    }

    fn to_json(&self, search: &SearchSpec) -> serde_json::Value {
        serde_json::json!({
            "method": search.method.name(),
            "trials": search.trials,
            "batch": search.batch,
            "startup": search.startup,
            "per": if search.per_sweep { "sweep" } else { "solver" },
            "metric": search.metric.name(),
            "opponent": search.opponent.name(),
            "seat": search.seat.map(|s| s.name()),
        })
    }

    fn budgets(&self, _: &SearchSpec) -> Vec<u64> {
        Vec::new()
    }

    fn brackets(&self, _: &SearchSpec, _: usize) -> Vec<Bracket> {
        Vec::new()
    }

    /// Round 0 (the startup), then one per `batch` of the trials left.
    fn round_sizes(&self, search: &SearchSpec) -> Vec<u64> {
        let startup = search.startup.min(search.trials);
        let rounds = 1 + (search.trials - startup).div_ceil(search.batch);
        (0..rounds)
            .map(|r| match r {
                0 => startup,
                r => (search.trials - startup - (r - 1) * search.batch).min(search.batch),
            })
            .collect()
    }

    fn shows_brackets(&self) -> bool {
        false
    }

    fn describe(&self, search: &SearchSpec) -> String {
        format!(
            "tpe, {} {} in {} (round 0: {} Sobol points, then {} proposed per round from the scores so far)",
            count(search.trials, "trial"),
            if search.per_sweep { "over the sweep (the solver a categorical)" } else { "per solver" },
            count(search.rounds(), "round"),
            search.startup.min(search.trials),
            search.batch,
        )
    }

    /// A search too small to learn much: fewer than 10 trials per axis, or no round
    /// proposed from the scores after the startup.
    fn warnings(&self, sweep: &Sweep) -> Vec<String> {
        let search = sweep.search.as_ref().expect("a searched spec");
        let mut out = Vec::new();
        let per_sweep: u64 = 1 + (0..sweep.solvers.len()).map(|s| sweep.searched_axes_count(s) as u64).sum::<u64>();
        for (s, solver) in sweep.solvers.iter().enumerate().take(if search.per_sweep { 1 } else { usize::MAX }) {
            let axes = if search.per_sweep { per_sweep } else { sweep.searched_axes_count(s) as u64 };
            let solver = if search.per_sweep { "the sweep" } else { solver.label.as_str() };
            if search.trials < 10 * axes {
                out.push(format!(
                    "{} searches {} with {}: fewer than 10 per axis, so the model has little to learn from; raise \
                     trials",
                    solver,
                    if axes == 1 { "1 axis".to_string() } else { format!("{axes} axes") },
                    count(search.trials, "trial")
                ));
            }
        }
        if search.trials < search.startup + search.batch {
            out.push(format!(
                "trials = {} is below startup + batch = {}: at most one round is proposed from the scores; raise \
                 trials or lower startup",
                search.trials,
                search.startup + search.batch
            ));
        }
        out
    }
}
