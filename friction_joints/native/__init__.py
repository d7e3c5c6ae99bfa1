"""The binding of the C engine (``native/src``, C99 and libm only), through ctypes.

ctypes rather than cffi: it is in the standard library (an FMU's bundled package then needs nothing
but numpy), and the engine's API is a handful of functions over flat arrays, which ctypes calls
without a compiled binding of its own.

The library is the extension module that ``pip install`` builds (setup.py) beside this file, or the
one the environment variable FRICTION_JOINTS_ENGINE_LIBRARY names (``default_library_path``: how a
test runs a whole process on a sanitizer build); ``library(path)`` loads others by path. A family's
kernels are called from Python through ``Kernel`` (tests, single evaluations); ``Instance`` is the
engine's API (fj.h): a whole event-driven integration in C.

Beside the binding, what every family shares on the Python side: ``model.CompiledModel`` (a family and
its packed model, which each model's packer makes: ``planar.packing``, ``lumped.packing``, ...) and
``instance.CompiledIntegrator`` (a hybrid system run by an ``Instance``: engine="compiled").
"""

from __future__ import annotations

import ctypes
import importlib.machinery
import os
import threading
from pathlib import Path

import numpy as np

PACKAGE_DIR = Path(__file__).resolve().parent
LIBRARY_NAME = "_engine"  # setup.py's extension friction_joints.native._engine
LIBRARY_VARIABLE = "FRICTION_JOINTS_ENGINE_LIBRARY"  # names another library (default_library_path)

_c_int64, _c_double, _c_void_p = ctypes.c_int64, ctypes.c_double, ctypes.c_void_p


class FjArgs(ctypes.Structure):
    """fj_args of fj_kernel.h: the packed model, the mode, the sizes and the scratch of a kernel call."""

    _fields_ = [("fpar", _c_void_p), ("ipar", _c_void_p), ("fmode", _c_void_p), ("imode", _c_void_p),
                ("n_fpar", _c_int64), ("n_ipar", _c_int64), ("n_fmode", _c_int64), ("n_imode", _c_int64),
                ("n_y", _c_int64), ("n_tau", _c_int64), ("work", _c_void_p), ("iwork", _c_void_p)]


KERNEL = ctypes.CFUNCTYPE(_c_int64, ctypes.POINTER(FjArgs), _c_double, _c_void_p, _c_void_p, _c_void_p, _c_int64)
WORK_SIZE = ctypes.CFUNCTYPE(None, _c_void_p, _c_int64, _c_void_p, _c_int64, ctypes.POINTER(_c_int64),
                             ctypes.POINTER(_c_int64))
MESSAGE = ctypes.CFUNCTYPE(ctypes.c_char_p, _c_int64)


class FjModeLayout(ctypes.Structure):
    """fj_mode_layout of fj_kernel.h: the sizes of a family's modes for one packed model."""

    _fields_ = [("n_fmode", _c_int64), ("n_imode", _c_int64), ("max_events", _c_int64), ("n_change", _c_int64)]


MODE_LAYOUT = ctypes.CFUNCTYPE(None, _c_void_p, _c_int64, _c_void_p, _c_int64, ctypes.POINTER(FjModeLayout))
MODE_EVENTS = ctypes.CFUNCTYPE(_c_int64, ctypes.POINTER(FjArgs), _c_void_p, _c_void_p, ctypes.POINTER(_c_int64))
DECIDE = ctypes.CFUNCTYPE(_c_int64, ctypes.POINTER(FjArgs), _c_double, _c_void_p, _c_void_p, _c_int64, _c_void_p,
                          _c_void_p, _c_void_p)
INTEGRALS = ctypes.CFUNCTYPE(None, ctypes.POINTER(FjArgs), ctypes.POINTER(_c_int64), ctypes.POINTER(_c_int64))
START, NO_EVENT = -2, -1  # decide's event argument besides an event's index (fj_kernel.h)
INPUT_DRIVEN = 1  # the flag of an event that can fire while the state stands still


class FjFamily(ctypes.Structure):
    """fj_family of fj_kernel.h."""

    _fields_ = [("name", ctypes.c_char_p), ("rhs", KERNEL), ("events", KERNEL), ("record", KERNEL),
                ("work_size", WORK_SIZE), ("message", MESSAGE), ("mode_layout", MODE_LAYOUT),
                ("mode_events", MODE_EVENTS), ("decide", DECIDE), ("integrator", ctypes.c_void_p),
                ("integrals", INTEGRALS), ("rhs_near", KERNEL)]


_libraries = {}  # resolved path -> loaded library
_resolved = {}  # the path asked for (None: the default one) -> its resolved path, found once
_libraries_lock = threading.Lock()


def default_library_path() -> Path:
    """The library the environment variable FRICTION_JOINTS_ENGINE_LIBRARY names if it is set (another
    build of every source, e.g. with sanitizers: ``build.compile_library``), else the one pip install
    built beside this file; RuntimeError if there is none. That one uses no Python API, so a build
    named for another Python version serves as well (an FMU's bundled package run by another Python
    than the one that built it)."""
    named = os.environ.get(LIBRARY_VARIABLE)
    if named:
        path = Path(named).resolve()
        if not path.is_file():
            raise RuntimeError(f"{LIBRARY_VARIABLE}={named!r} names no file")
        return path
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = PACKAGE_DIR / (LIBRARY_NAME + suffix)
        if path.exists():
            return path
    for path in sorted(PACKAGE_DIR.glob(LIBRARY_NAME + ".*")):
        if path.suffix == importlib.machinery.EXTENSION_SUFFIXES[-1]:
            return path
    raise RuntimeError(f"the C engine is not built: no {LIBRARY_NAME}*.so in {PACKAGE_DIR} "
                       "(install the package with pip, which compiles it; a C compiler is needed)")


def library(path=None) -> ctypes.CDLL:
    """The engine's library at ``path``, loaded once per path; without a path the default one
    (``default_library_path()``), found and loaded once per process: an FMU's bundled package keeps
    it after the host deletes the folder it was loaded from."""
    with _libraries_lock:
        key = _resolved.get(path)
        if key is None:
            key = _resolved[path] = str(Path(default_library_path() if path is None else path).resolve())
        lib = _libraries.get(key)
        if lib is None:
            lib = _libraries[key] = _load(key)
    return lib


class FjOptions(ctypes.Structure):
    """fj_options of fj.h."""

    _fields_ = [("rtol", _c_double), ("atol", _c_double), ("max_step", _c_double), ("hold_step", _c_double)]


class FjReport(ctypes.Structure):
    """fj_report of fj.h: the last mode decision that changed the mode."""

    _fields_ = [("t", _c_double), ("event", _c_int64), ("n_passes", _c_int64), ("fmodes", _c_void_p),
                ("imodes", _c_void_p), ("changes", _c_void_p), ("row_before", _c_void_p), ("row_after", _c_void_p)]


# (name, restype, argtypes) of the instance API (fj.h); "p" a pointer, "i" int64, "d" double, "n" int
_INSTANCE_API = {
    "fj_instance_new": ("p", "ppipiiiipps"), "fj_instance_new_of": ("p", "ppipiiiipps"),
    "fj_instance_free": (None, "p"), "fj_instance_start": ("n", "pdp"),
    "fj_instance_set_inputs": ("n", "ppp"), "fj_instance_set_input_forms": ("n", "ppn"),
    "fj_instance_step": ("n", "pd"), "fj_instance_step_forms": ("n", "ppndp"), "fj_instance_advance": ("n", "pdpipp"),
    "fj_instance_report": ("n", "pp"),
    "fj_instance_outputs": ("n", "pp"), "fj_instance_time": ("d", "p"), "fj_instance_time_address": ("p", "p"),
    "fj_instance_step_size": ("d", "p"), "fj_instance_y": ("p", "p"),
    "fj_instance_mode": (None, "ppppp"), "fj_instance_counters": (None, "pppp"),
    "fj_instance_state_size": ("i", "p"), "fj_instance_get_state": ("n", "pp"), "fj_instance_set_state": ("n", "pp"),
    "fj_instance_message": ("c", "p"),
}
_C_TYPES = {"p": _c_void_p, "i": _c_int64, "d": _c_double, "n": ctypes.c_int, "c": ctypes.c_char_p,
            "s": ctypes.c_size_t, None: None}


def _load(path: str) -> ctypes.CDLL:
    lib = ctypes.CDLL(path)
    if hasattr(lib, "fj_instance_new"):
        for name, (restype, argtypes) in _INSTANCE_API.items():
            function = getattr(lib, name)
            function.restype = _C_TYPES[restype]
            function.argtypes = [_C_TYPES[c] for c in argtypes]
    return lib


def _address(array, dtype, name):
    """The data address of array (checked: C-contiguous, of dtype)."""
    if not (isinstance(array, np.ndarray) and array.dtype == dtype and array.flags.c_contiguous):
        raise TypeError(f"{name} must be a C-contiguous {np.dtype(dtype).name} array")
    return array.ctypes.data


class Family:
    """A family of the engine (fj_family): its kernels, scratch sizes and status messages."""

    def __init__(self, name: str, lib=None):
        self.lib = library() if lib is None else lib
        try:
            self.c = FjFamily.in_dll(self.lib, "fj_family_" + name)
        except ValueError:
            raise ValueError(f"the C engine has no family {name!r}") from None
        self.name = name

    def message(self, status: int) -> str:
        return self.c.message(int(status)).decode()

    def work_size(self, fpar, ipar) -> tuple[int, int]:
        n_work, n_iwork = _c_int64(), _c_int64()
        self.c.work_size(_address(fpar, np.float64, "fpar"), fpar.size, _address(ipar, np.int64, "ipar"), ipar.size,
                         ctypes.byref(n_work), ctypes.byref(n_iwork))
        return n_work.value, n_iwork.value

    @property
    def decides_modes(self) -> bool:
        """Whether the family decides its modes in C (mode_layout, mode_events and decide are set)."""
        return bool(self.c.decide)

    def mode_layout(self, fpar, ipar) -> FjModeLayout:
        """The sizes of the modes of the packed model (fpar, ipar)."""
        layout = FjModeLayout()
        self.c.mode_layout(_address(fpar, np.float64, "fpar"), fpar.size, _address(ipar, np.int64, "ipar"),
                           ipar.size, ctypes.byref(layout))
        return layout


class Workspace:
    """A packed model with its scratch and the fj_args of its calls: one per integrator (an instance),
    never shared between threads. fpar, ipar: the packed model (kept alive here)."""

    def __init__(self, family: Family, fpar, ipar):
        self.family = family
        self.fpar = np.ascontiguousarray(fpar, np.float64)
        self.ipar = np.ascontiguousarray(ipar, np.int64)
        n_work, n_iwork = family.work_size(self.fpar, self.ipar)
        self.work = np.zeros(max(n_work, 1))
        self.iwork = np.zeros(max(n_iwork, 1), dtype=np.int64)
        self.args = FjArgs(fpar=self.fpar.ctypes.data, ipar=self.ipar.ctypes.data, n_fpar=self.fpar.size,
                           n_ipar=self.ipar.size, work=self.work.ctypes.data, iwork=self.iwork.ctypes.data)
        self._mode = None  # (fmode, imode) the args point to: kept alive

    def set_mode(self, fmode, imode):
        """The mode of the next calls: arrays (float64, int64), or None and None (no mode yet: decide at
        the start)."""
        if fmode is None:
            self.args.fmode = self.args.imode = None
            self.args.n_fmode = self.args.n_imode = 0
            self._mode = None
            return
        if self._mode is not None and self._mode[0] is fmode and self._mode[1] is imode:
            return  # the usual case in a run: the mode of the last call
        self.args.fmode, self.args.n_fmode = _address(fmode, np.float64, "fmode"), fmode.size
        self.args.imode, self.args.n_imode = _address(imode, np.int64, "imode"), imode.size
        self._mode = (fmode, imode)

    def call(self, which: str, t, y, tau, out) -> int:
        """Kernel ``which`` ("rhs", "events" or "record") at (t, y, tau) into out; its status."""
        self.args.n_y, self.args.n_tau = y.size, tau.size
        kernel = getattr(self.family.c, which)
        return kernel(ctypes.byref(self.args), float(t), _address(y, np.float64, "y"),
                      _address(tau, np.float64, "tau"), _address(out, np.float64, "out"), out.size)


    def integrals(self) -> range:
        """The indices of the states no right-hand side reads (fj_family.integrals; empty if the family declares
        none)."""
        if not self.family.c.integrals:
            return range(0)
        first, count = _c_int64(), _c_int64()
        self.family.c.integrals(ctypes.byref(self.args), ctypes.byref(first), ctypes.byref(count))
        return range(first.value, first.value + count.value)

    def mode_events(self, max_events: int):
        """(directions (n,) int64, flags (n,) int64, watch_all bool) of the events of the current mode."""
        directions = np.zeros(max(max_events, 1), dtype=np.int64)
        flags = np.zeros_like(directions)
        watch_all = _c_int64()
        n = self.family.c.mode_events(ctypes.byref(self.args), directions.ctypes.data, flags.ctypes.data,
                                      ctypes.byref(watch_all))
        return directions[:n], flags[:n], bool(watch_all.value)

    def decide(self, t, y, tau, event: int, layout: FjModeLayout):
        """The family's mode update at (t, y, tau) after ``event`` (an index of the current mode's events,
        NO_EVENT or START): (status, fmode, imode, change); y (n_y,) float64 is updated in place."""
        fmode = np.zeros(max(layout.n_fmode, 1))[: layout.n_fmode]
        imode = np.zeros(max(layout.n_imode, 1), dtype=np.int64)[: layout.n_imode]
        change = np.zeros(max(layout.n_change, 1), dtype=np.int64)[: layout.n_change]
        self.args.n_y, self.args.n_tau = y.size, tau.size
        status = self.family.c.decide(ctypes.byref(self.args), float(t), _address(y, np.float64, "y"),
                                      _address(tau, np.float64, "tau"), int(event), fmode.ctypes.data,
                                      imode.ctypes.data, change.ctypes.data)
        return status, fmode, imode, change


class Kernel:
    """A family's kernel as a Python callable: ``kernel(t, y, tau, fpar, ipar, fmode, imode, out) ->
    status`` (a new scratch each call: for tests and single evaluations)."""

    def __init__(self, family: Family, which: str):
        self.family, self.which = family, which

    def __call__(self, t, y, tau, fpar, ipar, fmode, imode, out) -> int:
        ws = Workspace(self.family, fpar, ipar)
        ws.set_mode(np.ascontiguousarray(fmode, np.float64), np.ascontiguousarray(imode, np.int64))
        return ws.call(self.which, t, np.ascontiguousarray(y, np.float64), np.ascontiguousarray(tau, np.float64), out)


# the statuses of the instance API that Python tells apart (fj.h's fj_status; the others raise alike)
STATUS_OK, STATUS_BAD_ARGUMENT, STATUS_KERNEL_FAILED, STATUS_ZENO = 0, 1, 2, 4
ADVANCED_TO_END, ADVANCED_TO_EVENT = 0, 100
MAX_EVENTS_AT_ONE_TIME = 10  # fj.h's FJ_MAX_EVENTS_AT_ONE_TIME


class InstanceError(RuntimeError):
    """A failure of the instance API: ``status`` (STATUS_*) and the engine's message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class Instance:
    """An instance of the C engine (fj.h) over a family's packed model: the whole event-driven
    integration, mode decisions included, in C. Sizes: n_y states, n_tau inputs, n_record recorded
    values; options: rtol, atol, max_step, hold_step (s) of the integrator."""

    def __init__(self, family: Family, fpar, ipar, n_y, n_tau, n_record, *, rtol, atol, max_step=np.inf,
                 hold_step=np.inf):
        self.lib, self.family = family.lib, family
        self.n_y, self.n_tau, self.n_record = int(n_y), int(n_tau), int(n_record)
        fpar, ipar = np.ascontiguousarray(fpar, np.float64), np.ascontiguousarray(ipar, np.int64)
        self.layout = family.mode_layout(fpar, ipar)
        options = FjOptions(rtol, atol, max_step, hold_step)
        error = ctypes.create_string_buffer(256)
        handle = self.lib.fj_instance_new_of(ctypes.addressof(family.c), fpar.ctypes.data, fpar.size,
                                             ipar.ctypes.data, ipar.size, self.n_y, self.n_tau, self.n_record,
                                             ctypes.byref(options), error, len(error))
        if not handle:
            raise InstanceError(STATUS_BAD_ARGUMENT, error.value.decode())
        self.handle = handle
        self._free = self.lib.fj_instance_free
        self.n_state = int(self.lib.fj_instance_state_size(handle))
        self._report = FjReport()
        self._n_rows = _c_int64()
        # a co-simulation step's calls: bound once, with the addresses of buffers of their own (numpy's
        # array.ctypes.data costs more than the call)
        self.time_cell = _c_double.from_address(self.lib.fj_instance_time_address(handle))  # t without a call
        self._advance = self.lib.fj_instance_advance
        self._step = self.lib.fj_instance_step
        self._set_input_forms, self._outputs = self.lib.fj_instance_set_input_forms, self.lib.fj_instance_outputs
        self.forms = np.zeros((self.n_tau, 5))
        self._forms_address = self.forms.ctypes.data
        self._form_entries = memoryview(self.forms.reshape(-1))  # flat: cheaper to write than numpy's
        self._record = np.zeros(self.n_record)
        self._record_address = self._record.ctypes.data
        # step_held's call: fj_instance_step_forms without argtypes, its pointers and t_end prebuilt ctypes
        # objects (ctypes passes those as they are; the argtypes' conversions cost more than the rest of the call)
        self._step_held = self.lib["fj_instance_step_forms"]  # a function object of its own
        self._step_held.restype = ctypes.c_int
        self._step_held_args = (_c_void_p(handle), _c_void_p(self._forms_address), _c_void_p(self._record_address))
        self._t_end = _c_double()
        self._n_rows_ref = ctypes.byref(self._n_rows)

    def __del__(self):
        handle = getattr(self, "handle", None)
        if handle:
            self._free(handle)
            self.handle = None

    @staticmethod
    def _sized(values, n, name) -> np.ndarray:
        """values as a C-contiguous float64 array of n entries; InstanceError naming it otherwise."""
        array = np.ascontiguousarray(values, np.float64)
        if array.shape != (n,):
            raise InstanceError(STATUS_BAD_ARGUMENT, f"{name} must have {n} entries, got shape {array.shape}")
        return array

    def _checked(self, status: int) -> int:
        if status not in (STATUS_OK, ADVANCED_TO_EVENT):
            raise InstanceError(status, self.message)
        return status

    @property
    def message(self) -> str:
        return self.lib.fj_instance_message(self.handle).decode()

    def start(self, t0: float, y0) -> None:
        y0 = self._sized(y0, self.n_y, "y0")
        self._checked(self.lib.fj_instance_start(self.handle, float(t0), y0.ctypes.data))

    def set_input_forms(self, forms, jump: int) -> None:
        """forms (n_tau, 5) float64 C-contiguous from the current time, or None: the instance's own
        ``forms`` (n_tau, 5), filled by the caller; jump 0, 1 (restart) or 2 (fj.h)."""
        address = self._forms_address if forms is None else _address(forms, np.float64, "forms")
        status = self._set_input_forms(self.handle, address, jump)
        if status:
            self._checked(status)

    def set_inputs(self, value, derivative=None) -> None:
        value = self._sized(value, self.n_tau, "value")
        derivative = None if derivative is None else self._sized(derivative, self.n_tau, "derivative")  # kept alive
        self._checked(self.lib.fj_instance_set_inputs(self.handle, value.ctypes.data,
                                                      None if derivative is None else derivative.ctypes.data))

    def step(self, t_end: float) -> None:
        self._checked(self._step(self.handle, float(t_end)))

    def step_held(self, t_end: float, values, rates, jump: int) -> np.ndarray:
        """A co-simulation step in one call of the engine: every input held from the current time, its value
        and rate (per s) from values and rates (n_tau floats each; the other entries of its form stay 0, as
        Held.form's), jump as set_input_forms, then to t_end with every event and mode decision in C; the
        record at t_end (n_record,) in the instance's own buffer, which the next call overwrites."""
        entries, i = self._form_entries, 1
        for value, rate in zip(values, rates):
            entries[i], entries[i + 1] = value, rate
            i += 5
        self._t_end.value = t_end
        handle, forms, record = self._step_held_args
        status = self._step_held(handle, forms, jump, self._t_end, record)
        if status:
            self._checked(status)
        return self._record

    def advance(self, t_end: float, grid, rows) -> tuple[int, int]:
        """To t_end or right after the first event: (ADVANCED_TO_END or ADVANCED_TO_EVENT, rows written at
        the times of grid (n_grid,) into rows (n_grid, n_record))."""
        if grid.size:
            status = self._advance(self.handle, t_end, grid.ctypes.data, grid.size, rows.ctypes.data, self._n_rows_ref)
        else:  # a co-simulation step: no grid, no rows
            status = self._advance(self.handle, t_end, None, 0, None, self._n_rows_ref)
        if status and status != ADVANCED_TO_EVENT:
            self._checked(status)
        return status, self._n_rows.value

    def report(self):
        """(t, event, modes [(fmode, imode)] before and after each pass, changes [(n_change,)], row_before,
        row_after) of the last decision that changed the mode; copies."""
        self.lib.fj_instance_report(self.handle, ctypes.byref(self._report))
        r, L = self._report, self.layout
        n = r.n_passes
        fmodes = _copy(r.fmodes, (n + 1) * L.n_fmode, np.float64).reshape(n + 1, L.n_fmode)
        imodes = _copy(r.imodes, (n + 1) * L.n_imode, np.int64).reshape(n + 1, L.n_imode)
        changes = _copy(r.changes, n * L.n_change, np.int64).reshape(n, L.n_change)
        rows = [_copy(address, self.n_record, np.float64) for address in (r.row_before, r.row_after)]
        return r.t, r.event, list(zip(fmodes, imodes)), list(changes), rows[0], rows[1]

    def outputs(self, out=None) -> np.ndarray:
        """The record at the current time and state into out (n_record,) float64, or into a new array
        (out None); returns it."""
        if out is None:
            status = self._outputs(self.handle, self._record_address)
            if status:
                self._checked(status)
            return self._record.copy()
        self._checked(self._outputs(self.handle, _address(out, np.float64, "out")))
        return out

    @property
    def t(self) -> float:
        return self.time_cell.value

    @property
    def step_size(self) -> float:
        """The step size the integrator tries next (s; 0 before the first step)."""
        return self.lib.fj_instance_step_size(self.handle)

    @property
    def y(self) -> np.ndarray:
        return _copy(self.lib.fj_instance_y(self.handle), self.n_y, np.float64)

    @property
    def mode(self):
        """(fmode, imode) copies of the current mode."""
        fmode, imode, n_fmode, n_imode = _c_void_p(), _c_void_p(), _c_int64(), _c_int64()
        self.lib.fj_instance_mode(self.handle, ctypes.byref(fmode), ctypes.byref(imode), ctypes.byref(n_fmode),
                                  ctypes.byref(n_imode))
        return _copy(fmode.value, n_fmode.value, np.float64), _copy(imode.value, n_imode.value, np.int64)

    @property
    def counters(self) -> tuple[int, int, int]:
        """(rhs calls, accepted steps, events) since the start."""
        values = [_c_int64() for _ in range(3)]
        self.lib.fj_instance_counters(self.handle, *map(ctypes.byref, values))
        return tuple(v.value for v in values)

    def get_state(self) -> np.ndarray:
        state = np.zeros(self.n_state)
        self._checked(self.lib.fj_instance_get_state(self.handle, state.ctypes.data))
        return state

    def set_state(self, state) -> None:
        state = np.ascontiguousarray(state, np.float64)
        if state.size != self.n_state:
            raise InstanceError(STATUS_BAD_ARGUMENT, f"a state of {self.n_state} doubles is expected, got {state.size}")
        self._checked(self.lib.fj_instance_set_state(self.handle, state.ctypes.data))


def _copy(address, n, dtype) -> np.ndarray:
    """A copy of the n values of dtype at address (an empty array for n = 0); read through a ctypes
    buffer at the address (a new array's ``ctypes.data`` costs more than the copy)."""
    if not (n and address):
        return np.empty(n, dtype=dtype)
    dtype = np.dtype(dtype)
    return np.frombuffer((ctypes.c_char * (n * dtype.itemsize)).from_address(address), dtype).copy()


# ======================================================================================================
# Assemblies (fj_assembly.h): a model's parameters -> its packed arrays, in C (the models' one packer)
# ======================================================================================================

ASSEMBLE = ctypes.CFUNCTYPE(_c_int64, _c_void_p, _c_void_p, _c_void_p, _c_void_p, _c_void_p, ctypes.c_size_t)


class FjAssembly(ctypes.Structure):
    """fj_assembly of fj_assembly.h."""

    _fields_ = [("model", ctypes.c_char_p), ("family", ctypes.c_char_p), ("n_param", _c_int64),
                ("names", ctypes.POINTER(ctypes.c_char_p)), ("n_fpar", _c_int64), ("n_ipar", _c_int64),
                ("n_y", _c_int64), ("n_tau", _c_int64), ("n_record", _c_int64), ("assemble", ASSEMBLE)]


class Assembly:
    """The C assembly of a model (fj_assembly_find): ``names`` of its parameters in order, its family and
    sizes; ``assembly(values)`` -> (fpar, ipar, y0), values a sequence in the order of names or a mapping
    by name; ValueError naming every parameter out of its allowed range (the Python checks' text)."""

    def __init__(self, model: str, lib=None):
        self.lib = library() if lib is None else lib
        find = self.lib.fj_assembly_find
        find.restype, find.argtypes = ctypes.POINTER(FjAssembly), [ctypes.c_char_p]
        pointer = find(model.encode())
        if not pointer:
            raise ValueError(f"the C engine has no assembly of the model {model!r}")
        self.c = pointer.contents
        self.model, self.family = model, self.c.family.decode()
        self.names = tuple(self.c.names[i].decode() for i in range(self.c.n_param))
        self.n_fpar, self.n_ipar, self.n_y = self.c.n_fpar, self.c.n_ipar, self.c.n_y
        self.n_tau, self.n_record = self.c.n_tau, self.c.n_record

    def __call__(self, values):
        if hasattr(values, "keys"):
            values = [values[name] for name in self.names]
        p = np.ascontiguousarray(values, np.float64)
        if p.shape != (len(self.names),):
            raise ValueError(f"{self.model}: {len(self.names)} parameters expected ({', '.join(self.names)}), "
                             f"got {p.shape}")
        fpar, ipar, y0 = np.zeros(self.n_fpar), np.zeros(self.n_ipar, np.int64), np.zeros(self.n_y)
        error = ctypes.create_string_buffer(1024)
        if self.c.assemble(p.ctypes.data, fpar.ctypes.data, ipar.ctypes.data, y0.ctypes.data,
                           ctypes.addressof(error), len(error)):
            raise ValueError(error.value.decode())
        return fpar, ipar, y0


def pack_bristle_law(values, lib=None) -> np.ndarray:
    """fj_bristle_law_pack (assembly_bristle.c, the one packer of a law's row): the row of the bristle law of
    ``values`` (model, sigma0, sigma1, sigma2, mu_c, mu_s, v_s, delta, z_ba_ratio: the row's order);
    ValueError naming each value out of its allowed range (friction.bristle.make_law's text)."""
    lib = library() if lib is None else lib
    p = np.ascontiguousarray(values, np.float64)
    row, error = np.zeros(p.size), ctypes.create_string_buffer(1024)
    pack = lib.fj_bristle_law_pack
    pack.restype, pack.argtypes = _c_int64, [_c_void_p, _c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    if pack(p.ctypes.data, row.ctypes.data, error, len(error)):
        raise ValueError(error.value.decode())
    return row


def repr_double(x: float, lib=None) -> str:
    """fj_repr: the engine's text of a double, which is Python's repr(float) of it."""
    lib = library() if lib is None else lib
    out = ctypes.create_string_buffer(64)
    lib.fj_repr.restype, lib.fj_repr.argtypes = None, [_c_double, ctypes.c_char_p, ctypes.c_size_t]
    lib.fj_repr(float(x), out, len(out))
    return out.value.decode()


# ======================================================================================================
# The planar family's packer (fj_planar_pack, planar_pack.c): a planar model's arrays, in C
# ======================================================================================================

class FjPlanarModel(ctypes.Structure):
    """fj_planar_model of planar_internal.h: a planar model as flat arrays."""

    _fields_ = [(name, _c_int64) for name in ("n_bodies", "n_joints", "n_drives", "n_tree", "regularised")] + [
        (name, _c_void_p) for name in ("bodies", "joint_types", "joints", "law_kinds", "laws", "drive_bodies", "drives",
                                       "gravity", "tree", "partition")]


def pack_planar(bodies, joint_types, joints, law_kinds, laws, drive_bodies, drives, gravity, tree, partition,
                regularised=False, lib=None) -> tuple[np.ndarray, np.ndarray]:
    """(fpar, ipar) of the planar model given as fj_planar_model's arrays (shapes: bodies (b, 5), joint_types
    (joints, 3), joints (joints, 9), law_kinds (l,), laws (l, 4), drive_bodies (n_drives,), drives (n_drives,
    3), gravity (2,), tree (k1, 2), partition (k,)); ValueError with the packer's message if they do not fit."""
    lib = library() if lib is None else lib
    arrays = dict(bodies=(bodies, np.float64), joint_types=(joint_types, np.int64), joints=(joints, np.float64),
                  law_kinds=(law_kinds, np.int64), laws=(laws, np.float64), drive_bodies=(drive_bodies, np.int64),
                  drives=(drives, np.float64), gravity=(gravity, np.float64), tree=(tree, np.int64),
                  partition=(partition, np.int64))
    kept = {name: np.ascontiguousarray(np.asarray(value, dtype).reshape(-1) if np.size(value) else np.zeros(1, dtype))
            for name, (value, dtype) in arrays.items()}
    model = FjPlanarModel(len(bodies), len(joint_types), len(drive_bodies), len(tree), int(regularised),
                          *(kept[name].ctypes.data for name in arrays))
    pack = lib.fj_planar_pack
    pack.restype = _c_int64
    pack.argtypes = [ctypes.POINTER(FjPlanarModel), _c_void_p, ctypes.POINTER(_c_int64), _c_void_p,
                     ctypes.POINTER(_c_int64), ctypes.c_char_p, ctypes.c_size_t]
    n_fpar, n_ipar, error = _c_int64(), _c_int64(), ctypes.create_string_buffer(256)
    if pack(ctypes.byref(model), None, ctypes.byref(n_fpar), None, ctypes.byref(n_ipar), error, len(error)):
        raise ValueError(error.value.decode())
    fpar, ipar = np.zeros(n_fpar.value), np.zeros(n_ipar.value, np.int64)
    if pack(ctypes.byref(model), fpar.ctypes.data, ctypes.byref(n_fpar), ipar.ctypes.data, ctypes.byref(n_ipar),
            error, len(error)):
        raise ValueError(error.value.decode())
    return fpar, ipar
