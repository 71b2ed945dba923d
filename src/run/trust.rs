//! The programs a results folder would have sweep run, and when that needs `--trust`.
//!
//! A command solver runs a program, so a results folder from elsewhere must run nothing
//! unasked. The manifest records, when a run starts, each command solver's command and the
//! files it runs with their FNV-1a hashes ([`programs`]), and the spec file's path and hash.
//!
//! - `sweep run SPEC` into a new folder runs the programs of the spec the user named:
//!   nothing to ask.
//! - A resume or `--extend` runs SPEC's programs beside rows that the folder's programs
//!   wrote. It needs `--trust` only when the folder's manifest holds a command solver and was
//!   not written by this spec file (another path, or an older manifest that records none)
//!   or recorded another command for one of SPEC's command solvers ([`check_resume`]); the
//!   same command again in the same place (the way to resume) never asks.
//! - `sweep reproduce` runs the program the manifest names: always `--trust`.
//!
//! With `--trust` (and at every resume), a recorded program file whose bytes changed is
//! refused, naming the file ([`compare`]).

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::error::bad_input;
use crate::kinds::Program;
use crate::report::manifest::{FileHash, Manifest, ProgramRecord};
use crate::spec::Sweep;

/// The programs of `sweep`'s command solvers, with the files they run and their hashes.
pub fn programs(sweep: &Sweep) -> Vec<ProgramRecord> {
    sweep.programs().into_iter().map(record).collect()
}

fn record(program: &Program) -> ProgramRecord {
    let files = crate::kinds::command::program_files(&program.command, &program.dir)
        .into_iter()
        .filter_map(|path| {
            let bytes = std::fs::read(&path).ok()?;
            Some(FileHash { path: path.display().to_string(), fnv1a: format!("{:016x}", crate::seed::fnv1a(&bytes)) })
        })
        .collect();
    ProgramRecord { label: program.label.clone(), command: program.command.clone(), files }
}

/// A command as a user reads it: its words separated by spaces, a word with a space or a
/// quote in double quotes.
pub fn shown(command: &[String]) -> String {
    let word = |w: &String| {
        if w.is_empty() || w.contains([' ', '"', '\'', '\t']) { format!("{w:?}") } else { w.clone() }
    };
    command.iter().map(word).collect::<Vec<_>>().join(" ")
}

/// The spec file's absolute path (as given when it cannot be resolved).
pub fn absolute(spec: &Path) -> PathBuf {
    spec.canonicalize().unwrap_or_else(|_| spec.to_path_buf())
}

/// Compares the programs found now (`now`) with the ones a run recorded: refuses, naming
/// the file, a file of a solver that both run whose bytes changed; with `strict`, also a
/// file the program runs now that the run did not record (the command now finds another
/// executable or script).
pub fn compare(recorded: &[ProgramRecord], now: &[ProgramRecord], strict: bool) -> Result<()> {
    for program in now {
        let Some(then) = recorded.iter().find(|r| r.label == program.label) else { continue };
        for file in &program.files {
            let why = match then.files.iter().find(|f| f.path == file.path) {
                Some(old) if old.fnv1a == file.fnv1a => continue,
                Some(old) => {
                    format!(
                        "has changed since the run (FNV-1a {} recorded in the manifest, {} now)",
                        old.fnv1a, file.fnv1a
                    )
                }
                None if !strict => continue,
                None => {
                    let ran: Vec<&str> = then.files.iter().map(|f| f.path.as_str()).collect();
                    let ran = if ran.is_empty() { "no file of its own".to_string() } else { ran.join(", ") };
                    format!("is not the file the run recorded (it ran {ran})")
                }
            };
            return Err(bad_input(format!(
                "{}, the program of the command solver {}, {why}; sweep will not run it in place of the one the \
                 results came from: restore the file, or run the spec again (--fresh moves the old results aside)",
                file.path, program.label
            )));
        }
    }
    Ok(())
}

/// The command solvers (label, command) of a resolved spec.
fn recorded_commands(spec: &serde_json::Value) -> Vec<(String, Vec<String>)> {
    let solvers = spec["solvers"].as_array().map(Vec::as_slice).unwrap_or_default();
    solvers
        .iter()
        .filter(|s| s["kind"] == "command")
        .map(|s| {
            let command = s["command"].as_array().map(Vec::as_slice).unwrap_or_default();
            let words = command.iter().map(|w| w.as_str().unwrap_or_default().to_string()).collect();
            (s["label"].as_str().unwrap_or_default().to_string(), words)
        })
        .collect()
}

/// Why resuming `dir` (whose manifest is `old`) with the spec file `spec` needs `--trust`,
/// if it does (see the module's documentation).
fn why_trust(old: &Manifest, spec: &Path, sweep: &Sweep) -> Option<String> {
    let recorded = recorded_commands(&old.spec);
    if recorded.is_empty() || sweep.programs().is_empty() {
        return None;
    }
    let here = absolute(spec);
    let written_by = match &old.spec_path {
        Some(path) => Path::new(path) == here,
        None => absolute(Path::new(&old.spec_file)) == here,
    };
    if !written_by {
        let by = old.spec_path.as_deref().unwrap_or(&old.spec_file);
        return Some(format!("were written by another spec file ({by}), not {}", here.display()));
    }
    for program in sweep.programs() {
        if let Some((_, before)) = recorded.iter().find(|(label, _)| *label == program.label)
            && *before != program.command
        {
            return Some(format!(
                "ran another command for command:{} ({}, now {})",
                program.label,
                shown(before),
                shown(&program.command)
            ));
        }
    }
    None
}

/// Checks a resume (or `--extend`) of `dir`, whose manifest is `old`, with the spec file
/// `spec`: refuses without `--trust` when the folder was not written by this spec, naming
/// the commands that would run. (Whether a recorded program file changed is [`compare`]'s.)
pub fn check_resume(dir: &Path, old: &Manifest, spec: &Path, sweep: &Sweep, trust: bool) -> Result<()> {
    if !trust && let Some(why) = why_trust(old, spec, sweep) {
        let lines: Vec<String> = sweep
            .programs()
            .iter()
            .map(|p| format!("  command:{}: {} (from {})", p.label, shown(&p.command), folder(&p.dir).display()))
            .collect();
        return Err(bad_input(format!(
            "{} holds rows of command solvers that {why}; resuming would run these programs beside them:\n{}\n\
             Run again with --trust if you trust them and the rows already there (or use --fresh to move the old \
             results aside, or --out DIR to write elsewhere)",
            dir.display(),
            lines.join("\n")
        )));
    }
    Ok(())
}

/// A program's folder, absolute where it can be.
fn folder(dir: &Path) -> PathBuf {
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    absolute(dir)
}

/// The first file of a command solver (by label) whose FNV-1a hash differs between two
/// resolved specs, said in words.
pub fn changed_file(old: &serde_json::Value, new: &serde_json::Value) -> Option<String> {
    let files = |spec: &serde_json::Value| -> Vec<(String, String, String)> {
        let solvers = spec["solvers"].as_array().cloned().unwrap_or_default();
        solvers
            .iter()
            .flat_map(|s| {
                let label = s["label"].as_str().unwrap_or_default().to_string();
                let files = s["files"].as_array().cloned().unwrap_or_default();
                files.into_iter().map(move |f| {
                    let text = |k: &str| f[k].as_str().unwrap_or_default().to_string();
                    (label.clone(), text("path"), text("fnv1a"))
                })
            })
            .collect()
    };
    let before = files(old);
    files(new).into_iter().find_map(|(label, path, hash)| {
        let old_hash = before.iter().find(|(l, p, _)| *l == label && *p == path).map(|f| &f.2)?;
        (*old_hash != hash).then(|| {
            format!("{path}, a file of the command solver {label}, has changed since the run (FNV-1a {old_hash} then, {hash} now)")
        })
    })
}
