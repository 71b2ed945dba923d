//! MCTS searches timed by the searching thread's CPU clock rather than the wall clock, so
//! that builds can be compared side by side on a machine shared with other work (a
//! descheduled thread's wall time grows, its CPU time does not). `mcts_cpu.sh` copies this
//! file into a checkout's `examples/` and builds it there; it uses only the library's
//! public MCTS API, the same since the m,n,k boards came in.
//!
//! `mcts_cpu REPS SEARCHES` prints, for each of REPS repetitions and each kernel, a line
//! `rep kernel rate`: the M iterations per CPU-second of SEARCHES 10,000-iteration searches
//! (seeds 0, 1, ...; one warm-up search first) from the kernel's board: tic-tac-toe's empty
//! board and `sweep bench`'s mid-game position (X 4, O 0, X 2), and the empty 4x4k4 board.

use sweep::game::{Board, Game};
use sweep::solvers::MctsParams;
use sweep::solvers::mcts::Searcher;

/// The calling thread's CPU time, in seconds.
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to write.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "no thread CPU clock");
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn rate(board: Board, searches: u64) -> f64 {
    let params = MctsParams { iterations: 10_000, ..MctsParams::default() };
    let mut searcher = Searcher::new();
    searcher.choose(&params, 0, board);
    let started = cpu_seconds();
    for seed in 0..searches {
        std::hint::black_box(searcher.choose(&params, seed, board));
    }
    searches as f64 * 10_000.0 / (cpu_seconds() - started) / 1e6
}

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().expect("usage: mcts_cpu REPS SEARCHES")).collect();
    let [reps, searches] = args[..] else { panic!("usage: mcts_cpu REPS SEARCHES") };
    let four: Game = "4x4k4".parse().expect("4x4k4 is a game");
    let kernels =
        [("empty", Board::EMPTY), ("midgame", Board::EMPTY.play(4).play(0).play(2)), ("4x4k4", Board::empty(four))];
    for rep in 0..reps {
        for (name, board) in kernels {
            println!("{rep} {name} {:.4}", rate(board, searches));
        }
    }
}
