//! Speed of the model-based search's proposals: one round of 8 TPE proposals from 1,000
//! finished trials over four continuous axes (the target: well under 50 ms), and the whole
//! decision a TPE run makes before each pass (every round proposed again from the scores,
//! then the jobs listed) for a search of 200 trials in 24 rounds.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use sweep::search::rounds::decide;
use sweep::search::test_pass::Scores;
use sweep::search::tpe::{Dimension, Trial, propose};

fn search(c: &mut Criterion) {
    let axes = [Dimension::Continuous; 4];
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

fn decision(c: &mut Criterion) {
    let text = "seed = 1\nreplicates = 2\n[evaluation]\ncheckpoints = 1\n[search]\nmethod = \"tpe\"\ntrials = 200\n\
                startup = 16\n[[solver]]\nkind = \"q-learning\"\nepisodes = 100\n\
                alpha = { loguniform = [0.01, 1.0] }\ngamma = { uniform = [0.5, 1.0] }\n\
                epsilon = { uniform = [0.2, 0.5] }\nepsilon_min = { loguniform = [0.001, 0.1] }\n";
    let sweep = sweep::spec::parse(text, "bench.toml").unwrap();
    // Scores every job (a bowl over its job id's hash, so it is spread), round by round.
    let mut scores = Scores::default();
    let mut rounds = decide(&sweep, &scores);
    while !rounds.decided.finished {
        for j in &rounds.jobs {
            let x = (u64::from_str_radix(&j.id, 16).unwrap() % 1000) as f64 / 1000.0;
            scores.search.insert(j.id.clone(), (x - 0.3) * (x - 0.3));
            scores.rows.insert(j.id.clone(), 1);
        }
        rounds = decide(&sweep, &scores);
    }
    assert_eq!(rounds.trials[0].len(), 200);
    c.bench_function("tpe: the decision before a pass, 200 trials in 24 rounds, 4 axes", |b| {
        b.iter(|| decide(black_box(&sweep), black_box(&scores)))
    });
}

criterion_group!(benches, search, decision);
criterion_main!(benches);
