//! A bounded, seeded fuzz harness for the spec parser that runs on stable Rust: it mutates
//! the seed specs in `fuzz/seeds/` (insertions of TOML fragments, deletions, duplications,
//! byte changes, splices) and feeds every mutant to `sweep::spec::parse`, which must
//! return `Ok` or `Err` without panicking. Accepted specs must list `job_count` jobs with
//! unique ids.
//!
//! `SPEC_FUZZ_ITERATIONS` sets the number of mutants (default 20,000) and
//! `SPEC_FUZZ_SEED` the generator's seed; see `fuzz/README.md`.

use std::collections::HashSet;
use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

const FRAGMENTS: &[&str] = &[
    "[[solver]]\n",
    "[evaluation]\n",
    "[solver]\n",
    "kind = \"q-learning\"\n",
    "kind = \"mcts\"\n",
    "alpha = ",
    "seat = ",
    "opponent = \"self\"\n",
    "{ linspace = [0, 1, 3] }",
    "{ logspace = [-3, 0, 4] }",
    "[0.1, 0.2]",
    "[]",
    "{}",
    "=",
    "\"",
    "'",
    "[",
    "]",
    "{",
    "}",
    ",",
    ".",
    "\n",
    "#",
    "1e308",
    "-0.0",
    "nan",
    "inf",
    "9223372036854775807",
    "-9223372036854775808",
    "true",
    "1979-05-27T07:32:00Z",
    "label = \"a\"\n",
    "a.b.c = 1\n",
    "\"\"\"x\n\"\"\"",
    "é",
    "\u{0}",
    "replicates = 1000000\n",
    "iterations = { linspace = [1, 4294967296, 2] }\n",
];

fn seeds() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    let mut seeds: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| std::fs::read_to_string(entry.unwrap().path()).unwrap())
        .collect();
    seeds.sort();
    assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
    seeds
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// One random change to `bytes`.
fn mutate(bytes: &mut Vec<u8>, rng: &mut Pcg64Mcg, seeds: &[String]) {
    let at = |rng: &mut Pcg64Mcg, len: usize| rng.random_range(0..=len);
    match rng.random_range(0..6) {
        0 => {
            let fragment = FRAGMENTS[rng.random_range(0..FRAGMENTS.len())].as_bytes();
            let i = at(rng, bytes.len());
            bytes.splice(i..i, fragment.iter().copied());
        }
        1 if !bytes.is_empty() => {
            let i = at(rng, bytes.len() - 1);
            let end = (i + rng.random_range(1..40)).min(bytes.len());
            bytes.drain(i..end);
        }
        2 if !bytes.is_empty() => {
            let i = at(rng, bytes.len() - 1);
            let end = (i + rng.random_range(1..80)).min(bytes.len());
            let copy: Vec<u8> = bytes[i..end].to_vec();
            let j = at(rng, bytes.len());
            bytes.splice(j..j, copy);
        }
        3 if !bytes.is_empty() => {
            let i = at(rng, bytes.len() - 1);
            bytes[i] = rng.random_range(0x20..0x7f);
        }
        4 => {
            let other = seeds[rng.random_range(0..seeds.len())].as_bytes();
            let cut = at(rng, other.len());
            let keep = at(rng, bytes.len());
            bytes.truncate(keep);
            bytes.extend_from_slice(&other[cut..]);
        }
        _ => {
            let digits = rng.random_range(0u64..100_000).to_string();
            let i = at(rng, bytes.len());
            bytes.splice(i..i, digits.bytes());
        }
    }
}

#[test]
fn mutated_specs_never_panic() {
    let seeds = seeds();
    let iterations = env_u64("SPEC_FUZZ_ITERATIONS", 20_000);
    let mut rng = Pcg64Mcg::seed_from_u64(env_u64("SPEC_FUZZ_SEED", 2026));
    let (mut accepted, mut refused) = (0u64, 0u64);
    for _ in 0..iterations {
        let mut bytes = seeds[rng.random_range(0..seeds.len())].clone().into_bytes();
        for _ in 0..rng.random_range(1..6) {
            mutate(&mut bytes, &mut rng, &seeds);
        }
        let text = String::from_utf8_lossy(&bytes);
        match sweep::spec::parse(&text, "fuzz.toml") {
            Ok(sweep) => {
                accepted += 1;
                if sweep.job_count() <= 20_000 {
                    let jobs = sweep.jobs();
                    assert_eq!(jobs.len() as u64, sweep.job_count(), "{text}");
                    let ids: HashSet<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
                    assert_eq!(ids.len(), jobs.len(), "duplicate job ids in:\n{text}");
                }
            }
            Err(e) => {
                refused += 1;
                assert!(!e.problems.is_empty(), "{text}");
                assert!(e.to_string().starts_with("fuzz.toml"), "{e}");
            }
        }
    }
    // The mutants must exercise both outcomes, or the harness tests little.
    assert!(iterations < 1000 || (accepted > 0 && refused > 0), "accepted {accepted}, refused {refused}");
}
