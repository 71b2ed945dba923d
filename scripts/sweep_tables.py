"""Tables that the `sweep` binary computes (`sweep compare --csv`, `sweep importance
--csv`), read for the plot scripts: either from a CSV file the user saved, or by running
the binary on a results directory.

The binary is found, in this order: the script's --sweep PATH, the SWEEP environment
variable, `sweep` on PATH, then target/release/sweep and target/debug/sweep under the
repository root (a `cargo build` from a clone). Not a script of its own.
"""

import io
import os
import shutil
import subprocess
from pathlib import Path

import plot_common as pc  # first: it checks the packages and selects the Agg backend
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

COMPARE_COLUMNS = ["solver", "seat", "eval_opponent", "label", "configuration", "n", "mean",
                   "difference", "ci_low", "ci_high", "p_holm", "verdict"]
IMPORTANCE_COLUMNS = ["solver", "seat", "eval_opponent", "term", "share"]
NUMBERS = ["n", "mean", "difference", "ci_low", "ci_high", "p_t", "p_wilcoxon",
           "p_holm", "p_improve", "share", "p_floor"]


def add_sweep_option(p):
    p.add_argument("--sweep", metavar="PATH",
                   help="the sweep binary (default: $SWEEP, then sweep on PATH, then "
                        "target/release/sweep or target/debug/sweep of this repository)")


def find_sweep(given=None):
    """The path of the sweep binary, or a UsageError saying how to provide one."""
    candidates = [given] if given else [
        os.environ.get("SWEEP"), shutil.which("sweep"),
        ROOT / "target" / "release" / "sweep", ROOT / "target" / "debug" / "sweep"]
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return str(c)
    if given:
        raise pc.UsageError(f"--sweep {given}: no such executable")
    raise pc.UsageError("cannot find the sweep binary: pass --sweep PATH, set SWEEP, put "
                        "sweep on PATH or build it (cargo build --release); or give a CSV "
                        "file written by `sweep ... --csv`")


def is_table(arg, columns):
    """Whether RESULTS names a CSV file whose header has `columns` (a saved table rather
    than a results.csv)."""
    path = Path(arg)
    if not path.is_file():
        return False
    try:
        with open(path, newline="") as f:
            header = f.readline().strip().split(",")
    except (OSError, UnicodeDecodeError):
        return False
    return all(c in header for c in columns)


def table(arg, command, options, columns, sweep=None):
    """(directory, table) for RESULTS `arg`: a saved CSV with `columns` is read as it is;
    a results directory (or results.csv) is handed to `sweep COMMAND RESULTS OPTIONS
    --csv`. Numeric columns become floats. The directory is where the figure goes."""
    if is_table(arg, columns):
        path = Path(arg)
        df = pc.read_csv(path, columns, f"table of `sweep {command} --csv`")
        return path.parent, numbers(df)
    directory, _ = pc.results_dir(arg)
    argv = [find_sweep(sweep), command, str(directory), *options, "--csv"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True)
    except OSError as err:
        raise pc.UsageError(f"cannot run {argv[0]}: {err}") from None
    if done.returncode != 0:
        said = done.stderr.strip().removeprefix("error: ")
        raise pc.UsageError(f"`sweep {command}` refused: {said}")
    try:
        df = pd.read_csv(io.StringIO(done.stdout), dtype=str, keep_default_na=False,
                         na_values=[])
    except pd.errors.EmptyDataError:
        raise pc.UsageError(f"`sweep {command}` wrote no table") from None
    missing = [c for c in columns if c not in df.columns]
    if missing or df.empty:
        raise pc.UsageError(f"`sweep {command} --csv` wrote no rows or lacks "
                            f"{', '.join(missing)}; is {argv[0]} an older version?")
    return directory, numbers(df)


def numbers(df):
    return pc.numeric(df, [c for c in NUMBERS if c in df.columns])


def blocks(df):
    """The (solver, seat, eval_opponent) blocks of a table, in order of appearance."""
    keys = ["solver", "seat", "eval_opponent"]
    return [(tuple(k), part) for k, part in df.groupby(keys, sort=False)]
