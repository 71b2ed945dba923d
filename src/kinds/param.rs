//! Parameters, declared once: each [`Param`] holds its name (the TOML key and the CSV
//! column), its type and allowed range, its default, its meaning (for messages and help)
//! and the results-file version that introduced its column. The spec reader, its error
//! messages, the CSV header, the canonical job key, `sweep plan` and `sweep columns`
//! all read these declarations; nothing else lists parameters.
//!
//! The catalogue below declares every parameter that any kind takes; a kind lists the
//! ones it takes (see `kinds/*.rs`). Two declarations may share a name when the kinds
//! that take them accept different values (`opponent`: fixed opponents for the exact
//! solvers, and `self` too for learners); they share one column.

use crate::game::Game;
use crate::mdp::{Opponent, Seat};
use crate::solvers::params::fmt_f64;
use crate::solvers::{ExplorationRule, FinalMove, MctsParams, OpponentModel, QParams, StepRule, TrainOpponent};

/// What values a parameter takes.
#[derive(Clone, Copy, Debug)]
pub enum Ty {
    /// A finite number within the bounds.
    Real(Bounds),
    /// A whole number from 1 to `max`.
    Count {
        /// The largest value allowed.
        max: u64,
    },
    /// `true` or `false`.
    Flag,
    /// One of these names.
    Choice(&'static [&'static str]),
    /// A game, `"<rows>x<cols>k<k>"` or `"<rows>x<cols>g<k>"` (see [`Game`]), of at most
    /// `max_cells` cells.
    Game {
        /// The most cells the kind plays on.
        max_cells: usize,
        /// Whether the kind also plays boards too big to enumerate, by search
        /// ([`Game::searched`]: Connect Four, `6x7g4`).
        searched: bool,
    },
}

/// An interval of the reals; an infinite end means unbounded on that side.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// Lower end.
    pub lo: f64,
    /// Whether the lower end is excluded.
    pub lo_open: bool,
    /// Upper end.
    pub hi: f64,
    /// Whether the upper end is excluded.
    pub hi_open: bool,
}

/// One parameter.
#[derive(Debug)]
pub struct Param {
    /// The TOML key and the CSV column.
    pub name: &'static str,
    /// Its values.
    pub ty: Ty,
    /// Its value when a spec leaves it out.
    pub default: Val,
    /// What it means, for messages and `sweep columns`.
    pub meaning: &'static str,
    /// The parameter this one is the floor of (`alpha_min` of `alpha`): the spec checks
    /// `floor <= main` at every grid point.
    pub floor_of: Option<&'static str>,
    /// The results-file version that introduced its column (1: the first). Columns of
    /// version 1 stand between `seed` and `eval_opponent`; later ones are appended at the
    /// end of the row, in version order.
    pub since: u32,
    /// Whether the default stands for "not set" (a value outside the allowed range): the
    /// cell of a job that leaves it unset is empty.
    pub optional: bool,
}

/// One value of one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    /// A number.
    Real(f64),
    /// A whole number.
    Count(u64),
    /// A flag.
    Flag(bool),
    /// One of a choice's names.
    Name(&'static str),
    /// A game.
    Game(Game),
}

impl Val {
    /// The value as written in CSV files and job keys.
    pub fn show(self) -> String {
        match self {
            Val::Real(x) => fmt_f64(x),
            Val::Count(n) => n.to_string(),
            Val::Flag(b) => b.to_string(),
            Val::Name(s) => s.to_string(),
            Val::Game(g) => g.to_string(),
        }
    }

    /// The value in the resolved spec.
    pub fn to_json(self) -> serde_json::Value {
        match self {
            Val::Real(x) => serde_json::Value::from(x),
            Val::Count(n) => serde_json::Value::from(n),
            Val::Flag(b) => serde_json::Value::from(b),
            Val::Name(s) => serde_json::Value::from(s),
            Val::Game(g) => serde_json::Value::from(g.to_string()),
        }
    }

    /// The value as a whole number, if it is one.
    pub fn as_count(self) -> Option<u64> {
        match self {
            Val::Count(n) => Some(n),
            _ => None,
        }
    }

    /// A number that is equal for equal values of one parameter (`0.0` and `-0.0` are equal).
    pub fn identity(self) -> u64 {
        match self {
            Val::Real(x) => (x + 0.0).to_bits(),
            Val::Count(n) => n,
            Val::Flag(b) => u64::from(b),
            Val::Name(s) => crate::seed::fnv1a(s.as_bytes()),
            Val::Game(g) => crate::seed::fnv1a(g.to_string().as_bytes()),
        }
    }
}

impl Ty {
    /// The names of a choice.
    pub fn choices(self) -> Option<&'static [&'static str]> {
        match self {
            Ty::Choice(names) => Some(names),
            _ => None,
        }
    }
}

impl Param {
    /// Whether `value` is part of a job's canonical key. A parameter of the first version
    /// always is; one added later is left out at its default, so that every job of an
    /// older spec keeps its id.
    pub fn in_key(&self, value: Val) -> bool {
        self.since == 1 || value.identity() != self.default.identity()
    }

    /// `value` as written in a results cell: empty for an optional parameter left unset.
    pub fn cell(&self, value: Val) -> String {
        match value {
            _ if self.optional && value.identity() == self.default.identity() => String::new(),
            // A saved policy: its readable name, not the key's full hash.
            Val::Name(s) if s.starts_with("policy:") => Opponent::from_name(s).map_or(s, Opponent::name).to_string(),
            _ => value.show(),
        }
    }

    /// The name of `value` if this parameter takes it: the choice's own spelling.
    pub fn choose(&self, value: &str) -> Option<Val> {
        match self.ty {
            Ty::Choice(names) => names.iter().find(|&&n| n == value).map(|&n| Val::Name(n)),
            _ => None,
        }
    }

    /// The game `value` names if this parameter takes it, else why not (a clause that
    /// follows "is not allowed: ").
    pub fn game(&self, value: &str) -> Result<Val, String> {
        let Ty::Game { max_cells, searched } = self.ty else {
            return Err(format!("{} does not take a game", self.name));
        };
        let Ok(game) = value.parse::<Game>() else {
            return match Game::parse_any(value) {
                Some(big) if searched => Ok(Val::Game(big)),
                Some(big) => Err(format!(
                    "{big} is too big to enumerate, and this solver learns or solves over every position; mcts and \
                     command solvers play it, scored by search ({SEARCHED_BOARDS}); {BEYOND_ENUMERATION}"
                )),
                None => Err(format!("a game is {}", crate::game::rules::allowed(crate::game::rules::MAX_CELLS))),
            };
        };
        if game.cells() > max_cells {
            return Err(format!("{game} has {} cells, more than this solver plays ({})", game.cells(), self.meaning));
        }
        Ok(Val::Game(game))
    }
}

/// One grid point's values, one per parameter of a kind, read by declaration.
pub struct Values<'a> {
    params: &'static [&'static Param],
    values: &'a [Val],
}

impl<'a> Values<'a> {
    /// The values of `params`, in their order.
    pub fn new(params: &'static [&'static Param], values: &'a [Val]) -> Values<'a> {
        assert_eq!(params.len(), values.len(), "one value per parameter");
        Values { params, values }
    }

    /// The value of `param` (a bug if the kind does not take it).
    pub fn get(&self, param: &Param) -> Val {
        let i = self.params.iter().position(|p| std::ptr::eq(*p, param));
        self.values[i.unwrap_or_else(|| panic!("{} is not a parameter of this kind", param.name))]
    }

    /// A number.
    pub fn real(&self, param: &Param) -> f64 {
        match self.get(param) {
            Val::Real(x) => x,
            other => unreachable!("{}: expected a number, got {other:?}", param.name),
        }
    }

    /// A whole number.
    pub fn count(&self, param: &Param) -> u64 {
        match self.get(param) {
            Val::Count(n) => n,
            other => unreachable!("{}: expected a whole number, got {other:?}", param.name),
        }
    }

    /// A flag.
    pub fn flag(&self, param: &Param) -> bool {
        match self.get(param) {
            Val::Flag(b) => b,
            other => unreachable!("{}: expected a flag, got {other:?}", param.name),
        }
    }

    /// A game.
    pub fn game(&self, param: &Param) -> Game {
        match self.get(param) {
            Val::Game(g) => g,
            other => unreachable!("{}: expected a game, got {other:?}", param.name),
        }
    }

    /// A choice, parsed into its type.
    pub fn choice<T: std::str::FromStr>(&self, param: &Param) -> T {
        match self.get(param) {
            Val::Name(s) => s.parse().unwrap_or_else(|_| unreachable!("{}: {s} was validated", param.name)),
            other => unreachable!("{}: expected a name, got {other:?}", param.name),
        }
    }
}

const UNIT_OPEN: Bounds = Bounds { lo: 0.0, lo_open: true, hi: 1.0, hi_open: false };
const UNIT: Bounds = Bounds { lo: 0.0, lo_open: false, hi: 1.0, hi_open: false };
const ANY: Bounds = Bounds { lo: f64::NEG_INFINITY, lo_open: true, hi: f64::INFINITY, hi_open: true };
const NON_NEGATIVE: Bounds = Bounds { lo: 0.0, lo_open: false, hi: f64::INFINITY, hi_open: true };

const fn param(name: &'static str, ty: Ty, default: Val, meaning: &'static str) -> Param {
    Param { name, ty, default, meaning, floor_of: None, since: 1, optional: false }
}

const fn real(name: &'static str, bounds: Bounds, default: f64, meaning: &'static str) -> Param {
    param(name, Ty::Real(bounds), Val::Real(default), meaning)
}

const Q: QParams = QParams::DEFAULT;
const M: MctsParams = MctsParams::DEFAULT;

/// The agent's seat.
pub static SEAT: Param = param("seat", Ty::Choice(Seat::NAMES), Val::Name("x"), "the agent's seat");
/// The opponent an exact solver solves against.
pub static OPPONENT: Param = param(
    "opponent",
    Ty::Choice(Opponent::NAMES),
    Val::Name("random"),
    "the opponent trained or solved against (or a saved policy: { policy = \"file.csv\" })",
);
/// The opponent a learner trains against, or `self`.
pub static TRAIN_OPPONENT: Param = param(
    "opponent",
    Ty::Choice(TrainOpponent::NAMES),
    Val::Name("random"),
    "the opponent trained or solved against (or a saved policy: { policy = \"file.csv\" })",
);
/// Training games per job.
pub static EPISODES: Param =
    param("episodes", Ty::Count { max: i64::MAX as u64 }, Val::Count(Q.episodes), "training games per job");
/// The initial step size.
pub static ALPHA: Param = real("alpha", UNIT_OPEN, Q.alpha, "the initial step size");
/// Alpha's decay.
pub static ALPHA_DECAY: Param = real(
    "alpha_decay",
    UNIT_OPEN,
    Q.alpha_decay,
    "multiplied into alpha after every episode; 1 keeps it constant (derived when alpha_min_at is set)",
);
/// Alpha's floor.
pub static ALPHA_MIN: Param =
    Param { floor_of: Some("alpha"), ..real("alpha_min", UNIT, Q.alpha_min, "the floor of alpha") };
/// The discount.
pub static GAMMA: Param = real("gamma", UNIT, Q.gamma, "the discount");
/// The initial exploration rate.
pub static EPSILON: Param = real("epsilon", UNIT, Q.epsilon, "the initial exploration rate");
/// Epsilon's decay.
pub static EPSILON_DECAY: Param = real(
    "epsilon_decay",
    UNIT_OPEN,
    Q.epsilon_decay,
    "multiplied into epsilon after every episode (derived when epsilon_min_at is set)",
);
/// Epsilon's floor.
pub static EPSILON_MIN: Param =
    Param { floor_of: Some("epsilon"), ..real("epsilon_min", UNIT, Q.epsilon_min, "the floor of epsilon") };
/// The initial table value.
pub static Q_INIT: Param = real("q_init", ANY, Q.q_init, "the initial value of every table entry");
/// Symmetry sharing.
pub static SYMMETRY: Param = param("symmetry", Ty::Flag, Val::Flag(Q.symmetry), "store states once per symmetry class");
/// How a tabular learner explores (version 2).
pub static EXPLORATION: Param = Param {
    since: 2,
    ..param(
        "exploration",
        Ty::Choice(ExplorationRule::NAMES),
        Val::Name(Q.exploration.name()),
        "how the behaviour policy explores: epsilon-greedy or softmax (temperature)",
    )
};
/// Softmax's initial temperature (version 2).
pub static TEMPERATURE: Param = Param {
    since: 2,
    ..real("temperature", NON_NEGATIVE, Q.temperature, "softmax's initial temperature; 0 plays greedily")
};
/// The temperature's decay (version 2).
pub static TEMPERATURE_DECAY: Param = Param {
    since: 2,
    ..real(
        "temperature_decay",
        UNIT_OPEN,
        Q.temperature_decay,
        "multiplied into the temperature after every episode (derived when temperature_min_at is set)",
    )
};
/// The temperature's floor (version 2).
pub static TEMPERATURE_MIN: Param = Param {
    since: 2,
    floor_of: Some("temperature"),
    ..real("temperature_min", NON_NEGATIVE, Q.temperature_min, "the floor of the temperature")
};
/// Monte Carlo control's step (version 2).
pub static STEP: Param = Param {
    since: 2,
    ..param(
        "step",
        Ty::Choice(StepRule::NAMES),
        Val::Name(StepRule::Alpha.name()),
        "monte carlo's step: alpha (with its schedule) or average (1/N, the mean of the returns)",
    )
};
/// The trace decay of a learner with eligibility traces (version 6).
pub static LAMBDA: Param = Param {
    since: 6,
    ..real(
        "lambda",
        UNIT,
        0.8,
        "the eligibility traces' decay: how much of a later TD error reaches an earlier move, per move (0: the one-step learner)",
    )
};
/// The board (version 3) of the kinds that enumerate it.
pub static GAME: Param = Param {
    since: 3,
    ..param(
        "game",
        Ty::Game { max_cells: crate::game::rules::MAX_CELLS, searched: false },
        Val::Game(Game::TIC_TAC_TOE),
        "the board: rows x columns, k in a row wins; k: any empty cell is a move, g: gravity, a move is a column",
    )
};

/// What takes a board beyond enumeration, for every message that refuses one elsewhere.
pub const BEYOND_ENUMERATION: &str = "a board too big to enumerate is taken by `sweep solve --moves` and \
     `--positions`, `sweep score`, `sweep play` (against optimal or mcts) and, in a spec, the kinds mcts and command";

/// The boards beyond enumeration that [`SEARCHED_GAME`] takes, for messages.
pub const SEARCHED_BOARDS: &str = "boards beyond 24 cells up to 8 rows and columns: gravity with columns x (rows + 1) <= 63, such as 6x7g4 \
     (Connect Four) and 7x7g4; m,n,k up to 31 cells, such as 5x5k4";

/// The board of the kinds that also play boards too big to enumerate (`mcts`, `command`):
/// the same column as [`GAME`].
pub static SEARCHED_GAME: Param = Param {
    since: 3,
    ..param(
        "game",
        Ty::Game { max_cells: crate::game::rules::MAX_CELLS, searched: true },
        Val::Game(Game::TIC_TAC_TOE),
        "the board: rows x columns, k in a row wins; k: any empty cell is a move, g: gravity, a move is a column",
    )
};
/// The fraction of the episodes at which a rate reaches its floor (version 4), unset by
/// default (0, outside the range): `decay` is then the rate's per-episode decay.
const fn min_at(name: &'static str, meaning: &'static str) -> Param {
    Param { since: 4, optional: true, ..real(name, UNIT_OPEN, 0.0, meaning) }
}

/// The fraction of the episodes at which epsilon reaches `epsilon_min` (version 4).
pub static EPSILON_MIN_AT: Param = min_at(
    "epsilon_min_at",
    "the fraction of the episodes over which epsilon decays exponentially to epsilon_min (instead of epsilon_decay)",
);
/// The fraction of the episodes at which alpha reaches `alpha_min` (version 4).
pub static ALPHA_MIN_AT: Param = min_at(
    "alpha_min_at",
    "the fraction of the episodes over which alpha decays exponentially to alpha_min (instead of alpha_decay)",
);
/// The fraction of the episodes at which the temperature reaches `temperature_min` (version 4).
pub static TEMPERATURE_MIN_AT: Param = min_at(
    "temperature_min_at",
    "the fraction of the episodes over which the temperature decays exponentially to temperature_min (instead of \
     temperature_decay)",
);
/// MCTS iterations per move.
pub static ITERATIONS: Param = param(
    "iterations",
    Ty::Count { max: u32::MAX as u64 },
    Val::Count(M.iterations as u64),
    "search iterations per move",
);
/// The UCT constant.
pub static UCT_C: Param = real("uct_c", NON_NEGATIVE, M.uct_c, "the UCT exploration constant");
/// How MCTS models the opponent.
pub static OPPONENT_MODEL: Param = param(
    "opponent_model",
    Ty::Choice(OpponentModel::NAMES),
    Val::Name(M.opponent_model.name()),
    "how the search models the opponent",
);
/// Which root move MCTS plays.
pub static FINAL_MOVE: Param =
    param("final_move", Ty::Choice(FinalMove::NAMES), Val::Name(M.final_move.name()), "which root move is played");

impl Bounds {
    /// Whether `x` lies in the bounds (and is finite).
    pub fn contains(&self, x: f64) -> bool {
        let above = if self.lo_open { x > self.lo } else { x >= self.lo };
        let below = if self.hi_open { x < self.hi } else { x <= self.hi };
        x.is_finite() && above && below
    }

    /// The bounds in words: `in (0, 1]`, `a finite number >= 0`, `any finite number`.
    pub fn describe(&self) -> String {
        let lo = if self.lo.is_finite() { Some(fmt_short(self.lo)) } else { None };
        let hi = if self.hi.is_finite() { Some(fmt_short(self.hi)) } else { None };
        match (lo, hi) {
            (Some(lo), Some(hi)) => {
                let open = if self.lo_open { '(' } else { '[' };
                let close = if self.hi_open { ')' } else { ']' };
                format!("in {open}{lo}, {hi}{close}")
            }
            (Some(lo), None) => format!("a finite number {} {lo}", if self.lo_open { ">" } else { ">=" }),
            (None, Some(hi)) => format!("a finite number {} {hi}", if self.hi_open { "<" } else { "<=" }),
            (None, None) => "any finite number".to_string(),
        }
    }
}

/// A number in its shortest form (`1` rather than `1.0`), for messages.
pub fn fmt_short(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{}", x as i64) } else { fmt_f64(x) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_in_words() {
        assert_eq!(UNIT_OPEN.describe(), "in (0, 1]");
        assert_eq!(UNIT.describe(), "in [0, 1]");
        assert_eq!(NON_NEGATIVE.describe(), "a finite number >= 0");
        assert_eq!(ANY.describe(), "any finite number");
        assert!(!UNIT_OPEN.contains(0.0));
        assert!(UNIT_OPEN.contains(1.0));
        assert!(!UNIT.contains(f64::NAN));
    }

    #[test]
    fn choices_name_their_values() {
        assert_eq!(TRAIN_OPPONENT.choose("self"), Some(Val::Name("self")));
        assert_eq!(OPPONENT.choose("self"), None);
        assert_eq!(SEAT.choose("o"), Some(Val::Name("o")));
        assert_eq!(FINAL_MOVE.ty.choices(), Some(&["visits", "value"][..]));
    }

    #[test]
    fn defaults_are_in_range() {
        let reals = [&ALPHA, &ALPHA_DECAY, &ALPHA_MIN, &GAMMA, &EPSILON, &EPSILON_DECAY, &EPSILON_MIN, &Q_INIT, &UCT_C];
        let version_2 = [&TEMPERATURE, &TEMPERATURE_DECAY, &TEMPERATURE_MIN];
        for p in reals.into_iter().chain(version_2) {
            match (p.ty, p.default) {
                (Ty::Real(b), Val::Real(x)) => assert!(b.contains(x), "{}", p.name),
                other => panic!("{}: {other:?}", p.name),
            }
        }
    }
}
