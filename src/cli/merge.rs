//! `sweep merge DIR`.

use std::path::Path;

use anyhow::Result;

use crate::error::exit;

/// Runs `sweep merge`.
pub fn merge(dir: &Path) -> Result<i32> {
    let started = std::time::Instant::now();
    let r = crate::run::merge::merge(dir)?;
    if !r.upgraded.is_empty() {
        eprintln!(
            "merged shard files of an older version of sweep into today's columns (their rows padded with empty cells): {}",
            r.upgraded.join(", ")
        );
    }
    println!(
        "merged {} shards: {} jobs, {} rows, {} failed jobs, into {} ({:.2} s)",
        r.shards,
        r.jobs,
        r.rows,
        r.failed,
        dir.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(if r.failed > 0 { exit::FAILED } else { exit::OK })
}
