"""How compiled code calls a model's kernels: through their addresses, given at run time.

The integrator (``dop853.advance``) takes a model's kernels as ``kernel_addresses(model)``, the
addresses of their compiled entry points, and calls them through ``rhs``, ``events`` and ``record``
below. It is therefore compiled once for every model and knows none of them: numba links (and
optimises and emits again) the code of every function a compiled function calls by name, so an
integrator that called the kernels of six models by name compiled all of them again, 70 s of the
engine's cold compile. An address is read when a model is run, never cached, so the on-disk cache of
the integrator and the kernels' own caches stay independent. A kernel that raised (it should not:
they report failures as status codes) gives KERNEL_RAISED.

Adding a model needs nothing here: list its kernel module in ``MODULES`` (``python -m
friction_joints.compiled`` compiles them ahead of use; a run loads only its model's, ``engine.load_compiled``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core.extending import intrinsic

from .signatures import KERNEL

RHS, EVENTS, RECORD = range(3)  # the slots of kernel_addresses
KERNEL_RAISED = -1  # the status of a kernel that raised an exception
MODULES = ("absolute", "lumped", "planar", "spatial", "steering", "vehicle")  # the kernel modules


def kernel_addresses(model) -> np.ndarray:
    """(3,) int64: the addresses of the entry points of model.rhs, model.events and model.record (a
    CompiledModel), in the calling convention of numba's compiled functions."""
    out = np.empty(3, dtype=np.int64)
    for slot, kernel in ((RHS, model.rhs), (EVENTS, model.events), (RECORD, model.record)):
        result = kernel.overloads[KERNEL.args]
        out[slot] = result.library.get_pointer_to_function(result.fndesc.llvm_func_name)
    return out


@intrinsic
def _call(typingctx, address, t, y, tau, fpar, ipar, fmode, imode, out):
    """The kernel at ``address`` (int64) called with the arguments of signatures.KERNEL."""
    signature = types.int64(types.int64, *KERNEL.args)

    def codegen(context, builder, sig, args):
        function_type = context.call_conv.get_function_type(KERNEL.return_type, KERNEL.args)
        function = builder.inttoptr(args[0], function_type.as_pointer())
        status, result = context.call_conv.call_function(builder, function, KERNEL.return_type, KERNEL.args,
                                                         args[1:])
        return builder.select(status.is_ok, result, context.get_constant(types.int64, KERNEL_RAISED))

    return signature, codegen


@njit(inline="always")
def rhs(kernels, t, y, tau, fpar, ipar, fmode, imode, dy):
    return _call(kernels[RHS], t, y, tau, fpar, ipar, fmode, imode, dy)


@njit(inline="always")
def events(kernels, t, y, tau, fpar, ipar, fmode, imode, g):
    return _call(kernels[EVENTS], t, y, tau, fpar, ipar, fmode, imode, g)


@njit(inline="always")
def record(kernels, t, y, tau, fpar, ipar, fmode, imode, out):
    return _call(kernels[RECORD], t, y, tau, fpar, ipar, fmode, imode, out)
