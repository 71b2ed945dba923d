"""sweep_agents: write reinforcement-learning agents for sweep's ``command`` solvers.

A ``command`` solver runs your program once per job; the program learns a policy for
one of sweep's games (tic-tac-toe, the m,n,k-games, gravity boards) and writes it as a
policy file, which sweep scores exactly. This package has the pieces such a program
needs, in the standard library only:

- :mod:`sweep_agents.rules`: the games' rules, texts and position enumeration, the same as
  sweep's;
- :mod:`sweep_agents.job`: the job (:func:`from_env`), the states file, and the policy,
  checkpoint and metrics files to write;
- :mod:`sweep_agents.opponents`: sweep's fixed opponents (random, minimax,
  minimax-uniform);
- :mod:`sweep_agents.serve`: :func:`serve_policy`, for an agent that answers positions on
  demand (``sweep score -- python3 agent.py``), Connect Four included, and
  :func:`serve_checkpoint`, for its learning curve;
- :mod:`sweep_agents.env`: Gymnasium- and PettingZoo-style environments (real subclasses
  when those libraries are installed).
"""

from .job import (
    Job,
    JobError,
    State,
    from_env,
    prepare_job,
    read_policy,
    read_states,
    write_metrics,
    write_policy,
    write_states,
)
from .opponents import OPPONENTS, make_opponent
from .rules import DRAW, ONGOING, SEATS, Board, Game, O, X, other
from .serve import checkpoint_episodes, serve_checkpoint, serve_policy

__version__ = "0.1.0"

__all__ = [
    "Board",
    "DRAW",
    "Game",
    "Job",
    "JobError",
    "O",
    "ONGOING",
    "OPPONENTS",
    "SEATS",
    "State",
    "X",
    "__version__",
    "from_env",
    "make_opponent",
    "other",
    "prepare_job",
    "read_policy",
    "read_states",
    "serve_policy",
    "serve_checkpoint",
    "checkpoint_episodes",
    "write_metrics",
    "write_policy",
    "write_states",
]
