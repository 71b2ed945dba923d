//! Reading a whole spec: the top-level keys and `[evaluation]`, each `[[solver]]` (see
//! `solver.rs`), the draws of sampled axes (once every label is known: the draws depend on
//! the master seed and the solver's label only), then the checks across solvers (see
//! `across.rs`).
//! Every problem is recorded; the spec is accepted only when there are none.

use std::path::Path;

use super::EvaluationSpec;
use super::across;
use super::command_solver;
use super::error::{Report, SpecError, closest, quoted_list, whole};
use super::grid::Grid;
use super::policy_file;
use super::search::{self, SearchSpec};
use super::solver::{self, Draft};
use super::test_table::{self, TestSpec};
use super::tree::{self, Entry, Leaf, Node};
use crate::game::Game;
use crate::kinds::Kind;
use crate::kinds::Val;
use crate::mdp::{EvalOpponent, Opponent, Seat};
use crate::solvers::spacing::Spacing;

/// A spec that passed every check.
pub(crate) struct Checked {
    pub name: String,
    pub seed: u64,
    pub replicates: u32,
    pub evaluation: EvaluationSpec,
    pub solvers: Vec<CheckedSolver>,
    /// How some values were read (e.g. rounded), for `sweep plan`.
    pub notes: Vec<String>,
    /// The `[search]` table, if any.
    pub search: Option<SearchSpec>,
    /// The `[test]` table, if any.
    pub test: Option<TestSpec>,
}

/// A solver that passed every check.
pub(crate) struct CheckedSolver {
    pub label: String,
    pub grid: Grid,
    /// Its own replicates, when it sets them.
    pub replicates: Option<u32>,
}

const TOP_KEYS: [&str; 7] = ["name", "seed", "replicates", "evaluation", "solver", "search", "test"];
const EVALUATION_KEYS: [&str; 6] =
    ["opponents", "games", "checkpoints", "checkpoint_spacing", "exact_searches", "from"];
const I64_MAX: u64 = i64::MAX as u64;

/// What the top level of a spec holds, as read so far.
struct Top<'t> {
    name: Option<String>,
    seed: u64,
    replicates: u32,
    evaluation: EvaluationSpec,
    checkpoints: Option<&'t Entry>,
    /// The `[evaluation] opponents` entry, when given.
    opponents: Option<&'t Entry>,
    /// The `[evaluation] from` entry, when given.
    from: Option<&'t Entry>,
    solvers: Vec<Draft<'t>>,
    has_solver_key: bool,
    search: Option<&'t Entry>,
    test: Option<&'t Entry>,
}

/// Reads and checks a whole spec.
pub(crate) fn check(text: &str, file: &str) -> Result<Checked, SpecError> {
    let mut report = Report::new(file, text);
    let mut root = tree::parse(text).map_err(|e| syntax_error(&report, file, e))?;
    let numbers = solver::expand_kind_lists(&mut report, &mut root);
    let mut top = Top::new();
    report.proposed = search::proposes(&root);
    for entry in &root {
        read_top_entry(&mut report, &mut top, entry, &numbers);
    }
    let name = top.name.clone().or_else(|| default_name(&mut report, file));
    if top.solvers.is_empty() && !top.has_solver_key {
        report.file(None, "has no solvers: add at least one [[solver]] table with a kind".into());
    }
    let labels = across::labels(&mut report, &top.solvers);
    for (draft, label) in top.solvers.iter_mut().zip(&labels) {
        if let Some(grid) = &mut draft.grid {
            grid.draw(top.seed, label);
        }
    }
    check_evaluation_policies(&mut report, &top);
    check_start(&mut report, &top);
    let checkpoints = (top.evaluation.checkpoints, top.checkpoints);
    across::check_checkpoints(&mut report, &top.solvers, checkpoints);
    across::check_size(&mut report, &top.solvers, top.replicates, &labels);
    let mut notes = report.take_notes();
    if !report.proposed {
        notes.extend(across::sample_notes(&top.solvers, &labels));
    }
    if report.is_clean() {
        across::check_shared_points(&mut report, &top.solvers, &labels);
    }
    let search = top.search.and_then(|entry| {
        let (opponents, checkpoints) = (&top.evaluation.opponents, top.evaluation.checkpoints);
        search::read(&mut report, entry, opponents, checkpoints, &top.solvers, &solver_tables(&root))
    });
    let test = top.test.and_then(|entry| {
        test_table::read(&mut report, entry, &top.evaluation.opponents, search.as_ref(), &top.solvers)
    });
    report.finish()?;
    let solvers = checked_solvers(top.solvers, labels, search.as_ref(), top.seed);
    Ok(Checked {
        name: name.expect("a clean report means the name is valid"),
        seed: top.seed,
        replicates: top.replicates,
        evaluation: top.evaluation,
        solvers,
        notes,
        search,
        test,
    })
}

impl Top<'_> {
    /// The top level before any entry is read: every default.
    fn new() -> Self {
        Top {
            name: None,
            seed: 0,
            replicates: 1,
            evaluation: EvaluationSpec {
                opponents: vec![EvalOpponent::Fixed(Opponent::Random)],
                games: 0,
                checkpoints: 10,
                spacing: Spacing::Even,
                exact_searches: super::EXACT_SEARCHES,
                from: None,
            },
            checkpoints: None,
            opponents: None,
            from: None,
            solvers: Vec::new(),
            has_solver_key: false,
            search: None,
            test: None,
        }
    }
}

/// The solvers of a clean report with their labels, each grid set up for the `[search]`
/// (if any): a model's startup points drawn, the budget parameter at its largest where
/// the search does not propose it.
fn checked_solvers(
    drafts: Vec<Draft>,
    labels: Vec<String>,
    search: Option<&SearchSpec>,
    seed: u64,
) -> Vec<CheckedSolver> {
    let count = drafts.len() as u64;
    drafts
        .into_iter()
        .zip(labels)
        .enumerate()
        .map(|(i, (draft, label))| {
            let mut grid = draft.grid.expect("a clean report means every grid is valid");
            match search {
                Some(search) if search.method.models() => {
                    // One search over the sweep shares its startup out among the solvers.
                    let startup = match search.per_sweep {
                        true => search.startup / count + u64::from((i as u64) < search.startup % count),
                        false => search.startup,
                    };
                    grid.searched_by_model(startup, seed, &label);
                    if !search.method.proposes() {
                        grid.set_budget(search.parameter, search.max_budget);
                    }
                }
                Some(search) => grid.set_budget(search.parameter, search.max_budget),
                None => {}
            }
            CheckedSolver { label, grid, replicates: draft.replicates }
        })
        .collect()
}

/// The `[[solver]]` tables as written, in order (for the keys each sets).
fn solver_tables(root: &[Entry]) -> Vec<&[Entry]> {
    let Some(Leaf::Array(tables)) = root.iter().find(|e| e.key == "solver").map(|e| &e.node.value) else {
        return Vec::new();
    };
    tables.iter().map(|t| if let Leaf::Table(entries) = &t.value { entries.as_slice() } else { &[] }).collect()
}

/// A TOML syntax error as a problem, with its line and column.
fn syntax_error(report: &Report, file: &str, error: tree::SyntaxError) -> SpecError {
    let position = error.offset.map(|o| report.position(o));
    let place = position.map(|(_, column)| format!(" at column {column}")).unwrap_or_default();
    let what: Vec<&str> = error.message.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let what = match what.join("; ") {
        w if w.is_empty() => "unexpected end of the file".to_string(),
        w => w,
    };
    let mut spec_error = SpecError::whole_file(file, format!("malformed TOML{place}: {what}"));
    spec_error.problems[0].line = position.map(|(line, _)| line);
    spec_error
}

fn read_top_entry<'t>(report: &mut Report, top: &mut Top<'t>, entry: &'t Entry, numbers: &[usize]) {
    match entry.key.as_str() {
        "name" => top.name = read_name(report, entry),
        "seed" => {
            let rule = "seed must be a whole number from 0 to 9223372036854775807 (the master seed)";
            top.seed = whole(report, "seed", entry, 0, I64_MAX, rule).unwrap_or(0);
        }
        "replicates" => {
            let rule = "replicates must be a whole number from 1 to 4294967295 (runs per grid point)";
            top.replicates = whole(report, "replicates", entry, 1, u64::from(u32::MAX), rule).map_or(1, |r| r as u32);
        }
        "evaluation" => read_evaluation(report, top, entry),
        "search" => top.search = Some(entry),
        "test" => top.test = Some(entry),
        "solver" => {
            top.has_solver_key = true;
            read_solvers(report, top, entry, numbers);
        }
        other => unknown_key(report, other, entry, other, &TOP_KEYS),
    }
}

fn unknown_key(report: &mut Report, key: &str, entry: &Entry, name: &str, known: &[&str]) {
    let mut message = "is not a known key".to_string();
    if let Some(near) = closest(name, known.iter().copied()) {
        message.push_str(&format!(" (did you mean {near}?)"));
    }
    message.push_str(&format!(": allowed here are {}", known.join(", ")));
    report.entry(key, entry, message);
}

fn read_name(report: &mut Report, entry: &Entry) -> Option<String> {
    match &entry.node.value {
        Leaf::Str(name) if usable_name(name) => Some(name.clone()),
        Leaf::Str(_) => {
            report.entry("name", entry, format!("is not a usable name: {NAME_RULE}"));
            None
        }
        other => {
            let message = format!("has the wrong type ({}): name takes a string; {NAME_RULE}", other.type_name());
            report.entry("name", entry, message);
            None
        }
    }
}

const NAME_RULE: &str = "the name is a directory name under results/, so it must be non-empty, \
                         not start with a dot and hold no slash, backslash or control character";

fn usable_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.chars().any(|c| c == '/' || c == '\\' || c.is_control())
}

/// The file's stem, when it is usable as a name.
fn default_name(report: &mut Report, file: &str) -> Option<String> {
    let stem = Path::new(file).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if usable_name(&stem) {
        return Some(stem);
    }
    report.file(
        Some("name"),
        format!("is not given and the file name gives no usable default: add name = \"...\"; {NAME_RULE}"),
    );
    None
}

fn read_evaluation<'t>(report: &mut Report, top: &mut Top<'t>, entry: &'t Entry) {
    let Leaf::Table(entries) = &entry.node.value else {
        let message = format!(
            "has the wrong type ({}): evaluation is a table; write [evaluation] and its keys {}",
            entry.node.value.type_name(),
            EVALUATION_KEYS.join(", ")
        );
        report.entry("evaluation", entry, message);
        return;
    };
    for e in entries {
        let key = format!("evaluation.{}", e.key);
        match e.key.as_str() {
            "opponents" => {
                top.opponents = Some(e);
                if let Some(opponents) = read_opponents(report, &key, e) {
                    top.evaluation.opponents = opponents;
                }
            }
            "games" => {
                let rule = "games must be a whole number >= 0 (extra sampled games per evaluation opponent)";
                top.evaluation.games = whole(report, &key, e, 0, I64_MAX, rule).unwrap_or(0);
            }
            "checkpoints" => {
                let rule =
                    "checkpoints must be a whole number from 1 to 4294967295 (learning-curve points per learner)";
                top.evaluation.checkpoints =
                    whole(report, &key, e, 1, u64::from(u32::MAX), rule).map_or(1, |c| c as u32);
                top.checkpoints = Some(e);
            }
            "exact_searches" => {
                let rule = "exact_searches must be a whole number >= 1 (the most positions MCTS may search for one \
                            exact evaluation; beyond them the row is evaluated by sampled games)";
                top.evaluation.exact_searches =
                    whole(report, &key, e, 1, I64_MAX, rule).unwrap_or(super::EXACT_SEARCHES);
            }
            "from" => match &e.node.value {
                Leaf::Str(s) if crate::oracle::parse_moves(connect_four(), s).is_ok() => {
                    top.evaluation.from = Some(s.trim().to_string());
                    top.from = Some(e);
                }
                _ => report.entry(
                    &key,
                    e,
                    "is not a move list: from is a string of moves from 0 separated by commas (\"3,3,4\"), or on a \
                     gravity board a digit string of columns from 1 (\"4453\"); the position every evaluation on a \
                     board too big to enumerate starts from"
                        .into(),
                ),
            },
            "checkpoint_spacing" => match &e.node.value {
                Leaf::Str(s) if s.parse::<Spacing>().is_ok() => top.evaluation.spacing = s.parse().expect("checked"),
                _ => report.entry(&key, e, "is not a checkpoint spacing: allowed are \"even\" and \"log\"".into()),
            },
            other => unknown_key(report, &key, e, other, &EVALUATION_KEYS),
        }
    }
}

fn read_opponents(report: &mut Report, key: &str, entry: &Entry) -> Option<Vec<EvalOpponent>> {
    let names = quoted_list(EvalOpponent::ALL.iter().map(|o| o.name()));
    let allowed = format!("{names} or {}", policy_file::FORM);
    let items: Vec<&Node> = match &entry.node.value {
        Leaf::Array(items) if items.is_empty() => {
            report.entry(key, entry, format!("is an empty list: give at least one of {allowed}"));
            return None;
        }
        Leaf::Array(items) => items.iter().collect(),
        _ => vec![&entry.node],
    };
    let mut opponents = Vec::with_capacity(items.len());
    for item in items {
        match &item.value {
            Leaf::Table(entries) => {
                let file = report.spec_file();
                match policy_file::read(report, key, item, entries, file) {
                    Some(o) if opponents.contains(&EvalOpponent::Fixed(o)) => {
                        report.value(key, item, "is listed twice: each evaluation opponent once".into());
                    }
                    Some(o) => opponents.push(EvalOpponent::Fixed(o)),
                    None => {}
                }
            }
            Leaf::Str(name) => match name.parse::<EvalOpponent>() {
                Ok(o) if opponents.contains(&o) => {
                    report.value(key, item, "is listed twice: each evaluation opponent once".into());
                }
                Ok(o) => opponents.push(o),
                Err(_) => {
                    let mut message = format!("is not a known evaluation opponent: allowed are {allowed}");
                    if let Some(near) = closest(name, EvalOpponent::ALL.iter().map(|o| o.name())) {
                        message.push_str(&format!(" (did you mean \"{near}\"?)"));
                    }
                    report.value(key, item, message);
                }
            },
            other => {
                let message =
                    format!("has the wrong type ({}): opponents takes a list of {allowed}", other.type_name());
                report.value(key, item, message);
            }
        }
    }
    (!opponents.is_empty()).then_some(opponents)
}

/// Connect Four's shape, whose move lists `[evaluation] from` is first read as.
fn connect_four() -> crate::oracle::Shape {
    crate::oracle::Shape::of(crate::game::Family::Gravity, 6, 7, 4).expect("Connect Four fits the search")
}

/// Checks `[evaluation] from` on every board too big to enumerate that a solver plays:
/// its moves must be legal there and leave the game unfinished.
fn check_start(report: &mut Report, top: &Top<'_>) {
    let (Some(entry), Some(from)) = (top.from, &top.evaluation.from) else { return };
    for grid in top.solvers.iter().filter_map(|d| d.grid.as_ref()) {
        let Some(i) = grid.params().iter().position(|p| p.name == "game") else { continue };
        for game in grid.axes[i].iter().filter_map(|v| if let Val::Game(g) = v { Some(*g) } else { None }) {
            if game.enumerable() {
                continue;
            }
            if let Err(why) = start_position(game, from) {
                report.entry("evaluation.from", entry, format!("is not allowed on {game}: {why}"));
                return;
            }
        }
    }
}

/// The position `from` leads to on `game` (a board the search takes), if it is a
/// position where the game goes on.
pub fn start_position(game: crate::game::Game, from: &str) -> Result<crate::oracle::Position, String> {
    let shape = crate::oracle::Shape::of_game(game);
    let moves = crate::oracle::parse_moves(shape, from)?;
    let p = crate::oracle::Position::after(shape, &moves).map_err(|e| e.to_string())?;
    if p.is_over() {
        return Err(format!("the game is over after {from:?}; the evaluation needs a position where it goes on"));
    }
    Ok(p)
}

/// Checks each saved policy among the evaluation opponents against every solver's games
/// and evaluated seats (a self-play solver is evaluated in both).
fn check_evaluation_policies(report: &mut Report, top: &Top<'_>) {
    let Some(entry) = top.opponents else { return };
    for grid in top.solvers.iter().filter_map(|d| d.grid.as_ref()) {
        let axis = |name: &str| grid.params().iter().position(|p| p.name == name).map(|i| &grid.axes[i][..]);
        let games: Vec<Game> = axis("game")
            .unwrap_or(&[])
            .iter()
            .filter_map(|v| if let Val::Game(g) = v { Some(*g) } else { None })
            .collect();
        let mut seats: Vec<Seat> = axis("seat")
            .unwrap_or(&[])
            .iter()
            .filter_map(|v| if let Val::Name(s) = v { s.parse().ok() } else { None })
            .collect();
        if axis("opponent").is_some_and(|o| o.contains(&crate::kinds::SELF_PLAY)) {
            seats = Seat::ALL.to_vec();
        }
        for opponent in top.evaluation.opponents.iter().filter_map(|o| o.fixed()) {
            if let Err(why) = policy_file::check(opponent, &seats, &games) {
                report.entry("evaluation.opponents", entry, format!("is not allowed: {why}"));
                return;
            }
        }
    }
}

/// `numbers`: each table's number as the user wrote it (tables expanded from a list of
/// kinds share their block's).
fn read_solvers<'t>(report: &mut Report, top: &mut Top<'t>, entry: &'t Entry, numbers: &[usize]) {
    match &entry.node.value {
        Leaf::Array(tables) if tables.is_empty() => {
            report.entry("solver", entry, "is an empty list: add at least one [[solver]] table with a kind".into());
        }
        Leaf::Array(tables) => {
            for (i, table) in tables.iter().enumerate() {
                let (mut draft, entries) = solver::begin(report, numbers.get(i).copied().unwrap_or(i + 1), table);
                match entries {
                    Some(entries) if draft.kind.is_some_and(Kind::runs_a_program) => {
                        command_solver::read(report, &mut draft, table, entries)
                    }
                    Some(entries) => solver::read(report, &mut draft, table, entries),
                    None => {}
                }
                top.solvers.push(draft);
            }
        }
        Leaf::Table(_) => {
            let message = "is a single table: write [[solver]] (double brackets) before each solver";
            report.entry("solver", entry, message.into());
        }
        other => {
            let message =
                format!("has the wrong type ({}): write a [[solver]] table for each solver", other.type_name());
            report.entry("solver", entry, message);
        }
    }
}
