//! A solver's validated axes and the grid they span: its size, its points in order, the
//! points it shares with another grid, and its resolved form.
//!
//! A grid without sampled axes is the cartesian product of its axes. With sampled axes it
//! is a union of products, one block per drawn point: the sampled parameters fixed at the
//! point's values, the other axes as listed. Blocks come in draw order (the sample varies
//! slowest), so raising `samples` only appends blocks.

use super::sample::{self, Dist, Sampler};
use crate::kinds::{Kind, Param, Params, Program, Val};

/// One solver's axes: one non-empty list of distinct values per parameter of its kind, in
/// column order; a sampled parameter's list is a placeholder (its default) that each
/// drawn point replaces.
#[derive(Clone, Debug)]
pub(crate) struct Grid {
    pub kind: Kind,
    pub axes: Vec<Vec<Val>>,
    pub sampled: Option<Sampled>,
    /// A command solver's program, whose parameters the axes are over.
    pub program: Option<&'static Program>,
}

/// The sampled axes of a grid and the points drawn over them.
#[derive(Clone, Debug)]
pub(crate) struct Sampled {
    /// Each sampled parameter's position among the kind's parameters, and its distribution.
    pub axes: Vec<(usize, Dist)>,
    /// How many points to draw.
    pub samples: u64,
    /// How the points are drawn.
    pub sampler: Sampler,
    /// The distinct points drawn (one value per sampled axis); empty until [`Grid::draw`].
    pub points: Vec<Vec<Val>>,
}

impl Grid {
    /// The parameters the axes are over: the kind's, or a program's.
    pub fn params(&self) -> &'static [&'static Param] {
        self.program.map_or_else(|| self.kind.params(), |p| p.axes)
    }

    /// Draws the sampled points (nothing to do without sampled axes), for the solver
    /// labelled `label` under the master seed `seed`.
    pub fn draw(&mut self, seed: u64, label: &str) {
        let params = self.params();
        if let Some(s) = &mut self.sampled {
            let axes: Vec<(&str, Dist)> = s.axes.iter().map(|(i, d)| (params[*i].name, d.clone())).collect();
            s.points = sample::draw(s.samples, s.sampler, seed, label, &axes);
        }
    }

    /// How many axes a model-based search over this grid has: its sampled axes and the
    /// axes that list more than one value.
    pub fn searched_axes(&self) -> usize {
        let sampled = self.sampled.as_ref().map_or(0, |s| s.axes.len());
        sampled + self.listed().count()
    }

    /// The positions of the axes that list several values and are not sampled.
    fn listed(&self) -> impl Iterator<Item = usize> + '_ {
        let sampled: Vec<usize> = self.sampled.iter().flat_map(|s| s.axes.iter().map(|(i, _)| *i)).collect();
        (0..self.axes.len()).filter(move |i| self.axes[*i].len() > 1 && !sampled.contains(i))
    }

    /// Makes the grid a model-based search's space (`[search] method = "tpe"`): every axis
    /// that lists several values becomes a sampled `choice` over them, so a point fixes
    /// every searched axis; the points are the `startup` Sobol points of round 0 for the
    /// solver labelled `label` under the master seed `seed` (later rounds' points are
    /// proposed from the scores, see [`crate::search::rounds`]).
    pub fn searched_by_model(&mut self, startup: u64, seed: u64, label: &str) {
        let listed: Vec<usize> = self.listed().collect();
        let mut axes: Vec<(usize, Dist)> = self.sampled.take().map(|s| s.axes).unwrap_or_default();
        for i in listed {
            axes.push((i, Dist::Choice(self.axes[i].clone())));
            self.axes[i].truncate(1);
        }
        axes.sort_by_key(|(i, _)| *i);
        self.sampled = Some(Sampled { axes, samples: startup, sampler: Sampler::Sobol, points: Vec::new() });
        self.draw(seed, label);
    }

    /// Replaces the axis of the parameter `name` by the single value `budget` (a search
    /// sets its budget parameter rung by rung).
    pub fn set_budget(&mut self, name: &str, budget: u64) {
        if let Some(i) = self.params().iter().position(|p| p.name == name) {
            self.axes[i] = vec![Val::Count(budget)];
        }
    }

    /// The number of grid points (saturating).
    pub fn len(&self) -> u64 {
        let product = self.axes.iter().fold(1u64, |n, axis| n.saturating_mul(axis.len() as u64));
        product.saturating_mul(self.sampled.as_ref().map_or(1, |s| s.points.len() as u64))
    }

    /// The axes of each block, in point order: the grid's own axes when nothing is
    /// sampled, else one block per drawn point.
    pub fn blocks(&self) -> Vec<Vec<&[Val]>> {
        let own: Vec<&[Val]> = self.axes.iter().map(Vec::as_slice).collect();
        let Some(s) = &self.sampled else { return vec![own] };
        s.points
            .iter()
            .map(|point| {
                let mut axes = own.clone();
                for ((i, _), value) in s.axes.iter().zip(point) {
                    axes[*i] = std::slice::from_ref(value);
                }
                axes
            })
            .collect()
    }

    /// Every grid point: block by block, within a block the first axis varying slowest.
    pub fn points(&self) -> Vec<Params> {
        let len = usize::try_from(self.len()).expect("grid sizes are bounded by MAX_JOBS");
        let mut points = Vec::with_capacity(len);
        for axes in self.blocks() {
            product(&|values| self.build(values), &axes, &mut points);
        }
        points
    }

    /// A grid point that both grids contain, as `name=value, ..`, if there is one. Blocks
    /// are full products, so two share a point exactly when every pair of axes shares a
    /// value.
    pub fn shared_point(&self, other: &Grid) -> Option<String> {
        if self.kind != other.kind || self.program.map(|p| p.solver) != other.program.map(|p| p.solver) {
            return None;
        }
        let theirs = other.blocks();
        for mine in self.blocks() {
            for their in &theirs {
                if let Some(shown) = shared_in_block(self.params(), &mine, their) {
                    return Some(shown);
                }
            }
        }
        None
    }

    /// The resolved form: label, kind and every axis as a list; a sampled axis as its
    /// form, with `samples`, `sampler` and the drawn `points`. A parameter added after
    /// the first version is left out while it is only its default ([`Param::in_key`](crate::kinds::Param::in_key)), so
    /// that older specs keep their hash.
    pub fn to_json(&self, label: &str) -> serde_json::Value {
        let mut object = serde_json::Map::new();
        object.insert("label".into(), label.into());
        object.insert("kind".into(), self.kind.name().into());
        if let Some(program) = self.program {
            object.insert("command".into(), program.command.clone().into());
            let files: Vec<serde_json::Value> = program
                .files
                .iter()
                .map(|(f, hash)| serde_json::json!({ "path": f, "fnv1a": format!("{hash:016x}") }))
                .collect();
            object.insert("files".into(), files.into());
            object.insert("timeout_s".into(), program.timeout.as_secs_f64().into());
            object.insert("threads_per_job".into(), program.threads_per_job.into());
        }
        for (param, axis) in self.params().iter().zip(&self.axes) {
            if let [only] = axis[..]
                && !param.in_key(only)
            {
                continue;
            }
            let values = axis.iter().map(|v| v.to_json()).collect();
            object.insert(param.name.into(), serde_json::Value::Array(values));
        }
        if let Some(s) = &self.sampled {
            for (i, dist) in &s.axes {
                object.insert(self.params()[*i].name.into(), dist.to_json());
            }
            object.insert("samples".into(), s.samples.into());
            object.insert("sampler".into(), s.sampler.name().into());
            let points: Vec<serde_json::Value> =
                s.points.iter().map(|p| p.iter().map(|v| v.to_json()).collect()).collect();
            object.insert("points".into(), points.into());
        }
        serde_json::Value::Object(object)
    }
}

impl Grid {
    /// The point with `values`, one per [`Grid::params`].
    fn build(&self, values: &[Val]) -> Params {
        match self.program {
            Some(program) => Params::of_program(program, values),
            None => self.kind.build(values).expect("a grid without a program is of a kind built from its values"),
        }
    }
}

/// Appends the points of the product of `axes`, the last axis fastest.
fn product(build: &dyn Fn(&[Val]) -> Params, axes: &[&[Val]], points: &mut Vec<Params>) {
    let len: usize = axes.iter().map(|a| a.len()).product();
    let mut digits = vec![0usize; axes.len()];
    let mut values: Vec<Val> = axes.iter().map(|axis| axis[0]).collect();
    for _ in 0..len {
        points.push(build(&values));
        // Advance the odometer: the last axis fastest.
        for a in (0..axes.len()).rev() {
            digits[a] += 1;
            if digits[a] < axes[a].len() {
                values[a] = axes[a][digits[a]];
                break;
            }
            digits[a] = 0;
            values[a] = axes[a][0];
        }
    }
}

/// A point in both products, shown as `name=value, ..` (a later parameter at its default
/// left out, as in the job key).
fn shared_in_block(params: &[&Param], a: &[&[Val]], b: &[&[Val]]) -> Option<String> {
    let mut shown = Vec::with_capacity(a.len());
    for ((param, a), b) in params.iter().zip(a).zip(b) {
        let common = common_value(a, b)?;
        if param.in_key(common) {
            shown.push(format!("{}={}", param.name, common.show()));
        }
    }
    Some(shown.join(", "))
}

/// A value in both lists (compared as axis values: `0.0` equals `-0.0`).
fn common_value(a: &[Val], b: &[Val]) -> Option<Val> {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let mut keys: Vec<u64> = small.iter().map(|v| v.identity()).collect();
    keys.sort_unstable();
    large.iter().copied().find(|&v| keys.binary_search(&v.identity()).is_ok())
}

/// Writes `value` as canonical JSON: object keys sorted, no whitespace.
pub(crate) fn canonical_json(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_json(item, out);
            }
            out.push(']');
        }
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::Value::from(key.as_str()).to_string());
                out.push(':');
                canonical_json(&map[key], out);
            }
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::PolicyIteration;
    use crate::mdp::Opponent;
    use crate::mdp::Seat;
    use crate::solvers::params::ExactParams;

    fn exact(seats: &[Seat], opponents: &[Opponent]) -> Grid {
        Grid {
            kind: Kind::PolicyIteration,
            axes: vec![
                seats.iter().map(|&s| Val::Name(s.name())).collect(),
                opponents.iter().map(|&o| Val::Name(o.name())).collect(),
                vec![Val::Game(crate::game::Game::TIC_TAC_TOE)],
            ],
            sampled: None,
            program: None,
        }
    }

    #[test]
    fn points_run_the_last_axis_fastest() {
        let grid = exact(&[Seat::X, Seat::O], &[Opponent::Random, Opponent::Minimax]);
        assert_eq!(grid.len(), 4);
        let p = |seat, opponent| {
            Params::PolicyIteration(PolicyIteration(ExactParams {
                seat,
                opponent,
                game: crate::game::Game::TIC_TAC_TOE,
            }))
        };
        assert_eq!(
            grid.points(),
            [
                p(Seat::X, Opponent::Random),
                p(Seat::X, Opponent::Minimax),
                p(Seat::O, Opponent::Random),
                p(Seat::O, Opponent::Minimax)
            ]
        );
    }

    #[test]
    fn shared_points() {
        let a = exact(&[Seat::X, Seat::O], &[Opponent::Random]);
        let b = exact(&[Seat::O], &[Opponent::Random, Opponent::Minimax]);
        let c = exact(&[Seat::X], &[Opponent::Minimax]);
        assert_eq!(a.shared_point(&b).as_deref(), Some("seat=o, opponent=random"));
        assert_eq!(a.shared_point(&c), None);
    }

    #[test]
    fn canonical_json_sorts_keys() {
        let v = serde_json::json!({"b": [1, 2.5, "x"], "a": {"d": true, "c": null}});
        let mut s = String::new();
        canonical_json(&v, &mut s);
        assert_eq!(s, r#"{"a":{"c":null,"d":true},"b":[1,2.5,"x"]}"#);
    }
}
