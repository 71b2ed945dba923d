"""A sweep job as an agent program sees it, and the files it hands back.

A ``command`` solver runs the program once per job, in a fresh working folder, with
these environment variables:

==================  ==================================================================
``SWEEP_SEED``      the job's seed (an unsigned 64-bit integer)
``SWEEP_GAME``      the game, e.g. ``"4x4g4"``
``SWEEP_SEAT``      ``"x"`` or ``"o"``; ``"both"`` in self-play
``SWEEP_OPPONENT``  ``"random"``, ``"minimax"``, ``"minimax-uniform"`` or ``"self"``
``SWEEP_EPISODES``  the episode budget
``SWEEP_JOB_ID``    the job's id
``SWEEP_PARAM_*``   each of the program's own parameters (name upper-cased)
``SWEEP_PARAMS``    a JSON file with all of the above, the checkpoint episodes and the
                    parameters with their types
``SWEEP_POLICY``    where to write the final greedy policy
``SWEEP_CHECKPOINTS``  a folder for ``<episode>.csv`` policies at the checkpoint episodes
``SWEEP_CHECKPOINT_EPISODES``  those episodes, joined by commas
``SWEEP_STATES``    a CSV file ``board,moves`` of every position the policy may be asked
                    (the seat's positions; both seats' in self-play)
``SWEEP_METRICS``   where the program may write a JSON object of its own numbers
``SWEEP_SPEC_DIR``  the spec's folder (for files of the program's own)
==================  ==================================================================

:func:`from_env` reads them into a :class:`Job`. A policy file is CSV with the header
``board,action,seat,game`` and one row per position (board text, move text, seat to
move, game): :func:`write_policy` writes one atomically (a temporary file in the same
folder, then a rename), so sweep never reads half a policy.

To run a program by hand, :func:`prepare_job` makes a job folder (parameters file and
states file) and returns the variables to run it with.
"""

import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from .rules import ONGOING, SEATS, Board, Game

__all__ = [
    "Job",
    "JobError",
    "State",
    "from_env",
    "read_states",
    "write_states",
    "write_policy",
    "read_policy",
    "write_metrics",
    "prepare_job",
    "POLICY_HEADER",
    "STATES_HEADER",
    "BOTH",
    "JOB_OPPONENTS",
]

#: The first line of a policy file.
POLICY_HEADER = "board,action,seat,game"
#: The first line of a states file.
STATES_HEADER = "board,moves"

#: The seat of a self-play job (``SWEEP_SEAT``): the program plays both.
BOTH = "both"

#: The opponents a job may name (``"self"``: self-play, the program plays both seats).
JOB_OPPONENTS = ("random", "minimax", "minimax-uniform", "self")

_MISSING = object()


class JobError(RuntimeError):
    """A job that cannot be read, or a file that cannot be written as asked."""


class State(NamedTuple):
    """A row of a states file: the board's text, the board and its legal move numbers."""

    text: str
    board: Board
    moves: Tuple[int, ...]


@dataclass(frozen=True)
class Job:
    """One job: what to train (game, seat, opponent, episodes, seed, own parameters) and
    where to write the results. Built by :func:`from_env`.

    ``seat`` is ``"x"`` or ``"o"``, or ``"both"`` in self-play (opponent ``"self"``).
    ``params`` holds the program's own parameters by name, numbers as numbers and texts
    as texts (read them with :meth:`param`). ``checkpoints`` lists the episodes after
    which a checkpoint policy is wanted, increasing. ``checkpoints_dir``,
    ``metrics_path`` and ``spec_dir`` may be None (nothing asked, or not known);
    ``params_path`` is None when the job came from the environment variables alone.
    """

    job_id: str
    seed: int
    game: Game
    seat: str
    opponent: str
    episodes: int
    policy_path: str
    states_path: str
    checkpoints: Tuple[int, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)
    params_path: Optional[str] = None
    checkpoints_dir: Optional[str] = None
    metrics_path: Optional[str] = None
    spec_dir: Optional[str] = None

    @property
    def self_play(self) -> bool:
        """Whether the program trains in self-play (opponent ``"self"``)."""
        return self.opponent == "self"

    def param(self, name: str, default: Any = _MISSING) -> Any:
        """The program parameter ``name``, converted to the type of ``default``: a float
        default gives a float, an int default an int (a whole number is required), a bool
        default a bool (``true``/``false``/``1``/``0`` or a number), a str default a
        text. Without a default the parameter must be given. Raises :class:`JobError`
        for a missing parameter or one of the wrong type."""
        if name not in self.params:
            if default is _MISSING:
                raise JobError(
                    f"parameter {name!r} is not given (the job has: {', '.join(sorted(self.params)) or 'none'})"
                )
            return default
        value = self.params[name]
        if default is _MISSING or default is None:
            return value
        return _convert(name, value, type(default))

    def unknown_params(self, known: Iterable[str]) -> List[str]:
        """The job's parameters that are not in ``known``, sorted (to warn about typos)."""
        k = set(known)
        return sorted(p for p in self.params if p not in k)

    def read_states(self, check: bool = True) -> List[State]:
        """The states file's rows (see :func:`read_states`)."""
        return read_states(self.states_path, self.game, check=check)

    def write_policy(self, moves, seat: Optional[str] = None) -> str:
        """Writes the final policy to ``policy_path`` (see :func:`write_policy`); the seat
        column is each position's seat to move. Returns the path."""
        write_policy(self.policy_path, self.game, seat, moves)
        return self.policy_path

    def checkpoint_path(self, episode: int) -> Optional[str]:
        """Where the checkpoint policy of ``episode`` goes, or None without a folder."""
        if self.checkpoints_dir is None:
            return None
        return os.path.join(self.checkpoints_dir, f"{int(episode)}.csv")

    def write_checkpoint(self, episode: int, moves, seat: Optional[str] = None) -> Optional[str]:
        """Writes the checkpoint policy after ``episode`` episodes to
        ``<checkpoints_dir>/<episode>.csv``. Returns its path, or None (nothing written)
        when the job has no checkpoint folder."""
        path = self.checkpoint_path(episode)
        if path is None:
            return None
        os.makedirs(self.checkpoints_dir, exist_ok=True)
        write_policy(path, self.game, seat, moves)
        return path

    def write_metrics(self, metrics: Mapping[str, Any]) -> Optional[str]:
        """Writes ``metrics`` (see :func:`write_metrics`) to ``metrics_path``; returns the
        path, or None (nothing written) when the job has no metrics path."""
        if self.metrics_path is None:
            return None
        write_metrics(self.metrics_path, metrics)
        return self.metrics_path


def _convert(name: str, value: Any, ty: type) -> Any:
    try:
        if ty is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, (int, float)):
                return value != 0
            text = str(value).strip().lower()
            if text in ("true", "yes", "on", "1"):
                return True
            if text in ("false", "no", "off", "0"):
                return False
            raise ValueError(text)
        if ty is int:
            if isinstance(value, bool):
                raise ValueError(value)
            number = float(value) if isinstance(value, str) else value
            if isinstance(number, float):
                if not number.is_integer():
                    raise ValueError(value)
                return int(number)
            return int(number)
        if ty is float:
            if isinstance(value, bool):
                raise ValueError(value)
            return float(value)
        if ty is str:
            return value if isinstance(value, str) else str(value)
        return ty(value)
    except (TypeError, ValueError, OverflowError):
        raise JobError(f"parameter {name!r} = {value!r} is not a {ty.__name__}") from None


def _env_value(text: str) -> Any:
    """A ``SWEEP_PARAM_*`` value: an int or a float when it reads as one, else the text."""
    t = text.strip()
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        return text


def from_env(environ: Optional[Mapping[str, str]] = None) -> Job:
    """The job described by the environment (``os.environ``, or ``environ``).

    The parameters file (``SWEEP_PARAMS``) is read when given; a field that both it and a
    variable give must agree. Without it, the program's parameters come from the
    ``SWEEP_PARAM_*`` variables (names lower-cased, values as numbers when they read as
    numbers) and no checkpoint is asked. Raises :class:`JobError` naming the missing
    variables when the program is not run as a sweep job.
    """
    env = os.environ if environ is None else environ
    data: Dict[str, Any] = {}
    params_path = env.get("SWEEP_PARAMS") or None
    if params_path is not None:
        try:
            with open(params_path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            raise JobError(
                f"SWEEP_PARAMS={params_path}: cannot read the job's parameters file: {e}"
            ) from None
        if not isinstance(data, dict):
            raise JobError(f"SWEEP_PARAMS={params_path}: not a JSON object")

    fields = {
        "seed": "SWEEP_SEED",
        "game": "SWEEP_GAME",
        "seat": "SWEEP_SEAT",
        "opponent": "SWEEP_OPPONENT",
        "episodes": "SWEEP_EPISODES",
        "job_id": "SWEEP_JOB_ID",
    }
    values: Dict[str, Any] = {}
    missing = []
    for key, var in fields.items():
        from_var = env.get(var)
        from_file = data.get(key)
        if from_var is not None and from_file is not None and str(from_var).strip() != str(from_file).strip():
            raise JobError(f"{var}={from_var!r} but the parameters file says {key} = {from_file!r}")
        value = from_file if from_file is not None else from_var
        if value is None:
            if key == "job_id":
                value = "local"
            else:
                missing.append(var)
        values[key] = value
    for var in ("SWEEP_POLICY", "SWEEP_STATES"):
        if not env.get(var):
            missing.append(var)
    if missing:
        raise JobError(
            f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set. This program runs as a job "
            'of a sweep solver of kind "command", which sets SWEEP_SEED, SWEEP_GAME, SWEEP_SEAT, '
            "SWEEP_OPPONENT, SWEEP_EPISODES, SWEEP_POLICY, SWEEP_STATES and the others. To run it by hand, "
            "make a job folder with sweep_agents.job.prepare_job(...) and run the program with the "
            "variables it returns."
        )

    try:
        seed = int(values["seed"])
        if seed < 0 or seed >= 1 << 64:
            raise ValueError
    except (TypeError, ValueError):
        raise JobError(f"SWEEP_SEED={values['seed']!r} is not an unsigned 64-bit integer") from None
    try:
        game = Game(str(values["game"]))
    except ValueError as e:
        raise JobError(f"SWEEP_GAME: {e}") from None
    seat = str(values["seat"]).strip()
    if seat not in SEATS and seat != BOTH:
        raise JobError(f"SWEEP_SEAT={seat!r}: expected 'x', 'o' or 'both'")
    opponent = str(values["opponent"]).strip()
    if not opponent:
        raise JobError("SWEEP_OPPONENT is empty")
    if (seat == BOTH) != (opponent == "self"):
        raise JobError(f"SWEEP_SEAT={seat!r} with SWEEP_OPPONENT={opponent!r}: 'both' goes with 'self' only")
    try:
        episodes = int(values["episodes"])
        if episodes < 0:
            raise ValueError
    except (TypeError, ValueError):
        raise JobError(f"SWEEP_EPISODES={values['episodes']!r} is not a whole number >= 0") from None

    if params_path is not None:
        checkpoints_raw = data.get("checkpoints") or []
    else:
        listed = env.get("SWEEP_CHECKPOINT_EPISODES", "").strip()
        checkpoints_raw = [c for c in listed.split(",") if c.strip()] if listed else []
    try:
        checkpoints = tuple(int(c) for c in checkpoints_raw)
    except (TypeError, ValueError):
        raise JobError(f"checkpoints {checkpoints_raw!r} are not whole numbers") from None
    if any(b <= a for a, b in zip(checkpoints, checkpoints[1:])) or any(c < 0 for c in checkpoints):
        raise JobError(f"checkpoints {list(checkpoints)} do not increase")

    if params_path is not None:
        params = data.get("params") or {}
        if not isinstance(params, dict):
            raise JobError(f"SWEEP_PARAMS={params_path}: 'params' is not a JSON object")
    else:
        prefix = "SWEEP_PARAM_"
        params = {k[len(prefix) :].lower(): _env_value(v) for k, v in env.items() if k.startswith(prefix)}

    return Job(
        job_id=str(values["job_id"]),
        seed=seed,
        game=game,
        seat=seat,
        opponent=opponent,
        episodes=episodes,
        policy_path=env["SWEEP_POLICY"],
        states_path=env["SWEEP_STATES"],
        checkpoints=checkpoints,
        params=dict(params),
        params_path=params_path,
        checkpoints_dir=env.get("SWEEP_CHECKPOINTS") or None,
        metrics_path=env.get("SWEEP_METRICS") or None,
        spec_dir=env.get("SWEEP_SPEC_DIR") or None,
    )


# -- states files -----------------------------------------------------------------------


def read_states(path: str, game, check: bool = True) -> List[State]:
    """The rows of a states file (header ``board,moves``, moves as move texts joined by
    ``|``), in file order, as :class:`State` (board text, :class:`Board`, move numbers in
    increasing order, whatever their order in the file).

    With ``check`` (the default) each row's moves must be the legal moves that
    :mod:`sweep_agents.rules` finds, which catches a mismatch between the file and the
    game early. Raises :class:`JobError`.
    """
    g = game if isinstance(game, Game) else Game(game)
    states: List[State] = []
    try:
        with open(path, encoding="utf-8", newline="") as f:
            header = f.readline().strip()
            if header != STATES_HEADER:
                raise JobError(f"{path}: header {header!r}, expected {STATES_HEADER!r}")
            parse_board = g.parse_board
            legal = g.legal_moves
            for lineno, line in enumerate(f, start=2):
                line = line.rstrip("\r\n")
                if not line:
                    continue
                parts = line.split(",")
                if len(parts) != 2:
                    raise JobError(f"{path}:{lineno}: expected 2 fields, got {len(parts)}: {line!r}")
                text, moves_text = parts
                try:
                    board = parse_board(text, validate=False)
                    moves = tuple(sorted(int(m) for m in moves_text.split("|"))) if moves_text else ()
                except ValueError as e:
                    raise JobError(f"{path}:{lineno}: {e}") from None
                if check and list(moves) != legal(board):
                    raise JobError(
                        f"{path}:{lineno}: board {text} lists moves {moves_text!r} but the rules of {g} give "
                        f"{'|'.join(map(str, legal(board)))!r}"
                    )
                states.append(State(text, board, moves))
    except OSError as e:
        hint = ""
        if not os.path.isabs(path):
            hint = f" (a relative path, taken from the working folder {os.getcwd()})"
        raise JobError(f"cannot read the states file {path}{hint}: {e}") from None
    return states


def write_states(path: str, game, boards: Iterable[Board]) -> None:
    """Writes a states file (header ``board,moves``) for ``boards``, atomically."""
    g = game if isinstance(game, Game) else Game(game)
    lines = [STATES_HEADER]
    for b in boards:
        lines.append(f"{g.board_text(b)},{'|'.join(map(str, g.legal_moves(b)))}")
    _write_atomic(path, "\n".join(lines) + "\n")


# -- policy files -----------------------------------------------------------------------

MovesArg = Union[Mapping[Any, Any], Iterable[Tuple[Any, Any]]]


def write_policy(path: str, game, seat: Optional[str], moves: MovesArg, check: bool = True) -> None:
    """Writes a policy file: the header ``board,action,seat,game`` and one row per
    position, in the order given.

    ``moves`` maps positions to moves, as a mapping or as ``(position, move)`` pairs; a
    position is a board text, a :class:`Board` or a :class:`State`, a move a move number
    or its text. The seat column is each position's seat to move. ``seat`` None (or
    ``"both"``) takes every position; ``"x"`` or ``"o"`` asks that every position have
    that seat to move. With ``check`` (the default) each move must be
    legal in its position. The file is written to a temporary file in the same folder,
    then renamed over ``path``. Raises :class:`JobError` (and writes nothing) on a bad
    row.
    """
    g = game if isinstance(game, Game) else Game(game)
    if seat == BOTH:
        seat = None
    if seat is not None and seat not in SEATS:
        raise JobError(f"seat {seat!r}: expected 'x', 'o', 'both' or None")
    items = moves.items() if isinstance(moves, Mapping) else moves
    game_text = str(g)
    lines = [POLICY_HEADER]
    seen = set()
    for position, move in items:
        if isinstance(position, State):
            text, board = position.text, position.board
        elif isinstance(position, Board):
            text, board = g.board_text(position), position
        elif isinstance(position, str):
            text = position
            try:
                board = g.parse_board(text, validate=False)
            except ValueError as e:
                raise JobError(str(e)) from None
        else:
            raise JobError(f"a position is a board text, a Board or a State, not {type(position).__name__}")
        if text in seen:
            raise JobError(f"board {text} has two rows")
        seen.add(text)
        try:
            m = g.parse_move(move) if isinstance(move, str) else _move_number(move)
            if check:
                g.move_cell(board, m)
            move_text = g.move_text(m)
        except ValueError as e:
            raise JobError(f"board {text}: {e}") from None
        to_move = g.to_move(board)
        if seat is not None and seat != to_move:
            raise JobError(f"board {text}: {to_move!r} is to move, but the policy is for seat {seat!r}")
        lines.append(f"{text},{move_text},{to_move},{game_text}")
    _write_atomic(path, "\n".join(lines) + "\n")


def _move_number(move: Any) -> int:
    """A move given as a number (an int, or a whole numpy integer) as a Python int."""
    if isinstance(move, bool):
        raise ValueError(f"not a move: {move!r}")
    if isinstance(move, int):
        return move
    if hasattr(move, "item") and callable(move.item):
        value = move.item()
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    raise ValueError(f"not a move: {move!r}")


def read_policy(path: str, game=None) -> Dict[str, int]:
    """A policy file's moves: board text -> move number. With ``game``, rows of another
    game raise :class:`JobError`."""
    g = None if game is None else (game if isinstance(game, Game) else Game(game))
    out: Dict[str, int] = {}
    try:
        with open(path, encoding="utf-8", newline="") as f:
            header = f.readline().strip()
            if header != POLICY_HEADER:
                raise JobError(f"{path}: header {header!r}, expected {POLICY_HEADER!r}")
            for lineno, line in enumerate(f, start=2):
                line = line.rstrip("\r\n")
                if not line:
                    continue
                parts = line.split(",")
                if len(parts) != 4:
                    raise JobError(f"{path}:{lineno}: expected 4 fields, got {len(parts)}")
                board, action, _seat, game_text = parts
                if g is not None and game_text != str(g):
                    raise JobError(f"{path}:{lineno}: game {game_text!r}, expected {str(g)!r}")
                try:
                    out[board] = int(action)
                except ValueError:
                    raise JobError(f"{path}:{lineno}: action {action!r} is not a move number") from None
    except OSError as e:
        raise JobError(f"cannot read the policy file {path}: {e}") from None
    return out


# -- metrics ----------------------------------------------------------------------------


def write_metrics(path: str, metrics: Mapping[str, Any]) -> None:
    """Writes ``metrics``, a flat JSON object of the program's own numbers (``{"loss":
    0.1}``), atomically. Values must be numbers (ints, floats, numpy scalars; a bool is
    written as 0 or 1); a NaN or infinite number is written as ``null``. Raises
    :class:`JobError` for anything else, so that a bad metric fails in the program
    rather than in sweep."""
    if not isinstance(metrics, Mapping):
        raise JobError(f"metrics are a mapping of names to numbers, not {type(metrics).__name__}")
    out: Dict[str, Any] = {}
    for name, value in metrics.items():
        if not isinstance(name, str) or not name:
            raise JobError(f"metric name {name!r} is not a non-empty text")
        if not isinstance(value, (int, float)) and hasattr(value, "item") and callable(value.item):
            value = value.item()  # a numpy scalar
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, float):
            out[name] = value if math.isfinite(value) else None
        elif isinstance(value, int):
            out[name] = value
        elif value is None:
            out[name] = None
        else:
            raise JobError(f"metric {name!r} = {value!r} is not a number")
    text = json.dumps(out, indent=2, sort_keys=True, allow_nan=False)
    _write_atomic(path, text + "\n")


# -- files ------------------------------------------------------------------------------


def _write_atomic(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    except OSError as e:
        raise JobError(f"cannot write {path}: {e}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise JobError(f"cannot write {path}: {e}") from None
        raise


# -- jobs by hand -----------------------------------------------------------------------


def prepare_job(
    folder: str,
    game,
    seat: Optional[str] = None,
    opponent: str = "random",
    episodes: int = 1000,
    seed: int = 0,
    params: Optional[Mapping[str, Any]] = None,
    checkpoints: Sequence[int] = (),
    job_id: str = "local",
    states: Optional[Iterable[Board]] = None,
) -> Dict[str, str]:
    """Makes a job folder as sweep would (``params.json``, ``states.csv``, a
    ``checkpoints`` folder) and returns the environment variables of the job, to run a
    program by hand: ``subprocess.run(cmd, env={**os.environ, **prepare_job(...)})``.

    ``seat`` is ``"x"`` (the default) or ``"o"`` against a fixed opponent, and ``"both"``
    (the default) against ``"self"``, as sweep gives them. The states file lists
    ``states`` if given, else every ongoing reachable position where the seat (either
    seat in self-play) is to move, as sweep's does. The policy goes to ``policy.csv`` and
    the metrics to ``metrics.json`` in ``folder``.
    """
    g = game if isinstance(game, Game) else Game(game)
    if seat is None:
        seat = BOTH if opponent == "self" else "x"
    if opponent == "self" and seat != BOTH:
        raise ValueError(f"seat {seat!r}: a self-play job's seat is 'both'")
    if opponent != "self" and seat not in SEATS:
        raise ValueError(f"seat {seat!r}: expected 'x' or 'o'")
    os.makedirs(folder, exist_ok=True)
    params = dict(params or {})
    params_path = os.path.join(folder, "params.json")
    data = {
        "job_id": job_id,
        "seed": int(seed),
        "game": str(g),
        "seat": seat,
        "opponent": opponent,
        "episodes": int(episodes),
        "checkpoints": [int(c) for c in checkpoints],
        "params": params,
    }
    _write_atomic(params_path, json.dumps(data, indent=2) + "\n")
    states_path = os.path.join(folder, "states.csv")
    if states is None:
        if seat == BOTH:
            states = [b for b, status in g.positions_with_status() if status == ONGOING]
        else:
            states = g.states(seat)
    write_states(states_path, g, states)
    checkpoints_dir = os.path.join(folder, "checkpoints")
    os.makedirs(checkpoints_dir, exist_ok=True)
    env = {
        "SWEEP_SEED": str(int(seed)),
        "SWEEP_GAME": str(g),
        "SWEEP_SEAT": seat,
        "SWEEP_OPPONENT": opponent,
        "SWEEP_EPISODES": str(int(episodes)),
        "SWEEP_JOB_ID": job_id,
        "SWEEP_PARAMS": params_path,
        "SWEEP_POLICY": os.path.join(folder, "policy.csv"),
        "SWEEP_CHECKPOINTS": checkpoints_dir,
        "SWEEP_CHECKPOINT_EPISODES": ",".join(str(int(c)) for c in checkpoints),
        "SWEEP_STATES": states_path,
        "SWEEP_METRICS": os.path.join(folder, "metrics.json"),
        "SWEEP_SPEC_DIR": os.path.abspath(folder),
    }
    for name, value in params.items():
        env["SWEEP_PARAM_" + name.upper()] = _param_text(value)
    return env


def _param_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
