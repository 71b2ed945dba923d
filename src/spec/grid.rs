//! A solver's validated axes and the grid they span: its size, its points in order, the
//! points it shares with another grid, and its resolved form.

use crate::kinds::{Kind, Params, Val};

/// One solver's axes: one non-empty list of distinct values per parameter of its kind, in
/// column order.
#[derive(Clone, Debug)]
pub(crate) struct Grid {
    pub kind: Kind,
    pub axes: Vec<Vec<Val>>,
}

impl Grid {
    /// The number of grid points (saturating).
    pub fn len(&self) -> u64 {
        self.axes.iter().fold(1u64, |n, axis| n.saturating_mul(axis.len() as u64))
    }

    /// Every grid point, the first axis varying slowest.
    pub fn points(&self) -> Vec<Params> {
        let len = usize::try_from(self.len()).expect("grid sizes are bounded by MAX_JOBS");
        let mut points = Vec::with_capacity(len);
        let mut digits = vec![0usize; self.axes.len()];
        let mut values: Vec<Val> = self.axes.iter().map(|axis| axis[0]).collect();
        for _ in 0..len {
            points.push(self.kind.build(&values));
            // Advance the odometer: the last axis fastest.
            for a in (0..self.axes.len()).rev() {
                digits[a] += 1;
                if digits[a] < self.axes[a].len() {
                    values[a] = self.axes[a][digits[a]];
                    break;
                }
                digits[a] = 0;
                values[a] = self.axes[a][0];
            }
        }
        points
    }

    /// A grid point that both grids contain, as `name=value, ..`, if there is one. Grids
    /// are full products, so they share a point exactly when every pair of axes shares a
    /// value.
    pub fn shared_point(&self, other: &Grid) -> Option<String> {
        if self.kind != other.kind {
            return None;
        }
        let mut shown = Vec::with_capacity(self.axes.len());
        for ((param, a), b) in self.kind.params().iter().zip(&self.axes).zip(&other.axes) {
            let common = common_value(a, b)?;
            shown.push(format!("{}={}", param.name, common.show()));
        }
        Some(shown.join(", "))
    }

    /// The resolved form: label, kind and every axis as a list.
    pub fn to_json(&self, label: &str) -> serde_json::Value {
        let mut object = serde_json::Map::new();
        object.insert("label".into(), label.into());
        object.insert("kind".into(), self.kind.name().into());
        for (param, axis) in self.kind.params().iter().zip(&self.axes) {
            let values = axis.iter().map(|v| v.to_json()).collect();
            object.insert(param.name.into(), serde_json::Value::Array(values));
        }
        serde_json::Value::Object(object)
    }
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
            ],
        }
    }

    #[test]
    fn points_run_the_last_axis_fastest() {
        let grid = exact(&[Seat::X, Seat::O], &[Opponent::Random, Opponent::Minimax]);
        assert_eq!(grid.len(), 4);
        let p = |seat, opponent| Params::PolicyIteration(PolicyIteration(ExactParams { seat, opponent }));
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
