"""Telling the user when numba compiles: re-exports simkit.engine.notices (``compile_notice``, ``silenced``), which
stands at the engine's floor so that the kernels' own compile notices import nothing above them."""

from simkit.engine.notices import DELAY, compile_notice, silenced  # noqa: F401
