//! One `[[solver]]` table of `kind = "command"`: a program of the user's, its board, seat,
//! opponent and episodes, and its own hyperparameters under `[solver.params]`.
//!
//! ```toml
//! [[solver]]
//! kind = "command"
//! label = "my-td"                                   # required: the `solver` column is command:my-td
//! command = ["python3", "agents/td.py", "--lr", "{lr}"]
//! game = "4x4g4"
//! seat = "o"
//! opponent = "random"                               # or minimax, minimax-uniform, self
//! episodes = 20_000
//! timeout = "10m"                                   # per job (default 1h)
//! threads_per_job = 1                               # how many of --threads one program counts as
//! serve_checkpoints = false                         # boards too big to enumerate: the program
//!                                                   # answers positions at its checkpoints too
//! files = ["agents/td.py"]                          # hashed into the manifest (default: the
//!                                                   # command's arguments that are files)
//! [solver.params]
//! lr = { loguniform = [1e-3, 0.5] }
//! hidden = [16, 64]
//! ```
//!
//! A parameter's type is read off its values: strings are names (a choice), whole numbers
//! from 1 up are counts, `true`/`false` flags, any other number a real; every axis form
//! works. Its name must be usable as an environment variable's (`SWEEP_PARAM_<NAME>`) and
//! must not be a column of `results.csv` already. The program must exist and be
//! executable when the spec is read; `{name}` placeholders of the command must name a
//! parameter or one of `seed`, `episodes`, `game`, `seat`, `opponent`, `job_id`.
//!
//! Paths in `command` and `files` are relative to the spec's folder: an argument that
//! names an existing file or folder there is given to the program as an absolute path
//! (each job runs in a fresh working folder of its own).

use std::path::Path;
use std::time::Duration;

use super::axis::{self, Axis};
use super::error::{Report, quoted_list};
use super::grid::{Grid, Sampled};
use super::sample::Sampler;
use super::solver::{Draft, OWN_KEYS, Sampling, read_label, read_own, sampled};
use super::tree::{Entry, Leaf, Node};
use crate::kinds::command::{COMMAND_OPPONENT, find_program, interpreted_script, own_param, placeholders};
use crate::kinds::param::{Bounds, EPISODES, SEARCHED_GAME, SEAT};
use crate::kinds::{Kind, Param, Program, SELF_PLAY, Ty, Val};

/// The keys of a command solver besides its parameters' axes.
const KEYS: [&str; 8] =
    ["kind", "label", "command", "files", "timeout", "threads_per_job", "serve_checkpoints", "params"];

/// The placeholders every command may use besides its parameters.
pub const PLACEHOLDERS: [&str; 6] = ["seed", "episodes", "game", "seat", "opponent", "job_id"];

/// A job's time limit when the spec sets none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3600);

/// What the table gave, before the grid is built.
#[derive(Default)]
struct Given<'t> {
    command: Option<Vec<String>>,
    command_entry: Option<&'t Entry>,
    files: Option<Vec<(String, &'t Node)>>,
    timeout: Option<Duration>,
    threads: Option<u32>,
    serve_checkpoints: Option<&'t Entry>,
    fixed: Vec<(&'static Param, &'t Entry, Option<Axis>)>,
    own: Vec<(&'static Param, &'t Entry, Option<Axis>)>,
    ok: bool,
}

/// Reads the command solver `node` (its `kind` already read) into `draft`.
pub(crate) fn read<'t>(report: &mut Report, draft: &mut Draft<'t>, node: &'t Node, entries: &'t [Entry]) {
    let key = format!("solver[{}]", draft.number);
    let dir = Path::new(report.spec_file()).parent().unwrap_or(Path::new("")).to_path_buf();
    let mut given = Given { ok: true, ..Given::default() };
    let mut sampling = Sampling::default();
    for entry in entries {
        let entry_key = format!("{key}.{}", entry.key);
        match entry.key.as_str() {
            "kind" => {}
            "label" => draft.label = read_label(report, &entry_key, entry).map(|l| (l, entry)),
            "replicates" | "samples" | "sampler" => {
                read_own(report, &entry_key, entry, &mut draft.replicates, &mut sampling);
            }
            "command" => {
                given.command =
                    strings(report, &entry_key, &entry.node).map(|v| v.into_iter().map(|(s, _)| s).collect());
                given.command_entry = Some(entry);
            }
            "files" => given.files = strings(report, &entry_key, &entry.node),
            "timeout" => given.timeout = read_timeout(report, &entry_key, entry),
            "threads_per_job" => given.threads = read_threads(report, &entry_key, entry),
            "serve_checkpoints" => given.serve_checkpoints = Some(entry),
            "params" => read_params(report, &entry_key, entry, &mut given),
            name => match [&SEAT, &COMMAND_OPPONENT, &EPISODES, &SEARCHED_GAME].into_iter().find(|p| p.name == name) {
                Some(param) => {
                    let axis = axis::read(report, &entry_key, &entry.node, param, Some(Kind::Command));
                    given.fixed.push((param, entry, axis));
                }
                None => {
                    unknown_key(report, &entry_key, entry);
                    given.ok = false;
                }
            },
        }
    }
    if draft.label.is_none() {
        let message = "needs a label (label = \"my-agent\"): a command solver's rows name it in the solver column \
                       (command:<label>) and its job ids";
        report.at(node.span.as_ref(), Some(&format!("{key}.label")), None, message.into());
        given.ok = false;
    }
    let Some(command) = given.command.clone() else {
        if given.command_entry.is_none() {
            let message = "is missing: a command solver needs command = [\"program\", \"arg\", ..] (e.g. \
                           [\"python3\", \"agents/td.py\", \"--lr\", \"{lr}\"])";
            report.at(node.span.as_ref(), Some(&format!("{key}.command")), None, message.into());
        }
        return;
    };
    let entry = given.command_entry.expect("a command was read from its entry");
    given.ok &= check_command(report, &format!("{key}.command"), entry, &command, &dir, &given.own);
    let files = match given.files.take() {
        Some(files) => hash_files(report, &format!("{key}.files"), &files, &dir),
        None => Some(default_files(&command, &dir)),
    };
    let serve_checkpoints = read_serve_checkpoints(report, &format!("{key}.serve_checkpoints"), &given);
    given.ok &= serve_checkpoints.is_some();
    set_episodes(draft, &given, serve_checkpoints == Some(true));
    let (Some(files), Some((label, _)), true) = (files, draft.label.clone(), given.ok) else { return };
    let own: Vec<&'static Param> = given.own.iter().map(|g| g.0).collect();
    let program: &'static Program = Box::leak(Box::new(Program {
        solver: crate::kinds::command::intern(&format!("command:{label}")),
        label,
        command,
        dir,
        files,
        timeout: given.timeout.unwrap_or(DEFAULT_TIMEOUT),
        threads_per_job: given.threads.unwrap_or(1),
        serve_checkpoints: serve_checkpoints == Some(true),
        axes: Program::axes_with(own),
    }));
    draft.grid = grid(report, &key, program, &given).and_then(|g| sampled(report, (&key, node), g, &sampling));
}

/// Records a key a command solver does not take, with the nearest one it does.
fn unknown_key(report: &mut Report, entry_key: &str, entry: &Entry) {
    let mut known: Vec<&str> = KEYS.to_vec();
    known.extend(["seat", "opponent", "episodes", "game"]);
    known.extend(OWN_KEYS);
    let name = entry.key.as_str();
    let hint =
        super::error::closest(name, known.iter().copied()).map(|k| format!(" (did you mean {k}?)")).unwrap_or_default();
    let message = format!(
        "is not a known key{hint}: a command solver takes {}; the program's own parameters go under [solver.params]",
        known.join(", ")
    );
    report.entry(entry_key, entry, message);
}

/// The draft's episodes entry and the fewest episodes it runs (what the checkpoints must
/// fit in; none for a program only on boards too big to enumerate that serves no
/// checkpoints).
fn set_episodes<'t>(draft: &mut Draft<'t>, given: &Given<'t>, serve_checkpoints: bool) {
    draft.episodes = given.fixed.iter().find(|g| g.0.name == "episodes").map(|g| g.1);
    draft.fewest_episodes = match given.fixed.iter().find(|g| g.0.name == "episodes") {
        Some((_, _, Some(axis))) => axis.span().iter().filter_map(|v| v.as_count()).min(),
        Some((_, _, None)) => None,
        None => EPISODES.default.as_count(),
    };
    // A program on boards too big to enumerate answers positions and, unless it serves
    // its checkpoints, has no learning curve: the checkpoints do not bound its episodes.
    if searched_games(given) == Some(true) && !serve_checkpoints {
        draft.fewest_episodes = None;
    }
}

/// Whether every board of the solver's `game` axis is too big to enumerate (`None`: the
/// axis was not read).
fn searched_games(given: &Given<'_>) -> Option<bool> {
    let axis = match given.fixed.iter().find(|g| g.0.name == "game") {
        Some((_, _, axis)) => axis.as_ref()?,
        None => return Some(false),
    };
    Some(axis.span().iter().all(|v| matches!(v, crate::kinds::Val::Game(g) if !g.enumerable())))
}

/// `serve_checkpoints`: a flag, and only for boards too big to enumerate (on the others a
/// program writes its checkpoints as files). `None`: an error was reported.
fn read_serve_checkpoints(report: &mut Report, key: &str, given: &Given<'_>) -> Option<bool> {
    let Some(entry) = given.serve_checkpoints else { return Some(false) };
    let Leaf::Bool(on) = entry.node.value else {
        report.entry(key, entry, "has the wrong type: serve_checkpoints is true or false".into());
        return None;
    };
    if on && searched_games(given) == Some(false) {
        let message = "is only for boards too big to enumerate (game = \"6x7g4\", ...), where the program answers \
                       positions: on the others it writes each checkpoint's policy to $SWEEP_CHECKPOINTS/<episode>.csv";
        report.entry(key, entry, message.into());
        return None;
    }
    Some(on)
}

/// The grid over the program's parameters, once the seat and opponent agree.
fn grid(report: &mut Report, key: &str, program: &'static Program, given: &Given) -> Option<Grid> {
    let mut axes = Vec::new();
    let mut sampled = Vec::new();
    let mut ok = true;
    for (i, param) in program.axes.iter().enumerate() {
        let found = given.fixed.iter().chain(&given.own).find(|g| g.0.name == param.name);
        match found.map(|g| &g.2) {
            None => axes.push(vec![param.default]),
            Some(None) => {
                ok = false;
                axes.push(vec![param.default]);
            }
            Some(Some(Axis::Values(values))) => axes.push(values.clone()),
            Some(Some(Axis::Sampled(dist))) => {
                axes.push(vec![param.default]);
                sampled.push((i, dist.clone()));
            }
        }
    }
    if !ok {
        return None;
    }
    let opponents = &axes[1];
    if let Some(policy) = opponents.iter().find(|v| matches!(v, Val::Name(s) if s.starts_with("policy:"))) {
        let entry = given.fixed.iter().find(|g| g.0.name == "opponent").map(|g| g.1).expect("a given opponent");
        let message = format!(
            "is not allowed for a command solver ({}): a program trains against random, minimax, minimax-uniform or \
             self; a saved policy opponent is for the built-in learners",
            policy.show()
        );
        report.entry(&format!("{key}.opponent"), entry, message);
        return None;
    }
    if opponents.contains(&SELF_PLAY)
        && let Some(entry) = given.fixed.iter().find(|g| g.0.name == "seat").map(|g| g.1)
    {
        let message = "cannot be given when opponent includes \"self\": the program plays both seats; remove seat, \
                       or put self-play in its own [[solver]]";
        report.entry(&format!("{key}.seat"), entry, message.into());
        return None;
    }
    let sampled = (!sampled.is_empty()).then(|| Sampled {
        axes: sampled,
        samples: 0,
        sampler: Sampler::Random,
        points: Vec::new(),
    });
    Some(Grid { kind: Kind::Command, axes, sampled, program: Some(program) })
}

/// A list of strings (or one string), each with its node.
fn strings<'t>(report: &mut Report, key: &str, node: &'t Node) -> Option<Vec<(String, &'t Node)>> {
    let items: Vec<&Node> = match &node.value {
        Leaf::Array(items) if !items.is_empty() => items.iter().collect(),
        Leaf::Str(_) => vec![node],
        other => {
            let message = format!("has the wrong type ({}): write a non-empty list of strings", other.type_name());
            report.value(key, node, message);
            return None;
        }
    };
    let mut out = Vec::new();
    for item in items {
        match &item.value {
            Leaf::Str(s) if !s.is_empty() => out.push((s.clone(), item)),
            other => {
                let message = format!("has the wrong type ({}): each element is a non-empty string", other.type_name());
                report.value(key, item, message);
                return None;
            }
        }
    }
    Some(out)
}

fn read_timeout(report: &mut Report, key: &str, entry: &Entry) -> Option<Duration> {
    let rule = "timeout is a duration such as \"90s\", \"10m\" or \"2h\" (or a number of seconds), above 0";
    let seconds = match &entry.node.value {
        Leaf::Int(n) => Some(*n as f64),
        Leaf::Float(x) => Some(*x),
        Leaf::Str(s) => parse_duration(s),
        _ => None,
    };
    match seconds {
        Some(s) if s.is_finite() && s > 0.0 && s <= 1e9 => Some(Duration::from_secs_f64(s)),
        _ => {
            report.entry(key, entry, format!("is not a duration: {rule}"));
            None
        }
    }
}

/// Seconds of `"90s"`, `"10m"`, `"2h"`, `"500ms"` or a bare number.
pub fn parse_duration(s: &str) -> Option<f64> {
    let s = s.trim();
    let split = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let n: f64 = number.trim().parse().ok()?;
    let scale = match unit.trim() {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return None,
    };
    Some(n * scale)
}

fn read_threads(report: &mut Report, key: &str, entry: &Entry) -> Option<u32> {
    match entry.node.value {
        Leaf::Int(n) if (1..=1024).contains(&n) => Some(n as u32),
        _ => {
            let message = "is not allowed: threads_per_job is a whole number from 1 to 1024 (how many of --threads \
                           one run of the program counts as)";
            report.entry(key, entry, message.into());
            None
        }
    }
}

/// Reads `[solver.params]`: each entry a parameter of the program.
fn read_params<'t>(report: &mut Report, key: &str, entry: &'t Entry, given: &mut Given<'t>) {
    let Leaf::Table(entries) = &entry.node.value else {
        let message = format!(
            "has the wrong type ({}): write the program's parameters as a table, [solver.params] or params = {{ lr = 0.1 }}",
            entry.node.value.type_name()
        );
        report.entry(key, entry, message);
        given.ok = false;
        return;
    };
    for e in entries {
        let param_key = format!("{key}.{}", e.key);
        if let Err(why) = check_name(&e.key) {
            report.entry(&param_key, e, why);
            given.ok = false;
            continue;
        }
        // Parameters reach the program as SWEEP_PARAM_<NAME>: two names that differ only
        // in case would be one variable.
        if let Some(other) = given.own.iter().find(|o| o.0.name.eq_ignore_ascii_case(&e.key)) {
            let message = format!(
                "is the parameter {} again but for case: both would be SWEEP_PARAM_{}; name one otherwise",
                other.0.name,
                e.key.to_ascii_uppercase()
            );
            report.entry(&param_key, e, message);
            given.ok = false;
            continue;
        }
        let Some(ty) = infer(&e.node) else {
            let message = format!(
                "has values of no one type ({}): a program's parameter takes numbers, names (strings) or true/false, \
                 as a value, a list, {{ linspace = [..] }}, {{ logspace = [..] }} or a sampled form",
                report.shown(&e.node)
            );
            report.value(&param_key, &e.node, message);
            given.ok = false;
            continue;
        };
        let param = own_param(&e.key, ty);
        let axis = axis::read(report, &param_key, &e.node, param, Some(Kind::Command));
        given.own.push((param, e, axis));
    }
}

/// Whether `name` can be a program's parameter: an environment variable's name, not a
/// results column, not a placeholder of its own.
fn check_name(name: &str) -> Result<(), String> {
    let ident = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ident {
        return Err(format!(
            "is not a usable parameter name: {name:?} must be letters, digits and _ (it is passed as SWEEP_PARAM_<NAME>)"
        ));
    }
    if crate::schema::RESULT_COLUMNS.contains(&name) || PLACEHOLDERS.contains(&name) {
        return Err(format!(
            "is not a usable parameter name: {name} is already a column of results.csv or a job's own value; \
             name the program's parameter otherwise (e.g. lr, my_{name})"
        ));
    }
    Ok(())
}

/// The type of a program parameter's values: names, counts (whole numbers from 1), flags
/// or reals; `None` when they mix kinds.
fn infer(node: &Node) -> Option<Ty> {
    const ANY: Bounds = Bounds { lo: f64::NEG_INFINITY, lo_open: true, hi: f64::INFINITY, hi_open: true };
    let count = Ty::Count { max: i64::MAX as u64 };
    let of = |leaves: &[&Leaf]| -> Option<Ty> {
        if leaves.iter().all(|l| matches!(l, Leaf::Str(_))) {
            let names: Vec<&'static str> = leaves
                .iter()
                .filter_map(|l| if let Leaf::Str(s) = l { Some(crate::kinds::command::intern(s)) } else { None })
                .collect();
            return Some(Ty::Choice(Box::leak(names.into_boxed_slice())));
        }
        if leaves.iter().all(|l| matches!(l, Leaf::Bool(_))) {
            return Some(Ty::Flag);
        }
        if leaves.iter().all(|l| matches!(l, Leaf::Int(n) if *n >= 1)) {
            return Some(count);
        }
        leaves.iter().all(|l| matches!(l, Leaf::Int(_) | Leaf::Float(_))).then_some(Ty::Real(ANY))
    };
    match &node.value {
        Leaf::Array(items) => of(&items.iter().map(|n| &n.value).collect::<Vec<_>>()),
        Leaf::Table(entries) => match entries.as_slice() {
            [e] => match e.key.as_str() {
                "int_uniform" | "int_loguniform" => Some(count),
                "choice" => match &e.node.value {
                    Leaf::Array(items) => of(&items.iter().map(|n| &n.value).collect::<Vec<_>>()),
                    _ => None,
                },
                _ => Some(Ty::Real(ANY)),
            },
            _ => Some(Ty::Real(ANY)),
        },
        leaf => of(&[leaf]),
    }
}

/// Checks the program (it exists and is executable) and the placeholders of `command`;
/// false (and a problem) when one fails.
fn check_command(
    report: &mut Report,
    key: &str,
    entry: &Entry,
    command: &[String],
    dir: &Path,
    own: &[(&'static Param, &Entry, Option<Axis>)],
) -> bool {
    let mut ok = true;
    if let Err(why) = find_program(&command[0], dir) {
        report.entry(key, entry, format!("cannot run {:?}: {why}", command[0]));
        ok = false;
    } else if let Some(script) = interpreted_script(command) {
        // `["python3", "agent.py"]`: the interpreter exists, the script must too.
        let path = dir.join(script);
        if !path.is_file() {
            let message = format!(
                "cannot run {:?}: its script {} does not exist (a relative path is taken from the spec's folder)",
                command[0],
                path.display()
            );
            report.entry(key, entry, message);
            ok = false;
        }
    }
    let names: Vec<&str> = own.iter().map(|g| g.0.name).chain(PLACEHOLDERS).collect();
    for arg in command {
        for name in placeholders(arg) {
            if !names.contains(&name) {
                let message = format!(
                    "has the placeholder {{{name}}}, which names no parameter: placeholders are {}",
                    quoted_list(names.iter().map(|n| n as &str))
                );
                report.entry(key, entry, message);
                ok = false;
            }
        }
    }
    ok
}

/// The arguments of `command` that name files in the spec's folder (the default `files`).
fn default_files(command: &[String], dir: &Path) -> Vec<(String, u64)> {
    let mut files = Vec::new();
    for arg in command.iter().filter(|a| placeholders(a).is_empty()) {
        let path = dir.join(arg);
        if path.is_file()
            && let Ok(bytes) = std::fs::read(&path)
        {
            files.push((arg.clone(), crate::seed::fnv1a(&bytes)));
        }
    }
    files
}

/// Each listed file with the FNV-1a hash of its bytes; `None` (and a problem) when one
/// cannot be read.
fn hash_files(report: &mut Report, key: &str, files: &[(String, &Node)], dir: &Path) -> Option<Vec<(String, u64)>> {
    let mut out = Vec::new();
    for (name, node) in files {
        match std::fs::read(dir.join(name)) {
            Ok(bytes) => out.push((name.clone(), crate::seed::fnv1a(&bytes))),
            Err(e) => {
                let message = format!(
                    "names {}, which cannot be read ({e}; paths are relative to the spec's folder)",
                    dir.join(name).display()
                );
                report.value(key, node, message);
                return None;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_their_units() {
        assert_eq!(parse_duration("90s"), Some(90.0));
        assert_eq!(parse_duration("10m"), Some(600.0));
        assert_eq!(parse_duration("2h"), Some(7200.0));
        assert_eq!(parse_duration("500ms"), Some(0.5));
        assert_eq!(parse_duration("12"), Some(12.0));
        assert_eq!(parse_duration("10 parsecs"), None);
    }
}
