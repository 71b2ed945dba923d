"""Exact values: a plain expectimax (``reference.py``) against ``sweep solve --values``,
state by state, and sweep's fixed opponents as ``sweep_agents.opponents`` plays them."""

import csv
import json
from fractions import Fraction
from functools import lru_cache

import pytest

from reference import RefGame, expectimax, random_opponent, start_value
from sweep_agents.opponents import MinimaxOpponent, game_values, make_opponent
from sweep_agents.rules import Game


def sweep_values(run_sweep, tmp_path, game, seat, opponent):
    """``sweep solve --values``: {board: (value, set of optimal moves)}."""
    path = tmp_path / f"{game}-{seat}-{opponent}.csv"
    run_sweep("solve", "--game", game, "--seat", seat, "--opponent", opponent, "--values", str(path))
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows, "no rows"
    return {r["board"]: (float(r["value"]), {int(m) for m in r["optimal_actions"].split("|")}) for r in rows}


def compare(mine, theirs):
    assert set(mine) == set(
        theirs
    ), f"{len(set(mine) - set(theirs))} states only in Python, {len(set(theirs) - set(mine))} only in sweep"
    for board, (value, best) in mine.items():
        v, b = theirs[board]
        assert abs(float(value) - v) <= 1e-9, f"{board}: {value} ({float(value)}) vs {v}"
        assert set(best) == b, f"{board}: optimal {sorted(best)} vs {sorted(b)}"


KNOWN = {
    ("3x3k3", "x"): Fraction(191, 192),
    ("3x3k3", "o"): Fraction(874, 945),
    ("3x3g3", "o"): Fraction(70, 81),
    ("3x4k3", "o"): Fraction(627, 640),
}


@lru_cache(maxsize=None)
def random_table(game, seat):
    """The plain expectimax against the random opponent (computed once per game and seat)."""
    g = RefGame(game)
    return expectimax(g, seat, random_opponent(g))


@pytest.mark.parametrize("game,seat", sorted(KNOWN))
def test_expectimax_start_values(game, seat):
    g = RefGame(game)
    table = random_table(game, seat)
    assert start_value(g, seat, random_opponent(g), table) == KNOWN[(game, seat)]
    assert len(table) == len(Game(game).states(seat))


@pytest.mark.parametrize(
    "game,seat", [("3x3k3", "x"), ("3x3k3", "o"), ("3x3g3", "x"), ("3x3g3", "o"), ("3x4k3", "o")]
)
def test_expectimax_matches_sweep_against_random(run_sweep, tmp_path, game, seat):
    compare(random_table(game, seat), sweep_values(run_sweep, tmp_path, game, seat, "random"))


def _package_opponent(game, name):
    """A ``sweep_agents`` opponent as a distribution over the reference's board texts."""
    g = Game(game)
    opp = make_opponent(g, name)

    def dist(text):
        return [(m, Fraction(p).limit_denominator(1000)) for m, p in opp.distribution(g.parse_board(text))]

    return dist


@pytest.mark.parametrize("opponent", ["minimax", "minimax-uniform"])
@pytest.mark.parametrize(
    "game,seat", [("3x3k3", "x"), ("3x3k3", "o"), ("3x3g3", "x"), ("3x3g3", "o"), ("4x3g3", "o")]
)
def test_minimax_opponents_match_sweep(run_sweep, tmp_path, game, seat, opponent):
    g = RefGame(game)
    mine = expectimax(g, seat, _package_opponent(game, opponent))
    compare(mine, sweep_values(run_sweep, tmp_path, game, seat, opponent))


def _ref_minimax(game):
    g = RefGame(game)

    @lru_cache(maxsize=None)
    def value(board):
        """The game value for the side to move: +1, 0, -1."""
        best = -2
        for m in g.moves(board):
            nxt, outcome = g.play(board, m)
            if outcome == "draw":
                v = 0
            elif outcome is not None:
                v = 1
            else:
                v = -value(nxt)
            best = max(best, v)
        return best

    return g, value


@pytest.mark.parametrize("game", ["3x3k3", "3x3g3", "4x3g3", "3x4g3"])
def test_game_values_match_plain_negamax(game):
    g, value = _ref_minimax(game)
    values = game_values(game)
    G = Game(game)
    for board, v in values.items():
        text = G.board_text(board)
        sign = 1 if G.to_move(board) == "x" else -1
        assert v == sign * value(text), text
    assert len(values) == sum(1 for _, s in G.positions_with_status() if s == "ongoing")


def test_minimax_ties_go_to_the_lowest_cell():
    # on a gravity board the lowest cell need not be the lowest column: the stone that
    # lands highest wins the tie (sweep's rule, which the comparison above confirms)
    g = Game("3x3g3")
    opp = MinimaxOpponent(g)
    differ = 0
    for board, status in g.positions_with_status():
        if status != "ongoing":
            continue
        best = opp.optimal_moves(board)
        by_cell = min(best, key=lambda m: g.move_cell(board, m))
        assert opp.distribution(board) == [(by_cell, 1.0)]
        differ += by_cell != min(best)
    assert differ > 0


@pytest.mark.parametrize("game", ["3x3k3", "3x3g3", "3x4k3", "4x4g4"])
def test_game_value_matches_sweep(run_sweep, game):
    out = json.loads(run_sweep("solve", "--game", game, "--seat", "x", "--opponent", "random", "--json"))
    g = Game(game)
    words = {1: "first player win", 0: "draw", -1: "second player win"}
    assert words[game_values(g)[g.empty()]] == out["game_value"]
