#!/usr/bin/env python3
"""What a command solver's job costs beyond its program, and whether programs run in parallel.

    python3 scripts/bench/command_overhead.py [--sweep target/release/sweep] [--jobs 200] [--rounds 3]

Three measurements, each a whole `sweep run` timed from outside, printed as one table:

1. Overhead on 3x3k3: a spec of N jobs of a trivial program (`sh -c 'cp POLICY "$SWEEP_POLICY"'`,
   a fixed first-legal-move policy) run on one thread, against the same program started N times
   in a row from this script. The difference per job is what `sweep` adds: the spawn of the
   program's fence (`sweep __fence`, which ends every descendant) and the watchdog, the
   capture of its output, the job's working folder, the environment and
   parameters file, reading and checking the policy, and scoring it exactly against random.
   (The states file is written once per run; its cost is in the sweep's total.)
2. Overhead on 4x4g4: examples/agents/tabular_q.py with 1,000 episodes, as a job of `sweep`
   (one thread, 4 jobs) against the same program run directly with the same environment
   (the states file `sweep` wrote, the same seed), as a fraction of the program's own time.
3. Parallel programs: 4 jobs of a CPU-bound program (a Python loop of about 0.5 s) with
   `--threads 1` and `--threads 2`; the ratio of the walls.

Each measurement runs `--rounds` times, alternating, and the medians are printed with the
range. Needs python3 and the sweep binary; writes only under a temporary folder.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def states_file(sweep: str, game: str, seat: str, work: Path) -> Path:
    """The states file sweep gives a program of `seat` in `game`, copied out of the run's
    private folder by a probe program (which then fails: its run writes no result)."""
    copy = work / f"states-{game}-{seat}.csv"
    if copy.exists():
        return copy
    spec = work / f"probe-{game}-{seat}.toml"
    spec.write_text(
        f'name = "probe"\n[evaluation]\ncheckpoints = 1\n[[solver]]\nkind = "command"\nlabel = "probe"\ngame = "{game}"\nseat = "{seat}"\n'
        f'episodes = 1\ncommand = ["sh", "-c", "cp \\"$SWEEP_STATES\\" \\"$1\\"; exit 3", "sh", "{copy}"]\n'
    )
    out = work / f"probe-{game}-{seat}"
    subprocess.run([sweep, "run", str(spec), "--quiet", "--out", str(out)], capture_output=True)
    return copy


def first_legal_policy(sweep: str, game: str, seat: str, path: Path, work: Path) -> None:
    """Writes the first-legal-move policy of `seat` from the states file sweep gives."""
    states = states_file(sweep, game, seat, work)
    lines = ["board,action,seat,game"]
    for row in states.read_text().splitlines()[1:]:
        board, moves = row.split(",")
        lines.append(f"{board},{moves.split('|')[0]},{seat},{game}")
    path.write_text("\n".join(lines) + "\n")


def timed(args, env=None) -> float:
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def spec_text(name: str, command: str, game: str, episodes: int, replicates: int) -> str:
    return (
        f'name = "{name}"\nseed = 1\nreplicates = {replicates}\n[evaluation]\ncheckpoints = 1\n[[solver]]\n'
        f'kind = "command"\nlabel = "{name}"\ngame = "{game}"\nseat = "o"\nepisodes = {episodes}\n'
        f"command = {command}\n"
    )


def run_spec(sweep: str, spec: Path, out: Path, threads: int) -> float:
    subprocess.run(["rm", "-rf", str(out)], check=True)
    return timed([sweep, "run", str(spec), "--quiet", "--threads", str(threads), "--out", str(out)])


def eval_share(out: Path) -> float:
    """The mean over jobs of eval_ms / train_ms, in percent: sweep's reading and scoring of
    a program's policies against the program's own wall (measured in the same job)."""
    import csv

    seen = {}
    with open(out / "results.csv", newline="") as f:
        for row in csv.DictReader(f):
            seen.setdefault(row["job_id"], 100 * float(row["eval_ms"]) / float(row["train_ms"]))
    return statistics.mean(seen.values())


def job_ms(out: Path) -> list:
    """Each job's train_ms + eval_ms (the program's wall from its spawn to its exit, then
    sweep's reading and scoring of what it wrote), from the results."""
    import csv

    seen = {}
    with open(out / "results.csv", newline="") as f:
        for row in csv.DictReader(f):
            seen.setdefault(row["job_id"], float(row["train_ms"]) + float(row["eval_ms"]))
    return list(seen.values())


def summary(values):
    return f"{statistics.median(values):.4g} ({min(values):.4g}-{max(values):.4g})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sweep", default=str(ROOT / "target" / "release" / "sweep"))
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sweep = str(Path(args.sweep).resolve())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # 1. 3x3k3, a trivial program.
        policy = work / "first.csv"
        first_legal_policy(sweep, "3x3k3", "o", policy, work)
        command = f'["sh", "-c", "cp {policy} \\"$SWEEP_POLICY\\""]'
        spec = work / "tiny.toml"
        spec.write_text(spec_text("tiny", command, "3x3k3", 1, args.jobs))
        target = work / "copy.csv"
        env = dict(os.environ, SWEEP_POLICY=str(target))
        direct_args = ["sh", "-c", f'cp {policy} "$SWEEP_POLICY"']
        per_job, in_job, per_run = [], [], []
        for _ in range(args.rounds):
            per_job.append(run_spec(sweep, spec, work / "tiny", 1) / args.jobs * 1e3)
            in_job.append(statistics.mean(job_ms(work / "tiny")))
            start = time.perf_counter()
            for _ in range(args.jobs):
                subprocess.run(direct_args, check=True, env=env)
            per_run.append((time.perf_counter() - start) / args.jobs * 1e3)
        overhead = [a - b for a, b in zip(per_job, per_run)]
        rows.append(("3x3k3: the whole run's wall per job, ms", summary(per_job)))
        rows.append(("3x3k3: a job's train_ms + eval_ms, ms", summary(in_job)))
        rows.append(("3x3k3: the program alone (a shell's spawn included), ms", summary(per_run)))
        rows.append(("3x3k3: overhead per job, run wall per job - program, ms (target <= 5)", summary(overhead)))
        # 2. 4x4g4, the tabular Q-learning example with 1,000 episodes.
        agent = ROOT / "examples" / "agents" / "tabular_q.py"
        command = f'["{sys.executable}", "{agent}"]'
        spec = work / "gravity.toml"
        spec.write_text(spec_text("gravity", command, "4x4g4", 1000, 4))
        out = work / "gravity"
        walls, in_job, direct, scoring = [], [], [], []
        for _ in range(args.rounds):
            walls.append(run_spec(sweep, spec, out, 1) / 4)
            in_job.append(statistics.mean(job_ms(out)) / 1e3)
            scoring.append(eval_share(out))
            states = states_file(sweep, "4x4g4", "o", work)
            job = work / "direct"
            (job / "checkpoints").mkdir(parents=True, exist_ok=True)
            (job / "params.json").write_text(
                '{"job_id": "direct", "seed": 7, "game": "4x4g4", "seat": "o", "opponent": "random", '
                '"episodes": 1000, "checkpoints": [0, 1000], "params": {}}'
            )
            env = dict(
                os.environ,
                SWEEP_SEED="7",
                SWEEP_GAME="4x4g4",
                SWEEP_SEAT="o",
                SWEEP_OPPONENT="random",
                SWEEP_EPISODES="1000",
                SWEEP_JOB_ID="direct",
                SWEEP_PARAMS=str(job / "params.json"),
                SWEEP_POLICY=str(job / "policy.csv"),
                SWEEP_CHECKPOINTS=str(job / "checkpoints"),
                SWEEP_CHECKPOINT_EPISODES="0,1000",
                SWEEP_STATES=str(states),
                SWEEP_METRICS=str(job / "metrics.json"),
            )
            direct.append(
                statistics.mean(timed([sys.executable, str(agent)], env=env) for _ in range(4))
            )
        share = [100 * (j - d) / d for j, d in zip(in_job, direct)]
        whole = [100 * (w - d) / d for w, d in zip(walls, direct)]
        rows.append(("4x4g4, 1,000 episodes: the whole run's wall per job (4 jobs), s", summary(walls)))
        rows.append(("4x4g4, 1,000 episodes: a job's train_ms + eval_ms, s", summary(in_job)))
        rows.append(("4x4g4, 1,000 episodes: the program alone, s", summary(direct)))
        rows.append(("4x4g4: a job's overhead, % of the program (target <= 5)", summary(share)))
        rows.append(("4x4g4: the run's overhead per job with its once-per-run tables, %", summary(whole)))
        rows.append(("4x4g4: eval_ms / train_ms in one job (reading + scoring), %", summary(scoring)))
        # 3. Two CPU-bound programs at once.
        busy = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.5:\n    pass\n"
        (work / "busy.py").write_text(busy + 'open(__import__("os").environ["SWEEP_POLICY"], "w").write(open("%s").read())\n' % (work / "first.csv"))
        command = f'["{sys.executable}", "{work / "busy.py"}"]'
        spec = work / "busy.toml"
        spec.write_text(spec_text("busy", command, "3x3k3", 1, 4))
        ratios = []
        for _ in range(args.rounds):
            one = run_spec(sweep, spec, work / "busy1", 1)
            two = run_spec(sweep, spec, work / "busy2", 2)
            ratios.append(one / two)
        rows.append(("4 CPU-bound programs: wall --threads 1 / --threads 2 (target >= 1.8)", summary(ratios)))
    width = max(len(r[0]) for r in rows)
    print(f"{'measure'.ljust(width)}  median (min-max) over {args.rounds} rounds")
    for name, value in rows:
        print(f"{name.ljust(width)}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
