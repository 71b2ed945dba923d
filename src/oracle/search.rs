//! Negamax with alpha-beta over [`Position`]s, its bounds kept in a transposition table ([`Transpositions`]).
//!
//! At every node: a move that wins at once ends the search; else only the moves after
//! which the opponent cannot win at once are tried (none: the position is lost in two
//! plies), so the score is known to lie between losing in four plies and winning in three,
//! and the window is narrowed to that, then to the bounds in the table. The moves are
//! tried by the threats they make (cells where one more stone would win), then centre
//! first. At the root an exact score is found by null-window searches that halve the
//! interval the score may lie in, starting near 0 (small scores are common and cheap);
//! a win, draw or loss needs at most two null windows, around 0.
//!
//! The optimal moves of a position need each child's outcome; where the position's own
//! outcome is known (the [`book`](super::book), or what an earlier search settled), one
//! null window per child tells them apart, and none where the position is lost
//! ([`Solver::optimal_moves_knowing`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::bitboard::{Position, bits};
use super::shape::{CONNECT_FOUR, Shape};
use super::table::Transpositions;

/// A value for the player to move: `cells + 1 - p` for a win with the game's `p`-th
/// stone, its negation for a loss, 0 for a draw (see [`super`]).
pub type Score = i32;

/// The process's table for `shape`, made with `bytes` the first time it is asked for:
/// every job of a run on one board searches with it, so a position one job valued is
/// known to the next (a table holds one board's entries; its keys do not name the board).
pub fn shared_table(shape: Shape, bytes: usize) -> Arc<Transpositions> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static TABLES: Mutex<Option<HashMap<Shape, Arc<Transpositions>>>> = Mutex::new(None);
    let mut tables = TABLES.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    Arc::clone(
        tables.get_or_insert_with(HashMap::new).entry(shape).or_insert_with(|| Arc::new(Transpositions::new(bytes))),
    )
}

/// Of legal `moves` in `p`, the one whose cell is lowest (see [`Solver::minimax_move`]).
pub fn lowest_cell(p: Position, moves: &[u8]) -> u8 {
    *moves.iter().min_by_key(|&&m| p.cell_of_move(m)).expect("at least one move")
}

/// Win, draw or loss for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    Loss = -1,
    Draw = 0,
    Win = 1,
}

impl Outcome {
    /// The outcome of a score.
    pub fn of(score: Score) -> Outcome {
        match score {
            s if s > 0 => Outcome::Win,
            0 => Outcome::Draw,
            _ => Outcome::Loss,
        }
    }

    /// 1, 0 or -1.
    pub fn value(self) -> i8 {
        self as i8
    }

    /// The opponent's outcome.
    pub fn flip(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Draw => Outcome::Draw,
            Outcome::Loss => Outcome::Win,
        }
    }
}

/// The plies from a position with `plies` stones on a board of `cells` to the end of the
/// game, under optimal play, from its score.
pub fn plies_left(score: Score, cells: usize, plies: u32) -> u32 {
    let end = match score {
        0 => cells as i32,
        s => cells as i32 + 1 - s.abs(),
    };
    (end - plies as i32) as u32
}

/// A score in the field's convention (published Connect Four test sets): for the player
/// to move, `(cells + 1) / 2 + 1 - w` for a win with the winner's `w`-th stone (on 7x6,
/// `22 - w`), its negation for a loss, 0 for a draw. `score` is this search's (by the
/// game's ply, see [`Score`]); both order outcomes and game lengths alike.
pub fn field_score(score: Score, cells: usize) -> i32 {
    if score == 0 {
        return 0;
    }
    let end = cells as i32 + 1 - score.abs();
    let stones = (end + 1) / 2;
    score.signum() * ((cells as i32 + 1) / 2 + 1 - stones)
}

/// What [`Solver::optimal_moves_knowing`] found: the moves of the best outcome, and the
/// outcomes (for the player to move) it settled on the way, the position's own first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settled {
    pub moves: Vec<u8>,
    pub learned: Vec<(Position, Outcome)>,
}

/// The outcome of the move to child `c` for the player who made it, where the game ended
/// or `known` holds the child's.
fn move_outcome(c: Position, known: impl Fn(Position) -> Option<Outcome>) -> Option<Outcome> {
    if c.last_won() {
        Some(Outcome::Win)
    } else if c.is_over() {
        Some(Outcome::Draw)
    } else {
        known(c).map(Outcome::flip)
    }
}

/// Keeps child `c`'s outcome, `v` being the outcome of the move to it for the player who
/// made it (nothing for a finished game); after a move that wins, the child is lost, and
/// every move from it leaves that player winning.
fn settle_child(learned: &mut Vec<(Position, Outcome)>, c: Position, v: Outcome) {
    if c.is_over() {
        return;
    }
    learned.push((c, v.flip()));
    if v == Outcome::Win {
        learned.extend(c.moves().into_iter().map(|r| c.play(r)).filter(|g| !g.is_over()).map(|g| (g, Outcome::Win)));
    }
}

/// The search: a transposition table and a node count, reused from one position to the
/// next (the table's bounds stay true for every position of the same board). Solvers made
/// by `Solver::sharing` (the parallel searches) search on other threads with the same table.
#[derive(Debug)]
pub struct Solver {
    table: Arc<Transpositions>,
    nodes: u64,
    /// The board the table's entries belong to, and its moves in their static order.
    shape: Option<Shape>,
    order: Vec<u64>,
    /// Which static order: 0 centre first; a helper thread's differs, so that two
    /// threads on one position fill the table with different parts of the tree.
    variant: usize,
    /// Set by whoever wants this search to stop (another thread that finished first).
    stop: Option<Arc<AtomicBool>>,
    /// The search was stopped: the values it returns mean nothing and are never stored.
    aborted: bool,
    /// The node count at which the search stops ([`Solver::outcome_within`]).
    limit: u64,
}

impl Solver {
    /// A solver whose table takes at most `table_bytes`.
    pub fn new(table_bytes: usize) -> Solver {
        Solver::on_table(Arc::new(Transpositions::new(table_bytes)))
    }

    /// A solver on `table`, shared with every other solver on it (one board's entries
    /// only: see [`shared_table`]).
    pub fn on_table(table: Arc<Transpositions>) -> Solver {
        Solver {
            table,
            nodes: 0,
            shape: None,
            order: Vec::new(),
            variant: 0,
            stop: None,
            aborted: false,
            limit: u64::MAX,
        }
    }

    /// Another solver on the same table (for another thread), with static order `variant`.
    fn sharing(&self, variant: usize, stop: Option<Arc<AtomicBool>>) -> Solver {
        Solver {
            table: Arc::clone(&self.table),
            nodes: 0,
            shape: self.shape,
            order: self.shape.map(|s| Self::ordered(s, variant)).unwrap_or_default(),
            variant,
            stop,
            aborted: false,
            limit: u64::MAX,
        }
    }

    /// The static order of `variant`: centre first, or for a helper the same moves
    /// rotated, so that it starts elsewhere.
    fn ordered(shape: Shape, variant: usize) -> Vec<u64> {
        let mut order = shape.static_order();
        if variant > 0 && !order.is_empty() {
            let n = order.len();
            order.rotate_left((variant * 2 + 1) % n);
        }
        order
    }

    /// Win, draw or loss of each position, the positions spread over `threads` threads
    /// sharing this solver's table.
    pub fn outcomes_parallel(&mut self, positions: &[Position], threads: usize) -> Vec<Outcome> {
        self.map_parallel(positions, threads, Solver::outcome)
    }

    /// `f` of each position, over `threads` threads (each with a solver on this one's
    /// table) that take the next position as they finish one; in the order of
    /// `positions`. One thread: this solver, on this thread.
    pub fn map_parallel<T: Send>(
        &mut self,
        positions: &[Position],
        threads: usize,
        f: impl Fn(&mut Solver, Position) -> T + Sync,
    ) -> Vec<T> {
        let threads = threads.max(1).min(positions.len().max(1));
        if threads == 1 {
            return positions.iter().map(|&p| f(self, p)).collect();
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        let (f, next) = (&f, &next);
        let mut done: Vec<(usize, T)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    let mut solver = self.sharing(0, None);
                    scope.spawn(move || {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Relaxed);
                            let Some(&p) = positions.get(i) else { break };
                            mine.push((i, f(&mut solver, p)));
                        }
                        (mine, solver.nodes)
                    })
                })
                .collect();
            let mut all = Vec::with_capacity(positions.len());
            for h in handles {
                let (mine, nodes) = h.join().expect("a search thread panicked");
                self.nodes += nodes;
                all.extend(mine);
            }
            all
        });
        done.sort_unstable_by_key(|d| d.0);
        done.into_iter().map(|d| d.1).collect()
    }

    /// Win, draw or loss of one position by `threads` threads on this solver's table,
    /// each in its own move order (the first to finish answers, the others stop), and
    /// the positions all of them searched.
    pub fn outcome_parallel(&self, p: Position, threads: usize) -> (Outcome, u64) {
        self.race(p, threads, Solver::outcome)
    }

    /// `f` of one position by `threads` threads on this solver's table, each in its own
    /// move order: the first to finish answers, the others stop (what a stopped search
    /// found is never stored); and the positions all of them searched.
    fn race<T: Send>(&self, p: Position, threads: usize, f: impl Fn(&mut Solver, Position) -> T + Sync) -> (T, u64) {
        let stop = Arc::new(AtomicBool::new(false));
        let f = &f;
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads.max(1))
                .map(|variant| {
                    let mut solver = self.sharing(variant, Some(Arc::clone(&stop)));
                    let stop = Arc::clone(&stop);
                    scope.spawn(move || {
                        let o = f(&mut solver, p);
                        let done = !solver.aborted;
                        if done {
                            stop.store(true, Relaxed);
                        }
                        (done.then_some(o), solver.nodes)
                    })
                })
                .collect();
            let results: Vec<_> = handles.into_iter().map(|h| h.join().expect("a search thread panicked")).collect();
            let nodes = results.iter().map(|r| r.1).sum();
            (results.into_iter().find_map(|r| r.0).expect("one search finishes"), nodes)
        })
    }

    /// Positions searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The table's size in bytes.
    pub fn table_bytes(&self) -> usize {
        self.table.bytes()
    }

    /// Keys of two boards could collide: the table is cleared when the board changes
    /// (a table shared with another solver is replaced instead).
    fn enter(&mut self, shape: Shape) {
        if self.shape != Some(shape) {
            if self.shape.is_some() {
                match Arc::get_mut(&mut self.table) {
                    Some(t) => t.clear(),
                    None => self.table = Arc::new(Transpositions::new(self.table.bytes())),
                }
            }
            self.order = Self::ordered(shape, self.variant);
            self.shape = Some(shape);
        }
    }

    /// The exact score of a position still in play.
    pub fn score(&mut self, p: Position) -> Score {
        assert!(!p.is_over(), "a finished game has no score to search: {p}");
        self.enter(p.shape());
        let left = (p.shape().cells() - p.plies() as usize) as Score;
        let s = p.shape();
        if s.wins(p.mine()) & s.playable(p.mask()) != 0 {
            return left;
        }
        let (mut lo, mut hi) = (-(left - 1), left - 2);
        while lo < hi {
            let mut med = lo + (hi - lo) / 2;
            if med <= 0 && lo / 2 < med {
                med = lo / 2;
            } else if med >= 0 && hi / 2 > med {
                med = hi / 2;
            }
            let r = self.negamax(p, med, med + 1);
            if r <= med {
                hi = r;
            } else {
                lo = r;
            }
        }
        lo
    }

    /// Win, draw or loss of `p` if the search settles it within about `nodes` positions,
    /// else `None` (what it left unfinished is not stored).
    pub fn outcome_within(&mut self, p: Position, nodes: u64) -> Option<Outcome> {
        self.limit = self.nodes.saturating_add(nodes);
        let outcome = self.outcome(p);
        let settled = !self.aborted;
        self.limit = u64::MAX;
        self.aborted = false;
        settled.then_some(outcome)
    }

    /// Win, draw or loss of a position still in play: at most two null windows.
    pub fn outcome(&mut self, p: Position) -> Outcome {
        assert!(!p.is_over(), "a finished game has no outcome to search: {p}");
        self.enter(p.shape());
        if self.negamax(p, 0, 1) > 0 {
            Outcome::Win
        } else if self.aborted {
            Outcome::Draw
        } else if self.negamax(p, -1, 0) < 0 {
            Outcome::Loss
        } else {
            Outcome::Draw
        }
    }

    /// The score of every legal move for the player to move (the move that ends the game
    /// scored by its end), in increasing order of moves.
    pub fn move_scores(&mut self, p: Position) -> Vec<(u8, Score)> {
        let left = (p.shape().cells() - p.plies() as usize) as Score;
        p.moves()
            .into_iter()
            .map(|m| {
                let child = p.play(m);
                let score = if child.last_won() {
                    left
                } else if child.is_over() {
                    0
                } else {
                    -self.score(child)
                };
                (m, score)
            })
            .collect()
    }

    /// The outcome of every legal move for the player to move, in increasing order; a
    /// child whose outcome `known` gives is not searched (with the
    /// [`book`](super::book)'s `known`, the empty Connect Four board's seven are answered
    /// at once).
    pub fn move_outcomes(&mut self, p: Position, known: impl Fn(Position) -> Option<Outcome>) -> Vec<(u8, Outcome)> {
        p.moves()
            .into_iter()
            .map(|m| {
                let child = p.play(m);
                let o = move_outcome(child, &known).unwrap_or_else(|| self.outcome(child).flip());
                (m, o)
            })
            .collect()
    }

    /// The moves of the best outcome (as the enumerating engine's minimax picks among).
    pub fn optimal_moves(&mut self, p: Position) -> Vec<u8> {
        self.optimal_moves_knowing(p, &|_| None, 1).moves
    }

    /// Whether the player to move in `p` (in play) loses: one null window.
    pub fn loses(&mut self, p: Position) -> bool {
        self.enter(p.shape());
        self.negamax(p, -1, 0) < 0
    }

    /// Whether the player to move in `p` (in play) cannot win: one null window.
    pub fn cannot_win(&mut self, p: Position) -> bool {
        self.enter(p.shape());
        self.negamax(p, 0, 1) <= 0
    }

    /// [`Solver::optimal_moves`], reading the outcomes `known` holds (for the player to
    /// move in a position: [`Known`](super::book::Known) with the book) so as to search
    /// less, and the children's searches spread over `threads` threads on this table.
    ///
    /// Knowing the outcome of `p` spares a search per child: where `p` is lost every move
    /// is optimal; where it is won, the optimal moves are those after which the opponent
    /// loses (one null window each); where it is drawn, those after which the opponent
    /// cannot win (one each). Unknown, the children are first asked whether the opponent
    /// loses (a win for `p` if one does), then whether it cannot win.
    pub fn optimal_moves_knowing(
        &mut self,
        p: Position,
        known: &(impl Fn(Position) -> Option<Outcome> + Sync),
        threads: usize,
    ) -> Settled {
        let moves = p.moves();
        let children: Vec<Position> = moves.iter().map(|&m| p.play(m)).collect();
        // Each move's outcome for the player to move in `p`, where the game ended or the
        // child's outcome is known.
        let mut value: Vec<Option<Outcome>> = children.iter().map(|&c| move_outcome(c, known)).collect();
        let open =
            |value: &[Option<Outcome>]| -> Vec<usize> { (0..value.len()).filter(|&i| value[i].is_none()).collect() };
        let parent = known(p);
        if parent == Some(Outcome::Loss) {
            for v in value.iter_mut() {
                v.get_or_insert(Outcome::Loss);
            }
        } else {
            // Which children lose (a win for `p`), unless `p` is known to be no win.
            if parent != Some(Outcome::Draw) {
                let todo = open(&value);
                let ps: Vec<Position> = todo.iter().map(|&i| children[i]).collect();
                for (i, lost) in todo.into_iter().zip(self.map_parallel(&ps, threads, Solver::loses)) {
                    if lost {
                        value[i] = Some(Outcome::Win);
                    }
                }
            }
            let won = value.contains(&Some(Outcome::Win));
            if !won {
                // No move wins: the rest are draws or losses, told apart by one window.
                let todo = open(&value);
                let ps: Vec<Position> = todo.iter().map(|&i| children[i]).collect();
                for (i, no_win) in todo.into_iter().zip(self.map_parallel(&ps, threads, Solver::cannot_win)) {
                    value[i] = Some(if no_win { Outcome::Draw } else { Outcome::Loss });
                }
            }
        }
        let best = value.iter().flatten().max().copied().expect("a position in play has a move");
        let optimal: Vec<u8> = moves.iter().zip(&value).filter(|(_, v)| **v == Some(best)).map(|(&m, _)| m).collect();
        let mut learned = vec![(p, best)];
        for (&c, v) in children.iter().zip(&value) {
            if let Some(v) = v {
                settle_child(&mut learned, c, *v);
            }
        }
        Settled { moves: optimal, learned }
    }

    /// The `minimax` opponent's move: among the moves of the best outcome, the one whose
    /// cell is lowest (on a gravity board the stone that lands highest, then the
    /// leftmost), as the enumerating engine's `minimax` picks.
    pub fn minimax_move(&mut self, p: Position) -> u8 {
        self.minimax_move_knowing(p, &|_| None, 1).moves[0]
    }

    /// [`Solver::minimax_move`] (the one move in `Settled::moves`), reading what `known`
    /// holds: where the outcome of `p` is known, the moves are tried lowest cell first
    /// (`threads` at a time, on this table) and the first of that outcome is the move,
    /// so the rest are never searched.
    pub fn minimax_move_knowing(
        &mut self,
        p: Position,
        known: &(impl Fn(Position) -> Option<Outcome> + Sync),
        threads: usize,
    ) -> Settled {
        let Some(parent) = known(p) else {
            let mut settled = self.optimal_moves_knowing(p, known, threads);
            settled.moves = vec![lowest_cell(p, &settled.moves)];
            return settled;
        };
        let mut moves = p.moves();
        moves.sort_by_key(|&m| p.cell_of_move(m));
        let mut learned = vec![(p, parent)];
        // A move's outcome for the player to move in `p`, or none where it is not the
        // parent's (a win is looked for: the move is no win).
        let outcome = |s: &mut Solver, c: Position| -> Option<Outcome> {
            move_outcome(c, known).or_else(|| match parent {
                Outcome::Loss => Some(Outcome::Loss),
                Outcome::Win => s.loses(c).then_some(Outcome::Win),
                Outcome::Draw => Some(if s.cannot_win(c) { Outcome::Draw } else { Outcome::Loss }),
            })
        };
        for part in moves.chunks(threads.max(1)) {
            let children: Vec<Position> = part.iter().map(|&m| p.play(m)).collect();
            let values = self.map_parallel(&children, threads, outcome);
            for ((&m, &c), v) in part.iter().zip(&children).zip(values) {
                let Some(v) = v else { continue };
                settle_child(&mut learned, c, v);
                if v == parent {
                    return Settled { moves: vec![m], learned };
                }
            }
        }
        // What was known of `p` was wrong: searched without it.
        let mut settled = self.optimal_moves_knowing(p, &|_| None, threads);
        settled.moves = vec![lowest_cell(p, &settled.moves)];
        settled
    }

    /// Negamax with alpha-beta: the score if it lies in `(alpha, beta)`, else a bound on
    /// the far side of the window (at most `alpha`, at least `beta`).
    fn negamax(&mut self, p: Position, alpha: Score, beta: Score) -> Score {
        if p.shape() == CONNECT_FOUR {
            self.negamax_in::<true>(p, alpha, beta)
        } else {
            self.negamax_in::<false>(p, alpha, beta)
        }
    }

    /// [`Solver::negamax`]; with `C4` the position is Connect Four's and its shape a
    /// constant (the same search, compiled with fixed shifts).
    fn negamax_in<const C4: bool>(&mut self, p: Position, mut alpha: Score, mut beta: Score) -> Score {
        let p = if C4 { p.with_shape(CONNECT_FOUR) } else { p };
        self.nodes += 1;
        if self.nodes & 0xFFF == 0 && (self.nodes >= self.limit || self.stop.as_ref().is_some_and(|s| s.load(Relaxed)))
        {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        let s = p.shape();
        let left = (s.cells() - p.plies() as usize) as Score;
        let mine = p.mine();
        let mask = p.mask();
        if s.wins(mine) & s.playable(mask) != 0 {
            return left;
        }
        let safe = p.safe_moves();
        if safe == 0 {
            return -(left - 1);
        }
        if left <= 2 {
            return 0;
        }
        let floor = -(left - 3);
        if alpha < floor {
            alpha = floor;
            if alpha >= beta {
                return alpha;
            }
        }
        let mut ceiling = left - 2;
        let key = p.key();
        let slot = self.table.slot(key);
        if let Some([lo, hi]) = self.table.get_at(slot, key) {
            ceiling = ceiling.min(Score::from(hi));
            alpha = alpha.max(Score::from(lo));
        }
        if beta > ceiling {
            beta = ceiling;
        }
        if alpha >= beta {
            return alpha;
        }
        // The safe moves by threats made, then in static order (a stable sort).
        let mut moves = [(0u32, 0u64); 64];
        let mut n = 0;
        for &bit in &self.order {
            if safe & bit != 0 {
                let after = mask | bit;
                let threats = (s.wins(mine | bit) & !after).count_ones();
                let mut i = n;
                while i > 0 && moves[i - 1].0 < threats {
                    moves[i] = moves[i - 1];
                    i -= 1;
                }
                moves[i] = (threats, bit);
                n += 1;
            }
        }
        debug_assert_eq!(n, bits(safe).count());
        for &(_, bit) in &moves[..n] {
            let v = -self.negamax_in::<C4>(p.play_bit(bit), -beta, -alpha);
            if self.aborted {
                return 0;
            }
            if v >= beta {
                self.table.put_at(slot, key, v as i8, true);
                return v;
            }
            if v > alpha {
                alpha = v;
            }
        }
        self.table.put_at(slot, key, alpha as i8, false);
        alpha
    }
}
