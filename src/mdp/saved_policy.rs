//! Saved policies as opponents: a deterministic opponent whose move in each of its
//! positions comes from a policy file (`board,action,seat,game`, as `sweep reproduce
//! --policy-out` writes it).
//!
//! The spec reader reads the file (this module does no I/O), [`parse`] reads its text (the
//! same parser reads a command solver's policy files), and the reader hands its moves to
//! [`register`], which keeps one [`SavedPolicy`] per content hash for the whole process
//! and returns a [`PolicyRef`]: a `Copy` handle, compared, ordered and hashed by the
//! file's hash, so that [`Opponent`](super::Opponent) stays `Copy` and every cache keyed
//! by (game, seat, opponent) keys a saved policy by its content. Two files with the same
//! bytes are one policy.

use std::sync::Mutex;

use super::seat::Seat;
use crate::game::{Board, Game, Positions, Status};

/// No move stored for a position.
const NONE: u8 = u8::MAX;

/// A policy read from a file: one move per position of the seats it holds.
#[derive(Debug)]
pub struct SavedPolicy {
    /// FNV-1a of the file's bytes.
    pub hash: u64,
    /// The path as the spec gives it (relative to the spec's folder).
    pub path: String,
    /// `policy:<16 hex digits of the hash>`: the value in job keys and the resolved spec.
    pub key: String,
    /// `policy:<file name>@<8 hex digits>`: the name in CSV files and messages.
    pub name: String,
    /// The game the file is for.
    pub game: Game,
    /// The seats whose positions the file holds.
    pub seats: Vec<Seat>,
    /// Per position id: the cell played, or [`NONE`].
    moves: Vec<u8>,
}

impl SavedPolicy {
    /// A policy of `game` from `(position id, cell)` pairs, for the file at `path` whose
    /// bytes hash to `hash`.
    pub fn new(path: &str, hash: u64, game: Game, moves: &[(usize, u8)]) -> SavedPolicy {
        let pos = game.positions();
        let mut table = vec![NONE; pos.len()];
        let mut seats = Vec::new();
        for &(p, cell) in moves {
            table[p] = cell;
            let seat = if pos.board(p).to_move() == Seat::X.player() { Seat::X } else { Seat::O };
            if !seats.contains(&seat) {
                seats.push(seat);
            }
        }
        seats.sort();
        let file = std::path::Path::new(path).file_name().map_or(path.into(), |f| f.to_string_lossy());
        SavedPolicy {
            hash,
            path: path.to_string(),
            key: format!("policy:{hash:016x}"),
            name: format!("policy:{file}@{:08x}", hash >> 32),
            game,
            seats,
            moves: table,
        }
    }

    /// The cell played in position `p`, if the file holds it.
    #[inline]
    pub fn get(&self, p: usize) -> Option<u8> {
        Some(self.moves[p]).filter(|&c| c != NONE)
    }

    /// The first position (in position order) where it must move when it plays the
    /// other seat than `agent` in its game, and has no move: `None` when it covers every
    /// position the agent can lead it to.
    pub fn first_missing(&self, agent: Seat) -> Option<Board> {
        let pos = self.game.positions();
        let me = agent.player();
        let mut reached = vec![false; pos.len()];
        let opponent_at = |p: usize, reached: &mut [bool]| -> Result<(), Board> {
            let cell = self.get(p).ok_or(pos.board(p))?;
            let n = pos.child(p, cell) as usize;
            reached[n] = pos.status(n) == Status::Ongoing;
            Ok(())
        };
        match agent {
            Seat::X => reached[0] = true,
            Seat::O => {
                if let Err(board) = opponent_at(0, &mut reached) {
                    return Some(board);
                }
            }
        }
        // Positions in id order are topological: every move leads to a larger id.
        for p in 0..pos.len() {
            if !reached[p] || pos.board(p).to_move() != me {
                continue;
            }
            for cell in crate::game::cells(pos.board(p).moves()) {
                let after = pos.child(p, cell) as usize;
                if pos.status(after) == Status::Ongoing {
                    if let Err(board) = opponent_at(after, &mut reached) {
                        return Some(board);
                    }
                }
            }
        }
        None
    }

    /// The positions of the game.
    pub fn positions(&self) -> &'static Positions {
        self.game.positions()
    }
}

/// A handle on a registered [`SavedPolicy`]: equal, ordered and hashed by the file's hash.
#[derive(Clone, Copy)]
pub struct PolicyRef(&'static SavedPolicy);

impl PolicyRef {
    /// The policy.
    pub fn policy(self) -> &'static SavedPolicy {
        self.0
    }
}

impl std::ops::Deref for PolicyRef {
    type Target = SavedPolicy;

    fn deref(&self) -> &SavedPolicy {
        self.0
    }
}

impl PartialEq for PolicyRef {
    fn eq(&self, other: &PolicyRef) -> bool {
        self.0.hash == other.0.hash
    }
}

impl Eq for PolicyRef {}

impl PartialOrd for PolicyRef {
    fn partial_cmp(&self, other: &PolicyRef) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for PolicyRef {
    fn cmp(&self, other: &PolicyRef) -> std::cmp::Ordering {
        self.0.hash.cmp(&other.0.hash)
    }
}

impl std::hash::Hash for PolicyRef {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash.hash(state);
    }
}

impl std::fmt::Debug for PolicyRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.key)
    }
}

/// Every policy registered in this process (each kept for its lifetime).
static REGISTRY: Mutex<Vec<&'static SavedPolicy>> = Mutex::new(Vec::new());

/// Registers `policy`, or returns the one already registered with its hash and game.
pub fn register(policy: SavedPolicy) -> PolicyRef {
    let mut all = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&known) = all.iter().find(|p| p.hash == policy.hash && p.game == policy.game) {
        return PolicyRef(known);
    }
    let leaked: &'static SavedPolicy = Box::leak(Box::new(policy));
    all.push(leaked);
    PolicyRef(leaked)
}

/// The registered policy whose key (`policy:<16 hex>`) or name is `s`.
pub fn find(s: &str) -> Option<PolicyRef> {
    let all = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    all.iter().find(|p| p.key == s || p.name == s).map(|&p| PolicyRef(p))
}

// Reading a policy file's text (the caller reads the file).

/// The game and the (position id, cell) pairs of a policy file, or what is wrong with it
/// (with its line).
///
/// A file without quotes (what `sweep` and the agents write) is split by hand, a line at a
/// time: a command solver's job reads one or more such files of every position of its
/// seat (68,000 rows on 4x4g4), and the CSV reader's records cost several times more.
/// Anything else goes through the CSV reader.
pub fn parse(bytes: &[u8]) -> Result<(Game, Vec<(usize, u8)>), String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mdp::{AgentMdp, Opponent};
    use crate::solvers::policy_iteration;

    /// The moves of `minimax` (lowest optimal cell) in every ongoing position of `seat`'s
    /// turn, as a saved policy would hold them.
    fn minimax_as_saved(game: Game, seat: Seat, hash: u64) -> PolicyRef {
        let pos = game.positions();
        let moves: Vec<(usize, u8)> = (0..pos.len())
            .filter(|&p| pos.status(p) == Status::Ongoing && pos.board(p).to_move() == seat.player())
            .map(|p| (p, Opponent::Minimax.replies(pos, p).trailing_zeros() as u8))
            .collect();
        register(SavedPolicy::new("minimax.csv", hash, game, &moves))
    }

    /// A file that holds `minimax`'s moves induces the MDP of `minimax`: same states, same
    /// optimal value, on two boards and both seats.
    #[test]
    fn a_saved_minimax_is_minimax() {
        for (k, game) in [Game::TIC_TAC_TOE, "3x4k3".parse().unwrap()].into_iter().enumerate() {
            for &seat in Seat::ALL {
                let saved = minimax_as_saved(game, seat.other(), 1000 + k as u64 * 2 + seat as u64);
                assert_eq!(saved.first_missing(seat), None);
                assert!(Opponent::Policy(saved).faces(seat) && !Opponent::Policy(saved).faces(seat.other()));
                let a = AgentMdp::build(game, seat, Opponent::Policy(saved));
                let b = AgentMdp::build(game, seat, Opponent::Minimax);
                assert_eq!((a.len(), a.slots()), (b.len(), b.slots()));
                let (va, vb) = (policy_iteration::backward(&a).value, policy_iteration::backward(&b).value);
                assert_eq!(va, vb, "{game} {seat}");
            }
        }
    }

    /// A file without the opening move cannot be the opponent of O; one without a
    /// position the agent can lead it to is found, and names that board.
    #[test]
    fn missing_positions_are_found() {
        let game = Game::TIC_TAC_TOE;
        let full = minimax_as_saved(game, Seat::X, 2000);
        let pos = game.positions();
        let mut moves: Vec<(usize, u8)> =
            (0..pos.len()).filter_map(|p| full.get(p).map(|c| (p, c))).filter(|&(p, _)| p != 0).collect();
        let no_opening = SavedPolicy::new("a.csv", 2001, game, &moves);
        assert_eq!(no_opening.first_missing(Seat::O), Some(Board::EMPTY));
        // Drop a position the agent reaches: the first X position after O's reply.
        moves = (0..pos.len()).filter_map(|p| full.get(p).map(|c| (p, c))).collect();
        let reached = AgentMdp::build(game, Seat::O, Opponent::Policy(full));
        let after = pos.child(reached.position(0), 4) as usize;
        moves.retain(|&(p, _)| p != after);
        let gap = SavedPolicy::new("b.csv", 2002, game, &moves);
        assert_eq!(gap.first_missing(Seat::O), Some(pos.board(after)));
        // Keys are by hash; names carry the file name and a short hash.
        assert_eq!(full.key, format!("policy:{:016x}", 2000));
        assert_eq!(full.name, "policy:minimax.csv@00000000");
        assert_eq!(Opponent::from_name(&full.key), Some(Opponent::Policy(full)));
    }
}
