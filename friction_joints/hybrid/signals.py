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

    def form(self, t_start: float, t_end: float):
        """u on [t_start, t_end] (no breakpoint inside) as the compiled engine evaluates it: (0, a, b, 0, 0)
        for u = a + b (t - t_start), (1, a, b, c, d) for u = a + b sin(c t + d); None if it has no such
        form (an arbitrary callable: the Python engine runs it)."""
        return None


class FunctionSignal(Signal):
    """Wraps a smooth callable t -> value (no time events)."""

    def __init__(self, fn):
        if not callable(fn):
            raise ValueError(f"an input signal must be callable or a number, got {fn!r}")
        self.fn = fn

    def __call__(self, t, left=False):
        return float(self.fn(t))


class Sine(Signal):
    """u(t) = offset + amplitude sin(omega t + phase): the papers' harmonic inputs (a cosine has
    phase pi/2), smooth, and evaluated inside the compiled engine. omega in rad/s."""

    def __init__(self, amplitude, omega, phase=0.0, offset=0.0):
        self.amplitude, self.omega, self.phase, self.offset = map(float, (amplitude, omega, phase, offset))
        for name in ("amplitude", "omega", "phase", "offset"):
            if not np.isfinite(getattr(self, name)):
                raise ValueError(f"{name} of a Sine must be finite, got {getattr(self, name)!r}")

    def __call__(self, t, left=False):
        return self.offset + self.amplitude * np.sin(self.omega * t + self.phase)

    def form(self, t_start, t_end):
        return 1.0, self.offset, self.amplitude, self.omega, self.phase


class Constant(Signal):
    """A constant input."""

    def __init__(self, value):
        self.value = float(value)
        if not np.isfinite(self.value):
            raise ValueError(f"a constant input must be finite, got {value!r}")

    def __call__(self, t, left=False):
        return self.value

    def form(self, t_start, t_end):
        return 0.0, self.value, 0.0, 0.0, 0.0


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

    def form(self, t_start, t_end):
        return 0.0, self(t_start), 0.0, 0.0, 0.0


class PiecewiseLinear(_Table):
    """Linear interpolation between the table points, held constant outside; kinks are time events."""

    def __call__(self, t, left=False):
        return float(np.interp(t, self.times, self.values))

    def form(self, t_start, t_end):
        value = self(t_start)
        return 0.0, value, (self(t_end) - value) / (t_end - t_start) if t_end > t_start else 0.0, 0.0, 0.0


def as_signal(obj) -> Signal:
    """A Signal from a Signal, a number (constant) or a callable of time."""
    if isinstance(obj, Signal):
        return obj
    if np.isscalar(obj):
        return Constant(obj)
    return FunctionSignal(obj)


class Held(Signal):
    """A value set from outside, like an FMU input between communication points: ``value`` at ``t0``
    (s), changing at ``rate`` (per s; 0: held constant, the usual case; else an input interpolated
    linearly over the step, FMI 2.0 fmi2SetRealInputDerivatives). A change is announced to the
    integrator by ``HybridIntegrator.restart``."""

    def __init__(self, value=0.0):
        self.value, self.rate, self.t0 = float(value), 0.0, 0.0

    def __call__(self, t, left=False):
        return self.value + self.rate * (t - self.t0) if self.rate else self.value

    def form(self, t_start, t_end):
        return 0.0, self(t_start), self.rate, 0.0, 0.0
