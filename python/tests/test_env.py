"""The environments: behaviour, and Gymnasium's and PettingZoo's own checkers."""

import subprocess
import sys
import warnings

import pytest

from conftest import PYTHON, require
from sweep_agents.env import GameEnv, SelfPlayEnv, observation
from sweep_agents.rules import Game

GAMES = ["3x3k3", "4x4g4"]


def _list(a):
    return [int(v) for v in a]


def test_observation_is_from_the_seat_s_view():
    g = Game("3x3k3")
    b = g.parse_board("X.O......")
    assert observation(g, b, "x")[:3] == [1, 0, 2]
    assert observation(g, b, "o")[:3] == [2, 0, 1]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seat", ["x", "o"])
def test_game_env_plays_whole_games(game, seat):
    env = GameEnv(game, seat)
    g = Game(game)
    rewards = set()
    for episode in range(50):
        obs, info = env.reset(seed=episode)
        marks = sum(1 for v in _list(obs) if v)
        assert marks == (0 if seat == "x" else 1)
        done = False
        while not done:
            mask = _list(info["action_mask"])
            assert mask == [int(m) for m in env.action_masks()]
            legal = [a for a, ok in enumerate(mask) if ok]
            assert legal == env.legal_moves() == g.legal_moves(env.board)
            obs, reward, done, truncated, info = env.step(legal[episode % len(legal)])
            assert not truncated and not info["illegal"]
        rewards.add(reward)
        assert info["status"] != "ongoing" and not any(_list(info["action_mask"]))
        assert reward == (0.0 if info["status"] == "draw" else (1.0 if info["status"] == seat else -1.0))
    assert rewards <= {-1.0, 0.0, 1.0} and len(rewards) >= 2
    with pytest.raises(RuntimeError):
        env.step(0)


def test_game_env_is_seeded():
    def episode(seed):
        env = GameEnv("4x4g4", "x")
        env.reset(seed=seed)
        boards = []
        done = False
        while not done:
            _, _, done, _, info = env.step(env.legal_moves()[0])
            boards.append(info["board"])
        return boards

    assert episode(3) == episode(3)
    assert any(episode(3) != episode(s) for s in range(4, 10))


def test_an_illegal_action_ends_the_episode():
    env = GameEnv("3x3k3", "x")
    env.reset(seed=1)
    env.step(4)
    taken = [a for a in range(9) if a not in env.legal_moves()]
    obs, reward, done, truncated, info = env.step(taken[0])
    assert (reward, done, truncated, info["illegal"]) == (-1.0, True, False, True)
    env.reset(seed=1)
    _, reward, done, _, info = env.step(17)
    assert (reward, done, info["illegal"]) == (-1.0, True, True)


def test_the_minimax_opponent_never_loses():
    env = GameEnv("3x3k3", "x", opponent="minimax")
    for seed in range(30):
        env.reset(seed=seed)
        done = False
        while not done:
            moves = env.legal_moves()
            _, reward, done, _, _ = env.step(moves[seed % len(moves)])
        assert reward <= 0


def test_self_play_env_plays_a_game():
    env = SelfPlayEnv("3x3g3")
    env.reset()
    assert env.agents == ["x", "o"] and env.agent_selection == "x"
    first = env.observe("x")
    assert _list(first["action_mask"]) == [1, 1, 1] and not any(_list(env.observe("o")["action_mask"]))
    # X takes column 0 three times over O's column 1: a vertical win
    for move in [0, 1, 0, 1, 0]:
        env.step(move)
    assert env.terminations == {"x": True, "o": True}
    assert env.rewards == {"x": 1.0, "o": -1.0}
    assert env.agent_selection == "o"
    obs, reward, terminated, _, _ = env.last()
    assert reward == -1.0 and terminated
    assert _list(obs["observation"])[6] == 2  # X's stone, seen by O
    env.step(None)
    assert env.agents == ["x"]
    _, reward, terminated, _, _ = env.last()
    assert reward == 1.0 and terminated
    env.step(None)
    assert env.agents == []


def test_self_play_env_illegal_move():
    env = SelfPlayEnv("3x3k3")
    env.reset()
    env.step(4)
    env.step(4)
    assert env.rewards == {"x": 0.0, "o": -1.0} and env.infos["o"]["illegal"]
    assert all(env.terminations.values())


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seat", ["x", "o"])
def test_gymnasium_check_env(game, seat):
    gym = require("gymnasium")
    from gymnasium.utils.env_checker import check_env

    env = GameEnv(game, seat)
    assert isinstance(env, gym.Env)
    assert env.observation_space == gym.spaces.MultiDiscrete([3] * Game(game).cells)
    assert env.action_space == gym.spaces.Discrete(Game(game).n_actions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)
        check_env(GameEnv(game, seat, render_mode="ansi"))


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_test(game):
    pettingzoo = require("pettingzoo")
    from pettingzoo.test import api_test

    env = SelfPlayEnv(game)
    assert isinstance(env, pettingzoo.AECEnv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=300)


def test_plain_classes_without_the_libraries():
    # gymnasium, pettingzoo and numpy hidden: the same environments as plain classes
    code = """
import sys
for name in ("gymnasium", "pettingzoo", "numpy"):
    sys.modules[name] = None
from sweep_agents.env import GameEnv, SelfPlayEnv, HAVE_GYMNASIUM, HAVE_PETTINGZOO
assert not HAVE_GYMNASIUM and not HAVE_PETTINGZOO
env = GameEnv("4x4g4", "o")
obs, info = env.reset(seed=2)
assert isinstance(obs, tuple) and sum(1 for v in obs if v) == 1 and env.observation_space is None
done = False
while not done:
    obs, reward, done, truncated, info = env.step(env.legal_moves()[-1])
assert reward in (-1.0, 0.0, 1.0)
aec = SelfPlayEnv("3x3k3")
for agent in aec.agent_iter():
    obs, reward, terminated, truncated, info = aec.last()
    moves = [a for a, ok in enumerate(obs["action_mask"]) if ok]
    aec.step(None if terminated else moves[0])
assert aec.agents == []
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(PYTHON))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
