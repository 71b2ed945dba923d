//! Sampled axes: distributions a solver's `samples = N` points are drawn from, and the
//! draws themselves.
//!
//! The forms (each an inline table with one key, next to the solver's `samples = N` and
//! optional `sampler = "random" | "sobol"`):
//!
//! | form | values |
//! | --- | --- |
//! | `{ uniform = [low, high] }` | a number uniform in `[low, high]` |
//! | `{ loguniform = [low, high] }` | a number whose logarithm is uniform (`0 < low`) |
//! | `{ one_minus_loguniform = [low_exp, high_exp] }` | `1 - 10^e`, `e` uniform (`0.999..`) |
//! | `{ int_uniform = [low, high] }` | a whole number, each equally likely |
//! | `{ int_loguniform = [low, high] }` | a whole number `k` with chance ∝ `ln((k+1)/k)` |
//! | `{ choice = [v1, v2, ..] }` | one of the values, each equally likely |
//!
//! Real draws are rounded to 6 significant digits (`1 - 10^e` to 12, after rounding
//! `10^e` to 6), so the CSV holds short numbers that read back to the same value.
//!
//! How the draws are made (the contract that `--extend` relies on):
//!
//! - Point `i` of a solver maps the uniforms `u_i` in `[0, 1)^d` through each axis's
//!   distribution, `d` being its number of sampled axes (in the kind's parameter order).
//! - `random`: `u_i` of the axis of parameter `p` is a counter-based hash of
//!   `(master seed, solver label, p, i)`. `sobol`: point `i` of a scrambled Sobol
//!   sequence (see `sobol.rs`), dimension `j` for the `j`-th sampled axis, its digital
//!   shift a hash of `(master seed, solver label, p)`.
//! - So the points depend on the master seed, the solver's label and its own axes only:
//!   editing another solver never changes them (give a solver an explicit `label` if
//!   solvers of its kind may be added, since default labels count them), and raising
//!   `samples` keeps the first points (prefix stability).
//! - Points that repeat an earlier point (likely with `choice` or narrow integer ranges)
//!   are dropped, so a solver has at most `samples` distinct points; `sweep plan` says how
//!   many.

use super::error::{Report, quoted_list};
use super::tree::{Entry, Leaf, Node};
use crate::kinds::param::fmt_short;
use crate::kinds::{Param, Ty, Val};
use crate::seed::{fnv1a, mix};
use crate::stats::sobol::Sobol;

/// A distribution of one sampled axis.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Dist {
    Uniform(f64, f64),
    LogUniform(f64, f64),
    OneMinusLogUniform(f64, f64),
    IntUniform(u64, u64),
    IntLogUniform(u64, u64),
    Choice(Vec<Val>),
}

/// How the uniforms behind the points are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sampler {
    Random,
    Sobol,
}

impl Sampler {
    /// The names a spec may give.
    pub const NAMES: [&'static str; 2] = ["random", "sobol"];

    /// The sampler's name.
    pub fn name(self) -> &'static str {
        match self {
            Sampler::Random => "random",
            Sampler::Sobol => "sobol",
        }
    }
}

/// The sampled forms, as written.
pub(crate) const FORMS: [&str; 6] =
    ["uniform", "loguniform", "one_minus_loguniform", "int_uniform", "int_loguniform", "choice"];

impl Dist {
    /// The value at the uniform `u` in `[0, 1)`.
    pub fn value(&self, u: f64) -> Val {
        match *self {
            Dist::Uniform(lo, hi) => Val::Real(round_digits(lo + u * (hi - lo), 6).clamp(lo, hi)),
            Dist::LogUniform(lo, hi) => Val::Real(round_digits(log_lerp(lo, hi, u), 6).clamp(lo, hi)),
            Dist::OneMinusLogUniform(lo, hi) => {
                let small = round_digits(10f64.powf(lo + u * (hi - lo)), 6);
                Val::Real(round_digits(1.0 - small, 12).clamp(one_minus(hi), one_minus(lo)))
            }
            Dist::IntUniform(lo, hi) => {
                let k = lo as f64 + (u * (hi - lo + 1) as f64).floor();
                Val::Count((k as u64).clamp(lo, hi))
            }
            Dist::IntLogUniform(lo, hi) => {
                let k = log_lerp(lo as f64, (hi + 1) as f64, u).floor();
                Val::Count((k as u64).clamp(lo, hi))
            }
            Dist::Choice(ref values) => values[((u * values.len() as f64) as usize).min(values.len() - 1)],
        }
    }

    /// Where the value `v` lies on the unit interval that [`Dist::value`] maps: the
    /// middle of the interval of `u` that gives `v` for whole numbers, and for a `choice`
    /// the value's index instead (a categorical axis). The inverse a model-based search
    /// reads finished trials through.
    pub fn position(&self, v: Val) -> f64 {
        let number = |v: Val| match v {
            Val::Real(x) => x,
            Val::Count(n) => n as f64,
            _ => f64::NAN,
        };
        let x = number(v);
        let u = match *self {
            Dist::Uniform(lo, hi) => (x - lo) / (hi - lo),
            Dist::LogUniform(lo, hi) => (x / lo).ln() / (hi / lo).ln(),
            Dist::OneMinusLogUniform(lo, hi) => ((1.0 - x).log10() - lo) / (hi - lo),
            Dist::IntUniform(lo, hi) => (x - lo as f64 + 0.5) / (hi - lo + 1) as f64,
            Dist::IntLogUniform(lo, hi) => {
                let span = ((hi + 1) as f64 / lo as f64).ln();
                0.5 * ((x / lo as f64).ln() + ((x + 1.0) / lo as f64).ln()) / span
            }
            Dist::Choice(ref values) => {
                return values.iter().position(|c| c.identity() == v.identity()).unwrap_or(0) as f64;
            }
        };
        if u.is_finite() { u.clamp(0.0, 1.0 - f64::EPSILON) } else { 0.5 }
    }

    /// The number of values of a `choice` (`None` for the other forms).
    pub fn choices(&self) -> Option<usize> {
        match self {
            Dist::Choice(values) => Some(values.len()),
            _ => None,
        }
    }

    /// The value at a position as [`Dist::position`] gives it (an index for a `choice`).
    pub fn at_position(&self, x: f64) -> Val {
        match self {
            Dist::Choice(values) => values[(x as usize).min(values.len() - 1)],
            _ => self.value(x),
        }
    }

    /// The values that bound what it draws (its ends, or every choice): what the checks
    /// between two parameters consider.
    pub fn span(&self) -> Vec<Val> {
        match *self {
            Dist::Uniform(lo, hi) | Dist::LogUniform(lo, hi) => vec![Val::Real(lo), Val::Real(hi)],
            Dist::OneMinusLogUniform(lo, hi) => vec![Val::Real(one_minus(hi)), Val::Real(one_minus(lo))],
            Dist::IntUniform(lo, hi) | Dist::IntLogUniform(lo, hi) => vec![Val::Count(lo), Val::Count(hi)],
            Dist::Choice(ref values) => values.clone(),
        }
    }

    /// The form as written, for the resolved spec: `{"loguniform": [0.1, 5]}`.
    pub fn to_json(&self) -> serde_json::Value {
        let (form, args): (&str, Vec<serde_json::Value>) = match *self {
            Dist::Uniform(lo, hi) => ("uniform", vec![lo.into(), hi.into()]),
            Dist::LogUniform(lo, hi) => ("loguniform", vec![lo.into(), hi.into()]),
            Dist::OneMinusLogUniform(lo, hi) => ("one_minus_loguniform", vec![lo.into(), hi.into()]),
            Dist::IntUniform(lo, hi) => ("int_uniform", vec![lo.into(), hi.into()]),
            Dist::IntLogUniform(lo, hi) => ("int_loguniform", vec![lo.into(), hi.into()]),
            Dist::Choice(ref values) => ("choice", values.iter().map(|v| v.to_json()).collect()),
        };
        serde_json::json!({ form: args })
    }
}

/// `1 - 10^e`, as an axis value.
pub(crate) fn one_minus(e: f64) -> f64 {
    round_digits(1.0 - round_digits(10f64.powf(e), 12), 12)
}

/// Between `lo` and `hi` (both > 0) on a log scale.
fn log_lerp(lo: f64, hi: f64, u: f64) -> f64 {
    (lo.ln() + u * (hi.ln() - lo.ln())).exp()
}

/// `x` rounded to `digits` significant decimal digits.
pub(crate) fn round_digits(x: f64, digits: usize) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{x:.*e}", digits - 1).parse().unwrap_or(x)
}

/// The first `count` points over `axes` (parameter name and distribution, in the kind's
/// order), drawn by `sampler` for the solver labelled `label`, repeats dropped.
pub(crate) fn draw(count: u64, sampler: Sampler, seed: u64, label: &str, axes: &[(&str, Dist)]) -> Vec<Vec<Val>> {
    let key = |what: &str, name: &str| mix(seed, fnv1a(format!("{what}/{label}/{name}").as_bytes()));
    let streams: Vec<u64> = axes.iter().map(|(name, _)| key("random", name)).collect();
    let sobol = Sobol::new(axes.iter().map(|(name, _)| key("sobol", name) as u32).collect());
    let mut seen = std::collections::HashSet::new();
    let mut points = Vec::new();
    for i in 0..count {
        let uniforms: Vec<f64> = match sampler {
            Sampler::Random => streams.iter().map(|&s| (mix(s, i) >> 11) as f64 / (1u64 << 53) as f64).collect(),
            Sampler::Sobol => sobol.point(u32::try_from(i).expect("samples are bounded by MAX_JOBS")),
        };
        let point: Vec<Val> = axes.iter().zip(uniforms).map(|((_, dist), u)| dist.value(u)).collect();
        if seen.insert(point.iter().map(|v| v.identity()).collect::<Vec<u64>>()) {
            points.push(point);
        }
    }
    points
}

/// Reads `{ <form> = args }` for `param`: the distribution, or `None` after recording why not.
pub(crate) fn read(report: &mut Report, key: &str, entry: &Entry, param: &Param) -> Option<Dist> {
    let form = entry.key.as_str();
    if let Some(message) = misfit(form, param) {
        report.entry(key, entry, message);
        return None;
    }
    if form == "choice" {
        return choice(report, key, entry, param);
    }
    let shape = if form == "one_minus_loguniform" { "[low_exp, high_exp]" } else { "[low, high]" };
    let Some((lo, hi)) = two_numbers(&entry.node) else {
        let message = format!("must be two finite numbers, low below high: write {{ {form} = {shape} }}");
        report.entry(key, entry, message);
        return None;
    };
    let dist = match form {
        "uniform" => Dist::Uniform(lo, hi),
        "loguniform" if lo > 0.0 => Dist::LogUniform(lo, hi),
        "loguniform" => {
            report.entry(key, entry, "must have low > 0: a log scale needs positive numbers".into());
            return None;
        }
        "one_minus_loguniform" => Dist::OneMinusLogUniform(lo, hi),
        _ if lo.fract() != 0.0 || hi.fract() != 0.0 || lo < 1.0 => {
            let message = format!("must be whole numbers from 1 up, low below high: write {{ {form} = [low, high] }}");
            report.entry(key, entry, message);
            return None;
        }
        "int_uniform" => Dist::IntUniform(lo as u64, hi as u64),
        _ => Dist::IntLogUniform(lo as u64, hi as u64),
    };
    for end in dist.span() {
        let x = match end {
            Val::Real(x) => x,
            Val::Count(n) => n as f64,
            _ => unreachable!("numeric forms have numeric ends"),
        };
        if let Err(why) = super::values::check_generated(x, param) {
            report.entry(key, entry, format!("gives {} = {}, which {why}", param.name, fmt_short(x)));
            return None;
        }
    }
    Some(dist)
}

/// Why `form` does not suit `param`, if it does not.
fn misfit(form: &str, param: &Param) -> Option<String> {
    let name = param.name;
    match (param.ty, form) {
        (_, "choice") => None,
        (Ty::Real(_), "uniform" | "loguniform" | "one_minus_loguniform") => None,
        (Ty::Count { .. }, "int_uniform" | "int_loguniform") => None,
        (Ty::Real(_), _) => Some(format!(
            "is not allowed: {name} takes numbers, not only whole ones; use {{ uniform = [low, high] }} or \
             {{ loguniform = [low, high] }}"
        )),
        (Ty::Count { .. }, _) => Some(format!(
            "is not allowed: {name} takes whole numbers; use {{ int_uniform = [low, high] }} or \
             {{ int_loguniform = [low, high] }}"
        )),
        (Ty::Flag | Ty::Choice(_) | Ty::Game { .. }, _) => {
            Some(format!("is not allowed: {name} is not numeric; sample it with {{ choice = [..] }} of its values"))
        }
    }
}

/// Two finite numbers, the first below the second.
fn two_numbers(node: &Node) -> Option<(f64, f64)> {
    let Leaf::Array(args) = &node.value else { return None };
    let [lo, hi] = args.as_slice() else { return None };
    let (lo, hi) = (lo.value.as_number()?, hi.value.as_number()?);
    (lo.is_finite() && hi.is_finite() && lo < hi).then_some((lo, hi))
}

/// `{ choice = [..] }`: a non-empty list of distinct values of the parameter.
fn choice(report: &mut Report, key: &str, entry: &Entry, param: &Param) -> Option<Dist> {
    let values = match &entry.node.value {
        Leaf::Array(items) if !items.is_empty() => items,
        _ => {
            let allowed = match param.ty {
                Ty::Choice(names) => format!(" of {}", quoted_list(names.iter().copied())),
                _ => String::new(),
            };
            let message = format!("must be a non-empty list of values{allowed}: write {{ choice = [v1, v2, ..] }}");
            report.entry(key, entry, message);
            return None;
        }
    };
    let read: Vec<Option<Val>> =
        values.iter().map(|item| super::values::scalar(report, key, item, param, None)).collect();
    let read = read.into_iter().collect::<Option<Vec<Val>>>()?;
    if let Some(repeated) = super::values::first_repeat(&read) {
        let message = format!("gives {} more than once: the values of a choice must be distinct", repeated.show());
        report.entry(key, entry, message);
        return None;
    }
    Some(Dist::Choice(read))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_of_each_form() {
        assert_eq!(Dist::Uniform(1.0, 3.0).value(0.5), Val::Real(2.0));
        assert_eq!(Dist::LogUniform(0.1, 10.0).value(0.5), Val::Real(1.0));
        assert_eq!(Dist::LogUniform(0.1, 5.0).value(0.0), Val::Real(0.1));
        assert_eq!(Dist::OneMinusLogUniform(-5.0, -3.0).value(0.5), Val::Real(0.9999));
        assert_eq!(Dist::OneMinusLogUniform(-5.0, -3.0).value(0.0), Val::Real(0.99999));
        assert_eq!(Dist::IntUniform(1, 4).value(0.0), Val::Count(1));
        assert_eq!(Dist::IntUniform(1, 4).value(0.999), Val::Count(4));
        assert_eq!(Dist::IntUniform(1, 4).value(0.5), Val::Count(3));
        assert_eq!(Dist::IntLogUniform(100, 20000).value(0.0), Val::Count(100));
        assert_eq!(Dist::IntLogUniform(100, 20000).value(0.99999999), Val::Count(20000));
        assert_eq!(Dist::Choice(vec![Val::Flag(false), Val::Flag(true)]).value(0.7), Val::Flag(true));
    }

    #[test]
    fn draws_are_short_round_trip_numbers_in_range() {
        let axes = [("uct_c", Dist::LogUniform(0.1, 5.0)), ("epsilon_decay", Dist::OneMinusLogUniform(-5.0, -3.0))];
        for sampler in [Sampler::Random, Sampler::Sobol] {
            for point in draw(200, sampler, 7, "s", &axes) {
                let (Val::Real(c), Val::Real(d)) = (point[0], point[1]) else { panic!() };
                assert!((0.1..=5.0).contains(&c) && (0.999..=0.99999).contains(&d));
                for x in [c, d] {
                    let shown = crate::solvers::params::fmt_f64(x);
                    assert!(shown.len() <= 14, "{shown}");
                    assert_eq!(shown.parse::<f64>().unwrap(), x);
                }
            }
        }
    }

    #[test]
    fn repeats_are_dropped() {
        let axes = [("symmetry", Dist::Choice(vec![Val::Flag(false), Val::Flag(true)]))];
        let points = draw(50, Sampler::Random, 1, "s", &axes);
        assert_eq!(points.len(), 2);
        assert_eq!(draw(50, Sampler::Sobol, 1, "s", &axes).len(), 2);
    }

    #[test]
    fn draws_depend_on_the_label_and_seed() {
        let axes = [("uct_c", Dist::Uniform(0.0, 1.0))];
        let a = draw(5, Sampler::Random, 1, "a", &axes);
        assert_ne!(a, draw(5, Sampler::Random, 1, "b", &axes));
        assert_ne!(a, draw(5, Sampler::Random, 2, "a", &axes));
        assert_eq!(a, draw(5, Sampler::Random, 1, "a", &axes));
    }
}
