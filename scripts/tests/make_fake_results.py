#!/usr/bin/env python3
"""Writes a synthetic but realistic results directory (results.csv, curves.csv,
manifest.json, and tables of sweep's compare and importance) in the layout of `sweep run`, so that the plotting scripts
can be tested without the binary.

Contents:
- policy-iteration, seat x, evaluated against random and minimax (regret 0);
- q-learning over alpha × gamma × epsilon_decay (3 × 3 × 3), 3 replicates, evaluated
  against random and minimax, with 10 checkpoints of regret falling with episodes;
- mcts over iterations × uct_c × opponent_model (4 × 4 × 2), 3 replicates;
- compare.csv and importance.csv in the layout of `sweep compare --csv` and `sweep
  importance --csv` for the q-learning blocks (made-up intervals, verdicts and shares);
- one failed q-learning job and one failed mcts job (status=failed, empty metrics; the
  q-learning one left a few checkpoints in curves.csv before it failed).

The numbers follow simple made-up laws with noise; they only look like real results.
Standard library only.

example:
  python3 scripts/tests/make_fake_results.py fake-results
"""

import argparse
import csv
import hashlib
import json
import math
import random
from pathlib import Path

PARAMS = ["seat", "opponent", "episodes", "alpha", "alpha_decay", "alpha_min", "gamma",
          "epsilon", "epsilon_decay", "epsilon_min", "q_init", "symmetry", "iterations",
          "uct_c", "opponent_model", "final_move"]
RESULTS = (["job_id", "solver", "replicate", "seed"] + PARAMS
           + ["eval_opponent", "value", "optimal_value", "regret", "p_win", "p_draw", "p_loss",
              "games", "wins", "draws", "losses", "states", "status", "error",
              "train_ms", "eval_ms", "label", "regret_auc", "solved_at"])
CURVES = ["job_id", "episode", "seat", "eval_opponent", "value", "regret",
          "p_win", "p_draw", "p_loss", "epsilon", "alpha"]
OPTIMAL = {"random": 191 / 192, "minimax": 0.0}
MASTER_SEED = 2026
REPLICATES = 3
EPISODES = 50_000
CHECKPOINTS = 10
GAMES = 1000


def job_id(key):
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def seed_of(replicate):
    return (MASTER_SEED * 0x9E3779B97F4A7C15 + replicate * 0xBF58476D1CE4E5B9) % 2**64


def outcome(opponent, regret, rng):
    """value, p_win, p_draw, p_loss and sampled wins/draws/losses for a given regret."""
    regret = min(max(regret, 0.0), 0.95)
    value = OPTIMAL[opponent] - regret
    if opponent == "minimax":  # it never loses: the agent draws or loses
        p_win, p_loss = 0.0, regret
    else:
        p_loss = 0.35 * regret
        p_win = value + p_loss
    p_draw = 1.0 - p_win - p_loss
    counts = [0, 0, 0]
    for _ in range(GAMES):
        u = rng.random()
        counts[0 if u < p_win else 1 if u < p_win + p_draw else 2] += 1
    return value, p_win, p_draw, p_loss, counts


def row(jid, solver, replicate, params, opponent, regret, rng, states, train_ms):
    value, p_win, p_draw, p_loss, (w, d, l) = outcome(opponent, regret, rng)
    r = dict.fromkeys(RESULTS, "")
    r.update(params)
    r.update(job_id=jid, solver=solver, replicate=replicate, seed=seed_of(replicate),
             eval_opponent=opponent, value=repr(value), optimal_value=repr(OPTIMAL[opponent]),
             regret=repr(OPTIMAL[opponent] - value), p_win=repr(p_win), p_draw=repr(p_draw),
             p_loss=repr(p_loss), games=GAMES, wins=w, draws=d, losses=l, states=states,
             status="ok", train_ms=train_ms, eval_ms=rng.randint(2, 9))
    return r


def failed_row(jid, solver, replicate, params, opponent, message):
    r = dict.fromkeys(RESULTS, "")
    r.update(params)
    r.update(job_id=jid, solver=solver, replicate=replicate, seed=seed_of(replicate),
             eval_opponent=opponent, status="failed", error=message)
    return r


def q_regret(opponent, alpha, gamma, decay, episode, replicate_shift, rng):
    """A made-up learning law: regret falls from about 0.6 towards a floor that depends
    on gamma and alpha, more slowly when exploration decays slowly or alpha is small."""
    floor = 0.02 + 0.25 * (1 - gamma) + 0.05 * abs(alpha - 0.25)
    if opponent == "minimax":
        floor *= 1.6
    scale = {0.999: 4000, 0.9995: 8000, 0.9999: 16000}.get(decay, 8000) * (1.3 - alpha)
    start = 0.55 if opponent == "random" else 0.8
    mean = floor + (start - floor) * math.exp(-episode / scale)
    return max(0.0, mean * (1 + replicate_shift) + rng.gauss(0, 0.004 + 0.02 * mean))


def q_learning(rng, results, curves):
    grid = [(a, g, d) for a in (0.1, 0.25, 0.5) for g in (0.9, 0.99, 1.0)
            for d in (0.999, 0.9995, 0.9999)]
    checkpoints = [round(k * EPISODES / CHECKPOINTS) for k in range(1, CHECKPOINTS + 1)]
    for index, (alpha, gamma, decay) in enumerate(grid):
        for rep in range(REPLICATES):
            params = {"seat": "x", "opponent": "random", "episodes": EPISODES,
                      "alpha": repr(alpha), "alpha_decay": "1.0", "alpha_min": "0.0",
                      "gamma": repr(gamma), "epsilon": "1.0", "epsilon_decay": repr(decay),
                      "epsilon_min": "0.05", "q_init": "0.0", "symmetry": "false"}
            jid = job_id(f"q-learning;{index};{rep}")
            if index == 4 and rep == 2:  # a job that dies after three checkpoints
                for opp in OPTIMAL:
                    results.append(failed_row(jid, "q-learning", rep, params, opp,
                                              "panicked at src/run/executor.rs:88: injected fault"))
                write_curve(jid, rng, curves, params, checkpoints[:3], rep)
                continue
            last = write_curve(jid, rng, curves, params, checkpoints, rep)
            for opp in OPTIMAL:
                r = row(jid, "q-learning", rep, params, opp, last[opp], rng,
                        states=rng.randint(2100, 2423), train_ms=rng.randint(700, 1400))
                auc = 2.5 * last[opp] + 0.02 * rng.random()  # made up: above the final regret
                results.append(dict(r, label="q-learning", regret_auc=repr(auc)))


def write_curve(jid, rng, curves, params, checkpoints, rep):
    """Appends the checkpoints of one job; returns its last regret per opponent."""
    alpha, gamma, decay = (float(params[k]) for k in ("alpha", "gamma", "epsilon_decay"))
    shift = (-0.08, 0.0, 0.08)[rep]
    last = {}
    for episode in checkpoints:
        eps = max(0.05, decay ** episode)
        for opp in OPTIMAL:
            regret = q_regret(opp, alpha, gamma, decay, episode, shift, rng)
            value, p_win, p_draw, p_loss, _ = outcome(opp, regret, rng)
            curves.append({"job_id": jid, "episode": episode, "seat": "x", "eval_opponent": opp,
                           "value": repr(value), "regret": repr(OPTIMAL[opp] - value),
                           "p_win": repr(p_win), "p_draw": repr(p_draw), "p_loss": repr(p_loss),
                           "epsilon": repr(eps), "alpha": repr(alpha)})
            last[opp] = OPTIMAL[opp] - value
    return last


def mcts(rng, results):
    grid = [(i, c, m) for i in (10, 100, 1000, 10000) for c in (0.5, 1.0, 1.414, 2.0)
            for m in ("adversarial", "random")]
    for index, (iters, c, model) in enumerate(grid):
        for rep in range(REPLICATES):
            params = {"seat": "x", "iterations": iters, "uct_c": repr(c),
                      "opponent_model": model, "final_move": "visits"}
            jid = job_id(f"mcts;{index};{rep}")
            if index == 9 and rep == 1:
                for opp in OPTIMAL:
                    results.append(failed_row(jid, "mcts", rep, params, opp,
                                              "search exceeded its memory budget"))
                continue
            for opp in OPTIMAL:
                fit = 1.0 if (model == "random") == (opp == "random") else 1.8
                base = 0.7 * fit / (1 + (iters / 40) ** 0.8) * (1 + 0.3 * abs(c - 1.2))
                regret = max(0.0, base * (1 + rng.gauss(0, 0.15)) + rng.gauss(0, 0.004))
                if iters >= 10000 and opp == "minimax" and model == "adversarial":
                    regret = 0.0
                results.append(row(jid, "mcts", rep, params, opp, regret, rng,
                                   states=rng.randint(50, 400), train_ms=iters // 40 + 1))


def exact(results, rng):
    params = {"seat": "x", "opponent": "random"}
    for opp in OPTIMAL:
        results.append(row(job_id("pi"), "policy-iteration", 0, params, opp, 0.0, rng,
                           states=2423, train_ms=14))


def compare_table(results):
    """Rows in the layout of `sweep compare --csv` for the q-learning blocks: each
    configuration's mean final regret against the best one; the interval and verdict
    follow a made-up law (not a paired test)."""
    blocks = {}
    for r in results:
        if r["solver"] == "q-learning" and r["status"] == "ok":
            key = (r["eval_opponent"], f"alpha={r['alpha']} gamma={r['gamma']} "
                                       f"epsilon_decay={r['epsilon_decay']}")
            blocks.setdefault(key[0], {}).setdefault(key[1], []).append(float(r["regret"]))
    rows = []
    for opp, configs in blocks.items():
        means = {c: sum(v) / len(v) for c, v in configs.items()}
        best = min(means.values())
        for c, m in sorted(means.items(), key=lambda kv: kv[1]):
            d = m - best
            half = 0.3 * d + 0.01
            verdict = ("baseline" if d == 0 else "worse" if d - half > 0
                       else "indistinguishable")
            rows.append({"solver": "q-learning", "seat": "x", "eval_opponent": opp,
                         "label": "q-learning", "configuration": c, "n": len(configs[c]),
                         "mean": f"{m:.6f}", "difference": f"{d:.6f}",
                         "ci_low": f"{d - half if d else 0:.6f}",
                         "ci_high": f"{d + half if d else 0:.6f}",
                         "p_t": "", "p_wilcoxon": "", "p_holm": "" if d == 0 else f"{min(1, 0.01 / d):.6f}",
                         "p_improve": "", "verdict": verdict})
    return rows


IMPORTANCE = {"alpha": 0.31, "gamma": 0.42, "epsilon_decay": 0.12, "alpha:gamma": 0.05,
              "alpha:epsilon_decay": 0.03, "gamma:epsilon_decay": 0.02}


def importance_table():
    """Rows in the layout of `sweep importance --csv`, with made-up shares."""
    return [{"solver": "q-learning", "seat": "x", "eval_opponent": opp, "term": t,
             "share": f"{share * (1.2 if opp == 'minimax' and ':' not in t else 1):.6f}"}
            for opp in OPTIMAL for t, share in IMPORTANCE.items()]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="example:\n  python3 scripts/tests/make_fake_results.py fake-results")
    p.add_argument("outdir", metavar="OUTDIR", help="directory to write (created if missing)")
    p.add_argument("--seed", type=int, default=7, help="seed of the made-up noise")
    args = p.parse_args()
    rng = random.Random(args.seed)
    results, curves = [], []
    exact(results, rng)
    q_learning(rng, results, curves)
    mcts(rng, results)
    out = Path(args.outdir)
    out.mkdir(parents=True, exist_ok=True)
    compare, importance = compare_table(results), importance_table()
    for name, columns, rows in (("results.csv", RESULTS, results), ("curves.csv", CURVES, curves),
                                ("compare.csv", list(compare[0]), compare),
                                ("importance.csv", list(importance[0]), importance)):
        with open(out / name, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
    failed = sum(r["status"] == "failed" for r in results)
    manifest = {"name": "fake", "tool": "sweep (synthetic results for tests)",
                "master_seed": MASTER_SEED, "jobs_done": len({r["job_id"] for r in results}),
                "rows": len(results), "failed_rows": failed}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {len(results)} result rows ({failed} failed) and {len(curves)} curve rows to {out}")


if __name__ == "__main__":
    main()
