//! Agents the scorer asks for moves: a deterministic policy answers a batch of positions
//! at a time ([`Agent`]), and [`Asked`] keeps every answer, so each position is asked at
//! most once and an illegal answer is an error naming the board.
//!
//! Two agents are built in: [`Lowest`] (the lowest legal move) and [`Perfect`] (the
//! `minimax` opponent's move: the best outcome, the lowest cell among ties). A program that
//! answers positions on standard input is another (`run::policy_server`).

use std::collections::HashMap;

use super::bitboard::Position;
use super::book::Known;
use super::search::{Settled, Solver};

/// The most outcomes [`Perfect`] keeps from its searches (about 160 MiB).
const KNOWN_MOST: usize = 1 << 22;

/// A deterministic policy: a move for each position it is asked (the game in play, the
/// agent to move), in the order asked. A wrong answer is caught by [`Asked`].
pub trait Agent {
    /// The agent's moves in `positions`, one per position, in order.
    fn moves(&mut self, positions: &[Position]) -> Result<Vec<u8>, String>;

    /// The end of the agent's use, once every position is asked: an agent that is a
    /// program is told so and checks that it said nothing more (by default, nothing).
    fn finish(&mut self) -> Result<(), String> {
        Ok(())
    }
}

/// The lowest legal move: the lowest column not full, or the lowest free cell.
#[derive(Debug, Default, Clone, Copy)]
pub struct Lowest;

impl Agent for Lowest {
    fn moves(&mut self, positions: &[Position]) -> Result<Vec<u8>, String> {
        Ok(positions.iter().map(|p| p.moves()[0]).collect())
    }
}

/// Perfect play: a move of the best outcome (win, draw, loss), by its own search; among
/// them the one the `minimax` opponent plays (the lowest cell, see
/// [`Solver::minimax_move`]).
#[derive(Debug)]
pub struct Perfect {
    solver: Solver,
    threads: usize,
    /// Outcomes its searches settled, which spare searches in the positions after them.
    known: Known,
}

impl Perfect {
    /// A perfect agent whose search table takes at most `table_bytes`.
    pub fn new(table_bytes: usize) -> Perfect {
        Perfect { solver: Solver::new(table_bytes), threads: 1, known: Known::new(KNOWN_MOST) }
    }

    /// The same agent answering a batch on `threads` threads (the same moves).
    pub fn with_threads(mut self, threads: usize) -> Perfect {
        self.threads = threads.max(1);
        self
    }
}

impl Agent for Perfect {
    fn moves(&mut self, positions: &[Position]) -> Result<Vec<u8>, String> {
        let known = &self.known;
        let lookup = |q: Position| known.get(q);
        let settled: Vec<Settled> = if positions.len() > 1 {
            self.solver.map_parallel(positions, self.threads, |s, p| s.minimax_move_knowing(p, &lookup, 1))
        } else {
            positions.iter().map(|&p| self.solver.minimax_move_knowing(p, &lookup, self.threads)).collect()
        };
        let moves = settled.iter().map(|s| s.moves[0]).collect();
        for s in settled {
            self.known.extend(s.learned);
        }
        Ok(moves)
    }
}

/// An agent's answers, each position asked once; the number asked, and the batches.
pub struct Asked<'a> {
    agent: &'a mut dyn Agent,
    answers: HashMap<Position, u8>,
    batches: usize,
}

impl<'a> Asked<'a> {
    pub fn new(agent: &'a mut dyn Agent) -> Asked<'a> {
        Asked { agent, answers: HashMap::new(), batches: 0 }
    }

    /// Positions asked so far.
    pub fn asked(&self) -> usize {
        self.answers.len()
    }

    /// Batches sent so far.
    pub fn batches(&self) -> usize {
        self.batches
    }

    /// Asks for every position of `positions` not asked before, in one batch; an answer
    /// that is not a legal move is an error naming the board.
    pub fn ask(&mut self, positions: &[Position]) -> Result<(), String> {
        let mut new: Vec<Position> = positions.iter().copied().filter(|p| !self.answers.contains_key(p)).collect();
        new.sort_by_key(|p| (p.plies(), p.mask(), p.mine()));
        new.dedup();
        if new.is_empty() {
            return Ok(());
        }
        let moves = self.agent.moves(&new)?;
        self.batches += 1;
        if moves.len() != new.len() {
            return Err(format!("asked for {} moves, the agent gave {}", new.len(), moves.len()));
        }
        for (p, m) in new.into_iter().zip(moves) {
            if !p.is_legal(m) {
                return Err(format!("the agent's move {m} is not legal in the position {p}"));
            }
            self.answers.insert(p, m);
        }
        Ok(())
    }

    /// The agent's move in `p`, asked now if it was not before.
    pub fn get(&mut self, p: Position) -> Result<u8, String> {
        if let Some(&m) = self.answers.get(&p) {
            return Ok(m);
        }
        self.ask(&[p])?;
        Ok(self.answers[&p])
    }
}
