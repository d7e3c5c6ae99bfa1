"""The C box QP of native/src/box_qp.c (fj_box_qp: bounded-variable least squares, Stark & Parker) against
scipy's lsq_linear(method="bvls"), the solver of hybrid.stiction.gauss_friction, the Gauss principle of
seed 001 Sect. 3-4: lambda minimising ||A lambda + b|| within |lambda| <= bound, a = A^T (A lambda + b).

On seeded random problems of every kind (full column rank, fewer rows than contacts, rank-deficient
products, duplicated columns (two contacts locking one direction), zero columns, zero bounds, every
contact at its bound, none at its bound) the residual A lambda + b and a agree to 1e-10 of their scale
(they are unique), lambda too where the free columns of A have full rank (it is unique there), lambda
is within its bounds exactly (0 where the bound is 0), and the C solution satisfies the optimality
(Kuhn-Tucker) conditions on its own. The reference runs scipy to convergence (gauss_friction's default
iteration limit, n, can stop short on rank-deficient problems: see test_scipy_default_limit). The
scratch the header documents suffices (sentinels past it stay untouched), and a build with sanitizers
(tests/native_build.py) runs the solver without a report.

The solver is that of the installed C engine, which exports it."""

import ctypes
import json

import numpy as np
import pytest

from friction_joints.native import default_library_path
from friction_joints.native.build import SOURCE_DIR

from native_build import run_against, sanitized_library, sanitizers

TOL = 1e-10  # of each quantity's scale
PROBLEMS = 150  # random problems per kind
SENTINEL = 12345.678  # fills the scratch past its documented size
KINDS = ("full-rank", "underdetermined", "rank-deficient", "duplicate-columns", "zero-column", "zero-bounds",
         "all-at-bound", "interior")


def bind(lib):
    """solve(A, b, bound) -> (status, lambda, a) through fj_box_qp; the scratch sizes checked."""
    P, I = ctypes.c_void_p, ctypes.c_int64
    lib.fj_box_qp.argtypes = [P, I, I, I, P, P, P, P, P, P]
    lib.fj_box_qp.restype = ctypes.c_int
    lib.fj_box_qp_work_size.argtypes = [I, I, ctypes.POINTER(I), ctypes.POINTER(I)]
    lib.fj_box_qp_work_size.restype = None

    def solve(A, b, bound, lda_pad=0):
        k, z = A.shape
        n_work, n_iwork = I(), I()
        lib.fj_box_qp_work_size(k, z, ctypes.byref(n_work), ctypes.byref(n_iwork))
        assert (n_work.value, n_iwork.value) == (k * z + 2 * k + 3 * z, 3 * z)  # box_qp.h's macros
        padded = np.full((k, z + lda_pad), np.nan)  # a row stride beyond z: the padding must not be read
        padded[:, :z] = A
        b, bound = np.ascontiguousarray(b, float), np.ascontiguousarray(bound, float)
        lam, a = np.full(z + 1, SENTINEL), np.full(z + 1, SENTINEL)
        work = np.full(n_work.value + 8, SENTINEL)
        iwork = np.full(n_iwork.value + 8, 987654321, dtype=np.int64)
        status = lib.fj_box_qp(padded.ctypes.data, k, z, z + lda_pad, b.ctypes.data, bound.ctypes.data,
                               lam.ctypes.data, a.ctypes.data, work.ctypes.data, iwork.ctypes.data)
        assert np.all(work[n_work.value:] == SENTINEL) and np.all(iwork[n_iwork.value:] == 987654321), "scratch overrun"
        assert lam[z] == SENTINEL and a[z] == SENTINEL, "wrote past lambda or a"
        return status, lam[:z], a[:z]

    return solve


@pytest.fixture(scope="module")
def solve():
    return bind(ctypes.CDLL(str(default_library_path())))  # its own handle: the argtypes set here stay here


def reference(A, b, bound):
    """gauss_friction's solution (hybrid/stiction.py, scipy's BVLS)."""
    from friction_joints.hybrid.stiction import gauss_friction  # here: the sanitized subprocess has no scipy

    return gauss_friction(A, b, bound)


def problem(kind, rng):
    """(A, b, bound) of a random problem of the kind."""
    k, z = int(rng.integers(1, 13)), int(rng.integers(1, 13))
    if kind == "full-rank":
        k = max(k, z)
    elif kind == "underdetermined":
        k, z = min(k, z), max(k, z) + 1
    A = rng.normal(size=(k, z)) * rng.uniform(0.1, 10.0)
    if kind == "rank-deficient":
        rank = int(rng.integers(1, min(k, z) + 1))
        A = rng.normal(size=(k, rank)) @ rng.normal(size=(rank, z))
    elif kind == "duplicate-columns":
        A = np.concatenate((A, A[:, rng.integers(0, z, size=int(rng.integers(1, 4)))]), axis=1)
    elif kind == "zero-column":
        A[:, rng.integers(0, z, size=int(rng.integers(1, z + 1)))] = 0.0
    b = rng.normal(size=k) * rng.uniform(0.1, 10.0)
    bound = rng.uniform(0.0, 2.0, size=A.shape[1]) * np.abs(b).max()
    if kind == "zero-bounds":
        bound[rng.random(bound.size) < 0.5] = 0.0
    elif kind == "all-at-bound":
        bound *= 1e-6
    elif kind == "interior":
        bound = 1e6 + bound
    return A, b, bound


def check(solve, A, b, bound, where, **kw):
    status, lam, a = solve(A, b, bound, **kw)
    ref, a_ref = reference(A, b, bound)
    where = f"{where}: A={A.tolist()}, b={b.tolist()}, bound={bound.tolist()}"
    assert status == 0, f"status {status} ({where})"
    assert np.all(np.abs(lam) <= bound), f"lambda {lam} beyond the bounds ({where})"
    assert np.all(lam[bound == 0] == 0.0), f"lambda {lam} not 0 at a zero bound ({where})"
    r_scale = max(1.0, np.abs(b).max(initial=0.0))
    a_scale = max(1.0, np.abs(A).max(initial=0.0) * np.abs(b).sum())
    assert np.abs(A @ lam + b - (A @ ref + b)).max(initial=0) <= TOL * r_scale, f"residual ({where})"
    assert np.abs(a - a_ref).max(initial=0) <= TOL * a_scale, f"a {a} for {a_ref} ({where})"
    assert np.abs(a - A.T @ (A @ lam + b)).max(initial=0) <= TOL * a_scale, f"a is not A^T r ({where})"
    free = bound > 0
    if np.linalg.matrix_rank(A[:, free]) == free.sum():  # lambda unique
        assert np.abs(lam - ref).max(initial=0) <= TOL * max(1.0, bound.max(initial=0)), f"{lam} for {ref} ({where})"
    # Kuhn-Tucker (Coulomb at zero slip): a = 0 strictly inside, a >= 0 at -bound, a <= 0 at +bound
    inside, low, high = free & (np.abs(lam) < bound), free & (lam == -bound), free & (lam == bound)
    assert np.all(np.abs(a[inside]) <= TOL * a_scale) and np.all(a[low] >= -TOL * a_scale), f"KKT ({where})"
    assert np.all(a[high] <= TOL * a_scale), f"KKT ({where})"
    return lam, a


@pytest.mark.parametrize("kind", KINDS)
def test_box_qp_agrees_with_scipy_bvls(solve, kind):
    rng = np.random.default_rng(sum(map(ord, kind)))
    for n in range(PROBLEMS):
        A, b, bound = problem(kind, rng)
        lam, _ = check(solve, A, b, bound, f"{kind} #{n}", lda_pad=n % 3)
        if kind == "all-at-bound":
            assert np.all(np.abs(lam) == bound), f"{kind} #{n}: {lam} not all at {bound}"
        elif kind == "interior":
            assert np.all(np.abs(lam) < bound)


def test_small_cases(solve):
    """No contacts, no rows, one contact, and the two-mass Gauss problem of seed 001 Sect. 4 at rest."""
    for A, b, bound in ((np.zeros((3, 0)), np.ones(3), np.zeros(0)), (np.zeros((0, 2)), np.zeros(0), np.ones(2)),
                        (np.array([[2.0]]), np.array([3.0]), np.array([1.0])),
                        (np.array([[2.0]]), np.array([1.0]), np.array([1.0])),
                        (np.array([[1.0, 0.0], [-1.0, 1.0]]), np.array([4.0, -1.0]), np.array([2.5, 7.0])),
                        (np.array([[1.0, 1.0]]), np.array([1.0]), np.array([0.3, 0.3]))):
        check(solve, A, b, bound, "small")


def test_gauss_friction_reaches_the_minimum_where_scipy_default_limit_stops_short(solve):
    """scipy's default iteration limit for BVLS (one pass per variable) stops some rank-deficient
    problems short of the minimum (about 1 in 150 of these, up to 24 x 24); gauss_friction raises the
    limit (MAX_BVLS_PASSES) and reaches the C solver's minimum on every one of them."""
    from scipy.optimize import lsq_linear

    rng = np.random.default_rng(1)
    short = 0
    for _ in range(1500):
        k, z = rng.integers(1, 25, size=2)
        rank = int(rng.integers(1, min(k, z) + 1))
        A = rng.normal(size=(k, rank)) @ rng.normal(size=(rank, z))
        b, bound = 3.0 * rng.normal(size=k), rng.uniform(0.0, 2.0, size=z)
        _, lam, _ = solve(A, b, bound)
        lam_python, _ = reference(A, b, bound)
        cost, cost_python = np.sum((A @ lam + b) ** 2), np.sum((A @ lam_python + b) ** 2)
        assert abs(cost_python - cost) <= TOL * (1 + cost), (cost_python, cost)
        capped = lsq_linear(A, -b, bounds=(-bound, bound), method="bvls", tol=1e-15).x
        short += np.sum((A @ capped + b) ** 2) > cost * (1 + 1e-9) + 1e-12
    assert short > 0, "scipy's default limit reached the minimum everywhere: the raised limit is not shown to matter"


SANITIZED_RUN = """
import ctypes, json, sys
import numpy as np
from test_box_qp import bind
solve = bind(ctypes.CDLL(sys.argv[1]))
for A, b, bound in json.load(sys.stdin):
    A = np.array(A, float).reshape(len(b), len(bound))
    status, lam, a = solve(A, np.array(b, float), np.array(bound, float), lda_pad=1)
    assert status == 0 and np.all(np.isfinite(lam)) and np.all(np.isfinite(a))
print("sanitized calls ok")
"""


def test_box_qp_under_sanitizers(tmp_path):
    """Problems of every kind and the empty ones, from a build of box_qp.c with the sanitizers
    (``native_build.sanitizers()``: a sanitizer's report fails this test)."""
    path = sanitized_library(tmp_path, sanitizers(), [SOURCE_DIR / "box_qp.c"])
    rng = np.random.default_rng(1)
    problems = [problem(kind, rng) for kind in KINDS for _ in range(3)]
    problems += [(np.zeros((3, 0)), np.ones(3), np.zeros(0)), (np.zeros((0, 2)), np.zeros(0), np.ones(2))]
    calls = [(A.ravel().tolist(), b.tolist(), bound.tolist()) for A, b, bound in problems]
    assert run_against(path, SANITIZED_RUN, stdin=json.dumps(calls)).split() == ["sanitized", "calls", "ok"]
