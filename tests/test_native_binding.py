"""The ctypes binding of the C engine (friction_joints.native): families by symbol and by name
(fj_family_find, for callers that hold a name, as the native FMUs will), the default library loaded
once, and argument errors that name the argument."""

import ctypes

import numpy as np
import pytest

from friction_joints import native
from friction_joints.engine import compiled_available

FAMILIES = ("planar", "absolute", "lumped", "steering", "vehicle", "spatial", "bristle", "planar_bristle", "steering_bristle",
            "spatial_clearance", "spatial_bristle", "two_mass_bristle")


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


#: fj_hypot against the exact root (decimal, 60 digits) of pairs over the whole exponent range (x and y alike, y a
#: fraction of x, subnormals), and C99's special cases; run on the engine given as argv[1]
HYPOT = """
import ctypes, math, sys
from decimal import Decimal, getcontext
import numpy as np
from friction_joints.native import library
hypot = library(sys.argv[1]).fj_hypot
hypot.restype, hypot.argtypes = ctypes.c_double, [ctypes.c_double, ctypes.c_double]
getcontext().prec = 60
rng = np.random.default_rng(29)
x = rng.uniform(-1, 1, 6000) * 2.0 ** rng.integers(-1074, 1024, 6000)
with np.errstate(over="ignore"):  # (a product past the largest double: inf, a case too)
    y = np.concatenate([rng.uniform(-1, 1, 2000) * 2.0 ** rng.integers(-1074, 1024, 2000),
                        x[2000:4000] * rng.uniform(0, 1, 2000) * 2.0 ** rng.integers(-60, 60, 2000),
                        rng.uniform(-1, 1, 2000) * 2.0 ** rng.integers(-1074, -1000, 2000)])
for a, b in zip(x.tolist(), y.tolist()):
    exact = (Decimal(a) ** 2 + Decimal(b) ** 2).sqrt()
    if exact > Decimal(sys.float_info.max):
        assert hypot(a, b) == math.inf, (a, b)
    else:
        assert abs(Decimal(hypot(a, b)) - exact) <= Decimal(math.ulp(float(exact))), (a, b, hypot(a, b), exact)
    assert hypot(a, b) == hypot(b, a) == hypot(-a, b)
inf, nan = math.inf, math.nan
assert hypot(inf, nan) == hypot(nan, -inf) == inf and math.isnan(hypot(nan, 1.0)) and math.isnan(hypot(0.0, nan))
assert hypot(0.0, -0.0) == 0.0 and hypot(3.0, 4.0) == 5.0 and hypot(5e-324, 0.0) == 5e-324
assert hypot(sys.float_info.max, 1.0) == sys.float_info.max and hypot(sys.float_info.max, sys.float_info.max) == inf
"""


def test_fj_hypot_is_within_an_ulp_of_the_exact_root_and_c99_at_the_edges(sanitized_engine):
    """fj_hypot (the engine's hypot: the same bits on every platform, unlike libm's) within 1 ulp of the exact
    root everywhere (no overflow or underflow of the squares), C99's inf and NaN; on the engine built with the
    sanitizers."""
    from native_build import run_against

    run_against(sanitized_engine, HYPOT)
