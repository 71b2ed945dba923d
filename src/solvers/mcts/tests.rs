//! Tests of the search: determinism and pinned root statistics, wins and blocks on
//! tic-tac-toe and larger boards, play scored exactly against minimax and random
//! opponents, the batched draws, the rules' instances and widths, and the tables.

use rand::RngCore;

use super::rules::{AnyGame, WideGame, kth_cell, kth_cell16, kth_cell24, ones, ones16, ones24};
use super::tree::{Tree, ln};
use super::{Draws, Searcher};
use crate::game::{Board, Game};
use crate::mdp::{AgentMdp, Evaluation, Evaluator, Opponent, Seat};
use crate::seed::{self, Stream};
use crate::solvers::params::{FinalMove, MctsParams, OpponentModel};
use crate::solvers::policy_iteration;

const SEED: u64 = 2026;

fn params(iterations: u32, opponent_model: OpponentModel, final_move: FinalMove) -> MctsParams {
    MctsParams { iterations, opponent_model, final_move, ..MctsParams::default() }
}

fn every_variant(iterations: u32) -> Vec<MctsParams> {
    let mut all = Vec::new();
    for model in [OpponentModel::Adversarial, OpponentModel::Random] {
        for rule in [FinalMove::Visits, FinalMove::Value] {
            all.push(params(iterations, model, rule));
        }
    }
    all
}

fn board(s: &str) -> Board {
    s.parse().expect("a valid board")
}

/// The MCTS policy of `p`, evaluated exactly in `seat` against `opponent`, with the
/// optimal value of that MDP.
fn evaluate(p: &MctsParams, seat: Seat, opponent: Opponent) -> (Evaluation, f64) {
    let mdp = AgentMdp::build(crate::game::Game::TIC_TAC_TOE, seat, opponent);
    let mut searcher = Searcher::new();
    let eval = Evaluator::new().evaluate(&mdp, |_, b| searcher.choose(p, SEED, b));
    (eval, policy_iteration::solve(&mdp).value)
}

#[test]
fn the_same_inputs_give_the_same_search() {
    let p = params(3000, OpponentModel::Adversarial, FinalMove::Visits);
    let b = board("O.X.X....");
    let mut first = Searcher::new();
    let mv = first.choose(&p, SEED, b);
    let stats = first.root_stats();
    // A used searcher, after another search, repeats it bit for bit.
    first.choose(&p, SEED, Board::EMPTY);
    assert_eq!(first.choose(&p, SEED, b), mv);
    assert_eq!(first.root_stats(), stats);
    let mut second = Searcher::new();
    assert_eq!(second.choose(&p, SEED, b), mv);
    assert_eq!(second.root_stats(), stats);
    assert_eq!(stats.iter().map(|s| s.1).sum::<u32>(), 3000);
    // Another seed searches differently.
    second.choose(&p, SEED + 1, b);
    assert_ne!(second.root_stats(), stats);
}

#[test]
fn searches_reproduce_the_pinned_root_statistics() {
    // A change here means that a search no longer reproduces earlier results bit for
    // bit: the digest covers the move and the root statistics of every variant.
    let mut searcher = Searcher::new();
    let mut bytes = Vec::new();
    for p in every_variant(500) {
        for b in [Board::EMPTY, board("O.X.X...."), board("X...O...."), board("XO..X...O")] {
            let mv = searcher.choose(&p, SEED, b);
            bytes.extend(format!("{mv} {:?}", searcher.root_stats()).bytes());
        }
    }
    assert_eq!(seed::fnv1a(&bytes), 0xd052_d40c_a7fa_1ad1);
}

#[test]
fn a_one_move_win_is_taken() {
    let mut searcher = Searcher::new();
    // X wins at 2; O wins at 5 (rather than blocking X at 2).
    for (b, win) in [("XX.OO....", 2), ("XX.OO.X..", 5), ("X.O.XO...", 8)] {
        for p in every_variant(1000) {
            assert_eq!(searcher.choose(&p, SEED, board(b)), win, "{b} {p:?}");
            // A terminal child yields its exact result at every visit.
            let stats = searcher.root_stats();
            let (_, visits, mean) = stats.into_iter().find(|s| s.0 == win).expect("the winning move was expanded");
            assert!(visits > 0 && mean == 1.0, "{b} {visits} {mean}");
        }
    }
}

#[test]
fn a_must_block_is_blocked() {
    let mut searcher = Searcher::new();
    // O blocks X at 2, X blocks O at 5, O blocks X at 7.
    for (b, block) in [("XX..O....", 2), ("X..OO...X", 5), ("OX..X....", 7)] {
        for rule in [FinalMove::Visits, FinalMove::Value] {
            let p = params(2000, OpponentModel::Adversarial, rule);
            assert_eq!(searcher.choose(&p, SEED, board(b)), block, "{b} {rule:?}");
        }
    }
}

fn game(text: &str) -> Game {
    text.parse().expect("a valid game")
}

#[test]
fn a_one_move_win_is_taken_on_larger_boards() {
    let mut searcher = Searcher::new();
    // 3x4k3: X wins at 2 (O threatens 6); O wins at 6 (rather than blocking X at 2).
    // 4x4k4: X wins at 3 (O threatens 7); O wins at 7 (rather than blocking X at 3).
    let cases = [
        ("3x4k3", "XX..OO......", 2),
        ("3x4k3", "XX..OO.X....", 6),
        ("4x4k4", "XXX.OOO.........", 3),
        ("4x4k4", "XXX.OOO.X.......", 7),
    ];
    for (g, b, win) in cases {
        let b = Board::parse_in(game(g), b).expect("a valid board");
        for p in every_variant(2000) {
            assert_eq!(searcher.choose(&p, SEED, b), win, "{g} {b} {p:?}");
            let stats = searcher.root_stats();
            let (_, visits, mean) = stats.into_iter().find(|s| s.0 == win).expect("the winning move was expanded");
            assert!(visits > 0 && mean == 1.0, "{g} {b} {visits} {mean}");
        }
    }
}

#[test]
fn a_must_block_is_blocked_on_larger_boards() {
    let mut searcher = Searcher::new();
    // 3x4k3: O blocks X at 2, X blocks O at 6; 4x4k4: O blocks X at 3, X blocks O at 7.
    let cases = [
        ("3x4k3", "XX....O.....", 2),
        ("3x4k3", "X...OO....X.", 6),
        ("4x4k4", "XXX.OO..........", 3),
        ("4x4k4", "XX..OOO.X.......", 7),
    ];
    for (g, b, block) in cases {
        let b = Board::parse_in(game(g), b).expect("a valid board");
        if b.game().cells() <= 12 {
            // The block is the only minimax-optimal move (checked exactly).
            let pos = b.game().positions();
            let id = pos.id(b).expect("a reachable position");
            assert_eq!(pos.optimal_moves(id), 1 << block, "{g} {b}");
        }
        for rule in [FinalMove::Visits, FinalMove::Value] {
            let p = params(5000, OpponentModel::Adversarial, rule);
            assert_eq!(searcher.choose(&p, SEED, b), block, "{g} {b} {rule:?}");
        }
    }
}

#[test]
fn modelling_a_random_opponent_wins_against_one_on_3x4k3() {
    // X wins 3x4k3 with perfect play; against a uniformly random O the search, scored
    // exactly over every game the policy reaches, wins nearly always.
    let p = params(2000, OpponentModel::Random, FinalMove::Visits);
    let truth = crate::solvers::ground_truth(game("3x4k3"), Seat::X, Opponent::Random);
    let mut searcher = Searcher::new();
    let eval = Evaluator::new().evaluate(&truth.mdp, |_, b| searcher.choose(&p, SEED, b));
    println!("3x4k3, X against random: {eval:?}, optimal {}", truth.solution.value);
    assert!(eval.value >= 0.9, "{eval:?}");
}

#[test]
fn the_adversarial_search_wins_3x4k3_against_minimax() {
    // X wins 3x4k3 with perfect play, and the search finds the win in every position
    // a minimax O leads to.
    let p = params(10_000, OpponentModel::Adversarial, FinalMove::Visits);
    let truth = crate::solvers::ground_truth(game("3x4k3"), Seat::X, Opponent::Minimax);
    let mut searcher = Searcher::new();
    let eval = Evaluator::new().evaluate(&truth.mdp, |_, b| searcher.choose(&p, SEED, b));
    println!("3x4k3, X against minimax: {eval:?}, optimal {}", truth.solution.value);
    assert_eq!(truth.solution.value, 1.0);
    assert_eq!(eval.value, 1.0, "{eval:?}");
}

#[test]
fn tiny_searches_and_forced_moves_work() {
    let mut searcher = Searcher::new();
    for p in every_variant(1) {
        let mv = searcher.choose(&p, SEED, Board::EMPTY);
        assert_eq!(searcher.root_stats().len(), 1);
        assert_eq!(searcher.root_stats()[0].0, mv);
    }
    // One empty cell left: the only move, whatever the budget.
    for p in every_variant(5) {
        assert_eq!(searcher.choose(&p, SEED, board("XOXXOOOX.")), 8);
        assert_eq!(searcher.root_stats(), vec![(8, 5, 0.5)]);
    }
}

#[test]
fn the_adversarial_search_never_loses_to_minimax() {
    let p = params(10_000, OpponentModel::Adversarial, FinalMove::Visits);
    for seat in [Seat::X, Seat::O] {
        let (eval, optimal) = evaluate(&p, seat, Opponent::Minimax);
        assert_eq!(optimal, 0.0);
        assert_eq!(eval.value, 0.0, "{seat:?} {eval:?}");
        assert_eq!(eval.p_loss, 0.0, "{seat:?} {eval:?}");
    }
}

#[test]
fn modelling_a_random_opponent_pays_against_one() {
    let adversarial = params(10_000, OpponentModel::Adversarial, FinalMove::Visits);
    let random = params(10_000, OpponentModel::Random, FinalMove::Visits);
    let (a, optimal) = evaluate(&adversarial, Seat::X, Opponent::Random);
    let (r, _) = evaluate(&random, Seat::X, Opponent::Random);
    let (regret_a, regret_r) = (optimal - a.value, optimal - r.value);
    println!("regret against random as x: adversarial {regret_a:.9}, random {regret_r:.9}");
    assert!(regret_a >= -1e-12 && regret_r >= -1e-12, "{regret_a} {regret_r}");
    assert!(regret_r <= regret_a + 1e-12, "{regret_r} > {regret_a}");
    // Both open in the centre (190/192 against a random opponent; a corner is worth
    // 191/192) and play every later reached state optimally. At 10,000 iterations the
    // UCT averages at the root favour the centre under either model.
    for regret in [regret_a, regret_r] {
        assert!((regret - 1.0 / 192.0).abs() < 1e-12, "{regret}");
    }
}

#[test]
fn modelling_a_random_opponent_finds_its_best_replies_once_the_tree_is_complete() {
    // Every state of O against random with four empty cells: the search tree is
    // complete after a few hundred iterations, so the model decides. Loss = how much
    // expected return the chosen move gives up against the exact optimum.
    let mdp = AgentMdp::build(crate::game::Game::TIC_TAC_TOE, Seat::O, Opponent::Random);
    let solution = policy_iteration::solve(&mdp);
    let mut searcher = Searcher::new();
    let mut loss = |p: &MctsParams| {
        let mut total = 0.0;
        for s in (0..mdp.len()).filter(|&s| mdp.board(s).pieces() == 5) {
            let cell = searcher.choose(p, SEED, mdp.board(s));
            let q = solution.action_values(&mdp, s).find(|&(c, _)| c == cell).expect("legal").1;
            assert!(solution.values[s] - q >= -1e-12);
            total += solution.values[s] - q;
        }
        total
    };
    let adversarial = loss(&params(10_000, OpponentModel::Adversarial, FinalMove::Visits));
    let random = loss(&params(10_000, OpponentModel::Random, FinalMove::Visits));
    println!("summed loss over O's four-empty states: adversarial {adversarial:.6}, random {random:.6}");
    assert!(random < 1e-9, "{random}");
    assert!(adversarial > 1.0, "{adversarial}");
}

#[test]
fn batched_draws_are_mixed_radix_digits() {
    let mut rng = seed::keyed_rng(SEED, Stream::Search, 0);
    for _ in 0..1000 {
        let word = rng.next_u64();
        let ranges = [9u32, 8, 7, 6, 5, 4, 3, 2, 1];
        let mut draws = Draws(word);
        let mut number = 0u128;
        for &n in &ranges {
            let k = draws.below(n);
            assert!(k < n);
            number = number * u128::from(n) + u128::from(k);
        }
        assert_eq!(number, (u128::from(word) * 362_880) >> 64);
    }
}

#[test]
fn the_general_rules_search_tic_tac_toe_exactly_as_its_own_tables_do() {
    // The same search through the game's win table and the 16-bit helpers: the fast
    // path is only a faster form of the same rules.
    let general = AnyGame::new(Game::TIC_TAC_TOE);
    for p in every_variant(500) {
        for b in [Board::EMPTY, board("O.X.X...."), board("XO..X...O")] {
            let mut searcher = Searcher::new();
            let mv = searcher.choose(&p, SEED, b);
            let stats = searcher.root_stats();
            let mut tree = Tree::<u16>::default();
            assert_eq!((tree.run(general, &p, SEED, b), tree.root_stats()), (mv, stats), "{b} {p:?}");
        }
    }
}

#[test]
fn the_mask_width_does_not_change_a_search() {
    // Boards of up to 16 cells are searched in 16-bit masks (32-byte nodes); the same
    // search in 32-bit masks, through the rules of the boards beyond 16 cells (win
    // lines, 24-bit helpers), gives the same move and root statistics.
    let boards = [
        ("3x3k3", "O.X.X...."),
        ("3x4k3", "X...OO....X."),
        ("4x4k4", "XXX.OO.........."),
        ("4x4g4", "................"),
        ("3x5g3", "..........X.O.X"),
    ];
    for (g, b) in boards {
        let game = game(g);
        let b = Board::parse_in(game, b).expect("a valid board");
        for p in every_variant(300) {
            let mut searcher = Searcher::new();
            let mv = searcher.choose(&p, SEED, b);
            let mut wide = Tree::<u32>::default();
            assert_eq!(
                (wide.run(WideGame { game }, &p, SEED, b), wide.root_stats()),
                (mv, searcher.root_stats()),
                "{g} {b} {p:?}"
            );
        }
    }
}

#[test]
fn sixteen_bit_helpers_are_right() {
    for mask in 0..=u32::from(u16::MAX) {
        let cells: Vec<u8> = crate::game::cells(mask).collect();
        assert_eq!(ones16(mask), mask.count_ones());
        for (k, &cell) in cells.iter().enumerate() {
            assert_eq!(kth_cell16(mask, k as u32), cell);
        }
    }
}

#[test]
fn twenty_four_bit_helpers_are_right() {
    // Every 16-bit mask shifted to each byte boundary, and a spread of full-width ones.
    let spread = (0..4096u32).map(|i| i.wrapping_mul(0x9E37_79B9) >> 8);
    for mask in (0..=u32::from(u16::MAX)).flat_map(|m| [m, m << 8]).chain(spread) {
        let cells: Vec<u8> = crate::game::cells(mask).collect();
        assert_eq!(ones24(mask), mask.count_ones());
        for (k, &cell) in cells.iter().enumerate() {
            assert_eq!(kth_cell24(mask, k as u32), cell);
        }
    }
}

#[test]
fn tables_are_right() {
    for x in [1.0, 2.0, 3.0, 10.0, 1234.0, 1e6, 4e9] {
        assert!((ln(x) - f64::ln(x)).abs() <= 1e-14 * f64::ln(x).max(1.0), "{x}");
    }
    for mask in 0..512u32 {
        let cells: Vec<u8> = crate::game::cells(mask).collect();
        for (k, &cell) in cells.iter().enumerate() {
            assert_eq!(kth_cell(mask, k as u32), cell);
            assert_eq!(ones(mask), mask.count_ones());
        }
    }
}
