"""Regularised friction as one smooth mode: no events, no stiction (for comparison only).

With the laws of ``mechanisms.regularised`` friction is a smooth function of the slip velocity,
so the mechanism is an ordinary ODE: the friction directions come from sgn(sd) inside the laws.
A held joint creeps, and near zero slip the ODE is stiff with time constant of order
v_eps / (mu g); this is what the exact stick-slip of ``MechanismSystem`` avoids.
"""

from __future__ import annotations

from .system import MechanismSystem, Mode


class RegularisedSystem(MechanismSystem):
    """A MechanismSystem of a regularised mechanism with a single mode."""

    def events(self, mode):
        return []

    def events_watch_all(self, mode):
        """True: the single mode never changes (MechanismSystem's test reads friction directions, which
        this mode does not have)."""
        return True

    def update(self, t, y, mode, event):
        return y, Mode(None, (), (), self.mech.partition), None

    def change_kind(self, mode, new, event, change):
        """None: the single mode never changes."""
        return None

    def _build_compiled(self):
        """The CompiledModel of this system (the planar kernels in their single mode: friction directions
        sgn(sd), no events), None for a joint or friction law they do not implement or a subclass that
        changes rhs, record, events or update."""
        return self._compiled_as(RegularisedSystem, regularised=True)
