//! The search against the enumerating engine, position by position, and against facts.

use super::search::lowest_cell;
use super::*;
use crate::game::{Family, Game, Player, Positions, Status};

/// Every position's exact score for the player to move, by backward induction over the
/// enumerated positions (the children of a position come after it).
fn scores_by_enumeration(p: &Positions) -> Vec<i32> {
    let cells = p.game().cells() as i32;
    let mut score = vec![0i32; p.len()];
    for id in (0..p.len()).rev() {
        let b = p.board(id);
        score[id] = match p.status(id) {
            Status::Draw => 0,
            // The player who just moved won with the board's last stone.
            Status::Won(_) => -(cells + 1 - b.pieces() as i32),
            Status::Ongoing => {
                p.children(id, b.moves()).map(|c| -score[c as usize]).max().expect("a position in play has a move")
            }
        };
    }
    score
}

/// The search and the enumeration agree on every position in play of `game`: score (so
/// outcome and plies), outcome by null windows, and the set of optimal moves.
fn agree_on_every_position(game: Game, solver: &mut Solver) -> usize {
    let positions = game.positions();
    let scores = scores_by_enumeration(positions);
    let truths: std::collections::HashMap<Position, Outcome> = (0..positions.len())
        .filter(|&id| positions.status(id) == Status::Ongoing)
        .map(|id| (Position::of_board(positions.board(id)), Outcome::of(scores[id])))
        .collect();
    let mut checked = 0;
    for (id, &want) in scores.iter().enumerate() {
        if positions.status(id) != Status::Ongoing {
            continue;
        }
        let b = positions.board(id);
        let p = Position::of_board(b);
        assert_eq!(solver.score(p), want, "{game} {p}: score");
        let sign = if b.to_move() == Player::X { 1 } else { -1 };
        assert_eq!(solver.outcome(p).value(), positions.minimax(id) * sign, "{game} {p}: outcome");
        let cols = game.cols() as u8;
        let mut want_moves: Vec<u8> = crate::game::cells(positions.optimal_moves(id))
            .map(|c| if game.family() == Family::Gravity { c % cols } else { c })
            .collect();
        want_moves.sort_unstable();
        assert_eq!(solver.optimal_moves(p), want_moves, "{game} {p}: optimal moves");
        // Knowing the position's outcome, or every outcome, finds the same moves, and
        // every outcome the search settles on the way is the enumeration's.
        let truth = |q: Position| truths.get(&q).copied();
        let own = Outcome::of(want);
        let knowing_own = solver.optimal_moves_knowing(p, &|q| (q == p).then_some(own), 1);
        let knowing_all = solver.optimal_moves_knowing(p, &truth, 1);
        for settled in [knowing_own, knowing_all] {
            assert_eq!(settled.moves, want_moves, "{game} {p}: optimal moves knowing");
            assert_eq!(settled.learned[0], (p, own), "{game} {p}");
            for &(q, o) in &settled.learned {
                assert_eq!(Some(o), truth(q), "{game} {p}: settled {q}");
            }
        }
        // The minimax move, searched for alone, is the lowest cell of those moves.
        let minimax = lowest_cell(p, &want_moves);
        for settled in [
            solver.minimax_move_knowing(p, &|_| None, 1),
            solver.minimax_move_knowing(p, &|q| (q == p).then_some(own), 1),
            solver.minimax_move_knowing(p, &truth, 1),
        ] {
            assert_eq!(settled.moves, [minimax], "{game} {p}: minimax move");
            for &(q, o) in &settled.learned {
                assert_eq!(Some(o), truth(q), "{game} {p}: settled {q} on the way to the minimax move");
            }
        }
        checked += 1;
    }
    checked
}

#[test]
fn the_search_agrees_with_the_enumeration_on_every_position_of_the_small_boards() {
    let mut solver = Solver::new(1 << 24);
    let mut boards = 0;
    for game in Game::all().filter(|g| g.cells() <= 12) {
        assert!(agree_on_every_position(game, &mut solver) > 0, "{game}");
        boards += 1;
    }
    assert!(boards >= 6, "only {boards} boards");
}

#[test]
#[ignore = "release build: every position of every enumerable board, up to 24 cells"]
fn the_search_agrees_with_the_enumeration_on_every_position_of_every_board() {
    let mut solver = Solver::new(1 << 30);
    for game in Game::all() {
        let n = agree_on_every_position(game, &mut solver);
        eprintln!("{game}: {n} positions agree");
    }
}

#[test]
fn tic_tac_toe_is_a_draw_in_nine_plies_and_its_openings_draw() {
    let shape: Shape = "3x3k3".parse().unwrap();
    let mut solver = Solver::new(1 << 16);
    let empty = Position::empty(shape);
    assert_eq!(solver.score(empty), 0);
    assert_eq!(search::plies_left(0, 9, 0), 9);
    assert!(solver.move_scores(empty).iter().all(|&(_, s)| s == 0));
    // X in a corner and O on an edge next to it: X wins.
    let p = Position::after(shape, &[0, 1]).unwrap();
    let s = solver.score(p);
    assert_eq!((Outcome::of(s), search::plies_left(s, 9, 2)), (Outcome::Win, 5));
    assert_eq!(s, 3, "X wins with the game's seventh stone");
}

#[test]
fn shapes_read_their_names_and_refuse_boards_too_big() {
    for name in ["6x7g4", "7x6g4", "7x7g4", "5x5k4", "3x3k3", "4x4g4", "6x4g4"] {
        let s: Shape = name.parse().unwrap();
        assert_eq!(s.to_string(), name);
    }
    assert_eq!("6x7g4".parse::<Shape>().unwrap().cells(), 42);
    assert!("6x7g4".parse::<Shape>().unwrap().game().is_none());
    assert_eq!("4x4g4".parse::<Shape>().unwrap().game(), Some("4x4g4".parse().unwrap()));
    for bad in ["9x7g4", "6x6k4", "6x7g8", "6x7x4", "2x7g2", ""] {
        let e = bad.parse::<Shape>().unwrap_err();
        assert!(e.to_string().contains("cannot be valued by search"), "{bad}: {e}");
    }
}

#[test]
fn moves_read_back_and_illegal_ones_are_named() {
    let s: Shape = "6x7g4".parse().unwrap();
    let p = Position::after(s, &[3, 3, 4]).unwrap();
    assert_eq!(p.plies(), 3);
    assert_eq!(p.to_string(), "......./......./......./......./...O.../...XX..");
    assert_eq!(p.moves(), vec![0, 1, 2, 3, 4, 5, 6]);
    let full = [0u8; 6];
    let e = Position::after(s, &[&full[..], &[0]].concat()).unwrap_err();
    assert!(e.to_string().contains("move 7 (0) is not legal: column 0 is full"), "{e}");
    assert!(Position::after(s, &[7]).unwrap_err().to_string().contains("there is no column 7"));
    let won = Position::after(s, &[0, 1, 0, 1, 0, 1, 0]).unwrap_err();
    assert!(won.to_string().contains("the game is over after these moves: won"), "{won}");
    let after = Position::after(s, &[0, 1, 0, 1, 0, 1, 0, 1]).unwrap_err();
    assert!(after.to_string().contains("move 8 (1) comes after the game is over"), "{after}");
    let m: Shape = "5x5k4".parse().unwrap();
    let e = Position::after(m, &[12, 12]).unwrap_err();
    assert!(e.to_string().contains("cell 12 is taken"), "{e}");
}

/// A position of `shape` after `stones` moves chosen by a fixed generator, avoiding moves
/// that end the game (None if the playout runs out of such moves).
fn playout(shape: Shape, stones: u32, seed: u64) -> Option<(Vec<u8>, Position)> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut p = Position::empty(shape);
    let mut moves = Vec::new();
    while p.plies() < stones {
        let safe: Vec<u8> = p.moves().into_iter().filter(|&m| !p.play(m).is_over()).collect();
        if safe.is_empty() {
            return None;
        }
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let m = safe[(state % safe.len() as u64) as usize];
        moves.push(m);
        p = p.play(m);
    }
    Some((moves, p))
}

#[test]
fn a_position_and_its_mirror_share_a_key_and_a_score() {
    let s: Shape = "6x7g4".parse().unwrap();
    let mut solver = Solver::new(1 << 22);
    let mut seen = 0;
    for seed in 0..40 {
        let Some((moves, p)) = playout(s, 22 + (seed % 6) as u32, seed) else { continue };
        let mirrored: Vec<u8> = moves.iter().map(|m| 6 - m).collect();
        let q = Position::after(s, &mirrored).unwrap();
        assert_eq!(p.key(), q.key());
        assert_ne!(p.to_string(), q.to_string());
        assert_eq!(solver.score(p), solver.score(q), "{p}");
        seen += 1;
    }
    assert!(seen >= 20);
}

#[test]
fn the_table_stays_within_its_bytes() {
    for bytes in [1usize, 9, 10, 1000, 1 << 20] {
        let t = Transpositions::new(bytes);
        assert!(t.bytes() <= bytes.max(table::MIN_SLOTS * table::SLOT_BYTES), "{bytes}");
        assert!(t.slots() >= 1);
    }
}

/// The positions solved by the independent reference solver (`scripts/reference_solver.c`,
/// no code shared): `(game, moves, value, plies)`.
fn reference_positions() -> Vec<(Shape, Vec<u8>, i8, u32)> {
    include_str!("../../tests/data/solved_positions.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let moves = if f[1] == "-" { Vec::new() } else { f[1].split(',').map(|m| m.parse().unwrap()).collect() };
            (f[0].parse().unwrap(), moves, f[2].parse().unwrap(), f[3].parse().unwrap())
        })
        .collect()
}

/// The reference positions agree: those of `stones` in `range` on boards of 42 cells or
/// more, every one on the smaller boards (with `small`).
fn agree_with_the_reference(range: std::ops::Range<usize>, small: bool) -> usize {
    let mut solver = Solver::new(1 << 27);
    let mut n = 0;
    for (shape, moves, value, plies) in reference_positions() {
        let wanted = if shape.cells() >= 42 { range.contains(&moves.len()) } else { small };
        if !wanted {
            continue;
        }
        let p = Position::after(shape, &moves).unwrap();
        let s = solver.score(p);
        assert_eq!(
            (Outcome::of(s).value(), plies_left(s, shape.cells(), p.plies())),
            (value, plies),
            "{shape} {moves:?}"
        );
        assert_eq!(solver.outcome(p).value(), value, "{shape} {moves:?}");
        n += 1;
    }
    n
}

#[test]
fn the_search_agrees_with_an_independent_solver_on_its_positions() {
    assert!(agree_with_the_reference(12..43, true) >= 330);
}

#[test]
#[ignore = "release build: Connect Four with 8 to 11 stones, tens of seconds"]
fn connect_four_early_positions_agree_with_an_independent_solver() {
    assert_eq!(agree_with_the_reference(2..12, false), 13);
}

#[test]
fn the_book_agrees_with_the_independent_solver_s_positions() {
    // An entry the independent solver holds is compared with it; else the solver's values
    // one move later settle it wherever they decide it (a win when some move leaves the
    // opponent lost, a loss when every move leaves the opponent winning); else the entry's
    // mirror image settles it.
    let refs = reference_positions();
    let settle = |shape: Shape, moves: &[u8]| -> Option<Outcome> {
        if let Some(r) = refs.iter().find(|r| r.0 == shape && r.1 == moves) {
            return Some(Outcome::of(Score::from(r.2)));
        }
        let after: Vec<i8> = refs
            .iter()
            .filter(|(s, m, _, _)| *s == shape && m.len() == moves.len() + 1 && m.starts_with(moves))
            .map(|r| r.2)
            .collect();
        if after.contains(&-1) {
            Some(Outcome::Win)
        } else if after.len() == shape.cols() && after.iter().all(|&v| v == 1) {
            Some(Outcome::Loss)
        } else {
            None
        }
    };
    let mut by_reference = 0;
    for (shape, moves, outcome) in book::BOOK {
        let mirror: Vec<u8> = moves.iter().map(|&m| shape.cols() as u8 - 1 - m).collect();
        let settled = settle(*shape, moves).or_else(|| settle(*shape, &mirror));
        if let Some(o) = settled {
            assert_eq!(o, *outcome, "{shape} after {moves:?}");
            by_reference += 1;
        } else {
            // Settled by the search only (`the_book_agrees_with_the_search`); its mirror
            // image must read the same.
            let twin = book::BOOK.iter().find(|e| e.0 == *shape && e.1 == mirror.as_slice());
            assert_eq!(twin.map(|e| e.2), Some(*outcome), "{shape} after {moves:?} and its mirror image");
        }
    }
    // The empty board, and the first stone in the centre and in the two edge columns.
    assert_eq!(by_reference, 4);
}

#[test]
fn the_book_is_consistent_with_itself() {
    // An entry whose children are all in the book is their best outcome for its player.
    for (shape, moves, outcome) in book::BOOK {
        let p = Position::after(*shape, moves).unwrap();
        let children: Option<Vec<Outcome>> = p.moves().into_iter().map(|m| book::known(p.play(m))).collect();
        if let Some(children) = children {
            assert_eq!(children.into_iter().map(Outcome::flip).max(), Some(*outcome), "{shape} after {moves:?}");
        }
    }
}

#[test]
#[ignore = "release build: the empty Connect Four board and its first moves, minutes each on two threads"]
fn the_book_agrees_with_the_search() {
    for (shape, moves, outcome) in book::BOOK {
        let p = Position::after(*shape, moves).unwrap();
        let solver = Solver::new(2 << 30);
        assert_eq!(solver.outcome_parallel(p, 2).0, *outcome, "{shape} after {moves:?}");
    }
}

#[test]
#[ignore = "release build: Connect Four after its first move, minutes"]
fn connect_four_openings_agree_with_an_independent_solver() {
    assert_eq!(agree_with_the_reference(0..2, false), 3);
}

#[test]
fn threads_sharing_one_table_agree_with_one_thread() {
    // Every reference position of 14 to 42 stones: by position over two threads, and each
    // by two threads racing on one table (one answers, the other stops and stores nothing).
    let mut solver = Solver::new(1 << 26);
    let refs: Vec<_> = reference_positions().into_iter().filter(|(_, m, _, _)| m.len() >= 14).collect();
    let positions: Vec<Position> = refs.iter().map(|(s, m, _, _)| Position::after(*s, m).unwrap()).collect();
    let outcomes = solver.outcomes_parallel(&positions, 2);
    assert_eq!(outcomes.len(), refs.len());
    for ((shape, moves, value, _), o) in refs.iter().zip(&outcomes) {
        assert_eq!(o.value(), *value, "{shape} {moves:?}");
    }
    let mut again = Solver::new(1 << 26);
    for ((shape, moves, value, _), &p) in refs.iter().zip(&positions).take(60) {
        let (o, nodes) = again.outcome_parallel(p, 2);
        assert_eq!(o.value(), *value, "{shape} {moves:?} by two threads");
        assert!(nodes > 0);
        // The table the race left behind still gives exact scores.
        assert_eq!(Outcome::of(again.score(p)).value(), *value, "{shape} {moves:?} after the race");
        // The children's searches spread over two threads find the moves of the best
        // outcome of each child's own two null windows.
        let outcomes = solver.move_outcomes(p, book::known);
        let best = outcomes.iter().map(|o| o.1).max().unwrap();
        let want: Vec<u8> = outcomes.iter().filter(|o| o.1 == best).map(|o| o.0).collect();
        let settled = again.optimal_moves_knowing(p, &|_| None, 2);
        assert_eq!(settled.moves, want, "{shape} {moves:?}: optimal moves over two threads");
        assert_eq!(settled.learned[0], (p, best), "{shape} {moves:?}");
        let own = |q: Position| (q == p).then_some(best);
        assert_eq!(again.minimax_move_knowing(p, &own, 2).moves, [lowest_cell(p, &want)], "{shape} {moves:?}");
    }
}

#[test]
fn board_texts_read_back_and_unreachable_boards_are_refused() {
    let c4: Shape = "6x7g4".parse().unwrap();
    for seed in 0..50 {
        if let Some((moves, p)) = playout(c4, 1 + seed as u32 % 30, seed) {
            let back = Position::of_board_text(c4, &p.board_text()).unwrap();
            assert_eq!((back.mine(), back.mask(), back.plies()), (p.mine(), p.mask(), p.plies()), "{moves:?}");
        }
    }
    let empty = ".".repeat(42);
    let floating = format!("X{}", &empty[1..]);
    assert!(Position::of_board_text(c4, &floating).unwrap_err().0.contains("floats"));
    let two_x = format!("{}XX.....", &empty[..35]);
    assert!(Position::of_board_text(c4, &two_x).unwrap_err().0.contains("as many stones"));
    let won = format!("{}OOO....XXXX...", &empty[..28]);
    assert!(Position::of_board_text(c4, &won).unwrap_err().0.contains("won"));
    assert!(Position::of_board_text(c4, "X..").unwrap_err().0.contains("42 cells"));
    let m: Shape = "5x5k4".parse().unwrap();
    let p = Position::after(m, &[12, 0]).unwrap();
    assert_eq!(Position::of_board_text(m, &p.board_text()).unwrap(), p);
}

#[test]
fn uct_is_a_deterministic_policy_that_takes_a_win_in_one() {
    let c4: Shape = "6x7g4".parse().unwrap();
    let positions: Vec<Position> = (0..12).filter_map(|s| playout(c4, 10 + s as u32, s).map(|(_, p)| p)).collect();
    let mut a = Uct::new(200, 1.414, 9);
    let mut b = Uct::new(200, 1.414, 9);
    let forward = a.moves(&positions).unwrap();
    let mut reversed = positions.clone();
    reversed.reverse();
    let mut backward = b.moves(&reversed).unwrap();
    backward.reverse();
    assert_eq!(forward, backward, "the same move for a position whatever the order asked");
    for (p, &m) in positions.iter().zip(&forward) {
        assert!(p.is_legal(m));
    }
    // X to move with three in the bottom row: the fourth wins at once.
    let p = Position::after(c4, &[0, 0, 1, 1, 2, 2]).unwrap();
    assert_eq!(Uct::new(500, 1.414, 1).moves(&[p]).unwrap(), vec![3]);
}

/// A search within a node budget: the unbudgeted search's outcome where it settles it
/// (Connect Four 12 stones in, and after one more stone), nothing where the budget runs
/// out (the empty board within a thousand positions), and an aborted search leaves the
/// solver whole.
#[test]
fn a_budgeted_search_settles_or_says_it_did_not() {
    let shape: Shape = "6x7g4".parse().unwrap();
    let twelve = Position::after(shape, &[4, 6, 4, 0, 3, 1, 1, 3, 1, 4, 0, 6]).unwrap();
    let mut solver = Solver::new(16 << 20);
    assert_eq!(solver.outcome_within(Position::empty(shape), 1_000), None);
    let mut fresh = Solver::new(16 << 20);
    for p in [twelve, twelve.play(4), twelve.play(6)] {
        assert_eq!(solver.outcome_within(p, 50_000_000), Some(fresh.outcome(p)));
    }
}

#[test]
fn field_scores_count_the_winner_s_stones() {
    let c4 = Shape::gravity(6, 7, 4);
    // The empty board: the first player wins with the game's 41st stone, its 21st.
    assert_eq!(field_score(43 - 41, c4.cells()), 1);
    // After one stone in column 1 (from 1) the second player wins with the 40th, its 20th.
    assert_eq!(field_score(43 - 40, c4.cells()), 2);
    assert_eq!(field_score(-(43 - 41), c4.cells()), -1);
    assert_eq!(field_score(0, c4.cells()), 0);
    // A win at once from the start of a 7x6 board is impossible; the fastest, 7 plies.
    assert_eq!(field_score(43 - 7, c4.cells()), 18);
    // An odd board: a win with the first player's last stone is still positive.
    assert_eq!(field_score(1, 25), 1);
}

#[test]
fn the_book_s_scores_follow_from_its_outcomes_and_the_reference() {
    let c4 = Shape::gravity(6, 7, 4);
    let refs = reference_positions();
    let cells = c4.cells() as i32;
    let mut by_reference = 0;
    for (shape, moves, score) in book::SCORES {
        let p = Position::after(*shape, moves).unwrap();
        // Every score agrees with the book's outcome.
        assert_eq!(book::known(p), Some(Outcome::of(*score)), "{shape} after {moves:?}");
        if let Some(r) = refs.iter().find(|r| r.0 == *shape && r.1 == *moves) {
            // The independent solver's plies: a win or loss at the game's stone `end`.
            let end = p.plies() as i32 + r.3 as i32;
            let want = if r.2 == 0 { 0 } else { i32::from(r.2) * (cells + 1 - end) };
            assert_eq!(*score, want, "{shape} after {moves:?}");
            by_reference += 1;
        }
    }
    // The first stone in the centre and the edges.
    assert_eq!(by_reference, 3);
    // The empty board: the best of its moves, those without a score in the book being
    // draws or losses for the first player (outcome known), so below the centre's 2.
    let empty = Position::empty(c4);
    let by_move: Vec<Option<Score>> =
        empty.moves().into_iter().map(|m| book::score(empty.play(m)).map(|s| -s)).collect();
    assert_eq!(by_move, [Some(-3), None, Some(0), Some(2), Some(0), None, Some(-3)]);
    for m in [1, 5] {
        assert_eq!(book::known(empty.play(m)), Some(Outcome::Win), "a loss for the first player");
    }
    assert_eq!(book::score(empty), Some(2));
    assert_eq!(field_score(2, c4.cells()), 1);
}
