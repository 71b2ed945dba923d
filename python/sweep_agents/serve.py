"""Answer positions on demand: the policy-server side of ``sweep score -- PROGRAM``.

``sweep`` starts the program once and writes batches of positions to its standard
input; the program writes one move per line back, in order::

    positions 3        <- a batch of 3 boards follows
    ..........X...     <- each board: X, O or . per cell, row by row from the top left
    ...
    3                  -> the move for the first board (gravity: a column from 0;
    4                     m,n,k: a cell from 0)
    2

The environment names the game (``SWEEP_GAME``, e.g. ``6x7g4``) and the agent's seat
(``SWEEP_SEAT``). :func:`serve_policy` does the reading and writing: give it a function
of a list of boards (``batch=True``, so that a neural agent evaluates a whole batch in
one forward pass) or of one board, returning moves.

    >>> from sweep_agents import serve_policy
    >>> serve_policy(lambda boards: [3 for _ in boards])   # doctest: +SKIP
"""

import os
import sys
from typing import Callable, IO, List, Optional, Sequence, Union

from .rules import Game

Moves = Callable[[List[str]], Sequence[int]]
Move = Callable[[str], int]


def serve_policy(
    fn: Union[Moves, Move],
    batch: bool = True,
    game: Optional[Game] = None,
    stdin: Optional[IO[str]] = None,
    stdout: Optional[IO[str]] = None,
) -> int:
    """Answers batches until ``sweep`` closes the input; returns the positions answered.

    ``fn`` gets the boards as texts (``game.parse_board(text)`` makes a :class:`Board`);
    with ``batch=False`` it is called once per board. ``game`` defaults to
    ``$SWEEP_GAME`` (any board sweep's search takes). A malformed header or an answer
    count that differs from the batch raises ValueError."""
    if game is None:
        game = Game.search_board(os.environ.get("SWEEP_GAME", "6x7g4"))
    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    answered = 0
    while True:
        header = inp.readline()
        if not header:
            return answered
        parts = header.split()
        if len(parts) != 2 or parts[0] != "positions" or not parts[1].isdigit():
            raise ValueError(f"expected 'positions N', got {header!r}")
        n = int(parts[1])
        boards = [inp.readline().strip() for _ in range(n)]
        for b in boards:
            if len(b) != game.cells:
                raise ValueError(f"board {b!r}: {len(b)} characters, {game} has {game.cells} cells")
        if batch:
            moves = list(fn(boards))  # type: ignore[arg-type]
        else:
            moves = [fn(b) for b in boards]  # type: ignore[misc]
        if len(moves) != n:
            raise ValueError(f"the policy gave {len(moves)} moves for {n} boards")
        out.write("".join(f"{int(m)}\n" for m in moves))
        out.flush()
        answered += n
