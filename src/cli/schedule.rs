//! Warnings about schedules that make a parameter meaningless, printed by `sweep plan` and
//! `sweep run` on stderr (they never fail a run).
//!
//! For each rate with a decay and a floor (`epsilon`, `epsilon_decay`, `epsilon_min`; and
//! `alpha`, `alpha_decay`, `alpha_min`), at every grid point of a kind that takes them:
//!
//! - **floor reached early**: the rate hits its floor after `k` episodes, the smallest `k`
//!   with `start · decay^k <= floor`, and `k` is within the first 1% of the episodes: the
//!   rate is its floor for practically all of training, and the start and decay do not
//!   matter;
//! - **barely moves**: `decay < 1` but after all the episodes the rate is still at least
//!   95% of its start: the decay does nothing (1 would say so).
//!
//! - **a first rung that misses the schedule** (a `[search]` over episodes): a rate that
//!   decays per episode (`_decay`, no `_min_at`) and the behaviour policy uses is still
//!   above half its start after the first rung's episodes, so the early rungs judge every
//!   configuration before its schedule has done much, unlike the full run (short-horizon
//!   bias); `_min_at` makes every rung a scaled copy of the full run.
//!
//! One warning per solver, rate and kind of problem, with how many grid points it concerns
//! and one of them as an example.

use crate::kinds::{Params, Val};
use crate::spec::Sweep;

/// The share of training within which reaching the floor makes a schedule meaningless.
const EARLY: f64 = 0.01;
/// The share of its start a rate keeps at the end for its decay to count as doing nothing.
const STILL: f64 = 0.95;

/// The rates that decay towards a floor: (rate, decay, floor).
const RATES: [(&str, &str, &str); 2] =
    [("epsilon", "epsilon_decay", "epsilon_min"), ("alpha", "alpha_decay", "alpha_min")];

/// The share of its start above which a rate has barely decayed by the first rung.
const FIRST_RUNG: f64 = 0.5;

/// A parameter of a grid point as a number, as the job runs it (a decay derived from a
/// `_min_at` included), if the kind takes it.
fn number(params: &Params, name: &str) -> Option<f64> {
    params.running(name).and_then(|v| match v {
        Val::Real(x) => Some(x),
        Val::Count(n) => Some(n as f64),
        _ => None,
    })
}

/// What is wrong with one rate's schedule at one grid point, if anything.
fn check(start: f64, decay: f64, floor: f64, episodes: f64) -> Option<(bool, String)> {
    if decay >= 1.0 || start <= floor {
        return None;
    }
    if floor > 0.0 {
        let k = ((floor / start).ln() / decay.ln()).ceil().max(1.0);
        if k <= (episodes * EARLY).max(1.0) {
            return Some((true, format!("after {k} episode{} of {episodes}", if k == 1.0 { "" } else { "s" })));
        }
    }
    let kept = decay.powf(episodes);
    (kept >= STILL).then(|| (false, format!("after all {episodes} episodes it is still {:.3} of its start", kept)))
}

/// The warnings for `sweep`.
pub fn warnings(sweep: &Sweep) -> Vec<String> {
    let mut out = floor_warnings(sweep);
    out.extend(first_rung_warnings(sweep));
    out
}

/// Whether the behaviour policy of `p` uses `rate` (epsilon under epsilon-greedy, the
/// temperature under softmax, alpha always).
fn uses(p: &Params, rate: &str) -> bool {
    let softmax = p.running("exploration") == Some(Val::Name("softmax"));
    match rate {
        "epsilon" => !softmax,
        "temperature" => softmax,
        _ => true,
    }
}

/// A search over episodes whose first rung ends before a per-episode schedule has taken a
/// rate below half its start.
fn first_rung_warnings(sweep: &Sweep) -> Vec<String> {
    let Some(search) = sweep.search.as_ref().filter(|s| s.parameter == "episodes") else { return Vec::new() };
    let first = search.budgets()[0];
    let mut out = Vec::new();
    for (i, solver) in sweep.solvers.iter().enumerate() {
        for rate in ["epsilon", "alpha", "temperature"] {
            let (decay, floor, at) = (format!("{rate}_decay"), format!("{rate}_min"), format!("{rate}_min_at"));
            let mut found = (0, None);
            for p in solver.points.iter().filter(|p| uses(p, rate)) {
                let set = p.kind().param(&at).zip(p.running(&at)).is_some_and(|(param, v)| param.in_key(v));
                let values = (number(p, rate), number(p, &decay), number(p, &floor));
                let (false, Some(r), Some(d), Some(f)) = (set, values.0, values.1, values.2) else { continue };
                let kept = (r * d.powf(first as f64)).max(f) / r;
                if d < 1.0 && f < FIRST_RUNG * r && kept > FIRST_RUNG {
                    found.0 += 1;
                    found.1.get_or_insert(format!("{decay} = {d} keeps {rate} at {kept:.2} of its start"));
                }
            }
            if let (n @ 1.., Some(example)) = found {
                out.push(format!(
                    "solver[{}] ({}): at {n} of {} {rate} decays per episode and is still above half its \
                     start after the first rung's {first} episodes (e.g. {example}): the early rungs judge \
                     configurations before their schedule has done much, unlike the full run, and may cut the \
                     best; give {at} (the fraction of the episodes at which {rate} reaches {floor}) instead of \
                     {decay}, so every rung is a scaled copy of the full run",
                    i + 1,
                    solver.label,
                    crate::names::count(solver.points.len(), "grid point")
                ));
            }
        }
    }
    out
}

/// The floor-reached-early and barely-moves warnings.
fn floor_warnings(sweep: &Sweep) -> Vec<String> {
    let mut out = Vec::new();
    for (i, solver) in sweep.solvers.iter().enumerate() {
        for (rate, decay, floor) in RATES {
            // (points concerned, first example) for "floor early" and "barely moves".
            let mut found: [(usize, Option<String>); 2] = [(0, None), (0, None)];
            for p in &solver.points {
                let values = (number(p, rate), number(p, decay), number(p, floor), number(p, "episodes"));
                let (Some(r), Some(d), Some(f), Some(e)) = values else { continue };
                if let Some((early, when)) = check(r, d, f, e) {
                    let slot = &mut found[usize::from(!early)];
                    slot.0 += 1;
                    slot.1.get_or_insert_with(|| format!("{rate} = {r}, {decay} = {d}, {floor} = {f}: {when}"));
                }
            }
            let of = crate::names::count(solver.points.len(), "grid point");
            let whose = format!("solver[{}] ({})", i + 1, solver.label);
            if let (n @ 1.., Some(example)) = (found[0].0, &found[0].1) {
                out.push(format!(
                    "{whose}: {rate} reaches its floor {floor} within the first 1% of training at {n} of {of} \
                     (e.g. {example}), so {rate} and {decay} make no difference there"
                ));
            }
            if let (n @ 1.., Some(example)) = (found[1].0, &found[1].1) {
                out.push(format!(
                    "{whose}: {decay} is so close to 1 that {rate} barely moves at {n} of {of} \
                     (e.g. {example}); {decay} = 1 would say the same"
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules() {
        // The defaults: epsilon reaches 0.05 after 5990 of 50000 episodes (12%): fine.
        assert_eq!(check(1.0, 0.9995, 0.05, 50_000.0), None);
        assert_eq!(check(1.0, 0.5, 0.05, 1000.0), Some((true, "after 5 episodes of 1000".into())));
        assert_eq!(check(1.0, 0.01, 0.05, 1000.0), Some((true, "after 1 episode of 1000".into())));
        assert!(check(1.0, 0.99999, 0.05, 1000.0).is_some_and(|(early, _)| !early));
        // Constant rates and rates starting at their floor are meant.
        assert_eq!(check(0.5, 1.0, 0.0, 1000.0), None);
        assert_eq!(check(0.05, 0.5, 0.05, 1000.0), None);
    }

    #[test]
    fn one_warning_per_solver_and_rate() {
        let text = "[[solver]]\nkind = \"q-learning\"\nepisodes = 1000\nepsilon_decay = [0.5, 0.6, 0.9995]\n\
                    [[solver]]\nkind = \"q-learning\"\nlabel = \"slow\"\nepisodes = 1000\nalpha_decay = 0.99999\n";
        let sweep = crate::spec::parse(text, "t.toml").unwrap();
        let found = warnings(&sweep);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(
            found[0].starts_with("solver[1] (q-learning-1): epsilon reaches its floor epsilon_min"),
            "{}",
            found[0]
        );
        assert!(found[0].contains("at 2 of 3 grid points (e.g. epsilon = 1, epsilon_decay = 0.5"), "{}", found[0]);
        assert!(
            found[1].contains("solver[2] (slow): alpha_decay is so close to 1 that alpha barely moves"),
            "{}",
            found[1]
        );
    }
}
