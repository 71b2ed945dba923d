"""A second, deliberately plain implementation of the rules and of the exact values,
for the tests to check ``sweep_agents`` and the ``sweep`` binary against.

Boards are texts (``"X.O......"``); a win is found by walking from the new mark in the
four directions, so no code is shared with :mod:`sweep_agents.rules` (which uses bit
masks and precomputed lines).
"""

import re
from fractions import Fraction


class RefGame:
    """The rules over board texts."""

    def __init__(self, text):
        m = re.fullmatch(r"(\d+)x(\d+)([kg])(\d+)", text)
        assert m, text
        self.rows, self.cols, self.family, self.k = int(m[1]), int(m[2]), m[3], int(m[4])
        self.cells = self.rows * self.cols

    def empty(self):
        return "." * self.cells

    def to_move(self, board):
        return "X" if board.count("X") == board.count("O") else "O"

    def moves(self, board):
        """Legal move numbers: empty cells, or columns whose top cell is empty."""
        if self.family == "k":
            return [i for i, ch in enumerate(board) if ch == "."]
        return [c for c in range(self.cols) if board[c] == "."]

    def target(self, board, move):
        if self.family == "k":
            assert board[move] == "."
            return move
        rows = [r for r in range(self.rows) if board[r * self.cols + move] == "."]
        return max(rows) * self.cols + move

    def play(self, board, move):
        """(next board, outcome): outcome 'X' or 'O' (that side won), 'draw' or None."""
        cell = self.target(board, move)
        mark = self.to_move(board)
        nxt = board[:cell] + mark + board[cell + 1 :]
        r0, c0 = divmod(cell, self.cols)
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            run = 1
            for sign in (1, -1):
                r, c = r0 + sign * dr, c0 + sign * dc
                while 0 <= r < self.rows and 0 <= c < self.cols and nxt[r * self.cols + c] == mark:
                    run += 1
                    r, c = r + sign * dr, c + sign * dc
            if run >= self.k:
                return nxt, mark
        if "." not in nxt:
            return nxt, "draw"
        return nxt, None

    def positions(self):
        """Every reachable position: board text -> outcome (None while ongoing)."""
        seen = {self.empty(): None}
        stack = [self.empty()]
        while stack:
            b = stack.pop()
            for m in self.moves(b):
                nxt, outcome = self.play(b, m)
                if nxt not in seen:
                    seen[nxt] = outcome
                    if outcome is None:
                        stack.append(nxt)
        return seen


def random_opponent(game):
    """The uniform opponent: board -> [(move, probability)]."""

    def dist(board):
        moves = game.moves(board)
        return [(m, Fraction(1, len(moves))) for m in moves]

    return dist


def expectimax(game, seat, opponent):
    """Exact optimal values against a fixed opponent, undiscounted: {board: (value,
    optimal moves)} for every state where ``seat`` ('x' or 'o') is to move that play
    against ``opponent`` (board -> [(move, probability)]) reaches. Values are Fractions,
    so ties are exact."""
    mark = seat.upper()

    def reward(outcome):
        if outcome == "draw":
            return Fraction(0)
        return Fraction(1) if outcome == mark else Fraction(-1)

    memo = {}

    def value(board):
        if board in memo:
            return memo[board][0]
        qs = {}
        for m in game.moves(board):
            after, outcome = game.play(board, m)
            if outcome is not None:
                qs[m] = reward(outcome)
                continue
            total = Fraction(0)
            for reply, p in opponent(after):
                nxt, outcome2 = game.play(after, reply)
                total += p * (reward(outcome2) if outcome2 is not None else value(nxt))
            qs[m] = total
        best = max(qs.values())
        memo[board] = (best, sorted(m for m, q in qs.items() if q == best))
        return best

    start = game.empty()
    if mark == "X":
        value(start)
    else:
        for reply, _ in opponent(start):
            nxt, _ = game.play(start, reply)
            value(nxt)
    return memo


def start_value(game, seat, opponent, table):
    """The expected return from the empty board under optimal play (from ``table``)."""
    start = game.empty()
    if seat == "x":
        return table[start][0]
    total = Fraction(0)
    for reply, p in opponent(start):
        nxt, _ = game.play(start, reply)
        total += p * table[nxt][0]
    return total


def policy_value(game, seat, opponent, policy):
    """The exact expected return of ``policy`` (board text -> move) against ``opponent``
    from the empty board; a position the policy lacks raises KeyError."""
    mark = seat.upper()

    def reward(outcome):
        if outcome == "draw":
            return Fraction(0)
        return Fraction(1) if outcome == mark else Fraction(-1)

    memo = {}

    def value(board):
        if board not in memo:
            after, outcome = game.play(board, policy[board])
            if outcome is not None:
                memo[board] = reward(outcome)
            else:
                total = Fraction(0)
                for reply, p in opponent(after):
                    nxt, outcome2 = game.play(after, reply)
                    total += p * (reward(outcome2) if outcome2 is not None else value(nxt))
                memo[board] = total
        return memo[board]

    start = game.empty()
    if mark == "X":
        return value(start)
    total = Fraction(0)
    for reply, p in opponent(start):
        nxt, _ = game.play(start, reply)
        total += p * value(nxt)
    return total
