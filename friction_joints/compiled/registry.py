"""The compiled models by number: one place that lists them and calls their kernels.

The integrator calls a model's kernels through ``rhs``, ``events`` and ``record`` below, with the
model's number: static calls that numba can cache (a kernel passed as a first-class function
cannot be cached with its caller, and unboxing one costs tens of microseconds per call).
Adding a model: import its module, append its kernels to MODELS and a branch to each dispatcher.
"""

from __future__ import annotations

from numba import njit, types

from . import absolute, lumped, planar, spatial, steering, vehicle
from .signatures import F64, IVEC, VEC

MODELS = (planar, spatial, lumped, steering, vehicle, absolute)  # a model's number is its index here
PLANAR, SPATIAL, LUMPED, STEERING, VEHICLE, ABSOLUTE = range(6)

DISPATCH = types.int64(types.int64, F64, VEC, VEC, VEC, IVEC, VEC, IVEC, VEC)


def model_id(compiled) -> int:
    """The number of the model whose kernels ``compiled`` (a CompiledModel) holds."""
    for number, module in enumerate(MODELS):
        if compiled.rhs is module.rhs:
            return number
    raise ValueError(f"the kernels {compiled.rhs} are not registered in friction_joints.compiled.registry")


@njit(DISPATCH, cache=True)
def rhs(model, t, y, tau, fpar, ipar, fmode, imode, out):
    if model == PLANAR:
        return planar.rhs(t, y, tau, fpar, ipar, fmode, imode, out)
    if model == SPATIAL:
        return spatial.rhs(t, y, tau, fpar, ipar, fmode, imode, out)
    if model == LUMPED:
        return lumped.rhs(t, y, tau, fpar, ipar, fmode, imode, out)
    if model == STEERING:
        return steering.rhs(t, y, tau, fpar, ipar, fmode, imode, out)
    if model == ABSOLUTE:
        return absolute.rhs(t, y, tau, fpar, ipar, fmode, imode, out)
    return vehicle.rhs(t, y, tau, fpar, ipar, fmode, imode, out)


@njit(DISPATCH, cache=True)
def events(model, t, y, tau, fpar, ipar, fmode, imode, out):
    if model == PLANAR:
        return planar.events(t, y, tau, fpar, ipar, fmode, imode, out)
    if model == SPATIAL:
        return spatial.events(t, y, tau, fpar, ipar, fmode, imode, out)
    if model == LUMPED:
        return lumped.events(t, y, tau, fpar, ipar, fmode, imode, out)
    if model == STEERING:
        return steering.events(t, y, tau, fpar, ipar, fmode, imode, out)
    if model == ABSOLUTE:
        return absolute.events(t, y, tau, fpar, ipar, fmode, imode, out)
    return vehicle.events(t, y, tau, fpar, ipar, fmode, imode, out)


@njit(DISPATCH, cache=True)
def record(model, t, y, tau, fpar, ipar, fmode, imode, out):
    if model == PLANAR:
        return planar.record(t, y, tau, fpar, ipar, fmode, imode, out)
    if model == SPATIAL:
        return spatial.record(t, y, tau, fpar, ipar, fmode, imode, out)
    if model == LUMPED:
        return lumped.record(t, y, tau, fpar, ipar, fmode, imode, out)
    if model == STEERING:
        return steering.record(t, y, tau, fpar, ipar, fmode, imode, out)
    if model == ABSOLUTE:
        return absolute.record(t, y, tau, fpar, ipar, fmode, imode, out)
    return vehicle.record(t, y, tau, fpar, ipar, fmode, imode, out)
