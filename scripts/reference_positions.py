#!/usr/bin/env python3
"""Generate tests/data/solved_positions.txt with the reference solver.

The positions come from random legal play (random.Random with a fixed seed, so the list
is the same on every run); only positions still in play (no win, board not full) are
kept. Each is solved by scripts/reference_solver.c, compiled here with `cc -O2` unless
--solver names a compiled binary. Within a set, positions are picked so that wins, draws
and losses of the side to move are mixed where the set allows it.

From the repository root:

    python3 scripts/reference_positions.py

(--jobs N runs N solver processes; --out PATH writes elsewhere; --solver PATH skips the
compilation.) Python 3 standard library only.
"""

import argparse
import concurrent.futures
import os
import random
import subprocess
import sys
import tempfile
import time

SEED = 20240611
DEFAULT_OUT = os.path.join("tests", "data", "solved_positions.txt")
SOLVER_SOURCE = os.path.join("scripts", "reference_solver.c")

# (game, number of positions, fewest stones, most stones, candidates per position at
# most, extra fixed lines). Fixed lines are solved and kept as they are.
SETS = [
    ("6x7g4", 20, 8, 13, 4, []),
    ("6x7g4", 150, 14, 34, 4, []),
    ("7x6g4", 30, 16, 34, 4, []),
    ("6x5g4", 40, 4, 20, 4, ["-"]),
    ("5x6g4", 40, 4, 20, 4, ["-"]),
    ("5x5g4", 40, 4, 20, 4, ["-"]),
    ("5x5k4", 40, 4, 16, 4, ["-"]),
    ("4x4k3", 9, 1, 6, 4, ["-"]),
    ("4x4g3", 9, 1, 8, 4, ["-"]),
    ("3x3k3", 9, 1, 6, 4, ["-"]),
]

# Connect Four after the first move, solved only with --openings (about 15 minutes each
# task on one core; 6 is the mirror image of 0 and is then found in the table). Known:
# the first player wins by opening in the centre column and loses by opening outside.
OPENINGS = [("6x7g4", ["3"]), ("6x7g4", ["0", "6"])]
OPENING_TABLE = ["--tt", "26"]  # 2^26 entries, 1 GiB per solver process


class Board:
    """A plain board for random play: 0 empty, 1 X, 2 O; cell = row*cols + col."""

    def __init__(self, game):
        kind = "g" if "g" in game else "k"
        dims, k = game.split(kind)
        rows, cols = dims.split("x")
        self.rows, self.cols, self.k = int(rows), int(cols), int(k)
        self.gravity = kind == "g"
        self.cells = [0] * (self.rows * self.cols)
        self.height = [0] * self.cols
        self.stones = 0

    def move_cell(self, move):
        if self.gravity:
            if self.height[move] >= self.rows:
                return None
            return (self.rows - 1 - self.height[move]) * self.cols + move
        return None if self.cells[move] else move

    def moves(self):
        n = self.cols if self.gravity else self.rows * self.cols
        return [m for m in range(n) if self.move_cell(m) is not None]

    def wins_at(self, cell, player):
        r0, c0 = divmod(cell, self.cols)
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            count = 1
            for sign in (1, -1):
                r, c = r0 + sign * dr, c0 + sign * dc
                while (0 <= r < self.rows and 0 <= c < self.cols
                       and self.cells[r * self.cols + c] == player):
                    count += 1
                    r, c = r + sign * dr, c + sign * dc
            if count >= self.k:
                return True
        return False

    def to_move(self):
        return 1 + self.stones % 2

    def play(self, move):
        cell = self.move_cell(move)
        self.cells[cell] = self.to_move()
        if self.gravity:
            self.height[move] += 1
        self.stones += 1

    def undo(self, move):
        if self.gravity:
            self.height[move] -= 1
            cell = (self.rows - 1 - self.height[move]) * self.cols + move
        else:
            cell = move
        self.cells[cell] = 0
        self.stones -= 1


def random_game(rng, game, stones):
    """Moves of a game of `stones` moves still in play, or None if play ended first.

    Each move is drawn uniformly from the legal moves that do not end the game; a player
    who can block an immediate win of the opponent does, and moves that hand the opponent
    an immediate win are avoided when there is another. This keeps more positions
    undecided than purely uniform play would, while still covering all sorts of them."""
    b = Board(game)
    moves = []
    for _ in range(stones):
        p = b.to_move()
        legal = [m for m in b.moves() if not b.wins_at(b.move_cell(m), p)]
        if b.stones + 1 == len(b.cells):
            return None
        if not legal:
            return None
        blocks = [m for m in legal if b.wins_at(b.move_cell(m), 3 - p)]
        if blocks:
            legal = blocks
        safe = []
        for m in legal:
            b.play(m)
            if not any(b.wins_at(b.move_cell(o), 3 - p) for o in b.moves()):
                safe.append(m)
            b.undo(m)
        m = rng.choice(safe or legal)
        b.play(m)
        moves.append(m)
    return moves


def moves_text(moves):
    return ",".join(map(str, moves)) if moves else "-"


def solve(solver, game, lines, options=()):
    """Solve `<game> <moves>` lines; returns {moves text: (value, plies)}."""
    if not lines:
        return {}
    text = "".join(f"{game} {m}\n" for m in lines)
    proc = subprocess.run([solver, *options], input=text, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"solver failed ({proc.returncode}): {proc.stderr.strip()}")
    out = {}
    for line in proc.stdout.splitlines():
        g, m, value, plies = line.split()
        out[m] = (int(value), int(plies))
    if len(out) != len(set(lines)):
        sys.exit(f"solver answered {len(out)} of {len(lines)} positions of {game}")
    return out


def candidates_of(index, spec):
    """Candidate positions of one set, from random games, one per board."""
    game, count, lo, hi, per_position, _ = spec
    rng = random.Random(f"{SEED}/{index}/{game}/{lo}-{hi}")
    seen = set()
    candidates = []
    limit = count * per_position
    attempts = 0
    while len(candidates) < limit and attempts < limit * 200:
        attempts += 1
        stones = rng.randint(lo, hi)
        moves = random_game(rng, game, stones)
        if moves is None:
            continue
        b = Board(game)
        for m in moves:
            b.play(m)
        key = tuple(b.cells)  # a transposition is the same position
        if key in seen:
            continue
        seen.add(key)
        candidates.append(moves_text(moves))
    return candidates


def pick(spec, candidates, solved):
    """`count` of the candidates in generation order, at most a third per value while
    the others last; then the fixed lines and the picked ones sorted by stones."""
    game, count, _, _, _, fixed = spec
    quota = -(-count // 3)
    taken = {1: 0, 0: 0, -1: 0}
    picked, rest = [], []
    for m in candidates:
        v = solved[m][0]
        if len(picked) < count and taken[v] < quota:
            picked.append(m)
            taken[v] += 1
        else:
            rest.append(m)
    for m in rest:
        if len(picked) >= count:
            break
        picked.append(m)
    picked.sort(key=lambda m: (m.count(",") + 1, m))
    return [f"{game} {m} {solved[m][0]} {solved[m][1]}" for m in fixed + picked]


def timed_solve(solver, game, lines, options=()):
    t0 = time.monotonic()
    return solve(solver, game, lines, options), time.monotonic() - t0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--solver", help="compiled reference solver (default: compile it)")
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"output file (default {DEFAULT_OUT})")
    parser.add_argument("--jobs", type=int, default=2, help="solver processes at once")
    parser.add_argument("--chunks", type=int, default=4,
                        help="solver tasks per set (default 4)")
    parser.add_argument("--openings", action="store_true",
                        help="also solve the Connect Four openings 3, 0 and 6 (slow)")
    args = parser.parse_args()

    tmp = None
    solver = args.solver
    if solver is None:
        tmp = tempfile.TemporaryDirectory()
        solver = os.path.join(tmp.name, "reference_solver")
        subprocess.run(["cc", "-O2", "-o", solver, SOLVER_SOURCE], check=True)
    solver = os.path.abspath(solver)

    t0 = time.monotonic()
    cands = [candidates_of(i, spec) for i, spec in enumerate(SETS)]
    # solver tasks: each set in chunks (so that one slow set can use every process)
    tasks = []
    for i, spec in enumerate(SETS):
        lines = spec[5] + cands[i]
        step = max(1, -(-len(lines) // args.chunks))
        for j in range(0, len(lines), step):
            tasks.append((i, spec[0], lines[j:j + step]))
    if args.openings:  # first, as they take longest
        tasks = [(None, game, lines) for game, lines in OPENINGS] + tasks
    solved = [dict() for _ in SETS]
    opening_solved = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(timed_solve, solver, g, lines,
                               OPENING_TABLE if i is None else ()): (i, g, lines)
                   for i, g, lines in tasks}
        for fut in concurrent.futures.as_completed(futures):
            i, game, lines = futures[fut]
            out, secs = fut.result()
            if i is None:
                for m in lines:
                    opening_solved[(game, m)] = out[m]
            else:
                solved[i].update(out)
            print(f"{game}: {len(lines)} positions solved in {secs:.1f} s", file=sys.stderr)
    results = [pick(spec, cands[i], solved[i]) for i, spec in enumerate(SETS)]
    opening_lines = []
    for game, lines in OPENINGS if args.openings else []:
        for m in lines:
            v, p = opening_solved[(game, m)]
            opening_lines.append(f"{game} {m} {v} {p}")
    elapsed = time.monotonic() - t0

    body = [line for lines in results for line in lines]
    if opening_lines:
        body = opening_lines + body
    header = [
        "# Solved positions of k-in-a-row games, from an independent reference solver",
        "# (scripts/reference_solver.c: plain-array negamax with alpha-beta and a",
        "# transposition table; see its header comment).",
        "# Regenerate from the repository root with:",
        "#     python3 scripts/reference_positions.py" + (" --openings" if args.openings else ""),
        f"# (random legal play with random.Random, fixed seed {SEED}; needs cc).",
        "# Line: <game> <moves> <value> <plies>",
        "#   game: <rows>x<cols>g<k> gravity (Connect-k, moves are columns) or",
        "#         <rows>x<cols>k<k> m,n,k-game (moves are cells, row*cols + col, row 0 on top);",
        "#         X moves first; k in a row (horizontal, vertical, diagonal) wins.",
        "#   moves: 0-based, comma separated; '-' is the empty board. Every position is in play.",
        "#   value: 1 the player to move wins, 0 draw, -1 loses, under perfect play.",
        "#   plies: plies to the end under perfect play, the winner winning as fast as",
        "#          possible and the loser losing as slowly as possible (a draw: empty cells).",
    ]
    if opening_lines:
        header.append("# The first lines are Connect Four after the first move (--openings).")
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(header + body) + "\n")
    counts = {}
    for line in body:
        game, _, value, _ = line.split()
        counts.setdefault(game, [0, 0, 0])[1 - int(value)] += 1
    for game, (w, d, l) in counts.items():
        print(f"{game}: {w + d + l} positions, win/draw/loss {w}/{d}/{l}", file=sys.stderr)
    print(f"wrote {args.out} ({len(body)} positions) in {elapsed:.1f} s", file=sys.stderr)
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
