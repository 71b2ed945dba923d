"""The example agents (examples/agents/), run as sweep runs them: one process per job,
the job in environment variables, files written back."""

import csv
import filecmp
import json
import os
import subprocess
import sys

import pytest

from conftest import PYTHON, ROOT
from reference import RefGame, expectimax, policy_value, random_opponent, start_value
from sweep_agents.job import prepare_job, read_policy, read_states

AGENTS = ROOT / "examples" / "agents"


def run_agent(
    name,
    folder,
    game,
    seat="x",
    opponent="random",
    episodes=2000,
    seed=1,
    params=None,
    checkpoints=(),
    extra=None,
):
    env = prepare_job(str(folder), game, seat, opponent, episodes, seed, params or {}, checkpoints)
    full = dict(os.environ)
    full["PYTHONPATH"] = str(PYTHON)  # this tree's package, even when another copy is installed
    full.update(env)
    full.update(extra or {})
    r = subprocess.run(
        [sys.executable, str(AGENTS / f"{name}.py")],
        env=full,
        cwd=str(folder),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    return env


def check_policy(path, states_path, game):
    """Every state of the states file has one legal move in the policy."""
    states = read_states(states_path, game)
    policy = read_policy(path, game)
    assert set(policy) == {s.text for s in states}
    for s in states:
        assert policy[s.text] in s.moves, s.text
    return policy


@pytest.mark.parametrize("agent", ["tabular_q", "linear_q"])
@pytest.mark.parametrize(
    "game,seat,opponent",
    [
        ("3x3k3", "x", "random"),
        ("3x3k3", "o", "minimax-uniform"),
        ("3x3g3", "both", "self"),
        ("4x4g4", "x", "random"),
    ],
)
def test_agents_write_complete_policies(tmp_path, agent, game, seat, opponent):
    env = run_agent(agent, tmp_path / "a", game, seat, opponent, episodes=600, checkpoints=[1, 300, 600])
    check_policy(env["SWEEP_POLICY"], env["SWEEP_STATES"], game)
    assert sorted(os.listdir(env["SWEEP_CHECKPOINTS"])) == ["1.csv", "300.csv", "600.csv"]
    for c in ["1", "300", "600"]:
        check_policy(os.path.join(env["SWEEP_CHECKPOINTS"], c + ".csv"), env["SWEEP_STATES"], game)
    assert filecmp.cmp(os.path.join(env["SWEEP_CHECKPOINTS"], "600.csv"), env["SWEEP_POLICY"], shallow=False)
    with open(env["SWEEP_METRICS"]) as f:
        metrics = json.load(f)
    assert all(isinstance(v, (int, float)) for v in metrics.values())
    assert ("table_entries" if agent == "tabular_q" else "weights") in metrics


@pytest.mark.parametrize("agent", ["tabular_q", "linear_q"])
def test_agents_are_deterministic_for_a_seed(tmp_path, agent):
    a = run_agent(agent, tmp_path / "a", "3x3k3", "o", episodes=1500, seed=5)
    b = run_agent(agent, tmp_path / "b", "3x3k3", "o", episodes=1500, seed=5)
    c = run_agent(agent, tmp_path / "c", "3x3k3", "o", episodes=1500, seed=6)
    assert filecmp.cmp(a["SWEEP_POLICY"], b["SWEEP_POLICY"], shallow=False)
    assert not filecmp.cmp(a["SWEEP_POLICY"], c["SWEEP_POLICY"], shallow=False)


@pytest.mark.parametrize(
    "agent,params,episodes,most_regret",
    [
        ("tabular_q", {"discount": 0.99, "eps_decay": 0.9995}, 20000, 0.05),
        ("linear_q", {"discount": 0.99, "eps_decay": 0.999}, 10000, 0.1),
    ],
)
def test_agents_learn_tic_tac_toe(tmp_path, agent, params, episodes, most_regret):
    env = run_agent(agent, tmp_path, "3x3k3", "x", episodes=episodes, seed=11, params=params)
    policy = check_policy(env["SWEEP_POLICY"], env["SWEEP_STATES"], "3x3k3")
    g = RefGame("3x3k3")
    best = start_value(g, "x", random_opponent(g), expectimax(g, "x", random_opponent(g)))
    untrained = policy_value(g, "x", random_opponent(g), {s: g.moves(s)[0] for s in policy})
    regret = float(best - policy_value(g, "x", random_opponent(g), policy))
    assert 0 <= regret <= most_regret, f"regret {regret}, an untrained policy's {float(best - untrained)}"


def test_linear_q_is_the_same_with_and_without_numpy(tmp_path):
    pytest.importorskip("numpy")
    for features in ["ntuple", "cells"]:
        params = {"features": features}
        a = run_agent(
            "linear_q",
            tmp_path / f"np-{features}",
            "4x3g3",
            "o",
            episodes=300,
            params=params,
            checkpoints=[150],
        )
        b = run_agent(
            "linear_q",
            tmp_path / f"py-{features}",
            "4x3g3",
            "o",
            episodes=300,
            params=params,
            checkpoints=[150],
            extra={"LINEAR_Q_NO_NUMPY": "1"},
        )
        assert filecmp.cmp(a["SWEEP_POLICY"], b["SWEEP_POLICY"], shallow=False)
        with open(a["SWEEP_METRICS"]) as f:
            assert json.load(f)["numpy"] == 1


@pytest.mark.parametrize("agent", ["tabular_q", "linear_q"])
def test_agents_find_the_package_by_themselves(tmp_path, agent):
    # -S -E: no site-packages, no PYTHONPATH: only the agent's own path to python/
    env = prepare_job(str(tmp_path), "3x3g3", seat="o", episodes=200, seed=4)
    r = subprocess.run(
        [sys.executable, "-S", "-E", str(AGENTS / f"{agent}.py")],
        env={**os.environ, **env},
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    check_policy(env["SWEEP_POLICY"], env["SWEEP_STATES"], "3x3g3")


@pytest.mark.parametrize("agent", ["tabular_q", "linear_q"])
def test_agents_explain_a_missing_job(tmp_path, agent):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWEEP_")}
    r = subprocess.run(
        [sys.executable, str(AGENTS / f"{agent}.py")],
        env=env,
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "SWEEP_GAME" in r.stderr and "command" in r.stderr


def test_linear_q_rejects_unknown_features(tmp_path):
    env = prepare_job(str(tmp_path), "3x3k3", params={"features": "pixels"})
    r = subprocess.run(
        [sys.executable, str(AGENTS / "linear_q.py")],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "pixels" in r.stderr


def test_sweep_reads_the_agents_policies(run_sweep, tmp_path):
    # sweep's own policy reader takes both files and scores them against each other
    x = run_agent("tabular_q", tmp_path / "x", "4x4g4", "x", episodes=500)
    o = run_agent("linear_q", tmp_path / "o", "4x4g4", "o", episodes=500)
    out = json.loads(run_sweep("evaluate", x["SWEEP_POLICY"], o["SWEEP_POLICY"], "--json"))
    assert out


def test_unknown_parameters_are_reported(tmp_path):
    env = prepare_job(str(tmp_path), "3x3k3", episodes=10, params={"alpha": 0.3, "lr": 0.2})
    r = subprocess.run(
        [sys.executable, str(AGENTS / "tabular_q.py")],
        env={**os.environ, **env, "PYTHONPATH": str(PYTHON)},
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and "alpha" in r.stderr and "lr" not in r.stderr.replace("alpha", "")


def test_a_self_play_job_covers_both_seats(tmp_path):
    env = run_agent("tabular_q", tmp_path, "3x3g3", None, "self", episodes=300)
    policy = check_policy(env["SWEEP_POLICY"], env["SWEEP_STATES"], "3x3g3")
    assert len(policy) == 505  # every ongoing position of 3x3g3, either seat to move
    with open(env["SWEEP_POLICY"]) as f:
        seats = {line.split(",")[2] for line in f.read().splitlines()[1:]}
    assert seats == {"x", "o"}


SPEC = """name = "agents"
seed = 3
replicates = 2

[evaluation]
opponents = ["random"]
checkpoints = 2

[[solver]]
kind = "command"
label = "tabular"
command = [{python}, {tabular}]
game = "3x3g3"
seat = ["x", "o"]
episodes = 3000
[solver.params]
lr = [0.25, 0.5]
discount = 0.99

[[solver]]
kind = "command"
label = "linear"
command = [{python}, {linear}]
game = "3x3g3"
opponent = "self"
episodes = 1000
[solver.params]
features = ["ntuple", "cells"]
"""


def test_sweep_runs_the_agents(run_sweep, tmp_path):
    # the whole loop: sweep runs each job's program and scores the policies it writes;
    # the results folder is relative to sweep's working folder, as by default
    spec = tmp_path / "agents.toml"
    spec.write_text(
        SPEC.format(
            python=json.dumps(sys.executable),
            tabular=json.dumps(str(AGENTS / "tabular_q.py")),
            linear=json.dumps(str(AGENTS / "linear_q.py")),
        )
    )
    run_sweep("run", "agents.toml", "--quiet", "--out", "out", cwd=str(tmp_path))
    with open(tmp_path / "out" / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert (
        len(rows) == 2 * 2 * 2 + 2 * 2 * 2
    )  # tabular: 2 lr x 2 seats x 2 replicates; linear: 2 x 2 seats x 2
    for r in rows:
        assert r["status"] == "ok", r["error"]
        assert float(r["regret"]) >= 0
        assert json.loads(r["metrics"])
    assert {r["params"] for r in rows} == {
        "lr=0.25 discount=0.99",
        "lr=0.5 discount=0.99",
        "features=ntuple",
        "features=cells",
    }
