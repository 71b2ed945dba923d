//! Speed of the search-based ground truth on Connect Four (`6x7g4`), as whole figures
//! rather than criterion samples (one solve of the empty board takes minutes):
//!
//! - the 170 distinct `6x7g4` positions of `tests/data/solved_positions.txt` (8 to 34
//!   stones), every legal move's exact score, on one thread: seconds and positions
//!   searched per second (the figure to set beside a public solver's `-a` analysis of
//!   the same positions, one position per line in the field's digit notation:
//!   `cargo bench --bench oracle -- --write-positions FILE` writes them);
//! - 1,000 random positions of 10 to 30 stones, win/draw/loss on every thread;
//! - the empty board's win/draw/loss on every thread (`--empty`; minutes).
//!
//! `cargo bench --bench oracle [-- --empty] [--table-mib MIB] [--threads N]`.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use sweep::oracle::{Position, Shape, Solver};

fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

fn test_set(shape: Shape) -> Vec<Vec<u8>> {
    let text = include_str!("../tests/data/solved_positions.txt");
    let mut out: Vec<Vec<u8>> = text
        .lines()
        .filter(|l| l.starts_with("6x7g4 "))
        .filter_map(|l| l.split_whitespace().nth(1))
        .filter(|m| m.split(',').count() >= 8)
        .map(|m| m.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    out.sort();
    out.dedup();
    assert!(out.iter().all(|m| Position::after(shape, m).is_ok()));
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let table_mib: usize = flag(&args, "--table-mib").map_or(1024, |v| v.parse().unwrap());
    let threads: usize = flag(&args, "--threads")
        .map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), |v| v.parse().unwrap());
    let shape: Shape = "6x7g4".parse().unwrap();
    let set = test_set(shape);
    if let Some(path) = flag(&args, "--write-positions") {
        let lines: Vec<String> =
            set.iter().map(|m| m.iter().map(|c| char::from(b'1' + c)).collect::<String>()).collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        println!("wrote {} positions to {path}", lines.len());
        return;
    }
    // The test set, every move's score, one thread.
    let mut solver = Solver::new(table_mib << 20);
    let t = Instant::now();
    for m in &set {
        std::hint::black_box(solver.move_scores(Position::after(shape, m).unwrap()));
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "oracle: {} 6x7g4 positions, every move's exact score, 1 thread, table {table_mib} MiB: {s:.2} s, {} nodes, {:.2} M nodes/s",
        set.len(),
        solver.nodes(),
        solver.nodes() as f64 / s / 1e6
    );
    // 1,000 random positions of 10 to 30 stones, win/draw/loss.
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(2026);
    let mut positions = Vec::new();
    while positions.len() < 1000 {
        let stones = rng.random_range(10..=30);
        let mut p = Position::empty(shape);
        for _ in 0..stones {
            let moves = p.moves();
            p = p.play(moves[rng.random_range(0..moves.len())]);
            if p.is_over() {
                break;
            }
        }
        if !p.is_over() && p.plies() >= 10 {
            positions.push(p);
        }
    }
    let mut solver = Solver::new(table_mib << 20);
    let t = Instant::now();
    let outcomes = solver.outcomes_parallel(&positions, threads);
    let s = t.elapsed().as_secs_f64();
    let wins = outcomes.iter().filter(|o| o.value() == 1).count();
    println!(
        "oracle: 1,000 random 6x7g4 positions of 10 to 30 stones, win/draw/loss, {threads} threads: {s:.2} s ({wins} wins for the mover)"
    );
    if args.iter().any(|a| a == "--empty") {
        let solver = Solver::new(table_mib << 20);
        let t = Instant::now();
        let (o, nodes) = solver.outcome_parallel(Position::empty(shape), threads);
        let s = t.elapsed().as_secs_f64();
        println!(
            "oracle: the empty 6x7g4 board, win/draw/loss, {threads} threads, table {table_mib} MiB: {o:?} in {s:.1} s, {nodes} nodes, {:.2} M nodes/s",
            nodes as f64 / s / 1e6
        );
    }
}
