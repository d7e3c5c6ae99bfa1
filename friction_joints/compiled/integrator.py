"""The hybrid integrator on the compiled engine: same interface and event semantics as
``hybrid.HybridIntegrator`` (its reference), with the smooth dynamics, event location and recording
compiled (``dop853.advance``); Python runs only the mode decisions at events (``system.update``).
"""

from __future__ import annotations

import numpy as np

from ..errors import FrictionJointsError
from ..hybrid.integrator import MAX_EVENTS_AT_ONE_TIME, QUIET_MARGIN, HybridIntegrator, IntegratorState
from . import dop853, registry


class CompiledIntegrator(HybridIntegrator):
    """A HybridIntegrator whose system has a compiled form (``system.compiled()`` is not None) and
    inputs with a ``Signal.form`` (numbers, tables, sines, held values). The step size is kept
    from one ``advance`` to the next, so FMU communication steps continue the step-size control."""

    engine = "compiled"

    def __init__(self, system, t0, y0, **options):
        self.model = system.compiled()
        if self.model is None:
            raise ValueError(f"{type(system).__name__} has no compiled form in this configuration")
        self.model_id = registry.model_id(self.model)
        self._modes = {}
        self._last_mode = self._last_arrays = None
        self._breakpoints = system.breakpoints()  # fixed: the inputs' types do not change
        self._no_grid = np.zeros(0)
        self._end_grid_array = np.zeros(1)
        self._end_records = np.zeros((1, self.model.n_record))
        self._restart_pending = False  # a restart whose quiet test the next advance does
        self._end_row = None  # record at the end of advance_to, taken from the compiled run
        self.info = np.zeros(dop853.INFO_SIZE)
        self.rhs_calls = 0
        super().__init__(system, t0, y0, **options)

    def _mode_arrays(self, mode):
        if mode is self._last_mode:  # the usual case: hashing a mode costs microseconds
            return self._last_arrays
        arrays = self._modes.get(mode)
        if arrays is None:
            fmode, imode = self.system.encode_mode(mode)
            evs = self.system.events(mode)
            directions = np.array([ev.direction for ev in evs], dtype=np.int64)
            arrays = self._modes[mode] = (np.ascontiguousarray(fmode, float), np.ascontiguousarray(imode, np.int64),
                                          evs, directions, any(ev.input_driven for ev in evs))
        self._last_mode, self._last_arrays = mode, arrays
        return arrays

    def _forms(self, t_start, t_end):
        forms = self.system.input_forms(t_start, t_end)
        if forms is None:
            raise ValueError("the compiled engine needs inputs that are numbers, tables, sines or held values, "
                             "not callables of time: use the Python engine (HybridIntegrator) for those")
        return forms

    def _check(self, status, where):
        if status == dop853.KERNEL_FAILED:
            code = int(self.info[dop853.INFO_KERNEL_STATUS])
            message = self.model.errors.get(code, f"kernel status {code}")
            raise FrictionJointsError(f"{message} at t={self.info[dop853.INFO_T]:.9g} ({where})")
        if status == dop853.STEP_TOO_SMALL:
            raise FrictionJointsError(f"integration failed at t={self.info[dop853.INFO_T]:.9g}: "
                                      "required step size is less than spacing between numbers")

    def record_row(self, t, y, mode) -> dict:
        """The record dict at (t, y, mode) from the compiled record kernel."""
        fmode, imode, *_ = self._mode_arrays(mode)
        tau = np.ascontiguousarray(self.system.input_values(t), float)
        out = np.zeros(self.model.n_record)
        status = registry.record(self.model_id, t, np.ascontiguousarray(y, float), tau, self.model.fpar,
                                 self.model.ipar, fmode, imode, out)
        if status:
            self.info[dop853.INFO_KERNEL_STATUS], self.info[dop853.INFO_T] = status, t
            self._check(dop853.KERNEL_FAILED, "record")
        return self.system.decode_record(out)

    def rhs_once(self, t, y, mode) -> np.ndarray:
        """dy/dt at (t, y, mode) from the compiled rhs kernel (what system.rhs gives)."""
        fmode, imode, *_ = self._mode_arrays(mode)
        dy = np.zeros(len(y))
        tau = np.ascontiguousarray(self.system.input_values(t), float)
        status = registry.rhs(self.model_id, t, np.ascontiguousarray(y, float), tau, self.model.fpar, self.model.ipar,
                              fmode, imode, dy)
        if status:
            self.info[dop853.INFO_KERNEL_STATUS], self.info[dop853.INFO_T] = status, t
            self._check(dop853.KERNEL_FAILED, "rhs")
        return dy

    def restart(self):
        """As HybridIntegrator.restart, with the quiet test done by the next ``advance`` in compiled code."""
        if self.system.events_watch_all(self.state.mode):
            self._restart_pending = True
        else:
            super().restart()

    def set_state(self, state):
        super().set_state(state)
        self._restart_pending = False

    def advance_to(self, t_end: float) -> dict:
        self._end_row = None
        self.advance(t_end, self._end_grid(t_end))
        row = self._end_row
        return row if row is not None else self.record_row(self.state.t, self.state.y, self.state.mode)

    def _end_grid(self, t_end):
        self._end_grid_array[0] = t_end
        return self._end_grid_array

    def advance(self, t_end: float, t_eval=None):
        s = self.state
        if t_end < s.t:
            raise RuntimeError(f"cannot integrate backwards from t={s.t} to t_end={t_end}")
        if t_eval is None:
            grid = self._no_grid
        elif t_eval is self._end_grid_array:
            grid = t_eval if t_end > s.t else self._no_grid
        else:
            grid = np.asarray(t_eval, dtype=float)
            grid = np.unique(grid[(grid > s.t) & (grid <= t_end)])  # a time is recorded once, as in the reference
        bps = self._breakpoints
        events_here, last_event_t = 0, None
        h = s.step or 0.0
        while s.t < t_end:
            upcoming = bps[(bps > s.t) & (bps < t_end)] if len(bps) else bps
            seg_end = float(upcoming[0]) if len(upcoming) else t_end
            fmode, imode, evs, directions, input_driven = self._mode_arrays(s.mode)
            self.system.begin_segment(s.t, seg_end)
            forms = self._forms(s.t, seg_end)
            if grid is self._end_grid_array:
                seg_grid = grid if seg_end == t_end else self._no_grid
            else:
                seg_grid = np.ascontiguousarray(grid[(grid > s.t) & (grid <= seg_end)]) if len(grid) else grid
            records = self._end_records if seg_grid is self._end_grid_array else np.zeros((len(seg_grid),
                                                                                            self.model.n_record))
            max_step = min(self.max_step, self.hold_step) if input_driven else self.max_step
            y = np.array(s.y, dtype=float)
            quiet = QUIET_MARGIN if self._restart_pending else 0.0
            self._restart_pending = False
            status = dop853.advance(self.model_id, s.t, y, seg_end, h, self.rtol, self.atol, max_step, forms,
                                    self.model.fpar, self.model.ipar, fmode, imode, directions, seg_grid, records,
                                    self.info, quiet)
            self.rhs_calls += int(self.info[dop853.INFO_RHS_CALLS])
            self._check(status, s.mode)
            if status == dop853.NOT_QUIET:  # the restart must decide the mode: as HybridIntegrator.restart
                y_new, mode, kind = self._settle(s.t, s.y, s.mode, None)
                if kind:
                    self.results.events.append((s.t, kind))
                self.state = s = IntegratorState(s.t, np.array(y_new, float), mode, s.step)
                continue
            for row, t_row in zip(records[: int(self.info[dop853.INFO_RECORDS])], seg_grid):
                rec = self.system.decode_record(row)
                rec["t"] = float(t_row)
                if grid is self._end_grid_array:
                    self._end_row = rec
                else:
                    self.results.rows.append(rec)
            h = float(self.info[dop853.INFO_H])
            if status == dop853.EVENT:
                self._end_row = None
                k = int(self.info[dop853.INFO_EVENT])
                t_ev = float(self.info[dop853.INFO_T])
                self._record(t_ev, y, s.mode)
                y_new, mode, kind = self._settle(t_ev, y, s.mode, evs[k].name)
                events_here = events_here + 1 if last_event_t is not None and t_ev - last_event_t < 1e-12 else 1
                last_event_t = t_ev
                if events_here > MAX_EVENTS_AT_ONE_TIME:
                    raise FrictionJointsError(f"{events_here} events at t={t_ev:.12g}: chattering (Zeno) detected")
                self.results.events.append((t_ev, kind or evs[k].name))
                s = IntegratorState(t_ev, np.array(y_new, float), mode, h)
                self._record(t_ev, s.y, mode)
            else:
                s = IntegratorState(seg_end, y, s.mode, h)
                if seg_end < t_end:  # time event at an input breakpoint
                    self.system.begin_segment(seg_end, np.inf)
                    y_new, mode, kind = self._settle(seg_end, s.y, s.mode, None)
                    if kind:
                        self.results.events.append((seg_end, kind))
                        self._record(seg_end, y_new, mode)
                    s = IntegratorState(seg_end, np.array(y_new, float), mode, h)
            self.state = s
        return self.results
