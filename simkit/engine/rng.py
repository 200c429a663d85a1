"""splitmix64, a counter-based generator: every random stream is keyed on (run seed, deal index, stream id).

A deal's randomness is a pure function of (seed, index), so a result never depends on batching, chunking or the
number of threads, and a deal can be regenerated from (seed, index) alone.

* ``stream_state(seed, index, stream)`` -> the uint64 starting state of one stream of one deal.
* ``next_u64(state)`` -> (output, new_state): one splitmix64 step (state += golden gamma, then the mix).
* ``below(state, n)`` -> (r, new_state) with ``r = next_u64 % n`` (0 <= r < n; n > 0).

Stream ids used by the engine: :data:`STREAM_DEAL` (the shuffle), :data:`STREAM_PLAY` (the play policies),
:data:`STREAM_SETUP` (random contract setups for tests and benchmarks); whole deals (simkit.engine.game) give each
seat's strategy its own stream :data:`STREAM_STRATEGY` + seat (3..6), draw the called suit of a forced Rufspiel
without a suit from :data:`STREAM_FORCED` and the cards each seat has seen when it is asked to knock (Klopfen) from
:data:`STREAM_KLOPFEN`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)
S32 = np.uint64(32)
STREAM_KEY = np.uint64(0xD1B54A32D192ED03)

STREAM_DEAL = 0
STREAM_PLAY = 1
STREAM_SETUP = 2
STREAM_STRATEGY = 3  # + seat 0..3: the stream each seat's strategy draws from (info[I_RNG])
STREAM_FORCED = 7
STREAM_KLOPFEN = 8


@njit(cache=True, inline="always")
def mix64(z):
    """The splitmix64 output function (a bijection of uint64)."""
    z = np.uint64(z)
    z = (z ^ (z >> S30)) * M1
    z = (z ^ (z >> S27)) * M2
    return z ^ (z >> S31)


@njit(cache=True, inline="always")
def next_u64(state):
    """One splitmix64 step: returns (64 random bits, new state)."""
    s = np.uint64(state) + GOLDEN
    return mix64(s), s


@njit(cache=True, inline="always")
def stream_state(seed, index, stream):
    """Starting state of stream ``stream`` of deal ``index`` of run ``seed`` (all taken as uint64)."""
    k = mix64(np.uint64(seed) + GOLDEN * np.uint64(stream + 1))
    k = mix64(k ^ (np.uint64(index) * STREAM_KEY))
    return k


@njit(cache=True, inline="always")
def below(state, n):
    """A draw in 0..n-1: ``next_u64 % n`` computed on the high 32 bits; returns (r, new state). n in 1..2**32-1."""
    x, s = next_u64(state)
    return np.int64(np.uint32(x >> S32) % np.uint32(n)), s
