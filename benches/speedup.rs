//! Thread speedup of a whole sweep: `experiments/qlearning.toml` run through the real
//! executor (files, progress off, final sorted rewrite) with 1 thread and with all cores,
//! alternately, in one process.
//!
//! Prints, per pair of runs, both wall times, their ratio and how much CPU the rest of the
//! machine used meanwhile (a run that shares the machine is not a clean measurement); then
//! the medians: speedup, the jobs' own time (sum of `train_ms + eval_ms`) per thread count,
//! and the executor's overhead, `1 - job time / (threads x wall)`.
//!
//! `SWEEP_SPEEDUP_PAIRS` (default 7) sets the number of pairs, `SWEEP_SPEEDUP_SPEC` another
//! spec. Run: `cargo bench --bench speedup`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use sweep::run::{Existing, RunOptions, StopToken, run};

/// One timed run.
struct Sample {
    wall: f64,
    job_time: f64,
    other_cpu: f64,
}

/// Busy CPU seconds of the whole machine so far (all CPUs, from `/proc/stat`).
fn machine_busy() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?;
    let f: Vec<f64> = line.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    // user nice system idle iowait irq softirq steal
    let busy = f.first()? + f.get(1)? + f.get(2)? + f.get(5)? + f.get(6)? + f.get(7)?;
    Some(busy / 100.0)
}

/// CPU seconds used by this process so far.
fn own_cpu() -> f64 {
    // SAFETY: getrusage only writes into the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// The jobs' own time in seconds: `train_ms + eval_ms` of each job, counted once.
fn job_time(results: &Path) -> f64 {
    let mut r = csv::Reader::from_path(results).expect("results.csv");
    let h = r.headers().unwrap().clone();
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    let (id, train, eval) = (col("job_id"), col("train_ms"), col("eval_ms"));
    let mut per_job: HashMap<String, f64> = HashMap::new();
    for rec in r.records() {
        let rec = rec.unwrap();
        let ms: f64 = rec[train].parse::<f64>().unwrap() + rec[eval].parse::<f64>().unwrap();
        per_job.insert(rec[id].to_string(), ms);
    }
    per_job.values().sum::<f64>() / 1e3
}

fn one_run(spec: &Path, threads: usize, out: &Path) -> Sample {
    let opts = RunOptions {
        spec: spec.to_path_buf(),
        threads: Some(threads),
        out: Some(out.to_path_buf()),
        existing: Existing::Fresh,
        quiet: true,
        ..RunOptions::default()
    };
    if out.exists() {
        std::fs::remove_dir_all(out).unwrap();
    }
    let (busy0, cpu0) = (machine_busy(), own_cpu());
    let t = Instant::now();
    let report = run(&opts, &StopToken::new()).expect("the sweep runs");
    let wall = t.elapsed().as_secs_f64();
    let (busy1, cpu1) = (machine_busy(), own_cpu());
    assert_eq!(report.failed, 0, "no job may fail");
    let other_cpu = match (busy0, busy1) {
        (Some(a), Some(b)) => ((b - a) - (cpu1 - cpu0)).max(0.0),
        _ => f64::NAN,
    };
    Sample { wall, job_time: job_time(&out.join("results.csv")), other_cpu }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("benches/ is inside the repository");
    let spec: PathBuf =
        std::env::var_os("SWEEP_SPEEDUP_SPEC").map_or_else(|| root.join("experiments/qlearning.toml"), PathBuf::from);
    let pairs: usize = std::env::var("SWEEP_SPEEDUP_PAIRS").ok().and_then(|v| v.parse().ok()).unwrap_or(7);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 {
        println!("speedup: this machine has 1 core; nothing to compare");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    println!("speedup of {} with 1 vs {cores} threads, {pairs} pairs (after one warm-up run)", spec.display());
    one_run(&spec, cores, &out);
    println!("{:>4} {:>9} {:>9} {:>8} {:>14}", "pair", "1 thread", "threads", "speedup", "other CPU (s)");
    let (mut one, mut many) = (Vec::new(), Vec::new());
    for p in 0..pairs {
        // Alternate which run goes first, so a slow drift of the machine cancels out.
        let (a, b) = if p % 2 == 0 {
            let a = one_run(&spec, 1, &out);
            (a, one_run(&spec, cores, &out))
        } else {
            let b = one_run(&spec, cores, &out);
            (one_run(&spec, 1, &out), b)
        };
        println!(
            "{:>4} {:>8.3}s {:>8.3}s {:>7.2}x {:>6.2} + {:.2}",
            p + 1,
            a.wall,
            b.wall,
            a.wall / b.wall,
            a.other_cpu,
            b.other_cpu
        );
        one.push(a);
        many.push(b);
    }
    let ratios: Vec<f64> = one.iter().zip(&many).map(|(a, b)| a.wall / b.wall).collect();
    let overhead = |s: &[Sample], t: usize| median(s.iter().map(|x| 1.0 - x.job_time / (t as f64 * x.wall)).collect());
    let wall = |s: &[Sample]| median(s.iter().map(|x| x.wall).collect());
    let jobs = |s: &[Sample]| median(s.iter().map(|x| x.job_time).collect());
    println!(
        "median speedup of the pairs: {:.2}x (range {:.2}-{:.2})",
        median(ratios.clone()),
        { ratios.iter().copied().fold(f64::INFINITY, f64::min) },
        ratios.iter().copied().fold(0.0, f64::max)
    );
    println!(
        "ratio of the median walls:   {:.2}x ({:.3} s / {:.3} s)",
        wall(&one) / wall(&many),
        wall(&one),
        wall(&many)
    );
    println!(
        "job time (median):           {:.3} s on 1 thread, {:.3} s on {cores} (each job {:+.1}% slower)",
        jobs(&one),
        jobs(&many),
        100.0 * (jobs(&many) / jobs(&one) - 1.0)
    );
    println!(
        "executor overhead (median):  {:.1}% on 1 thread, {:.1}% on {cores}",
        100.0 * overhead(&one, 1),
        100.0 * overhead(&many, cores)
    );
}
