"""Running the `simkit` command from tests the way a user does: a separate process of this Python."""

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
SIMKIT = [sys.executable, "-m", "simkit.cli"]


def simkit(*args, cwd=None, env=None) -> subprocess.CompletedProcess:
    """``simkit ARGS...`` in ``cwd`` (default: the repository), output captured as text; ``env`` replaces the
    environment."""
    return subprocess.run([*SIMKIT, *map(str, args)], capture_output=True, text=True, cwd=cwd or REPO, env=env)


def read_parts(out: Path):
    """The rows of every ``part-*.parquet`` of a run directory, in shard order, as a pandas DataFrame."""
    return pq.read_table(sorted(out.glob("part-*.parquet"))).to_pandas()
