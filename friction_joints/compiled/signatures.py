"""The kernel protocol of the compiled engine: what a model gives the compiled integrator.

A model compiles to three numba functions with the explicit signatures below (so that the
integrator, compiled once and cached, calls them as first-class functions):

    rhs(t, y, tau, fpar, ipar, fmode, imode, dy) -> status      dy = dy/dt in the mode
    events(t, y, tau, fpar, ipar, fmode, imode, g) -> status    g[i]: event function i of the mode,
                                                                 in the order of ``system.events(mode)``
    record(t, y, tau, fpar, ipar, fmode, imode, out) -> status  out: the recorded quantities, flat

t: time (s); y: (n_y,) state; tau: (n_inputs,) input values at t; fpar, ipar: the model as arrays
(float64 and int64, built once from the Python model, never written); fmode, imode: the mode as
arrays; status: 0 on success, a positive model-defined code on failure (a singular configuration,
a coupled solve that does not converge), which the integrator stops on and Python turns into an
exception with the model's message for that code.
"""

from numba import types

F64 = types.float64
VEC = types.float64[::1]
IVEC = types.int64[::1]
#: signature shared by rhs, events and record
KERNEL = types.int64(F64, VEC, VEC, VEC, IVEC, VEC, IVEC, VEC)
KERNEL_TYPE = types.FunctionType(KERNEL)
