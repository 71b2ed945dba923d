#!/usr/bin/env python3
"""Tabular Q-learning as a sweep ``command`` agent, in plain Python.

The same rules as sweep's built-in ``q-learning`` learner: the agent picks
epsilon-greedily among the legal moves (greedy ties go to the lowest move number); after
its move and the opponent's reply,

    Q(s,a) += alpha * (target - Q(s,a)),  target = r if the game ended,
                                          else gamma * max_a' Q(s',a')

where ``s'`` is the agent's next position. After each episode epsilon is multiplied by
its decay and held at its floor (alpha likewise; by default alpha stays put). Against
``opponent = "self"`` one table plays both seats with the negamax target
``-gamma * max_a' Q(s',a')`` (the table is seen from the side to move; a move that ends
the game gets the mover's reward).

Parameters (``[solver.params]`` in the spec; sweep keeps the names ``alpha``, ``gamma``,
``epsilon`` and the like for the built-in learners' columns, so these take their own):
``lr`` (alpha, 0.5), ``lr_decay`` (1), ``lr_min`` (0), ``discount`` (gamma, 0.9),
``eps`` (epsilon, 1.0), ``eps_decay`` (0.999), ``eps_min`` (0.05), ``q0`` (every
entry's starting value, 0).

It reads its job from the environment (see ``sweep_agents.job``), trains for
``SWEEP_EPISODES`` episodes with ``random.Random(SWEEP_SEED)`` (the same seed gives the
same policy), writes a greedy policy over every position of the states file at each
checkpoint episode and at the end (a position it never visited gets its lowest legal
move), and writes its metrics.

Its moves come from Python's generator, not sweep's, so it does not reproduce the
built-in learner's runs bit for bit; it follows the same rules.
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

from sweep_agents import job as jobs  # noqa: E402
from sweep_agents.opponents import make_opponent  # noqa: E402
from sweep_agents.rules import DRAW, ONGOING, O  # noqa: E402

# The program's parameters and their defaults. sweep keeps the built-in learners' names
# (alpha, gamma, epsilon, ...) for its own columns, so a program's parameters take others:
# lr is alpha, discount is gamma, eps is epsilon, q0 is q_init.
PARAMS = {
    "lr": 0.5,
    "lr_decay": 1.0,
    "lr_min": 0.0,
    "discount": 0.9,
    "eps": 1.0,
    "eps_decay": 0.999,
    "eps_min": 0.05,
    "q0": 0.0,
}


class Learner:
    """The table: position -> [legal moves, their Q values], and the episode loops."""

    def __init__(self, game, q_init: float, rng: random.Random):
        self.game = game
        self.q_init = q_init
        self.rng = rng
        self.table = {}
        self.returns = []

    def entry(self, board):
        e = self.table.get(board)
        if e is None:
            moves = self.game.legal_moves(board)
            e = (moves, [self.q_init] * len(moves))
            self.table[board] = e
        return e

    def choose(self, q, epsilon: float) -> int:
        """The index of the chosen move: uniform with probability epsilon, else greedy
        (the first, i.e. lowest, move among equal values)."""
        rng = self.rng
        if rng.random() < epsilon:
            return int(rng.random() * len(q))
        return q.index(max(q))

    def episode_fixed(self, seat, opponent, epsilon, alpha, gamma) -> float:
        """One game against a fixed opponent; returns the agent's return."""
        game, rng = self.game, self.rng
        advance = game.advance
        board = game.empty()
        if seat == O:
            board, _ = advance(board, opponent.move(board, rng))
        moves, q = self.entry(board)
        while True:
            i = self.choose(q, epsilon)
            after, status = advance(board, moves[i])
            if status == ONGOING:
                after, status = advance(after, opponent.move(after, rng))
            if status != ONGOING:
                reward = 0.0 if status == DRAW else (1.0 if status == seat else -1.0)
                q[i] += alpha * (reward - q[i])
                return reward
            next_moves, next_q = self.entry(after)
            q[i] += alpha * (gamma * max(next_q) - q[i])
            board, moves, q = after, next_moves, next_q

    def episode_self(self, epsilon, alpha, gamma) -> float:
        """One self-play game; returns X's return."""
        game = self.game
        advance = game.advance
        board = game.empty()
        moves, q = self.entry(board)
        while True:
            i = self.choose(q, epsilon)
            after, status = advance(board, moves[i])
            if status != ONGOING:
                reward = 0.0 if status == DRAW else 1.0  # the mover won, or drew
                q[i] += alpha * (reward - q[i])
                if status == DRAW:
                    return 0.0
                return 1.0 if status == "x" else -1.0
            next_moves, next_q = self.entry(after)
            q[i] += alpha * (-gamma * max(next_q) - q[i])
            board, moves, q = after, next_moves, next_q

    def policy(self, states):
        """The greedy move of every state: (state, move) pairs."""
        out = []
        table = self.table
        for s in states:
            e = table.get(s.board)
            if e is None:
                out.append((s, s.moves[0]))
            else:
                moves, q = e
                out.append((s, moves[q.index(max(q))]))
        return out


def main() -> int:
    try:
        return run()
    except jobs.JobError as e:
        print(f"tabular_q: {e}", file=sys.stderr)
        return 2


def run() -> int:
    job = jobs.from_env()
    unknown = job.unknown_params(PARAMS)
    if unknown:
        print(f"tabular_q: ignoring unknown parameters: {', '.join(unknown)}", file=sys.stderr)
    p = {name: job.param(name, default) for name, default in PARAMS.items()}

    states = job.read_states()
    rng = random.Random(job.seed)
    learner = Learner(job.game, p["q0"], rng)
    opponent = None if job.self_play else make_opponent(job.game, job.opponent)
    checkpoints = set(job.checkpoints)
    epsilon, alpha, gamma = p["eps"], p["lr"], p["discount"]
    recent = []
    if 0 in checkpoints:
        job.write_checkpoint(0, learner.policy(states))
    for episode in range(1, job.episodes + 1):
        if opponent is None:
            ret = learner.episode_self(epsilon, alpha, gamma)
        else:
            ret = learner.episode_fixed(job.seat, opponent, epsilon, alpha, gamma)
        recent.append(ret)
        if len(recent) > 1000:
            del recent[:-1000]
        if episode in checkpoints:
            job.write_checkpoint(episode, learner.policy(states))
        epsilon = max(epsilon * p["eps_decay"], p["eps_min"])
        alpha = max(alpha * p["lr_decay"], p["lr_min"])
    job.write_policy(learner.policy(states))
    job.write_metrics(
        {
            "table_entries": sum(len(q) for _, q in learner.table.values()),
            "states_visited": len(learner.table),
            "final_epsilon": epsilon,
            "final_lr": alpha,
            "mean_return_last_1000": sum(recent) / len(recent) if recent else 0.0,
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
