"""``prefetch_row(array, row)``: ask the CPU to start loading a row of a 2-d array into the cache (LLVM's
``llvm.prefetch``, x86 ``prefetcht0``), so that a transposition-table probe issued later finds its bucket there.

The search computes a trick-boundary position's table key and prefetches its bucket before computing the
declaring side's bound (:func:`simkit.solver.search.guaranteed`), which hides much of the memory access: the
probe after the bound seldom waits for main memory (DEVELOPERS.md has the measurements). A prefetch is only a
hint: it never faults, and a row index past the array is not passed.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch_row(typingctx, array, row):
    sig = types.void(array, row)

    def codegen(context, builder, signature, args):
        arrty = signature.args[0]
        arr = context.make_array(arrty)(context, builder, value=args[0])
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        ptr = cgutils.get_item_pointer2(context, builder, data=arr.data,
                                        shape=cgutils.unpack_tuple(builder, arr.shape),
                                        strides=cgutils.unpack_tuple(builder, arr.strides), layout=arrty.layout,
                                        inds=[index, context.get_constant(types.intp, 0)], boundscheck=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch.p0")
        # read (0), keep in every cache level (3), data (1)
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen
