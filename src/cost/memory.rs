//! Memory as a resource: what a job takes, estimated from its game's [`Figures`](crate::game::Figures) before
//! anything is built, and sizes as people write them (`--max-memory 4G`).
//!
//! A job's memory has two parts. Its own ([`Need::job`]: the learner's table, the policies
//! it records, the evaluator's buffers, the exact values `q_error` compares with) is freed
//! when the job ends, but for small buffers that a worker thread keeps for its next job
//! (values up to 8 MiB, an evaluator up to 16 MiB). The tables every job of the process shares ([`Shared`]: a game's
//! positions, the agent MDP of a (game, seat, opponent) and its optimum) are built once
//! (by the executor before its first job, see `run::shared`; elsewhere on first use) and
//! kept until the process ends, so the executor counts each of them once.
//!
//! Each estimate follows the layout of its structure (bytes per position, per agent state,
//! per move, per outcome); `tests` checks every one against the structure's real size on
//! the small boards, so that a change of layout that is not carried over here fails.
//! Against `minimax` and `minimax-uniform` the agent reaches fewer states than against
//! `random`; the estimates use the `random` figures, an upper bound.

use std::collections::BTreeSet;

use crate::game::Game;
use crate::game::figures::Side;
use crate::mdp::{EvalOpponent, Opponent, Seat};
use crate::solvers::layout::LayoutKey;

/// A table that every job of a process shares once built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shared {
    /// A game's positions.
    Positions(Game),
    /// The agent MDP of (game, seat, opponent) and its optimum.
    Mdp(Game, Seat, Opponent),
    /// A tabular learner's layout (states, slots, symmetry index).
    Layout(LayoutKey),
    /// Q* of the agent MDP of (game, seat, opponent) under a discount (its bits), which
    /// `q_error` compares tables with.
    OptimalValues(Game, Seat, Opponent, u64),
}

impl Shared {
    /// Its estimated size in bytes.
    pub fn bytes(self) -> u64 {
        match self {
            Shared::Positions(game) => positions(game),
            Shared::Mdp(game, seat, _) => mdp(game, seat) + solution(side(game, seat)),
            Shared::Layout(key) => match key.agent {
                Some((seat, _)) => layout(side(key.game, seat), key.symmetry),
                None => layout(key.game.figures().all(), key.symmetry),
            },
            Shared::OptimalValues(game, seat, ..) => optimal_values(side(game, seat)),
        }
    }
}

/// What one job needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Need {
    /// Bytes of its own, freed when it ends.
    pub job: u64,
    /// The shared tables it uses.
    pub shared: BTreeSet<Shared>,
}

impl Need {
    /// The shared tables of evaluating `seats` against `opponents` on `game` (a best
    /// response needs only the positions).
    pub fn evaluations(game: Game, seats: &[Seat], opponents: &[EvalOpponent]) -> BTreeSet<Shared> {
        if !game.enumerable() {
            // Scored by search (see `run/searched.rs`): no table is enumerated.
            return BTreeSet::new();
        }
        let mut shared = BTreeSet::from([Shared::Positions(game)]);
        for &seat in seats {
            for opponent in opponents.iter().filter_map(|o| o.fixed()) {
                shared.insert(Shared::Mdp(game, seat, opponent));
            }
        }
        shared
    }
}

/// A job on a board too big to enumerate: the positions its rows keep (at most two
/// million, about 100 bytes each with their edges and answers), an MCTS tree of
/// `iterations`, and the search's shared table counted in full (one per board and run,
/// counted per job to stay on the safe side).
pub fn searched(game: Game, iterations: u32) -> Need {
    let cells = game.cells() as u64;
    let tree = u64::from(iterations) * 64 * cells * cells / 81;
    Need { job: 2_000_000 * 100 + tree + (1 << 30), shared: BTreeSet::new() }
}

/// The bytes of a set of shared tables.
pub fn shared_bytes<'a>(tables: impl IntoIterator<Item = &'a Shared>) -> u64 {
    tables.into_iter().map(|s| s.bytes()).sum()
}

/// The figures of the positions where `seat` is to move.
pub fn side(game: Game, seat: Seat) -> Side {
    game.figures().side(seat == Seat::O)
}

/// [`crate::game::Positions`]: per position the packed board (4 bytes), result and
/// minimax (1 each) and class (4); the index → id table over `3^cells`; the per-game
/// lookup tables over `2^cells` masks (win flag, base-3 weight, 8 moved masks). On
/// boards beyond 16 cells, per position its base-3 index (8 bytes) instead of the packed
/// board and the index table, and the lookup tables over half masks (a few kB).
pub fn positions(game: Game) -> u64 {
    let cells = game.cells() as u32;
    if game.dense() {
        game.figures().positions * 10 + 3u64.pow(cells) * 4 + (1u64 << cells) * (1 + 4 + 8 * 4)
    } else {
        game.figures().positions * 14 + (1u64 << 12) * (4 + 2 * 4) + (1u64 << (cells - 12)) * (8 + 2 * 4)
    }
}

/// [`crate::mdp::AgentMdp`] against `random` (an upper bound for the other opponents):
/// per position its state number (4 bytes); per agent state its position and first
/// action (4 + 4); per action its row (8); per outcome run its codes (4 each): the slots
/// whose moves lead to one position share a run, so there is one run per position with
/// the other side to move, one code per reply. While it is built, per position the first
/// slot that led there and a reached flag (4 + 1).
pub fn mdp(game: Game, seat: Seat) -> u64 {
    let (s, other) = (side(game, seat), side(game, seat.other()));
    game.figures().positions * (4 + 4 + 1) + s.states * 8 + 4 + s.moves * 8 + (other.moves + 3) * 4 + 16 * 16
}

/// The optimum of an MDP ([`crate::solvers::policy_iteration::Solution`]): per agent
/// state a value and an action (8 + 4), and policy iteration's working copy of the values.
pub fn solution(s: Side) -> u64 {
    s.states * (8 + 4 + 8)
}

/// A tabular learner's [`crate::solvers::layout::Layout`] over `s`, shared by the jobs of
/// a run: per state its first slot and position (4 + 4); per slot its cell (1), and with
/// `symmetry` its entry in the index (4).
pub fn layout(s: Side, symmetry: bool) -> u64 {
    s.states * 8 + 4 + s.moves * if symmetry { 5 } else { 1 }
}

/// A tabular learner's own values over `s` (8 bytes per slot; the class-keyed values of
/// a table with `symmetry` are counted as one per slot too, an upper bound).
pub fn values(s: Side) -> u64 {
    s.moves * 8
}

/// The self-play successors: per slot the next position and the reward (4 + 8).
pub fn successors(s: Side) -> u64 {
    s.moves * 12
}

/// A [`crate::mdp::Policy`]: a move per position of the game.
pub fn policy(game: Game) -> u64 {
    game.figures().positions
}

/// An [`crate::mdp::Evaluator`] over an MDP with `s`: per agent state a mark, a slot and
/// four probabilities or values (4 + 4 + 4 · 8), and the list of the states reached (4).
pub fn evaluator(s: Side) -> u64 {
    s.states * 48
}

/// Q* of an agent MDP under one discount, kept as one value per state
/// ([`crate::solvers::action_values::OptimalValues`]).
pub fn optimal_values(s: Side) -> u64 {
    s.states * 8
}

/// Exact action values over the slots of `s` (`q_error`'s target): one per slot, and a
/// value per state.
pub fn action_values(s: Side) -> u64 {
    s.moves * 8 + s.states * 8
}

/// Bytes as people read them: `512 B`, `3.4 KiB`, `212 MiB`, `1.9 GiB`.
pub fn show(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} B"),
        _ if value < 10.0 => format!("{value:.1} {}", UNITS[unit]),
        _ => format!("{value:.0} {}", UNITS[unit]),
    }
}

/// Reads a size: a number with an optional unit `K`, `M`, `G` or `T` (powers of 1024, as
/// Slurm's `--mem`; `KB`, `KiB` and lower case are accepted too); no unit means bytes.
pub fn parse(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let bad = || format!("{text:?} is not a size: write a number with an optional unit K, M, G or T, e.g. 4G or 500M");
    let number: f64 = number.parse().map_err(|_| bad())?;
    let shift = match unit.trim().to_ascii_uppercase().trim_end_matches('B').trim_end_matches('I') {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(bad()),
    };
    let bytes = number * (1u64 << shift) as f64;
    if !(bytes.is_finite() && bytes >= 1.0) {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// The default memory budget: the Slurm allocation when the process runs in one
/// (`SLURM_MEM_PER_NODE`, MiB), else 80% of the memory the system says is available
/// (`MemAvailable` in `/proc/meminfo`); `None` where neither is known.
pub fn default_budget() -> Option<(u64, &'static str)> {
    if let Some(mib) = std::env::var("SLURM_MEM_PER_NODE").ok().and_then(|v| v.trim().parse::<u64>().ok()) {
        return Some((mib << 20, "the Slurm allocation (SLURM_MEM_PER_NODE)"));
    }
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = info
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some((kib * 1024 / 10 * 8, "80% of the available memory"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mdp::{AgentMdp, Evaluator};
    use crate::solvers::{QParams, q_learning};

    /// An estimate covers the real size, and by no more than a quarter (plus 4 KiB); on
    /// gravity boards (`loose`) by no more than a half (fewer positions per agent state:
    /// 3x4g3's MDP is 30% over).
    fn close(what: &str, estimate: u64, real: usize, loose: bool) {
        let real = real as u64;
        let slack = if loose { real / 2 } else { real / 4 };
        assert!(real <= estimate && estimate <= real + slack + 4096, "{what}: estimated {estimate}, real {real}");
    }

    #[test]
    fn estimates_follow_the_real_structures() {
        for game in ["3x3k3", "3x4k3", "4x3k4", "3x4g3"].map(|g| g.parse::<Game>().unwrap()) {
            let loose = game.family() == crate::game::Family::Gravity;
            close(&format!("{game} positions"), positions(game), game.positions().heap_bytes(), loose);
            for &seat in Seat::ALL {
                let built = AgentMdp::build(game, seat, Opponent::Random);
                close(&format!("{game} {seat} mdp"), mdp(game, seat), built.heap_bytes(), loose);
                let params = QParams { game, seat, episodes: 1, ..QParams::DEFAULT };
                let trained = q_learning::train_table(&params, 1, &[], |_, _| {});
                close(&format!("{game} {seat} values"), values(side(game, seat)), trained.table.heap_bytes(), loose);
                for symmetry in [false, true] {
                    let real = trained.table.layout().heap_bytes();
                    let real = if symmetry {
                        let mdp = &crate::solvers::ground_truth(game, seat, Opponent::Random).mdp;
                        crate::solvers::layout::Layout::over_mdp(mdp, true).heap_bytes()
                    } else {
                        real
                    };
                    close(&format!("{game} {seat} layout {symmetry}"), layout(side(game, seat), symmetry), real, loose);
                }
                let mut buffers = Evaluator::new();
                buffers.evaluate(&built, |_, b| b.legal_cells().next().expect("a move"));
                close(&format!("{game} {seat} evaluator"), evaluator(side(game, seat)), buffers.heap_bytes(), loose);
            }
        }
    }

    #[test]
    fn sizes_read_and_print_as_people_write_them() {
        assert_eq!(parse("4G"), Ok(4 << 30));
        assert_eq!(parse("500M"), Ok(500 << 20));
        assert_eq!(parse("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse("2048 kb"), Ok(2 << 20));
        assert_eq!(parse("1000"), Ok(1000));
        for bad in ["", "G", "-1G", "4X", "0"] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(show(512), "512 B");
        assert_eq!(show(3 << 29), "1.5 GiB");
        assert_eq!(show(212 << 20), "212 MiB");
    }
}
