"""Input signals of the hybrid integrator: any callable of time, or tables whose breakpoints are
time events (a jump of a piecewise-constant table, a kink of a piecewise-linear one)."""

from __future__ import annotations

import numpy as np


class Signal:
    """A scalar input u(t). ``breakpoints`` are the times where it or its slope jumps."""

    breakpoints: np.ndarray = np.zeros(0)

    def __call__(self, t: float, left: bool = False) -> float:
        """The value at t; ``left``: the left limit (the value held up to a jump at t)."""
        raise NotImplementedError


class FunctionSignal(Signal):
    """Wraps a smooth callable t -> value (no time events)."""

    def __init__(self, fn):
        if not callable(fn):
            raise ValueError(f"an input signal must be callable or a number, got {fn!r}")
        self.fn = fn

    def __call__(self, t, left=False):
        return float(self.fn(t))


class _Table(Signal):
    def __init__(self, times, values):
        times, values = np.asarray(times, dtype=float), np.asarray(values, dtype=float)
        if times.ndim != 1 or times.shape != values.shape or len(times) < 1:
            raise ValueError("times and values must be 1-D arrays of the same length >= 1")
        if np.any(np.diff(times) <= 0) or not np.all(np.isfinite(times)) or not np.all(np.isfinite(values)):
            raise ValueError("times must be finite and strictly increasing, values finite")
        self.times, self.values = times, values
        self.breakpoints = times


class PiecewiseConstant(_Table):
    """values[i] on [times[i], times[i+1]); values[0] before times[0]; jumps are time events."""

    def __call__(self, t, left=False):
        i = np.searchsorted(self.times, t, side="left" if left else "right") - 1
        return float(self.values[max(i, 0)])


class PiecewiseLinear(_Table):
    """Linear interpolation between the table points, held constant outside; kinks are time events."""

    def __call__(self, t, left=False):
        return float(np.interp(t, self.times, self.values))


def as_signal(obj) -> Signal:
    """A Signal from a Signal, a number (constant) or a callable of time."""
    if isinstance(obj, Signal):
        return obj
    if np.isscalar(obj):
        value = float(obj)
        if not np.isfinite(value):
            raise ValueError(f"a constant input must be finite, got {obj!r}")
        return FunctionSignal(lambda t: value)
    return FunctionSignal(obj)


class Held(Signal):
    """A value set from outside and held constant, like an FMU input between communication points
    (a change is announced to the integrator by ``HybridIntegrator.restart``)."""

    def __init__(self, value=0.0):
        self.value = float(value)

    def __call__(self, t, left=False):
        return self.value
