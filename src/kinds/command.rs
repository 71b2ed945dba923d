//! `command`: a researcher's own program, in any language, swept like a built-in learner.
//!
//! A command solver names a program (`command = ["python3", "agents/td.py", "--lr",
//! "{lr}"]`), the board, seat and opponent it trains against, its `episodes`, and its own
//! hyperparameters (`[solver.params]`: any names, numbers or strings, any axis form). Each
//! job runs the program once (see `run/command.rs`); the program hands back policy files
//! and `sweep` scores them exactly like any other learner's policy.
//!
//! This file is the kind's declaration: its fixed parameters, the [`Program`] a spec's
//! command solver describes, and [`CommandPoint`], one grid point. A program's own
//! parameters are known only when a spec is read, so the grid of a command solver is over
//! [`Program::axes`] (the fixed parameters, then the program's own), while the kind's
//! columns are the fixed ones plus `params` (the program's parameters as `name=value`
//! text, one configuration's identity in the job key and the tables); each program
//! parameter also has a results column of its own, appended after every fixed column.
//!
//! Programs and points are interned for the whole process (a spec is read once), so that
//! [`super::Params`] stays `Copy`.
//!
//! The program's command line is the kind's too: how the program (or a known
//! interpreter's script) is found ([`find_program`], [`program_files`]) and how the `{name}`
//! placeholders of its arguments are filled in, in one pass and never through a shell
//! ([`placeholders`], [`substitute`]); the spec reader and the runner both call them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::param::{EPISODES, SEARCHED_GAME, SEAT};
use super::{Declared, Execution, Param, Seats, Solver, Ty, Val, Values, Work};
use crate::cost::Load;
use crate::cost::memory::Need;
use crate::evaluation::EvaluationSpec;
use crate::mdp::Seat;
use crate::solvers::TrainOpponent;

/// The opponent a program trains against: a fixed opponent or `self`.
pub static COMMAND_OPPONENT: Param = Param {
    name: "opponent",
    ty: Ty::Choice(TrainOpponent::NAMES),
    default: Val::Name("random"),
    meaning: "the opponent the program trains against (self: it plays both seats), whose MDP its regret is taken on",
    floor_of: None,
    since: 1,
    optional: false,
};

/// The program's own parameters as `name=value` text (version 5): the configuration's
/// identity in job keys and tables; each also has a column of its own.
pub static PROGRAM_PARAMS: Param = Param {
    name: "params",
    ty: Ty::Choice(&[]),
    default: Val::Name(""),
    meaning: "a command solver's own parameters, as name=value separated by spaces (each also has its own column)",
    floor_of: None,
    since: 5,
    optional: true,
};

/// The kind's parameters, in column order.
const FIXED: [&Param; 4] = [&SEAT, &COMMAND_OPPONENT, &EPISODES, &SEARCHED_GAME];

/// What a spec says about one command solver: the program and how to run it.
#[derive(Debug)]
pub struct Program {
    /// The solver's label.
    pub label: String,
    /// `command:<label>`: the `solver` column and the job key's solver.
    pub solver: &'static str,
    /// The command line, with `{name}` placeholders.
    pub command: Vec<String>,
    /// The folder relative paths are taken from (the spec's).
    pub dir: PathBuf,
    /// The files whose FNV-1a hashes the manifest records, as written in the spec, with
    /// their hashes when the spec was read.
    pub files: Vec<(String, u64)>,
    /// Per job; a job past it is killed and written as failed.
    pub timeout: Duration,
    /// How many of `--threads` one program counts as.
    pub threads_per_job: u32,
    /// On a board too big to enumerate: the program also answers positions at its
    /// checkpoints (protocol `positions/2`, see `run/policy_server.rs`), which gives its
    /// jobs learning curves.
    pub serve_checkpoints: bool,
    /// The grid's parameters: the fixed ones, then the program's own.
    pub axes: &'static [&'static Param],
}

impl Program {
    /// The program's own parameters, in spec order.
    pub fn own(&self) -> &'static [&'static Param] {
        &self.axes[FIXED.len()..]
    }

    /// The parameters of a program that takes `own`: the fixed ones, then `own`.
    pub fn axes_with(own: Vec<&'static Param>) -> &'static [&'static Param] {
        let all: Vec<&'static Param> = FIXED.iter().copied().chain(own).collect();
        Box::leak(all.into_boxed_slice())
    }
}

/// A program's own parameter called `name`, taking values of type `ty` (interned: a spec
/// declares each once).
pub fn own_param(name: &str, ty: Ty) -> &'static Param {
    let default = match ty {
        Ty::Real(_) => Val::Real(f64::NAN),
        Ty::Count { .. } => Val::Count(0),
        Ty::Flag => Val::Flag(false),
        _ => Val::Name(""),
    };
    Box::leak(Box::new(Param {
        name: Box::leak(name.to_string().into_boxed_str()),
        ty,
        default,
        meaning: "a parameter of the program",
        floor_of: None,
        since: 1,
        optional: false,
    }))
}

/// Interns a string for the rest of the process.
pub fn intern(s: &str) -> &'static str {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static STRINGS: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut guard = STRINGS.lock().unwrap_or_else(|e| e.into_inner());
    let set = guard.get_or_insert_with(HashSet::new);
    if let Some(&found) = set.get(s) {
        return found;
    }
    let leaked: &'static str = Box::leak(s.to_string().into_boxed_str());
    set.insert(leaked);
    leaked
}

/// One grid point of a command solver: its program and a value per [`Program::axes`].
#[derive(Clone, Copy, Debug)]
pub struct CommandPoint {
    /// The program.
    pub program: &'static Program,
    /// One value per parameter of [`Program::axes`].
    pub values: &'static [Val],
}

impl PartialEq for CommandPoint {
    fn eq(&self, other: &CommandPoint) -> bool {
        std::ptr::eq(self.program, other.program) && self.values == other.values
    }
}

impl CommandPoint {
    /// The point of `program` with `values` (one per [`Program::axes`]).
    pub fn new(program: &'static Program, values: &[Val]) -> CommandPoint {
        assert_eq!(values.len(), program.axes.len(), "one value per parameter");
        CommandPoint { program, values: Box::leak(values.to_vec().into_boxed_slice()) }
    }

    /// The seat (the first seat of a self-play program: it plays both).
    pub fn seat(&self) -> Seat {
        match self.values[0] {
            Val::Name(s) => s.parse().expect("a validated seat"),
            other => unreachable!("a seat, got {other:?}"),
        }
    }

    /// The training opponent.
    pub fn opponent(&self) -> TrainOpponent {
        match self.values[1] {
            Val::Name(s) => s.parse().expect("a validated opponent"),
            other => unreachable!("an opponent, got {other:?}"),
        }
    }

    /// The episodes.
    pub fn episodes(&self) -> u64 {
        self.values[2].as_count().expect("a validated episode count")
    }

    /// The game.
    pub fn game(&self) -> crate::game::Game {
        match self.values[3] {
            Val::Game(g) => g,
            other => unreachable!("a game, got {other:?}"),
        }
    }

    /// The program's own parameters with their values, in spec order.
    pub fn own(&self) -> impl Iterator<Item = (&'static str, Val)> + '_ {
        self.program.own().iter().zip(&self.values[FIXED.len()..]).map(|(p, v)| (p.name, *v))
    }

    /// The `params` cell: `name=value` separated by spaces, in spec order.
    pub fn params_text(&self) -> String {
        self.own().map(|(name, value)| format!("{name}={}", value.show())).collect::<Vec<_>>().join(" ")
    }
}

impl Declared for CommandPoint {
    const NAME: &'static str = "command";
    const PARAMS: &'static [&'static Param] = &[&SEAT, &COMMAND_OPPONENT, &EPISODES, &SEARCHED_GAME, &PROGRAM_PARAMS];
    const RUNS_A_PROGRAM: bool = true;

    /// None: the kind's columns alone do not say which program runs, so a command point
    /// is made with its program ([`super::Params::of_program`]).
    fn build(_values: &Values<'_>) -> Option<CommandPoint> {
        None
    }
}

impl Solver for CommandPoint {
    fn values(&self) -> Vec<Val> {
        let mut values = self.values[..FIXED.len()].to_vec();
        values.push(Val::Name(intern(&self.params_text())));
        values
    }

    fn work(&self) -> Work {
        Work { episodes: self.episodes(), iterations: 0 }
    }

    fn seats(&self) -> Seats {
        Seats::of(self.seat(), self.opponent())
    }

    /// What `sweep` does itself: an exact evaluation per checkpoint, seat and opponent
    /// (on a board too big to enumerate, of the final policy, and of every checkpoint's
    /// but for a program that serves none); the program's own time is unknown until
    /// measured (`sweep plan` says so).
    fn load(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Load {
        if !self.game().enumerable() {
            let games = if evaluation.games > 0 { evaluation.games } else { crate::evaluation::SAMPLED_GAMES };
            let from = evaluation.from.as_deref();
            let mut load = crate::cost::searched_load(self.game(), seats, &evaluation.opponents, 0, from, games);
            if self.program.serve_checkpoints {
                // The policies at episode 0 and at every checkpoint, then the final one.
                load.searched_positions *= f64::from(evaluation.checkpoints) + 2.0;
            }
            return load;
        }
        let mut load = Load::new(self.game(), seats);
        let self_play = seats.len() > 1;
        let per: f64 = seats
            .iter()
            .flat_map(|&s| evaluation.opponents.iter().map(move |&o| (s, o)))
            .map(|(s, o)| crate::cost::boards::evaluation(self.game(), s, o, self_play, false))
            .sum();
        load.evaluations = per * (f64::from(evaluation.checkpoints) + 1.0);
        load
    }

    /// The evaluator and the policies read back; the MDPs evaluated against are shared.
    fn memory(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Need {
        let game = self.game();
        if !game.enumerable() {
            return crate::cost::memory::searched(game, 0);
        }
        let shared = Need::evaluations(game, seats, &evaluation.opponents);
        let evaluators: u64 =
            seats.iter().map(|&s| crate::cost::memory::evaluator(crate::cost::memory::side(game, s))).sum();
        Need { job: 2 * crate::cost::memory::policy(game) + evaluators, shared }
    }

    /// A program, run by the executor (`run/command.rs`), which owns the processes.
    fn execution(&self) -> Execution<'_> {
        Execution::Program(self)
    }
}

// The program's command line: how a program and its script are found, and how the
// `{name}` placeholders of its arguments are filled in (one pass, never a shell).

/// Interpreters whose first argument, when it is not an option, is the script they run.
const INTERPRETERS: [&str; 10] =
    ["python", "python3", "pypy3", "sh", "bash", "Rscript", "julia", "node", "perl", "ruby"];

/// Whether `program` is a known interpreter (`python3`, `sh`, `/usr/bin/python3.12`, ..).
fn is_interpreter(program: &str) -> bool {
    let Some(name) = Path::new(program).file_name().and_then(|n| n.to_str()) else { return false };
    INTERPRETERS.contains(&name) || name.strip_prefix("python3.").is_some_and(|v| v.chars().all(|c| c.is_ascii_digit()))
}

/// The script a known interpreter is given as its first argument (`["python3",
/// "agent.py", ..]`), when that argument is a file name without placeholders.
pub fn interpreted_script(command: &[String]) -> Option<&str> {
    let first = command.get(1)?;
    (is_interpreter(&command[0]) && !first.starts_with('-') && placeholders(first).is_empty()).then_some(first.as_str())
}

/// The files `command` runs, found as the runner finds them, absolute: a known
/// interpreter's script (`["python3", "agent.py"]`: the script, not the interpreter; none
/// for `["sh", "-c", ".."]`, whose program is its command line), else the executable (a
/// path with a `/` relative to the spec's folder `dir`, or a name on `PATH`). A file that
/// cannot be found is left out (the spec's check refuses it before any job).
pub fn program_files(command: &[String], dir: &Path) -> Vec<PathBuf> {
    let resolved = |p: PathBuf| p.canonicalize().unwrap_or(p);
    if is_interpreter(&command[0]) {
        let script = interpreted_script(command).map(|s| dir.join(s)).filter(|p| p.is_file());
        return script.into_iter().map(resolved).collect();
    }
    find_program(&command[0], dir).into_iter().map(resolved).collect()
}

/// The names of the `{name}` placeholders in `arg`.
pub fn placeholders(arg: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = arg;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if is_name(&after[..close]) => {
                out.push(&after[..close]);
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    out
}

/// `arg` with every `{name}` that `value` knows replaced by its value, in one pass from
/// left to right: a value is never read again, so a value holding `{seed}`, quotes, `;` or
/// `$()` stays as it is (and no shell ever sees it).
pub fn substitute(arg: &str, value: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(arg.len());
    let mut rest = arg;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after
            .find('}')
            .filter(|&close| is_name(&after[..close]))
            .and_then(|close| value(&after[..close]).map(|v| (v, close)))
        {
            Some((v, close)) => {
                out.push_str(&v);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `path` made absolute as written: joined to the current folder when relative, `.` and
/// `..` taken away by the names alone, no symbolic link followed (a virtual environment's
/// `bin/python`, a link to the system's interpreter, stays the link, so the interpreter
/// finds its environment).
pub fn absolute(path: &Path) -> PathBuf {
    use std::path::Component;
    let joined = match path.is_absolute() {
        true => path.to_path_buf(),
        false => std::env::current_dir().map(|cwd| cwd.join(path)).unwrap_or_else(|_| path.to_path_buf()),
    };
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Where the program `name` is: a path (with a `/`) relative to the spec's folder, or a
/// name looked up on `PATH`; an error when it is missing or not executable.
pub fn find_program(name: &str, dir: &Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if name.contains('/') {
        let path = dir.join(name);
        return match path.metadata() {
            Err(_) => Err(format!("{} does not exist (the path is relative to the spec's folder)", path.display())),
            Ok(_) if !executable(&path) => Err(format!(
                "{} is not an executable file (chmod +x it, or name its interpreter first: [\"python3\", \"{name}\"])",
                path.display()
            )),
            Ok(_) => Ok(path),
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| executable(p))
        .ok_or_else(|| format!("no executable {name} on PATH"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substitution_is_one_pass_and_leaves_values_alone() {
        let value = |name: &str| match name {
            "seed" => Some("42".to_string()),
            "tag" => Some("{seed}; $(rm -rf x) \"q\" a b".to_string()),
            _ => None,
        };
        assert_eq!(substitute("--tag={tag}", value), "--tag={seed}; $(rm -rf x) \"q\" a b");
        assert_eq!(substitute("{seed}-{tag}", value), "42-{seed}; $(rm -rf x) \"q\" a b");
        assert_eq!(substitute("{unknown} {} {not a name} {seed", value), "{unknown} {} {not a name} {seed");
        assert_eq!(substitute("}{seed}{", value), "}42{");
    }

    #[test]
    fn a_path_is_made_absolute_by_its_names_alone() {
        assert_eq!(absolute(Path::new("/a/spec/../venv/./bin/python")), Path::new("/a/venv/bin/python"));
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(absolute(Path::new("x/../y")), cwd.join("y"));
    }

    #[test]
    fn placeholders_are_braced_names() {
        assert_eq!(placeholders("--lr={lr}"), ["lr"]);
        assert_eq!(placeholders("{seed}-{game}"), ["seed", "game"]);
        assert!(placeholders("{not a name} {}").is_empty());
    }
}
