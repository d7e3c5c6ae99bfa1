"""The ctypes binding of the C engine (friction_joints.native): families by symbol and by name
(fj_family_find, for callers that hold a name, as the native FMUs will), the default library loaded
once, and argument errors that name the argument."""

import ctypes

import numpy as np
import pytest

from friction_joints import native
from friction_joints.engine import compiled_available

FAMILIES = ("planar", "absolute", "lumped", "steering", "vehicle", "spatial", "bristle", "planar_bristle")


def test_every_family_is_found_by_its_symbol_and_by_its_name():
    lib = native.library()
    find = lib.fj_family_find
    find.restype, find.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
    for name in FAMILIES:
        family = native.Family(name)
        assert family.c.name.decode() == name
        assert find(name.encode()) == ctypes.addressof(family.c), name
    assert find(b"nope") is None and find(b"") is None and find(None) is None


def test_an_unknown_family_is_an_error_naming_it():
    with pytest.raises(ValueError, match="'nope'"):
        native.Family("nope")


def test_the_default_library_is_loaded_once_and_found_by_the_engine():
    assert native.library() is native.library() is native.library(native.default_library_path())
    assert compiled_available()


def test_a_kernel_refuses_arrays_of_the_wrong_type_naming_them():
    kernel = native.Kernel(native.Family("vehicle"), "rhs")
    fpar, ipar = np.zeros(13), np.zeros(1, dtype=np.int64)
    fmode, imode = np.zeros(1), np.zeros(1, dtype=np.int64)
    y, tau, dy = np.zeros(5), np.zeros(2), np.zeros(5)  # the vehicle's state: v_y, r, psi, F_yf, F_yr
    with pytest.raises(TypeError, match="out must be a C-contiguous float64 array"):
        kernel(0.0, y, tau, fpar, ipar, fmode, imode, np.zeros(5, dtype=np.float32))
    with pytest.raises(TypeError, match="out must be a C-contiguous float64 array"):
        kernel(0.0, y, tau, fpar, ipar, fmode, imode, np.zeros(10)[::2])
    assert kernel(0.0, y, tau, fpar, ipar, fmode, imode, dy) == 0
