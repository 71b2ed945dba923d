//! `mcts`: Monte Carlo tree search with UCT (`solvers/mcts.rs`). It does not train: its
//! agent searches in every position an evaluation reaches, one seeded search per position.

use super::param::{FINAL_MOVE, GAME, ITERATIONS, OPPONENT_MODEL, SEAT, UCT_C};
use super::{Agent, Declared, Param, Seats, Solver, Val, Values, Work};
use crate::cost::Load;
use crate::evaluation::EvaluationSpec;
use crate::game::{Board, Game};
use crate::mdp::{EvalOpponent, Evaluator, Moves, Opponent, Policy, Seat};
use crate::memory::{self, Need};
use crate::solvers::mcts::Searcher;
use crate::solvers::q_learning::Checkpoint;
use crate::solvers::{MctsParams, ground_truth};

impl Declared for MctsParams {
    const NAME: &'static str = "mcts";
    const PARAMS: &'static [&'static Param] = &[&SEAT, &ITERATIONS, &UCT_C, &OPPONENT_MODEL, &FINAL_MOVE, &GAME];

    fn build(v: &Values<'_>) -> MctsParams {
        MctsParams {
            seat: v.choice(&SEAT),
            iterations: u32::try_from(v.count(&ITERATIONS)).expect("iterations were validated to fit in u32"),
            uct_c: v.real(&UCT_C),
            opponent_model: v.choice(&OPPONENT_MODEL),
            final_move: v.choice(&FINAL_MOVE),
            game: v.game(&GAME),
        }
    }
}

/// An evaluation's searches start from positions past the opening, whose iterations are
/// cheaper (shorter playouts, fewer moves) than the calibration's mix of the empty board
/// and one mid-game position: measured, `experiments/mcts.toml` and
/// `experiments/mcts-random.toml` took 2.7 to 3.0 times less CPU than that mix predicts.
const PAST_THE_OPENING: f64 = 0.35;

/// How a fixed policy's reach against the random opponent grows with the agent states:
/// `reach ~ states^p`. Where every empty cell is a move (m,n,k-games), `p = 1` fits (3x4k4:
/// measured 18,477 positions searched for both seats at 1,000 iterations, 42 times
/// tic-tac-toe's, whose agent states are 31 times tic-tac-toe's). Where a position has fewer
/// moves than cells (gravity boards: one per column), the random opponent's replies branch
/// less, so the reach grows slower: `p = sqrt(ln(opening moves) / ln(cells))`, fitted on
/// 4x4g4 (measured 9.4 times tic-tac-toe's reach with 30 times its states; `p` = 0.71 gives
/// 11) and an overestimate on 3x5g3 (1.6 measured, 5.4 estimated, a few hundredths of a
/// second in all).
fn reach_exponent(game: Game) -> f64 {
    let moves = f64::from(game.moves(0).count_ones()).max(2.0);
    let cells = (game.cells() as f64).max(2.0);
    (moves.ln() / cells.ln()).min(1.0).sqrt()
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

    /// One search per position reached (searches are shared between evaluation opponents,
    /// so the largest reach counts); the optimal policy's reach in tic-tac-toe is the
    /// proxy. On other boards the reach is scaled like a power of the agent states
    /// (`reach_exponent`), and an iteration like the number of cells (simulations play
    /// out the board).
    fn load(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Load {
        // A best response reaches at most what the random opponent reaches.
        let reach = |s: Seat, o: EvalOpponent| crate::cost::tic_tac_toe_reach(s, o.fixed().unwrap_or(Opponent::Random));
        let positions: usize =
            seats.iter().map(|&s| evaluation.opponents.iter().map(|&o| reach(s, o)).max().unwrap_or(0)).sum();
        let mut load = Load::new(self.game, seats);
        if self.game == Game::TIC_TAC_TOE {
            load.search_iterations = positions as f64 * f64::from(self.iterations) * PAST_THE_OPENING;
            return load;
        }
        // The reach grows like the agent states, but an exact evaluation stops at
        // `exact_searches` positions per seat; past them the row plays sampled games (about
        // one search per agent move, half the cells).
        // An iteration's playout grows with the cells, its selection and expansion with the
        // moves of a position: on m,n,k-games both are the cells, on gravity boards the
        // moves are the columns (measured once, 1,000 iterations a search, both seats against
        // random: 49 ns an iteration on 4x4g4 against 37 ns on tic-tac-toe, 1.3 times,
        // where the cells alone say 16/9 = 1.8 and this 20/18 = 1.1).
        let moves = f64::from(self.game.moves(0).count_ones());
        let tic_tac_toe = Game::TIC_TAC_TOE.cells() as f64;
        let longer = (self.game.cells() as f64 + moves) / (2.0 * tic_tac_toe);
        let reach = positions as f64 * load.states_over_tic_tac_toe.powf(reach_exponent(self.game));
        let cap = seats.len() as f64 * evaluation.exact_searches as f64;
        let searches = if reach <= cap {
            reach
        } else {
            let games = if evaluation.games > 0 { evaluation.games } else { crate::evaluation::SAMPLED_GAMES };
            let rows = (seats.len() * evaluation.opponents.len()) as f64;
            cap + rows * games as f64 * self.game.cells() as f64 / 2.0
        };
        load.search_iterations = searches * f64::from(self.iterations) * longer * PAST_THE_OPENING;
        load
    }

    /// One search tree, the policy of the searched positions and the evaluator. The tree
    /// takes about two 32-byte slots per iteration in tic-tac-toe (a children block holds
    /// a slot per legal move); measured, up to 3 on 3x4k3 and 5 on 4x4k4, so the estimate
    /// grows with the square of the cells.
    fn memory(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Need {
        let game = self.game;
        let evaluator = seats.iter().map(|&s| memory::evaluator(memory::side(game, s))).max().unwrap_or(0);
        let cells = game.cells() as u64;
        let tree = u64::from(self.iterations) * 64 * cells * cells / 81;
        let job = tree + memory::policy(game) + evaluator;
        Need { job, shared: Need::evaluations(game, seats, &evaluation.opponents) }
    }

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
