"""Shared data handling of the plot scripts: reading a results directory, the values of
parameter columns, `--fix` filters and the Student t interval over replicates.

A configuration is every parameter column plus the evaluation opponent; its replicates
differ only in replicate, seed and job_id.

Not a script of its own; every plot_*.py script imports it (and plot_style.py, which
draws). Messages for the user go to stderr; the paths of the PNG
files written go to stdout, one per line, so that other tools can pick them up.
Importing it selects matplotlib's Agg backend (files only, no display).
"""

import argparse
import json
import math
import re
import sys
from functools import lru_cache
from pathlib import Path

try:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display

    import numpy as np
    import pandas as pd
except ImportError as missing:
    print(f"error: {missing.name} is not installed; install the plotting packages with\n"
          "  python3 -m pip install -r scripts/requirements.txt\n"
          "(or run scripts/check_plots.sh, which sets up a virtual environment)", file=sys.stderr)
    sys.exit(2)

# The columns of results.csv and curves.csv come from `sweep columns --json`, stored
# beside this file as columns.json (a test of `sweep` fails when it is stale), so the
# scripts keep no list of their own. Columns only grow, at the end: a file written by an
# older version of `sweep` has the first columns of these lists; every reader requires
# the first version's columns (`since` = 1), and reads a column appended later as ''
# (empty) when a file of an older version lacks it. Columns are always found by name,
# never by position.
_LISTING = json.loads((Path(__file__).resolve().parent / "columns.json").read_text())
RESULTS_COLUMNS = [c["name"] for c in _LISTING["results"]]
CURVES_COLUMNS = [c["name"] for c in _LISTING["curves"]]
PARAM_COLUMNS = [c["name"] for c in _LISTING["results"] if c["role"] == "parameter"]
METRIC_COLUMNS = [c["name"] for c in _LISTING["results"]
                  if c["role"] == "field" and c["type"] == "number"
                  and c["name"] not in ("replicate", "seed")]
SOLVERS = list(_LISTING["solvers"])
FIRST_RESULTS_WIDTH = sum(1 for c in _LISTING["results"] if c["since"] == 1)
FIRST_CURVES_WIDTH = sum(1 for c in _LISTING["curves"] if c["since"] == 1)


class UsageError(Exception):
    """Bad input: the script prints the message and exits with status 2."""


def main_wrapper(main):
    """Runs `main()`, turning a UsageError into `error: ...` on stderr and exit 2."""
    try:
        main()
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)


def note(message):
    """A message for the user (stderr, so stdout stays a list of PNG paths)."""
    print(message, file=sys.stderr)


def parser(description, example):
    """An argument parser whose --help shows `description` as written and ends with an
    example command."""
    p = argparse.ArgumentParser(
        description=description,
        epilog="example:\n  " + example,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("results", metavar="RESULTS",
                   help="a results directory written by `sweep run`, or its results.csv")
    p.add_argument("--out", metavar="DIR",
                   help="where to write the PNG files (default: the results directory)")
    return p


def add_fix_option(p):
    p.add_argument("--fix", metavar="COL=VALUE", action="append", default=[],
                   help="keep only rows whose parameter COL equals VALUE (repeatable)")


# ---------------------------------------------------------------------------- reading

def results_dir(arg):
    """The results directory and its results.csv from a RESULTS argument."""
    path = Path(arg)
    if path.is_dir():
        csv = path / "results.csv"
        if not csv.is_file():
            raise UsageError(f"{path} has no results.csv: is it a results directory "
                             "written by `sweep run`?")
        return path, csv
    if path.is_file():
        return path.parent, path
    raise UsageError(f"no such results directory or file: {path}")


def read_csv(path, columns, what, required=None):
    """Reads a CSV file of the sweep's: every column as text, empty cells as ''.

    The columns of `required` (default: all of `columns`) must be present; the other
    `columns` may be absent (a file of an older version) and then read as ''. Columns the
    script does not know (a file of a newer version) are kept and ignored."""
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[])
    except pd.errors.EmptyDataError:
        raise UsageError(f"{path} is empty (no header, no rows)") from None
    except (OSError, pd.errors.ParserError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {path} as CSV: {err}") from None
    required = columns if required is None else required
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise UsageError(f"{path} is not a {what}: it lacks the column(s) "
                         f"{', '.join(missing)}")
    if df.empty:
        raise UsageError(f"{path} has a header but no rows")
    newer = [c for c in columns if c not in df.columns]
    return df.assign(**{c: "" for c in newer}) if newer else df


def numeric(df, columns):
    """A copy of `df` with `columns` as floats (empty cells become NaN)."""
    df = df.copy()
    for c in columns:
        df[c] = pd.to_numeric(df[c].replace("", np.nan), errors="coerce")
    return df


def load_results(arg, solver):
    """The rows of `solver` in RESULTS: (results_dir, ok, failed).

    `ok` has the rows with status ok and a regret, metrics as floats; `failed` the rows
    that failed (as text), for counting what a plot leaves out. Exits with a clear
    message (UsageError) when the file is missing or unreadable, or has no usable row of
    the solver."""
    directory, csv = results_dir(arg)
    df = read_csv(csv, RESULTS_COLUMNS, "results.csv of `sweep run`",
                  required=RESULTS_COLUMNS[:FIRST_RESULTS_WIDTH])
    rows = df[df["solver"] == solver]
    tested = rows["split"] == "test"
    if tested.any():
        note(f"note: left out {int(tested.sum())} {solver} row(s) of the test split "
             f"(configurations a [test] table re-ran on fresh seeds): the plot shows the tuning rows")
        rows = rows[~tested]
    if rows.empty:
        present = ", ".join(in_order(df["solver"])) or "none"
        raise UsageError(f"{csv} has no {solver} rows (solvers present: {present}); "
                         f"run a spec with a `kind = \"{solver}\"` solver first")
    ok = rows[rows["status"] == "ok"]
    failed = rows[rows["status"] != "ok"]
    if not failed.empty:
        note(f"note: skipped {len(failed)} row(s) of {failed['job_id'].nunique()} failed "
             f"{solver} job(s); see the `error` column of results.csv")
    if ok.empty:
        raise UsageError(f"all {len(rows)} {solver} rows of {csv} failed; nothing to plot")
    ok = numeric(ok, METRIC_COLUMNS)
    bad = ok["regret"].isna().sum()
    if bad:
        note(f"note: skipped {bad} {solver} row(s) with status ok but no regret")
        ok = ok[ok["regret"].notna()]
    return directory, ok.reset_index(drop=True), failed.reset_index(drop=True)


def failed_jobs(failed, fixed=(), **equal):
    """How many failed jobs fall within a plot: the `--fix` pairs in `fixed` (a dict)
    and the exact column values in `equal` (e.g. eval_opponent="random")."""
    keep = np.ones(len(failed), bool)
    for col, value in dict(fixed).items():
        keep &= failed[col].map(lambda v: same_value(v, value)).to_numpy(bool)
    for col, value in equal.items():
        if value is not None:
            keep &= (failed[col] == value).to_numpy()
    return failed.loc[keep, "job_id"].nunique()


def out_dir(args, directory):
    out = Path(args.out) if args.out else directory
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"cannot create output directory {out}: {err}") from None
    return out


# ---------------------------------------------------------------------------- values

def sort_key(value):
    """Numbers in numeric order first, then text in alphabetical order."""
    try:
        return (0, float(value), "")
    except ValueError:
        return (1, 0.0, str(value))


def sorted_values(values):
    return sorted(set(values), key=sort_key)


def show(value):
    """A compact spelling of a CSV value for labels: 1.0 -> 1, 0.9995 stays."""
    try:
        x = float(value)
    except ValueError:
        return str(value)
    if math.isfinite(x) and x == int(x) and abs(x) < 1e15:
        return str(int(x))
    short = f"{x:.6g}"
    return short if float(short) == x else str(value)


def varying(df, columns):
    """The columns of `columns` that take more than one value in `df`."""
    return [c for c in columns if df[c].nunique() > 1]


def constants(df, columns):
    """`name=value` for the columns that take a single, non-empty value in `df`."""
    out = []
    for c in columns:
        values = df[c].unique()
        if len(values) == 1 and values[0] != "":
            out.append(f"{c}={show(values[0])}")
    return out


def parse_fix(items, df, allowed):
    """Applies `--fix col=value` filters to `df`; numbers compare as numbers."""
    fixed = {}
    for item in items:
        if "=" not in item:
            raise UsageError(f"--fix {item!r}: expected COL=VALUE, e.g. --fix epsilon_decay=0.999")
        col, value = (s.strip() for s in item.split("=", 1))
        if col not in allowed:
            raise UsageError(f"--fix {item!r}: {col!r} is not a parameter column; "
                             f"use one of {', '.join(allowed)}")
        present = sorted_values(df[col])
        match = [v for v in present if same_value(v, value)]
        if not match:
            shown = ", ".join(show(v) if v != "" else "(empty)" for v in present)
            raise UsageError(f"--fix {item!r}: no row has {col}={value}; "
                             f"values present: {shown}")
        df = df[df[col].isin(match)]
        fixed[col] = value
    return df, fixed


def same_value(cell, wanted):
    try:
        return math.isclose(float(cell), float(wanted), rel_tol=1e-9, abs_tol=1e-12)
    except ValueError:
        return cell.lower() == wanted.lower()


def config_label(row, columns):
    """`alpha=0.1  gamma=0.9` for the columns that vary."""
    return "  ".join(f"{c}={show(row[c])}" for c in columns) if columns else "all runs"


def slug(text):
    """A file-name-safe spelling of `text`."""
    return re.sub(r"[^A-Za-z0-9.=+-]+", "_", str(text)).strip("_")


def in_order(values, first=()):
    """Distinct values in order of first appearance, `first` ones leading."""
    seen = list(dict.fromkeys(values))
    return [v for v in first if v in seen] + [v for v in seen if v not in first]


def only_eval_opponent(df, name, what):
    """The rows of `df` evaluated against `name` (all rows when `name` is empty); a usage
    error naming the opponents present when there are none. `what` says what the rows are."""
    if not name:
        return df
    present = in_order(df["eval_opponent"])
    df = df[df["eval_opponent"] == name]
    if df.empty:
        raise UsageError(f"--eval-opponent {name}: no {what} against it; present: {', '.join(present)}")
    return df


def sorted_configs(df, columns):
    """The distinct combinations of `columns` in `df`, in value order (one empty row when
    no column varies)."""
    if not columns:
        return df[[]].head(1)
    configs = df[columns].drop_duplicates()
    return configs.sort_values(columns, key=lambda s: s.map(sort_key))


# ---------------------------------------------------------------------------- statistics

@lru_cache(maxsize=None)
def t_quantile(p, dof):
    """The p-quantile (p in (0.5, 1)) of Student's t with an integer number of degrees
    of freedom, found by bisection on the exact closed-form CDF (Abramowitz & Stegun
    26.7.3-26.7.4). Beyond 10^4 degrees of freedom the normal quantile is used (it
    differs by less than 3e-4 there). For a two-sided 95% interval use p = 0.975."""
    if not 0.5 < p < 1 or dof < 1 or int(dof) != dof:
        raise ValueError("t_quantile needs 0.5 < p < 1 and an integer dof >= 1")
    dof = int(dof)
    central = 2 * p - 1  # P(|T| <= t)
    cdf = (lambda t: math.erf(t / math.sqrt(2))) if dof > 10_000 else (lambda t: _t_central(t, dof))
    lo, hi = 0.0, 1.0
    while cdf(hi) < central:
        lo, hi = hi, hi * 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if cdf(mid) < central:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13 * hi:
            break
    return (lo + hi) / 2


def _t_central(t, dof):
    """P(|T| <= t) for Student's t with `dof` (integer) degrees of freedom."""
    theta = math.atan(t / math.sqrt(dof))
    s, c = math.sin(theta), math.cos(theta)
    if dof % 2 == 1:
        # (2/pi) * (theta + sin * [cos + 2/3 cos^3 + (2*4)/(3*5) cos^5 + ...])
        total, term = 0.0, c
        for k in range(1, (dof - 1) // 2 + 1):
            total += term
            term *= c * c * (2 * k) / (2 * k + 1)
        return 2 / math.pi * (theta + s * total)
    # sin * [1 + 1/2 cos^2 + (1*3)/(2*4) cos^4 + ...]
    total, term = 0.0, 1.0
    for k in range(1, dof // 2 + 1):
        total += term
        term *= c * c * (2 * k - 1) / (2 * k)
    return s * total


def summarize(df, keys, column="regret"):
    """Mean of `column` per group of `keys`, with n, the standard deviation and the
    95% Student-t interval [lo, hi] (NaN when n = 1). Regret lies between 0 and
    optimal_value + 1 (a policy cannot do worse than lose every game), so for it the
    interval is clipped at 0 and, when `df` has an optimal_value column, at the largest
    regret possible in the group."""
    capped = column == "regret" and "optimal_value" in df.columns
    df = df.assign(_worst=df["optimal_value"] + 1 if capped else np.nan)
    out = df.groupby(keys, sort=False, dropna=False).agg(
        mean=(column, "mean"), sd=(column, "std"), n=(column, "count"),
        worst=("_worst", "max")).reset_index()
    t = out["n"].map(lambda n: t_quantile(0.975, n - 1) if n >= 2 else np.nan)
    half = t * out["sd"] / np.sqrt(out["n"])
    out["lo"] = out["mean"] - half
    out["hi"] = out["mean"] + half
    if column == "regret":
        out["lo"] = out["lo"].clip(lower=0)
    if capped:
        out["hi"] = np.minimum(out["hi"], out["worst"])  # NaN (n = 1) stays NaN
    return out.drop(columns="worst")
