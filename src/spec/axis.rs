//! One parameter's grid axis: a scalar, a non-empty list, a spaced table or a sampled
//! form, read into typed, range-checked values (or a distribution to draw from).
//!
//! - `{ linspace = [from, to, n] }` gives `n` evenly spaced values from `from` to `to`,
//!   both included; for `n = 1` the single value is `from`. `{ logspace = [from_exp,
//!   to_exp, n] }` gives `10^e` for `n` evenly spaced exponents `e`, and
//!   `{ one_minus_logspace = [from_exp, to_exp, n] }` gives `1 - 10^e` (decay factors:
//!   `[-5, -3, 3]` gives 0.99999, 0.9999, 0.999, in that order). Generated values are
//!   rounded to 12 significant digits, so that `{ linspace = [0.1, 0.5, 5] }` gives `0.3`,
//!   not `0.30000000000000004`.
//! - For a whole-number parameter (`episodes`, `iterations`) a `linspace` or `logspace`
//!   that gives fractions is rounded to the nearest whole numbers, repeats dropped (keeping
//!   the first); the spec records a note that `sweep plan` prints.
//! - The sampled forms (`uniform`, `loguniform`, `one_minus_loguniform`, `int_uniform`,
//!   `int_loguniform`, `choice`) are read by `sample.rs`; the solver's `samples = N` says
//!   how many points to draw.
//! - The values of an axis must be distinct (a repeated value would repeat jobs).

use super::MAX_JOBS;
use super::error::{Report, closest};
use super::policy_file;
use super::sample::{self, Dist};
use super::tree::{Entry, Leaf, Node};
use super::values::{accepted, check_generated, first_repeat, scalar, takes_policy};
use crate::kinds::param::fmt_short;
use crate::kinds::{Kind, Param, Ty, Val};

/// An axis as read: its values, or the distribution its sampled values come from.
#[derive(Clone, Debug)]
pub(crate) enum Axis {
    Values(Vec<Val>),
    Sampled(Dist),
}

impl Axis {
    /// The values, or the values that bound the draws: what checks between two parameters
    /// consider.
    pub fn span(&self) -> Vec<Val> {
        match self {
            Axis::Values(values) => values.clone(),
            Axis::Sampled(dist) => dist.span(),
        }
    }
}

/// Reads the axis of `param` (for solver kind `kind`, if known) from `node`, recording
/// every problem; `None` when there was one.
pub(crate) fn read(report: &mut Report, key: &str, node: &Node, param: &Param, kind: Option<Kind>) -> Option<Axis> {
    let values = match &node.value {
        Leaf::Array(items) if items.is_empty() => {
            report.value(
                key,
                node,
                "is an empty list: give at least one value, or leave the key out for the default".into(),
            );
            return None;
        }
        Leaf::Array(items) => {
            let read: Vec<Option<Val>> = items.iter().map(|item| scalar(report, key, item, param, kind)).collect();
            read.into_iter().collect::<Option<Vec<Val>>>()?
        }
        Leaf::Table(entries) if takes_policy(param) && policy_file::is_policy(entries) => {
            vec![scalar(report, key, node, param, kind)?]
        }
        Leaf::Table(entries) => match table(report, key, node, entries, param)? {
            Axis::Values(values) => values,
            sampled => return Some(sampled),
        },
        _ => vec![scalar(report, key, node, param, kind)?],
    };
    if let Some(repeated) = first_repeat(&values) {
        report.value(
            key,
            node,
            format!("gives {} more than once: the values of an axis must be distinct", repeated.show()),
        );
        return None;
    }
    Some(Axis::Values(values))
}

/// The spaced forms: evenly spaced values, their powers of ten, or one minus those.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Spacing {
    Lin,
    Log,
    OneMinusLog,
}

impl Spacing {
    /// How the table is written.
    fn shape(self) -> &'static str {
        match self {
            Spacing::Lin => "linspace = [from, to, n]",
            Spacing::Log => "logspace = [from_exp, to_exp, n]",
            Spacing::OneMinusLog => "one_minus_logspace = [from_exp, to_exp, n]",
        }
    }
}

const FORMS: &str = "an axis table is { linspace = [from, to, n] } or { logspace = [from_exp, to_exp, n] } \
                     or { one_minus_logspace = [from_exp, to_exp, n] }, or, with samples = N, one of \
                     { uniform = [low, high] }, { loguniform = [low, high] }, { one_minus_loguniform = [low_exp, high_exp] }, \
                     { int_uniform = [low, high] }, { int_loguniform = [low, high] }, { choice = [v1, v2, ..] }";

/// An axis table: a spaced form's values, or a sampled form's distribution.
fn table(report: &mut Report, key: &str, node: &Node, entries: &[Entry], param: &Param) -> Option<Axis> {
    let [entry] = entries else {
        let what = match entries {
            [] => "is an empty table",
            _ => "has more than one key",
        };
        report.value(key, node, format!("{what}: {FORMS}"));
        return None;
    };
    let args_key = format!("{key}.{}", entry.key);
    let spacing = match entry.key.as_str() {
        "linspace" => Spacing::Lin,
        "logspace" => Spacing::Log,
        "one_minus_logspace" => Spacing::OneMinusLog,
        form if sample::FORMS.contains(&form) => {
            return sample::read(report, &args_key, entry, param).map(Axis::Sampled);
        }
        other => {
            let known = ["linspace", "logspace", "one_minus_logspace"].into_iter().chain(sample::FORMS);
            let hint = closest(other, known).map(|k| format!(" (did you mean {k}?)")).unwrap_or_default();
            let message = format!("is not an axis form{hint}: {FORMS}");
            report.entry(&args_key, entry, message);
            return None;
        }
    };
    spaced(report, key, node, entry, spacing, param).map(Axis::Values)
}

/// `{ linspace = [from, to, n] }`, `{ logspace = [from_exp, to_exp, n] }` or
/// `{ one_minus_logspace = [from_exp, to_exp, n] }`.
fn spaced(
    report: &mut Report,
    key: &str,
    node: &Node,
    entry: &Entry,
    spacing: Spacing,
    param: &Param,
) -> Option<Vec<Val>> {
    if !matches!(param.ty, Ty::Real(_) | Ty::Count { .. }) {
        let message = format!("is not allowed: {} is not numeric; it takes {}", param.name, accepted(param));
        report.value(key, node, message);
        return None;
    }
    let args_key = format!("{key}.{}", entry.key);
    if let (Ty::Count { .. }, Spacing::OneMinusLog) = (param.ty, spacing) {
        let message = format!(
            "is not allowed: {} takes whole numbers; one_minus_logspace gives numbers just below 1",
            param.name
        );
        report.entry(&args_key, entry, message);
        return None;
    }
    let (from, to, n) = spaced_args(report, &args_key, entry, spacing)?;
    let raw = spaced_values(from, to, n, spacing);
    let whole = matches!(param.ty, Ty::Count { .. }) && raw.iter().any(|x| x.is_finite() && x.fract() != 0.0);
    let values: Vec<f64> = if whole { rounded(&raw) } else { raw };
    let generated: Result<Vec<Val>, (f64, String)> =
        values.iter().map(|&x| check_generated(x, param).map_err(|why| (x, why))).collect();
    match generated {
        Ok(values) => {
            if whole {
                let shown: Vec<String> = values.iter().map(|v| v.show()).collect();
                let dropped = if shown.len() < n as usize {
                    format!(" ({} repeats dropped)", n as usize - shown.len())
                } else {
                    String::new()
                };
                let message =
                    format!("{key} = {}: rounded to whole numbers: {}{dropped}", report.shown(node), shown.join(", "));
                report.note(message);
            }
            Some(values)
        }
        Err((x, why)) => {
            let message = format!("gives {} = {}, which {why}", param.name, fmt_short(x));
            report.value(key, node, message);
            None
        }
    }
}

/// Values rounded to whole numbers, repeats after the first dropped.
fn rounded(values: &[f64]) -> Vec<f64> {
    let mut seen = std::collections::HashSet::new();
    values.iter().map(|x| x.round()).filter(|x| seen.insert(x.to_bits())).collect()
}

/// The three arguments of an axis table, checked: two finite numbers and a whole `n >= 1`.
fn spaced_args(report: &mut Report, key: &str, entry: &Entry, spacing: Spacing) -> Option<(f64, f64, u64)> {
    let shape = spacing.shape();
    let args = match &entry.node.value {
        Leaf::Array(args) if args.len() == 3 => args,
        Leaf::Array(args) => {
            let message = format!("has {} values, not 3: write {{ {shape} }}", args.len());
            report.entry(key, entry, message);
            return None;
        }
        leaf => {
            let message = format!("is {}, not a list: write {{ {shape} }}", leaf.type_name());
            report.entry(key, entry, message);
            return None;
        }
    };
    let from = args[0].value.as_number().filter(|x| x.is_finite());
    let to = args[1].value.as_number().filter(|x| x.is_finite());
    let (Some(from), Some(to)) = (from, to) else {
        let message = format!("must start with two finite numbers: write {{ {shape} }}");
        report.entry(key, entry, message);
        return None;
    };
    let n = match args[2].value {
        Leaf::Int(n) if n >= 1 => n as u64,
        _ => {
            let message = format!("has a bad n: n, the number of values, must be a whole number >= 1 ({shape})");
            report.entry(key, entry, message);
            return None;
        }
    };
    if n > MAX_JOBS {
        let message = format!("asks for {n} values: an axis has at most {MAX_JOBS}");
        report.entry(key, entry, message);
        return None;
    }
    if !report.claim_values(n) {
        let message = format!("asks for {n} values, more than the spec's axes may hold in total ({})", 2 * MAX_JOBS);
        report.entry(key, entry, message);
        return None;
    }
    Some((from, to, n))
}

/// The values of a linspace, or of a logspace (from its exponents).
fn spaced_values(from: f64, to: f64, n: u64, spacing: Spacing) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let t = if i == 0 {
                from
            } else if i == n - 1 {
                to
            } else {
                round_significant(from + (to - from) * i as f64 / (n - 1) as f64)
            };
            match spacing {
                Spacing::Lin => t,
                Spacing::Log => round_significant(10f64.powf(t)),
                Spacing::OneMinusLog => sample::one_minus(t),
            }
        })
        .collect()
}

/// `x` rounded to 12 significant decimal digits.
fn round_significant(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    format!("{x:.11e}").parse().unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linspace_values() {
        assert_eq!(spaced_values(0.1, 0.5, 5, Spacing::Lin), [0.1, 0.2, 0.3, 0.4, 0.5]);
        assert_eq!(spaced_values(0.5, 0.5, 1, Spacing::Lin), [0.5]);
        assert_eq!(spaced_values(1.0, 0.0, 3, Spacing::Lin), [1.0, 0.5, 0.0]);
        assert_eq!(spaced_values(1000.0, 5000.0, 5, Spacing::Lin), [1000.0, 2000.0, 3000.0, 4000.0, 5000.0]);
    }

    #[test]
    fn logspace_values() {
        assert_eq!(spaced_values(-3.0, 0.0, 4, Spacing::Log), [0.001, 0.01, 0.1, 1.0]);
        assert_eq!(spaced_values(2.0, 2.0, 1, Spacing::Log), [100.0]);
        assert_eq!(spaced_values(0.0, 1.0, 3, Spacing::Log), [1.0, 3.16227766017, 10.0]);
    }

    #[test]
    fn repeats_are_found() {
        assert_eq!(first_repeat(&[Val::Real(0.1), Val::Real(0.2), Val::Real(0.1)]), Some(Val::Real(0.1)));
        assert_eq!(first_repeat(&[Val::Real(0.0), Val::Real(-0.0)]), Some(Val::Real(-0.0)));
        assert_eq!(first_repeat(&[Val::Count(1), Val::Count(2)]), None);
    }
}
