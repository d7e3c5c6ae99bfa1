"""The C engine's stiff integrator RODAS (``native/src/fj_rodas.h``: Hairer & Wanner's Rosenbrock method
of order 4(3) with dense output and event location) over a family's packed model in one mode, through
ctypes: the integration alone, without mode decisions, for the tests of the integrator on problems of
their own (a model runs on RODAS through the engine's instance, fj.h, when its family is stiff).

    rodas = Rodas(Family("bristle"), fpar, ipar, n_y=4, n_tau=3, n_record=11, rtol=1e-8, atol=1e-10)
    status = rodas.advance(t, y, t_end, forms, grid)   # y in place; rodas.t, rodas.records, rodas.info
"""

from __future__ import annotations

import ctypes

import numpy as np

from . import Family, Workspace

# fj_rodas_advance's statuses (fj_stepping.h's and FJ_MATRIX_SINGULAR) and its info slots (fj_rodas.h)
REACHED_END, EVENT, KERNEL_FAILED, STEP_TOO_SMALL, NOT_QUIET, MATRIX_SINGULAR = range(6)
INFO = ("t", "h", "event", "records", "rhs_calls", "kernel_status", "steps", "jacobians", "rejected")

_P, _I, _D = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double
_ADVANCE = [_P, _P, _P, _D, _P, _D, _D, _D, _D, _D, _P, _P, _I, _P, _I, _P, _I, _P, _D]


def held(values) -> np.ndarray:
    """The forms (n_tau, 5) of inputs held at ``values`` over a call (fj_stepping.h: kind 0, a ramp of slope 0)."""
    values = np.atleast_1d(np.asarray(values, dtype=float))
    forms = np.zeros((values.size, 5))
    forms[:, 1] = values
    return forms


class Rodas:
    """fj_rodas_advance over the packed model (fpar, ipar) of ``family`` in the mode (fmode, imode) (None:
    a family with one mode and no mode arrays), whose events have ``directions``. Sizes: n_y states,
    n_tau inputs, n_record recorded values; rtol, atol, max_step (s): the integrator's options."""

    def __init__(self, family: Family, fpar, ipar, n_y, n_tau, n_record, *, rtol, atol, max_step=np.inf,
                 fmode=None, imode=None, directions=()):
        lib = family.lib
        self._advance, self._message = lib.fj_rodas_advance, lib.fj_rodas_message
        self._advance.restype, self._advance.argtypes = _I, _ADVANCE
        self._message.restype, self._message.argtypes = ctypes.c_char_p, [_I]
        lib.fj_rodas_scratch_size.restype = _I
        lib.fj_rodas_scratch_size.argtypes = [_I, _I, _I]
        self.family, self.n_y, self.n_tau, self.n_record = family, int(n_y), int(n_tau), int(n_record)
        self.ws = Workspace(family, fpar, ipar)
        self.ws.args.n_y, self.ws.args.n_tau = self.n_y, self.n_tau
        if fmode is not None:
            self.ws.set_mode(np.ascontiguousarray(fmode, np.float64), np.ascontiguousarray(imode, np.int64))
        self.directions = np.ascontiguousarray(directions, np.int64)
        self.scratch = np.zeros(lib.fj_rodas_scratch_size(self.n_y, self.directions.size, self.n_tau))
        self.rtol, self.atol, self.max_step = float(rtol), float(atol), float(max_step)
        self.info = np.zeros(len(INFO))
        # the arguments of every call (their arrays are kept alive here)
        self._fixed = (ctypes.addressof(family.c), ctypes.byref(self.ws.args), self.scratch.ctypes.data,
                       self.directions.ctypes.data, self.info.ctypes.data)
        self.h = 0.0  # the step size to try next (0: the integrator's first step)
        self._rows = np.zeros((1, self.n_record))  # the rows of the calls, reused
        self.records = self._rows[:0]

    def advance(self, t, y, t_end, forms, grid=(), quiet=0.0) -> int:
        """Integrate y (n_y,) float64 in place from t to t_end or to the first event; forms (n_tau, 5):
        the inputs over the call (``held``); grid: output times in (t, t_end]. Returns the status;
        self.t the time reached, self.records the rows recorded (at most one per grid time), self.info
        the counters (INFO), self.h the step size proposed for the next call. The rows are a view of a
        buffer the next call overwrites."""
        if not (isinstance(y, np.ndarray) and y.dtype == np.float64 and y.flags.c_contiguous and y.size == self.n_y):
            raise TypeError(f"y must be a C-contiguous float64 array of {self.n_y} states")
        forms = np.ascontiguousarray(forms, np.float64).reshape(self.n_tau, 5)
        grid = np.ascontiguousarray(grid, np.float64)
        if self._rows.shape[0] < grid.size:
            self._rows = np.zeros((grid.size, self.n_record))
        records = self._rows
        family, args, scratch, directions, info = self._fixed
        status = self._advance(family, args, scratch, float(t), y.ctypes.data, float(t_end), self.h, self.rtol,
                               self.atol, self.max_step, forms.ctypes.data, directions, self.directions.size,
                               grid.ctypes.data, grid.size, records.ctypes.data, self.n_record, info, float(quiet))
        self.t, self.h = self.info[0], self.info[1]
        self.records = records[: int(self.info[3])]
        return int(status)

    def counters(self) -> dict:
        """The info of the last call by name (INFO)."""
        return dict(zip(INFO, self.info))

    def failure(self, status: int) -> str:
        """What a status advance returned says, with the failing kernel's message if one failed."""
        text = self._message(int(status)).decode()
        if status == KERNEL_FAILED:
            text += f": {self.family.message(int(self.info[5]))}"
        return text
