//! One full MCTS search of 10,000 iterations, from the empty board and from a mid-game
//! position of tic-tac-toe and from the empty 4x4k4 board; throughput is in iterations, so the report reads as iterations per second.

use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use sweep::game::{Board, Game};
use sweep::solvers::MctsParams;
use sweep::solvers::mcts::Searcher;

const ITERATIONS: u32 = 10_000;

fn search(c: &mut Criterion) {
    let params = MctsParams { iterations: ITERATIONS, ..MctsParams::default() };
    let mut group = c.benchmark_group("mcts");
    group.throughput(Throughput::Elements(u64::from(ITERATIONS)));
    // X on 4, O on 0, X on 2; O to move.
    let four: Game = "4x4k4".parse().expect("a valid game");
    for (name, game, board) in [
        ("empty", Game::TIC_TAC_TOE, "........."),
        ("mid-game", Game::TIC_TAC_TOE, "O.X.X...."),
        ("4x4k4 empty", four, "................"),
    ] {
        let board = Board::parse_in(game, board).expect("a valid board");
        let mut searcher = Searcher::new();
        group.bench_function(name, |b| {
            b.iter(|| searcher.choose(black_box(&params), black_box(2026), black_box(board)))
        });
    }
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
