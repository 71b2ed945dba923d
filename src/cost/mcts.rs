//! MCTS's cost: its scaling law ([`mcts_load`]), from the reach of tic-tac-toe's optimal
//! policy ([`tic_tac_toe_reach`]), the proxy for the positions an evaluation searches,
//! scaled to other boards by their measured reach ([`super::boards::mcts_reach`]) or
//! their agent states.

use super::{Load, boards};
use crate::game::Game;
use crate::mdp::{EvalOpponent, Evaluator, Opponent, Seat};
use crate::solvers::ground_truth;

/// States the optimal policy reaches in tic-tac-toe as `seat` against the fixed opponent
/// `opponent` (a saved policy counts as `minimax`, deterministic like it): the number of
/// searches an MCTS evaluation needs there, roughly, and the proxy for other boards.
pub fn tic_tac_toe_reach(seat: Seat, opponent: Opponent) -> usize {
    static REACH: std::sync::OnceLock<Vec<(Seat, Opponent, usize)>> = std::sync::OnceLock::new();
    let opponent = match opponent {
        Opponent::Policy(_) => Opponent::Minimax,
        fixed => fixed,
    };
    let reach = REACH.get_or_init(|| {
        let mut evaluator = Evaluator::new();
        let mut reach = Vec::new();
        for &seat in Seat::ALL {
            for &opp in Opponent::ALL {
                let t = ground_truth(Game::TIC_TAC_TOE, seat, opp);
                let states = evaluator.evaluate(&t.mdp, |s, _| t.mdp.cell(t.solution.actions[s] as usize)).states;
                reach.push((seat, opp, states));
            }
        }
        reach
    });
    reach.iter().find(|r| r.0 == seat && r.1 == opponent).map_or(0, |r| r.2)
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

/// What an MCTS job's evaluation costs, `iterations` a search, in `seats` against
/// `opponents`: one search per position reached (searches are shared between evaluation
/// opponents, so the largest reach counts); the optimal policy's reach in tic-tac-toe is
/// the proxy. On other boards the reach is scaled by the board's measured reach, or like a
/// power of the agent states (`reach_exponent`), and an iteration like the number of
/// cells (simulations play out the board), slower in a tree beyond the caches
/// (`tree_slowdown`). Past `exact_searches` positions per seat a row plays `games`
/// sampled games instead.
pub fn mcts_load(
    game: Game,
    iterations: u32,
    seats: &[Seat],
    opponents: &[EvalOpponent],
    exact_searches: u64,
    games: u64,
) -> Load {
    // A best response reaches at most what the random opponent reaches.
    let reach = |s: Seat, o: EvalOpponent| tic_tac_toe_reach(s, o.fixed().unwrap_or(Opponent::Random));
    let most = |s: Seat| opponents.iter().map(|&o| reach(s, o)).max().unwrap_or(0) as f64;
    let mut load = Load::new(game, seats);
    if game == Game::TIC_TAC_TOE {
        load.search_iterations = seats.iter().map(|&s| most(s)).sum::<f64>()
            * f64::from(iterations)
            * PAST_THE_OPENING
            * tree_slowdown(game, iterations);
        return load;
    }
    // The reach on a measured board ([`boards::mcts_reach`]), else grown like a power of
    // the agent states; but an exact evaluation stops at `exact_searches` positions per
    // seat, and past them the row plays sampled games (about one search per agent move,
    // half the cells).
    // An iteration's playout grows with the cells, its selection and expansion with the
    // moves of a position: on m,n,k-games both are the cells, on gravity boards the
    // moves are the columns (measured once, 1,000 iterations a search, both seats against
    // random: 49 ns an iteration on 4x4g4 against 37 ns on tic-tac-toe, 1.3 times,
    // where the cells alone say 16/9 = 1.8 and this 20/18 = 1.1).
    let moves = f64::from(game.moves(0).count_ones());
    let tic_tac_toe = Game::TIC_TAC_TOE.cells() as f64;
    let longer = (game.cells() as f64 + moves) / (2.0 * tic_tac_toe);
    let reach: f64 = seats
        .iter()
        .map(|&s| {
            let over = boards::mcts_reach(game, s)
                .unwrap_or_else(|| super::states_over_tic_tac_toe(game, &[s]).powf(reach_exponent(game)));
            most(s) * over
        })
        .sum();
    let cap = seats.len() as f64 * exact_searches as f64;
    let searches = if reach <= cap {
        reach
    } else {
        let rows = (seats.len() * opponents.len()) as f64;
        cap + rows * games as f64 * game.cells() as f64 / 2.0
    };
    load.search_iterations =
        searches * f64::from(iterations) * longer * PAST_THE_OPENING * tree_slowdown(game, iterations);
    load
}

/// How much slower an iteration is in a search tree that outgrows a core's caches than in
/// the calibration's (10,000 iterations): the tree takes about 64 bytes an iteration on
/// tic-tac-toe, growing with the square of the cells (see the kind's memory estimate),
/// and past 256 KiB an iteration costs `(tree / 256 KiB)^0.2` times as much (measured:
/// 1,000,000 iterations a search on tic-tac-toe, a 64 MB tree, 2.7 times the
/// calibration's cost per iteration).
fn tree_slowdown(game: Game, iterations: u32) -> f64 {
    let cells = game.cells() as f64;
    let tree = f64::from(iterations) * 64.0 * cells * cells / 81.0;
    (tree / f64::from(256u32 << 10)).powf(0.2).max(1.0)
}
