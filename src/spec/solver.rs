//! One `[[solver]]` table: its `kind` (a list of kinds is first expanded into one table per
//! kind by [`expand_kind_lists`]), optional `label`, optional `replicates` (overriding
//! the top-level value for this solver), the axes of its parameters, and `samples = N`
//! with an optional `sampler` when some axes are sampled; with the checks that involve two
//! parameters of one solver (self-play without a seat, `alpha_min <= alpha`,
//! `epsilon_min <= epsilon`; a sampled axis is checked at the ends of its range).

use std::ops::Range;

use super::MAX_JOBS;
use super::axis::{self, Axis};
use super::error::whole;
use super::error::{Report, closest, quoted_list};
use super::grid::{Grid, Sampled};
use super::policy_file;
use super::sample::Sampler;
use super::tree::{Entry, Leaf, Node};
use crate::game::Game;
use crate::kinds::param::fmt_short;
use crate::kinds::{Kind, Param, SELF_PLAY, Val, any_param, parameter_names, takers};
use crate::mdp::{Opponent, Seat};
use crate::stats::sobol::MAX_DIMENSIONS;

/// A solver as read, before the checks across solvers.
pub(crate) struct Draft<'t> {
    /// 1-based position among the `[[solver]]` tables.
    pub number: usize,
    /// The table's span (its header).
    pub span: Option<Range<usize>>,
    /// The kind, when it was given and known.
    pub kind: Option<Kind>,
    /// The explicit label and its entry.
    pub label: Option<(String, &'t Entry)>,
    /// The grid, when every axis was valid.
    pub grid: Option<Grid>,
    /// The entry of `episodes`, when given.
    pub episodes: Option<&'t Entry>,
    /// The fewest episodes of any grid point, for a learner whose episodes are valid.
    pub fewest_episodes: Option<u64>,
    /// Its own `replicates`, when given and valid.
    pub replicates: Option<u32>,
}

/// The solver's `samples` and `sampler`, as given.
#[derive(Default)]
pub(crate) struct Sampling<'t> {
    samples: Option<(Option<u64>, &'t Entry)>,
    sampler: Option<(Option<Sampler>, &'t Entry)>,
}

/// The keys a solver takes besides its parameters (listed after them in messages).
pub(crate) const OWN_KEYS: [&str; 3] = ["replicates", "samples", "sampler"];

/// Expands every `[[solver]]` whose `kind` is a list of names into one table per kind, in
/// the list's order, each with the shared keys (as if the blocks were written out; their
/// job ids are those of the written-out blocks). Returns the tables and, for each, the
/// 1-based number of the table it came from (messages name that one). A list that is empty,
/// holds something else than names, repeats a kind, or comes with a `label` (each kind is
/// labelled by its name) is a problem, and its table is left as written.
pub(crate) fn expand_kind_lists(report: &mut Report, root: &mut [Entry]) -> Vec<usize> {
    let Some(Leaf::Array(tables)) = root.iter_mut().find(|e| e.key == "solver").map(|e| &mut e.node.value) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(tables.len());
    let mut numbers = Vec::with_capacity(tables.len());
    for (i, table) in std::mem::take(tables).into_iter().enumerate() {
        let key = format!("solver[{}].kind", i + 1);
        let names = match &table.value {
            Leaf::Table(entries) => entries.iter().find(|e| e.key == "kind").and_then(|kind| match &kind.node.value {
                Leaf::Array(items) => Some((kind, items)),
                _ => None,
            }),
            _ => None,
        };
        let Some((kind, items)) = names else {
            out.push(table);
            numbers.push(i + 1);
            continue;
        };
        let mut kinds: Vec<&str> = Vec::new();
        let mut problem = None;
        for item in items {
            match &item.value {
                Leaf::Str(name) if kinds.contains(&name.as_str()) => {
                    problem.get_or_insert(format!("lists \"{name}\" twice: each kind once"));
                }
                Leaf::Str(name) => kinds.push(name),
                other => {
                    problem.get_or_insert(format!(
                        "holds {}: a list of kinds holds names, e.g. kind = [\"q-learning\", \"sarsa\"]",
                        other.type_name()
                    ));
                }
            }
        }
        let Leaf::Table(entries) = &table.value else { unreachable!("checked above") };
        if kinds.is_empty() && problem.is_none() {
            problem = Some(format!("is an empty list: name one kind or several, from {}", kind_names()));
        }
        if let Some(label) = entries.iter().find(|e| e.key == "label").filter(|_| problem.is_none()) {
            let message = "is not allowed with a list of kinds: each kind is labelled by its name; write a block per \
                           kind to label them"
                .to_string();
            report.entry(&format!("solver[{}].label", i + 1), label, message);
        }
        if let Some(message) = problem {
            report.entry(&key, kind, message);
            out.push(table);
            numbers.push(i + 1);
            continue;
        }
        let expanded: Vec<Node> = kinds
            .iter()
            .map(|name| {
                // A label was refused above: left out, so that it is not also a duplicate.
                let mut entries: Vec<Entry> = entries.iter().filter(|e| e.key != "label").cloned().collect();
                let kind = entries.iter_mut().find(|e| e.key == "kind").expect("found above");
                kind.node.value = Leaf::Str((*name).to_string());
                Node { value: Leaf::Table(entries), span: table.span.clone() }
            })
            .collect();
        numbers.extend(std::iter::repeat_n(i + 1, expanded.len()));
        out.extend(expanded);
    }
    *tables = out;
    numbers
}

/// Begins reading solver number `number` from `node`: its `kind`, recording its problems.
/// Returns the draft and the table's entries (none when `node` is not a table), which the
/// kind's reader goes on with: [`read`] for the built-in kinds, `command_solver::read` for a
/// program.
pub(crate) fn begin<'t>(report: &mut Report, number: usize, node: &'t Node) -> (Draft<'t>, Option<&'t [Entry]>) {
    let key = format!("solver[{number}]");
    let mut draft = Draft {
        number,
        span: node.span.clone(),
        kind: None,
        label: None,
        grid: None,
        episodes: None,
        fewest_episodes: None,
        replicates: None,
    };
    let Leaf::Table(entries) = &node.value else {
        let message = format!(
            "has the wrong type ({}): each solver is a table; write [[solver]] and its keys",
            node.value.type_name()
        );
        report.value(&key, node, message);
        return (draft, None);
    };
    let kind_entry = entries.iter().find(|e| e.key == "kind");
    draft.kind = read_kind(report, &key, node, kind_entry);
    (draft, Some(entries))
}

/// Reads the rest of a built-in kind's table (see [`begin`]).
pub(crate) fn read<'t>(report: &mut Report, draft: &mut Draft<'t>, node: &'t Node, entries: &'t [Entry]) {
    let key = format!("solver[{}]", draft.number);
    let mut given: Vec<Given> = Vec::new();
    let mut sampling = Sampling::default();
    for entry in entries {
        let entry_key = format!("{key}.{}", entry.key);
        match (entry.key.as_str(), any_param(&entry.key)) {
            ("kind", _) => {}
            ("label", _) => draft.label = read_label(report, &entry_key, entry).map(|l| (l, entry)),
            ("replicates" | "samples" | "sampler", _) => {
                read_own(report, &entry_key, entry, &mut draft.replicates, &mut sampling);
            }
            (_, Some(param)) => {
                // Without a known kind there is nothing to read the value against.
                if let Some(kind) = draft.kind {
                    match kind.param(param.name) {
                        Some(param) => {
                            let axis = axis::read(report, &entry_key, &entry.node, param, Some(kind));
                            given.push((param, entry, axis));
                        }
                        None => not_taken(report, &entry_key, entry, param, kind),
                    }
                }
            }
            (other, None) => unknown_key(report, &entry_key, entry, other, draft.kind),
        }
    }
    draft.episodes = given.iter().find(|g| g.0.name == "episodes").map(|g| g.1);
    draft.fewest_episodes = draft.kind.and_then(|kind| fewest_episodes(kind, &given));
    if let Some(kind) = draft.kind {
        draft.grid = grid(report, &key, kind, &given).and_then(|grid| sampled(report, (&key, node), grid, &sampling));
    }
}

/// One of the solver's own keys besides `kind` and `label`: `replicates`, `samples` or
/// `sampler`.
pub(crate) fn read_own<'t>(
    report: &mut Report,
    key: &str,
    entry: &'t Entry,
    replicates: &mut Option<u32>,
    sampling: &mut Sampling<'t>,
) {
    match entry.key.as_str() {
        "replicates" => {
            let rule = "replicates must be a whole number from 1 to 4294967295 (runs per grid point of this solver)";
            *replicates = whole(report, key, entry, 1, u64::from(u32::MAX), rule).map(|r| r as u32);
        }
        "samples" => {
            let rule =
                format!("samples must be a whole number from 1 to {MAX_JOBS} (points drawn from the sampled axes)");
            sampling.samples = Some((whole(report, key, entry, 1, MAX_JOBS, &rule), entry));
        }
        _ => sampling.sampler = Some((read_sampler(report, key, entry), entry)),
    }
}

fn read_sampler(report: &mut Report, key: &str, entry: &Entry) -> Option<Sampler> {
    let names = Sampler::NAMES;
    match &entry.node.value {
        Leaf::Str(name) if name == "random" => Some(Sampler::Random),
        Leaf::Str(name) if name == "sobol" => Some(Sampler::Sobol),
        Leaf::Str(name) => {
            let mut message = format!("is not a known sampler: allowed are {}", quoted_list(names));
            if let Some(near) = closest(name, names) {
                message.push_str(&format!(" (did you mean \"{near}\"?)"));
            }
            report.entry(key, entry, message);
            None
        }
        other => {
            let message =
                format!("has the wrong type ({}): sampler takes one of {}", other.type_name(), quoted_list(names));
            report.entry(key, entry, message);
            None
        }
    }
}

/// The grid with its sampling: `samples` is required exactly when an axis is sampled.
pub(crate) fn sampled(
    report: &mut Report,
    (key, node): (&str, &Node),
    mut grid: Grid,
    sampling: &Sampling,
) -> Option<Grid> {
    let sampled_names: Vec<&str> =
        grid.sampled.iter().flat_map(|s| &s.axes).map(|(i, _)| grid.params()[*i].name).collect();
    if sampled_names.is_empty() {
        let extra = sampling.samples.map(|(_, e)| ("samples", e)).or(sampling.sampler.map(|(_, e)| ("sampler", e)));
        if let Some((name, entry)) = extra {
            let message = "is given but no axis of this solver is sampled: sample one with a form such as \
                           { uniform = [low, high] } or { choice = [..] }, or remove it";
            report.entry(&format!("{key}.{name}"), entry, message.into());
            return None;
        }
        return Some(grid);
    }
    if report.proposed {
        // `[search] method = "tpe"` proposes the points: its `trials` is their number.
        if let Some((name, entry)) =
            sampling.samples.map(|(_, e)| ("samples", e)).or(sampling.sampler.map(|(_, e)| ("sampler", e)))
        {
            let message = format!(
                "is given, but [search] proposes this solver's points (method = \"tpe\"): remove {name}; \
                 [search] trials is how many points it tries"
            );
            report.entry(&format!("{key}.{name}"), entry, message);
            return None;
        }
        return Some(grid);
    }
    let Some((samples, _)) = sampling.samples else {
        let message = format!(
            "has sampled axes ({}) but no samples: add samples = N, the number of points to draw from them",
            sampled_names.join(", ")
        );
        report.at(node.span.as_ref(), Some(key), None, message);
        return None;
    };
    let sampler = match sampling.sampler {
        Some((sampler, _)) => sampler?,
        None => Sampler::Random,
    };
    let samples = samples?;
    if sampler == Sampler::Sobol && sampled_names.len() > MAX_DIMENSIONS {
        let message = format!("samples {} axes by sobol, which covers at most {MAX_DIMENSIONS}", sampled_names.len());
        report.at(node.span.as_ref(), Some(key), None, message);
        return None;
    }
    let s = grid.sampled.as_mut().expect("sampled axes were found");
    (s.samples, s.sampler) = (samples, sampler);
    Some(grid)
}

/// A parameter given in a solver table: its entry and its axis, if valid.
type Given<'t> = (&'static Param, &'t Entry, Option<Axis>);

/// The fewest episodes of any grid point of a learner, when its episodes are valid.
fn fewest_episodes(kind: Kind, given: &[Given]) -> Option<u64> {
    match given.iter().find(|g| g.0.name == "episodes") {
        Some((_, _, Some(axis))) => axis.span().iter().filter_map(|v| v.as_count()).min(),
        Some((_, _, None)) => None,
        None => kind.param("episodes").and_then(|p| p.default.as_count()),
    }
}

/// The names of the kinds, quoted.
pub(crate) fn kind_names() -> String {
    quoted_list(Kind::ALL.iter().map(|k| k.name()))
}

fn read_kind(report: &mut Report, key: &str, table: &Node, entry: Option<&Entry>) -> Option<Kind> {
    let key = format!("{key}.kind");
    let Some(entry) = entry else {
        let message = format!("is missing: every [[solver]] needs kind = one of {}", kind_names());
        report.at(table.span.as_ref(), Some(&key), None, message);
        return None;
    };
    let Leaf::Str(name) = &entry.node.value else {
        if let Leaf::Array(_) = entry.node.value {
            // A list of kinds that could not be expanded: said already.
            return None;
        }
        let message = format!(
            "has the wrong type ({}): kind takes a name or a list of names, from {}",
            entry.node.value.type_name(),
            kind_names()
        );
        report.entry(&key, entry, message);
        return None;
    };
    let kind = Kind::from_name(name);
    if kind.is_none() {
        let mut message = format!("is not a known kind: allowed are {}", kind_names());
        if let Some(near) = closest(name, Kind::ALL.iter().map(|k| k.name())) {
            message.push_str(&format!(" (did you mean \"{near}\"?)"));
        }
        report.entry(&key, entry, message);
    }
    kind
}

pub(crate) fn read_label(report: &mut Report, key: &str, entry: &Entry) -> Option<String> {
    match &entry.node.value {
        Leaf::Str(label) if !label.trim().is_empty() && !label.chars().any(char::is_control) => Some(label.clone()),
        Leaf::Str(_) => {
            report.entry(
                key,
                entry,
                "is not a usable label: a label is a non-empty name without control characters".into(),
            );
            None
        }
        other => {
            let message =
                format!("has the wrong type ({}): label takes a string, e.g. label = \"fast\"", other.type_name());
            report.entry(key, entry, message);
            None
        }
    }
}

fn not_taken(report: &mut Report, key: &str, entry: &Entry, param: &Param, kind: Kind) {
    let takers: Vec<&str> = takers(param.name).into_iter().map(Kind::name).collect();
    let message = format!("is not a parameter of {}: {} is taken by {}", kind.name(), param.name, takers.join(", "));
    report.entry(key, entry, message);
}

fn unknown_key(report: &mut Report, key: &str, entry: &Entry, name: &str, kind: Option<Kind>) {
    let mut known: Vec<&str> = vec!["kind", "label"];
    match kind {
        Some(kind) => known.extend(kind.params().iter().map(|p| p.name)),
        None => known.extend(parameter_names()),
    }
    known.extend(OWN_KEYS);
    let mut message = "is not a known key".to_string();
    if let Some(near) = closest(name, known.iter().copied()) {
        message.push_str(&format!(" (did you mean {near}?)"));
    }
    let whose = kind.map_or("a solver".to_string(), |k| k.name().to_string());
    message.push_str(&format!(": {whose} takes {}", known.join(", ")));
    report.entry(key, entry, message);
}

/// The solver's grid: the given axes and the defaults, once the cross-parameter checks
/// pass.
fn grid(report: &mut Report, key: &str, kind: Kind, given: &[Given]) -> Option<Grid> {
    // Per axis: its values (the default standing in for a bad one), its entry, and whether
    // it is valid. Checks between two axes run only when both are valid.
    // A sampled axis stands in the grid as its default (each drawn point replaces it) and
    // in the checks as the ends of its range (`spans`).
    let mut axes = Vec::new();
    let mut spans = Vec::new();
    let mut sampled = Vec::new();
    let mut entries = Vec::new();
    let mut valid = Vec::new();
    for (i, param) in kind.params().iter().enumerate() {
        let found = given.iter().find(|g| g.0.name == param.name);
        let axis = found.and_then(|g| g.2.clone());
        valid.push(found.is_none() || axis.is_some());
        spans.push(axis.as_ref().map_or_else(|| vec![param.default], Axis::span));
        match axis {
            Some(Axis::Values(values)) => axes.push(values),
            Some(Axis::Sampled(dist)) => {
                axes.push(vec![param.default]);
                sampled.push((i, dist));
            }
            None => axes.push(vec![param.default]),
        }
        entries.push(found.map(|g| g.1));
    }
    let mut ok = valid.iter().all(|&v| v);
    let find = |name: &str| kind.params().iter().position(|p| p.name == name).filter(|&i| valid[i]);
    if let (Some(seat), Some(opponent)) = (find("seat"), find("opponent")) {
        let self_play = spans[opponent].contains(&SELF_PLAY);
        if let (true, Some(entry)) = (self_play, entries[seat]) {
            let message = "cannot be given when opponent includes \"self\": self-play plays both seats; \
                           remove seat, or put self-play in its own [[solver]]";
            report.entry(&format!("{key}.seat"), entry, message.into());
            ok = false;
        }
    }
    if let Some((o, Some(entry))) = find("opponent").map(|o| (o, entries[o])) {
        ok &= check_policies(
            report,
            key,
            entry,
            &spans[o],
            (find("seat").map(|i| &spans[i][..]), find("game").map(|i| &spans[i][..])),
        );
    }
    let floors = kind.params().iter().filter_map(|p| p.floor_of.map(|main| (p.name, main)));
    for (floor, main) in floors {
        if let (Some(f), Some(m)) = (find(floor), find(main)) {
            let entries = (entries[f], entries[m]);
            ok &= check_floor(report, key, (floor, &spans[f]), (main, &spans[m]), entries);
        }
    }
    for (rate, decay, floor) in SCHEDULED {
        let at = format!("{floor}_at");
        if let (Some(a), Some(d), Some(f)) = (find(&at), find(decay), find(floor)) {
            ok &= check_min_at(report, key, (&at, entries[a]), (decay, entries[d]), (rate, floor, &spans[f]));
        }
    }
    let sampled = (!sampled.is_empty()).then(|| Sampled {
        axes: sampled,
        samples: 0,
        sampler: Sampler::Random,
        points: Vec::new(),
    });
    ok.then_some(Grid { kind, axes, sampled, program: None })
}

/// Checks every saved policy among the `opponent` values against the solver's seats and
/// games (see [`policy_file::check`]); false (and a problem) when one fails.
fn check_policies(
    report: &mut Report,
    key: &str,
    entry: &Entry,
    opponents: &[Val],
    (seats, games): (Option<&[Val]>, Option<&[Val]>),
) -> bool {
    let seats: Vec<Seat> =
        seats.unwrap_or(&[]).iter().filter_map(|v| if let Val::Name(s) = v { s.parse().ok() } else { None }).collect();
    let games: Vec<Game> =
        games.unwrap_or(&[]).iter().filter_map(|v| if let Val::Game(g) = v { Some(*g) } else { None }).collect();
    let mut ok = true;
    for value in opponents {
        let Val::Name(name) = value else { continue };
        let Some(opponent) = Opponent::from_name(name) else { continue };
        if let Err(why) = policy_file::check(opponent, &seats, &games) {
            report.entry(&format!("{key}.opponent"), entry, format!("is not allowed: {why}"));
            ok = false;
        }
    }
    ok
}

/// The rates with a schedule: (rate, decay, floor); `<floor>_at` is the fraction of the
/// episodes at which the rate reaches its floor.
const SCHEDULED: [(&str, &str, &str); 3] = [
    ("epsilon", "epsilon_decay", "epsilon_min"),
    ("alpha", "alpha_decay", "alpha_min"),
    ("temperature", "temperature_decay", "temperature_min"),
];

/// Checks a `_min_at` that is given: not with its `_decay`, and with a floor above 0 at
/// every grid point (an exponential never reaches 0); false (and a problem) when it fails.
fn check_min_at(
    report: &mut Report,
    key: &str,
    (at, at_entry): (&str, Option<&Entry>),
    (decay, decay_entry): (&str, Option<&Entry>),
    (rate, floor, floors): (&str, &str, &[Val]),
) -> bool {
    let Some(at_entry) = at_entry else { return true };
    if decay_entry.is_some() {
        let message = format!(
            "cannot be given with {decay}: both set how {rate} decays ({at} from the fraction of the episodes at which it reaches {floor}, {decay} per episode); keep one of them"
        );
        report.entry(&format!("{key}.{at}"), at_entry, message);
        return false;
    }
    if floors.iter().any(|v| matches!(*v, Val::Real(x) if x <= 0.0)) {
        let message = format!(
            "needs {floor} above 0 at every grid point, and {floor} is 0 at some: an exponential decay never reaches 0; set a small positive floor, e.g. {floor} = 0.001"
        );
        report.entry(&format!("{key}.{at}"), at_entry, message);
        return false;
    }
    true
}

/// Checks `floor <= main` at every grid point; false (and a problem) when it fails.
fn check_floor(
    report: &mut Report,
    key: &str,
    (floor, floors): (&str, &[Val]),
    (main, mains): (&str, &[Val]),
    (floor_entry, main_entry): (Option<&Entry>, Option<&Entry>),
) -> bool {
    let number = |v: &Val| match *v {
        Val::Real(x) => x,
        _ => f64::NAN,
    };
    let highest_floor = floors.iter().map(number).fold(f64::NEG_INFINITY, f64::max);
    let lowest_main = mains.iter().map(number).fold(f64::INFINITY, f64::min);
    if highest_floor <= lowest_main {
        return true;
    }
    let (hi, lo) = (fmt_short(highest_floor), fmt_short(lowest_main));
    match (floor_entry, main_entry) {
        (Some(entry), _) => {
            let message = format!(
                "is above {main} at some grid points ({floor} = {hi} with {main} = {lo}): \
                 {floor} must be at most {main} at every grid point"
            );
            report.entry(&format!("{key}.{floor}"), entry, message);
        }
        (None, Some(entry)) => {
            let message = format!(
                "is below the default {floor} = {hi} at some grid points: {floor} must be at most {main}; \
                 raise {main} or set a lower {floor}"
            );
            report.entry(&format!("{key}.{main}"), entry, message);
        }
        (None, None) => unreachable!("the defaults satisfy {floor} <= {main}"),
    }
    false
}
