//! The `[search]` table: successive halving or Hyperband over a budget parameter
//! (`episodes` for learners, `iterations` for MCTS), a model-based search (TPE) over the
//! solvers' sampled and listed axes, both (BOHB), or another of [`METHODS`]; read and
//! checked against the solvers.
//!
//! Keys: `method` (one of [`METHODS`], required), `eta` (the cut factor, a whole
//! number >= 2, default 3), `min_budget` and `max_budget` (whole numbers, required,
//! `1 <= min_budget <= max_budget`), `metric` (`"regret"`, default, or `"regret_auc"`, which
//! only learners write, so it needs the `episodes` budget),
//! `opponent` (the evaluation opponent the configurations are judged on; one of
//! `[evaluation] opponents`, default the first) and `seat` (`"x"` or `"o"`; default the
//! mean over the seats a job is evaluated in).
//!
//! With `method = "tpe"` the keys are `trials` (the configurations tried per solver,
//! required), `batch` (proposed per round, default 8), `startup` (Sobol points of round 0,
//! default `min(trials, 10)`), `per` (`"solver"`, default: one search per solver, or
//! `"sweep"`: one over all, `trials` and `startup` in all), `metric`, `opponent` and
//! `seat`; no budget keys (every trial runs at the solver's own budget), and solvers give
//! no `samples` (see [`crate::search::rounds`]). `method = "bohb"` takes Hyperband's keys;
//! its solvers' axes are searched as TPE's and give no `samples` either.
//!
//! The rung budgets are `max_budget / eta^k` (rounded to whole numbers) for every `k` that
//! keeps them at or above `min_budget`, in increasing order, so the last rung always has
//! `max_budget`. Every solver must take the same budget parameter and must not set it: the
//! search sets it, rung by rung (a solver's grid is its other axes).
//!
//! Each method is one descriptor, a [`SearchMethod`] in a file of its own here, named
//! after it (`halving.rs`, `tpe.rs`, ...), and named once, in `registry!` below: which
//! keys it takes and how they fit together, whether its configurations are points of a
//! searched space, its rungs and brackets or its rounds, and its words for `plan`.
//! This file reads every key's value and the keys all methods share (`rungs.rs`: what the
//! rung methods share); the schedule
//! ([`crate::search`]), `run` and `plan` ask the descriptor and never match on a method.
//! A new method that fits the rungs (a grid's, or a space's) or the rounds is its file
//! and one line of `registry!`.

use super::Sweep;
use super::error::Report;
use super::error::{one_of, whole};
use super::solver::Draft;
use super::tree::{Entry, Leaf};
use crate::kinds::{Kind, Ty};
use crate::mdp::{EvalOpponent, Seat};
use rungs::{describe_rungs, one_bracket, read_rungs, rung_budgets, rung_json};

mod rungs;

/// Declares the method files and [`METHODS`], in the order `method =` lists them.
macro_rules! registry {
    ($($file:ident :: $method:ident),+ $(,)?) => {
        $(mod $file;)+

        /// Every search method, in the order messages list them: the one list of them.
        pub const METHODS: &[Method] = &[$(&$file::$method),+];
    };
}

registry! {
    halving::Halving,
    hyperband::Hyperband,
    tpe::Tpe,
    bohb::Bohb,
    random::Random,
}

/// A search method: its descriptor, one of [`METHODS`].
pub type Method = &'static dyn SearchMethod;

/// What one search method is: everything about it that the methods do not share. The
/// reader of `[search]`, the schedule ([`crate::search`]), `run` and `plan` ask it. It has
/// no default methods: a new method answers every question.
///
/// Two answers choose the machinery that runs it: a method that [`proposes`] runs rounds
/// of configurations at the solvers' own budgets (no rungs, no budget parameter), one
/// that does not runs rungs over a budget parameter; a method that [`models`] searches
/// the solvers' space (sampled axes, and listed axes as `choice`s: round 0 or its first
/// bracket takes Sobol points, later ones may be proposed from the scores, see
/// [`crate::search::rounds`]), one that does not runs the solvers' grid points. The
/// rounds need a space.
///
/// [`proposes`]: SearchMethod::proposes
/// [`models`]: SearchMethod::models
pub trait SearchMethod: Sync {
    /// The spelling in specs (`method = "..."`), runs' lines and `plan`.
    fn name(&self) -> &'static str;

    /// Whether its configurations are points of the solvers' searched space, drawn and
    /// proposed by the search, rather than their grids' points: solvers give no
    /// `samples` (TPE, BOHB).
    fn models(&self) -> bool;

    /// Whether it runs its configurations in rounds at the solvers' own budgets (TPE):
    /// no rungs and no budget keys.
    fn proposes(&self) -> bool;

    /// Finishes reading `[search]` once every key's value is read: which of the keys it
    /// takes are given, how they fit together and with the solvers; the search, or
    /// `None` after a problem.
    fn read(&self, table: &mut Reading<'_, '_>) -> Option<SearchSpec>;

    /// The resolved form of `search` (part of the spec hash).
    fn to_json(&self, search: &SearchSpec) -> serde_json::Value;

    /// The rung budgets, increasing, the last the full budget (none when it runs in
    /// rounds).
    fn budgets(&self, search: &SearchSpec) -> Vec<u64>;

    /// Its brackets over `count` configurations, numbered in spec order (none when it
    /// runs in rounds; empty brackets left out): where each starts, and which it starts
    /// with.
    fn brackets(&self, search: &SearchSpec, count: usize) -> Vec<Bracket>;

    /// The configurations of each round, per solver (in all with `per = "sweep"`), when
    /// no proposal repeats one (none when it runs rungs).
    fn round_sizes(&self, search: &SearchSpec) -> Vec<u64>;

    /// Whether `plan` lists its brackets (it runs several).
    fn shows_brackets(&self) -> bool;

    /// The search in words, as `plan` shows it before its ranking: the method and its
    /// passes.
    fn describe(&self, search: &SearchSpec) -> String;

    /// What `plan` (and `run`, before starting) warns of a search of `sweep` too small for
    /// this method to do its work, besides the rungs' own warnings.
    fn warnings(&self, sweep: &Sweep) -> Vec<String>;
}

impl std::fmt::Debug for dyn SearchMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq for dyn SearchMethod {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for dyn SearchMethod {}

/// The method spelled `name` in specs.
pub fn method(name: &str) -> Option<Method> {
    METHODS.iter().copied().find(|m| m.name() == name)
}

/// One bracket: the rung it starts at and its configurations (indices, spec order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bracket {
    /// The first rung it runs.
    pub start: usize,
    /// Its configurations at that rung.
    pub configurations: Vec<usize>,
}

/// What a search ranks configurations by (lower is better), mean over replicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// The final regret (`regret` column).
    Regret,
    /// The area under the regret curve (`regret_auc` column).
    RegretAuc,
}

/// Whether the spec's `[search]` asks for a method whose configurations are points of the
/// solvers' space (read before the solvers, which then take no `samples`).
pub(crate) fn proposes(root: &[Entry]) -> bool {
    let Some(Leaf::Table(entries)) = root.iter().find(|e| e.key == "search").map(|e| &e.node.value) else {
        return false;
    };
    let models = |name: &str| method(name).is_some_and(|m| m.models());
    entries.iter().any(|e| e.key == "method" && matches!(&e.node.value, Leaf::Str(m) if models(m)))
}

impl Metric {
    /// The spelling in specs, which is also the column it reads.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Regret => "regret",
            Metric::RegretAuc => "regret_auc",
        }
    }
}

/// A validated `[search]` table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchSpec {
    /// The method: how it reads, cuts and proposes.
    pub method: Method,
    /// The cut factor: the best `1/eta` of a rung go on.
    pub eta: u64,
    /// The lowest budget a rung may have.
    pub min_budget: u64,
    /// The budget of the last rung.
    pub max_budget: u64,
    /// The ranking metric.
    pub metric: Metric,
    /// The evaluation opponent it is judged on.
    pub opponent: EvalOpponent,
    /// The evaluated seat it is judged on (`None`: the mean over the job's seats).
    pub seat: Option<Seat>,
    /// The budget parameter (`episodes` or `iterations`; empty for a method that runs in
    /// rounds, which has none).
    pub parameter: &'static str,
    /// The configurations tried per solver (in all with `per = "sweep"`) by a method that
    /// searches a space (BOHB: its brackets' in all; 0 for halving and Hyperband).
    pub trials: u64,
    /// The configurations proposed per round after the first (TPE; 0 for a method that
    /// proposes none).
    pub batch: u64,
    /// The Sobol points drawn when the spec is read: round 0's, or those BOHB's brackets
    /// take while no model can propose.
    pub startup: u64,
    /// One search over the union of the solvers (`per = "sweep"`: `trials` and `startup`
    /// in all, shared out among the solvers; for TPE's proposals the solver is a
    /// categorical) instead of one per solver.
    pub per_sweep: bool,
}

/// The parameters a search can use as its budget, in order of preference.
pub const BUDGET_PARAMETERS: [&str; 2] = ["episodes", "iterations"];

/// Every key `[search]` may have (each method takes some of them).
const KEYS: [&str; 11] =
    ["method", "eta", "min_budget", "max_budget", "metric", "opponent", "seat", "trials", "batch", "startup", "per"];

/// The keys only the rung methods take, and those only TPE takes.
const RUNG_KEYS: [&str; 3] = ["eta", "min_budget", "max_budget"];
const TPE_KEYS: [&str; 4] = ["trials", "batch", "startup", "per"];

/// The most trials one search may have.
pub const MAX_TRIALS: u64 = 100_000;

impl SearchSpec {
    /// The rung budgets, increasing; the last is `max_budget` (a method that runs in
    /// rounds: no rungs, an empty list).
    pub fn budgets(&self) -> Vec<u64> {
        self.method.budgets(self)
    }

    /// The configurations of each round when no proposal repeats (none for the rung
    /// methods): per solver, or in all with `per = "sweep"`.
    pub fn round_sizes(&self) -> Vec<u64> {
        self.method.round_sizes(self)
    }

    /// The rounds when no proposal repeats (0 for the rung methods).
    pub fn rounds(&self) -> u64 {
        self.round_sizes().len() as u64
    }

    /// The brackets over `count` configurations (spec order), empty ones left out.
    pub fn brackets(&self, count: usize) -> Vec<Bracket> {
        self.method.brackets(self, count)
    }

    /// Hyperband's nominal bracket sizes, by first rung: the bracket of `s` cuts (`s =
    /// last rung - first rung`) starts with `ceil((last + 1) * eta^s / (s + 1))`
    /// configurations.
    pub fn nominal_brackets(&self) -> Vec<u64> {
        let last = self.budgets().len().saturating_sub(1);
        let eta = self.eta as f64;
        (0..=last).rev().map(|s| ((last + 1) as f64 * eta.powi(s as i32) / (s + 1) as f64).ceil() as u64).collect()
    }

    /// The resolved form (part of the spec hash).
    pub fn to_json(&self) -> serde_json::Value {
        self.method.to_json(self)
    }
}

/// The budget parameter of a kind, if it has one.
pub fn budget_parameter(kind: Kind) -> Option<&'static str> {
    BUDGET_PARAMETERS.iter().copied().find(|name| kind.param(name).is_some())
}

/// What `[search]` holds, as read so far.
struct Fields {
    method: Option<Method>,
    eta: u64,
    min_budget: Option<u64>,
    max_budget: Option<u64>,
    metric: Metric,
    opponent: Option<EvalOpponent>,
    seat: Option<Seat>,
    trials: Option<u64>,
    batch: u64,
    startup: Option<u64>,
    per_sweep: bool,
}

/// A `[search]` table whose keys' values are read, for its method to finish
/// ([`SearchMethod::read`]) with the helpers here.
pub struct Reading<'r, 'a> {
    report: &'r mut Report<'a>,
    /// The `search` entry, and its keys as written.
    entry: &'r Entry,
    entries: &'r [Entry],
    fields: Fields,
    method: Method,
    opponents: &'r [EvalOpponent],
    checkpoints: u32,
    /// The solvers, and their tables as written.
    drafts: &'r [Draft<'r>],
    tables: &'r [&'r [Entry]],
}

impl Reading<'_, '_> {
    /// Whether the key `key` is written (a key given with a bad value has its own problem
    /// already).
    fn given(&self, key: &str) -> bool {
        self.entries.iter().any(|e| e.key == key)
    }

    /// A problem of the whole table.
    fn problem(&mut self, message: String) {
        self.report.entry("search", self.entry, message);
    }

    /// A problem with the first of `keys` that is written, if one is: `message` says why
    /// the method does not take it. Whether there was one.
    fn refuse(&mut self, keys: &[&str], message: String) -> bool {
        let Some(e) = self.entries.iter().find(|e| keys.contains(&e.key.as_str())) else { return false };
        self.report.entry(&format!("search.{}", e.key), e, message);
        true
    }

    /// The opponent it is judged on.
    fn opponent(&self) -> EvalOpponent {
        self.fields.opponent.unwrap_or(self.opponents[0])
    }
}

/// Reads `[search]` and checks it against the solvers (`tables` are the `[[solver]]`
/// tables as written, to see which keys each sets).
pub(crate) fn read(
    report: &mut Report,
    entry: &Entry,
    opponents: &[EvalOpponent],
    checkpoints: u32,
    drafts: &[Draft],
    tables: &[&[Entry]],
) -> Option<SearchSpec> {
    let Leaf::Table(entries) = &entry.node.value else {
        let message = format!(
            "has the wrong type ({}): search is a table; write [search] and its keys {}",
            entry.node.value.type_name(),
            KEYS.join(", ")
        );
        report.entry("search", entry, message);
        return None;
    };
    let clean = report.is_clean();
    let fields = read_fields(report, entries, opponents);
    let Some(method) = fields.method else {
        if !entries.iter().any(|e| e.key == "method") {
            let names: Vec<String> = METHODS.iter().map(|m| format!("\"{}\"", m.name())).collect();
            let (last, others) = names.split_last().expect("one method at least");
            let message = format!("has no method: add method = {} or {last}", others.join(", "));
            report.entry("search", entry, message);
        }
        return None;
    };
    let mut table = Reading { report, entry, entries, fields, method, opponents, checkpoints, drafts, tables };
    method.read(&mut table).filter(|_| clean && table.report.is_clean())
}

/// Every key's value of `entries`, each checked on its own.
fn read_fields(report: &mut Report, entries: &[Entry], opponents: &[EvalOpponent]) -> Fields {
    let mut fields = Fields {
        method: None,
        eta: 3,
        min_budget: None,
        max_budget: None,
        metric: Metric::Regret,
        opponent: None,
        seat: None,
        trials: None,
        batch: 8,
        startup: None,
        per_sweep: false,
    };
    for e in entries {
        read_key(report, &mut fields, e, opponents);
    }
    fields
}

/// The rest of a `[search]` of a method that runs rounds at the solvers' own budgets: no
/// rung keys, `trials` given, and every solver has something to search (a sampled axis, or
/// an axis that lists several values). `batch`, `startup` (default `min(trials, 10)`) and
/// `per` as given.
fn read_trials(table: &mut Reading) -> Option<SearchSpec> {
    let name = table.method.name();
    let rung_key = format!(
        "is a key of the rung methods (halving, hyperband), not of {name}: remove it; a {name} trial runs at the \
         solver's own budget"
    );
    if table.refuse(&RUNG_KEYS, rung_key) {
        return None;
    }
    let Some(trials) = table.fields.trials else {
        if !table.given("trials") {
            table.problem(format!(
                "has method = \"{name}\" but no trials: add trials = N, the configurations to try per solver"
            ));
        }
        return None;
    };
    check_searched(table.report, table.drafts, name);
    Some(SearchSpec {
        method: table.method,
        eta: 0,
        min_budget: 0,
        max_budget: 0,
        metric: table.fields.metric,
        opponent: table.opponent(),
        seat: table.fields.seat,
        parameter: "",
        trials,
        batch: table.fields.batch,
        startup: table.fields.startup.unwrap_or(trials.min(10)).min(trials),
        per_sweep: table.fields.per_sweep,
    })
}

fn read_key(report: &mut Report, fields: &mut Fields, e: &Entry, opponents: &[EvalOpponent]) {
    let key = format!("search.{}", e.key);
    let text = |report: &mut Report, allowed: &[&str]| one_of(report, &key, e, allowed);
    match e.key.as_str() {
        "method" => {
            let names: Vec<&str> = METHODS.iter().map(|m| m.name()).collect();
            fields.method = text(report, &names).and_then(|m| method(&m));
        }
        "metric" => {
            let metric = text(report, &["regret", "regret_auc"]);
            fields.metric = if metric.as_deref() == Some("regret_auc") { Metric::RegretAuc } else { Metric::Regret };
        }
        "eta" => {
            let rule = "eta must be a whole number from 2 to 1000000 (the best 1/eta of a rung go on)";
            fields.eta = whole(report, &key, e, 2, 1_000_000, rule).unwrap_or(3);
        }
        "min_budget" | "max_budget" => {
            let rule = format!("{} must be a whole number >= 1 (episodes or iterations of a rung)", e.key);
            let value = whole(report, &key, e, 1, i64::MAX as u64, &rule);
            if e.key == "min_budget" { fields.min_budget = value } else { fields.max_budget = value }
        }
        "trials" => {
            let rule =
                format!("trials must be a whole number from 1 to {MAX_TRIALS} (configurations tried per solver)");
            fields.trials = whole(report, &key, e, 1, MAX_TRIALS, &rule);
        }
        "batch" => {
            let rule = "batch must be a whole number from 1 to 1000 (configurations proposed per round)";
            fields.batch = whole(report, &key, e, 1, 1000, rule).unwrap_or(8);
        }
        "per" => fields.per_sweep = text(report, &["solver", "sweep"]).is_some_and(|p| p == "sweep"),
        "startup" => {
            let rule = format!("startup must be a whole number from 1 to {MAX_TRIALS} (Sobol points of round 0)");
            fields.startup = whole(report, &key, e, 1, MAX_TRIALS, &rule);
        }
        "opponent" => {
            let names: Vec<&str> = opponents.iter().map(|o| o.name()).collect();
            fields.opponent = text(report, &names).and_then(|n| n.parse().ok());
        }
        "seat" => fields.seat = text(report, Seat::NAMES).and_then(|n| n.parse().ok()),
        other => {
            let message = format!("is not a known key of [search] ({other}): allowed are {}", KEYS.join(", "));
            report.entry(&key, e, message);
        }
    }
}

/// Every solver takes the same budget parameter, does not set it, and accepts
/// `max_budget`; returns the parameter.
fn check_solvers(report: &mut Report, drafts: &[Draft], tables: &[&[Entry]], max: u64) -> Option<&'static str> {
    let mut found: Option<&'static str> = None;
    for (draft, table) in drafts.iter().zip(tables) {
        let Some(kind) = draft.kind else { continue };
        let key = format!("solver[{}]", draft.number);
        let Some(parameter) = budget_parameter(kind) else {
            let message = format!(
                "is a {} solver, which has no budget parameter ({}): a [search] takes learners or MCTS only",
                kind.name(),
                BUDGET_PARAMETERS.join(" or ")
            );
            report.at(draft.span.as_ref(), Some(&key), None, message);
            continue;
        };
        match found {
            Some(other) if other != parameter => {
                let message = format!(
                    "budgets {parameter} where an earlier solver budgets {other}: one [search] ranks one budget"
                );
                report.at(draft.span.as_ref(), Some(&key), None, message);
            }
            _ => found = Some(parameter),
        }
        if let Some(given) = table.iter().find(|e| e.key == parameter) {
            let message = format!(
                "is set by [search] (rungs from min_budget to max_budget): remove {parameter} from this solver"
            );
            report.entry(&format!("{key}.{parameter}"), given, message);
        }
        if let Some(Ty::Count { max: most }) = kind.param(parameter).map(|p| p.ty) {
            if max > most {
                report.file(Some("search.max_budget"), format!("is above the most {parameter} allowed, {most}"));
            }
        }
    }
    found
}

/// Every solver of a search over a space has something to search, in at most as many axes
/// as Sobol points cover; `method` is the method messages name.
fn check_searched(report: &mut Report, drafts: &[Draft], method: &str) {
    for draft in drafts {
        let Some(grid) = &draft.grid else { continue };
        let dimensions = grid.searched_axes();
        if dimensions == 0 {
            let message = "has nothing for [search] to search: sample an axis ({ uniform = [low, high] }, ..) \
                           or list several values of one";
            report.at(draft.span.as_ref(), Some(&format!("solver[{}]", draft.number)), None, message.into());
        } else if dimensions > crate::stats::sobol::MAX_DIMENSIONS {
            let message = format!(
                "searches {dimensions} axes; [search] method = \"{method}\" starts from Sobol points, which cover \
                 at most {}",
                crate::stats::sobol::MAX_DIMENSIONS
            );
            report.at(draft.span.as_ref(), Some(&format!("solver[{}]", draft.number)), None, message);
        }
    }
}
