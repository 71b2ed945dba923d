//! Exact solving and evaluation: build the X-against-random MDP and solve it by policy
//! iteration; evaluate one policy exactly; `sweep solve --json` as a whole process.

use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};
use sweep::mdp::{AgentMdp, Evaluator, Opponent, Seat};
use sweep::solvers::{ground_truth, policy_iteration};

fn exact(c: &mut Criterion) {
    sweep::game::Game::TIC_TAC_TOE.positions();
    c.bench_function("build MDP + policy iteration (x vs random)", |b| {
        b.iter(|| {
            let mdp = AgentMdp::build(sweep::game::Game::TIC_TAC_TOE, Seat::X, Opponent::Random);
            policy_iteration::solve(&mdp).value
        })
    });
    let truth = ground_truth(sweep::game::Game::TIC_TAC_TOE, Seat::X, Opponent::Random);
    let policy = truth.solution.policy(&truth.mdp);
    let mut evaluator = Evaluator::new();
    c.bench_function("exact evaluation of one policy (x vs random)", |b| {
        b.iter(|| evaluator.evaluate(&truth.mdp, |_, board| policy.get_or_first(board)).value)
    });
    let first_legal = |_: usize, board: sweep::game::Board| board.legal_moves().trailing_zeros() as u8;
    c.bench_function("exact evaluation of first-legal policy (o vs random)", |b| {
        let t = ground_truth(sweep::game::Game::TIC_TAC_TOE, Seat::O, Opponent::Random);
        b.iter(|| evaluator.evaluate(&t.mdp, first_legal).value)
    });
    // The binary of `cargo build --release` (or `$SWEEP`): benchmarks are a package of
    // their own, so cargo does not build the binary for them.
    let exe = std::env::var_os("SWEEP").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/sweep"),
        std::path::PathBuf::from,
    );
    if !exe.exists() {
        eprintln!("skipped the whole-process benchmark: {} is missing (run cargo build --release)", exe.display());
        return;
    }
    let mut group = c.benchmark_group("process");
    group.sample_size(20);
    group.bench_function("sweep solve --json (whole process)", |b| {
        b.iter(|| {
            let out = Command::new(&exe).args(["solve", "--json"]).output().expect("sweep runs");
            assert!(out.status.success());
        })
    });
    group.finish();
}

criterion_group!(benches, exact);
criterion_main!(benches);
