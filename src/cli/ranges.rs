//! The ranges of the command line's numeric flags, checked as a spec checks its keys: one
//! clap value parser per kind of range, so that a value out of range is refused before any
//! work with the flag, the value (clap names both) and what is allowed, exit code 2. Where
//! a flag is a spec parameter (`--iterations`, `--uct-c`), its range and words are the
//! parameter's ([`crate::kinds::param`]); a duration reads as a spec's `timeout` does.
//!
//! Bounds that protect memory are tied to this machine's (`MemTotal`, or 1 TiB where it is
//! not known): a table of `--table-mib`, the positions `--max-positions` keeps (about 100
//! bytes each).

use std::time::Duration;

use crate::kinds::param::{ITERATIONS, Param, Ty, UCT_C};

/// The largest `--table-mib` where the machine's memory is not known, and on any machine:
/// 1 TiB.
pub const TABLE_MIB_CAP: u64 = 1 << 20;
/// The most worker threads a flag may ask for (as a command solver's `threads_per_job`).
pub const THREADS_CAP: u64 = 1024;
/// The most games `sweep score` samples per opponent (the games in play are held at once).
pub const GAMES_CAP: u64 = 1_000_000;
/// The most positions one batch to a policy program holds.
pub const BATCH_CAP: u64 = 1 << 20;
/// Bytes a position kept for an exact score holds, with its edges and answers.
const POSITION_BYTES: u64 = 100;
/// The longest `sweep bench --seconds`: a day.
const BENCH_SECONDS_CAP: f64 = 86_400.0;
/// The longest timeout, as a spec's (`timeout`), in seconds.
const TIMEOUT_CAP: f64 = 1e9;

/// `s` as a whole number from `lo` to `hi`, else why not in the words of `rule`.
fn whole(s: &str, lo: u64, hi: u64, rule: &str) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    match t.parse::<u64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        Ok(_) => Err(format!("out of range: {rule}")),
        Err(_) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => Err(format!("out of range: {rule}")),
        Err(_) => Err(format!("not a whole number: {rule}")),
    }
}

/// The rule of a spec parameter, said of its flag: `--uct-c must be ...`.
fn param_rule(param: &Param) -> String {
    let rule = crate::spec::range_rule(param);
    format!("--{}", rule.replacen(param.name, &param.name.replace('_', "-"), 1))
}

/// A whole-number flag that is a spec parameter, in the parameter's range.
fn param_count(s: &str, param: &Param) -> Result<u64, String> {
    let Ty::Count { max } = param.ty else { unreachable!("{} counts", param.name) };
    whole(s, 1, max, &param_rule(param))
}

/// A real flag that is a spec parameter, in the parameter's bounds.
fn param_real(s: &str, param: &Param) -> Result<f64, String> {
    let Ty::Real(bounds) = param.ty else { unreachable!("{} is real", param.name) };
    match s.trim().parse::<f64>() {
        Ok(x) if bounds.contains(x) => Ok(x),
        Ok(_) => Err(format!("out of range: {}", param_rule(param))),
        Err(_) => Err(format!("not a number: {}", param_rule(param))),
    }
}

/// `--iterations`: MCTS iterations per move, as the spec's `iterations`.
pub fn iterations(s: &str) -> Result<u32, String> {
    param_count(s, &ITERATIONS).map(|n| n as u32)
}

/// `--uct-c`: the UCT exploration constant, as the spec's `uct_c`.
pub fn uct_c(s: &str) -> Result<f64, String> {
    param_real(s, &UCT_C)
}

/// This machine's memory in bytes (`MemTotal`), if known.
fn machine_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 =
        info.lines().find_map(|l| l.strip_prefix("MemTotal:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib << 10)
}

/// The largest `--table-mib`: this machine's memory, at most [`TABLE_MIB_CAP`].
pub fn table_mib_max() -> u64 {
    machine_bytes().map_or(TABLE_MIB_CAP, |b| (b >> 20).clamp(1, TABLE_MIB_CAP))
}

/// `--table-mib`: the search's transposition table, from 1 MiB to this machine's memory.
pub fn table_mib(s: &str) -> Result<usize, String> {
    let max = table_mib_max();
    let rule = format!(
        "--table-mib is a whole number of MiB from 1 to {max} (this machine's memory, and never above {TABLE_MIB_CAP}, 1 TiB)"
    );
    whole(s, 1, max, &rule).map(|n| n as usize)
}

/// `--threads`: from 1 to [`THREADS_CAP`].
pub fn threads(s: &str) -> Result<usize, String> {
    whole(s, 1, THREADS_CAP, &format!("--threads is a whole number from 1 to {THREADS_CAP}")).map(|n| n as usize)
}

/// `--games` of `sweep score`: from 1 to [`GAMES_CAP`].
pub fn games(s: &str) -> Result<u32, String> {
    let rule = format!(
        "--games is a whole number from 1 to {GAMES_CAP} (games sampled per opponent where an exact evaluation does \
         not fit; an interval needs at least 2)"
    );
    whole(s, 1, GAMES_CAP, &rule).map(|n| n as u32)
}

/// The largest `--max-positions`: as many kept positions as this machine's memory holds.
pub fn max_positions_max() -> u64 {
    machine_bytes().map_or(TABLE_MIB_CAP << 20, |b| b) / POSITION_BYTES
}

/// `--max-positions`: from 0 (never exact: sampled games and a search) to as many as this
/// machine's memory holds.
pub fn max_positions(s: &str) -> Result<usize, String> {
    let max = max_positions_max();
    let rule = format!(
        "--max-positions is a whole number from 0 (no exact evaluation: sampled games and a search) to {max} \
         (this machine's memory at about {POSITION_BYTES} bytes a position)"
    );
    whole(s, 0, max, &rule).map(|n| n as usize)
}

/// `--node-budget`: at least 1.
pub fn node_budget(s: &str) -> Result<u64, String> {
    whole(s, 1, u64::MAX, "--node-budget is a whole number >= 1 (positions the best-response search may visit)")
}

/// `--batch`: from 1 to [`BATCH_CAP`].
pub fn batch(s: &str) -> Result<usize, String> {
    let rule = format!("--batch is a whole number from 1 to {BATCH_CAP} (positions per batch sent to the program)");
    whole(s, 1, BATCH_CAP, &rule).map(|n| n as usize)
}

/// `--timeout`: a duration as a spec's `timeout` reads it (`90s`, `10m`, `2h`, `500ms` or
/// seconds), above 0 and at most 1e9 s; or `none`, no limit: the longest, 1e9 s (31
/// years), which a deadline computed from now still holds without overflow.
pub fn timeout(s: &str) -> Result<Duration, String> {
    if s.trim() == "none" {
        return Ok(Duration::from_secs_f64(TIMEOUT_CAP));
    }
    match crate::spec::command_solver::parse_duration(s) {
        Some(x) if x.is_finite() && x > 0.0 && x <= TIMEOUT_CAP => Ok(Duration::from_secs_f64(x)),
        _ => Err("--timeout is a duration such as 90s, 10m or 2h (or a number of seconds), above 0 and at most \
                  1e9 s, or none for no limit"
            .to_string()),
    }
}

/// `--seconds` of `sweep bench`: above 0, at most a day.
pub fn bench_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= BENCH_SECONDS_CAP => Ok(x),
        _ => Err(format!("--seconds is a number of seconds above 0 and at most {BENCH_SECONDS_CAP} (a day)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_are_refused_outside_their_range_with_the_rule() {
        assert_eq!(games("5"), Ok(5));
        assert!(games("0").unwrap_err().starts_with("out of range: --games is a whole number from 1 to"));
        assert!(table_mib("18446744073709551615").unwrap_err().starts_with("out of range"));
        assert!(table_mib("18446744073709551616").unwrap_err().starts_with("out of range"));
        assert!(table_mib("2^44").unwrap_err().starts_with("not a whole number"));
        assert!(table_mib("0").is_err());
        assert_eq!(table_mib("1"), Ok(1));
        assert_eq!(max_positions("0"), Ok(0));
        assert!(threads("0").is_err() && threads("1025").is_err());
        assert_eq!(iterations("1_000"), Ok(1000));
        assert!(iterations("0").unwrap_err().contains("--iterations must be a whole number from 1 to 4294967295"));
    }

    #[test]
    fn reals_and_durations_are_finite_and_within_bounds() {
        assert_eq!(uct_c("1.5"), Ok(1.5));
        for bad in ["nan", "inf", "-1", "x"] {
            assert!(uct_c(bad).unwrap_err().contains("--uct-c must be a finite number >= 0"), "{bad}");
        }
        assert_eq!(timeout("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(timeout("none"), Ok(Duration::from_secs(1_000_000_000)));
        assert!(std::time::Instant::now().checked_add(timeout("none").unwrap()).is_some());
        for bad in ["inf", "nan", "0", "-3", "1e10", "soon"] {
            assert!(timeout(bad).unwrap_err().contains("or none for no limit"), "{bad}");
        }
        assert!(bench_seconds("nan").is_err() && bench_seconds("0").is_err() && bench_seconds("0.5").is_ok());
    }
}
