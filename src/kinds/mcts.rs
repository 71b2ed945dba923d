//! `mcts`: Monte Carlo tree search with UCT (`solvers/mcts/`). It does not train: its
//! agent searches in every position an evaluation reaches, one seeded search per position.

use super::param::{FINAL_MOVE, ITERATIONS, OPPONENT_MODEL, SEARCHED_GAME, SEAT, UCT_C};
use super::{Agent, Declared, Execution, Param, Seats, Solver, Train, Val, Values, Work};
use crate::cost::Load;
use crate::cost::memory::{self, Need};
use crate::evaluation::EvaluationSpec;
use crate::game::{Board, Game};
use crate::mdp::{Evaluator, Moves, Opponent, Policy, Seat};
use crate::solvers::mcts::Searcher;
use crate::solvers::q_learning::Checkpoint;
use crate::solvers::{MctsParams, ground_truth};

impl Declared for MctsParams {
    const NAME: &'static str = "mcts";
    const PARAMS: &'static [&'static Param] =
        &[&SEAT, &ITERATIONS, &UCT_C, &OPPONENT_MODEL, &FINAL_MOVE, &SEARCHED_GAME];
    const RUNS_A_PROGRAM: bool = false;

    fn build(v: &Values<'_>) -> Option<MctsParams> {
        Some(MctsParams {
            seat: v.choice(&SEAT),
            iterations: u32::try_from(v.count(&ITERATIONS)).expect("iterations were validated to fit in u32"),
            uct_c: v.real(&UCT_C),
            opponent_model: v.choice(&OPPONENT_MODEL),
            final_move: v.choice(&FINAL_MOVE),
            game: v.game(&SEARCHED_GAME),
        })
    }
}

impl Solver for MctsParams {
    fn values(&self) -> Vec<Val> {
        vec![
            Val::Name(self.seat.name()),
            Val::Count(u64::from(self.iterations)),
            Val::Real(self.uct_c),
            Val::Name(self.opponent_model.name()),
            Val::Name(self.final_move.name()),
            Val::Game(self.game),
        ]
    }

    fn work(&self) -> Work {
        Work { episodes: 0, iterations: u64::from(self.iterations) }
    }

    fn seats(&self) -> Seats {
        Seats::One(self.seat)
    }

    /// MCTS's scaling law ([`crate::cost::mcts::mcts_load`]).
    fn load(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Load {
        let games = if evaluation.games > 0 { evaluation.games } else { crate::evaluation::SAMPLED_GAMES };
        if !self.game.enumerable() {
            let from = evaluation.from.as_deref();
            return crate::cost::searched_load(self.game, seats, &evaluation.opponents, self.iterations, from, games);
        }
        crate::cost::mcts::mcts_load(
            self.game,
            self.iterations,
            seats,
            &evaluation.opponents,
            evaluation.exact_searches,
            games,
        )
    }

    /// One search tree, the policy of the searched positions and the evaluator. The tree
    /// takes about two 32-byte slots per iteration in tic-tac-toe (a children block holds
    /// a slot per legal move); measured, up to 3 on 3x4k3 and 5 on 4x4k4, so the estimate
    /// grows with the square of the cells.
    fn memory(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Need {
        let game = self.game;
        if !game.enumerable() {
            return memory::searched(game, self.iterations);
        }
        let evaluator = seats.iter().map(|&s| memory::evaluator(memory::side(game, s))).max().unwrap_or(0);
        let cells = game.cells() as u64;
        let tree = u64::from(self.iterations) * 64 * cells * cells / 81;
        let job = tree + memory::policy(game) + evaluator;
        Need { job, shared: Need::evaluations(game, seats, &evaluation.opponents) }
    }

    fn execution(&self) -> Execution<'_> {
        Execution::InProcess(self)
    }
}

impl Train for MctsParams {
    fn train(&self, _seed: u64, _marks: &[u64], _record: &mut dyn FnMut(Checkpoint, &dyn Moves)) -> Agent {
        Agent::Search(*self)
    }
}

/// An MCTS agent: it searches a position the first time it is asked for a move there
/// and keeps the move. Each search is seeded by the job seed and the position, so the
/// moves are the same whatever order the positions are met in.
pub struct SearchAgent {
    params: MctsParams,
    seed: u64,
    searcher: Searcher,
    policy: Policy,
    searched: usize,
}

impl SearchAgent {
    /// An agent that has searched nothing yet.
    pub fn new(params: MctsParams, seed: u64) -> SearchAgent {
        SearchAgent { params, seed, searcher: Searcher::new(), policy: Policy::new(params.game), searched: 0 }
    }

    /// The game it plays.
    pub fn game(&self) -> Game {
        self.params.game
    }

    /// Its move in `board` (searched once per position).
    pub fn choose(&mut self, board: Board) -> u8 {
        if let Some(c) = self.policy.get(board) {
            return c;
        }
        let c = self.searcher.choose(&self.params, self.seed, board);
        let id = board.game().positions().id(board).expect("a position that games reach");
        self.policy.set(id, c);
        self.searched += 1;
        c
    }

    /// How many positions it has searched.
    pub fn searched(&self) -> usize {
        self.searched
    }

    /// The moves of every position searched.
    pub fn into_policy(self) -> Policy {
        self.policy
    }
}

/// Runs one search per position that any evaluation reaches, and returns the moves as a
/// table (see [`SearchAgent`]).
pub fn search_policy(m: &MctsParams, seed: u64, seats: &[Seat], opponents: &[Opponent]) -> Policy {
    let mut agent = SearchAgent::new(*m, seed);
    let mut evaluator = Evaluator::new();
    for &seat in seats {
        for &opp in opponents {
            let truth = ground_truth(m.game, seat, opp);
            evaluator.evaluate(&truth.mdp, |_, b| agent.choose(b));
        }
    }
    agent.into_policy()
}
