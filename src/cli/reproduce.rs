//! `sweep reproduce`: re-run one job from its recorded seed and compare every column but the
//! timings with the recorded rows.
//!
//! The job is the manifest's, which may come from anyone: a command solver's job runs its
//! program only with `--trust`, after the program's files and the spec text are found to
//! be the ones the run recorded (see [`crate::run::trust`]). Relative paths of the spec
//! are taken from the folder of the spec file the run read, wherever reproduce runs.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::error::{bad_input, exit};
use crate::mdp::{Evaluator, Opponent};
use crate::report::files::{Columns, write_text_atomic};
use crate::report::manifest::Manifest;
use crate::report::result_row::each_result;
use crate::report::{Field, ParamColumn, RESULT_COLUMNS, Record, TIMING_COLUMNS};
use crate::run::job;
use crate::solvers::ground_truth;
use crate::spec;

/// Flags of `sweep reproduce`.
#[derive(clap::Args, Debug)]
pub struct ReproduceArgs {
    /// A results directory or its results.csv.
    results: PathBuf,
    /// The job id (a unique prefix is enough).
    #[arg(long)]
    job: String,
    /// Also write the job's greedy policy as CSV `board,action,seat,game` (states it reaches against random), which a spec can name as an opponent: `opponent = { policy = "FILE" }`.
    #[arg(long, value_name = "FILE")]
    policy_out: Option<PathBuf>,
    /// Print every column of every row side by side (by default only the values that differ).
    #[arg(long, short)]
    verbose: bool,
    /// Run a command solver's program: the manifest names it, so without this flag sweep only shows the command. With it, the program's files and the spec must still hash to what the run recorded.
    #[arg(long)]
    trust: bool,
    #[command(flatten)]
    verification: Verification,
}

/// The flag of every command that reads a results folder: whether to read result files
/// that cannot be verified.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct Verification {
    /// Read the result files even when they cannot be verified (no manifest.json, one that
    /// cannot be read, or files changed since sweep wrote them); a warning on standard error
    /// says the figures are unverified.
    #[arg(long)]
    pub unverified: bool,
}

/// The directory of a RESULTS argument (a directory or its results.csv), once its result
/// files are found to hold what sweep wrote (see [`crate::report::integrity`] and
/// [`crate::report::manifest::check_dir`]): refused when they cannot be, unless
/// `verification` says to read them unverified; what could not be checked is said on
/// standard error.
pub fn results_dir(results: &Path, verification: Verification) -> Result<PathBuf> {
    let dir = if results.is_dir() {
        results.to_path_buf()
    } else if results.file_name().is_some_and(|n| n == "results.csv") && results.is_file() {
        results.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    } else {
        return Err(bad_input(format!(
            "{}: not a results directory or a results.csv (expected a directory written by `sweep run`)",
            results.display()
        )));
    };
    for note in crate::report::manifest::check_dir(&dir, verification.unverified)? {
        eprintln!("{note}");
    }
    Ok(dir)
}

/// Reads `results.csv` one row at a time: the distinct job ids that start with `prefix`
/// (sorted), and the rows of the first few of them (enough for one job, or to show that the
/// prefix is ambiguous), so a file of millions of rows is never held; and the file's
/// columns (a file of an older version lacks the newer ones, which read as empty).
fn matching_rows(dir: &Path, prefix: &str) -> Result<(Vec<String>, Vec<Record>, Columns)> {
    let mut ids = std::collections::BTreeSet::new();
    let mut rows = Vec::new();
    let columns = each_result(&dir.join("results.csv"), &[Field::JobId.name()], |row| {
        let id = row.job_id();
        if !id.starts_with(prefix) {
            return;
        }
        let known = ids.contains(id);
        if known || ids.len() < 6 {
            rows.push(row.cells().map(str::to_string).collect());
        }
        if !known {
            ids.insert(id.to_string());
        }
    })
    .map_err(|e| bad_input(format!("{e:#}")))?;
    Ok((ids.into_iter().collect(), rows, columns))
}

/// Runs `sweep reproduce`.
pub fn reproduce(args: &ReproduceArgs) -> Result<i32> {
    let dir = results_dir(&args.results, args.verification)?;
    let manifest = Manifest::read(&dir).map_err(|e| bad_input(format!("{e:#}")))?;
    let (ids, rows, columns) = matching_rows(&dir, &args.job)?;
    let id = unique_id(&ids, &dir, &args.job)?;
    check_policies(&manifest)?;
    // Relative paths of the spec (programs, policies) are the spec's folder's, wherever
    // reproduce runs.
    let spec_file = manifest.spec_path.clone().unwrap_or_else(|| manifest.spec_file.clone());
    let sweep = spec::parse(&manifest.spec_text, &spec_file).map_err(|e| bad_input(e.to_string()))?;
    let jobs = recorded_jobs(&dir, &sweep)?;
    let job = jobs
        .iter()
        .find(|j| j.id == id)
        .ok_or_else(|| bad_input(format!("job {id} is in results.csv but not in the spec recorded in the manifest")))?;
    if args.policy_out.is_some() {
        check_policy_out(job, &id)?;
    }
    if let Some(point) = job.params.program() {
        check_trust(&dir, &manifest, &sweep, job, point, args.trust)?;
    }
    let recorded: Vec<&Record> = rows.iter().filter(|r| r[0] == id).collect();
    let out = rerun(job, &sweep);
    let mut differ = 0;
    let test = if job.split == crate::job::Split::Test { "test " } else { "" };
    println!("job {id} ({}, {test}replicate {}, seed {})", job.params.solver_name(), job.replicate, job.seed);
    if recorded.len() != out.rows.len() {
        println!("recorded {}, reproduced {}", crate::names::count(recorded.len(), "row"), out.rows.len());
        differ += 1;
    }
    differ += compare(&recorded, &out.rows, &columns, args.verbose);
    if let Some(path) = &args.policy_out {
        write_policy(job, &sweep.evaluation, path)?;
        println!("policy written to {}", path.display());
    }
    Ok(verdict(differ, &columns, job, &recorded, &out.rows))
}

/// The one job id of `ids` (those that start with `prefix` in the results of `dir`); an
/// error when there is none, or more than one.
fn unique_id(ids: &[String], dir: &Path, prefix: &str) -> Result<String> {
    match ids {
        [one] => Ok(one.to_string()),
        [] => Err(bad_input(format!("no job in {} has an id starting with {:?}", dir.display(), prefix))),
        many => Err(bad_input(format!(
            "{} jobs have ids starting with {:?} ({}); give more digits",
            many.len(),
            prefix,
            many[..many.len().min(5)].join(", ")
        ))),
    }
}

/// The jobs of the recorded sweep: a model-based search's are what its results in `dir`
/// decide; any other sweep's are its grid's.
fn recorded_jobs(dir: &Path, sweep: &spec::Sweep) -> Result<Vec<crate::job::Job>> {
    Ok(match sweep.search.as_ref().filter(|s| s.method.models()) {
        // A model-based search's jobs are what its results decide.
        Some(_) => {
            let scores = crate::search::test_pass::Scores::read(&dir.join("results.csv"), sweep)
                .map_err(|e| bad_input(format!("{e:#}")))?;
            crate::search::rounds::decide(sweep, &scores).jobs
        }
        None => sweep.jobs(),
    })
}

/// Refuses `--policy-out` for a job (`id`) without a table of moves sweep can write: one
/// on a board too big to enumerate, or a command solver's.
fn check_policy_out(job: &crate::job::Job, id: &str) -> Result<()> {
    let game = job.params.game();
    if !game.enumerable() {
        return Err(bad_input(format!(
            "--policy-out: job {id} plays {game}, too big to enumerate: there is no table of moves to write; \
             its agent is asked positions on demand (`sweep score` scores one agent from any position)"
        )));
    }
    if job.params.program().is_some() {
        return Err(bad_input(format!(
            "--policy-out: job {id} is a command solver's: its policy is the file its program writes \
             ($SWEEP_POLICY, hashed in the policy_hash column), not one sweep can write"
        )));
    }
    Ok(())
}

/// Runs `job` of `sweep` again. A program's states file goes to a scratch folder,
/// removed afterwards: reproducing writes nothing in the results.
fn rerun(job: &crate::job::Job, sweep: &spec::Sweep) -> job::JobOutput {
    let scratch = std::env::temp_dir().join(format!("sweep-reproduce-{}", std::process::id()));
    let (stop, slots, extras) =
        (crate::run::StopToken::new(), crate::run::program::Slots::new(1), sweep.extra_columns());
    let place = job::Place { results: &scratch, stop: &stop, slots: &slots, extras: &extras };
    let fault = crate::run::Fault::from_env();
    let out = job::execute(job, &sweep.evaluation, &sweep.solvers[job.solver].label, fault.as_ref(), &place);
    let _ = std::fs::remove_dir_all(&scratch);
    crate::run::program::remove_scratch();
    out
}

/// Prints whether the job reproduced (`differ` values differ between the `recorded` and
/// `reproduced` rows) and returns the exit code.
fn verdict(
    differ: usize,
    columns: &Columns,
    job: &crate::job::Job,
    recorded: &[&Record],
    reproduced: &[Record],
) -> i32 {
    if differ == 0 && !columns.is_current() {
        println!(
            "reproduced: every recorded column but the timings is identical (the file, of an older version, lacks {})",
            columns.missing().join(", ")
        );
        exit::OK
    } else if differ == 0 && job.params.program().is_some() {
        println!(
            "reproduced: the same policy, and every column but the timings and the program's metrics is identical"
        );
        exit::OK
    } else if differ == 0 {
        println!("reproduced: every column but the timings is identical");
        exit::OK
    } else if job.params.program().is_some() && policy_differs(recorded, reproduced) {
        println!(
            "not reproducible: the program is not deterministic for this seed (it wrote another policy: {differ} \
             values differ); a program must draw every random number from SWEEP_SEED"
        );
        exit::FAILED
    } else {
        println!("NOT reproduced: {differ} values differ");
        exit::FAILED
    }
}

/// Whether a command job's reproduced policy file differs from the recorded one (by the
/// `policy_hash` column).
fn policy_differs(recorded: &[&Record], reproduced: &[Record]) -> bool {
    let c = Field::PolicyHash.column();
    recorded.iter().zip(reproduced).any(|(old, new)| old.get(c) != new.get(c))
}

/// Compares the recorded and reproduced rows column by column and returns how many values
/// differ (timings and columns newer than the file are not compared). Prints the values
/// that differ, or with `verbose` every column side by side.
fn compare(recorded: &[&Record], reproduced: &[Record], columns: &Columns, verbose: bool) -> usize {
    let mut differ = 0;
    for (old, new) in recorded.iter().zip(reproduced) {
        if !verbose {
            differ += print_differences(old, new, columns);
            continue;
        }
        println!("{:<14} {:<24} {:<24}", "column", "recorded", "reproduced");
        for (c, name) in RESULT_COLUMNS.iter().enumerate() {
            let timing = not_compared(name);
            // A column newer than the file was not recorded: shown, not compared.
            let in_file = columns.index(name).is_some();
            let same = old[c] == new[c];
            if !same && !timing && in_file {
                differ += 1;
            }
            let mark = if !in_file {
                "  (not recorded)"
            } else if timing {
                "  (not compared)"
            } else if same {
                ""
            } else {
                "  DIFFERENT"
            };
            println!("{name:<14} {:<24} {:<24}{mark}", old[c], new[c]);
        }
        println!();
    }
    differ
}

/// Whether a column is left out of the comparison: the timings, and a command solver's
/// `metrics` (the program's own numbers, which may hold its own timings or say which
/// library it found).
fn not_compared(name: &str) -> bool {
    TIMING_COLUMNS.contains(&name) || name == Field::Metrics.name()
}

/// Prints one line per compared value that differs between `old` and `new`; returns how many.
fn print_differences(old: &Record, new: &Record, columns: &Columns) -> usize {
    let (seat, opponent) = (&new[ParamColumn::Seat.column()], &new[Field::EvalOpponent.column()]);
    let mut differ = 0;
    for (c, name) in RESULT_COLUMNS.iter().enumerate() {
        if old[c] == new[c] || columns.index(name).is_none() {
            continue;
        }
        if *name == Field::Metrics.name() {
            println!(
                "{seat} vs {opponent}: metrics (the program's own numbers: shown, not compared) recorded {:?}, reproduced {:?}",
                old[c], new[c]
            );
        } else if !TIMING_COLUMNS.contains(name) {
            differ += 1;
            println!("{seat} vs {opponent}: {name} recorded {:?}, reproduced {:?}  DIFFERENT", old[c], new[c]);
        }
    }
    differ
}

/// Before a command job runs its program: without `trust`, refuses, showing the command;
/// with it, refuses a spec text or a program file that is not what the run recorded.
fn check_trust(
    dir: &Path,
    manifest: &Manifest,
    sweep: &spec::Sweep,
    job: &crate::job::Job,
    point: &crate::kinds::CommandPoint,
    trust: bool,
) -> Result<()> {
    let program = point.program;
    if !trust {
        let argv = crate::run::program::argv(point, &job.id, job.seed);
        return Err(bad_input(format!(
            "job {} is a command solver's: reproducing it runs the program that {} names:\n  {}\nin a scratch \
             folder, with the spec's folder {}. Run again with --trust if you trust this results folder and that \
             program",
            job.id,
            dir.join("manifest.json").display(),
            crate::run::trust::shown(&argv),
            crate::run::trust::absolute(&program.dir).display()
        )));
    }
    if let Some(recorded) = &manifest.spec_fnv1a {
        let now = format!("{:016x}", crate::seed::fnv1a(manifest.spec_text.as_bytes()));
        if now != *recorded {
            return Err(bad_input(format!(
                "{}: the spec text it holds is not the spec file the run read (FNV-1a {recorded} recorded, {now} \
                 now); sweep will not run its programs",
                dir.join("manifest.json").display()
            )));
        }
    }
    let now = crate::run::trust::programs(sweep);
    let this: Vec<_> = now.into_iter().filter(|p| p.label == program.label).collect();
    if manifest.programs.is_empty() {
        eprintln!(
            "note: {} records no hashes of the programs (an older version of sweep wrote it); only the files of \
             the solver's `files` are checked",
            dir.join("manifest.json").display()
        );
    } else {
        crate::run::trust::compare(&manifest.programs, &this, true)?;
    }
    match crate::run::trust::changed_file(&manifest.spec, &sweep.resolved()) {
        Some(why) => Err(bad_input(format!("{why}; sweep will not run it in place of the file the results came from"))),
        None => Ok(()),
    }
}

/// Checks that every saved policy file the run read still has the bytes it had: a
/// changed or missing file cannot reproduce the run's rows.
fn check_policies(manifest: &Manifest) -> Result<()> {
    let spec_file = manifest.spec_path.as_deref().unwrap_or(&manifest.spec_file);
    let folder = Path::new(spec_file).parent().unwrap_or(Path::new(""));
    for file in &manifest.policies {
        let path = folder.join(&file.path);
        let bytes = std::fs::read(&path).map_err(|e| {
            bad_input(format!(
                "{}: cannot read the policy file the run played against ({e}); it is named {} in the spec {}",
                path.display(),
                file.path,
                manifest.spec_file
            ))
        })?;
        let now = format!("{:016x}", crate::seed::fnv1a(&bytes));
        if now != file.fnv1a {
            return Err(bad_input(format!(
                "{}: the policy file has changed since the run (FNV-1a {} recorded in the manifest, {now} now), so \
                 its rows cannot be reproduced; restore the file, or run the spec again",
                path.display(),
                file.fnv1a
            )));
        }
    }
    Ok(())
}

fn write_policy(job: &crate::job::Job, evaluation: &spec::EvaluationSpec, path: &Path) -> Result<()> {
    let policy = job::policy(job, evaluation)
        .ok_or_else(|| bad_input("--policy-out: a command solver's policy is the file its program writes"))?;
    let mut text = String::from("board,action,seat,game\n");
    let game = policy.game();
    let mut lines = Vec::new();
    for seat in job.params.eval_seats() {
        let truth = ground_truth(game, seat, Opponent::Random);
        Evaluator::new().evaluate(&truth.mdp, |_, b| {
            let c = policy.get_or_first(b);
            lines.push(format!("{b},{},{},{game}\n", game.move_text(c), seat.name()));
            c
        });
    }
    lines.into_iter().for_each(|l| text.push_str(&l));
    write_text_atomic(path, &text).map_err(|e| bad_input(format!("--policy-out {}: {e:#}", path.display())))
}
