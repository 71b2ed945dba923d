//! One full MCTS search of 10,000 iterations, from the empty board and from a mid-game
//! position; throughput is in iterations, so the report reads as iterations per second.

use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use sweep::game::Board;
use sweep::solvers::MctsParams;
use sweep::solvers::mcts::Searcher;

const ITERATIONS: u32 = 10_000;

fn search(c: &mut Criterion) {
    let params = MctsParams { iterations: ITERATIONS, ..MctsParams::default() };
    let mut group = c.benchmark_group("mcts");
    group.throughput(Throughput::Elements(u64::from(ITERATIONS)));
    // X on 4, O on 0, X on 2; O to move.
    for (name, board) in [("empty", "........."), ("mid-game", "O.X.X....")] {
        let board: Board = board.parse().expect("a valid board");
        let mut searcher = Searcher::new();
        group.bench_function(name, |b| {
            b.iter(|| searcher.choose(black_box(&params), black_box(2026), black_box(board)))
        });
    }
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
