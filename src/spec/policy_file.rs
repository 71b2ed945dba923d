//! `{ policy = "file.csv" }`: a saved policy as an opponent. The file is read here, at the
//! edge (CSV `board,action,seat,game`, as `sweep reproduce --policy-out` writes it, parsed
//! by [`saved_policy::parse`]), its
//! path taken relative to the spec's folder, and its moves registered as a
//! [`SavedPolicy`] under the FNV-1a hash of its bytes; the opponent then is
//! [`Opponent::Policy`]. Which seat and game it may face is checked by the solver's grid
//! ([`check`]).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::Report;
use super::tree::{Entry, Leaf, Node};
use crate::game::Game;
use crate::mdp::saved_policy::{self, SavedPolicy};
use crate::mdp::{Opponent, Seat};

/// The form, for messages.
pub(crate) const FORM: &str = "{ policy = \"file.csv\" } (a policy file board,action,seat,game as \
                               `sweep reproduce --policy-out` writes it, relative to the spec's folder)";

/// Whether `entries` are the `{ policy = .. }` form.
pub(crate) fn is_policy(entries: &[Entry]) -> bool {
    entries.first().is_some_and(|e| e.key == "policy")
}

/// Reads the policy opponent `node` (a `{ policy = "file.csv" }` table) of `key`; `None`
/// (and a problem) when the table or the file is not right.
pub(crate) fn read(
    report: &mut Report,
    key: &str,
    node: &Node,
    entries: &[Entry],
    spec_file: &str,
) -> Option<Opponent> {
    let path = match entries {
        [Entry { key: k, node: Node { value: Leaf::Str(path), .. }, .. }] if k == "policy" => path,
        _ => {
            report.value(key, node, format!("is not a policy opponent: write {FORM}"));
            return None;
        }
    };
    let full = Path::new(spec_file).parent().unwrap_or(Path::new("")).join(path);
    let bytes = match std::fs::read(&full) {
        Ok(bytes) => bytes,
        Err(e) => {
            let why =
                if e.kind() == std::io::ErrorKind::NotFound { "does not exist".to_string() } else { e.to_string() };
            report.value(
                key,
                node,
                format!("names {}, which {why} (the path is relative to the spec's folder)", full.display()),
            );
            return None;
        }
    };
    match saved_policy::parse(&bytes) {
        Ok((game, moves)) => {
            let hash = crate::seed::fnv1a(&bytes);
            Some(Opponent::Policy(saved_policy::register(SavedPolicy::new(path, hash, game, &moves))))
        }
        Err(why) => {
            report.value(key, node, format!("names {}: {why}", full.display()));
            None
        }
    }
}

/// Checks that saved policy `policy` can be the opponent of an agent in each of `seats`
/// in each of `games`: the same game, the other seat, and a move in every position the
/// agent can lead it to; else a clause that says what is wrong, naming a missing board.
pub(crate) fn check(policy: Opponent, seats: &[Seat], games: &[Game]) -> Result<(), String> {
    let Opponent::Policy(p) = policy else { return Ok(()) };
    if let Some(game) = games.iter().find(|&&g| g != p.game) {
        return Err(format!("{} is a policy for {}, not for this solver's game {game}", p.path, p.game));
    }
    for &seat in seats {
        if !policy.faces(seat) {
            let holds: Vec<&str> = p.seats.iter().map(|s| s.name()).collect();
            return Err(format!(
                "{} plays {} (the seat its rows are for), so it cannot be the opponent of an agent in seat {seat}: \
                 it needs rows for seat {}",
                p.path,
                holds.join(" and "),
                seat.other()
            ));
        }
        if let Some(board) = p.first_missing(seat) {
            return Err(format!(
                "{} has no move for {board}, a position the opponent of an agent in seat {seat} must move in \
                 (save the policy with `sweep reproduce --policy-out`, which writes every position it reaches)",
                p.path
            ));
        }
    }
    Ok(())
}

/// A saved policy file an opponent reads: its path as the spec gives it (relative to the
/// spec's folder) and the FNV-1a hash of its bytes (16 hex digits), which `reproduce`
/// checks before re-running a job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyFile {
    /// The path, relative to the spec's folder.
    pub path: String,
    /// FNV-1a of the bytes, 16 hex digits.
    pub fnv1a: String,
}
