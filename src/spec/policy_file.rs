//! `{ policy = "file.csv" }`: a saved policy as an opponent. The file is read here, at the
//! edge (CSV `board,action,seat,game`, as `sweep reproduce --policy-out` writes it), its
//! path taken relative to the spec's folder, and its moves registered as a
//! [`SavedPolicy`] under the FNV-1a hash of its bytes; the opponent then is
//! [`Opponent::Policy`]. Which seat and game it may face is checked by the solver's grid
//! ([`check`]).

use std::path::Path;

use serde::{Deserialize, Serialize};

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
///
/// A file without quotes (what `sweep` and the agents write) is split by hand, a line at a
/// time: a command solver's job reads one or more such files of every position of its
/// seat (68,000 rows on 4x4g4), and the CSV reader's records cost several times more.
/// Anything else goes through the CSV reader.
pub(crate) fn parse(bytes: &[u8]) -> Result<(Game, Vec<(usize, u8)>), String> {
    let plain = (!bytes.contains(&b'"')).then(|| std::str::from_utf8(bytes).ok()).flatten();
    let mut rows = Rows::default();
    match plain {
        Some(text) => {
            let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
            header(lines.next().unwrap_or("").split(','))?;
            for (i, line) in lines.enumerate() {
                if line.is_empty() {
                    continue;
                }
                let mut f = line.split(',');
                let fields = [f.next(), f.next(), f.next(), f.next()].map(|x| x.unwrap_or("").trim());
                if f.next().is_some() || fields[3].is_empty() && !line.contains(',') {
                    return Err(format!("line {}: a row is board,action,seat,game (4 fields)", i + 2));
                }
                rows.add(i + 2, fields)?;
            }
        }
        None => {
            let mut reader = csv::Reader::from_reader(bytes);
            header(reader.headers().map_err(|e| format!("line 1: {e}"))?.iter())?;
            let mut rec = csv::StringRecord::new();
            let mut line = 2;
            while reader.read_record(&mut rec).map_err(|e| format!("line {line}: {e}"))? {
                let field = |k: usize| rec.get(k).unwrap_or("").trim();
                rows.add(line, [field(0), field(1), field(2), field(3)])?;
                line += 1;
            }
        }
    }
    let game = rows.game.ok_or("it holds no move (a header and no rows)")?;
    conflicts(game, &rows.moves, &rows.lines)?;
    Ok((game, rows.moves))
}

fn header<'a>(fields: impl Iterator<Item = &'a str>) -> Result<(), String> {
    if fields.map(str::trim).collect::<Vec<_>>() != ["board", "action", "seat", "game"] {
        return Err("line 1: the header is not board,action,seat,game (the format `sweep reproduce --policy-out` \
                    writes)"
            .into());
    }
    Ok(())
}

/// The rows of a policy file read so far.
#[derive(Default)]
struct Rows {
    game: Option<Game>,
    /// The game column's text of the last row and its game: the column is the same text
    /// on every row, parsed again only when it changes.
    last: (String, Option<Game>),
    positions: Option<&'static crate::game::Positions>,
    /// The position after the last row's: rows in position order (as the states file
    /// lists them) are found by a short forward scan, not a lookup in the positions'
    /// index, which on a 16-cell board is a cache miss in a 172 MB table.
    next: usize,
    moves: Vec<(usize, u8)>,
    /// The line of each move.
    lines: Vec<u32>,
}

/// A board given twice with different moves is an error naming both lines (the same
/// move twice is only a repeat).
fn conflicts(game: Game, moves: &[(usize, u8)], lines: &[u32]) -> Result<(), String> {
    let mut order: Vec<usize> = (0..moves.len()).collect();
    order.sort_unstable_by_key(|&k| (moves[k].0, lines[k]));
    for pair in order.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if moves[a].0 == moves[b].0 && moves[a].1 != moves[b].1 {
            let board = game.positions().board(moves[a].0);
            return Err(format!(
                "lines {} and {} give {board} two moves ({} and {}): a policy has one move per board",
                lines[a],
                lines[b],
                game.move_text(moves[a].1),
                game.move_text(moves[b].1)
            ));
        }
    }
    Ok(())
}

impl Rows {
    /// Adds the row `[board, action, seat, game]` at `line`.
    fn add(&mut self, line: usize, [board, action, seat, game]: [&str; 4]) -> Result<(), String> {
        if self.last.1.is_none() || self.last.0 != game {
            self.last = (game.to_string(), game.parse().ok());
        }
        let g: Game = self.last.1.ok_or_else(|| format!("line {line}: {game:?} is not a game"))?;
        match self.game {
            Some(first) if first != g => {
                return Err(format!("line {line}: the game is {g}, but earlier lines are for {first}"));
            }
            _ => self.game = Some(g),
        }
        let b = Board::parse_in(g, board).map_err(|e| format!("line {line}: {e} (game {g})"))?;
        let cell = b.parse_move(action).map_err(|e| format!("line {line}: the action: {e} (in {b})"))?;
        let positions = *self.positions.get_or_insert_with(|| g.positions());
        let ahead = (self.next..positions.len().min(self.next + 64)).find(|&p| positions.board(p) == b);
        let id = match ahead {
            Some(p) => p,
            None => positions.id(b).ok_or_else(|| format!("line {line}: {b} cannot arise in a game"))?,
        };
        self.next = id + 1;
        let to_move = if b.to_move() == Seat::X.player() { Seat::X } else { Seat::O };
        if seat.parse::<Seat>().ok() != Some(to_move) {
            return Err(format!("line {line}: the seat column says {seat:?}, but {to_move} is to move in {b}"));
        }
        self.moves.push((id, cell));
        self.lines.push(line as u32);
        Ok(())
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
