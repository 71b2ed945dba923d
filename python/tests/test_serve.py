"""The policy-server protocol (serve_policy) and the rules of the boards beyond
enumeration, checked against sweep's own search."""

import io
import json
import os
import random
import shutil
import subprocess
import sys

import pytest

from sweep_agents import Game, checkpoint_episodes, serve_checkpoint, serve_policy


def test_serve_policy_answers_batches_in_order():
    g = Game.search_board("6x7g4")
    b1 = g.play(g.empty(), 3)
    b2 = g.play(b1, 3)
    text = f"positions 2\n{g.board_text(g.empty())}\n{g.board_text(b1)}\npositions 1\n{g.board_text(b2)}\n"
    out = io.StringIO()
    calls = []

    def policy(boards):
        calls.append(len(boards))
        return [sum(c != "." for c in b) % 7 for b in boards]

    assert serve_policy(policy, game=g, stdin=io.StringIO(text), stdout=out) == 3
    assert calls == [2, 1]
    assert out.getvalue() == "0\n1\n2\n"
    # One board at a time.
    out = io.StringIO()
    assert serve_policy(lambda b: 0, batch=False, game=g, stdin=io.StringIO(text), stdout=out) == 3
    assert out.getvalue() == "0\n0\n0\n"


def test_positions_2_announces_each_checkpoint_and_the_final_policy(monkeypatch):
    g = Game.search_board("6x7g4")
    board = g.board_text(g.empty())
    monkeypatch.setenv("SWEEP_PROTOCOL", "positions/2")
    monkeypatch.setenv("SWEEP_CHECKPOINT_EPISODES", "0,5,10")
    assert checkpoint_episodes() == [0, 5, 10]
    out = io.StringIO()
    # sweep's side: one batch at the checkpoint, then `continue`.
    inp = io.StringIO(f"positions 1\n{board}\ncontinue\n")
    assert serve_checkpoint(5, lambda bs: [2] * len(bs), game=g, stdin=inp, stdout=out) == 1
    # An episode sweep did not ask for is no checkpoint: nothing is written or read.
    assert serve_checkpoint(7, lambda bs: [2] * len(bs), game=g, stdin=inp, stdout=out) == 0
    assert out.getvalue() == "checkpoint 5\n2\n"
    out = io.StringIO()
    assert serve_policy(lambda bs: [4] * len(bs), game=g, stdin=io.StringIO(f"positions 1\n{board}\n"), stdout=out) == 1
    assert out.getvalue() == "final\n4\n"
    # Input closed in the middle of a checkpoint: the program cannot train on unasked.
    with pytest.raises(EOFError):
        serve_checkpoint(10, lambda bs: [0] * len(bs), game=g, stdin=io.StringIO(""), stdout=io.StringIO())


def test_positions_1_has_no_checkpoints(monkeypatch):
    g = Game.search_board("6x7g4")
    monkeypatch.setenv("SWEEP_PROTOCOL", "positions/1")
    monkeypatch.setenv("SWEEP_CHECKPOINT_EPISODES", "0,5")
    assert checkpoint_episodes() == []
    out = io.StringIO()
    assert serve_checkpoint(5, lambda bs: [0], game=g, stdin=io.StringIO(""), stdout=out) == 0
    assert out.getvalue() == ""


def test_serve_policy_refuses_a_bad_header_or_a_short_answer():
    g = Game.search_board("6x7g4")
    with pytest.raises(ValueError):
        serve_policy(lambda bs: [0], game=g, stdin=io.StringIO("boards 1\n"), stdout=io.StringIO())
    board = g.board_text(g.empty())
    with pytest.raises(ValueError):
        serve_policy(lambda bs: [], game=g, stdin=io.StringIO(f"positions 1\n{board}\n"), stdout=io.StringIO())


def test_search_boards_have_rules_but_no_enumeration():
    g = Game.search_board("6x7g4")
    assert (g.rows, g.cols, g.cells, len(g.lines)) == (6, 7, 42, 69)
    assert not g.enumerable and Game("4x4g4").enumerable
    with pytest.raises(ValueError):
        g.states("x")
    with pytest.raises(ValueError):
        Game("6x7g4")  # the enumerating API still refuses it
    with pytest.raises(ValueError):
        Game.search_board("7x8g4")  # 8 columns of 8 bits: past the search's 63


def test_connect_four_by_name():
    for name in ("connect4", "connect-four", "Connect4"):
        assert Game.search_board(name) == Game.search_board("6x7g4")
        assert str(Game.search_board(name)) == "6x7g4"
    with pytest.raises(ValueError, match="connect-four"):
        Game("connect5")


def _sweep():
    exe = os.environ.get("SWEEP")
    if exe:
        return exe
    return shutil.which("sweep")


@pytest.mark.skipif(_sweep() is None and not os.environ.get("SWEEP_REQUIRE_BINARY"), reason="no sweep binary")
def test_games_end_where_sweep_says_they_end():
    """Random Connect Four games: the Python rules and sweep's search agree on when a
    game is over, move by move."""
    exe = _sweep()
    assert exe is not None, "set SWEEP to the binary"
    g = Game.search_board("6x7g4")
    rng = random.Random(5)
    for _ in range(20):
        b, moves, status = g.empty(), [], "ongoing"
        while status == "ongoing":
            m = rng.choice(g.legal_moves(b))
            moves.append(m)
            b, status = g.advance(b, m)
        # After the last move the game is over for sweep too; before it, in play.
        after = subprocess.run(
            [exe, "solve", "--game", "6x7g4", "--moves", ",".join(map(str, moves)), "--table-mib", "1"],
            capture_output=True,
            text=True,
        )
        assert after.returncode == 2 and "the game is over" in after.stderr, after.stderr
        if len(moves) > 14:  # deep enough to value in milliseconds
            before = subprocess.run(
                [exe, "solve", "--game", "6x7g4", "--moves", ",".join(map(str, moves[:-1])), "--table-mib", "1", "--json"],
                capture_output=True,
                text=True,
            )
            assert before.returncode == 0, before.stderr
            v = json.loads(before.stdout)["positions"][0]
            # The mover of the last move won it at once, or filled the board.
            assert v["value"] == (1 if status in ("x", "o") else 0)


@pytest.mark.skipif(_sweep() is None and not os.environ.get("SWEEP_REQUIRE_BINARY"), reason="no sweep binary")
def test_the_search_oracle_agrees_with_backward_induction_on_4x4g4():
    """sweep solve --serve against the package's own enumeration: 3,000 positions."""
    from sweep_agents.opponents import MinimaxOpponent
    from sweep_agents.oracle import SearchOracle

    g = Game("4x4g4")
    enumerated = MinimaxOpponent(g)
    ongoing = [b for b, s in g.positions_with_status() if s == "ongoing"]
    sample = random.Random(3).sample(ongoing, 3000)
    with SearchOracle(g, binary=_sweep()) as oracle:
        values = oracle.values(sample)
        for b, (value, moves) in zip(sample, values):
            assert sorted(m for m, v in moves.items() if v == value) == sorted(enumerated.optimal_moves(b))
            assert set(moves) == set(g.legal_moves(b))


@pytest.mark.skipif(_sweep() is None and not os.environ.get("SWEEP_REQUIRE_BINARY"), reason="no sweep binary")
def test_minimax_opponents_play_connect_four_by_search():
    """On 6x7g4 the minimax opponent asks sweep, and takes the lowest cell among ties."""
    from sweep_agents import make_opponent

    os.environ.setdefault("SWEEP", _sweep())
    g = Game.search_board("6x7g4")
    b = g.empty()
    for m in [4, 6, 4, 0, 3, 1, 1, 3, 1, 4, 0, 6, 2, 2]:
        b = g.play(b, m)
    opp = make_opponent("6x7g4", "minimax")
    best = opp.optimal_moves(b)
    out = subprocess.run(
        [_sweep(), "solve", "--game", "6x7g4", "--moves", "4,6,4,0,3,1,1,3,1,4,0,6,2,2", "--json", "--every-move"],
        capture_output=True,
        text=True,
        check=True,
    )
    want = json.loads(out.stdout)["positions"][0]
    by_outcome = [mv["move"] for mv in want["move_values"] if mv["value"] == want["value"]]
    assert sorted(best) == sorted(by_outcome)
    # The first is the lowest cell: the stone that lands highest, then the leftmost.
    assert best[0] == min(best, key=lambda m: g.move_cell(b, m))
    assert opp.move(b, random.Random(0)) == best[0]


def test_the_example_network_trains_then_answers_legal_moves_the_same_for_a_seed():
    """examples/agents/connect_four_net.py: a few self-play games, then one batch; the
    same seed gives the same moves."""
    script = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "agents", "connect_four_net.py")
    game = Game.search_board("6x7g4")
    boards = [game.empty(), game.play(game.play(game.empty(), 3), 3)]
    batch = "positions 2\n" + "".join(game.board_text(b) + "\n" for b in boards)
    env = dict(os.environ, SWEEP_GAME="6x7g4", SWEEP_EPISODES="5", SWEEP_SEED="11")
    runs = [
        subprocess.run([sys.executable, script], input=batch, env=env, capture_output=True, text=True, timeout=120)
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr
    moves = [int(m) for m in runs[0].stdout.split()]
    assert len(moves) == 2 and all(m in game.legal_moves(b) for m, b in zip(moves, boards))
    assert runs[0].stdout == runs[1].stdout


def test_the_example_network_answers_at_its_checkpoints_and_ends_with_the_same_policy():
    """Under positions/2 the example network answers at each checkpoint asked for; the
    answers draw no random numbers, so its final moves are those of positions/1."""
    script = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "agents", "connect_four_net.py")
    game = Game.search_board("6x7g4")
    boards = [game.empty(), game.play(game.play(game.empty(), 3), 3)]
    batch = "positions 2\n" + "".join(game.board_text(b) + "\n" for b in boards)
    env = dict(os.environ, SWEEP_GAME="6x7g4", SWEEP_EPISODES="5", SWEEP_SEED="11")
    plain = subprocess.run([sys.executable, script], input=batch, env=env, capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0, plain.stderr
    env.update(SWEEP_PROTOCOL="positions/2", SWEEP_CHECKPOINT_EPISODES="0,2,5")
    # The policy after the last game is the final one: checkpoint 5 is not announced.
    talk = (batch + "continue\n") * 2 + batch
    served = subprocess.run([sys.executable, script], input=talk, env=env, capture_output=True, text=True, timeout=120)
    assert served.returncode == 0, served.stderr
    lines = served.stdout.split("\n")
    assert [line for line in lines if not line.isdigit()] == ["checkpoint 0", "checkpoint 2", "final", ""]
    final = lines[lines.index("final") + 1 : -1]
    assert final == plain.stdout.split()
