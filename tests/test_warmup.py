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
