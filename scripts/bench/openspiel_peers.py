#!/usr/bin/env python3
"""Measures OpenSpiel on the workloads that `sweep bench` measures.

Run by scripts/bench/peers.sh inside the virtual environment it creates (see
scripts/bench/README.md for what is measured and how it compares). Prints one
JSON object on stdout, or writes it to --out:

  {"figures": {"qlearning_episodes_per_s": {"median": .., "min": .., "max": .., ...},
               "mcts_empty_iterations_per_s": {...},
               "mcts_midgame_iterations_per_s": {...}},
   "extra": {...}, "settings": {...}, "environment": {...}}

Progress goes to stderr.
"""

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time

import numpy as np

from open_spiel.python import rl_environment
from open_spiel.python import rl_tools
from open_spiel.python.algorithms import random_agent
from open_spiel.python.algorithms import tabular_qlearner
import pyspiel

GAME = "tic_tac_toe"

# Q-learning settings, the same as `sweep bench`'s.
ALPHA = 0.5
GAMMA = 0.99
EPSILON_START = 1.0
EPSILON_DECAY = 0.9995
EPSILON_MIN = 0.05

# MCTS settings.
MCTS_SIMULATIONS = 10_000
MCTS_UCT_C = math.sqrt(2.0)
MCTS_MAX_MEMORY_MB = 1000  # far above what 10,000 simulations use: never collects
MIDGAME_ACTIONS = (4, 0, 2)  # X on 4, O on 0, X on 2: O to move


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def summary(values, wall=None, cpu=None, work=None):
    """median/min/max of per-repetition rates (work per wall-clock second).

    With the repetitions' wall and process CPU seconds, also the share of the
    wall time this process was on the CPU (well below 1 means the core was
    shared with other work) and the median rate per CPU second, which such
    sharing affects less.
    """
    result = {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "samples": list(values),
    }
    if wall is not None and cpu is not None:
        result["cpu_share"] = sum(cpu) / sum(wall)
        if work is not None and all(c > 0 for c in cpu):
            result["median_per_cpu_second"] = statistics.median([work / c for c in cpu])
    return result


class PerEpisodeExponentialSchedule(rl_tools.ValueSchedule):
    """Epsilon multiplied by `decay` once per episode, floored at `minimum`.

    OpenSpiel ships a constant and a linear schedule, both advanced by the
    learner on every learning update (each of its moves after the first, and
    the terminal step), not per episode. This schedule ignores the learner's
    per-update `step()` calls and is advanced by the training loop through
    `end_episode()`, called just before the learner sees the terminal time
    step; the learner reads the new value on that terminal update, so episode k
    (from 0) explores with max(minimum, start * decay**k).
    """

    def __init__(self, start, decay, minimum):
        super().__init__()
        self._value = start
        self._decay = decay
        self._minimum = minimum

    def step(self):
        return self._value

    def end_episode(self):
        self._value = max(self._minimum, self._value * self._decay)

    @property
    def value(self):
        return self._value


def train_qlearner(env, num_actions, episodes):
    """Trains a fresh learner (X) against the random agent (O).

    Returns (wall seconds, process CPU seconds, moves per episode, final epsilon).
    """
    schedule = PerEpisodeExponentialSchedule(EPSILON_START, EPSILON_DECAY, EPSILON_MIN)
    learner = tabular_qlearner.QLearner(
        player_id=0,
        num_actions=num_actions,
        step_size=ALPHA,
        epsilon_schedule=schedule,
        discount_factor=GAMMA,
    )
    opponent = random_agent.RandomAgent(player_id=1, num_actions=num_actions)
    agents = (learner, opponent)
    moves = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    for _ in range(episodes):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            output = agents[player].step(time_step)
            time_step = env.step([output.action])
            moves += 1
        schedule.end_episode()
        for agent in agents:
            agent.step(time_step)
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return elapsed, cpu, moves / episodes, schedule.value


def bench_qlearning(args):
    np.random.seed(args.seed)  # the learner and the random agent draw from numpy's global stream
    env = rl_environment.Environment(GAME)
    num_actions = env.action_spec()["num_actions"]

    elapsed, _, _, _ = train_qlearner(env, num_actions, args.q_warmup_episodes)
    log(f"  q-learning warm-up: {args.q_warmup_episodes} episodes in {elapsed:.2f} s")

    rates, walls, cpus, lengths = [], [], [], []
    budget_start = time.perf_counter()
    final_epsilon = None
    for rep in range(args.q_reps):
        elapsed, cpu, length, final_epsilon = train_qlearner(env, num_actions, args.q_episodes)
        lengths.append(length)
        rates.append(args.q_episodes / elapsed)
        walls.append(elapsed)
        cpus.append(cpu)
        log(f"  q-learning rep {rep + 1}: {args.q_episodes} episodes in {elapsed:.2f} s"
            f" = {rates[-1]:,.0f} episodes/s")
        spent = time.perf_counter() - budget_start
        if rep + 1 >= args.q_min_reps and spent + elapsed > args.q_budget:
            log(f"  q-learning: stopping after {rep + 1} repetitions (time budget {args.q_budget:.0f} s)")
            break
    result = summary(rates, walls, cpus, args.q_episodes)
    result["episodes_per_repetition"] = args.q_episodes
    result["final_epsilon"] = final_epsilon
    result["moves_per_episode"] = statistics.mean(lengths)
    log(f"  q-learning: median {result['median']:,.0f} episodes/s,"
        f" {result['moves_per_episode']:.2f} moves per episode, on CPU {100 * result['cpu_share']:.0f}% of the time"
        f" ({result['median_per_cpu_second']:,.0f} per CPU second)")
    return result


def state_after(game, actions):
    state = game.new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state


def make_bot(game, solve, seed):
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.MCTSBot(game, evaluator, MCTS_UCT_C, MCTS_SIMULATIONS,
                           MCTS_MAX_MEMORY_MB, solve, seed, False)


def bench_mcts_step(game, state, args, label):
    """Simulations per second of one MCTSBot.step(state), solver off."""
    bot = make_bot(game, solve=False, seed=args.seed)
    # With the solver off the search never stops early (the root is not
    # terminal and has more than one child), so every step runs exactly
    # MCTS_SIMULATIONS simulations; check it once, untimed.
    done = bot.mcts_search(state).explore_count
    if done != MCTS_SIMULATIONS:
        raise RuntimeError(f"{label}: expected {MCTS_SIMULATIONS} simulations, search ran {done}")
    for _ in range(args.mcts_warmup):
        bot.step(state)
    rates, walls, cpus = [], [], []
    for _ in range(args.mcts_reps):
        start = time.perf_counter()
        cpu_start = time.process_time()
        bot.step(state)
        elapsed = time.perf_counter() - start
        cpus.append(time.process_time() - cpu_start)
        walls.append(elapsed)
        rates.append(MCTS_SIMULATIONS / elapsed)
    result = summary(rates, walls, cpus, MCTS_SIMULATIONS)
    result["simulations_per_step"] = MCTS_SIMULATIONS
    log(f"  mcts {label}: median {result['median']:,.0f} simulations/s"
        f" (min {result['min']:,.0f}, max {result['max']:,.0f}, {args.mcts_reps} steps,"
        f" on CPU {100 * result['cpu_share']:.0f}% of the time,"
        f" {result['median_per_cpu_second']:,.0f} per CPU second)")
    return result


def bench_mcts_solver(game, state, args, label):
    """Same search with solve=True: stops once the root's value is proved."""
    bot = make_bot(game, solve=True, seed=args.seed)
    for _ in range(args.mcts_warmup):
        bot.mcts_search(state)
    rates, counts, seconds = [], [], []
    for _ in range(args.mcts_reps):
        start = time.perf_counter()
        root = bot.mcts_search(state)
        elapsed = time.perf_counter() - start
        counts.append(root.explore_count)
        seconds.append(elapsed)
        rates.append(root.explore_count / elapsed)
    result = summary(rates)
    result["simulations_run"] = {"median": statistics.median(counts), "min": min(counts), "max": max(counts)}
    result["seconds_per_search"] = statistics.median(seconds)
    log(f"  mcts {label} (solve=True): median {statistics.median(counts):.0f} of"
        f" {MCTS_SIMULATIONS} simulations run, {result['median']:,.0f} simulations/s")
    return result


def environment_info():
    affinity = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    try:
        from importlib import metadata
        version = metadata.version("open-spiel")
    except Exception:  # pragma: no cover - metadata missing
        version = "unknown"
    return {
        "open_spiel_version": version,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_affinity": affinity,
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", help="write the JSON here instead of stdout")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--q-episodes", type=int, default=10_000,
                   help="training episodes per timed repetition (each repetition trains a fresh learner)")
    p.add_argument("--q-warmup-episodes", type=int, default=2_000)
    p.add_argument("--q-reps", type=int, default=7)
    p.add_argument("--q-min-reps", type=int, default=3)
    p.add_argument("--q-budget", type=float, default=25.0,
                   help="seconds: stop timed repetitions (after --q-min-reps) before passing this")
    p.add_argument("--mcts-reps", type=int, default=21)
    p.add_argument("--mcts-warmup", type=int, default=3)
    p.add_argument("--skip-solver", action="store_true", help="skip the extra solve=True figures")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    info = environment_info()
    log(f"OpenSpiel {info['open_spiel_version']}, Python {info['python']}, CPUs {info['cpu_affinity']}")

    log("(a) tabular Q-learner (X) vs random agent (O)")
    qlearning = bench_qlearning(args)

    game = pyspiel.load_game(GAME)
    empty = game.new_initial_state()
    midgame = state_after(game, MIDGAME_ACTIONS)
    log(f"(b) MCTSBot, {MCTS_SIMULATIONS} simulations, uct_c = sqrt(2), random rollout evaluator (1 rollout)")
    mcts_empty = bench_mcts_step(game, empty, args, "empty board")
    mcts_mid = bench_mcts_step(game, midgame, args, "mid-game")
    extra = {}
    if not args.skip_solver:
        extra["mcts_empty_solver_iterations_per_s"] = bench_mcts_solver(game, empty, args, "empty board")
        extra["mcts_midgame_solver_iterations_per_s"] = bench_mcts_solver(game, midgame, args, "mid-game")

    report = {
        "figures": {
            "qlearning_episodes_per_s": qlearning,
            "mcts_empty_iterations_per_s": mcts_empty,
            "mcts_midgame_iterations_per_s": mcts_mid,
        },
        "extra": extra,
        "settings": {
            "game": GAME,
            "seed": args.seed,
            "qlearning": {
                "learner": "open_spiel.python.algorithms.tabular_qlearner.QLearner, player 0 (X)",
                "opponent": "open_spiel.python.algorithms.random_agent.RandomAgent, player 1 (O)",
                "environment": "open_spiel.python.rl_environment.Environment('tic_tac_toe')",
                "step_size": ALPHA,
                "discount_factor": GAMMA,
                "epsilon": f"{EPSILON_START} * {EPSILON_DECAY}**episode, floored at {EPSILON_MIN}"
                           " (custom per-episode schedule object)",
                "episodes_per_repetition": args.q_episodes,
                "warmup_episodes": args.q_warmup_episodes,
            },
            "mcts": {
                "bot": "pyspiel.MCTSBot (C++)",
                "evaluator": "pyspiel.RandomRolloutEvaluator(n_rollouts=1)",
                "uct_c": MCTS_UCT_C,
                "max_simulations": MCTS_SIMULATIONS,
                "max_memory_mb": MCTS_MAX_MEMORY_MB,
                "solve": False,
                "child_selection_policy": "UCT",
                "timed_call": "bot.step(state)",
                "midgame_actions": list(MIDGAME_ACTIONS),
                "warmup_steps": args.mcts_warmup,
                "repetitions": args.mcts_reps,
            },
        },
        "environment": info,
    }
    text = json.dumps(report, indent=2)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
