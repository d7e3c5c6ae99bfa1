"""The contact modes of a clearance joint and its located events, for any system run by the hybrid integrator.

A joint is ``FREE`` (no contact force) or in ``Contact(deltad0)``, deltad0 (m/s) the impact rate that the
hysteresis laws (``contact.laws``) divide by. The event ``impact`` fires when the penetration delta rises
through 0 in FREE, ``separation`` when it falls through 0 in contact; the integrator locates both on its dense
output. In FREE the system adds no contact force, so delta follows the free motion, which crosses the wall and
stays beyond it: an impact shorter than a step cannot be stepped over (with contact forces in every mode, a
step could enter and leave the contact unseen).

A located root leaves delta at the event a rounding residual off zero (4e-18 m was seen), on either side. On
the far side the new mode would start past its own event: after a separation with delta = +4e-18, a journal
that leaves the wall by less than a step and comes back has delta > 0 at both ends of that step, and its
impact is stepped over (it then falls through the bearing). So each mode carries the ``level`` of delta at
which its event fires: 0, or the residual the mode started with (``Free(level > 0)``, ``Contact(deltad0,
level < 0)``), a shift of the wall by the residual and no more.

The first step after an impact starts from the free flight's step size, far too long for the contact: its
trial stages may penetrate so deep that the force overflows. The systems' right-hand sides evaluate under
``quiet_overflow`` and return ``rejectable(dydt)``: all NaN if anything overflowed, which the error control
rejects silently (a NaN error norm shrinks the step; infinities would make SciPy's error estimate warn). An
accepted state cannot carry it: a step that stays NaN however small fails the run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..hybrid.integrator import Event


def quiet_overflow():
    """A context silencing numpy's overflow and invalid-value warnings (see the module docstring)."""
    return np.errstate(over="ignore", invalid="ignore")


def rejectable(dydt):
    """dydt, or all NaN if an entry is not finite (see the module docstring)."""
    return dydt if np.all(np.isfinite(dydt)) else np.full_like(dydt, np.nan)


@dataclass(frozen=True)
class Free:
    """No contact; the impact fires when delta rises through ``level`` >= 0 (m; see the module docstring)."""

    level: float = 0.0


FREE = Free()


@dataclass(frozen=True)
class Contact:
    """The contact mode, with the impact rate deltad0 (m/s) that started it; the separation fires when delta
    falls through ``level`` <= 0 (m; see the module docstring)."""

    deltad0: float
    level: float = 0.0


def contact_events(delta, mode) -> list:
    """The event of ``mode``: ``impact`` (delta(t, y) rising through the mode's level) in FREE, ``separation``
    (falling through it) in contact."""
    fn = delta if mode.level == 0.0 else (lambda t, y: delta(t, y) - mode.level)
    return [Event("separation", fn, -1) if isinstance(mode, Contact) else Event("impact", fn, +1)]


def contact_update(mode, event, delta, deltad, deltad0_min):
    """(mode, kind) after ``event`` (None at the start, where ``mode`` is None, or after a time event) at
    penetration delta (m) and rate deltad (m/s). A contact starts with deltad0 = deltad floored at deltad0_min
    > 0 (m/s; a grazing or initial contact would otherwise divide by ~0).

    At an event delta is zero to the accuracy of the root, so the sign of deltad decides: an ``impact`` with
    deltad <= 0 or a ``separation`` with deltad >= 0 is a graze (delta touches zero and turns back) and keeps
    the mode. Switching there would leave the new mode on the wrong side of its event: FREE with delta > 0 and
    rising has no rising crossing left to fire, and the journal would pass through the wall."""
    if mode is None:
        return (Contact(max(deltad, deltad0_min)), "impact") if delta > 0 else (FREE, None)
    if event == "impact" and deltad > 0:  # a residual delta < 0 is where the separation fires
        return Contact(max(deltad, deltad0_min), min(delta, 0.0)), "impact"
    if event == "separation" and deltad < 0:  # a residual delta > 0 is where the next impact fires
        return Free(max(delta, 0.0)), "separation"
    return mode, None
