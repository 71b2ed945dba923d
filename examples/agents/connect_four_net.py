"""A small neural Connect Four agent: trains, then answers positions.

As a `kind = "command"` solver on a board too big to enumerate (experiments/connect-four.toml)
sweep starts it once per job: it trains for $SWEEP_EPISODES games from the evaluation's
start position ($SWEEP_FROM, the moves as `sweep solve --moves` takes them), by self-play
when $SWEEP_OPPONENT is `self`, else as $SWEEP_SEAT against a uniformly random opponent;
then it answers the positions the evaluation reaches, a batch at a time
(sweep_agents.serve_policy), and sweep scores its moves exactly. With the solver's
`serve_checkpoints = true` it also answers at the checkpoints sweep asks for while it
trains (sweep_agents.serve_checkpoint), which gives its jobs learning curves; answering
draws no random numbers, so the final policy is the same either way.

The network: the board after a move (the stones of the player who just moved, then the
other's, one input per cell each) -> `hidden` tanh units -> one tanh output, the value of
that afterstate for the player who just moved. Training is TD(0); in self-play in negamax
form: the target of an afterstate is the game's result when it ended, else minus the
value of the opponent's reply afterstate. Moves are epsilon-greedy; `lr` is the step
size. A move
that wins at once is always played. The agent plays the reply whose afterstate value is
highest (the lowest column among equal values).

numpy runs the network when it is installed (one forward pass per position's moves, and
for every answer batch); without it the same arithmetic runs in plain Python, slower, and
its sums may differ from numpy's in the last bits.
"""

import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

from sweep_agents import Game, serve_checkpoint, serve_policy  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None

GAME = Game.search_board(os.environ.get("SWEEP_GAME", "6x7g4"))
CELLS = GAME.cells


def param(name, default, kind):
    return kind(os.environ.get(f"SWEEP_PARAM_{name.upper()}", default))


HIDDEN = param("hidden", "32", int)
LR = param("lr", "0.01", float)
EPSILON = param("epsilon", "0.1", float)


class Net:
    """A one-hidden-layer value network, weights drawn from `rng`."""

    def __init__(self, rng):
        scale = 1.0 / math.sqrt(2 * CELLS)
        self.w1 = [[rng.gauss(0.0, scale) for _ in range(2 * CELLS)] for _ in range(HIDDEN)]
        self.b1 = [0.0] * HIDDEN
        self.w2 = [rng.gauss(0.0, 1.0 / math.sqrt(HIDDEN)) for _ in range(HIDDEN)]
        self.b2 = 0.0
        if np is not None:
            self.w1 = np.array(self.w1)
            self.b1 = np.array(self.b1)
            self.w2 = np.array(self.w2)

    def values(self, features):
        """The value of each feature row (a list of 0/1 lists)."""
        if np is not None:
            x = np.array(features, dtype=float)
            h = np.tanh(x @ self.w1.T + self.b1)
            return list(np.tanh(h @ self.w2 + self.b2))
        out = []
        for x in features:
            on = [i for i, v in enumerate(x) if v]
            h = [math.tanh(sum(row[i] for i in on) + b) for row, b in zip(self.w1, self.b1)]
            out.append(math.tanh(sum(w * a for w, a in zip(self.w2, h)) + self.b2))
        return out

    def step(self, x, target):
        """One gradient step of (target - value)^2 / 2 at feature row `x`."""
        if np is not None:
            xv = np.array(x, dtype=float)
            h = np.tanh(self.w1 @ xv + self.b1)
            v = math.tanh(float(h @ self.w2) + self.b2)
            g = (target - v) * (1 - v * v) * LR
            gh = g * self.w2 * (1 - h * h)
            self.w2 += g * h
            self.b2 += g
            self.w1 += np.outer(gh, xv)
            self.b1 += gh
            return
        on = [i for i, v in enumerate(x) if v]
        h = [math.tanh(sum(row[i] for i in on) + b) for row, b in zip(self.w1, self.b1)]
        v = math.tanh(sum(w * a for w, a in zip(self.w2, h)) + self.b2)
        g = (target - v) * (1 - v * v) * LR
        for j in range(HIDDEN):
            gh = g * self.w2[j] * (1 - h[j] * h[j])
            self.w2[j] += g * h[j]
            for i in on:
                self.w1[j][i] += gh
            self.b1[j] += gh
        self.b2 += g


def features(text, mover):
    """The afterstate `text` from the view of `mover` (the player who just moved)."""
    mine = [1 if c == mover else 0 for c in text]
    theirs = [1 if c not in (mover, ".") else 0 for c in text]
    return mine + theirs


def replies(board):
    """(move, afterstate, status) for every legal move."""
    return [(m, *GAME.advance(board, m)) for m in GAME.legal_moves(board)]


def best(net, board, rng=None):
    """The move to play, its afterstate and status: a win at once, else the highest value."""
    options = replies(board)
    me = GAME.to_move(board)
    for m, after, status in options:
        if status == me:
            return m, after, status
    if rng is not None and rng.random() < EPSILON:
        return options[rng.randrange(len(options))]
    mover = me.upper()
    values = net.values([features(GAME.board_text(after), mover) for _, after, _ in options])
    top = max(values)
    return options[values.index(top)]


def start():
    moves = os.environ.get("SWEEP_FROM", "").strip()
    board = GAME.empty()
    if moves and moves != "-":
        cols = [int(m) for m in moves.split(",")] if "," in moves else [int(c) - 1 for c in moves]
        for m in cols:
            board = GAME.play(board, m)
    return board


def train(net, episodes, rng, at=lambda episode: None):
    """Trains for `episodes` games, calling `at(e)` before game e (the policy after the
    last game is the final one, which sweep takes for its last checkpoint)."""
    if os.environ.get("SWEEP_OPPONENT", "self") == "self":
        train_self_play(net, episodes, rng, at)
    else:
        train_against_random(net, episodes, rng, os.environ.get("SWEEP_SEAT", "x"), at)


def train_against_random(net, episodes, rng, seat, at):
    """TD(0) on the agent's own afterstates, the opponent playing uniformly at random: the
    target of an afterstate is the result when the game ended (1 win, 0 draw, -1 loss for
    the agent), else the value of the agent's next afterstate."""
    root = start()
    mover = seat.upper()
    for episode in range(episodes):
        at(episode)
        board, last = root, None
        while True:
            if GAME.to_move(board) != seat:
                options = replies(board)
                m, board, status = options[rng.randrange(len(options))]
                if status != "ongoing":
                    if last is not None:
                        net.step(last, 0.0 if status == "draw" else -1.0)
                    break
                continue
            m, after, status = best(net, board, rng)
            x = features(GAME.board_text(after), mover)
            if last is not None and status == "ongoing":
                net.step(last, net.values([x])[0])
            if status != "ongoing":
                result = 0.0 if status == "draw" else 1.0
                net.step(x, result)
                if last is not None:
                    net.step(last, result)
                break
            last, board = x, after


def train_self_play(net, episodes, rng, at):
    root = start()
    for episode in range(episodes):
        at(episode)
        board, last = root, None  # `last`: the previous afterstate's features and mover
        while True:
            mover = GAME.to_move(board).upper()
            m, after, status = best(net, board, rng)
            x = features(GAME.board_text(after), mover)
            if status != "ongoing":
                result = 0.0 if status == "draw" else 1.0
                net.step(x, result)
                if last is not None:
                    net.step(last, -result)
                break
            if last is not None:
                # The opponent's afterstate is worth minus ours to them.
                net.step(last, -net.values([x])[0])
            last, board = x, after


def main():
    seed = int(os.environ.get("SWEEP_SEED", "0"))
    rng = random.Random(seed)
    net = Net(rng)

    def answer(boards):
        return [best(net, GAME.parse_board(b, validate=False))[0] for b in boards]

    train(net, int(os.environ.get("SWEEP_EPISODES", "200")), rng, lambda e: serve_checkpoint(e, answer, game=GAME))
    serve_policy(answer, batch=True, game=GAME)


if __name__ == "__main__":
    main()
