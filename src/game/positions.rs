//! Every position of a game reachable from the empty board, with dense ids, the index
//! table and minimax values, computed once per game ([`Positions::of`], a cache keyed by
//! the game).
//!
//! Ids are `u32` (4x4k4 has 9,722,011 positions), given in order of the number of marks
//! (then base-3 index), so every move goes from a smaller id to a larger one: iterating ids
//! backwards is a reverse topological order of the game graph, which is what the exact
//! dynamic programs need. The positions are enumerated layer by layer (one layer per
//! number of marks), each layer in index order, so the ids come out in that order.
//!
//! Tables, per id: the board, the result (X's reward if the game is over, which also gives
//! the status), the minimax value (`i8`) and the symmetry class (`u32`, computed on the
//! first question about classes: only tables with symmetry ask, and `sweep solve`
//! never). There is no move table: the child of a move is found by its base-3 index,
//! since a mark on cell `i` adds `3^i` (X) or `2·3^i` (O) to the index. How a board is kept and its index looked up
//! depends on the size ([`Game::dense`]):
//!
//! - up to 16 cells, the board packed in a `u32` (X's mask low, O's high), and a table
//!   over the base-3 index space (`3^cells` entries): index → id. For 4x4k4 that is
//!   212 MB in all, 172 MB of it the index table;
//! - on larger boards (gravity boards of 17 to 24 cells, whose `3^cells` would not fit),
//!   the board's base-3 index itself (`u64`), which is sorted within each layer: an index
//!   is looked up by binary search in its layer (the number of marks is known). 14 bytes
//!   per position in all.

use std::sync::OnceLock;

use super::board::{Board, Player, Status, cells};
use super::rules::{Game, MAX_CELLS, SLOTS};

use super::symmetry;

/// No position (an illegal move, or an index that no game reaches).
pub const NONE: u32 = u32::MAX;

/// The `result` of a game that goes on.
const ONGOING: i8 = i8::MIN;

/// The reachable positions and everything derived from them.
#[derive(Debug)]
pub struct Positions {
    game: Game,
    /// Whether the game is dense ([`Game::dense`]): `boards` and `by_index` are used, else
    /// `keys` and `layers`.
    dense: bool,
    /// The boards by id, packed by [`pack`] (dense games).
    boards: Vec<u32>,
    /// Base-3 index → id, or [`NONE`] (dense games).
    by_index: Vec<u32>,
    /// The base-3 index of each board by id, increasing within each layer (large games).
    keys: Vec<u64>,
    /// The first id of each layer (by number of marks), then one past the last id (large
    /// games).
    layers: Vec<u32>,
    /// Base-3 digits → masks, for `keys` (large games).
    decoder: Decoder,
    /// `weight[i] = 3^i`: what an X on cell `i` adds to the index (an O adds twice as much).
    weight: [u64; MAX_CELLS],
    /// X's reward in a finished game (+1, 0, -1), or [`ONGOING`].
    result: Vec<i8>,
    minimax: Vec<i8>,
    /// The symmetry class of each position and how many classes there are, on first use
    /// ([`Positions::classify`]).
    classes: OnceLock<(Vec<u32>, usize)>,
}

impl Game {
    /// The positions of this game: [`Positions::of`].
    pub fn positions(self) -> &'static Positions {
        Positions::of(self)
    }
}

/// A board as one `u32`: X's mask in the low half, O's in the high half.
#[inline(always)]
fn pack(b: Board) -> u32 {
    b.x() | b.o() << 16
}

/// What a mark of the side to move adds to the index, in units of the cell's weight.
#[inline(always)]
fn mark(b: Board) -> usize {
    match b.to_move() {
        Player::X => 1,
        Player::O => 2,
    }
}

/// X's reward in a finished game, or [`ONGOING`].
fn result_of(status: Status) -> i8 {
    match status {
        Status::Ongoing => ONGOING,
        Status::Draw => 0,
        Status::Won(Player::X) => 1,
        Status::Won(Player::O) => -1,
    }
}

/// The board of `game` packed by [`pack`].
#[inline(always)]
fn unpack(game: Game, packed: u32) -> Board {
    Board::from_table(game, packed & 0xFFFF, packed >> 16)
}

/// Every position reachable from the empty board, packed, layer by layer (by number of
/// marks), each layer in increasing base-3 index: the order of the ids.
fn enumerate(game: Game, weight: &[u64; MAX_CELLS], decoder: &Decoder) -> Vec<u32> {
    let mut next = IndexSet::new(game.index_space());
    let mut boards = vec![pack(Board::empty(game))];
    let mut layer = 0..1;
    while !layer.is_empty() {
        for &p in &boards[layer.clone()] {
            let b = unpack(game, p);
            if b.is_terminal() {
                continue;
            }
            let (index, mark) = (b.index(), mark(b));
            for c in cells(b.moves()) {
                next.insert(index + mark * weight[usize::from(c)] as usize);
            }
        }
        boards.reserve_exact(next.len());
        let end = boards.len();
        next.drain(|index| boards.push(decoder.packed(index)));
        layer = end..boards.len();
    }
    boards
}

/// The same for a large game: the base-3 indices of the positions, layer by layer, each
/// layer sorted, and the first id of each layer followed by one past the last.
fn enumerate_sorted(game: Game, weight: &[u64; MAX_CELLS], decoder: &Decoder) -> (Vec<u64>, Vec<u32>) {
    let mut keys = vec![0u64];
    let mut layers = vec![0u32];
    let mut layer = 0..1;
    while !layer.is_empty() {
        let mut next = Vec::new();
        for &key in &keys[layer.clone()] {
            let b = decoder.board(game, key);
            if b.is_terminal() {
                continue;
            }
            let m = mark(b) as u64;
            next.extend(cells(b.moves()).map(|c| key + m * weight[usize::from(c)]));
        }
        next.sort_unstable();
        next.dedup();
        let end = keys.len();
        layers.push(u32::try_from(end).expect("fewer than 2^32 positions"));
        keys.extend_from_slice(&next);
        layer = end..keys.len();
    }
    keys.shrink_to_fit();
    (keys, layers)
}

/// A set of base-3 indices, one bit each.
struct IndexSet {
    words: Vec<u64>,
}

impl IndexSet {
    /// The empty set of indices below `size`.
    fn new(size: usize) -> IndexSet {
        IndexSet { words: vec![0; size.div_ceil(64)] }
    }

    /// Adds `index`.
    #[inline(always)]
    fn insert(&mut self, index: usize) {
        self.words[index / 64] |= 1 << (index % 64);
    }

    /// How many indices there are.
    fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Calls `f` on every index in increasing order and empties the set.
    fn drain(&mut self, mut f: impl FnMut(usize)) {
        for (k, word) in self.words.iter_mut().enumerate() {
            let mut w = std::mem::take(word);
            while w != 0 {
                f(k * 64 + w.trailing_zeros() as usize);
                w &= w - 1;
            }
        }
    }
}

/// Base-3 index → packed board, by two lookups in a table of the 3^8 boards of 8 cells
/// (three on large games).
#[derive(Debug)]
struct Decoder {
    /// `half[r]`: the X mask (low byte) and O mask (high byte) of the 8 digits `r`.
    half: Vec<u16>,
}

/// The number of cells one [`Decoder`] lookup covers.
const HALF: u32 = 8;

impl Decoder {
    fn new() -> Decoder {
        let half = (0..3usize.pow(HALF))
            .map(|r| {
                let (mut x, mut o, mut rest) = (0u16, 0u16, r);
                for i in 0..HALF {
                    match rest % 3 {
                        1 => x |= 1 << i,
                        2 => o |= 1 << i,
                        _ => {}
                    }
                    rest /= 3;
                }
                x | o << 8
            })
            .collect();
        Decoder { half }
    }

    /// The board of `game` whose base-3 index is `key` (below `3^24`).
    #[inline(always)]
    fn board(&self, game: Game, key: u64) -> Board {
        let size = 3u64.pow(HALF);
        let (mut x, mut o, mut rest) = (0u32, 0u32, key);
        for shift in [0, HALF, 2 * HALF] {
            let half = u32::from(self.half[(rest % size) as usize]);
            x |= (half & 0xFF) << shift;
            o |= (half >> 8) << shift;
            rest /= size;
        }
        Board::from_table(game, x, o)
    }

    /// The packed board of `index` (below `3^16`).
    #[inline(always)]
    fn packed(&self, index: usize) -> u32 {
        let size = 3usize.pow(HALF);
        let (low, high) = (u32::from(self.half[index % size]), u32::from(self.half[index / size]));
        (low & 0xFF) | (high & 0xFF) << 8 | (low >> 8) << 16 | (high >> 8) << 24
    }
}

impl Positions {
    /// The table of `game`, built on first use (about a millisecond for tic-tac-toe) and
    /// shared afterwards; one per game.
    pub fn of(game: Game) -> &'static Positions {
        Positions::cell(game).get_or_init(|| Positions::build(game))
    }

    /// Whether the table of `game` is built already (the next [`Positions::of`] is free).
    pub fn is_built(game: Game) -> bool {
        Positions::cell(game).get().is_some()
    }

    fn cell(game: Game) -> &'static OnceLock<Positions> {
        static CACHE: [OnceLock<Positions>; SLOTS] = [const { OnceLock::new() }; SLOTS];
        &CACHE[game.slot()]
    }

    fn build(game: Game) -> Positions {
        let mut weight = [0u64; MAX_CELLS];
        for (i, w) in weight.iter_mut().enumerate().take(game.cells()) {
            *w = 3u64.pow(i as u32);
        }
        let decoder = Decoder::new();
        let dense = game.dense();
        let (mut boards, mut by_index, mut keys, mut layers) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let result = if dense {
            boards = enumerate(game, &weight, &decoder);
            by_index = vec![NONE; game.index_space()];
            for (id, &p) in boards.iter().enumerate() {
                by_index[unpack(game, p).index()] = id as u32;
            }
            boards.iter().map(|&p| result_of(unpack(game, p).status())).collect()
        } else {
            (keys, layers) = enumerate_sorted(game, &weight, &decoder);
            keys.iter().map(|&k| result_of(decoder.board(game, k).status())).collect()
        };
        let mut pos = Positions {
            game,
            dense,
            boards,
            by_index,
            keys,
            layers,
            decoder,
            weight,
            result,
            minimax: Vec::new(),
            classes: OnceLock::new(),
        };
        pos.minimax = pos.solve_minimax();
        pos
    }

    /// The ids after each move of `moves` (a cell mask) in position `id`, in cell order:
    /// [`Positions::child`] of each, computed once for the position. Panics unless every
    /// move is legal.
    #[inline(always)]
    pub fn children(&self, id: usize, moves: u32) -> impl Iterator<Item = u32> + '_ {
        let b = self.board(id);
        assert!(self.result[id] == ONGOING && moves & !b.moves() == 0, "illegal moves {moves:#b} in position {id}");
        let (index, mark) = (b.index(), mark(b));
        cells(moves).map(move |c| self.lookup(index + mark * self.weight[usize::from(c)] as usize, b, true))
    }

    /// Asks the memory system for the index-table entries that [`Positions::children`]
    /// of `id` and `moves` will read, without waiting for them: a loop that calls this a
    /// few iterations before it looks them up overlaps their cache misses with its work.
    /// A hint only (nothing on large games or other processors).
    #[inline(always)]
    pub fn prefetch_children(&self, id: usize, moves: u32) {
        #[cfg(target_arch = "x86_64")]
        if self.dense {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let b = self.board(id);
            let (index, mark) = (b.index(), mark(b));
            for c in cells(moves) {
                if let Some(entry) = self.by_index.get(index + mark * self.weight[usize::from(c)] as usize) {
                    // SAFETY: SSE is part of every x86_64 processor, and a prefetch of a
                    // valid address reads and writes nothing.
                    unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(entry).cast()) };
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (id, moves);
    }

    /// The id of the position with this base-3 index, or [`NONE`]: `b` itself, or a
    /// move after it when `moved` (its number of marks is only counted on large games).
    #[inline(always)]
    fn lookup(&self, index: usize, b: Board, moved: bool) -> u32 {
        if self.dense { self.by_index[index] } else { self.search(index, b.pieces() as usize + usize::from(moved)) }
    }

    /// [`Positions::lookup`] on a large game: a binary search in the layer (kept out of
    /// line, so that the dense games' lookups stay small where they are inlined).
    #[inline(never)]
    fn search(&self, index: usize, layer: usize) -> u32 {
        let (Some(&start), Some(&end)) = (self.layers.get(layer), self.layers.get(layer + 1)) else {
            return NONE;
        };
        match self.keys[start as usize..end as usize].binary_search(&(index as u64)) {
            Ok(at) => start + at as u32,
            Err(_) => NONE,
        }
    }

    /// The minimax value of every position, backwards from the finished ones.
    fn solve_minimax(&self) -> Vec<i8> {
        let mut minimax = vec![0i8; self.len()];
        for id in (0..self.len()).rev() {
            minimax[id] = match self.result[id] {
                ONGOING => {
                    let b = self.board(id);
                    let values = self.children(id, b.moves()).map(|c| minimax[c as usize]);
                    match b.to_move() {
                        Player::X => values.max().expect("an ongoing game has a move"),
                        Player::O => values.min().expect("an ongoing game has a move"),
                    }
                }
                r => r,
            };
        }
        minimax
    }

    /// The symmetry class of every position, numbered in order of first appearance by id,
    /// and how many classes there are.
    ///
    /// The canonical image of a board (the one with the smallest index) is itself a
    /// position with as many marks, so it has the smallest id of its class: a class first
    /// appears at its canonical board, and every other member comes later.
    fn classify(&self) -> (Vec<u32>, usize) {
        let mut class: Vec<u32> = Vec::with_capacity(self.len());
        let mut classes = 0u32;
        for id in 0..self.len() {
            let b = self.board(id);
            let canonical = self.lookup(symmetry::canonical(b).0.index(), b, false) as usize;
            if canonical == id {
                class.push(classes);
                classes += 1;
            } else {
                // `canonical < id`, as said above, so its class is known.
                class.push(class[canonical]);
            }
        }
        (class, classes as usize)
    }

    /// The game these are the positions of.
    pub fn game(&self) -> Game {
        self.game
    }

    /// The bytes its tables hold (see [`crate::cost::memory::positions`]), the symmetry classes
    /// counted whether they are built yet or not.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of_val;
        size_of_val(&self.boards[..])
            + size_of_val(&self.by_index[..])
            + size_of_val(&self.keys[..])
            + size_of_val(&self.layers[..])
            + size_of_val(&self.result[..])
            + size_of_val(&self.minimax[..])
            + self.len() * std::mem::size_of::<u32>()
    }

    /// How many positions there are (5478 in tic-tac-toe).
    pub fn len(&self) -> usize {
        self.result.len()
    }

    /// Never true: the empty board is always there.
    pub fn is_empty(&self) -> bool {
        self.result.is_empty()
    }

    /// The board with this id.
    #[inline(always)]
    pub fn board(&self, id: usize) -> Board {
        if self.dense { unpack(self.game, self.boards[id]) } else { self.decode(id) }
    }

    /// The board with this id on a large game (out of line, as [`Positions::search`]).
    #[inline(never)]
    fn decode(&self, id: usize) -> Board {
        self.decoder.board(self.game, self.keys[id])
    }

    /// The id of a board, or `None` if no game reaches it. Panics if the board belongs
    /// to another game.
    #[inline(always)]
    pub fn id(&self, b: Board) -> Option<usize> {
        assert!(b.game() == self.game, "a {} board among the positions of {}", b.game(), self.game);
        match self.lookup(b.index(), b, false) {
            NONE => None,
            id => Some(id as usize),
        }
    }

    /// The id after playing `cell` in position `id`, or [`NONE`] if the move is illegal
    /// (the game is over or the cell is not one of the board's moves).
    #[inline(always)]
    pub fn child(&self, id: usize, cell: u8) -> u32 {
        let b = self.board(id);
        let c = usize::from(cell);
        if self.result[id] != ONGOING || c >= MAX_CELLS || b.moves() & (1 << c) == 0 {
            return NONE;
        }
        self.lookup(b.index() + mark(b) * self.weight[c] as usize, b, true)
    }

    /// Win, draw or still going, by id.
    #[inline(always)]
    pub fn status(&self, id: usize) -> Status {
        match self.result[id] {
            ONGOING => Status::Ongoing,
            0 => Status::Draw,
            1 => Status::Won(Player::X),
            _ => Status::Won(Player::O),
        }
    }

    /// The reward of `player` if the game in position `id` is over (+1, 0, -1), else `None`:
    /// [`Status::reward`] by table lookup.
    #[inline(always)]
    pub fn reward(&self, id: usize, player: Player) -> Option<f64> {
        match self.result[id] {
            ONGOING => None,
            r if player == Player::X => Some(f64::from(r)),
            r => Some(-f64::from(r)),
        }
    }

    /// The game value for X under optimal play by both sides: +1, 0 or -1.
    #[inline(always)]
    pub fn minimax(&self, id: usize) -> i8 {
        self.minimax[id]
    }

    /// The minimax-optimal moves of the side to move, as a cell mask.
    pub fn optimal_moves(&self, id: usize) -> u32 {
        let b = self.board(id);
        let sign = if b.to_move() == Player::X { 1 } else { -1 };
        let best = self.minimax[id] * sign;
        let mut mask = 0;
        for c in b.legal_cells() {
            if self.minimax[self.child(id, c) as usize] * sign == best {
                mask |= 1 << c;
            }
        }
        mask
    }

    /// The symmetry class of a position, in `0..classes()`.
    #[inline(always)]
    pub fn class(&self, id: usize) -> usize {
        self.classified().0[id] as usize
    }

    /// How many positions there are up to the game's symmetries (765 in tic-tac-toe).
    pub fn classes(&self) -> usize {
        self.classified().1
    }

    /// The symmetry classes, computed on first use.
    fn classified(&self) -> &(Vec<u32>, usize) {
        self.classes.get_or_init(|| self.classify())
    }
}

/// How many complete games there are, split by result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GameCounts {
    /// Games X wins.
    pub x_wins: u64,
    /// Games O wins.
    pub o_wins: u64,
    /// Drawn games.
    pub draws: u64,
}

impl GameCounts {
    /// All games.
    pub fn total(&self) -> u64 {
        self.x_wins + self.o_wins + self.draws
    }
}

/// Counts every distinct move sequence from the empty board to the end of the game.
pub fn count_games(game: Game) -> GameCounts {
    let pos = game.positions();
    let mut counts = vec![GameCounts::default(); pos.len()];
    for id in (0..pos.len()).rev() {
        counts[id] = match pos.status(id) {
            Status::Won(Player::X) => GameCounts { x_wins: 1, ..Default::default() },
            Status::Won(Player::O) => GameCounts { o_wins: 1, ..Default::default() },
            Status::Draw => GameCounts { draws: 1, ..Default::default() },
            Status::Ongoing => {
                let mut sum = GameCounts::default();
                for c in pos.board(id).legal_cells() {
                    let k = counts[pos.child(id, c) as usize];
                    sum.x_wins += k.x_wins;
                    sum.o_wins += k.o_wins;
                    sum.draws += k.draws;
                }
                sum
            }
        };
    }
    counts[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_counts_match_the_known_figures() {
        let pos = Game::TIC_TAC_TOE.positions();
        assert_eq!(pos.len(), 5478);
        let terminal = (0..pos.len()).filter(|&i| pos.status(i) != Status::Ongoing).count();
        assert_eq!(pos.len() - terminal, 4520);
        assert_eq!(terminal, 958);
        let count = |s: Status| (0..pos.len()).filter(|&i| pos.status(i) == s).count();
        assert_eq!(count(Status::Won(Player::X)), 626);
        assert_eq!(count(Status::Won(Player::O)), 316);
        assert_eq!(count(Status::Draw), 16);
        assert_eq!(pos.classes(), 765);
    }

    #[test]
    fn game_counts_match_the_known_figures() {
        let g = count_games(Game::TIC_TAC_TOE);
        assert_eq!(g.total(), 255_168);
        assert_eq!((g.x_wins, g.o_wins, g.draws), (131_184, 77_904, 46_080));
    }

    #[test]
    fn the_game_is_a_draw_and_symmetric_positions_agree() {
        let pos = Game::TIC_TAC_TOE.positions();
        assert_eq!(pos.minimax(0), 0);
        for id in 0..pos.len() {
            let b = pos.board(id);
            for t in 0..8 {
                let other = pos.id(symmetry::apply(t, b)).expect("images are reachable");
                assert_eq!(pos.minimax(other), pos.minimax(id));
                assert_eq!(pos.class(other), pos.class(id));
            }
        }
        // Every first move draws under optimal play.
        assert_eq!(pos.optimal_moves(0), 0x1FF);
    }

    #[test]
    fn two_games_coexist() {
        let wide: Game = "3x4k3".parse().unwrap();
        let (small, large) = (Game::TIC_TAC_TOE.positions(), wide.positions());
        assert_eq!((small.len(), large.len()), (5478, 111_973));
        assert_eq!((small.game(), large.game()), (Game::TIC_TAC_TOE, wide));
        // Tic-tac-toe is a draw; on 3 × 4 with three in a row the first player wins.
        assert_eq!((small.minimax(0), large.minimax(0)), (0, 1));
        assert!(std::ptr::eq(Positions::of(wide), large), "one table per game");
        // Tic-tac-toe's figures hold with the other game's table in the same process.
        let count = |s: Status| (0..small.len()).filter(|&i| small.status(i) == s).count();
        assert_eq!(count(Status::Ongoing), 4520);
        assert_eq!((count(Status::Won(Player::X)), count(Status::Won(Player::O)), count(Status::Draw)), (626, 316, 16));
        assert_eq!(small.classes(), 765);
        let g = count_games(Game::TIC_TAC_TOE);
        assert_eq!((g.total(), g.x_wins, g.o_wins, g.draws), (255_168, 131_184, 77_904, 46_080));
        for id in (0..large.len()).step_by(97) {
            let b = large.board(id);
            assert_eq!(large.id(b), Some(id));
            for &t in wide.transforms() {
                let other = large.id(symmetry::apply(t, b)).expect("images are reachable");
                assert_eq!(large.minimax(other), large.minimax(id));
                assert_eq!(large.class(other), large.class(id));
            }
        }
    }

    #[test]
    fn illegal_moves_have_no_child_and_classes_come_in_order() {
        for game in [Game::TIC_TAC_TOE, "3x4k3".parse().unwrap()] {
            let pos = game.positions();
            let mut next_class = 0;
            for id in 0..pos.len() {
                let b = pos.board(id);
                for c in 0..=MAX_CELLS as u8 + 1 {
                    let legal = b.legal_moves() & 1u32.checked_shl(u32::from(c)).unwrap_or(0) != 0;
                    let expected = if legal { pos.id(b.play(c)).map(|n| n as u32) } else { Some(NONE) };
                    assert_eq!(Some(pos.child(id, c)), expected, "{b} cell {c}");
                }
                // Classes are numbered in order of first appearance by id.
                assert!(pos.class(id) <= next_class);
                next_class = next_class.max(pos.class(id) + 1);
            }
            assert_eq!(next_class, pos.classes());
        }
    }

    #[test]
    fn ids_are_topological() {
        let pos = Game::TIC_TAC_TOE.positions();
        for id in 0..pos.len() {
            for c in pos.board(id).legal_cells() {
                assert!(pos.child(id, c) as usize > id);
            }
        }
    }
}
