//! The columns of the result files: `results.csv`'s header, derived from the parameter
//! declarations of every kind ([`crate::kinds::param`]) and the non-parameter fields
//! declared here, each with the file version that introduced it (later versions' columns
//! come at the end); the parameter columns readers name ([`ParamColumn`]); `curves.csv`'s
//! columns ([`CurveField`]); and finding a column by name. Every column a reader or a
//! writer names is named here (and read through [`crate::report::result_row`]). It sits below
//! [`crate::spec`] (which checks a command solver's parameter names against it) and
//! [`crate::report`] (which writes and reads the files), so that neither imports the other
//! for it.

use std::sync::LazyLock;

use crate::kinds::{Kind, parameter_names};

/// Declares the [`Field`]s: the columns of `results.csv` that are not parameters.
macro_rules! fields {
    ($($variant:ident = ($name:literal, $since:literal, $number:literal)),+ $(,)?) => {
        /// A column of `results.csv` that is not a parameter. Naming a column by its
        /// variant, not by a string, makes a misspelt column a compile error.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[allow(missing_docs)]
        pub enum Field {
            $($variant),+
        }

        /// The fields in order, with the results-file version that introduced each.
        /// `job_id`..`seed` open the row; then come the version-1 parameters, then the
        /// version-1 fields from `eval_opponent` on; columns of later versions (parameters
        /// first, then fields) are appended at the end, in version order, so an older
        /// file's header is always a prefix of a newer one's.
        pub const FIELDS: &[(&str, u32)] = &[$(($name, $since)),+];

        impl Field {
            /// Every field, in order.
            pub const ALL: &[Field] = &[$(Field::$variant),+];

            /// Whether the column holds numbers (else names or text).
            pub const fn numeric(self) -> bool {
                match self {
                    $(Field::$variant => $number),+
                }
            }

            /// The column's name.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Field::$variant => $name),+
                }
            }
        }
    };
}

fields! {
    JobId = ("job_id", 1, false),
    Solver = ("solver", 1, false),
    Replicate = ("replicate", 1, true),
    Seed = ("seed", 1, true),
    EvalOpponent = ("eval_opponent", 1, false),
    Value = ("value", 1, true),
    OptimalValue = ("optimal_value", 1, true),
    Regret = ("regret", 1, true),
    PWin = ("p_win", 1, true),
    PDraw = ("p_draw", 1, true),
    PLoss = ("p_loss", 1, true),
    Games = ("games", 1, true),
    Wins = ("wins", 1, true),
    Draws = ("draws", 1, true),
    Losses = ("losses", 1, true),
    States = ("states", 1, true),
    Status = ("status", 1, false),
    Error = ("error", 1, false),
    TrainMs = ("train_ms", 1, true),
    EvalMs = ("eval_ms", 1, true),
    Label = ("label", 2, false),
    RegretAuc = ("regret_auc", 2, true),
    SolvedAt = ("solved_at", 2, true),
    QError = ("q_error", 2, true),
    Rung = ("rung", 2, true),
    Evaluation = ("evaluation", 3, false),
    ValueSe = ("value_se", 3, true),
    Split = ("split", 4, false),
    Metrics = ("metrics", 5, false),
    PolicyHash = ("policy_hash", 5, false),
    Trial = ("trial", 7, true),
    Round = ("round", 7, true),
    Accuracy = ("accuracy", 8, true),
}

impl Field {
    /// Its position in today's `results.csv` (looked up once for every field).
    pub fn column(self) -> usize {
        static AT: LazyLock<Vec<usize>> = LazyLock::new(|| Field::ALL.iter().map(|f| column(f.name())).collect());
        AT[self as usize]
    }
}

/// The parameter columns that readers name. A parameter's column is declared with the
/// parameter ([`crate::kinds::param`]); these are the ones a reader needs by name (a
/// configuration's seat, board, budget, training opponent, a command solver's `params`),
/// so that no reader spells them. A test checks each against the declarations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamColumn {
    /// The agent's seat.
    Seat,
    /// The opponent trained or solved against (`self` for self-play).
    Opponent,
    /// Training games per job.
    Episodes,
    /// MCTS iterations per move.
    Iterations,
    /// The board (version 3).
    Game,
    /// A command solver's own parameters as `name=value` text (version 5).
    Params,
}

impl ParamColumn {
    /// Every named parameter column.
    pub const ALL: &[ParamColumn] = &[
        ParamColumn::Seat,
        ParamColumn::Opponent,
        ParamColumn::Episodes,
        ParamColumn::Iterations,
        ParamColumn::Game,
        ParamColumn::Params,
    ];

    /// The column's name (the parameter's).
    pub const fn name(self) -> &'static str {
        match self {
            ParamColumn::Seat => "seat",
            ParamColumn::Opponent => "opponent",
            ParamColumn::Episodes => "episodes",
            ParamColumn::Iterations => "iterations",
            ParamColumn::Game => "game",
            ParamColumn::Params => "params",
        }
    }

    /// Its position in today's `results.csv` (looked up once for every one).
    pub fn column(self) -> usize {
        static AT: LazyLock<Vec<usize>> = LazyLock::new(|| ParamColumn::ALL.iter().map(|p| column(p.name())).collect());
        AT[self as usize]
    }
}

/// How many fields open the row, before the version-1 parameters.
const HEAD: usize = 4;

/// The columns of `results.csv`, in order, derived from [`FIELDS`] and the parameter
/// declarations of every kind (see [`crate::kinds::param`]).
pub static RESULT_COLUMNS: LazyLock<Vec<&'static str>> = LazyLock::new(result_columns);

/// The results-file version a parameter's column belongs to (the earliest declaration).
fn param_since(name: &str) -> u32 {
    Kind::ALL.iter().filter_map(|k| k.param(name)).map(|p| p.since).min().expect("a declared parameter")
}

fn result_columns() -> Vec<&'static str> {
    let params = parameter_names();
    let newest = FIELDS.iter().map(|f| f.1).chain(params.iter().map(|p| param_since(p))).max().unwrap_or(1);
    let mut columns: Vec<&'static str> = FIELDS[..HEAD].iter().map(|f| f.0).collect();
    for version in 1..=newest {
        columns.extend(params.iter().filter(|p| param_since(p) == version));
        columns.extend(FIELDS[HEAD..].iter().filter(|f| f.1 == version).map(|f| f.0));
    }
    columns
}

/// The parameter columns of `results.csv`, in file order.
pub fn param_columns() -> Vec<&'static str> {
    let params = parameter_names();
    RESULT_COLUMNS.iter().copied().filter(|c| params.contains(c)).collect()
}

/// A column of `curves.csv`, in file order: one row per (checkpoint, seat, evaluation
/// opponent) of a learner's job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum CurveField {
    JobId,
    Episode,
    Seat,
    EvalOpponent,
    Value,
    Regret,
    PWin,
    PDraw,
    PLoss,
    Epsilon,
    Alpha,
}

impl CurveField {
    /// Every column, in file order.
    pub const ALL: [CurveField; 11] = [
        CurveField::JobId,
        CurveField::Episode,
        CurveField::Seat,
        CurveField::EvalOpponent,
        CurveField::Value,
        CurveField::Regret,
        CurveField::PWin,
        CurveField::PDraw,
        CurveField::PLoss,
        CurveField::Epsilon,
        CurveField::Alpha,
    ];

    /// The column's name.
    pub const fn name(self) -> &'static str {
        match self {
            CurveField::JobId => Field::JobId.name(),
            CurveField::Episode => "episode",
            CurveField::Seat => ParamColumn::Seat.name(),
            CurveField::EvalOpponent => Field::EvalOpponent.name(),
            CurveField::Value => Field::Value.name(),
            CurveField::Regret => Field::Regret.name(),
            CurveField::PWin => Field::PWin.name(),
            CurveField::PDraw => Field::PDraw.name(),
            CurveField::PLoss => Field::PLoss.name(),
            CurveField::Epsilon => "epsilon",
            CurveField::Alpha => "alpha",
        }
    }

    /// Its position in `curves.csv`.
    pub const fn column(self) -> usize {
        self as usize
    }
}

/// The columns of `curves.csv`, in order.
pub const CURVE_COLUMNS: [&str; CurveField::ALL.len()] = {
    let mut names = [""; CurveField::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = CurveField::ALL[i].name();
        i += 1;
    }
    names
};

/// The columns that hold timings: the only ones that may differ between two runs.
pub const TIMING_COLUMNS: [&str; 2] = [Field::TrainMs.name(), Field::EvalMs.name()];

/// Position of a results column of today's layout (a bug if there is none: names come from
/// [`FIELDS`] and the parameter declarations).
pub fn column(name: &str) -> usize {
    RESULT_COLUMNS.iter().position(|&c| c == name).unwrap_or_else(|| panic!("no column {name}"))
}

/// A setting as configurations are named: `column=value`, but a command solver's
/// `params` cell (already `name=value ..`) as it is.
pub fn setting(column: &str, value: &str) -> String {
    if column == ParamColumn::Params.name() { value.to_string() } else { format!("{column}={value}") }
}

/// Whether column `k` of a configuration (`columns` names its `key`'s cells) is a value the
/// tool derived rather than one the user set: a schedule's `X_decay` where its `X_min_at` is
/// set (the decay that ran, kept in results.csv; the spec said `X_min_at`).
pub fn derived(columns: &[&str], key: &[String], k: usize) -> bool {
    columns[k].strip_suffix("_decay").is_some_and(|schedule| {
        let at = format!("{schedule}_min_at");
        columns.iter().position(|c| *c == at).is_some_and(|i| !key[i].is_empty())
    })
}

/// A row of either file: one string per column.
pub type Record = Vec<String>;

/// The columns that define a configuration by default: the solver, every parameter
/// column, and the evaluation opponent.
pub fn config_columns() -> Vec<&'static str> {
    let mut v = vec![Field::Solver.name()];
    v.extend(param_columns());
    v.push(Field::EvalOpponent.name());
    v
}

/// The columns every reader of aggregates needs; the others a file of an older version
/// lacks read as empty (a missing `train_ms`, say, gives an empty mean).
pub const NEEDED_COLUMNS: [&str; 4] =
    [Field::JobId.name(), Field::Solver.name(), Field::Status.name(), Field::Regret.name()];

/// The newest results-file version whose parameter columns count in a group's bootstrap
/// seed even when empty (see [`seed_text`]).
const SEEDED_UP_TO: u32 = 5;

/// The text a group's bootstrap generator is seeded from: its `key` (the values of
/// `columns`) joined by commas, leaving out the empty cells of parameter columns newer
/// than version 5. A parameter added to the tool is empty in the rows of every other kind;
/// left out, it moves no group's seed, so the intervals a file had stay the same (as job
/// ids stay the same, [`crate::kinds::Param::in_key`]).
pub fn seed_text(columns: &[&str], key: &[String]) -> String {
    static NEWER: LazyLock<Vec<&'static str>> =
        LazyLock::new(|| parameter_names().into_iter().filter(|p| param_since(p) > SEEDED_UP_TO).collect());
    let kept = columns.iter().zip(key).filter(|(c, v)| !(v.is_empty() && NEWER.contains(c)));
    kept.map(|(_, v)| v.as_str()).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    /// The results header of version 1, as the contract states it: the derived layout
    /// must start with it, column for column.
    const VERSION_1: [&str; 36] = [
        "job_id",
        "solver",
        "replicate",
        "seed",
        "seat",
        "opponent",
        "episodes",
        "alpha",
        "alpha_decay",
        "alpha_min",
        "gamma",
        "epsilon",
        "epsilon_decay",
        "epsilon_min",
        "q_init",
        "symmetry",
        "iterations",
        "uct_c",
        "opponent_model",
        "final_move",
        "eval_opponent",
        "value",
        "optimal_value",
        "regret",
        "p_win",
        "p_draw",
        "p_loss",
        "games",
        "wins",
        "draws",
        "losses",
        "states",
        "status",
        "error",
        "train_ms",
        "eval_ms",
    ];

    #[test]
    fn an_empty_newer_parameter_leaves_a_groups_seed_text_alone() {
        let columns = ["solver", "alpha", "lambda", "eval_opponent"];
        let key = |l: &str| ["q-learning", "0.5", l, "random"].map(String::from).to_vec();
        assert_eq!(super::seed_text(&columns, &key("")), "q-learning,0.5,random");
        assert_eq!(super::seed_text(&columns, &key("0.8")), "q-learning,0.5,0.8,random");
        // An empty parameter of an older version still counts, as it always did.
        let older = ["solver", "iterations", "eval_opponent"];
        assert_eq!(super::seed_text(&older, &["q-learning", "", "random"].map(String::from)), "q-learning,,random");
    }

    #[test]
    fn the_derived_header_starts_with_version_1() {
        assert_eq!(super::RESULT_COLUMNS[..VERSION_1.len()], VERSION_1);
    }

    #[test]
    fn the_named_columns_are_where_their_names_say() {
        let params = crate::kinds::parameter_names();
        for &p in super::ParamColumn::ALL {
            assert!(params.contains(&p.name()), "{} is a declared parameter", p.name());
            assert_eq!(super::RESULT_COLUMNS[p.column()], p.name());
        }
        for &f in super::Field::ALL {
            assert_eq!(super::RESULT_COLUMNS[f.column()], f.name());
        }
        assert_eq!(
            super::CURVE_COLUMNS,
            [
                "job_id",
                "episode",
                "seat",
                "eval_opponent",
                "value",
                "regret",
                "p_win",
                "p_draw",
                "p_loss",
                "epsilon",
                "alpha"
            ]
        );
        for f in super::CurveField::ALL {
            assert_eq!(super::CURVE_COLUMNS[f.column()], f.name());
        }
    }

    #[test]
    fn every_column_is_named_once() {
        let mut names = super::RESULT_COLUMNS.clone();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
    }
}
