"""The compile notice: said only when the block takes long (compiling, not loading from numba's cache)."""

import io
import threading
import time

from simkit import warmup
from simkit.engine import notices


def test_notice_only_when_slow(monkeypatch):
    monkeypatch.setattr(notices, "DELAY", 0.05)
    threads = threading.active_count()  # other tests in this process may have left threads of their own
    out = io.StringIO()
    with warmup.compile_notice("the test kernel", stream=out):
        pass
    assert out.getvalue() == ""
    with warmup.compile_notice("the test kernel", stream=out):
        time.sleep(0.2)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("simkit: compiling the test kernel (first run only; cached afterwards) ... ")
    assert lines[0].endswith(" s")
    assert threading.active_count() == threads  # the timer thread is gone
    out = io.StringIO()
    with warmup.compile_notice("x", enabled=False, stream=out):
        time.sleep(0.1)
    assert out.getvalue() == ""


def test_nested_notice_says_nothing(monkeypatch):
    monkeypatch.setattr(notices, "DELAY", 0.05)
    out = io.StringIO()
    with warmup.compile_notice("the outer kernel", stream=out):
        with warmup.compile_notice("its callee", stream=out):
            time.sleep(0.2)
    assert out.getvalue().count("simkit: compiling") == 1
    assert "the outer kernel" in out.getvalue()


def test_plan_keeps_each_family_in_one_process():
    groups = warmup.plan(list(warmup.KERNELS), 2)
    assert len(groups) == 2 and sorted(sum(groups, [])) == sorted(warmup.KERNELS)
    for g in groups:
        for family in {warmup.KERNELS[n].family for n in g}:
            assert all(warmup.KERNELS[n].family != family for other in groups if other is not g for n in other)
    assert warmup.plan(["game", "search"], 8) == [["game"], ["search"]]
    assert warmup.plan(["game", "people"], 8) == [["game", "people"]]


_ONE_EACH = '''
import gc, json
from numba.core.dispatcher import Dispatcher
from simkit import warmup
warmup.warm()
from simkit.cards import parse_hands
from simkit.engine.game import play_games
from simkit.rules.contracts import WENZ, Contract
from simkit.solver import Position, position_value, solve, threshold
play_games(3, 0, 2, seats=("pimc", "heuristic", "people", "random"), ruleset="sauspiel")
play_games(3, 0, 20, seats="random", contract="rufspiel", declarer=2, trace=True)
pos = Position.opening(parse_hands(["EO GO HO SO EU GU HU SU", "EA EZ EK E9 E8 E7 GA GZ", "GK G9 G8 G7 HA HZ HK H9",
                                    "H8 H7 SA SZ SK S9 S8 S7"]), Contract(WENZ), 0)
for objective in ("win", "points", "payout"):
    solve(pos, objective)
    position_value(pos, objective)
threshold(pos, points=31)
threshold(pos, tricks=3)
print(json.dumps(sorted(f"{d.py_func.__module__}.{d.py_func.__qualname__}: {[str(s) for s in d.overloads]}"
                        for d in gc.get_objects() if isinstance(d, Dispatcher) and len(d.overloads) > 1)))
'''


def test_every_kernel_compiles_one_specialisation(tmp_path):
    """No kernel or helper is compiled twice for other argument types or constants (a constant argument is a
    ``Literal`` type of its own, an int8 card and an int64 one are two types: each costs a compile more): every
    kernel of the warm-up, then every objective, threshold and a mixed table of strategies, in a fresh process with
    an empty cache (a kernel loaded from the cache does not compile its callees, which would hide them), and still
    one signature per dispatcher. About a minute of compiling."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    r = subprocess.run([sys.executable, "-c", _ONE_EACH], capture_output=True, text=True, timeout=1800, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads(r.stdout.strip().splitlines()[-1]) == []
