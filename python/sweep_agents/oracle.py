"""Perfect play on boards too big to enumerate, by asking sweep's search.

:class:`SearchOracle` starts ``sweep solve --game G --serve`` once and asks it for the
value of positions (win 1, draw 0, loss -1 for the player to move, under optimal play)
and of each legal move, a batch at a time. The minimax opponents of
:func:`sweep_agents.make_opponent` use it on boards :class:`Game` cannot enumerate
(``Game.search_board("6x7g4")``, Connect Four), so an agent can train and be tested
against perfect play there. The binary is ``$SWEEP`` or ``sweep`` on the ``PATH``.

    >>> from sweep_agents import Game
    >>> from sweep_agents.oracle import SearchOracle
    >>> oracle = SearchOracle(Game.search_board("6x7g4"))     # doctest: +SKIP
    >>> oracle.values([board])                                # doctest: +SKIP
    [(1, {0: -1, 1: 0, 2: 1, ...})]
"""

import os
import shutil
import subprocess
from typing import Dict, List, Optional, Sequence, Tuple

from .rules import Board, Game

Values = Tuple[int, Dict[int, int]]


def sweep_binary() -> str:
    """The sweep binary: ``$SWEEP``, else ``sweep`` on the ``PATH``."""
    exe = os.environ.get("SWEEP") or shutil.which("sweep")
    if not exe:
        raise RuntimeError("no sweep binary: set SWEEP to its path or put sweep on the PATH")
    return exe


class SearchOracle:
    """Values of positions by ``sweep solve --serve`` (one process, answers cached)."""

    def __init__(self, game: Game, table_mib: int = 256, binary: Optional[str] = None) -> None:
        self.game = game
        self._cache: Dict[Board, Values] = {}
        self._proc = subprocess.Popen(
            [binary or sweep_binary(), "solve", "--game", str(game), "--serve", "--table-mib", str(table_mib)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def values(self, boards: Sequence[Board]) -> List[Values]:
        """For each board (in play): its value for the player to move and each legal
        move's, ``(value, {move: value})``."""
        new = [b for b in dict.fromkeys(boards) if b not in self._cache]
        if new:
            assert self._proc.stdin is not None and self._proc.stdout is not None
            text = "".join(self.game.board_text(b) + "\n" for b in new)
            self._proc.stdin.write(f"positions {len(new)}\n{text}")
            self._proc.stdin.flush()
            for b in new:
                line = self._proc.stdout.readline()
                if not line:
                    raise RuntimeError("sweep solve --serve ended")
                if line.startswith("error"):
                    raise ValueError(line.strip())
                head, *moves = line.split()
                self._cache[b] = (int(head), {int(m): int(v) for m, v in (x.split(":") for x in moves)})
        return [self._cache[b] for b in boards]

    def optimal_moves(self, board: Board) -> List[int]:
        """The moves of the best outcome, by increasing move number."""
        value, moves = self.values([board])[0]
        return sorted(m for m, v in moves.items() if v == value)

    def close(self) -> None:
        """Ends the sweep process."""
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

    def __enter__(self) -> "SearchOracle":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
