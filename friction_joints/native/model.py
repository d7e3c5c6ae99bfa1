"""The compiled form of a hybrid system: the C engine's family that runs it and its packed model."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .. import native
from ..errors import FrictionJointsError


@dataclass(frozen=True)
class CompiledModel:
    """family_name: the C engine's family (``native/src/<family>.c``); fpar (float64), ipar (int64):
    the model as arrays (the family's packer); n_record: length of the record vector. ``rhs``,
    ``events``, ``record``: the family's kernels as Python callables
    ``(t, y, tau, fpar, ipar, fmode, imode, out) -> status``; ``message(status)`` names a failure;
    ``update`` and ``mode_events``: the family's mode decisions, as the Python system's."""

    family_name: str
    fpar: np.ndarray
    ipar: np.ndarray
    n_record: int

    @cached_property
    def family(self) -> native.Family:
        return native.Family(self.family_name)

    @cached_property
    def rhs(self) -> native.Kernel:
        return native.Kernel(self.family, "rhs")

    @cached_property
    def events(self) -> native.Kernel:
        return native.Kernel(self.family, "events")

    @cached_property
    def record(self) -> native.Kernel:
        return native.Kernel(self.family, "record")

    def message(self, status: int) -> str:
        return self.family.message(status)

    @cached_property
    def mode_layout(self) -> native.FjModeLayout:
        return self.family.mode_layout(self.fpar, self.ipar)

    def workspace(self, system, mode) -> native.Workspace:
        """A new Workspace of the packed model in ``mode`` (None: no mode yet, as at the start)."""
        ws = native.Workspace(self.family, self.fpar, self.ipar)
        ws.set_mode(*((None, None) if mode is None else system.encode_mode(mode)))
        return ws

    def mode_events(self, system, mode):
        """(directions (n,), flags (n,), watch_all) of the events of ``mode`` as the C engine gives them
        (``system.events(mode)`` and ``system.events_watch_all(mode)`` in Python)."""
        return self.workspace(system, mode).mode_events(self.mode_layout.max_events)

    def update(self, system, t, y, mode, event):
        """What ``system.update(t, y, mode, event)`` returns, (y, mode, kind), decided by the C engine:
        the new mode decoded by ``system.decode_mode`` and its kind named by ``system.change_kind``.
        For tests and single decisions (a new workspace each call)."""
        ws = self.workspace(system, mode)
        if mode is None:
            index = native.START
        elif event is None:
            index = native.NO_EVENT
        else:
            index = [ev.name for ev in system.events(mode)].index(event)
        y = np.array(y, dtype=float)
        tau = np.ascontiguousarray(system.input_values(t), float)
        status, fmode, imode, change = ws.decide(t, y, tau, index, self.mode_layout)
        if status:
            raise FrictionJointsError(f"{self.message(status)} at t={t:.9g} (mode decision)")
        new = system.decode_mode(fmode, imode)
        return y, new, system.change_kind(mode, new, event, change)
