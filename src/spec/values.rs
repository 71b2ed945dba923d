//! What a parameter's values may be: the rule in words (for messages) and the checks that a
//! generated value (spaced or sampled) is one of them and that an axis repeats none.
//! Shared by the axis reader (`axis`) and the sampled forms (`sample`).

use super::error::{Report, closest, quoted_list};
use super::policy_file;
use super::tree::{Leaf, Node};
use crate::kinds::{Kind, Param, Ty, Val, takers};

/// What a parameter of this type accepts, for messages.
pub(crate) fn accepted(param: &Param) -> String {
    const SPACED: &str = "{ linspace = [from, to, n] } or { logspace = [from_exp, to_exp, n] }";
    const SAMPLED: &str = "or, with samples = N, a sampled form";
    match param.ty {
        Ty::Real(bounds) => format!(
            "a number {}, a non-empty list of them, {SPACED}, {{ one_minus_logspace = [from_exp, to_exp, n] }} \
             {SAMPLED} ({{ uniform = [low, high] }}, {{ loguniform = [low, high] }}, \
             {{ one_minus_loguniform = [low_exp, high_exp] }})",
            bounds.describe()
        ),
        Ty::Count { .. } => format!(
            "a whole number >= 1, a non-empty list of them, {SPACED} {SAMPLED} \
             ({{ int_uniform = [low, high] }}, {{ int_loguniform = [low, high] }})"
        ),
        Ty::Flag => format!("true, false or a list of them {SAMPLED} ({{ choice = [false, true] }})"),
        Ty::Choice(names) if takes_policy(param) => format!(
            "one of {} or {}, or a non-empty list of them",
            quoted_list(names.iter().copied()),
            policy_file::FORM
        ),
        Ty::Choice(names) => format!(
            "one of {} or a non-empty list of them {SAMPLED} ({{ choice = [..] }})",
            quoted_list(names.iter().copied())
        ),
        Ty::Game { max_cells, searched } => format!(
            "a game ({}{}) or a non-empty list of them {SAMPLED} ({{ choice = [..] }})",
            crate::game::rules::allowed(max_cells),
            if searched {
                format!("; or, played by search, {}", crate::kinds::param::SEARCHED_BOARDS)
            } else {
                String::new()
            }
        ),
    }
}

/// Whether the parameter takes a saved policy, `{ policy = "file.csv" }` (`opponent`).
pub(crate) fn takes_policy(param: &Param) -> bool {
    param.name == "opponent"
}

/// The rule a value of `param` breaks when out of range.
pub(crate) fn range_rule(param: &Param) -> String {
    match param.ty {
        Ty::Real(bounds) => format!("{} must be {} ({})", param.name, bounds.describe(), param.meaning),
        Ty::Count { max } if max >= i64::MAX as u64 => {
            format!("{} must be a whole number >= 1 ({})", param.name, param.meaning)
        }
        Ty::Count { max } => format!("{} must be a whole number from 1 to {max} ({})", param.name, param.meaning),
        Ty::Flag | Ty::Choice(_) | Ty::Game { .. } => format!("{} takes {}", param.name, accepted(param)),
    }
}

/// A generated value as a value of `param`, or why it is not one.
pub(crate) fn check_generated(x: f64, param: &Param) -> Result<Val, String> {
    match param.ty {
        Ty::Real(bounds) if bounds.contains(x) => Ok(Val::Real(x)),
        Ty::Count { .. } if x.is_finite() && x.fract() != 0.0 => Err(format!(
            "is not a whole number: {} takes whole numbers; choose from, to and n so that every value is whole, or give a list",
            param.name
        )),
        Ty::Count { max } if x >= 1.0 && x <= max as f64 => Ok(Val::Count(x as u64)),
        _ => Err(format!("is out of range: {}", range_rule(param))),
    }
}

/// The first value that occurs twice, if any.
pub(crate) fn first_repeat(values: &[Val]) -> Option<Val> {
    if values.len() < 2 {
        return None;
    }
    let mut keyed: Vec<(u64, usize)> = values.iter().enumerate().map(|(i, v)| (v.identity(), i)).collect();
    keyed.sort_unstable();
    keyed.windows(2).filter(|w| w[0].0 == w[1].0).map(|w| values[w[0].1.max(w[1].1)]).next()
}

/// One scalar value (a list element or the whole axis).
pub(crate) fn scalar(report: &mut Report, key: &str, node: &Node, param: &Param, kind: Option<Kind>) -> Option<Val> {
    match (param.ty, &node.value) {
        (Ty::Real(bounds), leaf) if leaf.as_number().is_some() => {
            let x = leaf.as_number()?;
            if bounds.contains(x) {
                return Some(Val::Real(x));
            }
            report.value(key, node, format!("is out of range: {}", range_rule(param)));
            None
        }
        (Ty::Count { max }, &Leaf::Int(i)) => {
            if i >= 1 && i as u64 <= max {
                return Some(Val::Count(i as u64));
            }
            report.value(key, node, format!("is out of range: {}", range_rule(param)));
            None
        }
        (Ty::Count { max }, &Leaf::Float(x)) => {
            if x.fract() == 0.0 && x >= 1.0 && x <= max as f64 {
                return Some(Val::Count(x as u64));
            }
            let what = if x.is_finite() && x.fract() != 0.0 { "is not a whole number" } else { "is out of range" };
            report.value(key, node, format!("{what}: {}", range_rule(param)));
            None
        }
        (Ty::Flag, &Leaf::Bool(b)) => Some(Val::Flag(b)),
        (Ty::Game { .. }, Leaf::Str(s)) => match param.game(s) {
            Ok(val) => Some(val),
            Err(why) => {
                report.value(key, node, format!("is not allowed: {why}"));
                None
            }
        },
        (Ty::Choice(_), Leaf::Table(entries)) if takes_policy(param) => {
            let file = report.spec_file();
            policy_file::read(report, key, node, entries, file).map(|o| Val::Name(o.key()))
        }
        (Ty::Choice(names), Leaf::Str(s)) => {
            let val = param.choose(s);
            if val.is_none() {
                unknown_name(report, key, node, s, param, names, kind);
            }
            val
        }
        _ => {
            wrong_type(report, key, node, param);
            None
        }
    }
}

fn unknown_name(
    report: &mut Report,
    key: &str,
    node: &Node,
    name: &str,
    param: &Param,
    names: &[&'static str],
    kind: Option<Kind>,
) {
    // A name that another kind's declaration of this parameter takes (`opponent = "self"`).
    let elsewhere: Vec<&str> = takers(param.name)
        .into_iter()
        .filter(|k| k.param(param.name).and_then(|p| p.choose(name)).is_some())
        .map(Kind::name)
        .collect();
    let mut message = if name == "self" && !elsewhere.is_empty() {
        let kind = kind.map_or("this kind", Kind::name);
        let only = elsewhere.join(", ");
        format!("is not allowed: self-play (\"self\") is only for {only}; {kind} takes an opponent from")
    } else {
        format!("is not a known {}: allowed are", param.name)
    };
    message.push(' ');
    message.push_str(&quoted_list(names.iter().copied()));
    if let Some(near) = closest(name, names.iter().copied()) {
        message.push_str(&format!(" (did you mean \"{near}\"?)"));
    }
    report.value(key, node, message);
}

fn wrong_type(report: &mut Report, key: &str, node: &Node, param: &Param) {
    let message = format!("has the wrong type ({}): {} takes {}", node.value.type_name(), param.name, accepted(param));
    report.value(key, node, message);
}
