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

Learning curves (protocol ``positions/2``, a command solver's ``serve_checkpoints =
true``): the program also answers at its checkpoints while it trains. It announces each
policy before it answers, and sweep writes ``continue`` when a checkpoint is done::

    checkpoint 250     -> the policy after 250 episodes answers next
    positions 3 ...    <- batches, as above
    continue           <- train on
    final              -> training is over: the final policy answers next

:func:`checkpoint_episodes` gives the episodes sweep asks for (``SWEEP_CHECKPOINT_EPISODES``,
0 the untrained policy among them); :func:`serve_checkpoint` answers at one of them (and does
nothing at any other episode or under ``positions/1``), and :func:`serve_policy` announces the
final policy itself:

    >>> for episode in range(episodes):                     # doctest: +SKIP
    ...     serve_checkpoint(episode, policy)
    ...     train_one_game()
    >>> serve_policy(policy)                                # doctest: +SKIP

The final policy is also the last checkpoint's (the episodes trained) unless the program
announces that one itself.
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
    game, inp, out = _setting(game, stdin, stdout)
    if _announces():
        out.write("final\n")
        out.flush()
    answered, _ = _answer(fn, batch, game, inp, out)
    return answered


def checkpoint_episodes() -> List[int]:
    """The episodes at which sweep asks a ``positions/2`` program's policy
    (``SWEEP_CHECKPOINT_EPISODES``; 0 is the untrained policy); empty under ``positions/1``."""
    if not _announces():
        return []
    text = os.environ.get("SWEEP_CHECKPOINT_EPISODES", "")
    return [int(e) for e in text.split(",") if e.strip()]


def serve_checkpoint(
    episode: int,
    fn: Union[Moves, Move],
    batch: bool = True,
    game: Optional[Game] = None,
    stdin: Optional[IO[str]] = None,
    stdout: Optional[IO[str]] = None,
) -> int:
    """At a checkpoint sweep asks for (:func:`checkpoint_episodes`), announces it and
    answers its batches with ``fn`` until sweep says ``continue``; returns the positions
    answered (0 at any other episode, and under ``positions/1``). Call it with rising
    episodes, then :func:`serve_policy` for the final policy."""
    if episode not in checkpoint_episodes():
        return 0
    game, inp, out = _setting(game, stdin, stdout)
    out.write(f"checkpoint {episode}\n")
    out.flush()
    answered, resumed = _answer(fn, batch, game, inp, out)
    if not resumed:
        raise EOFError(f"sweep closed the input during checkpoint {episode}")
    return answered


def _setting(game: Optional[Game], stdin: Optional[IO[str]], stdout: Optional[IO[str]]):
    """The board (default ``$SWEEP_GAME``) and the streams (default standard input and output)."""
    if game is None:
        game = Game.search_board(os.environ.get("SWEEP_GAME", "6x7g4"))
    return game, stdin if stdin is not None else sys.stdin, stdout if stdout is not None else sys.stdout


def _announces() -> bool:
    return os.environ.get("SWEEP_PROTOCOL") == "positions/2"


def _answer(fn, batch: bool, game: Game, inp: IO[str], out: IO[str]):
    """Answers batches until ``continue`` (True) or the input's end (False)."""
    answered = 0
    while True:
        header = inp.readline()
        if not header:
            return answered, False
        if header.strip() == "continue":
            return answered, True
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
