//! `{ policy = "file.csv" }`: a saved policy as an opponent. The file is read here, at the
//! edge (CSV `board,action,seat,game`, as `sweep reproduce --policy-out` writes it), its
//! path taken relative to the spec's folder, and its moves registered as a
//! [`SavedPolicy`] under the FNV-1a hash of its bytes; the opponent then is
//! [`Opponent::Policy`]. Which seat and game it may face is checked by the solver's grid
//! ([`check`]).

use std::path::Path;

use super::error::Report;
use super::tree::{Entry, Leaf, Node};
use crate::game::{Board, Game};
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
    match parse(&bytes) {
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

/// The game and the (position id, cell) pairs of a policy file, or what is wrong with it
/// (with its line).
pub(crate) fn parse(bytes: &[u8]) -> Result<(Game, Vec<(usize, u8)>), String> {
    let mut reader = csv::Reader::from_reader(bytes);
    let header = reader.headers().map_err(|e| format!("line 1: {e}"))?.clone();
    if header.iter().map(str::trim).collect::<Vec<_>>() != ["board", "action", "seat", "game"] {
        return Err("line 1: the header is not board,action,seat,game (the format `sweep reproduce --policy-out` \
                    writes)"
            .into());
    }
    let mut game: Option<Game> = None;
    let mut moves = Vec::new();
    for (i, rec) in reader.records().enumerate() {
        let line = i + 2;
        let rec = rec.map_err(|e| format!("line {line}: {e}"))?;
        let field = |k: usize| rec.get(k).unwrap_or("").trim();
        let g: Game = field(3).parse().map_err(|_| format!("line {line}: {:?} is not a game", field(3)))?;
        match game {
            Some(first) if first != g => {
                return Err(format!("line {line}: the game is {g}, but earlier lines are for {first}"));
            }
            _ => game = Some(g),
        }
        let board = Board::parse_in(g, field(0)).map_err(|e| format!("line {line}: {e} (game {g})"))?;
        let cell = g.parse_move(board, field(1)).map_err(|e| format!("line {line}: the action: {e} (in {board})"))?;
        let id = g.positions().id(board).ok_or_else(|| format!("line {line}: {board} cannot arise in a game"))?;
        let to_move = if board.to_move() == Seat::X.player() { Seat::X } else { Seat::O };
        if field(2).parse::<Seat>().ok() != Some(to_move) {
            return Err(format!(
                "line {line}: the seat column says {:?}, but {to_move} is to move in {board}",
                field(2)
            ));
        }
        moves.push((id, cell));
    }
    let game = game.ok_or("it holds no move (a header and no rows)")?;
    Ok((game, moves))
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
