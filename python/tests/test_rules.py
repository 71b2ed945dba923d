"""The rules: games, moves, texts, and the reachable positions (against known counts, a
plain second implementation and the sweep binary)."""

import json
import random
from collections import Counter

import pytest

from reference import RefGame
from sweep_agents.rules import DRAW, ONGOING, Board, Game, other

COUNTS = {"3x3k3": 5478, "3x4k3": 111973, "3x3g3": 694, "4x4g4": 161029}


def test_games_parse_and_print():
    g = Game("3x4k3")
    assert (g.rows, g.cols, g.k, g.family, g.cells, g.n_actions) == (3, 4, 3, "k", 12, 12)
    assert str(g) == "3x4k3" and g == Game("3x4k3") and hash(g) == hash(Game("3x4k3"))
    c = Game("4x4g4")
    assert (c.family, c.n_actions, c.gravity) == ("g", 4, True)
    assert Game("6x4g4").cells == 24 and Game("5x4g4").n_actions == 4 and Game("4x5g4").cells == 20
    for bad in [
        "",
        "3x3",
        "3x3k",
        "2x3k3",
        "3x2k3",
        "4x5k3",
        "3x3k4",
        "3x3k2",
        "3x3z3",
        "5x5k3",
        "3x7g3",
        "7x4g4",
        "axbkc",
    ]:
        with pytest.raises(ValueError):
            Game(bad)


def test_win_lines():
    assert len(Game("3x3k3").lines) == 8
    # 4x4, four in a row: 4 rows, 4 columns, 2 diagonals
    assert len(Game("4x4g4").lines) == 10
    # 3x4, three in a row: 6 horizontal, 4 vertical, 2 + 2 diagonal
    assert len(Game("3x4k3").lines) == 14
    # k longer than the short side: no diagonal, no vertical line
    assert len(Game("3x4k4").lines) == 3


def test_moves_and_texts():
    g = Game("3x3k3")
    b = g.play(g.empty(), 0)
    b = g.play(b, 2)
    assert g.board_text(b) == "X.O......"
    assert g.parse_board("X.O......") == b == Board(1, 4)
    assert g.to_move(b) == "x" and g.legal_moves(b) == [1, 3, 4, 5, 6, 7, 8]
    assert g.move_text(7) == "7" and g.parse_move("7") == 7
    with pytest.raises(ValueError):
        g.play(b, 2)
    with pytest.raises(ValueError):
        g.parse_move("9")
    with pytest.raises(ValueError):
        g.parse_move("1", board=Board(2, 0))
    for bad in ["X.O.....", "X.O.....Z", "XX.......", "OO.X.....", "XXXOO.O..", "x........"]:
        with pytest.raises(ValueError):
            g.parse_board(bad)
    # X won with its third mark, then O moved: unreachable
    with pytest.raises(ValueError):
        g.parse_board("XXXOOO...")
    assert other("x") == "o" and other("o") == "x"


def test_gravity_drops_to_the_lowest_empty_cell():
    g = Game("3x3g3")
    b = g.play(g.empty(), 1)  # column 1: bottom row, cell 7
    assert g.board_text(b) == ".......X."
    b = g.play(b, 1)
    assert g.board_text(b) == "....O..X."
    b = g.play(b, 1)
    assert g.board_text(b) == ".X..O..X."
    assert g.legal_moves(b) == [0, 2]
    with pytest.raises(ValueError):
        g.play(b, 1)
    assert g.move_cell(b, 0) == 6
    with pytest.raises(ValueError):
        g.parse_board("X........")  # a floating stone
    # a vertical win on a gravity board
    b = g.empty()
    for m in [0, 1, 0, 1]:
        b = g.play(b, m)
    after, status = g.advance(b, 0)
    assert status == "x" and g.status(after) == "x" and g.is_terminal(after)
    assert g.reward(after, "x") == 1 and g.reward(after, "o") == -1


@pytest.mark.parametrize("game,count", sorted(COUNTS.items()))
def test_position_counts(game, count):
    assert len(Game(game).reachable_positions()) == count


def test_tic_tac_toe_outcomes():
    statuses = Counter(s for _, s in Game("3x3k3").positions_with_status())
    assert statuses == {ONGOING: 4520, "x": 626, "o": 316, DRAW: 16}


@pytest.mark.parametrize("game", ["3x3k3", "3x3g3", "4x3g3", "3x4g3", "3x5g3"])
def test_same_positions_and_moves_as_the_plain_rules(game):
    g = Game(game)
    ref = RefGame(game)
    want = ref.positions()
    got = {g.board_text(b): s for b, s in g.positions_with_status()}
    assert len(got) == len(want)
    for text, outcome in want.items():
        status = got[text]
        expected = ONGOING if outcome is None else (DRAW if outcome == "draw" else outcome.lower())
        assert status == expected, text
        board = g.parse_board(text)
        assert g.status(board) == status
        if status == ONGOING:
            assert g.legal_moves(board) == ref.moves(text)
            for m in ref.moves(text):
                nxt, s = g.advance(board, m)
                rnxt, rs = ref.play(text, m)
                assert g.board_text(nxt) == rnxt
                assert g.play(board, m) == nxt
                assert s == (ONGOING if rs is None else (DRAW if rs == "draw" else rs.lower()))


def test_states_are_the_ongoing_positions_of_a_seat():
    g = Game("3x3k3")
    xs, os_ = g.states("x"), g.states("o")
    assert len(xs) + len(os_) == 4520
    assert all(g.to_move(b) == "x" and g.status(b) == ONGOING for b in xs)
    assert all(g.to_move(b) == "o" for b in os_)
    assert (len(xs), len(os_)) == (2423, 2097)


def test_random_games_end_properly():
    rng = random.Random(5)
    for game in ["3x3k3", "4x4g4", "3x4k3", "6x4g4"]:
        g = Game(game)
        for _ in range(200):
            b = g.empty()
            status = ONGOING
            while status == ONGOING:
                b, status = g.advance(b, rng.choice(g.legal_moves(b)))
            assert g.status(b) == status
            assert g.parse_board(g.board_text(b)) == b


@pytest.mark.parametrize("game", sorted(COUNTS))
def test_counts_match_the_binary(run_sweep, game):
    g = Game(game)
    for seat in ("x", "o"):
        out = json.loads(run_sweep("solve", "--game", game, "--seat", seat, "--opponent", "random", "--json"))
        assert out["positions"] == COUNTS[game] == len(g.reachable_positions())
        # against a random opponent every position of the seat is an agent state
        assert out["agent_states"] == len(g.states(seat))
