"""Environments over sweep's games, in the Gymnasium and PettingZoo styles.

- :class:`GameEnv`: one agent in one seat against a fixed opponent (``"random"`` by
  default, or ``"minimax"`` / ``"minimax-uniform"``), Gymnasium style: ``reset(seed=...)``
  returns ``(observation, info)`` and ``step(action)`` returns ``(observation, reward,
  terminated, truncated, info)``. The opponent replies inside ``step``; when the agent
  plays O, ``reset`` plays the opponent's opening. Rewards are the agent's: +1 win, -1
  loss, 0 draw and 0 before the end. An illegal action ends the episode with reward -1
  and ``info["illegal"] = True``. ``info["action_mask"]`` and :meth:`GameEnv.action_masks`
  give the legal actions (the latter as booleans, the form maskable policy learners
  expect).
- :class:`SelfPlayEnv`: both seats, PettingZoo AEC style: agents ``["x", "o"]``, X first;
  ``observe(agent)`` returns ``{"observation": ..., "action_mask": ...}`` (the mask is all
  zeros for the agent not to move). At the end the winner gets +1 and the loser -1; an
  illegal action ends the game with -1 for the side that played it and 0 for the other.

Observations are one entry per cell from the observing agent's view: 0 empty, 1 its own
mark, 2 the other side's. Actions are move numbers (cells, or columns on gravity boards).

When ``gymnasium`` is importable, :class:`GameEnv` subclasses ``gymnasium.Env`` with
``observation_space = MultiDiscrete([3] * cells)`` and ``action_space =
Discrete(n_actions)``; when ``pettingzoo`` is importable, :class:`SelfPlayEnv` subclasses
``pettingzoo.AECEnv`` with the matching ``Dict`` observation spaces. Without them they are
plain classes with the same methods (``observation_space`` is then None). Observations
and masks are numpy arrays (int64 and int8) when numpy is importable, else tuples.

The opponent draws from a :class:`random.Random` seeded by ``reset(seed=...)``, so an
episode is the same with or without gymnasium installed.
"""

import random
from typing import Any, Dict, List, Optional

from .opponents import make_opponent
from .rules import DRAW, ONGOING, O, X, Board, Game, other

__all__ = ["GameEnv", "SelfPlayEnv", "observation", "HAVE_GYMNASIUM", "HAVE_PETTINGZOO"]

try:
    import numpy as _np
except ImportError:  # pragma: no cover - exercised without numpy
    _np = None

try:
    import gymnasium as _gym
    from gymnasium import spaces as _spaces
except ImportError:  # pragma: no cover - exercised without gymnasium
    _gym = None
    _spaces = None

try:
    from pettingzoo import AECEnv as _AECEnv
except ImportError:  # pragma: no cover - exercised without pettingzoo
    _AECEnv = None

#: Whether :class:`GameEnv` is a ``gymnasium.Env``.
HAVE_GYMNASIUM = _gym is not None
#: Whether :class:`SelfPlayEnv` is a ``pettingzoo.AECEnv``.
HAVE_PETTINGZOO = _AECEnv is not None and _spaces is not None

_RENDER_MODES = ["ansi", "human"]


def observation(game: Game, board: Board, seat: str) -> List[int]:
    """``board`` from ``seat``'s view, one entry per cell: 0 empty, 1 ``seat``'s mark, 2 the
    other side's."""
    mine, theirs = (board.x, board.o) if seat == X else (board.o, board.x)
    return [1 if mine >> c & 1 else (2 if theirs >> c & 1 else 0) for c in range(game.cells)]


def _array(values: List[int], dtype: str):
    if _np is None:
        return tuple(values)
    return _np.asarray(values, dtype=dtype)


def _action(value: Any) -> Optional[int]:
    """An action as a Python int, or None if it is not a whole number."""
    try:
        if isinstance(value, bool):
            return None
        if _np is not None and isinstance(value, _np.ndarray):
            if value.size != 1:
                return None
            value = value.reshape(()).item()
        as_int = int(value)
        if as_int != value:
            return None
        return as_int
    except (TypeError, ValueError):
        return None


class _GameEnvCore:
    """The single-agent environment's behaviour (see :class:`GameEnv`)."""

    metadata = {"render_modes": _RENDER_MODES, "render_fps": 4}

    def __init__(
        self, game="3x3k3", seat: str = "x", opponent: str = "random", render_mode: Optional[str] = None
    ):
        self.game = game if isinstance(game, Game) else Game(game)
        other(seat)  # validates the seat
        if render_mode is not None and render_mode not in _RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r}: expected one of {_RENDER_MODES} or None")
        self.seat = seat
        self.opponent = make_opponent(self.game, opponent)
        self.render_mode = render_mode
        self.n_actions = self.game.n_actions
        self.board = self.game.empty()
        self.done = True
        self._rng: Optional[random.Random] = None
        if _spaces is not None and isinstance(self, _gym.Env):
            self.observation_space = _spaces.MultiDiscrete([3] * self.game.cells)
            self.action_space = _spaces.Discrete(self.n_actions)
        else:
            self.observation_space = None
            self.action_space = None

    # -- the episode --------------------------------------------------------------------

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        """Starts an episode from the empty board (the opponent opens when the agent plays
        O). ``seed`` seeds the opponent's generator; without it the generator goes on (or
        is seeded from the system on the first reset). Returns ``(observation, info)``."""
        if _gym is not None and isinstance(self, _gym.Env):
            _gym.Env.reset(self, seed=seed)
            if seed is None and self._rng is None:
                seed = int(self.np_random.integers(0, 2**63))
        if seed is not None:
            self._rng = random.Random(seed)
        elif self._rng is None:
            self._rng = random.Random()
        self.board = self.game.empty()
        self.done = False
        if self.seat == O:
            self.board, _ = self.game.advance(self.board, self.opponent.move(self.board, self._rng))
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info(illegal=False)

    def step(self, action):
        """Plays ``action`` for the agent, then the opponent's reply. Returns
        ``(observation, reward, terminated, truncated, info)``; truncated is always False."""
        if self.done:
            raise RuntimeError("the episode is over: call reset() first")
        move = _action(action)
        g = self.game
        if move is None or not (0 <= move < self.n_actions) or move not in g.legal_moves(self.board):
            self.done = True
            return self._observation(), -1.0, True, False, self._info(illegal=True)
        self.board, status = g.advance(self.board, move)
        if status == ONGOING:
            reply = self.opponent.move(self.board, self._rng)
            self.board, status = g.advance(self.board, reply)
        reward = 0.0
        if status != ONGOING:
            self.done = True
            reward = 1.0 if status == self.seat else (0.0 if status == DRAW else -1.0)
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, self.done, False, self._info(illegal=False)

    def action_masks(self):
        """The legal actions of the current position as booleans (all False once over)."""
        mask = [False] * self.n_actions
        if not self.done:
            for m in self.game.legal_moves(self.board):
                mask[m] = True
        return _array(mask, "bool")

    def legal_moves(self) -> List[int]:
        """The legal move numbers of the current position (none once the episode is over)."""
        return [] if self.done else self.game.legal_moves(self.board)

    def _mask(self) -> List[int]:
        mask = [0] * self.n_actions
        if not self.done:
            for m in self.game.legal_moves(self.board):
                mask[m] = 1
        return mask

    def _observation(self):
        return _array(observation(self.game, self.board, self.seat), "int64")

    def _info(self, illegal: bool) -> Dict[str, Any]:
        return {
            "action_mask": _array(self._mask(), "int8"),
            "board": self.game.board_text(self.board),
            "status": self.game.status(self.board),
            "illegal": illegal,
        }

    def render(self):
        """The board as text (``"ansi"``), or printed (``"human"``)."""
        text = self.game.render(self.board)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


class _SelfPlayCore:
    """The two-player environment's behaviour (see :class:`SelfPlayEnv`)."""

    metadata = {
        "render_modes": _RENDER_MODES,
        "name": "sweep_self_play_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(self, game="3x3k3", render_mode: Optional[str] = None):
        if _AECEnv is not None and isinstance(self, _AECEnv):
            _AECEnv.__init__(self)
        self.game = game if isinstance(game, Game) else Game(game)
        if render_mode is not None and render_mode not in _RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r}: expected one of {_RENDER_MODES} or None")
        self.render_mode = render_mode
        self.n_actions = self.game.n_actions
        self.possible_agents = [X, O]
        self.agents: List[str] = []
        self.board = self.game.empty()
        self.rewards: Dict[str, float] = {}
        self._cumulative_rewards: Dict[str, float] = {}
        self.terminations: Dict[str, bool] = {}
        self.truncations: Dict[str, bool] = {}
        self.infos: Dict[str, dict] = {}
        self.agent_selection = X
        if HAVE_PETTINGZOO and isinstance(self, _AECEnv):
            cells = self.game.cells
            obs = _spaces.Dict(
                {
                    "observation": _spaces.MultiDiscrete([3] * cells),
                    "action_mask": _spaces.Box(low=0, high=1, shape=(self.n_actions,), dtype=_np.int8),
                }
            )
            act = _spaces.Discrete(self.n_actions)
            self.observation_spaces = {a: obs for a in self.possible_agents}
            self.action_spaces = {a: act for a in self.possible_agents}
        else:
            self.observation_spaces = {a: None for a in self.possible_agents}
            self.action_spaces = {a: None for a in self.possible_agents}
        self.reset()

    def observation_space(self, agent: str):
        """The observation space of ``agent`` (None without pettingzoo)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        """The action space of ``agent`` (None without pettingzoo)."""
        return self.action_spaces[agent]

    @property
    def num_agents(self) -> int:
        return len(self.agents)

    @property
    def max_num_agents(self) -> int:
        return len(self.possible_agents)

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """A new game from the empty board, X to move (nothing random: ``seed`` is unused)."""
        self.board = self.game.empty()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = X
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str):
        """``{"observation": cells from agent's view, "action_mask": legal actions}``."""
        mask = [0] * self.n_actions
        if agent == self.agent_selection and self.game.status(self.board) == ONGOING:
            for m in self.game.legal_moves(self.board):
                mask[m] = 1
        return {
            "observation": _array(observation(self.game, self.board, agent), "int64"),
            "action_mask": _array(mask, "int8"),
        }

    def last(self, observe: bool = True):
        """``(observation, cumulative reward, terminated, truncated, info)`` of the agent to
        act."""
        agent = self.agent_selection
        obs = self.observe(agent) if observe else None
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def agent_iter(self, max_iter: int = 2**63):
        """The agent to act, until every agent is done or ``max_iter`` turns."""
        return _AgentIter(self, max_iter)

    def step(self, action) -> None:
        """Plays ``action`` for the agent to act; a finished agent must step None."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        g = self.game
        move = _action(action)
        opp = other(agent)
        if move is None or not (0 <= move < self.n_actions) or move not in g.legal_moves(self.board):
            self.rewards[agent] = -1.0
            self.infos[agent] = {"illegal": True}
            self._end()
        else:
            self.board, status = g.advance(self.board, move)
            if status != ONGOING:
                if status != DRAW:
                    self.rewards[status] = 1.0
                    self.rewards[other(status)] = -1.0
                self._end()
        self.agent_selection = opp
        for a in self.agents:
            self._cumulative_rewards[a] += self.rewards[a]
        if self.render_mode == "human":
            self.render()

    def _end(self) -> None:
        for a in self.agents:
            self.terminations[a] = True

    def _dead_step(self, action) -> None:
        if action is not None:
            raise ValueError("a finished agent's only action is None")
        agent = self.agent_selection
        for d in (self.terminations, self.truncations, self.rewards, self._cumulative_rewards, self.infos):
            d.pop(agent, None)
        self.agents.remove(agent)
        if self.agents:
            self.agent_selection = self.agents[0]
        self.rewards = {a: 0.0 for a in self.agents}

    def render(self):
        """The board as text (``"ansi"``), or printed (``"human"``)."""
        text = self.game.render(self.board)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

    def __str__(self) -> str:
        return f"SelfPlayEnv({str(self.game)!r})"


class _AgentIter:
    def __init__(self, env: _SelfPlayCore, max_iter: int):
        self.env = env
        self.left = max_iter

    def __iter__(self):
        return self

    def __next__(self) -> str:
        if not self.env.agents or self.left <= 0:
            raise StopIteration
        self.left -= 1
        return self.env.agent_selection


if _gym is not None:

    class GameEnv(_GameEnvCore, _gym.Env):
        """One agent in one seat against a fixed opponent; a ``gymnasium.Env`` (see the
        module doc). ``GameEnv(game="3x3k3", seat="x", opponent="random",
        render_mode=None)``."""

else:  # pragma: no cover - exercised without gymnasium

    class GameEnv(_GameEnvCore):
        """One agent in one seat against a fixed opponent (see the module doc).
        ``GameEnv(game="3x3k3", seat="x", opponent="random", render_mode=None)``."""


if HAVE_PETTINGZOO:

    class SelfPlayEnv(_SelfPlayCore, _AECEnv):
        """Both seats of a game, a ``pettingzoo.AECEnv`` (see the module doc).
        ``SelfPlayEnv(game="3x3k3", render_mode=None)``."""

else:  # pragma: no cover - exercised without pettingzoo

    class SelfPlayEnv(_SelfPlayCore):
        """Both seats of a game, PettingZoo AEC style (see the module doc).
        ``SelfPlayEnv(game="3x3k3", render_mode=None)``."""
