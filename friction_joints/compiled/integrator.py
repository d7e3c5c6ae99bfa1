"""The hybrid integrator on the C engine: same interface and event semantics as
``hybrid.HybridIntegrator`` (its reference), with the smooth dynamics, event location and recording
in C (``native.Dop853``); Python runs only the mode decisions at events (``system.update``).

A co-simulation step (``advance_to``) without an input breakpoint inside that ends without an event
is one compiled call and a few Python operations (``_reach``, the fast path); everything else takes
the general loop that ``advance`` runs (``_loop``), whose pieces the fast path shares (``_run``,
``_outcome``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import FrictionJointsError
from ..hybrid.integrator import QUIET_MARGIN, HybridIntegrator, IntegratorState
from .. import native


class ModeArrays(NamedTuple):
    """A mode as the compiled kernels take it, built once per mode: fmode (float64), imode (int64)
    from ``system.encode_mode``; events: ``system.events(mode)``; directions (n_events,) int64: their
    directions; input_driven: one of them can fire while the state stands still (steps bounded by
    hold_step)."""

    fmode: np.ndarray
    imode: np.ndarray
    events: list
    directions: np.ndarray
    input_driven: bool


class CompiledIntegrator(HybridIntegrator):
    """A HybridIntegrator whose system has a compiled form (``system.compiled()`` is not None) and
    inputs with a ``Signal.form`` (numbers, tables, sines, held values). The step size is kept
    from one ``advance`` to the next, so FMU communication steps continue the step-size control."""

    engine = "compiled"

    def __init__(self, system, t0, y0, **options):
        self.model = system.compiled()
        if self.model is None:
            raise ValueError(f"{type(system).__name__} has no compiled form in this configuration")
        self.dop853 = native.Dop853(native.Workspace(self.model.family, self.model.fpar, self.model.ipar))
        self._modes = {}
        self._last_mode = self._last_arrays = None
        self._breakpoints = system.breakpoints()  # fixed: the inputs' types do not change
        self._no_grid = np.zeros(0)
        self._end_grid_array = np.zeros(1)  # the grid [t_end] of advance_to
        self._restart_pending = False  # a restart whose quiet test the next advance does
        self._watched = (object(), False)  # (mode, system.events_watch_all(mode)) of the last restart
        self._end_row = None  # record at the end of advance_to, taken from the compiled run
        self.info = self.dop853.info
        self.rhs_calls = 0
        super().__init__(system, t0, y0, **options)

    def _mode_arrays(self, mode) -> ModeArrays:
        if mode is self._last_mode:  # the usual case: hashing a mode costs microseconds
            return self._last_arrays
        arrays = self._modes.get(mode)
        if arrays is None:
            fmode, imode = self.system.encode_mode(mode)
            evs = self.system.events(mode)
            arrays = self._modes[mode] = ModeArrays(
                np.ascontiguousarray(fmode, float), np.ascontiguousarray(imode, np.int64), evs,
                np.array([ev.direction for ev in evs], dtype=np.int64), any(ev.input_driven for ev in evs))
        self._last_mode, self._last_arrays = mode, arrays
        return arrays

    def _forms(self, t_start, t_end):
        forms = self.system.input_forms(t_start, t_end)
        if forms is None:
            raise ValueError("the compiled engine needs inputs that are numbers, tables, sines or held values, "
                             "not callables of time: use the Python engine (HybridIntegrator) for those")
        return forms

    def _check(self, status, where):
        if status == native.KERNEL_FAILED:
            message = self.model.message(int(self.info[native.INFO_KERNEL_STATUS]))
            raise FrictionJointsError(f"{message} at t={self.info[native.INFO_T]:.9g} ({where})")
        if status == native.STEP_TOO_SMALL:
            raise FrictionJointsError(f"integration failed at t={self.info[native.INFO_T]:.9g}: "
                                      "required step size is less than spacing between numbers")

    def record_row(self, t, y, mode) -> dict:
        """The record dict at (t, y, mode) from the compiled record kernel."""
        out = np.zeros(self.model.n_record)
        self._kernel("record", t, y, mode, out)
        return self.system.decode_record(out)

    def rhs_once(self, t, y, mode) -> np.ndarray:
        """dy/dt at (t, y, mode) from the compiled rhs kernel (what system.rhs gives)."""
        dy = np.zeros(len(y))
        self._kernel("rhs", t, y, mode, dy)
        return dy

    def _kernel(self, which, t, y, mode, out):
        """The kernel ``which`` at (t, y, mode) into out, on this integrator's workspace; raises on failure."""
        fmode, imode, *_ = self._mode_arrays(mode)
        ws = self.dop853.ws
        ws.set_mode(fmode, imode)
        tau = np.ascontiguousarray(self.system.input_values(t), float)
        status = ws.call(which, t, np.ascontiguousarray(y, float), tau, out)
        if status:
            self.info[native.INFO_KERNEL_STATUS], self.info[native.INFO_T] = status, t
            self._check(native.KERNEL_FAILED, which)

    def restart(self):
        """As HybridIntegrator.restart, with the quiet test done by the next ``advance`` in compiled code."""
        mode = self.state.mode
        if mode is not self._watched[0]:  # the usual case: the mode of the last restart
            self._watched = (mode, self.system.events_watch_all(mode))
        if self._watched[1]:
            self._restart_pending = True
        else:
            super().restart()

    def set_state(self, state):
        super().set_state(state)
        self._restart_pending = False

    # --- integration ------------------------------------------------------------------------------
    def advance_to(self, t_end: float) -> dict:
        """As HybridIntegrator.advance_to; the record at t_end comes from the compiled run (with 't'),
        or, when an event at t_end ended it, from the record kernel after the event."""
        s = self._start(t_end)
        self._end_row = None
        self._end_grid_array[0] = t_end
        if s.t < t_end and self._segment_end(s.t, t_end) == t_end:
            row = self._reach(s, t_end)
            if row is not None:
                return row
        self._loop(t_end, self._end_grid_array)
        row = self._end_row
        return row if row is not None else self.record_row(self.state.t, self.state.y, self.state.mode)

    def advance(self, t_end: float, t_eval=None):
        s = self._start(t_end)
        if t_eval is None:
            grid = self._no_grid
        else:
            grid = np.asarray(t_eval, dtype=float)
            grid = np.unique(grid[(grid > s.t) & (grid <= t_end)])  # a time is recorded once, as in the reference
        self._loop(t_end, grid)
        return self.results

    def _start(self, t_end) -> IntegratorState:
        """The state an advance to t_end starts from (its Zeno guard reset)."""
        s = self.state
        if t_end < s.t:
            raise RuntimeError(f"cannot integrate backwards from t={s.t} to t_end={t_end}")
        self._last_event = (None, 0)
        return s

    def _segment_end(self, t, t_end) -> float:
        """The first input breakpoint in (t, t_end), else t_end (s)."""
        bps = self._breakpoints
        if not len(bps):
            return t_end
        upcoming = bps[(bps > t) & (bps < t_end)]
        return float(upcoming[0]) if len(upcoming) else t_end

    def _reach(self, s, t_end):
        """The fast path of ``advance_to`` (no input breakpoint in (s.t, t_end)): one compiled call from
        the state s; if it reaches t_end, the record there (a dict, with 't'), else None once the
        event or mode decision that stopped it is handled (``_loop`` goes on from there)."""
        records = np.empty((1, self.model.n_record))
        status, y = self._run(s, t_end, self._end_grid_array, records)
        if status != native.REACHED_END:  # nothing recorded: the end grid point lies beyond where it stopped
            self._outcome(status, s, y, t_end, t_end)
            return None
        self.state = IntegratorState(t_end, y, s.mode, float(self.info[native.INFO_H]))
        return self._decoded(records[0], t_end)

    def _loop(self, t_end, grid):
        """The general loop of ``advance``: segments between input breakpoints, events, records at the
        times of grid (increasing, within (t, t_end]); at the end of ``advance_to`` (grid is
        ``_end_grid_array``) the record at t_end is kept as ``_end_row``, else rows go to results."""
        to_end = grid is self._end_grid_array
        s = self.state
        while s.t < t_end:
            seg_end = self._segment_end(s.t, t_end)
            if to_end:
                seg_grid = grid if seg_end == t_end else self._no_grid
            else:
                seg_grid = np.ascontiguousarray(grid[(grid > s.t) & (grid <= seg_end)]) if len(grid) else grid
            records = np.empty((len(seg_grid), self.model.n_record))
            status, y = self._run(s, seg_end, seg_grid, records)
            self._keep_rows(seg_grid, records, to_end)
            self._outcome(status, s, y, seg_end, t_end)
            s = self.state

    def _run(self, s, seg_end, grid, records):
        """One compiled call from the state s towards seg_end (no input breakpoint before it), recording
        at the times of grid into records (len(grid), n_record). Returns (dop853 status, y (n_y,) at the
        time reached: an event's or seg_end)."""
        arrays = self._mode_arrays(s.mode)
        self.system.begin_segment(s.t, seg_end)
        forms = self._forms(s.t, seg_end)
        max_step = min(self.max_step, self.hold_step) if arrays.input_driven else self.max_step
        y = np.array(s.y, dtype=float)  # advanced in place: s.y may be held elsewhere
        quiet = QUIET_MARGIN if self._restart_pending else 0.0
        self._restart_pending = False
        status = self.dop853.advance(s.t, y, seg_end, s.step or 0.0, self.rtol, self.atol, max_step, forms,
                                     arrays.fmode, arrays.imode, arrays.directions, grid, records, quiet)
        self.rhs_calls += int(self.info[native.INFO_RHS_CALLS])
        self._check(status, s.mode)
        return status, y

    def _keep_rows(self, seg_grid, records, to_end):
        """The rows the compiled call recorded (``_run``) at the first times of seg_grid: the end row of
        ``advance_to`` (to_end), else rows of the results."""
        for row, t_row in zip(records[: int(self.info[native.INFO_RECORDS])], seg_grid):
            rec = self._decoded(row, t_row)
            if to_end:
                self._end_row = rec
            else:
                self.results.rows.append(rec)

    def _outcome(self, status, s, y, seg_end, t_end):
        """Handle how the compiled call from the state s towards seg_end stopped (``_run``; y: the state
        there): the restart's mode decision, an event, or the input breakpoint at seg_end < t_end; sets
        ``state``."""
        if status == native.NOT_QUIET:  # the restart must decide the mode: as HybridIntegrator.restart
            self.state, _ = self._redecide(s)
            return
        h = float(self.info[native.INFO_H])
        if status == native.EVENT:
            self._end_row = None
            self.state = self._event(s.mode, y, h)
            return
        s = IntegratorState(seg_end, y, s.mode, h)
        self.state = self._input_jump(s) if seg_end < t_end else s

    def _event(self, mode, y, h) -> IntegratorState:
        """The state after the event the compiled call stopped at (info: its time and index), y (n_y,)
        the state there in ``mode``; h: the next step size (s). Rows before and after are recorded."""
        k = int(self.info[native.INFO_EVENT])
        return self._at_event(float(self.info[native.INFO_T]), y, mode, self._mode_arrays(mode).events[k].name, h)

    def _decoded(self, row, t) -> dict:
        """The record dict of a row (n_record,) that the compiled call wrote at time t (s), with 't'.
        Its arrays may be views of the row: every call records into fresh rows."""
        rec = self.system.decode_record(row)
        rec["t"] = float(t)
        return rec
