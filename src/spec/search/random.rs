//! Quasi-random search (`method = "random"`): `trials` configurations per solver, the
//! first points of each solver's scrambled Sobol sequence over its searched space (its
//! sampled axes, and its listed axes as `choice`s), every one at the solver's own budget,
//! all in round 0 (see [`crate::search::rounds`]).
//!
//! It is TPE without the model: the same space, the same keys but `batch` and `startup`
//! (`trials`, `per`, `metric`, `opponent`, `seat`), and its trials are the points TPE's
//! round 0 draws, so with the same seed its first `startup` trials are TPE's startup (the
//! same jobs). Running one spec with `method = "tpe"` and then `"random"` at the same
//! `trials` measures what the model adds. Unlike `samples` with `sampler = "sobol"` on a
//! plain grid, a listed axis is one more dimension of the draw (not a product with it),
//! `per = "sweep"` shares the trials among the solvers, and a run ends with the best trial
//! against the runner-up, as TPE's does.

use super::{Bracket, Reading, SearchMethod, SearchSpec, Sweep};
use crate::names::count;

/// Quasi-random search.
pub struct Random;

impl SearchMethod for Random {
    fn name(&self) -> &'static str {
        "random"
    }

    fn models(&self) -> bool {
        true
    }

    fn proposes(&self) -> bool {
        true
    }

    /// TPE's keys but `batch` and `startup`: every trial is one of round 0's Sobol points,
    /// and none is proposed.
    fn read(&self, table: &mut Reading<'_, '_>) -> Option<SearchSpec> {
        let message = "is a key of method = \"tpe\", not of random: remove it; random draws every trial in round 0";
        if table.refuse(&["batch", "startup"], message.into()) {
            return None;
        }
        let search = super::read_trials(table)?;
        Some(SearchSpec { batch: 0, startup: search.trials, ..search })
    }

    fn to_json(&self, search: &SearchSpec) -> serde_json::Value {
        serde_json::json!({
            "method": search.method.name(),
            "trials": search.trials,
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

    fn round_sizes(&self, search: &SearchSpec) -> Vec<u64> {
        vec![search.trials]
    }

    fn shows_brackets(&self) -> bool {
        false
    }

    fn describe(&self, search: &SearchSpec) -> String {
        format!(
            "random, {} {} in 1 round (the first points of each solver's scrambled Sobol sequence over its searched \
             axes, none proposed from the scores)",
            count(search.trials, "trial"),
            if search.per_sweep { "over the sweep (shared out among the solvers)" } else { "per solver" },
        )
    }

    fn warnings(&self, _: &Sweep) -> Vec<String> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use crate::kinds::Val;
    use crate::search::rounds::{Rounds, decide};
    use crate::search::test_pass::Scores;
    use crate::spec::Sweep;

    const SOLVER: &str = "[[solver]]\nkind = \"q-learning\"\nepisodes = 50\nalpha = { loguniform = [0.01, 1.0] }\n\
                          gamma = [0.9, 0.99]\n";

    fn parse(search: &str, solvers: &str) -> Result<Sweep, String> {
        let text = format!("replicates = 2\nseed = 5\n[evaluation]\ncheckpoints = 1\n[search]\n{search}\n{solvers}");
        crate::spec::parse(&text, "random.toml").map_err(|e| e.to_string())
    }

    /// Scores every job of `rounds` by alpha's distance from 0.1 (on a log scale).
    fn score_all(rounds: &Rounds, scores: &mut Scores) {
        for j in &rounds.jobs {
            let Val::Real(alpha) = rounds.sweep.searched_values(j.solver, j.point)[0] else { panic!() };
            scores.search.insert(j.id.clone(), (alpha.ln() - 0.1f64.ln()).abs());
            scores.rows.insert(j.id.clone(), 1);
        }
    }

    #[test]
    fn trials_run_at_the_solvers_budget_in_one_round_and_the_model_s_keys_are_refused() {
        let sweep = parse("method = \"random\"\ntrials = 12", SOLVER).unwrap();
        let search = sweep.search.as_ref().unwrap();
        assert_eq!((search.trials, search.startup, search.batch), (12, 12, 0));
        assert_eq!((search.round_sizes(), search.budgets(), search.rounds()), (vec![12], vec![], 1));
        assert_eq!(sweep.job_count(), 12 * 2);
        assert!(sweep.jobs().iter().all(|j| j.params.work().episodes == 50 && j.rung.is_none()));
        let json = serde_json::json!({"method": "random", "trials": 12, "per": "solver", "metric": "regret",
            "opponent": "random", "seat": null});
        assert_eq!(search.to_json(), json);
        for (keys, message) in [
            ("trials = 12\nbatch = 4", "search.batch = 4 is a key of method = \"tpe\", not of random: remove it"),
            ("startup = 4\ntrials = 12", "search.startup = 4 is a key of method = \"tpe\", not of random"),
            ("trials = 12\nmin_budget = 10", "is a key of the rung methods (halving, hyperband), not of random"),
            ("per = \"sweep\"", "has method = \"random\" but no trials: add trials = N"),
        ] {
            let err = parse(&format!("method = \"random\"\n{keys}"), SOLVER).unwrap_err();
            assert!(err.contains(message), "{message} in {err}");
        }
        let err = parse("method = \"random\"\ntrials = 4", "[[solver]]\nkind = \"q-learning\"\nalpha = 0.1\n");
        assert!(err.unwrap_err().contains("has nothing for [search] to search"));
    }

    /// The same seed and solver: TPE's round 0 of 8 Sobol points is the first 8 trials of a
    /// random search, the same jobs.
    #[test]
    fn its_first_trials_are_tpe_s_startup() {
        let random = parse("method = \"random\"\ntrials = 12", SOLVER).unwrap();
        let tpe = parse("method = \"tpe\"\ntrials = 40\nstartup = 8", SOLVER).unwrap();
        let ids = |s: &Sweep| s.jobs().into_iter().map(|j| j.id).collect::<Vec<_>>();
        assert_eq!(ids(&tpe).len(), 8 * 2);
        assert_eq!(ids(&random)[..16], ids(&tpe)[..]);
    }

    /// One round holds every trial; once it is scored the search is done (a larger
    /// `trials` keeps every trial and adds more), and the same scores decide the same jobs.
    #[test]
    fn one_round_decides_every_trial() {
        let sweep = parse("method = \"random\"\ntrials = 12", SOLVER).unwrap();
        let mut scores = Scores::default();
        let first = decide(&sweep, &scores);
        assert_eq!((first.jobs.len(), first.decided.rungs.len(), first.decided.finished), (24, 1, false));
        assert!(first.trials[0].iter().all(|t| t.round == 0));
        assert_eq!(first.jobs.iter().map(|j| &j.id).collect::<Vec<_>>(), sweep.jobs().iter().map(|j| &j.id).collect::<Vec<_>>());
        score_all(&first, &mut scores);
        let done = decide(&sweep, &scores);
        assert!(done.decided.finished && done.last_pass && done.tuned);
        assert_eq!((done.jobs, done.trials.clone()), (first.jobs.clone(), first.trials));
        assert_eq!(done.scores[0].len(), 12);
        let more = parse("method = \"random\"\ntrials = 16", SOLVER).unwrap();
        let grown = decide(&more, &scores);
        assert_eq!(grown.trials[0][..12], done.trials[0][..]);
        assert_eq!((grown.trials[0].len(), grown.decided.finished), (16, false));
    }

    /// `per = "sweep"`: 7 trials shared out among two solvers (4 and 3), every one in
    /// round 0.
    #[test]
    fn one_search_over_the_sweep_shares_the_trials_out() {
        let two = format!("{SOLVER}[[solver]]\nkind = \"sarsa\"\nepisodes = 50\nalpha = {{ uniform = [0.1, 1.0] }}\n");
        let sweep = parse("method = \"random\"\ntrials = 7\nper = \"sweep\"", &two).unwrap();
        assert_eq!([sweep.solvers[0].points.len(), sweep.solvers[1].points.len()], [4, 3]);
        assert_eq!(sweep.job_counts().iter().map(|c| c.1).collect::<Vec<_>>(), [8, 6]);
        let mut scores = Scores::default();
        let first = decide(&sweep, &scores);
        score_all(&first, &mut scores);
        let done = decide(&sweep, &scores);
        assert!(done.decided.finished);
        assert_eq!([done.trials[0].len(), done.trials[1].len()], [4, 3]);
    }
}
