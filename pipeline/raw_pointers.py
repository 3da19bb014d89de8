"""Raw pointers to array data, for compiled code called many times per row.

Every compiled function that takes an array counts a reference to it on entry and drops it on exit, with
atomic instructions, and a function inlined by numba does the same for each array it is handed. In a kernel
made of many small steps per row (a JSON scanner, a search over hand classes) those counts can take more time
than the work itself; a pointer carries no count. The array must outlive every use of its pointer.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

BYTES = types.CPointer(types.uint8)


@intrinsic
def address(typingctx, array):  # type: ignore[no-untyped-def]
    """The data of a C-contiguous array as a pointer to its element type (index it like a 1-D array)."""
    if not (isinstance(array, types.Array) and array.layout == "C"):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return context.make_array(signature.args[0])(context, builder, args[0]).data

    return types.CPointer(array.dtype)(array), codegen


@intrinsic
def load8(typingctx, data, at):  # type: ignore[no-untyped-def]
    """The 8 bytes ``data[at:at + 8]`` of a byte pointer as one native-order integer (an unaligned load; the
    caller checks bounds)."""
    if data != BYTES or not isinstance(at, types.Integer):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        start = builder.gep(args[0], [args[1]])
        return builder.load(builder.bitcast(start, ir.IntType(64).as_pointer()), align=1)

    return types.uint64(data, at), codegen
