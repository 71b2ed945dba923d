//! Exact scores of a deterministic policy on boards too big to enumerate: only the
//! positions the policy reaches are visited, and the search values them.
//!
//! From a root position and the agent's seat, against each evaluation opponent:
//!
//! - `random` (uniform over legal moves): the positions the agent reaches with every
//!   opponent reply are built layer by layer (the agent asked one batch per layer), then
//!   valued backwards: exact P(win), P(draw), P(loss). Past `Limits::positions` the
//!   set is dropped and `Limits::games` games are sampled instead (label `sampled`, with a
//!   95% interval).
//! - `minimax` (the move of the best outcome with the lowest cell, as the enumerating
//!   engine's) and `minimax-uniform` (uniform over
//!   the moves of the best outcome): the positions along those games, valued by a
//!   memoised walk that asks the search for the opponent's optimal moves; exact.
//! - `best-response`: the agent's worst case. Exact by the same layers where they fit
//!   (the minimum over the opponent's replies), and as soon as the layers built so far
//!   let the opponent force a loss (checked after each layer of opponent moves); else first a search for a loss the
//!   opponent can force within a growing number of plies, then a full search in which the
//!   search's value of each opponent position bounds what the opponent can get. Past
//!   `Limits::nodes` the figure is a bound (label `bound`): the agent's worst case is at
//!   most the value reported, so the exploitability is at least the one reported.
//!
//! Every search for optimal moves keeps the outcomes it settled (the position's, its
//! children's, and the grandchildren of a lost child: all wins), so that the next one
//! along the game searches one null window per child, or none in a lost position; the
//! game value is the first of them.
//!
//! Accuracy is the share of the agent's positions where its move is one of the best
//! outcome's, each position weighted by how often play against the opponent reaches it
//! (expected optimal moves per game over expected moves per game).
//!
//! Pure: no files, no clock; the sampled games draw from the generator seeded by
//! `Limits::seed`.

use std::collections::HashMap;

use rand::Rng as _;

use super::agent::Asked;
use super::bitboard::Position;
use super::book::Known;
use super::search::{Outcome, Settled, Solver, lowest_cell};
use crate::seed::{Rng, Stream, rng};

/// How far the scorer may go before it samples or bounds.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The most positions kept for an exact evaluation against `random` (or for the
    /// best response's layers), or along `minimax-uniform`'s games.
    pub positions: usize,
    /// The most positions a best-response search visits before it reports a bound.
    pub nodes: u64,
    /// Games sampled where an exact evaluation does not fit.
    pub games: u32,
    /// The seed of the sampled games.
    pub seed: u64,
    /// Threads the search may use for the game value and for many positions at once.
    pub threads: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { positions: 4_000_000, nodes: 20_000_000, games: 10_000, seed: 0, threads: 1 }
    }
}

/// An evaluation opponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Against {
    Random,
    Minimax,
    MinimaxUniform,
    BestResponse,
}

impl Against {
    pub const ALL: [Against; 4] = [Against::Random, Against::Minimax, Against::MinimaxUniform, Against::BestResponse];

    /// The name as `eval_opponent` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Against::Random => "random",
            Against::Minimax => "minimax",
            Against::MinimaxUniform => "minimax-uniform",
            Against::BestResponse => "best-response",
        }
    }

    /// The opponent of a name, if there is one.
    pub fn of(name: &str) -> Option<Against> {
        Against::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// How a figure was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Every position the figure depends on was valued.
    Exact,
    /// From sampled games: the value has a 95% interval.
    Sampled,
    /// A node budget ran out: the value is an upper bound on the agent's worst case.
    Bound,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Sampled => "sampled",
            Method::Bound => "bound",
        }
    }
}

/// The agent's score against one opponent, from its own view.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub against: Against,
    pub method: Method,
    /// Expected return: win +1, draw 0, loss -1 (for a bound, the bound).
    pub value: f64,
    pub p_win: f64,
    pub p_draw: f64,
    pub p_loss: f64,
    /// Half the width of the value's 95% interval (sampled figures of at least two games
    /// that did not all end alike; none otherwise).
    pub half_width: Option<f64>,
    /// Games sampled (sampled figures).
    pub games: Option<u32>,
    /// Share of the agent's moves that are optimal, weighted by reach (none for the best
    /// response, whose ties make its reach a choice).
    pub accuracy: Option<f64>,
    /// Positions the figure's computation kept or searched.
    pub positions: usize,
}

/// What a game so far adds up to: outcome probabilities and expected (optimal) moves.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Tally {
    win: f64,
    draw: f64,
    loss: f64,
    moves: f64,
    optimal: f64,
}

impl Tally {
    fn end(agent: Outcome) -> Tally {
        let mut t = Tally::default();
        match agent {
            Outcome::Win => t.win = 1.0,
            Outcome::Draw => t.draw = 1.0,
            Outcome::Loss => t.loss = 1.0,
        }
        t
    }

    fn add(&mut self, o: Tally, w: f64) {
        self.win += w * o.win;
        self.draw += w * o.draw;
        self.loss += w * o.loss;
        self.moves += w * o.moves;
        self.optimal += w * o.optimal;
    }

    fn figure(self, against: Against, positions: usize) -> Figure {
        Figure {
            against,
            method: Method::Exact,
            value: self.win - self.loss,
            p_win: self.win,
            p_draw: self.draw,
            p_loss: self.loss,
            half_width: None,
            games: None,
            accuracy: (self.moves > 0.0).then(|| self.optimal / self.moves),
            positions,
        }
    }
}

/// The scorer of one agent from one root: the agent's seat is the side to move at plies of
/// `agent_parity`.
pub struct Scorer<'a, 'b> {
    pub root: Position,
    agent_parity: u32,
    pub asked: &'a mut Asked<'b>,
    pub solver: &'a mut Solver,
    pub limits: Limits,
    optimal: HashMap<Position, Vec<u8>>,
    /// The `minimax` opponent's moves found without the rest of the optimal moves.
    minimax: HashMap<Position, u8>,
    /// Outcomes (for the player to move) settled so far: the game value, and what finding
    /// optimal moves settled, so that the next search of optimal moves needs fewer.
    known: Known,
}

/// The end of a game after a move, from the agent's view, if it ended.
fn ended(child: Position, agent_moved: bool) -> Option<Outcome> {
    if child.last_won() {
        Some(if agent_moved { Outcome::Win } else { Outcome::Loss })
    } else if child.is_over() {
        Some(Outcome::Draw)
    } else {
        None
    }
}

/// An edge of the reached positions: a node's index, or the end of the game.
#[derive(Clone, Copy)]
enum Edge {
    Node(u32),
    End(Outcome),
}

/// What building the reached positions gave.
enum Reach {
    /// Every reached position.
    All(Reached),
    /// The opponent can force the agent's loss (after this many positions were built).
    Lost(usize),
    /// More than `Limits::positions`.
    TooMany,
}

/// The positions the agent reaches with every opponent reply, in layers: a node's
/// children come after it; `edges[first[i]..first[i + 1]]` are node `i`'s.
struct Reached {
    nodes: Vec<Position>,
    first: Vec<u32>,
    edges: Vec<Edge>,
}

impl<'a, 'b> Scorer<'a, 'b> {
    /// A scorer of the agent playing `seat_x` (X, else O) from `root`.
    pub fn new(
        root: Position,
        agent_is_x: bool,
        asked: &'a mut Asked<'b>,
        solver: &'a mut Solver,
        limits: Limits,
    ) -> Self {
        let agent_parity = if agent_is_x { 0 } else { 1 };
        Scorer {
            root,
            agent_parity,
            asked,
            solver,
            limits,
            optimal: HashMap::new(),
            minimax: HashMap::new(),
            known: Known::new(limits.positions),
        }
    }

    fn agent_to_move(&self, p: Position) -> bool {
        p.plies() % 2 == self.agent_parity
    }

    /// The moves of the best outcome in `p`, searched once (the children on the threads).
    fn optimal(&mut self, p: Position) -> &[u8] {
        if !self.optimal.contains_key(&p) {
            let known = &self.known;
            let settled = self.solver.optimal_moves_knowing(p, &|q| known.get(q), self.limits.threads);
            self.learn(p, settled);
        }
        &self.optimal[&p]
    }

    /// The `minimax` opponent's move in `p`: where the optimal moves are not known, only
    /// as many as it takes to find the one it plays are searched.
    fn minimax_reply(&mut self, p: Position) -> u8 {
        if let Some(moves) = self.optimal.get(&p) {
            return lowest_cell(p, moves);
        }
        if let Some(&m) = self.minimax.get(&p) {
            return m;
        }
        let known = &self.known;
        let settled = self.solver.minimax_move_knowing(p, &|q| known.get(q), self.limits.threads);
        let m = settled.moves[0];
        self.known.extend(settled.learned);
        self.minimax.insert(p, m);
        m
    }

    /// Keeps what a search of `p`'s optimal moves found.
    fn learn(&mut self, p: Position, settled: Settled) {
        self.known.extend(settled.learned);
        self.optimal.insert(p, settled.moves);
    }

    /// The game value of the root for the agent (+1, 0, -1) under optimal play: from the
    /// [`book`](super::book) where it holds the root, else searched.
    pub fn game_value(&mut self) -> i8 {
        let o = if let Some(o) = self.known.get(self.root) {
            o
        } else if self.limits.threads > 1 {
            self.solver.outcome_parallel(self.root, self.limits.threads).0
        } else {
            self.solver.outcome(self.root)
        };
        self.known.extend([(self.root, o)]);
        if self.agent_to_move(self.root) { o.value() } else { o.flip().value() }
    }

    /// The agent's figure against `against`.
    pub fn score(&mut self, against: Against) -> Result<Figure, String> {
        match against {
            Against::Random => match self.reach(false)? {
                Reach::All(r) => self.random_exact(&r),
                Reach::Lost(_) => unreachable!("no loss is looked for against random"),
                Reach::TooMany => self.sample(Against::Random),
            },
            Against::Minimax | Against::MinimaxUniform => {
                let mut memo = HashMap::new();
                match self.walk(self.root, against, &mut memo)? {
                    Some(t) => Ok(t.figure(against, memo.len())),
                    None => self.sample(against),
                }
            }
            Against::BestResponse => match self.reach(true)? {
                Reach::All(r) => Ok(Self::worst_exact(&r)),
                Reach::Lost(positions) => Ok(Tally::end(Outcome::Loss).figure(Against::BestResponse, positions)),
                Reach::TooMany => self.worst_by_search(),
            },
        }
    }

    /// The reached positions, layer by layer, or `TooMany` past `Limits::positions`.
    /// With `find_loss`, after each layer of opponent moves (and where the positions run
    /// out) whether the opponent can already force the agent's loss within the layers
    /// built: then `Lost`, exact, without building the rest.
    fn reach(&mut self, find_loss: bool) -> Result<Reach, String> {
        let mut r = Reached { nodes: vec![self.root], first: vec![0], edges: Vec::new() };
        let mut index: HashMap<Position, u32> = HashMap::new();
        let mut start = 0;
        while start < r.nodes.len() {
            let end = r.nodes.len();
            let agent = self.agent_to_move(r.nodes[start]);
            if agent {
                self.asked.ask(&r.nodes[start..end])?;
            }
            index.clear();
            for i in start..end {
                let p = r.nodes[i];
                let moves = if agent { vec![self.asked.get(p)?] } else { p.moves() };
                for m in moves {
                    let child = p.play(m);
                    let edge = match ended(child, agent) {
                        Some(o) => Edge::End(o),
                        None => Edge::Node(*index.entry(child).or_insert_with(|| {
                            r.nodes.push(child);
                            (r.nodes.len() - 1) as u32
                        })),
                    };
                    r.edges.push(edge);
                }
                r.first.push(r.edges.len() as u32);
                if r.nodes.len() > self.limits.positions {
                    return Ok(if find_loss && self.forced_loss(&r) {
                        Reach::Lost(r.nodes.len())
                    } else {
                        Reach::TooMany
                    });
                }
            }
            if find_loss && !agent && self.forced_loss(&r) {
                return Ok(Reach::Lost(r.nodes.len()));
            }
            start = end;
        }
        Ok(Reach::All(r))
    }

    /// Whether the opponent can force the agent's loss within the positions of `r` whose
    /// moves are built (the first `r.first.len() - 1`; a position beyond them counts as
    /// not lost).
    fn forced_loss(&self, r: &Reached) -> bool {
        let built = r.first.len() - 1;
        let mut lost = vec![false; built];
        for i in (0..built).rev() {
            let mut edges = r.edges[r.first[i] as usize..r.first[i + 1] as usize].iter().map(|&e| match e {
                Edge::Node(c) => (c as usize) < built && lost[c as usize],
                Edge::End(o) => o == Outcome::Loss,
            });
            // The agent's one move, or any of the opponent's.
            lost[i] = if self.agent_to_move(r.nodes[i]) { edges.all(|l| l) } else { edges.any(|l| l) };
        }
        lost[0]
    }

    /// Exact value against `random` and accuracy over the reached positions.
    fn random_exact(&mut self, r: &Reached) -> Result<Figure, String> {
        // The optimal moves of every agent position at once, over the threads.
        let todo: Vec<Position> =
            r.nodes.iter().copied().filter(|&p| self.agent_to_move(p) && !self.optimal.contains_key(&p)).collect();
        let known = &self.known;
        let found = self.solver.map_parallel(&todo, self.limits.threads, |solver, p| {
            solver.optimal_moves_knowing(p, &|q| known.get(q), 1)
        });
        for (p, settled) in todo.into_iter().zip(found) {
            self.learn(p, settled);
        }
        let mut tally = vec![Tally::default(); r.nodes.len()];
        for i in (0..r.nodes.len()).rev() {
            let p = r.nodes[i];
            let edges = &r.edges[r.first[i] as usize..r.first[i + 1] as usize];
            let w = 1.0 / edges.len() as f64;
            let mut t = Tally::default();
            for &e in edges {
                match e {
                    Edge::Node(c) => t.add(tally[c as usize], w),
                    Edge::End(o) => t.add(Tally::end(o), w),
                }
            }
            if self.agent_to_move(p) {
                let m = self.asked.get(p)?;
                t.moves += 1.0;
                if self.optimal(p).contains(&m) {
                    t.optimal += 1.0;
                }
            }
            tally[i] = t;
        }
        Ok(tally[0].figure(Against::Random, r.nodes.len()))
    }

    /// The agent's worst case over the reached positions: exact.
    fn worst_exact(r: &Reached) -> Figure {
        let mut worst = vec![Outcome::Draw; r.nodes.len()];
        for i in (0..r.nodes.len()).rev() {
            let edges = &r.edges[r.first[i] as usize..r.first[i + 1] as usize];
            worst[i] = edges
                .iter()
                .map(|&e| match e {
                    Edge::Node(c) => worst[c as usize],
                    Edge::End(o) => o,
                })
                .min()
                .expect("a position in play has a move");
        }
        Tally::end(worst[0]).figure(Against::BestResponse, r.nodes.len())
    }

    /// Against `minimax` or `minimax-uniform`, the tally from `p`: `None` past
    /// `Limits::positions` positions.
    fn walk(
        &mut self,
        p: Position,
        against: Against,
        memo: &mut HashMap<Position, Tally>,
    ) -> Result<Option<Tally>, String> {
        if let Some(&t) = memo.get(&p) {
            return Ok(Some(t));
        }
        if memo.len() >= self.limits.positions {
            return Ok(None);
        }
        let agent = self.agent_to_move(p);
        let mut t = Tally::default();
        if agent {
            let m = self.asked.get(p)?;
            t.moves = 1.0;
            t.optimal = f64::from(u8::from(self.optimal(p).contains(&m)));
            let child = p.play(m);
            match ended(child, true) {
                Some(o) => t.add(Tally::end(o), 1.0),
                None => match self.walk(child, against, memo)? {
                    Some(c) => t.add(c, 1.0),
                    None => return Ok(None),
                },
            }
        } else {
            let replies =
                if against == Against::Minimax { vec![self.minimax_reply(p)] } else { self.optimal(p).to_vec() };
            let w = 1.0 / replies.len() as f64;
            for m in replies {
                let child = p.play(m);
                match ended(child, false) {
                    Some(o) => t.add(Tally::end(o), w),
                    None => match self.walk(child, against, memo)? {
                        Some(c) => t.add(c, w),
                        None => return Ok(None),
                    },
                }
            }
        }
        memo.insert(p, t);
        Ok(Some(t))
    }

    /// `Limits::games` games against `random` or `minimax-uniform`, played side by side
    /// so that the agent is asked one batch per ply.
    fn sample(&mut self, against: Against) -> Result<Figure, String> {
        let games = self.limits.games.max(1);
        let mut rng: Rng = rng(self.limits.seed, Stream::Evaluation);
        let mut live: Vec<Position> = vec![self.root; games as usize];
        let (mut sum, mut sum_sq) = (0.0, 0.0);
        let (mut win, mut draw, mut loss) = (0u32, 0u32, 0u32);
        let (mut moves, mut optimal) = (0u64, 0u64);
        while !live.is_empty() {
            let agent = self.agent_to_move(live[0]);
            if agent {
                self.asked.ask(&live)?;
            }
            let mut next = Vec::with_capacity(live.len());
            for &p in &live {
                let m = if agent {
                    let m = self.asked.get(p)?;
                    moves += 1;
                    optimal += u64::from(self.optimal(p).contains(&m));
                    m
                } else {
                    self.sampled_reply(p, against, &mut rng)
                };
                let child = p.play(m);
                match ended(child, agent) {
                    Some(o) => {
                        let v = f64::from(o.value());
                        sum += v;
                        sum_sq += v * v;
                        match o {
                            Outcome::Win => win += 1,
                            Outcome::Draw => draw += 1,
                            Outcome::Loss => loss += 1,
                        }
                    }
                    None => next.push(child),
                }
            }
            live = next;
        }
        let n = f64::from(games);
        let mean = sum / n;
        let var = if games > 1 { (sum_sq - n * mean * mean).max(0.0) / (n - 1.0) } else { 0.0 };
        Ok(Figure {
            against,
            method: Method::Sampled,
            value: mean,
            p_win: f64::from(win) / n,
            p_draw: f64::from(draw) / n,
            p_loss: f64::from(loss) / n,
            // No interval from one game, or from games that all ended alike: a sample
            // variance of 0 says nothing of the spread, and `± 0` would claim exactness.
            half_width: (games > 1 && var > 0.0).then(|| 1.96 * (var / n).sqrt()),
            games: Some(games),
            accuracy: (moves > 0).then(|| optimal as f64 / moves as f64),
            positions: 0,
        })
    }

    /// The opponent's move in a sampled game: uniform over the legal moves (`random`) or
    /// the optimal ones (`minimax-uniform`), or `minimax`'s own (every game alike).
    fn sampled_reply(&mut self, p: Position, against: Against, rng: &mut Rng) -> u8 {
        if against == Against::Minimax {
            return self.minimax_reply(p);
        }
        let options = if against == Against::Random { p.moves() } else { self.optimal(p).to_vec() };
        options[rng.random_range(0..options.len())]
    }

    /// The agent's worst case by search: a forced loss within a growing horizon first,
    /// then the whole game with the search's values as bounds.
    fn worst_by_search(&mut self) -> Result<Figure, String> {
        let mut nodes = 0u64;
        let mut horizon = 1;
        let left = self.root.shape().cells() as u32 - self.root.plies();
        while horizon <= left && nodes < self.limits.nodes / 4 {
            if self.loss_within(self.root, horizon, &mut nodes)? {
                return Ok(Tally::end(Outcome::Loss).figure(Against::BestResponse, nodes as usize));
            }
            horizon += 2;
        }
        let mut memo = HashMap::new();
        let (worst, exact) = self.worst(self.root, &mut memo, &mut nodes)?;
        let mut f = Tally::end(worst).figure(Against::BestResponse, nodes as usize);
        if !exact {
            f.method = Method::Bound;
        }
        Ok(f)
    }

    /// Whether the opponent can force the agent to lose within `horizon` plies of `p`.
    fn loss_within(&mut self, p: Position, horizon: u32, nodes: &mut u64) -> Result<bool, String> {
        *nodes += 1;
        if horizon == 0 || *nodes >= self.limits.nodes / 4 {
            return Ok(false);
        }
        if self.agent_to_move(p) {
            let child = p.play(self.asked.get(p)?);
            return match ended(child, true) {
                Some(_) => Ok(false),
                None => self.loss_within(child, horizon - 1, nodes),
            };
        }
        for m in p.moves() {
            let child = p.play(m);
            let lost = match ended(child, false) {
                Some(o) => o == Outcome::Loss,
                None => self.loss_within(child, horizon - 1, nodes)?,
            };
            if lost {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The agent's worst case from `p` (an upper bound, exact when the flag says so).
    fn worst(
        &mut self,
        p: Position,
        memo: &mut HashMap<Position, Outcome>,
        nodes: &mut u64,
    ) -> Result<(Outcome, bool), String> {
        if let Some(&o) = memo.get(&p) {
            return Ok((o, true));
        }
        *nodes += 1;
        let result = if self.agent_to_move(p) {
            let child = p.play(self.asked.get(p)?);
            match ended(child, true) {
                Some(o) => (o, true),
                None => self.worst(child, memo, nodes)?,
            }
        } else {
            // The opponent does at least as well as perfect play.
            let mut hi = match self.known.get(p) {
                Some(o) => o,
                None => self.solver.outcome(p),
            }
            .flip();
            let mut exact = hi == Outcome::Loss;
            if !exact {
                exact = true;
                for m in p.moves() {
                    let child = p.play(m);
                    let (o, e) = match ended(child, false) {
                        Some(o) => (o, true),
                        None if *nodes >= self.limits.nodes => (hi, false),
                        None => self.worst(child, memo, nodes)?,
                    };
                    hi = hi.min(o);
                    exact &= e;
                    // A bound at a loss is the loss: nothing is lower.
                    if hi == Outcome::Loss {
                        exact = true;
                        break;
                    }
                }
            }
            (hi, exact)
        };
        if result.1 {
            memo.insert(p, result.0);
        }
        Ok(result)
    }
}
