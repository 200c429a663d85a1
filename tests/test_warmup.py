"""The compile notice: said only when the block takes long (compiling, not loading from numba's cache)."""

import io
import threading
import time

from simkit import warmup


def test_notice_only_when_slow(monkeypatch):
    monkeypatch.setattr(warmup, "DELAY", 0.05)
    threads = threading.active_count()  # other tests in this process may have left threads of their own
    out = io.StringIO()
    with warmup.compile_notice("the test kernel", stream=out):
        pass
    assert out.getvalue() == ""
    with warmup.compile_notice("the test kernel", stream=out):
        time.sleep(0.2)
    lines = out.getvalue().splitlines()
    assert lines[0] == "simkit: compiling the test kernel (first run only; cached afterwards) ..."
    assert lines[1].startswith("simkit: compiled in ")
    assert threading.active_count() == threads  # the timer thread is gone
    out = io.StringIO()
    with warmup.compile_notice("x", enabled=False, stream=out):
        time.sleep(0.1)
    assert out.getvalue() == ""
