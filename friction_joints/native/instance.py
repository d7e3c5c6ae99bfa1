"""The compiled engine's integrator: a hybrid system run by an instance of the C engine (``native/src/fj.h``).

The whole event-driven integration runs in C: DOP853 or RK45 with dense output and event location, the mode
decisions of the family and their settling, the Zeno guard, the restart at changed inputs. Python keeps
what is bookkeeping: the inputs' breakpoints (a segment's inputs are set as the signals' forms), the rows
and events of the results, the mode and event names (decoded from the engine's arrays by the system).
The interface is HybridIntegrator's (``advance``, ``advance_to``, ``restart``, ``get_state``, ...); one C
call runs a segment between breakpoints up to its first event.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat

import numpy as np

from .. import native
from ..errors import FrictionJointsError
from ..hybrid.integrator import IntegratorState, RecordRow, Results, check_tolerances


@dataclass(frozen=True)
class CompiledState:
    """A saved state of a CompiledIntegrator: the engine's state array (fj_instance_get_state)."""

    array: np.ndarray


class CompiledIntegrator:
    """Integrates a system that has a compiled form (``system.compiled()``) whose family decides its modes
    in C, with inputs that have a ``Signal.form`` (numbers, tables, sines, held values), from (t0, y0).
    Options as HybridIntegrator's (rtol, atol, max_step, hold_step). The step size carries over from one
    ``advance`` to the next."""

    engine = "compiled"

    def __init__(self, system, t0, y0, *, rtol=1e-10, atol=1e-12, max_step=np.inf, hold_step=np.inf):
        check_tolerances(rtol, atol)
        self.system = system
        self.model = system.compiled()
        if self.model is None:
            raise ValueError(f"{type(system).__name__} has no compiled form in this configuration")
        self.results = Results()
        self._breakpoints = system.breakpoints()  # fixed: the inputs' types do not change
        self._modes = {}  # (fmode bytes, imode bytes) -> the system's mode
        self._event_names = {}  # (fmode bytes, imode bytes) -> the names of that mode's events
        self._restart_pending = False
        self._no_grid = np.zeros(0)
        self._no_rows = np.zeros((0, self.model.n_record))
        y0 = np.array(y0, dtype=float)
        t0 = float(t0)
        forms = self._forms(t0, self._segment_end(t0, np.inf))
        self.instance = native.Instance(self.model.family, self.model.fpar, self.model.ipar, y0.size, forms.shape[0],
                                        self.model.n_record, rtol=rtol, atol=atol, max_step=max_step,
                                        hold_step=hold_step)
        self._time = self.instance.time_cell  # the engine's time, read by ``time`` at every step
        self._call(self.instance.set_input_forms, forms, 0)
        self._call(self.instance.start, t0, y0)
        self.results.rows.append(self.decoded(self._outputs(), t0))
        kind = self._kind(self.instance.report())
        if kind:
            self.results.events.append((t0, kind))

    # --- state ------------------------------------------------------------------------------------
    @property
    def state(self) -> IntegratorState:
        """Time, state, mode (the system's) and the step size to try next (None before the first step)."""
        return IntegratorState(self.instance.t, self.instance.y, self._mode(*self.instance.mode),
                               self.instance.step_size or None)

    @property
    def time(self) -> float:
        """The time reached (s)."""
        return self._time.value

    def get_state(self) -> CompiledState:
        return CompiledState(self.instance.get_state())

    def set_state(self, state: CompiledState):
        self._call(self.instance.set_state, state.array)
        self._restart_pending = False

    @property
    def rhs_calls(self) -> int:
        """Right-hand sides evaluated since the start."""
        return self.instance.counters[0]

    def restart(self):
        """The inputs changed at the current time: the next advance re-decides the mode where the change
        could switch it (as HybridIntegrator.restart)."""
        self._restart_pending = True

    # --- integration ------------------------------------------------------------------------------
    def advance_to(self, t_end: float) -> dict:
        """Integrate to t_end (a co-simulation step); the record there."""
        self.advance(t_end)
        return self.decoded(self._outputs(), self.instance.t)

    def step_held(self, t_end: float, values, rates) -> np.ndarray:
        """A co-simulation step to t_end of a system whose inputs are all ``Held`` signals, set to values
        and rates (one per input, per s) at the current time: one call of the engine, with the events and
        mode decisions in C and not logged in ``results``. The record at t_end (n_record,), in the
        instance's buffer, which the next call overwrites."""
        jump, self._restart_pending = int(self._restart_pending), False
        try:
            return self.instance.step_held(t_end, values, rates, jump)
        except native.InstanceError as error:
            raise self._error(error) from None

    def advance(self, t_end: float, t_eval=None):
        """Integrate to t_end, recording at the times ``t_eval`` (within (t, t_end]) and at events."""
        instance, system = self.instance, self.system
        t = instance.t
        if t_end < t:
            raise RuntimeError(f"cannot integrate backwards from t={t} to t_end={t_end}")
        grid = self._no_grid
        if t_eval is not None:
            grid = np.asarray(t_eval, dtype=float)
            grid = np.unique(grid[(grid > t) & (grid <= t_end)])  # a time is recorded once, as in the reference
        try:
            while t < t_end:
                seg_end = self._segment_end(t, t_end)
                system.begin_segment(t, seg_end)
                self._forms(t, seg_end, instance.forms)
                instance.set_input_forms(None, 1 if self._restart_pending else 0)
                self._restart_pending = False
                seg_grid = self._grid_within(grid, t, seg_end) if grid.size else grid
                rows = np.empty((seg_grid.size, self.model.n_record)) if seg_grid.size else self._no_rows
                status, n_rows = instance.advance(seg_end, seg_grid, rows)
                if n_rows:
                    self.results.rows.extend(map(RecordRow, rows[:n_rows], seg_grid.tolist(), repeat(system)))
                if status == native.ADVANCED_TO_EVENT:
                    self._log_event(instance.report())
                elif seg_end < t_end:
                    system.begin_segment(seg_end, np.inf)  # the inputs' right limits: the time event
                    self._forms(seg_end, self._segment_end(seg_end, np.inf), instance.forms)
                    instance.set_input_forms(None, 2)
                    report = instance.report()
                    kind = self._kind(report)
                    if kind:
                        self.results.events.append((seg_end, kind))
                        self.results.rows.append(self.decoded(self._outputs(), seg_end))
                t = instance.t
        except native.InstanceError as error:
            raise self._error(error) from None
        return self.results

    def _log_event(self, report):
        """The event (or the restart's decision) the engine stopped after: its kind, and for an event the
        rows before and after it."""
        t, event, *_, row_before, row_after = report
        kind = self._kind(report)
        if event < 0:  # a restart's decision: the event only, as HybridIntegrator.restart
            if kind:
                self.results.events.append((t, kind))
            return
        self.results.rows.append(self.decoded(row_before, t))
        self.results.events.append((t, kind or self._event_name(report)))
        self.results.rows.append(self.decoded(row_after, t))

    # --- helpers ----------------------------------------------------------------------------------
    def _call(self, function, *args):
        try:
            return function(*args)
        except native.InstanceError as error:
            raise self._error(error) from None

    @staticmethod
    def _error(error: native.InstanceError) -> Exception:
        """The library's exception of an engine failure: ValueError for a bad argument."""
        return (ValueError if error.status == native.STATUS_BAD_ARGUMENT else FrictionJointsError)(str(error))

    def _forms(self, t_start, t_end, out=None) -> np.ndarray:
        """The inputs' forms (n_tau, 5) on [t_start, t_end]: a new array, or ``out`` (the instance's
        ``forms``, which its set_input_forms(None, ...) passes) filled."""
        forms = self.system.input_forms(t_start, t_end, out)
        if forms is None:
            raise ValueError("the compiled engine needs inputs that are numbers, tables, sines or held values, "
                             "not callables of time: use the Python engine (HybridIntegrator) for those")
        return forms

    @staticmethod
    def _grid_within(grid, t, t_end) -> np.ndarray:
        """The times of grid (sorted, unique) in (t, t_end]: a slice of it."""
        return grid[np.searchsorted(grid, t, "right"):np.searchsorted(grid, t_end, "right")]

    def _segment_end(self, t, t_end) -> float:
        """The first input breakpoint in (t, t_end), else t_end (s)."""
        bps = self._breakpoints
        if not len(bps):
            return t_end
        upcoming = bps[(bps > t) & (bps < t_end)]
        return float(upcoming[0]) if len(upcoming) else t_end

    def _mode(self, fmode, imode):
        key = (fmode.tobytes(), imode.tobytes())
        mode = self._modes.get(key)
        if mode is None:
            mode = self._modes[key] = self.system.decode_mode(fmode, imode)
        return mode

    def _event_name(self, report) -> str:
        _, event, modes, *_ = report
        fmode, imode = modes[0]
        key = (fmode.tobytes(), imode.tobytes())
        names = self._event_names.get(key)
        if names is None:
            names = self._event_names[key] = [ev.name for ev in self.system.events(self._mode(fmode, imode))]
        return names[event]

    def _kind(self, report) -> str | None:
        """The kind of a decision, as HybridIntegrator._settle joins it: the kinds of its passes."""
        _, event, modes, changes, *_ = report
        kinds = []
        for i, change in enumerate(changes):
            old = None if event == native.START and i == 0 else self._mode(*modes[i])
            name = self._event_name(report) if i == 0 and event >= 0 else None
            kind = self.system.change_kind(old, self._mode(*modes[i + 1]), name, change)
            if kind:
                kinds.append(kind)
        return "+".join(kinds) or None

    def _outputs(self) -> np.ndarray:
        """The record at the current time and state, a new array (n_record,)."""
        return self._call(self.instance.outputs)

    def record_row(self, t, y, mode) -> dict:
        """The record dict at (t, y, mode) from the record kernel."""
        if t == self.instance.t and mode == self.state.mode and np.array_equal(y, self.instance.y):
            return self.decoded(self._outputs(), t)
        out = np.empty(self.model.n_record)
        status = self.model.workspace(self.system, mode).call("record", t, np.ascontiguousarray(y, float),
                         np.ascontiguousarray(self.system.input_values(t), float), out)
        if status:
            raise FrictionJointsError(f"{self.model.message(status)} at t={t:.9g} (record)")
        return self.decoded(out, t)

    def decoded(self, row, t) -> RecordRow:
        """The record of a row (n_record,) at time t (s), with 't': a mapping decoded on first access (its
        arrays views of row)."""
        return RecordRow(row, t, self.system)
