#!/usr/bin/env python3
"""Linear Q-learning (semi-gradient, function approximation) as a sweep ``command`` agent.

Q(s,a) is a sum of weights, one per active binary feature, with one of two feature sets
(the ``features`` parameter), both seen from the side to move:

- ``"ntuple"`` (the default): an n-tuple network over the position after the move (the
  afterstate). Each winning line of the board has a table of ``3^k`` weights, one per
  way of filling its ``k`` cells (empty, the mover's, the other side's); Q(s,a) adds up
  the weights that the afterstate's lines select. Few weights, shared by every position.
- ``"cells"``: each cell's content in ``s`` (empty, the mover's, the other side's) crossed
  with the action, plus a bias per action: ``n_actions * (3 * cells + 1)`` weights.

Learning is Q-learning with the built-in learner's schedule: epsilon-greedy over the
legal moves (greedy ties go to the lowest move number), one update after the agent's
move and the opponent's reply with ``target = r`` if the game ended, else
``gamma * max_a' Q(s',a')``, then ``w += lr * (target - Q(s,a)) / n_active`` on each
active feature (so Q(s,a) itself moves by ``lr * (target - Q(s,a))``). Against
``opponent = "self"`` the same weights play both seats with the negamax target
``-gamma * max_a' Q(s',a')``.

Parameters: ``features`` ("ntuple"), ``lr`` (0.1), ``lr_decay`` (1), ``lr_min`` (0),
``discount`` (gamma, 0.9), ``eps`` (epsilon, 1.0), ``eps_decay`` (0.999), ``eps_min``
(0.05), ``w0`` (every weight's starting value, 0). After each episode ``eps`` and ``lr``
are multiplied by their decays and held at their floors.

Training runs in plain Python (``random.Random(SWEEP_SEED)``; the same seed gives the same
weights). The greedy policy over the states file is computed with numpy when it is
importable, else in plain Python; both add the same weights in the same order, so the
policy is the same either way. Metrics: the number of weights, the mean squared TD error
over the last 1,000 episodes' updates, and the mean return over them.
"""

import os
import sys


def _import_package():
    try:
        import sweep_agents  # noqa: F401
    except ImportError:
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.path.normpath(os.path.join(here, "..", "..", "python")))


_import_package()

import random  # noqa: E402
from collections import deque  # noqa: E402

from sweep_agents import job as jobs  # noqa: E402
from sweep_agents.opponents import make_opponent  # noqa: E402
from sweep_agents.rules import DRAW, ONGOING, O, X  # noqa: E402

try:
    import numpy as np
except ImportError:  # plain Python
    np = None

# The program's parameters and their defaults (sweep keeps alpha, gamma, epsilon, ... for
# the built-in learners' columns).
PARAMS = {
    "features": "ntuple",
    "lr": 0.1,
    "lr_decay": 1.0,
    "lr_min": 0.0,
    "discount": 0.9,
    "eps": 1.0,
    "eps_decay": 0.999,
    "eps_min": 0.05,
    "w0": 0.0,
}


def _mover_masks(board):
    """(the mover's cells, the other side's cells) of ``board``, whoever is to move."""
    nx, no = bin(board.x).count("1"), bin(board.o).count("1")
    return (board.x, board.o) if nx == no else (board.o, board.x)


class NTuple:
    """Afterstate n-tuple features: one weight table of ``3^k`` entries per winning line."""

    def __init__(self, game):
        self.game = game
        self.line_cells = []
        for line in game.lines:
            self.line_cells.append([c for c in range(game.cells) if line >> c & 1])
        size = 3**game.k
        self.offsets = [i * size for i in range(len(self.line_cells))]
        self.n_weights = size * len(self.line_cells)
        self.n_active = len(self.line_cells)
        # per line: (cells of the viewer | the other side's cells << cells) -> weight index
        shift = game.cells
        self.tables = []
        for line, cells, offset in zip(game.lines, self.line_cells, self.offsets):
            table = {}
            for pattern in range(size):
                mine = theirs = 0
                rest = pattern
                for c in cells:
                    digit = rest % 3
                    rest //= 3
                    if digit == 1:
                        mine |= 1 << c
                    elif digit == 2:
                        theirs |= 1 << c
                table[mine | theirs << shift] = offset + pattern
            self.tables.append((line, table))
        self.shift = shift

    def indices(self, board, moves):
        """For each move, the weight indices its afterstate selects, seen by the mover."""
        move_cell = self.game.move_cell
        mine0, theirs = _mover_masks(board)
        shift = self.shift
        out = []
        for m in moves:
            mine = mine0 | 1 << move_cell(board, m)
            out.append([t[(mine & line) | (theirs & line) << shift] for line, t in self.tables])
        return out

    def batch_q(self, w, states):
        """numpy: a (states, n_actions) array of Q values, -inf where a move is illegal."""
        game = self.game
        n, na = len(states), game.n_actions
        q = np.full((n, na), -np.inf)
        rows, cols, mine, theirs = [], [], [], []
        for i, s in enumerate(states):
            b = s.board
            m0, t0 = _mover_masks(b)
            for m in s.moves:
                rows.append(i)
                cols.append(m)
                mine.append(m0 | 1 << game.move_cell(b, m))
                theirs.append(t0)
        rows_a = np.asarray(rows, dtype=np.int64)
        cols_a = np.asarray(cols, dtype=np.int64)
        mine_a = np.asarray(mine, dtype=np.int64)
        theirs_a = np.asarray(theirs, dtype=np.int64)
        wa = np.asarray(w, dtype=np.float64)
        total = np.zeros(len(rows), dtype=np.float64)
        for cells, offset in zip(self.line_cells, self.offsets):
            idx = np.full(len(rows), offset, dtype=np.int64)
            power = 1
            for c in cells:
                idx += (((mine_a >> c) & 1) + 2 * ((theirs_a >> c) & 1)) * power
                power *= 3
            total += wa[idx]
        q[rows_a, cols_a] = total
        return q


class Cells:
    """Cell contents of the position (before the move) crossed with the action."""

    def __init__(self, game):
        self.game = game
        self.stride = 3 * game.cells + 1
        self.n_weights = game.n_actions * self.stride
        self.n_active = game.cells + 1

    def _contents(self, board):
        mine, theirs = _mover_masks(board)
        return [c * 3 + ((mine >> c & 1) + 2 * (theirs >> c & 1)) for c in range(self.game.cells)]

    def indices(self, board, moves):
        feats = self._contents(board)
        stride, bias = self.stride, self.stride - 1
        out = []
        for m in moves:
            base = m * stride
            out.append([base + bias] + [base + f for f in feats])
        return out

    def batch_q(self, w, states):
        game = self.game
        n, na, stride = len(states), game.n_actions, self.stride
        contents = np.zeros((n, game.cells), dtype=np.int64)
        legal = np.zeros((n, na), dtype=bool)
        for i, s in enumerate(states):
            mine, theirs = _mover_masks(s.board)
            contents[i] = [(mine >> c & 1) + 2 * (theirs >> c & 1) for c in range(game.cells)]
            legal[i, list(s.moves)] = True
        wa = np.asarray(w, dtype=np.float64)
        q = np.zeros((n, na), dtype=np.float64)
        for a in range(na):
            base = a * stride
            col = np.zeros(n, dtype=np.float64)
            col += wa[base + stride - 1]
            for c in range(game.cells):
                col += wa[base + c * 3 + contents[:, c]]
            q[:, a] = col
        q[~legal] = -np.inf
        return q


def q_values(w, index_lists):
    """Q of each move: its active weights added up in order, from 0.0."""
    out = []
    for idx in index_lists:
        total = 0.0
        for i in idx:
            total += w[i]
        out.append(total)
    return out


class Learner:
    def __init__(self, game, features, w_init, rng):
        self.game = game
        self.features = features
        self.w = [float(w_init)] * features.n_weights
        self.rng = rng
        self.td_sq = 0.0
        self.td_n = 0

    def choose(self, q, epsilon):
        rng = self.rng
        if rng.random() < epsilon:
            return int(rng.random() * len(q))
        return q.index(max(q))

    def update(self, idx, q_sa, target, lr):
        delta = target - q_sa
        self.td_sq += delta * delta
        self.td_n += 1
        step = lr * delta / len(idx)
        w = self.w
        for i in idx:
            w[i] += step

    def evaluate(self, board):
        moves = self.game.legal_moves(board)
        idx = self.features.indices(board, moves)
        return moves, idx, q_values(self.w, idx)

    def episode_fixed(self, seat, opponent, epsilon, lr, gamma):
        game, rng = self.game, self.rng
        advance = game.advance
        board = game.empty()
        if seat == O:
            board, _ = advance(board, opponent.move(board, rng))
        moves, idx, q = self.evaluate(board)
        while True:
            i = self.choose(q, epsilon)
            after, status = advance(board, moves[i])
            if status == ONGOING:
                after, status = advance(after, opponent.move(after, rng))
            if status != ONGOING:
                reward = 0.0 if status == DRAW else (1.0 if status == seat else -1.0)
                self.update(idx[i], q[i], reward, lr)
                return reward
            nmoves, nidx, nq = self.evaluate(after)
            self.update(idx[i], q[i], gamma * max(nq), lr)
            board, moves, idx, q = after, nmoves, nidx, nq

    def episode_self(self, epsilon, lr, gamma):
        game = self.game
        advance = game.advance
        board = game.empty()
        moves, idx, q = self.evaluate(board)
        while True:
            i = self.choose(q, epsilon)
            after, status = advance(board, moves[i])
            if status != ONGOING:
                self.update(idx[i], q[i], 0.0 if status == DRAW else 1.0, lr)
                return 0.0 if status == DRAW else (1.0 if status == X else -1.0)
            nmoves, nidx, nq = self.evaluate(after)
            self.update(idx[i], q[i], -gamma * max(nq), lr)
            board, moves, idx, q = after, nmoves, nidx, nq

    def policy(self, states, use_numpy):
        """(state, greedy move) for every state; the lowest move among equal values."""
        if use_numpy and states:
            q = self.features.batch_q(self.w, states)
            best = q.argmax(axis=1).tolist()
            return list(zip(states, best))
        out = []
        for s in states:
            qs = q_values(self.w, self.features.indices(s.board, s.moves))
            out.append((s, s.moves[qs.index(max(qs))]))
        return out


def main() -> int:
    try:
        return run()
    except jobs.JobError as e:
        print(f"linear_q: {e}", file=sys.stderr)
        return 2


def run() -> int:
    job = jobs.from_env()
    unknown = job.unknown_params(PARAMS)
    if unknown:
        print(f"linear_q: ignoring unknown parameters: {', '.join(unknown)}", file=sys.stderr)
    p = {name: job.param(name, default) for name, default in PARAMS.items()}
    kinds = {"ntuple": NTuple, "cells": Cells}
    if p["features"] not in kinds:
        print(f"linear_q: features = {p['features']!r}: expected one of {', '.join(kinds)}", file=sys.stderr)
        return 2
    use_numpy = np is not None and os.environ.get("LINEAR_Q_NO_NUMPY", "") != "1"

    states = job.read_states()
    features = kinds[p["features"]](job.game)
    rng = random.Random(job.seed)
    learner = Learner(job.game, features, p["w0"], rng)
    opponent = None if job.self_play else make_opponent(job.game, job.opponent)
    checkpoints = set(job.checkpoints)
    epsilon, lr, gamma = p["eps"], p["lr"], p["discount"]
    recent = deque(maxlen=1000)
    if 0 in checkpoints:
        job.write_checkpoint(0, learner.policy(states, use_numpy))
    for episode in range(1, job.episodes + 1):
        sq, n = learner.td_sq, learner.td_n
        if opponent is None:
            ret = learner.episode_self(epsilon, lr, gamma)
        else:
            ret = learner.episode_fixed(job.seat, opponent, epsilon, lr, gamma)
        recent.append((ret, learner.td_sq - sq, learner.td_n - n))
        if episode in checkpoints:
            job.write_checkpoint(episode, learner.policy(states, use_numpy))
        epsilon = max(epsilon * p["eps_decay"], p["eps_min"])
        lr = max(lr * p["lr_decay"], p["lr_min"])
    job.write_policy(learner.policy(states, use_numpy))
    updates = sum(r[2] for r in recent)
    job.write_metrics(
        {
            "weights": features.n_weights,
            "td_loss": sum(r[1] for r in recent) / updates if updates else 0.0,
            "mean_return_last_1000": sum(r[0] for r in recent) / len(recent) if recent else 0.0,
            "final_epsilon": epsilon,
            "final_lr": lr,
            "numpy": 1 if use_numpy else 0,
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
