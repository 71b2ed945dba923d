//! The checks across solvers: distinct labels (and the default ones), `checkpoints` at most
//! every learner's episodes, at most [`MAX_JOBS`] jobs (each solver counting its own
//! replicates), and no grid point in two solvers; and the notes on sampled solvers.

use std::collections::HashMap;

use super::MAX_JOBS;
use super::error::Report;
use super::solver::Draft;
use super::tree::Entry;
use crate::kinds::Kind;

/// Every solver's label: the explicit one, or the default; duplicates are problems.
pub(crate) fn labels(report: &mut Report, drafts: &[Draft]) -> Vec<String> {
    let mut of_kind: HashMap<Kind, usize> = HashMap::new();
    for kind in drafts.iter().filter_map(|d| d.kind) {
        *of_kind.entry(kind).or_default() += 1;
    }
    let mut seen_of_kind: HashMap<Kind, usize> = HashMap::new();
    let mut first_with: HashMap<String, usize> = HashMap::new();
    let mut labels = Vec::with_capacity(drafts.len());
    for draft in drafts {
        let label = match (&draft.label, draft.kind) {
            (Some((label, _)), _) => label.clone(),
            (None, Some(kind)) if of_kind[&kind] == 1 => kind.name().to_string(),
            (None, Some(kind)) => format!("{}-{}", kind.name(), seen_of_kind.get(&kind).map_or(1, |n| n + 1)),
            (None, None) => format!("solver-{}", draft.number),
        };
        if let Some(kind) = draft.kind {
            *seen_of_kind.entry(kind).or_default() += 1;
        }
        match first_with.get(&label) {
            Some(&first) => duplicate_label(report, draft, &label, first),
            None => {
                first_with.insert(label.clone(), draft.number);
            }
        }
        labels.push(label);
    }
    labels
}

fn duplicate_label(report: &mut Report, draft: &Draft, label: &str, first: usize) {
    let key = format!("solver[{}].label", draft.number);
    match &draft.label {
        Some((_, entry)) => {
            let message = format!("is also the label of solver[{first}]: labels must be distinct");
            report.entry(&key, entry, message);
        }
        None => {
            let message = format!(
                "(the default) is also the label of solver[{first}]: labels must be distinct; \
                 set a label on one of them"
            );
            report.at(draft.span.as_ref(), Some(&key), Some(format!("\"{label}\"")), message);
        }
    }
}

/// `checkpoints <= episodes` at every q-learning grid point.
pub(crate) fn check_checkpoints(
    report: &mut Report,
    drafts: &[Draft],
    (checkpoints, checkpoints_entry): (u32, Option<&Entry>),
) {
    let checkpoints = u64::from(checkpoints);
    for draft in drafts {
        let Some(fewest) = draft.fewest_episodes else {
            continue;
        };
        if fewest >= checkpoints {
            continue;
        }
        let key = format!("solver[{}].episodes", draft.number);
        match (draft.episodes, checkpoints_entry) {
            (Some(entry), _) => {
                let message = format!(
                    "is fewer than evaluation.checkpoints = {checkpoints} at some grid points (episodes = {fewest}): \
                     every learner needs episodes >= checkpoints; raise episodes or lower checkpoints"
                );
                report.entry(&key, entry, message);
            }
            (None, Some(entry)) => {
                let message = format!(
                    "is more than the default episodes = {fewest} of {}: checkpoints must be at most episodes; \
                     lower checkpoints or raise episodes",
                    format_args!("solver[{}]", draft.number)
                );
                report.entry("evaluation.checkpoints", entry, message);
            }
            (None, None) => unreachable!("the default episodes exceed the default checkpoints"),
        }
    }
}

/// At most [`MAX_JOBS`] jobs.
pub(crate) fn check_size(report: &mut Report, drafts: &[Draft], replicates: u32, labels: &[String]) {
    let per_solver: Vec<(&String, u128)> = drafts
        .iter()
        .zip(labels)
        .filter_map(|(d, label)| d.grid.as_ref().map(|g| (d, label, u128::from(g.len()))))
        .map(|(d, label, points)| (label, points * u128::from(d.replicates.unwrap_or(replicates))))
        .collect();
    let total: u128 = per_solver.iter().map(|(_, n)| n).sum();
    if total <= u128::from(MAX_JOBS) {
        return;
    }
    let counts: Vec<String> = per_solver.iter().map(|(label, n)| format!("{label}: {n}")).collect();
    let message = format!(
        "asks for {total} jobs ({}), more than the {MAX_JOBS} a sweep may have: shrink the grids or the replicates",
        counts.join(", ")
    );
    report.file(None, message);
}

/// No two solvers share a grid point (their jobs would share ids).
pub(crate) fn check_shared_points(report: &mut Report, drafts: &[Draft], labels: &[String]) {
    for (j, later) in drafts.iter().enumerate() {
        let Some(b) = &later.grid else { continue };
        for (i, earlier) in drafts[..j].iter().enumerate() {
            let Some(a) = &earlier.grid else { continue };
            if let Some(point) = a.shared_point(b) {
                let message = format!(
                    "(label \"{}\") shares grid points with solver[{}] (label \"{}\"), e.g. {point}: \
                     their jobs would have the same ids; make the grids disjoint or remove one",
                    labels[j], earlier.number, labels[i]
                );
                report.at(later.span.as_ref(), Some(&format!("solver[{}]", later.number)), None, message);
                break;
            }
        }
    }
}

/// What `sweep plan` says about each sampled solver: how many points were drawn, how, and
/// how many were distinct.
pub(crate) fn sample_notes(drafts: &[Draft], labels: &[String]) -> Vec<String> {
    let mut notes = Vec::new();
    for (draft, label) in drafts.iter().zip(labels) {
        let Some(s) = draft.grid.as_ref().and_then(|g| g.sampled.as_ref().map(|s| (g, s))) else { continue };
        let (grid, s) = s;
        let names: Vec<&str> = s.axes.iter().map(|(i, _)| grid.params()[*i].name).collect();
        let mut note = format!(
            "solver[{}] ({label}): {} samples by {} over {}",
            draft.number,
            s.samples,
            s.sampler.name(),
            names.join(", ")
        );
        if (s.points.len() as u64) < s.samples {
            note.push_str(&format!(": {} distinct points (repeats dropped)", s.points.len()));
        }
        if s.sampler == super::sample::Sampler::Sobol && !s.samples.is_power_of_two() {
            note.push_str("; Sobol points are most even when samples is a power of two");
        }
        notes.push(note);
    }
    notes
}
