"""Static friction of several contacts at zero slip by the Gauss principle (seed 001 Sect. 3-4).

At an instant where the contacts Z do not slip, their friction forces lambda (|Z|,) are unknown
within the static limits |lambda_c| <= bound_c, and their slip accelerations are affine in them,
a = R udot = a_free + W lambda with W = R M''^-1 R^T. Gauss's principle of least constraint,
written with M'' = L L^T and A = L^-1 R^T, b = L^-1 h_free (so that a = A^T (A lambda + b)),
selects

    lambda = argmin ||A lambda + b||^2   subject to   -bound <= lambda <= bound,

a bounded least-squares problem whose optimality conditions are exactly Coulomb's law at zero
slip: a_c = 0 where |lambda_c| < bound_c (the contact sticks), and friction at its limit opposing
a_c where a_c != 0 (the contact starts to slip in the direction of a_c). The slip accelerations a
are unique even where lambda is not (several contacts locking one direction).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_BVLS_PASSES = 100  # per free contact: the iteration limit of the bounded least squares


@dataclass(frozen=True)
class DirectionMode:
    """The mode of a model with one slip direction: +1 / -1 while slipping, 0 while stuck."""

    direction: int


def direction_change(mode, new: DirectionMode):
    """What happened when ``mode`` (None at the start) became ``new``: 'stick', 'breakaway',
    'reversal', 'slip', or None if the direction did not change."""
    was = None if mode is None else mode.direction
    if was == new.direction:
        return None
    return ("stick" if new.direction == 0 else "breakaway" if was == 0 else
            "reversal" if was == -new.direction else "slip")


def gauss_friction(A, b, bound):
    """lambda (z,) minimising ||A lambda + b|| within |lambda| <= bound, and a = A^T (A lambda + b).

    A: (k, z); b: (k,); bound: (z,) non-negative static limits (a zero bound fixes lambda_c = 0).
    """
    A, b, bound = np.asarray(A, float), np.asarray(b, float), np.asarray(bound, float)
    lam = np.zeros(A.shape[1])
    free = bound > 0
    if free.any():
        from scipy.optimize import lsq_linear  # here: scipy.optimize takes a fifth of an FMU's start-up to import

        # scipy's default limit (one pass per variable) stops some rank-deficient problems short of the
        # minimum (tests/test_box_qp.py::test_scipy_default_limit); BVLS ends far sooner than this limit
        res = lsq_linear(A[:, free], -b, bounds=(-bound[free], bound[free]), method="bvls", tol=1e-15,
                         max_iter=MAX_BVLS_PASSES * int(free.sum()))
        lam[free] = np.clip(res.x, -bound[free], bound[free])
    return lam, A.T @ (A @ lam + b)
