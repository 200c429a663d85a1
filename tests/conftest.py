import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The shared folder sits beside the repository (`../shared`); SIMKIT_SHARED overrides.
SHARED = Path(os.environ.get("SIMKIT_SHARED", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures"


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Before pytest-xdist starts its workers (its own sessionstart), compile every kernel once
    (``python -m simkit.warmup``, both cores), so that the workers load them from numba's cache instead of each
    compiling the ones its tests need. Only for ``-n N`` runs; ``SIMKIT_NO_WARMUP=1`` skips it."""
    config = session.config
    if (hasattr(config, "workerinput") or os.environ.get("SIMKIT_NO_WARMUP") == "1"
            or not getattr(config.option, "numprocesses", None) or config.option.collectonly):
        return
    jobs = min(2, os.cpu_count() or 1)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "simkit.warmup", "--jobs", str(jobs)], cwd=REPO,
                       capture_output=True, text=True)
    tr = config.pluginmanager.get_plugin("terminalreporter")
    say = tr.write_line if tr is not None else (lambda s: print(s, file=sys.stderr))
    if r.returncode != 0:  # the tests then compile what they need, and fail where it matters
        say(f"simkit warm-up failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
    else:
        say(f"simkit: every kernel compiled or loaded in {time.perf_counter() - t0:.1f} s before the workers started "
            "(SIMKIT_NO_WARMUP=1 skips this)")


@pytest.fixture
def real_games_file():
    path = FIXTURES / "real-games-sample.jsonl"
    if not path.is_file():
        pytest.skip(f"real games not available ({path} is absent)")
    return path
