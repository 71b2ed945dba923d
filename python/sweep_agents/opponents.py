"""sweep's fixed opponents, for training against the opponent a job names.

- ``"random"``: uniform over the legal moves.
- ``"minimax"``: a minimax-optimal move (game value win/draw/loss, no preference for
  quicker wins), the one whose **cell** is lowest among ties. On gravity boards that is
  the lowest cell number, not the lowest column: the stone that lands highest on the
  board, then the leftmost (sweep's rule; it is deterministic).
- ``"minimax-uniform"``: uniform over all minimax-optimal moves.

Every opponent has ``move(board, rng)`` (one move drawn with ``rng``, a
:class:`random.Random`) and ``distribution(board)`` (each move it may play with its
probability, for exact computations). The minimax opponents solve the whole game once,
when first asked (about a second for 4x4g4 or 3x4k3; 4x4k4 is out of reach in pure
Python); on boards beyond enumeration (``Game.search_board("6x7g4")``) they ask sweep's
search instead (:mod:`sweep_agents.oracle`, which needs the sweep binary).
"""

from typing import Dict, List, Tuple

from .rules import DRAW, ONGOING, O, X, Board, Game

__all__ = [
    "OPPONENTS",
    "Opponent",
    "RandomOpponent",
    "MinimaxOpponent",
    "make_opponent",
    "game_values",
]

#: The fixed opponents' names, as jobs and specs write them.
OPPONENTS = ("random", "minimax", "minimax-uniform")


class Opponent:
    """A fixed opponent policy (see the module doc)."""

    name = ""

    def __init__(self, game: Game) -> None:
        self.game = _game(game)

    def distribution(self, board: Board) -> List[Tuple[int, float]]:
        """``(move, probability)`` for every move the opponent may play on ``board``."""
        raise NotImplementedError

    def move(self, board: Board, rng) -> int:
        """One move on ``board`` (an ongoing position where the opponent is to move)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.game)!r})"


class RandomOpponent(Opponent):
    """Uniform over the legal moves (one ``rng.random()`` draw per move)."""

    name = "random"

    def distribution(self, board: Board) -> List[Tuple[int, float]]:
        moves = self.game.legal_moves(board)
        return [(m, 1.0 / len(moves)) for m in moves]

    def move(self, board: Board, rng) -> int:
        moves = self.game.legal_moves(board)
        return moves[int(rng.random() * len(moves))]


class MinimaxOpponent(Opponent):
    """A minimax-optimal move: the lowest cell among ties, or (``uniform=True``) one drawn
    uniformly among them (one ``rng.random()`` draw when there is a choice)."""

    def __init__(self, game: Game, uniform: bool = False) -> None:
        super().__init__(game)
        self.uniform = uniform
        self.name = "minimax-uniform" if uniform else "minimax"
        self._values = None
        self._oracle = None
        self._best: Dict[Board, List[int]] = {}

    def optimal_moves(self, board: Board) -> List[int]:
        """The minimax-optimal moves of the side to move, by increasing cell."""
        best = self._best.get(board)
        if best is None:
            g = self.game
            if not g.enumerable:
                best = self._searched(board)
                self._best[board] = best
                return best
            if self._values is None:
                self._values = game_values(self.game)
            sign = 1 if g.to_move(board) == X else -1
            scored = []
            for m in g.legal_moves(board):
                nxt, status = g.advance(board, m)
                if status == ONGOING:
                    v = self._values[nxt]
                elif status == DRAW:
                    v = 0
                else:
                    v = 1 if status == X else -1
                scored.append((sign * v, g.move_cell(board, m), m))
            top = max(s for s, _, _ in scored)
            best = [m for s, _, m in sorted(scored, key=lambda t: t[1]) if s == top]
            self._best[board] = best
        return best

    def _searched(self, board: Board) -> List[int]:
        """The optimal moves by sweep's search (boards beyond enumeration), lowest cell first."""
        if self._oracle is None:
            from .oracle import SearchOracle

            self._oracle = SearchOracle(self.game)
        best = self._oracle.optimal_moves(board)
        return sorted(best, key=lambda m: self.game.move_cell(board, m))

    def distribution(self, board: Board) -> List[Tuple[int, float]]:
        best = self.optimal_moves(board)
        if not self.uniform:
            return [(best[0], 1.0)]
        return [(m, 1.0 / len(best)) for m in sorted(best)]

    def move(self, board: Board, rng) -> int:
        best = self.optimal_moves(board)
        if not self.uniform or len(best) == 1:
            return best[0]
        return best[int(rng.random() * len(best))]


def _game(game) -> Game:
    """A game from a Game or its text; a text beyond enumeration is a search board."""
    if isinstance(game, Game):
        return game
    try:
        return Game(game)
    except ValueError:
        return Game.search_board(game)


def make_opponent(game, name: str) -> Opponent:
    """The fixed opponent called ``name`` (one of :data:`OPPONENTS`) on ``game``."""
    g = _game(game)
    if name == "random":
        return RandomOpponent(g)
    if name == "minimax":
        return MinimaxOpponent(g)
    if name == "minimax-uniform":
        return MinimaxOpponent(g, uniform=True)
    if name == "self":
        raise ValueError("'self' is self-play, not a fixed opponent: the program plays both seats")
    raise ValueError(f"unknown opponent {name!r} (expected one of {', '.join(OPPONENTS)})")


def game_values(game) -> Dict[Board, int]:
    """The game value for X (+1 win, 0 draw, -1 loss under optimal play by both sides) of
    every ongoing reachable position, by backward induction over
    :meth:`Game.positions_with_status`."""
    g = game if isinstance(game, Game) else Game(game)
    positions = g.positions_with_status()
    values: Dict[Board, int] = {}
    for board, status in reversed(positions):
        if status != ONGOING:
            continue
        x_moves = g.to_move(board) == X
        best = -2 if x_moves else 2
        for m in g.legal_moves(board):
            nxt, s = g.advance(board, m)
            if s == ONGOING:
                v = values[nxt]
            elif s == X:
                v = 1
            elif s == O:
                v = -1
            else:
                v = 0
            if x_moves:
                if v > best:
                    best = v
                    if v == 1:
                        break
            elif v < best:
                best = v
                if v == -1:
                    break
        values[board] = best
    return values
