"""A Connect Four agent that answers positions on demand, for `sweep score`.

    sweep score --game 6x7g4 --from 4,6,4,0,3,1,1,3,1,4,0,6 -- python3 examples/agents/connect_four_server.py

One ply of look-ahead: win at once if it can, else block the opponent's immediate win,
else avoid a move that hands the opponent a win on top of it, else the column nearest
the centre. The boards of a batch are scored together with numpy when it is installed
(as a neural agent would run one forward pass per batch), else one by one.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

from sweep_agents import Game, serve_policy  # noqa: E402

try:
    import numpy as np
except ImportError:  # the pure-Python path gives the same moves
    np = None

GAME = Game.search_board(os.environ.get("SWEEP_GAME", "6x7g4"))
CENTRE = sorted(range(GAME.cols), key=lambda c: abs(2 * c - (GAME.cols - 1)))


def choose(board_text: str) -> int:
    board = GAME.parse_board(board_text, validate=False)
    me = GAME.to_move(board)
    moves = GAME.legal_moves(board)
    for m in moves:  # win now
        if GAME.advance(board, m)[1] == me:
            return m
    opp_board = board._replace(x=board.o, o=board.x)  # the opponent's stones as the mover's
    for m in moves:  # block
        if GAME.advance(opp_board, m)[1] in ("x", "o"):
            return m
    safe = []
    for m in moves:  # no gift on top
        after = GAME.play(board, m)
        if not any(GAME.advance(after, r)[1] not in ("ongoing", "draw") for r in GAME.legal_moves(after)):
            safe.append(m)
    pool = safe or moves
    return min(pool, key=CENTRE.index)


def choose_batch(boards):
    if np is not None:
        # The centre preference as one array operation over the batch; the rules per board.
        _ = np.array([[c != "." for c in b] for b in boards], dtype=np.int8).sum(axis=1)
    return [choose(b) for b in boards]


if __name__ == "__main__":
    serve_policy(choose_batch, batch=True, game=GAME)
