"""The binding of the C engine (``native/src``, C99 and libm only), through ctypes.

ctypes rather than cffi: it is in the standard library (an FMU's bundled package then needs nothing
but numpy), and the engine's API is a handful of functions over flat arrays, which ctypes calls
without a compiled binding of its own.

The library is the extension module that ``pip install`` builds (setup.py) beside this file, or the
one the environment variable FRICTION_JOINTS_ENGINE_LIBRARY names (``default_library_path``: how a
test runs a whole process on a sanitizer build); ``library(path)`` loads others by path. A family's
kernels are called from Python through ``Kernel`` (tests, single evaluations); the hybrid integrator
calls ``advance`` once per segment.
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
START, NO_EVENT = -2, -1  # decide's event argument besides an event's index (fj_kernel.h)
INPUT_DRIVEN = 1  # the flag of an event that can fire while the state stands still


class FjFamily(ctypes.Structure):
    """fj_family of fj_kernel.h."""

    _fields_ = [("name", ctypes.c_char_p), ("rhs", KERNEL), ("events", KERNEL), ("record", KERNEL),
                ("work_size", WORK_SIZE), ("message", MESSAGE), ("mode_layout", MODE_LAYOUT),
                ("mode_events", MODE_EVENTS), ("decide", DECIDE)]


_libraries = {}  # resolved path -> loaded library; None -> the default library's path, once found
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
        if path is None:
            path = _libraries.get(None) or str(default_library_path())
            _libraries[None] = path
        key = str(Path(path).resolve())
        lib = _libraries.get(key)
        if lib is None:
            lib = _libraries[key] = _load(key)
    return lib


def _load(path: str) -> ctypes.CDLL:
    lib = ctypes.CDLL(path)
    if hasattr(lib, "fj_dop853_advance"):  # (a test's build of some families' kernels has no integrator)
        lib.fj_dop853_scratch_size.restype = _c_int64
        lib.fj_dop853_scratch_size.argtypes = [_c_int64] * 3
        lib.fj_dop853_advance.restype = _c_int64
        lib.fj_dop853_advance.argtypes = ([_c_void_p] * 3 + [_c_double, _c_void_p] + [_c_double] * 5
                                          + [_c_void_p, _c_void_p, _c_int64, _c_void_p, _c_int64, _c_void_p,
                                             _c_int64, _c_void_p, _c_double])
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


# the return codes and info slots of fj_dop853_advance (fj_dop853.h)
REACHED_END, EVENT, KERNEL_FAILED, STEP_TOO_SMALL, NOT_QUIET = range(5)
INFO_T, INFO_H, INFO_EVENT, INFO_RECORDS, INFO_RHS_CALLS, INFO_KERNEL_STATUS, INFO_STEPS = range(7)
INFO_SIZE = 7


class Dop853:
    """DOP853 with dense output and event location in C (fj_dop853_advance) over a Workspace; its
    scratch grows with the largest mode seen. ``info`` (INFO_SIZE,) holds what the last call reports."""

    def __init__(self, workspace: Workspace):
        self.ws = workspace
        self.lib = workspace.family.lib
        self.info = np.zeros(INFO_SIZE)
        self._info_address = self.info.ctypes.data
        self._family_address = ctypes.addressof(workspace.family.c)
        self._args_address = ctypes.addressof(workspace.args)
        self._scratch_key, self._scratch_address, self.scratch = None, 0, np.zeros(0)

    def advance(self, t, y, t_end, h_abs, rtol, atol, max_step, forms, fmode, imode, directions, grid, records,
                quiet) -> int:
        """Integrate y (n_y,) in place from t to t_end or the first event (fj_dop853.h): forms (n_tau, 5),
        the mode's fmode, imode and directions (n_events,) int64, grid (n_grid,), records (n_grid, n_record);
        every array C-contiguous float64 (int64 for imode and directions): the caller's duty, unchecked on
        this path of every step. Returns REACHED_END, EVENT, KERNEL_FAILED, STEP_TOO_SMALL or NOT_QUIET."""
        ws, n_tau, n_events = self.ws, forms.shape[0], directions.size
        ws.set_mode(fmode, imode)
        ws.args.n_y, ws.args.n_tau = y.size, n_tau
        key = (y.size, n_events, n_tau)
        if key != self._scratch_key:
            size = self.lib.fj_dop853_scratch_size(*key)
            if self.scratch.size < size:
                self.scratch = np.zeros(size)
            self._scratch_key, self._scratch_address = key, self.scratch.ctypes.data
        return self.lib.fj_dop853_advance(
            self._family_address, self._args_address, self._scratch_address, t, y.ctypes.data, t_end, h_abs, rtol,
            atol, max_step, forms.ctypes.data, directions.ctypes.data, n_events, grid.ctypes.data, grid.size,
            records.ctypes.data, records.shape[1], self._info_address, quiet)
