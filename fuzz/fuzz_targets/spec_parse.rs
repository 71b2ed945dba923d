//! Fuzz target: `sweep::spec::parse` on arbitrary UTF-8 must return `Ok` or `Err`, never
//! panic; an accepted spec must list exactly `job_count` jobs.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(sweep) = sweep::spec::parse(text, "fuzz.toml") {
        if sweep.job_count() <= 10_000 {
            assert_eq!(sweep.jobs().len() as u64, sweep.job_count());
        }
    }
});
