"""Shared fixtures: this tree's package on the path, the ``sweep`` binary, optional
libraries.

The binary is ``$SWEEP`` if set, else ``target/release/sweep`` under the repository root.
When it is missing the tests that need it are skipped, or fail when
``SWEEP_REQUIRE_BINARY=1``. Likewise the Gymnasium and PettingZoo checks are skipped
without those libraries, or fail when ``SWEEP_REQUIRE_GYM=1``.
"""

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PYTHON = TESTS.parent
ROOT = PYTHON.parent

# the package of this source tree, even when another copy is installed
sys.path.insert(0, str(PYTHON))
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))


def _binary():
    """(path or None, why it is missing)."""
    given = os.environ.get("SWEEP")
    if given:
        if os.path.isfile(given) and os.access(given, os.X_OK):
            return given, ""
        return None, f"SWEEP={given} is not an executable file"
    built = ROOT / "target" / "release" / "sweep"
    if built.is_file() and os.access(built, os.X_OK):
        return str(built), ""
    return None, "no sweep binary: set SWEEP or run `cargo build --release` (target/release/sweep)"


@pytest.fixture(scope="session")
def sweep_bin():
    """The path of the sweep binary (skips, or fails under SWEEP_REQUIRE_BINARY=1)."""
    path, why = _binary()
    if path is None:
        if os.environ.get("SWEEP_REQUIRE_BINARY") == "1":
            pytest.fail(f"SWEEP_REQUIRE_BINARY=1 but {why}")
        pytest.skip(why)
    return path


@pytest.fixture(scope="session")
def run_sweep(sweep_bin):
    """Runs ``sweep <args>`` (in ``cwd``) and returns its standard output (fails on a
    non-zero exit)."""

    def run(*args, cwd=None):
        r = subprocess.run([sweep_bin, *args], capture_output=True, text=True, timeout=600, cwd=cwd)
        assert r.returncode == 0, f"sweep {' '.join(args)} exited {r.returncode}: {r.stderr}"
        return r.stdout

    return run


def require(module):
    """Imports ``module``; skips the test without it, or fails under SWEEP_REQUIRE_GYM=1."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        if os.environ.get("SWEEP_REQUIRE_GYM") == "1":
            pytest.fail(f"SWEEP_REQUIRE_GYM=1 but {module} cannot be imported: {e}")
        pytest.skip(f"{module} is not installed")
