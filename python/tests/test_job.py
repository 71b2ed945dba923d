"""The job: reading it from the environment, the states file, the files written back."""

import json
import os

import pytest

from sweep_agents import job as jobs
from sweep_agents.job import (
    JobError,
    State,
    from_env,
    prepare_job,
    read_policy,
    read_states,
    write_metrics,
    write_policy,
)
from sweep_agents.rules import Game


def test_from_env_reads_a_prepared_job(tmp_path):
    env = prepare_job(
        str(tmp_path / "job"),
        "4x4g4",
        seat="o",
        opponent="minimax",
        episodes=500,
        seed=2**64 - 1,
        params={"alpha": 0.25, "features": "ntuple", "layers": 2, "symmetric": True},
        checkpoints=[100, 250, 500],
        job_id="j7",
    )
    job = from_env(env)
    assert job.game == Game("4x4g4") and job.seat == "o" and job.opponent == "minimax"
    assert (job.episodes, job.seed, job.job_id) == (500, 2**64 - 1, "j7")
    assert job.checkpoints == (100, 250, 500) and not job.self_play
    assert job.params == {"alpha": 0.25, "features": "ntuple", "layers": 2, "symmetric": True}
    assert job.param("alpha", 0.5) == 0.25 and isinstance(job.param("layers", 1.0), float)
    assert job.param("layers", 1) == 2 and job.param("symmetric", False) is True
    assert job.param("missing", 3) == 3
    with pytest.raises(JobError):
        job.param("missing")
    with pytest.raises(JobError):
        job.param("features", 1.0)
    with pytest.raises(JobError):
        job.param("alpha", 1)  # 0.25 is not a whole number
    assert job.unknown_params(["alpha", "layers"]) == ["features", "symmetric"]
    assert job.checkpoint_path(100) == os.path.join(env["SWEEP_CHECKPOINTS"], "100.csv")
    states = job.read_states()
    assert len(states) == len(Game("4x4g4").states("o"))
    assert env["SWEEP_PARAM_ALPHA"] == "0.25" and env["SWEEP_PARAM_SYMMETRIC"] == "true"


def test_from_env_without_the_parameters_file(tmp_path):
    env = prepare_job(str(tmp_path), "3x3k3", params={"alpha": 0.1, "mode": "fast", "n": 3})
    del env["SWEEP_PARAMS"]
    job = from_env(env)
    assert job.params == {"alpha": 0.1, "mode": "fast", "n": 3}
    assert job.checkpoints == () and job.params_path is None


def test_from_env_outside_sweep_says_what_is_missing():
    with pytest.raises(JobError) as e:
        from_env({})
    message = str(e.value)
    for var in ["SWEEP_SEED", "SWEEP_GAME", "SWEEP_SEAT", "SWEEP_POLICY", "SWEEP_STATES"]:
        assert var in message
    assert "command" in message and "prepare_job" in message


@pytest.mark.parametrize(
    "change",
    [
        {"SWEEP_SEED": "-1"},
        {"SWEEP_SEED": "abc"},
        {"SWEEP_GAME": "2x2k2"},
        {"SWEEP_SEAT": "z"},
        {"SWEEP_EPISODES": "-3"},
        {"SWEEP_PARAMS": "/nonexistent/params.json"},
    ],
)
def test_from_env_rejects_bad_values(tmp_path, change):
    env = prepare_job(str(tmp_path), "3x3k3")
    del env["SWEEP_PARAMS"]
    env.update(change)
    with pytest.raises(JobError):
        from_env(env)


def test_from_env_rejects_a_file_that_disagrees(tmp_path):
    env = prepare_job(str(tmp_path), "3x3k3", seed=3)
    env["SWEEP_SEED"] = "4"
    with pytest.raises(JobError, match="SWEEP_SEED"):
        from_env(env)


def test_states_and_policy_round_trip(tmp_path):
    g = Game("3x3g3")
    env = prepare_job(str(tmp_path), g, seat="x")
    states = read_states(env["SWEEP_STATES"], g)
    assert len(states) == 276 and all(isinstance(s, State) for s in states)
    assert states[0] == State(".........", g.empty(), (0, 1, 2))
    with open(env["SWEEP_STATES"]) as f:
        assert f.readline() == "board,moves\n"
        assert f.readline() == ".........,0|1|2\n"
    moves = {s: s.moves[-1] for s in states}
    path = str(tmp_path / "policy.csv")
    write_policy(path, g, "x", moves)
    back = read_policy(path, g)
    assert back == {s.text: s.moves[-1] for s in states}
    with open(path) as f:
        lines = f.read().splitlines()
    assert lines[0] == "board,action,seat,game"
    assert lines[1] == ".........,2,x,3x3g3"
    assert len(lines) == 1 + len(states)
    # boards and texts as keys, moves as texts, seat from the board
    write_policy(path, g, None, [(g.empty(), "1"), ("......X..", 2)])
    assert read_policy(path) == {".........": 1, "......X..": 2}
    with open(path) as f:
        assert f.read().splitlines()[2] == "......X..,2,o,3x3g3"
    # no temporary file left behind
    assert sorted(os.listdir(tmp_path)) == sorted(["checkpoints", "params.json", "states.csv", "policy.csv"])


def test_write_policy_refuses_bad_rows(tmp_path):
    g = Game("3x3k3")
    path = str(tmp_path / "p.csv")
    with pytest.raises(JobError, match="illegal"):
        write_policy(path, g, None, {"X........": 0})
    with pytest.raises(JobError, match="to move"):
        write_policy(path, g, "x", {"X........": 1})
    with pytest.raises(JobError, match="two rows"):
        write_policy(path, g, None, [(".........", 0), (g.empty(), 1)])
    with pytest.raises(JobError):
        write_policy(path, g, None, {".........": 9})
    assert not os.path.exists(path) and os.listdir(tmp_path) == []


def test_read_states_checks_the_moves(tmp_path):
    path = tmp_path / "states.csv"
    path.write_text("board,moves\n.........,0|1|2\n")
    with pytest.raises(JobError, match="rules"):
        read_states(str(path), "3x3k3")
    assert read_states(str(path), "3x3k3", check=False)[0].moves == (0, 1, 2)
    # moves in any order (on gravity boards, cell order is not column order)
    path.write_text("board,moves\n......X..,2|0|1\n")
    assert read_states(str(path), "3x3g3")[0].moves == (0, 1, 2)
    path.write_text("board,action\n")
    with pytest.raises(JobError, match="header"):
        read_states(str(path), "3x3k3")


def test_job_writes_checkpoints_and_metrics(tmp_path):
    env = prepare_job(str(tmp_path), "3x3k3", checkpoints=[10])
    job = from_env(env)
    states = job.read_states()
    p = job.write_checkpoint(10, [(s, s.moves[0]) for s in states])
    assert p == os.path.join(env["SWEEP_CHECKPOINTS"], "10.csv") and len(read_policy(p)) == len(states)
    job.write_policy([(s, s.moves[0]) for s in states])
    assert len(read_policy(env["SWEEP_POLICY"], "3x3k3")) == 2423
    job.write_metrics({"loss": 0.5, "n": 3, "ok": True, "bad": float("nan")})
    with open(env["SWEEP_METRICS"]) as f:
        assert json.load(f) == {"loss": 0.5, "n": 3, "ok": 1, "bad": None}
    with pytest.raises(JobError):
        write_metrics(env["SWEEP_METRICS"], {"name": "text"})
    bare = jobs.Job(
        job_id="1",
        seed=0,
        game=Game("3x3k3"),
        seat="x",
        opponent="random",
        episodes=1,
        policy_path=str(tmp_path / "p.csv"),
        states_path=env["SWEEP_STATES"],
    )
    assert bare.write_checkpoint(1, {}) is None and bare.write_metrics({"a": 1}) is None


def test_a_self_play_job(tmp_path):
    env = prepare_job(str(tmp_path), "3x3g3", opponent="self", checkpoints=[5, 10])
    assert env["SWEEP_SEAT"] == "both" and env["SWEEP_CHECKPOINT_EPISODES"] == "5,10"
    job = from_env(env)
    assert job.seat == "both" and job.self_play and job.spec_dir == os.path.abspath(str(tmp_path))
    states = job.read_states()
    assert len(states) == 505 and {Game("3x3g3").to_move(s.board) for s in states} == {"x", "o"}
    job.write_policy([(s, s.moves[0]) for s in states])
    assert len(read_policy(job.policy_path)) == 505
    with pytest.raises(ValueError):
        prepare_job(str(tmp_path), "3x3g3", seat="x", opponent="self")
    bad = dict(env, SWEEP_SEAT="both", SWEEP_OPPONENT="random")
    del bad["SWEEP_PARAMS"]
    with pytest.raises(JobError, match="both"):
        from_env(bad)


def test_checkpoint_episodes_without_the_parameters_file(tmp_path):
    env = prepare_job(str(tmp_path), "3x3k3", checkpoints=[100, 200])
    del env["SWEEP_PARAMS"]
    assert from_env(env).checkpoints == (100, 200)
    env["SWEEP_CHECKPOINT_EPISODES"] = ""
    assert from_env(env).checkpoints == ()


def test_a_relative_states_path_is_explained(tmp_path):
    env = prepare_job(str(tmp_path / "job"), "3x3k3")
    env["SWEEP_STATES"] = os.path.join("nowhere", "states.csv")
    with pytest.raises(JobError, match="relative path"):
        from_env(env).read_states()
