"""The rules of sweep's games: m,n,k-games and gravity boards.

A game is written ``"<rows>x<cols>k<k>"`` (an m,n,k-game: a move is any empty cell;
``"3x3k3"`` is tic-tac-toe) or ``"<rows>x<cols>g<k>"`` (a gravity board, Connect-Four
style: a move is a column and the stone drops to the lowest empty cell of that column).

Cells are numbered row by row from the top left: cell ``i`` is at row ``i // cols`` and
column ``i % cols``, row 0 being the top. X moves first; ``k`` marks in a row
(horizontally, vertically or along either diagonal) win, play stops at a win, and a full
board without a win is a draw.

A position is a :class:`Board`, an immutable pair of bit masks (bit ``i`` of ``x`` is set
when X holds cell ``i``, likewise ``o``). Boards are plain named tuples: hashable, cheap,
usable as dictionary keys, and meaningful only together with their :class:`Game`.

Texts, the same as sweep's files and command line:

- a board is one character per cell, row-major, ``X``, ``O`` or ``.``
  (``"X.O......"``: X on cell 0, O on cell 2 of tic-tac-toe);
- a move is its cell number on m,n,k boards and its column number (0 at the left) on
  gravity boards: :meth:`Game.legal_moves` returns these move numbers.

Seats and results are short strings: ``"x"`` and ``"o"`` for the seats; a status is
``"x"`` (X has won), ``"o"`` (O has won), ``"draw"`` or ``"ongoing"``.

Example::

    >>> from sweep_agents.rules import Game
    >>> g = Game("3x3k3")
    >>> b = g.play(g.empty(), 4)
    >>> g.board_text(b), g.to_move(b), g.legal_moves(b)[:3]
    ('....X....', 'o', [0, 1, 2])
    >>> len(g.reachable_positions())
    5478
"""

import re
from typing import Dict, Iterable, List, NamedTuple, Optional, Tuple

__all__ = [
    "Board",
    "Game",
    "X",
    "O",
    "DRAW",
    "ONGOING",
    "SEATS",
    "other",
]

#: The first player's seat (also the status of a position X has won).
X = "x"
#: The second player's seat (also the status of a position O has won).
O = "o"
#: The status of a full board without a win.
DRAW = "draw"
#: The status of a position whose game goes on.
ONGOING = "ongoing"
#: Both seats, X first.
SEATS = (X, O)

_GAME_RE = re.compile(r"^([0-9]+)x([0-9]+)([kg])([0-9]+)$")

#: The names that stand for Connect Four, ``6x7g4``, wherever a game is named (any case).
CONNECT_FOUR_NAMES = ("connect4", "connect-four")

if hasattr(int, "bit_count"):  # Python >= 3.10

    def _popcount(v: int) -> int:
        return v.bit_count()

else:  # pragma: no cover - Python 3.9

    def _popcount(v: int) -> int:
        return bin(v).count("1")


def other(seat: str) -> str:
    """The other seat: ``"o"`` for ``"x"`` and ``"x"`` for ``"o"``."""
    if seat == X:
        return O
    if seat == O:
        return X
    raise ValueError(f"not a seat: {seat!r} (expected 'x' or 'o')")


class Board(NamedTuple):
    """A position: the cells X holds and the cells O holds, as bit masks (bit i = cell i)."""

    x: int
    o: int


class Game:
    """One game of sweep's families, parsed from its text (``Game("4x4g4")``).

    Attributes: ``rows``, ``cols``, ``k`` (marks in a row that win), ``family`` (``"k"``
    for m,n,k-games, ``"g"`` for gravity boards), ``cells`` (``rows * cols``),
    ``n_actions`` (the number of move numbers: ``cells`` on m,n,k boards, ``cols`` on
    gravity boards) and ``lines`` (every winning line as a cell mask).

    Games compare equal when their texts are equal, and ``str(game)`` is the text.
    """

    __slots__ = (
        "rows",
        "cols",
        "k",
        "family",
        "cells",
        "n_actions",
        "full",
        "lines",
        "_text",
        "_lines_through",
        "_drop",
        "_column_masks",
        "enumerable",
    )

    def __init__(self, text: str, search: bool = False) -> None:
        if isinstance(text, Game):
            text = str(text)
        if not isinstance(text, str):
            raise TypeError(f"a game is a text such as '3x3k3', not {type(text).__name__}")
        if text.strip().lower() in CONNECT_FOUR_NAMES:
            text = "6x7g4"
        m = _GAME_RE.match(text.strip())
        if m is None:
            raise ValueError(
                f"not a game: {text!r} (expected '<rows>x<cols>k<k>' or '<rows>x<cols>g<k>', e.g. '3x3k3' or '4x4g4'; "
                "'connect4' or 'connect-four' name '6x7g4')"
            )
        rows, cols, family, k = int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4))
        cells = rows * cols
        problem = None
        if rows < 3 or cols < 3:
            problem = "rows and columns must be at least 3"
        elif k < 3 or k > max(rows, cols):
            problem = "k must be between 3 and max(rows, columns)"
        elif search and family == "k" and cells > 31:
            problem = "an m,n,k board has at most 31 cells"
        elif search and family == "g" and cols * (rows + 1) > 63:
            problem = "a gravity board has at most 63 cells counting one sentinel row (6x7g4, 7x7g4)"
        elif search:
            pass
        elif family == "k" and cells > 16:
            problem = "an m,n,k board has at most 16 cells"
        elif family == "g" and cells > 20 and not (cells <= 24 and cols <= 4):
            problem = "a gravity board has at most 20 cells, or 24 on at most 4 columns"
        if problem is not None:
            raise ValueError(f"not a game: {text!r}: {problem}")
        self.rows = rows
        self.cols = cols
        self.k = k
        self.family = family
        self.cells = cells
        self.n_actions = cells if family == "k" else cols
        self.full = (1 << cells) - 1
        self._text = f"{rows}x{cols}{family}{k}"
        self.enumerable = _enumerable(family, rows, cols, k)
        self.lines = tuple(_win_lines(rows, cols, k))
        self._lines_through = tuple(tuple(line for line in self.lines if line >> c & 1) for c in range(cells))
        if family == "g":
            self._column_masks = tuple(sum(1 << (r * cols + c) for r in range(rows)) for c in range(cols))
            self._drop = tuple(self._drop_table(c) for c in range(cols))
        else:
            self._column_masks = ()
            self._drop = ()

    def _drop_table(self, col: int) -> Dict[int, int]:
        """For column ``col``: each occupancy of the column (as a cell mask) -> the cell a
        stone dropped there lands on (its empty cell with the largest row)."""
        cells = [r * self.cols + col for r in range(self.rows)]
        table = {}
        for bits in range(1 << self.rows):
            occupied = sum(1 << cells[r] for r in range(self.rows) if bits >> r & 1)
            for r in range(self.rows - 1, -1, -1):
                if not bits >> r & 1:
                    table[occupied] = cells[r]
                    break
        return table

    # -- identity ---------------------------------------------------------------------

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Game({self._text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and other._text == self._text

    def __hash__(self) -> int:
        return hash(self._text)

    def __reduce__(self):
        return (Game, (self._text, not self.enumerable))

    @classmethod
    def search_board(cls, text: str) -> "Game":
        """A board too big to enumerate but valued by sweep's search (``sweep solve
        --moves``, ``sweep score``): Connect Four is ``Game.search_board("6x7g4")``. Its
        rules, texts and moves are as on any board; enumerating its positions
        (:meth:`reachable_positions`, :meth:`states`) raises ValueError."""
        return cls(text, search=True)

    @property
    def text(self) -> str:
        """The game's text, e.g. ``"3x3k3"``."""
        return self._text

    @property
    def gravity(self) -> bool:
        """Whether this is a gravity board (a move is a column)."""
        return self.family == "g"

    # -- positions --------------------------------------------------------------------

    def empty(self) -> Board:
        """The empty board, where every game starts."""
        return Board(0, 0)

    def to_move(self, board: Board) -> str:
        """The seat to move: ``"x"`` when both have as many marks, else ``"o"``."""
        return X if _popcount(board.x) == _popcount(board.o) else O

    def cell(self, row: int, col: int) -> int:
        """The number of the cell at ``row`` (0 at the top) and ``col`` (0 at the left)."""
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"no cell at row {row}, column {col} on {self._text}")
        return row * self.cols + col

    def legal_moves(self, board: Board) -> List[int]:
        """The legal move numbers, increasing: empty cells (m,n,k) or open columns
        (gravity). Empty when the board is full; a won position still lists its empty
        cells (ask :meth:`status` first)."""
        occ = board.x | board.o
        if self.family == "k":
            return [c for c in range(self.cells) if not occ >> c & 1]
        return [c for c in range(self.cols) if not occ >> c & 1]

    def action_mask(self, board: Board) -> List[int]:
        """One entry per move number, 1 if the move is legal and the game goes on, else 0."""
        mask = [0] * self.n_actions
        if self.status(board) == ONGOING:
            for m in self.legal_moves(board):
                mask[m] = 1
        return mask

    def move_cell(self, board: Board, move: int) -> int:
        """The cell that ``move`` marks on ``board``: the move itself on m,n,k boards, the
        column's lowest empty cell on gravity boards. Raises ValueError if illegal."""
        occ = board.x | board.o
        if self.family == "k":
            if not (isinstance(move, int) and 0 <= move < self.cells) or occ >> move & 1:
                raise ValueError(f"illegal move {move!r} on {self._text} board {self.board_text(board)}")
            return move
        if not (isinstance(move, int) and 0 <= move < self.cols):
            raise ValueError(f"illegal move {move!r} on {self._text} board {self.board_text(board)}")
        cell = self._drop[move].get(occ & self._column_masks[move])
        if cell is None:
            raise ValueError(
                f"illegal move {move!r} (column full) on {self._text} board {self.board_text(board)}"
            )
        return cell

    def play(self, board: Board, move: int) -> Board:
        """The position after the side to move plays ``move`` (a move number). Raises
        ValueError for an illegal move or a finished game."""
        if self.winner(board) is not None:
            raise ValueError(f"the game is over on {self._text} board {self.board_text(board)}")
        cell = self.move_cell(board, move)
        if _popcount(board.x) == _popcount(board.o):
            return Board(board.x | 1 << cell, board.o)
        return Board(board.x, board.o | 1 << cell)

    def advance(self, board: Board, move: int) -> Tuple[Board, str]:
        """Plays ``move`` and says how the game stands: ``(next board, status)``, the status
        being ``"x"``, ``"o"``, ``"draw"`` or ``"ongoing"``. Faster than :meth:`play` then
        :meth:`status`: only the lines through the new mark are looked at, and ``board``
        is assumed to be ongoing (as every position reached by play is)."""
        cell = self.move_cell(board, move)
        bit = 1 << cell
        if _popcount(board.x) == _popcount(board.o):
            mine = board.x | bit
            nxt = Board(mine, board.o)
            seat = X
        else:
            mine = board.o | bit
            nxt = Board(board.x, mine)
            seat = O
        for line in self._lines_through[cell]:
            if mine & line == line:
                return nxt, seat
        if (nxt.x | nxt.o) == self.full:
            return nxt, DRAW
        return nxt, ONGOING

    def winner(self, board: Board) -> Optional[str]:
        """``"x"`` or ``"o"`` if that seat has ``k`` in a row, else None."""
        for line in self.lines:
            if board.x & line == line:
                return X
            if board.o & line == line:
                return O
        return None

    def status(self, board: Board) -> str:
        """``"x"`` or ``"o"`` (that seat has won), ``"draw"`` (full, no win) or ``"ongoing"``."""
        w = self.winner(board)
        if w is not None:
            return w
        if (board.x | board.o) == self.full:
            return DRAW
        return ONGOING

    def is_terminal(self, board: Board) -> bool:
        """Whether play has stopped: a win or a full board."""
        return self.status(board) != ONGOING

    def reward(self, board: Board, seat: str) -> int:
        """The return of ``seat`` in a finished position: +1 win, -1 loss, 0 draw (and 0 while
        the game goes on)."""
        s = self.status(board)
        if s == seat:
            return 1
        if s == X or s == O:
            return -1
        return 0

    # -- texts ------------------------------------------------------------------------

    def board_text(self, board: Board) -> str:
        """The board as sweep writes it: one of ``X``, ``O``, ``.`` per cell, row-major."""
        x, o = board.x, board.o
        return "".join("X" if x >> c & 1 else ("O" if o >> c & 1 else ".") for c in range(self.cells))

    def parse_board(self, text: str, validate: bool = True) -> Board:
        """The board written ``text`` (see :meth:`board_text`). With ``validate`` (the
        default) it must be a position that play can reach: X has as many marks as O or
        one more, at most one side has won and only with the last mark, and on gravity
        boards no stone floats above an empty cell. Raises ValueError otherwise."""
        if len(text) != self.cells:
            raise ValueError(f"board {text!r}: {len(text)} characters, {self._text} has {self.cells} cells")
        x = o = 0
        for c, ch in enumerate(text):
            if ch == "X":
                x |= 1 << c
            elif ch == "O":
                o |= 1 << c
            elif ch != ".":
                raise ValueError(f"board {text!r}: {ch!r} is not one of 'X', 'O', '.'")
        board = Board(x, o)
        if validate:
            problem = self._problem(board)
            if problem is not None:
                raise ValueError(f"board {text!r} cannot be reached on {self._text}: {problem}")
        return board

    def _problem(self, board: Board) -> Optional[str]:
        """Why ``board`` cannot be reached by play, or None."""
        nx, no = _popcount(board.x), _popcount(board.o)
        if board.x & board.o:
            return "a cell holds both marks"
        if nx != no and nx != no + 1:
            return f"X has {nx} marks and O {no}"
        x_wins = any(board.x & line == line for line in self.lines)
        o_wins = any(board.o & line == line for line in self.lines)
        if x_wins and o_wins:
            return "both sides have won"
        if x_wins and nx != no + 1:
            return "X has won but O has moved since"
        if o_wins and nx != no:
            return "O has won but X has moved since"
        if self.family == "g":
            occ = board.x | board.o
            for c in range(self.cells - self.cols):
                if occ >> c & 1 and not occ >> (c + self.cols) & 1:
                    return f"the stone on cell {c} floats above an empty cell"
        return None

    def move_text(self, move: int) -> str:
        """How sweep writes a move: its number (a cell, or a column on gravity boards)."""
        if not (isinstance(move, int) and 0 <= move < self.n_actions):
            raise ValueError(f"not a move of {self._text}: {move!r}")
        return str(move)

    def parse_move(self, text: str, board: Optional[Board] = None) -> int:
        """The move number written ``text``; with ``board``, the move must be legal there."""
        t = text.strip()
        if not t.isdigit():
            raise ValueError(
                f"not a move: {text!r} (expected a {'column' if self.gravity else 'cell'} number)"
            )
        move = int(t)
        if move >= self.n_actions:
            raise ValueError(f"not a move of {self._text}: {text!r} (0..{self.n_actions - 1})")
        if board is not None:
            self.move_cell(board, move)  # raises if illegal
        return move

    def render(self, board: Board) -> str:
        """The board as ``rows`` lines of text (for people)."""
        t = self.board_text(board)
        return "\n".join(t[r * self.cols : (r + 1) * self.cols] for r in range(self.rows))

    # -- enumeration ------------------------------------------------------------------

    def children(self, board: Board) -> List[Tuple[int, Board, str]]:
        """``(move, next board, status)`` for each legal move of an ongoing ``board``."""
        return [(m,) + self.advance(board, m) for m in self.legal_moves(board)]

    def reachable_positions(self) -> List[Board]:
        """Every position that play reaches from the empty board, terminal ones included
        (play stops at a win), each once, by number of marks then in order of discovery.

        3x3k3 has 5478, 3x4k3 111973, 3x3g3 694 and 4x4g4 161029. Boards up to a few
        hundred thousand positions take seconds; 4x4k4's 9.7 million are too many for
        this pure-Python search."""
        return [b for b, _ in self._enumerate()]

    def positions_with_status(self) -> List[Tuple[Board, str]]:
        """:meth:`reachable_positions` with each position's status."""
        return self._enumerate()

    def states(self, seat: str) -> List[Board]:
        """The ongoing reachable positions where ``seat`` is to move, in the order of
        :meth:`reachable_positions`: the positions a states file lists for that seat."""
        other(seat)  # validates
        want_x = seat == X
        return [
            b for b, s in self._enumerate() if s == ONGOING and (_popcount(b.x) == _popcount(b.o)) == want_x
        ]

    def _enumerate(self) -> List[Tuple[Board, str]]:
        if not self.enumerable:
            raise ValueError(f"{self._text} has too many positions to enumerate: sweep values its positions by search")
        cells = self.cells
        full = self.full
        gravity = self.family == "g"
        through = self._lines_through
        drop = self._drop
        colmask = self._column_masks
        ncols = self.cols
        seen = {0}  # a position's key: x's mask in the low bits, o's above them
        out: List[Tuple[Board, str]] = [(Board(0, 0), ONGOING)]
        layer: List[Tuple[int, int]] = [(0, 0)]
        x_moves = True
        while layer:
            next_layer: List[Tuple[int, int]] = []
            mover = X if x_moves else O
            for x, o in layer:
                occ = x | o
                if gravity:
                    targets = [drop[c][occ & colmask[c]] for c in range(ncols) if not occ >> c & 1]
                else:
                    targets = [c for c in range(cells) if not occ >> c & 1]
                for cell in targets:
                    bit = 1 << cell
                    if x_moves:
                        nx, no = x | bit, o
                        mine = nx
                    else:
                        nx, no = x, o | bit
                        mine = no
                    key = nx | no << cells
                    if key in seen:
                        continue
                    seen.add(key)
                    status = ONGOING
                    for line in through[cell]:
                        if mine & line == line:
                            status = mover
                            break
                    else:
                        if (nx | no) == full:
                            status = DRAW
                    out.append((Board(nx, no), status))
                    if status == ONGOING:
                        next_layer.append((nx, no))
            layer = next_layer
            x_moves = not x_moves
        return out


def _enumerable(family: str, rows: int, cols: int, k: int) -> bool:
    """Whether sweep enumerates the board (see ``Game``'s limits)."""
    cells = rows * cols
    if family == "k":
        return cells <= 16
    return cells <= 20 or (cells <= 24 and cols <= 4)


def _win_lines(rows: int, cols: int, k: int) -> Iterable[int]:
    """Every line of ``k`` cells in a row (rows, columns, both diagonals) as a cell mask."""
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                er, ec = r + (k - 1) * dr, c + (k - 1) * dc
                if 0 <= er < rows and 0 <= ec < cols:
                    yield sum(1 << ((r + i * dr) * cols + (c + i * dc)) for i in range(k))
