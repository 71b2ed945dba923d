//! `sweep merge DIR`.

use std::path::Path;

use anyhow::Result;

use crate::error::exit;
use crate::names::count;

/// Runs `sweep merge`.
pub fn merge(dir: &Path) -> Result<i32> {
    let started = std::time::Instant::now();
    let r = crate::run::merge::merge(dir)?;
    for note in &r.notes {
        eprintln!("{note}");
    }
    if !r.upgraded.is_empty() {
        eprintln!(
            "merged shard files of an older version of sweep into today's columns (their rows padded with empty cells): {}",
            r.upgraded.join(", ")
        );
    }
    println!(
        "merged {}: {}, {}, {}, into {} ({:.2} s)",
        count(r.shards, "shard"),
        count(r.jobs, "job"),
        count(r.rows, "row"),
        count(r.failed, "failed job"),
        dir.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(if r.failed > 0 { exit::FAILED } else { exit::OK })
}
