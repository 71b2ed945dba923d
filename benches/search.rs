//! Speed of the model-based search's proposals: one round of 8 TPE proposals from 1,000
//! finished trials over four continuous axes (the target: well under 50 ms).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use sweep::search::tpe::{Axis, Trial, propose};

fn search(c: &mut Criterion) {
    let axes = [Axis::Continuous; 4];
    // Points spread by the golden ratio's multiples, scored on a bowl.
    let trials: Vec<Trial> = (0..1000)
        .map(|i| {
            let u: Vec<f64> = (1..=4).map(|j| (i as f64 * 0.618_034 * j as f64 + 0.1 * j as f64) % 1.0).collect();
            Trial { score: u.iter().map(|x| (x - 0.3) * (x - 0.3)).sum(), u }
        })
        .collect();
    c.bench_function("tpe: 8 proposals from 1,000 trials, 4 axes", |b| {
        b.iter(|| propose(black_box(&axes), black_box(&trials), 8, 7))
    });
}

criterion_group!(benches, search);
criterion_main!(benches);
