//! The jobs of a spec ([`Job`]: one solver, one grid point, one replicate, with its paired seed and stable id),
//! listed for each solver in file order, for each point, for each replicate.
//!
//! Each solver runs its own `replicates` (the top-level value unless it sets one); a
//! replicate's seed and its part of the key do not depend on how many there are, so a
//! job's id is the same whatever the count.
//!
//! A job's id hashes its canonical key ([`crate::kinds::Params::canonical_key`]). Building that key from
//! scratch for each of a million jobs costs more than a second, so [`Keys`] walks a grid in
//! point order and rewrites only the `;name=value` fragments of the axes that changed;
//! debug builds check every key against [`crate::kinds::Params::canonical_key`].

use std::fmt::Write as _;

use super::{Sweep, grid};
use crate::job::{Job, Split, TEST_KEY};
use crate::kinds::{Kind, SELF_PLAY, Val};
use crate::seed::{job_id, job_seed, test_seed};

impl Sweep {
    /// Every job, in spec order. With a `[search]`, every grid point at every rung's
    /// budget: rung by rung, each rung in the usual order, its jobs marked with the rung.
    /// With a `[test]`, then every grid point at the full budget with the test replicates
    /// (split [`Split::Test`]), in the usual order.
    pub fn jobs(&self) -> Vec<Job> {
        let points: u64 = self.solvers.iter().map(|s| s.points.len() as u64).sum();
        let test = self.test.as_ref().map_or(0, |t| points * u64::from(t.replicates));
        let count = usize::try_from(self.job_count() + test).expect("job counts are bounded by MAX_JOBS");
        let most = self.solvers.iter().map(|s| s.replicates).max().unwrap_or(0);
        let seeds: Vec<u64> = (0..most).map(|r| job_seed(self.seed, r)).collect();
        let mut jobs = Vec::with_capacity(count);
        match &self.search {
            None => self.list_jobs(&self.grids, None, Split::Tune, &seeds, &mut jobs),
            Some(search) if search.method.models() => {
                // Round 0 of a model-based search: each point is a trial (for BOHB, at
                // the last rung's budget: `search::rounds` sets each rung's).
                self.list_jobs(&self.grids, None, Split::Tune, &seeds, &mut jobs);
                for job in &mut jobs {
                    job.trial = Some((job.point as u32, 0));
                }
            }
            Some(search) => {
                for (rung, budget) in search.budgets().into_iter().enumerate() {
                    let mut grids = self.grids.clone();
                    for grid in &mut grids {
                        grid.set_budget(search.parameter, budget);
                    }
                    self.list_jobs(&grids, Some(rung as u32), Split::Tune, &seeds, &mut jobs);
                }
            }
        }
        if let Some(test) = &self.test {
            let seeds: Vec<u64> = (0..test.replicates).map(|r| test_seed(self.seed, r)).collect();
            self.list_jobs(&self.grids, None, Split::Test, &seeds, &mut jobs);
        }
        jobs
    }

    /// Appends the jobs of `grids` (the solvers' grids, in order), marked with `rung` and
    /// `split`; `seeds` holds the seed of each replicate (a tuning solver runs its own
    /// replicates of them, a test every one).
    fn list_jobs(&self, grids: &[grid::Grid], rung: Option<u32>, split: Split, seeds: &[u64], jobs: &mut Vec<Job>) {
        for (s, (solver, grid)) in self.solvers.iter().zip(grids).enumerate() {
            let rung_points;
            let points = match rung {
                None => &solver.points,
                Some(_) => {
                    rung_points = grid.points();
                    &rung_points
                }
            };
            let replicates = match split {
                Split::Tune => solver.replicates,
                Split::Test => seeds.len() as u32,
            };
            // A search's rung marks its jobs with their configuration and the rung.
            let job = |index, point: usize, replicate, seed, id, params| Job {
                index,
                solver: s,
                point,
                replicate,
                seed,
                id,
                params,
                rung,
                split,
                trial: rung.map(|k| (point as u32, k)),
            };
            if grid.program.is_some() {
                // A program's grid is over its own parameters, not the kind's columns:
                // each key is built whole (a program's jobs are few).
                for (p, params) in points.iter().enumerate() {
                    for (r, &seed) in (0..replicates).zip(seeds) {
                        let mut key = params.canonical_key(self.seed, r);
                        if split == Split::Test {
                            key.push_str(TEST_KEY);
                        }
                        let id = job_id(&key);
                        jobs.push(job(jobs.len(), p, r, seed, id, *params));
                    }
                }
                continue;
            }
            let mut points = points.iter().enumerate();
            for block in grid.blocks() {
                let mut keys = Keys::new(self.seed, grid.kind, block);
                for (p, params) in points.by_ref().take(keys.len()) {
                    let point_len = keys.key.len();
                    for (r, &seed) in (0..replicates).zip(seeds) {
                        keys.key.truncate(point_len);
                        write!(keys.key, ";replicate={r}").expect("writing to a String cannot fail");
                        debug_assert_eq!(keys.key, params.canonical_key(self.seed, r));
                        if split == Split::Test {
                            keys.key.push_str(TEST_KEY);
                        }
                        let id = job_id(&keys.key);
                        jobs.push(job(jobs.len(), p, r, seed, id, *params));
                    }
                    keys.key.truncate(point_len);
                    keys.advance();
                }
            }
        }
    }

    /// A model-based search's sweep whose solvers' points are `trials` (per solver, each
    /// trial one value per searched axis, in trial order): what the search has decided so
    /// far. Its [`Sweep::jobs`] are those trials' jobs (and their test jobs).
    pub fn with_trials(&self, trials: &[Vec<Vec<Val>>]) -> Sweep {
        let mut out = self.clone();
        for ((grid, solver), points) in out.grids.iter_mut().zip(&mut out.solvers).zip(trials) {
            if let Some(s) = &mut grid.sampled {
                s.points = points.clone();
            }
            solver.points = grid.points();
        }
        out
    }

    /// [`Sweep::with_trials`] with the search's budget parameter set to `budget` (a BOHB
    /// rung's).
    pub fn with_trials_at(&self, trials: &[Vec<Vec<Val>>], budget: u64) -> Sweep {
        let parameter = self.search.as_ref().map_or("", |s| s.parameter);
        let mut out = self.clone();
        for ((grid, solver), points) in out.grids.iter_mut().zip(&mut out.solvers).zip(trials) {
            if let Some(s) = &mut grid.sampled {
                s.points = points.clone();
            }
            grid.set_budget(parameter, budget);
            solver.points = grid.points();
        }
        out
    }

    /// The searched axes of solver `solver` of a model-based search, as `(parameter,
    /// distribution)`, in the kind's parameter order (listed axes are `choice`s).
    pub(crate) fn searched_axes(&self, solver: usize) -> Vec<(&'static str, super::sample::Dist)> {
        let grid = &self.grids[solver];
        let params = grid.params();
        grid.sampled.iter().flat_map(|s| &s.axes).map(|(i, d)| (params[*i].name, d.clone())).collect()
    }

    /// Each solver's first configuration in the sweep's numbering (its points follow the
    /// earlier solvers'): what `[test]` ranks configurations by.
    pub fn first_configurations(&self) -> Vec<usize> {
        let mut first = 0;
        self.solvers
            .iter()
            .map(|s| {
                first += s.points.len();
                first - s.points.len()
            })
            .collect()
    }

    /// The number of searched axes of solver `solver` of a model-based search.
    pub fn searched_axes_count(&self, solver: usize) -> usize {
        self.grids[solver].sampled.as_ref().map_or(0, |s| s.axes.len())
    }

    /// The values of the searched axes at point `point` of solver `solver` (in the order
    /// of `Sweep::searched_axes`).
    pub fn searched_values(&self, solver: usize, point: usize) -> Vec<Val> {
        let grid = &self.grids[solver];
        grid.sampled.as_ref().map(|s| s.points[point].clone()).unwrap_or_default()
    }

    /// Tuning jobs per solver, as `(label, count)` in spec order, without listing them (a
    /// `[test]`'s jobs are counted by [`crate::search::test_pass::planned`]; a
    /// model-based search's count is its `trials`' jobs, if no proposal repeats).
    pub fn job_counts(&self) -> Vec<(String, u64)> {
        if let Some(search) = self.search.as_ref().filter(|s| s.method.proposes()) {
            // One search over the sweep: its trials shared out evenly, as planned.
            let count = self.solvers.len() as u64;
            let share = |i: usize| match search.per_sweep {
                true => search.trials / count + u64::from((i as u64) < search.trials % count),
                false => search.trials,
            };
            return self
                .solvers
                .iter()
                .enumerate()
                .map(|(i, s)| (s.label.clone(), share(i) * u64::from(s.replicates)))
                .collect();
        }
        if let Some(search) = self.search.as_ref().filter(|s| s.method.models()) {
            // Rungs over a space (BOHB): each bracket of its trials at its first rung, then
            // the best `max(1, floor(n / eta))` at each rung after.
            let rungs = search.budgets().len();
            let mut runs = 0u64;
            for bracket in search.brackets(search.trials as usize) {
                let mut n = bracket.configurations.len() as u64;
                for _ in bracket.start..rungs {
                    runs += n;
                    n = (n / search.eta).max(1);
                }
            }
            return self.solvers.iter().map(|s| (s.label.clone(), runs * u64::from(s.replicates))).collect();
        }
        let rungs = self.search.as_ref().map_or(1, |s| s.budgets().len() as u64);
        self.solvers
            .iter()
            .map(|s| (s.label.clone(), rungs * s.points.len() as u64 * u64::from(s.replicates)))
            .collect()
    }

    /// The number of tuning jobs, without listing them.
    pub fn job_count(&self) -> u64 {
        self.job_counts().iter().map(|(_, n)| n).sum()
    }
}

/// The canonical keys (without the replicate) of the points of one product of axes (a
/// grid, or a block of a sampled grid), in point order.
struct Keys<'g> {
    axes: Vec<&'g [Val]>,
    /// `;name=value` for every value of every axis.
    fragments: Vec<Vec<String>>,
    /// The current value of each axis (the last axis fastest).
    digits: Vec<usize>,
    /// The key's length after each axis's fragment.
    ends: Vec<usize>,
    /// The length of `seed=..;solver=..`.
    head: usize,
    /// The axes of seat and opponent: self-play keys leave the seat out.
    seat: Option<usize>,
    opponent: Option<usize>,
    /// The current point's key.
    key: String,
}

impl<'g> Keys<'g> {
    fn new(seed: u64, kind: Kind, axes: Vec<&'g [Val]>) -> Keys<'g> {
        let names: Vec<&str> = kind.params().iter().map(|p| p.name).collect();
        let fragments = kind
            .params()
            .iter()
            .zip(&axes)
            .map(|(param, axis)| {
                let fragment = |v: &Val| match param.in_key(*v) {
                    true => format!(";{}={}", param.name, v.show()),
                    false => String::new(),
                };
                axis.iter().map(fragment).collect()
            })
            .collect();
        let key = format!("seed={seed};solver={}", kind.name());
        let mut keys = Keys {
            axes,
            fragments,
            digits: vec![0; names.len()],
            ends: vec![0; names.len()],
            head: key.len(),
            seat: names.iter().position(|&n| n == "seat"),
            opponent: names.iter().position(|&n| n == "opponent"),
            key,
        };
        keys.rewrite_from(0);
        keys
    }

    /// The number of points.
    fn len(&self) -> usize {
        self.axes.iter().map(|a| a.len()).product()
    }

    /// Moves to the next point.
    fn advance(&mut self) {
        let mut axis = self.digits.len();
        while axis > 0 {
            axis -= 1;
            self.digits[axis] += 1;
            if self.digits[axis] < self.axes[axis].len() {
                break;
            }
            self.digits[axis] = 0;
        }
        // The seat's fragment depends on the opponent's value.
        if self.opponent == Some(axis) {
            axis = self.seat.map_or(axis, |s| s.min(axis));
        }
        self.rewrite_from(axis);
    }

    /// Rewrites the fragments of `axis` and every later axis.
    fn rewrite_from(&mut self, axis: usize) {
        self.key.truncate(if axis == 0 { self.head } else { self.ends[axis - 1] });
        let self_play = self.opponent.is_some_and(|o| self.axes[o][self.digits[o]] == SELF_PLAY);
        for a in axis..self.digits.len() {
            if !(self_play && self.seat == Some(a)) {
                self.key.push_str(&self.fragments[a][self.digits[a]]);
            }
            self.ends[a] = self.key.len();
        }
    }
}
