"""Guards against use-after-free errors when the host process of an FMU exits.

1. The pythonfmu binary.
The shared library that pythonfmu (0.6 and 0.7) puts into every FMU keeps a static
``std::shared_ptr`` to its interpreter state and resets it again in an ELF destructor. At ``exit()``
the C runtime destroys the static first and runs the ELF destructor afterwards, which then
decrements a reference count inside freed memory. Depending on the heap at that moment the host
aborts after it has finished its work ("corrupted double-linked list"); valgrind shows the invalid
access in ``finalizePythonInterpreter`` every time. The library is never unloaded by dlclose, so a
host that frees its FMU properly is affected as well.

The guard resets that static while it is still alive: at the host interpreter's exit (Python's
``atexit`` runs before the C runtime's handlers) it calls the library's exported
``finalizePythonInterpreter`` once. Afterwards both C++ clean-ups see an empty pointer and do
nothing. Inside a non-Python host the hook runs during the library's own interpreter shutdown,
when the pointer has already been emptied, and is then harmless.

2. SciPy's ``_uarray`` extension (SciPy 1.17, imported by scipy.integrate through scipy.fft) frees
its exception type BackendNotImplementedError when its module is freed, although the module dict
still refers to it; when an embedded interpreter is finalized (a C host: pythonfmu calls
Py_Finalize at exit) the dict is cleared afterwards and touches freed memory, and about one C-host
exit in three crashed. ``pin_scipy_uarray`` adds one permanent reference to that type, a one-object
leak at exit that makes the double release harmless: at once if SciPy has imported it, else at the
interpreter's exit if it has by then (atexit runs before finalization), so that an FMU that never
uses scipy.integrate does not import SciPy for it.
"""

from __future__ import annotations

import _ctypes
import atexit
import ctypes
import os
import sys
from pathlib import Path

_guarded: set[str] = set()
_UARRAY = "scipy._lib._uarray._uarray"  # the extension module of the type to pin
_uarray_pinned: bool | None = False  # None: to be pinned at exit, if imported then


def guard_library_exit(resources: str | None, model_identifier: str) -> bool:
    """Register the exit hook for the FMU binary ``<resources>/../binaries/<platform>/<id>.so``:
    linux64 (FMI 2.0, pythonfmu) or x86_64-linux (FMI 3.0, pythonfmu3, whose binary has the same static).

    Only a library that this process has loaded is touched (RTLD_NOLOAD), now and at exit. Returns True
    when a hook is registered now or was before, False where there is nothing to guard (not
    Linux, no such loaded library, a pythonfmu binary without the symbol).
    """
    if not sys.platform.startswith("linux") or not resources:
        return False
    for platform in ("linux64", "x86_64-linux"):
        binary = str((Path(resources).parent / "binaries" / platform / f"{model_identifier}.so").resolve())
        if binary in _guarded:
            return True
        library = _loaded(binary)
        if library is not None:
            break
    else:
        return False
    has_symbol = hasattr(library, "finalizePythonInterpreter")
    _ctypes.dlclose(library._handle)  # keep no reference: the host may unload and replace the library
    if not has_symbol:
        return False
    _guarded.add(binary)
    atexit.register(_release, binary)
    return True


def pin_scipy_uarray() -> bool:
    """Keep SciPy's _uarray.BackendNotImplementedError alive through interpreter finalization (see
    the module docstring): now if SciPy has imported _uarray, else at exit if it has by then. Returns
    whether it is pinned now."""
    global _uarray_pinned
    if _pin_uarray_if_imported():
        return True
    if _uarray_pinned is False:
        atexit.register(_pin_uarray_if_imported)
        _uarray_pinned = None
    return False


def _pin_uarray_if_imported() -> bool:
    """Pin _uarray.BackendNotImplementedError if SciPy has imported _uarray (once); whether it is pinned."""
    global _uarray_pinned
    if _uarray_pinned is True:
        return True
    error_type = getattr(sys.modules.get(_UARRAY), "BackendNotImplementedError", None)
    if error_type is None:
        return False
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(error_type))
    _uarray_pinned = True
    return True


def _loaded(binary: str):
    """The already loaded library at path binary (a new reference to it), or None."""
    try:
        return ctypes.CDLL(binary, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    except OSError:
        return None


def _release(binary: str):
    """Empty the static interpreter-state pointer of the library loaded at binary, if any (a library
    that the host has unloaded ran its destructors in a safe order already)."""
    library = _loaded(binary)
    if library is not None:
        release = library.finalizePythonInterpreter
        release.restype, release.argtypes = None, []
        release()
