"""Bit intrinsics for uint32 card masks: ``popcount`` and ``cttz`` (trailing zeros) as LLVM ``ctpop``/``cttz``.

DESIGN.md measured these as 3-10x faster than bit tricks; ``np.bitwise_count`` does not compile inside njit.
Both take any integer, compute on its uint32 value and return an int64. ``cttz(0)`` is undefined: never call it
with an empty mask. ``msb(mask)`` is the index of the highest set bit (LLVM ``ctlz``; also never for 0). ``nth_bit(mask, r)`` is the card index of the r-th (0-based) set bit, lowest first.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _ctpop32(typingctx, x):
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(x)

    def codegen(context, builder, signature, args):
        v = context.cast(builder, args[0], signature.args[0], types.uint32)
        r = builder.ctpop(v)
        return builder.zext(r, ir.IntType(64))

    return sig, codegen


@intrinsic
def _ctlz32(typingctx, x):
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(x)

    def codegen(context, builder, signature, args):
        v = context.cast(builder, args[0], signature.args[0], types.uint32)
        r = builder.ctlz(v, ir.Constant(ir.IntType(1), 1))  # zero input is undefined (poison): never passed
        return builder.zext(r, ir.IntType(64))

    return sig, codegen


@intrinsic
def _cttz32(typingctx, x):
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(x)

    def codegen(context, builder, signature, args):
        v = context.cast(builder, args[0], signature.args[0], types.uint32)
        r = builder.cttz(v, ir.Constant(ir.IntType(1), 1))  # zero input is undefined (poison): never passed
        return builder.zext(r, ir.IntType(64))

    return sig, codegen


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of the uint32 value of ``x``."""
    return _ctpop32(x)


@njit(cache=True, inline="always")
def cttz(x):
    """Index of the lowest set bit of the uint32 value of ``x`` (``x`` must not be 0)."""
    return _cttz32(x)


@njit(cache=True, inline="always")
def nth_bit(mask, r):
    """Index of the ``r``-th set bit (0-based, lowest first) of a non-empty uint32 mask with more than r bits."""
    m = mask
    for _ in range(r):
        m &= m - 1
    return _cttz32(m)


@njit(cache=True, inline="always")
def msb(m):
    """Index of the highest set bit of a non-empty mask (the strongest side card of a suit, for instance)."""
    return 31 - _ctlz32(m)
