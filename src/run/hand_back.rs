//! What a program hands back, read as a spec is: its files only if they are regular and
//! within their limits ([`handed_back`], [`policy_limit`]), its policy parsed and hashed
//! in canonical form ([`parse_policy`]), the positions it may be asked ([`states_file`]),
//! and a policy that answers only where it has a move ([`Strict`]). The runner
//! (`run/program.rs`) calls these after the program ends.

use std::fs;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use crate::game::{Board, Game};
use crate::mdp::{Moves, Policy, Seat};

/// The most bytes a policy file of `game` may have: twice what a row per position (every
/// board of the game, its move, seat and game) takes, plus a MiB. A program's policy of
/// every position it can be asked fits with room to spare; a file past it is refused
/// before it is read.
pub fn policy_limit(game: Game) -> u64 {
    let row = game.cells() as u64 + 16;
    2 * row * game.positions().len() as u64 + (1 << 20)
}

/// The bytes of a file a program hands back (`what` names it in messages), at most `cap`
/// of them; `Ok(None)` when there is none. Only a regular file is read: a symbolic link,
/// a FIFO, a device, a socket or a folder is refused by name, from its metadata, before
/// anything opens it for reading; a file past `cap` is refused by its size.
pub fn handed_back(path: &Path, cap: u64, what: &str) -> Result<Option<Vec<u8>>, String> {
    let meta = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{what}: cannot read it: {e}")),
        Ok(meta) => meta,
    };
    let kind = meta.file_type();
    let not_a_file = [
        (kind.is_symlink(), "a symbolic link"),
        (kind.is_fifo(), "a FIFO (a named pipe)"),
        (kind.is_char_device(), "a character device"),
        (kind.is_block_device(), "a block device"),
        (kind.is_socket(), "a socket"),
        (kind.is_dir(), "a folder"),
    ];
    if let Some((_, name)) = not_a_file.iter().find(|(is, _)| *is) {
        return Err(format!("{what} is {name}, not a regular file: sweep reads only a file the program wrote there"));
    }
    let too_big = |size: u64| {
        format!("{what} is {size} bytes, more than the {cap} it may hold ({}); nothing of it was used", mib(cap))
    };
    if meta.len() > cap {
        return Err(too_big(meta.len()));
    }
    // Not following a link and not blocking on a FIFO, in case the file was swapped
    // since its metadata was read.
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("{what}: cannot read it: {e}"))?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(format!("{what} is not a regular file: sweep reads only a file the program wrote there"));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1).read_to_end(&mut bytes).map_err(|e| format!("{what}: cannot read it: {e}"))?;
    if bytes.len() as u64 > cap {
        return Err(too_big(bytes.len() as u64));
    }
    Ok(Some(bytes))
}

/// A size in MiB, for messages.
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
}

/// A policy file of `game` for `seats`, as a [`Policy`], and its hash (`policy_hash`: of its moves, not of its rows' order).
pub fn parse_policy(bytes: &[u8], game: Game, seats: &[Seat]) -> Result<(Policy, u64), String> {
    let (found, mut moves) = crate::mdp::saved_policy::parse(bytes)?;
    if found != game {
        return Err(format!("it is a policy for {found}, but the job plays {game}"));
    }
    let pos = game.positions();
    let mut policy = Policy::new(game);
    for &(id, cell) in &moves {
        let to_move = if pos.board(id).to_move() == Seat::X.player() { Seat::X } else { Seat::O };
        if seats.contains(&to_move) {
            policy.set(id, cell);
        }
    }
    Ok((policy, policy_hash(game, &mut moves)))
}

/// The hash of a policy's moves, whatever the order of its file's rows: FNV-1a of the
/// file sweep would write for them (the header, then one row `board,action,seat,game`
/// per position, in position order, each once). A program that writes its rows that way
/// (in the states file's order, as the Python package does) has the hash of its file's
/// bytes.
fn policy_hash(game: Game, moves: &mut Vec<(usize, u8)>) -> u64 {
    moves.sort_unstable();
    moves.dedup();
    let pos = game.positions();
    let mut hash = crate::seed::Fnv1a::new();
    hash.update(b"board,action,seat,game\n");
    // The row's text without the formatter (a 4x4 policy has millions of rows): the
    // board's cells as `Board`'s Display writes them, then the move's text, the seat and
    // the game.
    let moves_text: Vec<String> = (0..game.cells() as u8).map(|c| format!(",{},", game.move_text(c))).collect();
    let ends = [format!("x,{game}\n"), format!("o,{game}\n")];
    let mut row = Vec::with_capacity(game.cells() + 32);
    for &(id, cell) in moves.iter() {
        let b = pos.board(id);
        row.clear();
        row.extend((0..game.cells()).map(|i| match (b.x() >> i & 1, b.o() >> i & 1) {
            (1, _) => b'X',
            (_, 1) => b'O',
            _ => b'.',
        }));
        row.extend_from_slice(moves_text[usize::from(cell)].as_bytes());
        row.extend_from_slice(ends[usize::from(b.to_move() != Seat::X.player())].as_bytes());
        hash.update(&row);
    }
    hash.value()
}

/// A policy that notes the first board it is asked about and lacks.
pub struct Strict<'a> {
    policy: &'a Policy,
    missing: std::cell::Cell<Option<Board>>,
}

impl<'a> Strict<'a> {
    /// Wraps `policy`.
    pub fn new(policy: &'a Policy) -> Strict<'a> {
        Strict { policy, missing: std::cell::Cell::new(None) }
    }

    /// The first board asked about that the policy lacks, if any (and forgets it).
    pub fn take_missing(&self) -> Option<Board> {
        self.missing.take()
    }
}

impl Moves for Strict<'_> {
    fn game(&self) -> Game {
        self.policy.game()
    }

    fn get(&self, b: Board) -> Option<u8> {
        let m = self.policy.get(b);
        if m.is_none() && self.missing.get().is_none() {
            self.missing.set(Some(b));
        }
        m
    }
}
