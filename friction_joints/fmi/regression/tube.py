"""The tolerance tube around a reference signal, and the verdict on a result signal.

The tube at time t is the reference's envelope over [t - ttol, t + ttol] (its smallest and largest
value there, and its value interpolated at t), widened on both sides by the tube width
w = rtol * (range of the reference), or rtol * max|reference| for a constant signal (as csv-compare's
tube; see docs/regression.md), plus ABS_FLOOR. A result sample's excursion is its distance from the
envelope in tube widths: 0 on the envelope, 1 on the tube's edge; it fails above 1. A NaN fails
unless the reference is NaN there too; an infinite value fails.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ABS_FLOOR = 1e-12  # absolute tube width added to every tube (a reference that is 0 throughout)


@dataclass
class SignalVerdict:
    name: str
    passed: bool
    first_violation: float | None  # s
    violations: int  # number of samples outside the tube
    max_excursion: float  # largest excursion, tube widths (inf: a NaN or infinite value)
    t_max_excursion: float | None  # s, where it is (None without samples)
    width: float  # the tube width, signal units

    def message(self) -> str:
        """'<name>: left its tube at t = .. s, n samples outside, largest excursion .. tube widths at t = .. s'."""
        largest = (f"{self.max_excursion:.3g} tube widths" if np.isfinite(self.max_excursion)
                   else "a NaN or infinite value")
        return (f"{self.name}: left its tube at t = {self.first_violation:.6g} s, {self.violations} samples "
                f"outside, largest excursion {largest} at t = {self.t_max_excursion:.6g} s")


def tube_width(y_ref, rtol: float) -> float:
    """w = rtol * range of the finite reference values (rtol * max|y_ref| if constant) + ABS_FLOOR."""
    finite = np.asarray(y_ref, float)
    finite = finite[np.isfinite(finite)]
    if not len(finite):
        return ABS_FLOOR
    base = np.ptp(finite) or np.abs(finite).max()
    return rtol * base + ABS_FLOOR


def envelope(t, t_ref, y_ref, ttol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lowest, highest, NaN in reference) of the reference around each time of t: over [t - ttol, t + ttol]
    and interpolated at t; lowest/highest NaN where the reference has no finite value there."""
    t, t_ref, y_ref = (np.asarray(a, float) for a in (t, t_ref, y_ref))
    at = np.interp(t, t_ref, y_ref)
    first = np.searchsorted(t_ref, t - ttol, "left")
    last = np.searchsorted(t_ref, t + ttol, "right")
    low, high, nan = np.full(len(t), np.nan), np.full(len(t), np.nan), np.zeros(len(t), bool)
    for i in range(len(t)):
        around = np.append(y_ref[first[i]:last[i]], at[i])
        finite = around[np.isfinite(around)]
        nan[i] = np.isnan(around).any()
        if len(finite):
            low[i], high[i] = finite.min(), finite.max()
    return low, high, nan


def excursions(t, y, t_ref, y_ref, rtol: float, ttol: float) -> tuple[np.ndarray, float]:
    """(excursion of each sample of y(t) in tube widths, the tube width): see the module docstring."""
    y = np.asarray(y, float)
    width = tube_width(y_ref, rtol)
    low, high, nan = envelope(t, t_ref, y_ref, ttol)
    with np.errstate(invalid="ignore"):
        distance = np.maximum(np.maximum(low - y, y - high), 0.0) / width
    distance[np.isnan(low)] = np.inf  # no finite reference value around: only a NaN result would match
    distance[np.isnan(y)] = np.where(nan[np.isnan(y)], 0.0, np.inf)
    distance[np.isinf(y)] = np.inf
    return distance, width


def tube_check(name, t, y, t_ref, y_ref, rtol, ttol) -> SignalVerdict:
    """Whether y(t) stays in the tube around y_ref(t_ref) (see the module docstring)."""
    distance, width = excursions(t, y, t_ref, y_ref, rtol, ttol)
    bad = np.flatnonzero(distance > 1.0)
    worst = int(np.argmax(distance)) if len(distance) else None
    return SignalVerdict(name, len(bad) == 0, float(t[bad[0]]) if len(bad) else None, len(bad),
                         float(distance[worst]) if worst is not None else 0.0,
                         float(t[worst]) if worst is not None else None, width)
