//! Q-learning training speed: X against random with the seed article's settings (alpha 0.5,
//! gamma 0.99, epsilon 1.0 decaying by 0.9995 to 0.05), and self-play; each tabular learner
//! with the same settings; the cost of one
//! learning-curve checkpoint (greedy policy extraction + exact evaluation).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sweep::mdp::{Evaluator, Opponent, Seat};
use sweep::solvers::learners::LEARNERS;
use sweep::solvers::{QParams, TrainOpponent, ground_truth, q_learning};

fn qlearning(c: &mut Criterion) {
    let episodes = 200_000u64;
    let mut group = c.benchmark_group("q-learning");
    group.throughput(Throughput::Elements(episodes));
    group.sample_size(20);
    let params = QParams { episodes, ..QParams::default() };
    group.bench_function("x vs random, seed settings, 200k episodes", |b| {
        b.iter(|| q_learning::train(&params, 1, &[], |_, _| {}))
    });
    let sym = QParams { symmetry: true, ..params };
    group.bench_function("x vs random, symmetry, 200k episodes", |b| {
        b.iter(|| q_learning::train(&sym, 1, &[], |_, _| {}))
    });
    let sp = QParams { opponent: TrainOpponent::SelfPlay, ..params };
    group.bench_function("self-play, 200k episodes", |b| b.iter(|| q_learning::train(&sp, 1, &[], |_, _| {})));
    group.finish();

    // The other tabular learners, same settings, for the ratio to Q-learning.
    let mut group = c.benchmark_group("learners");
    group.throughput(Throughput::Elements(episodes));
    group.sample_size(20);
    for learner in LEARNERS {
        group.bench_function(format!("{}, x vs random, seed settings, 200k episodes", learner.name), |b| {
            b.iter(|| (learner.bench)(&params, 1))
        });
    }
    group.finish();

    let truth = ground_truth(sweep::game::Game::TIC_TAC_TOE, Seat::X, Opponent::Random);
    let mut evaluator = Evaluator::new();
    let small = QParams { episodes: 20_000, ..QParams::default() };
    q_learning::train(&small, 3, &[20_000], |_, table| {
        c.bench_function("checkpoint: greedy policy + exact evaluation (x vs random)", |b| {
            b.iter(|| {
                let policy = table.policy();
                evaluator.evaluate(&truth.mdp, |_, board| policy.get_or_first(board)).value
            })
        });
    });
}

criterion_group!(benches, qlearning);
criterion_main!(benches);
