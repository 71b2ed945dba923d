//! Speed of the spec module: parsing, counting and listing the jobs of a 1,000,000-job grid
//! (counting must not list them; listing should take well under 2 s).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

/// 100 x 100 x 100 q-learning grid points, one replicate each.
const MILLION: &str = r#"
[[solver]]
kind = "q-learning"
alpha = { linspace = [0.01, 1, 100] }
gamma = { linspace = [0, 1, 100] }
epsilon_decay = { linspace = [0.5, 1, 100] }
"#;

/// 20,000 grid points x 50 replicates.
const REPLICATED: &str = r#"
replicates = 50
[[solver]]
kind = "mcts"
uct_c = { linspace = [0, 10, 200] }
iterations = { linspace = [1, 100, 100] }
"#;

fn spec(c: &mut Criterion) {
    let million = sweep::spec::parse(MILLION, "million.toml").unwrap();
    let replicated = sweep::spec::parse(REPLICATED, "replicated.toml").unwrap();
    assert_eq!(million.job_count(), 1_000_000);
    assert_eq!(replicated.job_count(), 1_000_000);

    c.bench_function("parse a 1,000,000-point grid", |b| b.iter(|| sweep::spec::parse(black_box(MILLION), "m.toml")));
    c.bench_function("job_count of 1,000,000 jobs", |b| b.iter(|| black_box(&million).job_count()));
    c.bench_function("job_counts of 1,000,000 jobs", |b| b.iter(|| black_box(&million).job_counts()));
    let mut slow = c.benchmark_group("listing");
    slow.sample_size(10);
    slow.bench_function("jobs() of 1,000,000 points", |b| b.iter(|| black_box(&million).jobs()));
    slow.bench_function("jobs() of 20,000 points x 50 replicates", |b| b.iter(|| black_box(&replicated).jobs()));
    slow.finish();
}

criterion_group!(benches, spec);
criterion_main!(benches);
