//! The tables a run's jobs share (a game's positions, the exact MDPs with their optimum,
//! the tabular learners' layouts and the Q* their `q_error` compares with), built before the first job starts and timed apart, so that no job's `train_ms` holds
//! them and the run can say what they cost.
//!
//! Only the tables of the jobs to run are built (a search's pass, a shard, what resume
//! left), and only those the process has not built already: a search's later passes and
//! tic-tac-toe's small tables cost next to nothing. The memory budget counts the same
//! set once ([`super::budget::Needs::shared`]). Building is parallel over the run's
//! threads, the positions first (every MDP reads them). A table whose build panics is
//! left to the jobs that need it, which then fail with the message as before.

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::cost::memory::Shared;
use crate::game::Positions;
use crate::names::count;
use crate::report::manifest::SharedTables;
use crate::solvers::{action_values, ground_truth, layout};

/// Whether `table` is built already.
pub fn is_built(table: Shared) -> bool {
    match table {
        Shared::Positions(game) => Positions::is_built(game),
        Shared::Mdp(game, seat, opponent) => ground_truth::is_built(game, seat, opponent),
        Shared::Layout(key) => layout::is_built(key),
        Shared::OptimalValues(game, seat, opponent, gamma) => {
            action_values::optimal_is_built(game, seat, opponent, f64::from_bits(gamma))
        }
    }
}

/// Builds those of `tables` not built yet on up to `threads` threads, and says what it
/// built and how long it took.
pub fn build(tables: &BTreeSet<Shared>, threads: usize) -> SharedTables {
    let started = Instant::now();
    let todo: Vec<Shared> = tables.iter().copied().filter(|&t| !is_built(t)).collect();
    let of = |pick: fn(&Shared) -> bool| todo.iter().copied().filter(pick).collect::<Vec<_>>();
    let positions = of(|t| matches!(t, Shared::Positions(_)));
    let mdps = of(|t| matches!(t, Shared::Mdp(..)));
    let layouts = of(|t| matches!(t, Shared::Layout(_) | Shared::OptimalValues(..)));
    // Each stage reads the one before: MDPs the positions, layouts and Q* the MDPs.
    on_threads(&positions, threads);
    on_threads(&mdps, threads);
    on_threads(&layouts, threads);
    let games = |t: &Shared| match t {
        Shared::Positions(game) => Some(game.to_string()),
        _ => None,
    };
    SharedTables {
        positions: positions.iter().filter_map(games).collect(),
        mdps: mdps.len() as u64,
        layouts: layouts.iter().filter(|t| matches!(t, Shared::Layout(_))).count() as u64,
        ms: if todo.is_empty() { 0.0 } else { started.elapsed().as_secs_f64() * 1e3 },
    }
}

/// Builds each of `tables` on up to `threads` threads.
fn on_threads(tables: &[Shared], threads: usize) {
    let next = AtomicUsize::new(0);
    let worker = || {
        while let Some(&table) = tables.get(next.fetch_add(1, Ordering::SeqCst)) {
            // A panic leaves the table unbuilt; the jobs that need it report it.
            let _ = catch_unwind(AssertUnwindSafe(|| build_one(table)));
        }
    };
    match threads.min(tables.len()) {
        0 => {}
        1 => worker(),
        n => std::thread::scope(|scope| {
            for _ in 0..n {
                scope.spawn(worker);
            }
        }),
    }
}

fn build_one(table: Shared) {
    match table {
        Shared::Positions(game) => drop(Positions::of(game)),
        Shared::Mdp(game, seat, opponent) => drop(ground_truth(game, seat, opponent)),
        Shared::Layout(key) => drop(layout::layout(key)),
        Shared::OptimalValues(game, seat, opponent, gamma) => {
            let _ = action_values::optimal(game, seat, opponent, f64::from_bits(gamma));
        }
    }
}

/// The line the run prints, e.g. `shared tables: positions of 3x4k4, 2 exact MDPs with
/// their optimum, built in 1.23 s`; `None` when nothing was built.
pub fn line(built: &SharedTables) -> Option<String> {
    if built.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    if !built.positions.is_empty() {
        parts.push(format!("positions of {}", built.positions.join(", ")));
    }
    if built.mdps > 0 {
        let its = if built.mdps == 1 { "its" } else { "their" };
        parts.push(format!("{} with {its} optimum", count(built.mdps, "exact MDP")));
    }
    if built.layouts > 0 {
        parts.push(count(built.layouts, "table layout"));
    }
    Some(format!("shared tables: {}, built in {:.2} s", parts.join(", "), built.ms / 1e3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::mdp::{Opponent, Seat};

    #[test]
    fn the_tables_are_built_once_and_said_so() {
        // Other tests of this process may build some of them at the same time: only what
        // was not built is counted.
        let game: Game = "4x3k3".parse().unwrap();
        let tables = BTreeSet::from([
            Shared::Positions(game),
            Shared::Mdp(game, Seat::X, Opponent::Random),
            Shared::Mdp(game, Seat::O, Opponent::Minimax),
        ]);
        let built = build(&tables, 2);
        assert!(tables.iter().all(|&t| is_built(t)), "everything built after");
        assert!(built.mdps <= 2 && built.positions.iter().all(|g| g == "4x3k3"), "{built:?}");
        let again = build(&tables, 2);
        assert!(again.is_empty() && again.ms == 0.0 && line(&again).is_none(), "a built table is not built again");
    }

    #[test]
    fn the_line_names_what_was_built() {
        let built = SharedTables { positions: vec!["3x4k4".into()], mdps: 2, layouts: 0, ms: 1234.0 };
        let expected = "shared tables: positions of 3x4k4, 2 exact MDPs with their optimum, built in 1.23 s";
        assert_eq!(line(&built).as_deref(), Some(expected));
        let one = SharedTables { positions: Vec::new(), mdps: 1, layouts: 0, ms: 5.0 };
        assert_eq!(line(&one).as_deref(), Some("shared tables: 1 exact MDP with its optimum, built in 0.01 s"));
    }
}
