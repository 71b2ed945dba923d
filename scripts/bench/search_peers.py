#!/usr/bin/env python3
"""sweep's TPE search against random search and against Optuna's TPE, on one spec.

    python3 scripts/bench/search_peers.py [--seeds 10] [--trials 48] [--random-trials 192]
        [--spec experiments/search-tpe.toml] [--out results/search-peers]
        [--sweep target/release/sweep] [--threads 2]

Needs Python 3.11+ (tomllib), `optuna` and `matplotlib` (`pip install optuna matplotlib`)
and the sweep binary (by default target/release/sweep of this repository, built with
`cargo build --release` if missing). With the defaults it takes about a minute on 2 cores.

What it measures. The spec (by default experiments/search-tpe.toml: Q-learning as O
against random on tic-tac-toe, four sampled axes, 4 replicates per trial, 48 trials and a
[test] table) defines a search space, an objective (the mean regret of a configuration
over its tuning replicates) and a budget. For each master seed S = 1..--seeds, three
searches spend that budget, all on the same tuning seeds (they depend only on S and the
replicate) and tested on the same fresh seeds:

  sweep-tpe     the spec itself with `seed = S` (only that line changes). A trial's score
                is the mean regret of its tune rows; trials are taken in `trial` order.
  sweep-random  the spec with `seed = S`, its [search] table removed and
                `samples = --random-trials`, `sampler = "random"` added to the [[solver]]
                table. Each sampled point is a trial, in draw order (the order in which
                the points first appear among the tune rows), so the first k points are a
                random search of k trials. The draws are prefix-stable, so the same spec
                with `samples = --trials` runs the first --trials points of it; that run
                supplies the [test] result of random search at --trials.
  optuna-tpe    optuna.samplers.TPESampler(seed=S, multivariate=True), one worker,
                --trials trials (Optuna's default startup of 10 random trials). Each
                trial runs sweep on one configuration: the spec with `seed = S`, no
                [search], no [test] and the sampled axes fixed to Optuna's suggestions
                (suggest_float, log=True for loguniform axes). Its objective is the mean
                regret of the rows. The best trial's configuration is then run once more
                with the spec's [test] table, for its regret on the fresh seeds.

Written to --out:

  best_so_far.csv  method,seed,trials,best_score: the lowest trial score among the first
                   `trials` trials (random search out to --random-trials).
  test.csv         method,seed,trials,test_regret,test_ci95: the chosen configuration's
                   mean regret over its [test] rows (fresh seeds) and the half-width of
                   the 95% t-interval over those replicates; for sweep-tpe and optuna-tpe
                   at --trials and sweep-random at --trials and --random-trials.
  best_so_far.png  the median over the seeds of the best score so far against trials,
                   one faint line per seed.
  specs/seed-S/    every spec it ran; runs/seed-S/ every results directory (one per
                   sweep run; an Optuna trial's run is removed once read, and
                   runs/seed-S/optuna-trials.csv keeps each trial's parameters and score).

It prints the medians over the seeds of the best score so far at a few trial counts and
of the test regrets, and two checks: whether sweep's TPE at --trials has a median test
regret no higher than random search at --trials, and no higher than random search at
--random-trials plus that one's median 95% half-width.
"""

import argparse
import csv
import importlib.util
import math
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

METHODS = ("sweep-tpe", "sweep-random", "optuna-tpe")
COLORS = {"sweep-tpe": "#1f77b4", "sweep-random": "#7f7f7f", "optuna-tpe": "#d62728"}
# The sampled axis forms this script can hand to Optuna, and whether each is logarithmic.
AXIS_FORMS = {"uniform": False, "loguniform": True}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --- Spec text -------------------------------------------------------------------------
#
# The generated specs are the original text with a few lines changed, so that its comments
# and layout stay and a diff shows exactly what differs.

HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?\s*(#.*)?$")


def split_tables(text: str) -> list[tuple[str | None, list[str]]]:
    """The spec's lines cut at each table header: (None, top-level lines) first, then
    (table name, lines starting with its header) for each table in order."""
    tables: list[tuple[str | None, list[str]]] = [(None, [])]
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            tables.append((m.group(1), [line]))
        else:
            tables[-1][1].append(line)
    return tables


def join_tables(tables: list[tuple[str | None, list[str]]]) -> str:
    return "\n".join(line for _, lines in tables for line in lines) + "\n"


def set_key(lines: list[str], key: str, value: str) -> None:
    """Replaces the line `key = ...` of one table (it must be there exactly once)."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    hits = [i for i, line in enumerate(lines) if pattern.match(line)]
    if len(hits) != 1:
        sys.exit(f"search_peers: expected one `{key} = ...` line, found {len(hits)}")
    lines[hits[0]] = f"{key} = {value}"


def solver_lines(tables: list[tuple[str | None, list[str]]]) -> list[str]:
    solvers = [lines for name, lines in tables if name == "solver"]
    if len(solvers) != 1:
        sys.exit(f"search_peers: the spec must have exactly one [[solver]], not {len(solvers)}")
    return solvers[0]


def tpe_spec(text: str, seed: int, trials: int, spec_trials: int) -> str:
    """The spec with `seed = S` (and [search] trials = --trials if that differs)."""
    tables = split_tables(text)
    set_key(tables[0][1], "seed", str(seed))
    if trials != spec_trials:
        search = [lines for name, lines in tables if name == "search"][0]
        set_key(search, "trials", str(trials))
    return join_tables(tables)


def random_spec(text: str, seed: int, samples: int) -> str:
    """The spec with `seed = S`, without [search], drawing `samples` random points."""
    tables = [t for t in split_tables(text) if t[0] != "search"]
    set_key(tables[0][1], "seed", str(seed))
    solver_lines(tables).insert(1, f'samples = {samples}\nsampler = "random"')
    return join_tables(tables)


def fixed_spec(text: str, seed: int, values: dict[str, float], with_test: bool) -> str:
    """The spec with `seed = S`, without [search] (and without [test] unless `with_test`),
    each sampled axis fixed to `values[axis]`."""
    drop = {"search"} if with_test else {"search", "test"}
    tables = [t for t in split_tables(text) if t[0] not in drop]
    set_key(tables[0][1], "seed", str(seed))
    lines = solver_lines(tables)
    for name, value in values.items():
        set_key(lines, name, repr(float(value)))
    return join_tables(tables)


def sampled_axes(spec: dict) -> dict[str, tuple[float, float, bool]]:
    """The solver's sampled axes, in spec order: name -> (low, high, log)."""
    axes = {}
    for name, value in spec["solver"][0].items():
        if isinstance(value, dict):
            if len(value) != 1 or next(iter(value)) not in AXIS_FORMS:
                sys.exit(f"search_peers: axis {name} = {value}: only {sorted(AXIS_FORMS)} are supported")
            form, (low, high) = next(iter(value.items()))
            axes[name] = (float(low), float(high), AXIS_FORMS[form])
        elif isinstance(value, list):
            sys.exit(f"search_peers: {name} is a grid axis; the spec must sample every axis")
    if not axes:
        sys.exit("search_peers: the spec's solver has no sampled axis")
    return axes


# --- Running sweep and reading its rows ------------------------------------------------


def run_sweep(sweep: Path, spec: Path, out: Path, threads: int) -> float:
    """Runs one spec into a fresh `out`; returns the wall time. Exits with sweep's own
    message if it refuses the spec or a job fails."""
    if out.exists():
        shutil.rmtree(out)
    cmd = [str(sweep), "run", str(spec), "--out", str(out), "--threads", str(threads), "--quiet"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(
            f"search_peers: `{' '.join(cmd)}` exited with {proc.returncode}:\n"
            f"{proc.stderr.strip() or proc.stdout.strip()}"
        )
    return wall


def read_rows(out: Path) -> list[dict[str, str]]:
    with open(out / "results.csv", newline="") as f:
        return list(csv.DictReader(f))


def mean_regret(rows: list[dict[str, str]]) -> float:
    """A configuration's score: the mean regret of its rows, +inf if any job failed (as
    sweep ranks it)."""
    if not rows or any(r["status"] != "ok" or r["regret"] == "" for r in rows):
        return math.inf
    return statistics.fmean(float(r["regret"]) for r in rows)


def config_key(row: dict[str, str], axes) -> tuple[str, ...]:
    return tuple(row[name] for name in axes)


def tpe_trial_scores(rows, trials: int) -> list[float]:
    """Scores of a sweep TPE run's trials, in trial order."""
    by_trial: dict[int, list] = {}
    for r in rows:
        if r["split"] == "tune":
            by_trial.setdefault(int(r["trial"]), []).append(r)
    if sorted(by_trial) != list(range(trials)):
        sys.exit(f"search_peers: expected trials 0..{trials - 1}, found {sorted(by_trial)}")
    return [mean_regret(by_trial[t]) for t in range(trials)]


def point_scores(rows, axes) -> tuple[list[tuple], list[float]]:
    """The grid points of a sampled run in draw order (first appearance among the tune
    rows) and their scores."""
    by_point: dict[tuple, list] = {}
    for r in rows:
        if r["split"] == "tune":
            by_point.setdefault(config_key(r, axes), []).append(r)
    return list(by_point), [mean_regret(v) for v in by_point.values()]


def test_result(rows, axes) -> tuple[tuple, float, float]:
    """The tested configuration, its mean test regret and the 95% t half-width."""
    tests = [r for r in rows if r["split"] == "test"]
    configs = {config_key(r, axes) for r in tests}
    if len(configs) != 1:
        sys.exit(f"search_peers: expected the test rows of one configuration, found {len(configs)}")
    regrets = [float(r["regret"]) for r in tests]
    return configs.pop(), statistics.fmean(regrets), ci95_half_width(regrets)


def running_min(scores: list[float]) -> list[float]:
    out, best = [], math.inf
    for s in scores:
        best = min(best, s)
        out.append(best)
    return out


# --- Student's t -----------------------------------------------------------------------


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for num in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    if x <= 0.0 or x >= 1.0:
        return max(0.0, min(1.0, x))
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_quantile(p: float, df: int) -> float:
    """The p quantile (p > 0.5) of Student's t with df degrees of freedom, by bisection."""

    def upper_tail(t: float) -> float:
        return 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))

    lo, hi = 0.0, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if upper_tail(mid) > 1.0 - p else (lo, mid)
    return (lo + hi) / 2.0


def ci95_half_width(values: list[float]) -> float:
    if len(values) < 2:
        return math.nan
    return t_quantile(0.975, len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))


# --- The three searches ----------------------------------------------------------------


class Seed:
    """Runs the three searches for one master seed; keeps their curves and test results."""

    def __init__(self, args, text: str, spec: dict, axes, seed: int):
        self.args, self.text, self.spec, self.axes, self.seed = args, text, spec, axes, seed
        self.specs = args.out / "specs" / f"seed-{seed}"
        self.runs = args.out / "runs" / f"seed-{seed}"
        self.specs.mkdir(parents=True, exist_ok=True)
        self.runs.mkdir(parents=True, exist_ok=True)
        self.curves: dict[str, list[float]] = {}
        self.tests: list[tuple[str, int, float, float]] = []  # method, trials, mean, ci95
        self.walls: dict[str, float] = {}

    def run(self, name: str, spec_text: str) -> list[dict[str, str]]:
        path = self.specs / f"{name}.toml"
        path.write_text(spec_text)
        tomllib.loads(spec_text)  # a malformed edit fails here, not inside sweep
        self.walls[name] = run_sweep(self.args.sweep, path, self.runs / name, self.args.threads)
        return read_rows(self.runs / name)

    def sweep_tpe(self) -> None:
        trials = self.args.trials
        spec_trials = self.spec["search"]["trials"]
        rows = self.run("sweep-tpe", tpe_spec(self.text, self.seed, trials, spec_trials))
        scores = tpe_trial_scores(rows, trials)
        self.curves["sweep-tpe"] = running_min(scores)
        config, mean, ci = test_result(rows, self.axes)
        self.tests.append(("sweep-tpe", trials, mean, ci))
        self.check_choice("sweep-tpe", rows, config, scores)

    def sweep_random(self) -> None:
        many, few = self.args.random_trials, self.args.trials
        rows = self.run(f"sweep-random-{many}", random_spec(self.text, self.seed, many))
        points, scores = point_scores(rows, self.axes)
        if len(points) != many:
            sys.exit(f"search_peers: {many} samples gave {len(points)} distinct points")
        self.curves["sweep-random"] = running_min(scores)
        config, mean, ci = test_result(rows, self.axes)
        self.check_choice(f"sweep-random-{many}", rows, config, scores, points)
        self.tests.append(("sweep-random", many, mean, ci))

        rows_few = self.run(f"sweep-random-{few}", random_spec(self.text, self.seed, few))
        points_few, scores_few = point_scores(rows_few, self.axes)
        if points_few != points[:few] or scores_few != scores[:few]:
            log(f"warning: seed {self.seed}: samples = {few} is not the prefix of samples = {many}")
        config, mean, ci = test_result(rows_few, self.axes)
        self.check_choice(f"sweep-random-{few}", rows_few, config, scores_few, points_few)
        self.tests.append(("sweep-random", few, mean, ci))

    def check_choice(self, name, rows, config, scores, points=None) -> None:
        """Warns if the tested configuration is not the best-scoring trial."""
        if points is None:
            by_trial = {int(r["trial"]): config_key(r, self.axes) for r in rows if r["split"] == "tune"}
            points = [by_trial[t] for t in range(len(scores))]
        best = points[scores.index(min(scores))]
        if best != config:
            log(f"warning: seed {self.seed}: {name} tested {config}, the best trial is {best}")

    def optuna_tpe(self) -> None:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
        sampler = optuna.samplers.TPESampler(seed=self.seed, multivariate=True)
        study = optuna.create_study(direction="minimize", sampler=sampler)
        start = time.perf_counter()
        with tempfile.TemporaryDirectory(dir=self.runs, prefix="optuna-") as tmp:
            work = Path(tmp)

            def objective(trial: "optuna.Trial") -> float:
                values = {
                    name: trial.suggest_float(name, low, high, log=is_log)
                    for name, (low, high, is_log) in self.axes.items()
                }
                spec_path = work / "trial.toml"
                spec_path.write_text(fixed_spec(self.text, self.seed, values, with_test=False))
                run_sweep(self.args.sweep, spec_path, work / "run", self.args.threads)
                return mean_regret(read_rows(work / "run"))

            study.optimize(objective, n_trials=self.args.trials, n_jobs=1)
        self.walls["optuna-tpe"] = time.perf_counter() - start

        trials = sorted(study.trials, key=lambda t: t.number)
        with open(self.runs / "optuna-trials.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["trial", *self.axes, "score"])
            for t in trials:
                w.writerow([t.number, *(t.params[name] for name in self.axes), t.value])
        self.curves["optuna-tpe"] = running_min([t.value for t in trials])

        best = study.best_trial
        rows = self.run("optuna-test", fixed_spec(self.text, self.seed, best.params, with_test=True))
        tune = mean_regret([r for r in rows if r["split"] == "tune"])
        if not math.isclose(tune, best.value, rel_tol=1e-12, abs_tol=1e-15):
            log(f"warning: seed {self.seed}: Optuna's best scored {best.value}, its re-run {tune}")
        _, mean, ci = test_result(rows, self.axes)
        self.tests.append(("optuna-tpe", self.args.trials, mean, ci))


# --- Output ----------------------------------------------------------------------------


def write_csvs(out: Path, seeds: list[Seed]) -> None:
    with open(out / "best_so_far.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["method", "seed", "trials", "best_score"])
        for method in METHODS:
            for s in seeds:
                for k, score in enumerate(s.curves[method], start=1):
                    w.writerow([method, s.seed, k, repr(score)])
    with open(out / "test.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["method", "seed", "trials", "test_regret", "test_ci95"])
        for method, trials in test_keys(seeds):
            for s in seeds:
                for m, k, mean, ci in s.tests:
                    if (m, k) == (method, trials):
                        w.writerow([method, s.seed, trials, repr(mean), repr(ci)])


def test_keys(seeds: list[Seed]) -> list[tuple[str, int]]:
    keys = {(m, k) for s in seeds for m, k, _, _ in s.tests}
    return sorted(keys, key=lambda mk: (METHODS.index(mk[0]), mk[1]))


def median_curve(seeds: list[Seed], method: str) -> list[float]:
    length = len(seeds[0].curves[method])
    return [statistics.median(s.curves[method][k] for s in seeds) for k in range(length)]


def report(args, seeds: list[Seed]) -> bool:
    """Prints the medians and the checks; returns whether both checks pass."""
    n = len(seeds)
    points = sorted({16, 24, 32, args.trials, args.random_trials})
    print(f"\nMedian over {n} seeds of the best trial score so far (mean tune regret):")
    print(f"{'method':<14}" + "".join(f"{k:>10}" for k in points))
    for method in METHODS:
        curve = median_curve(seeds, method)
        cells = [f"{curve[k - 1]:>10.5f}" if k <= len(curve) else f"{'-':>10}" for k in points]
        print(f"{method:<14}" + "".join(cells))

    print(f"\nTest regret of the chosen configuration on fresh seeds, median over {n} seeds:")
    print(f"{'method':<14}{'trials':>7}{'test_regret':>13}{'ci95':>10}")
    medians = {}
    for method, trials in test_keys(seeds):
        vals = [(mean, ci) for s in seeds for m, k, mean, ci in s.tests if (m, k) == (method, trials)]
        med = statistics.median(v[0] for v in vals)
        med_ci = statistics.median(v[1] for v in vals)
        medians[(method, trials)] = (med, med_ci)
        print(f"{method:<14}{trials:>7}{med:>13.5f}{med_ci:>10.5f}")

    tpe = medians[("sweep-tpe", args.trials)][0]
    rand_few = medians[("sweep-random", args.trials)][0]
    rand_many, rand_many_ci = medians[("sweep-random", args.random_trials)]
    check1 = tpe <= rand_few
    check2 = tpe <= rand_many + rand_many_ci
    print("\nChecks:")
    print(
        f"  TPE median test regret at {args.trials} <= random-{args.trials} median: "
        f"{tpe:.5f} <= {rand_few:.5f}: {'yes' if check1 else 'no'}"
    )
    print(
        f"  TPE median <= random-{args.random_trials} median + its median ci95: "
        f"{tpe:.5f} <= {rand_many:.5f} + {rand_many_ci:.5f} = {rand_many + rand_many_ci:.5f}: "
        f"{'yes' if check2 else 'no'}"
    )
    return check1 and check2


def plot(args, seeds: list[Seed], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FormatStrFormatter, LogLocator

    labels = {
        "sweep-tpe": "sweep TPE",
        "sweep-random": "sweep random search",
        "optuna-tpe": "Optuna TPE (multivariate)",
    }
    fig, ax = plt.subplots(figsize=(8, 5), dpi=130)
    # Drawn with the random search at the bottom; listed in METHODS order in the legend.
    handles = {}
    for method in ("sweep-random", "optuna-tpe", "sweep-tpe"):
        color = COLORS[method]
        for s in seeds:
            curve = s.curves[method]
            ax.step(range(1, len(curve) + 1), curve, where="post", color=color, alpha=0.2, lw=0.8)
        curve = median_curve(seeds, method)
        (handles[method],) = ax.step(range(1, len(curve) + 1), curve, where="post", color=color,
                                     lw=2.2, label=f"{labels[method]}, median")
    ax.axvline(args.trials, color="black", ls=":", lw=1)
    ax.text(args.trials, 0.98, f"{args.trials} trials ", transform=ax.get_xaxis_transform(),
            va="top", ha="right", fontsize=9)
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0)))
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(FormatStrFormatter(""))
    # Log x: the first trials, where the searches differ most, get room, and the random
    # search's tail still shows.
    ax.set_xscale("log")
    ax.set_xlim(1, args.random_trials)
    ticks = [t for t in (1, 2, 4, 8, 16, 32, 48, 64, 128, args.random_trials) if t <= args.random_trials]
    ax.set_xticks(sorted(set(ticks)))
    ax.xaxis.set_major_formatter(FormatStrFormatter("%d"))
    ax.xaxis.set_minor_formatter(FormatStrFormatter(""))
    ax.set_xlabel("trials (configurations evaluated, each on the same tuning seeds; log scale)")
    ax.set_ylabel("best mean tuning regret so far (log scale)")
    ax.set_title(
        f"{args.spec.stem}: best score so far, median of {len(seeds)} seeds (faint: each seed)",
        fontsize=10,
    )
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(handles=[handles[m] for m in METHODS], loc="lower left", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# --- Main ------------------------------------------------------------------------------


def find_sweep(arg: Path | None) -> Path:
    if arg is not None:
        if not arg.is_file():
            sys.exit(f"search_peers: no sweep binary at {arg}")
        return arg.resolve()
    default = ROOT / "target" / "release" / "sweep"
    if not default.is_file():
        log("building sweep: cargo build --release")
        subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
    return default


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", type=int, default=10, help="master seeds 1..N (default 10)")
    p.add_argument("--trials", type=int, default=48, help="trials of TPE and Optuna (default 48)")
    p.add_argument("--random-trials", type=int, default=192, help="random search points (default 192)")
    p.add_argument("--spec", type=Path, default=ROOT / "experiments" / "search-tpe.toml")
    p.add_argument("--out", type=Path, default=ROOT / "results" / "search-peers")
    p.add_argument("--sweep", type=Path, default=None,
                   help="sweep binary (default: target/release/sweep, built if missing)")
    p.add_argument("--threads", type=int, default=2, help="sweep's --threads (default 2)")
    args = p.parse_args()
    if args.random_trials < args.trials:
        p.error("--random-trials must be at least --trials")
    missing = [m for m in ("optuna", "matplotlib") if importlib.util.find_spec(m) is None]
    if missing:
        sys.exit(f"search_peers: missing {', '.join(missing)}; `pip install optuna matplotlib`")

    args.sweep = find_sweep(args.sweep)
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    text = args.spec.read_text()
    spec = tomllib.loads(text)
    axes = sampled_axes(spec)
    for table in ("search", "test"):
        if table not in spec:
            sys.exit(f"search_peers: the spec has no [{table}] table")

    start = time.perf_counter()
    seeds = []
    for seed in range(1, args.seeds + 1):
        s = Seed(args, text, spec, axes, seed)
        s.sweep_tpe()
        s.sweep_random()
        s.optuna_tpe()
        walls = ", ".join(f"{k} {v:.2f} s" for k, v in s.walls.items())
        log(f"seed {seed}: {walls}")
        seeds.append(s)

    write_csvs(args.out, seeds)
    plot(args, seeds, args.out / "best_so_far.png")
    report(args, seeds)
    total = time.perf_counter() - start
    print(f"\nwall time {total:.1f} s; wrote {args.out / 'best_so_far.csv'}, "
          f"{args.out / 'test.csv'}, {args.out / 'best_so_far.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
