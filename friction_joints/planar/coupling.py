"""The coupled reaction-friction equations f = f0 + B f_mu(f) (seed 000 Sect. 3, eq. 3.3).

Both formulations (absolute and minimal) and the programmed-motion problem reduce, at a given
state, to this form: the ideal reactions f are affine in the friction f_mu, and f_mu depends on f
through the friction laws. This module solves it once for all of them.

Uniqueness: f_mu is Lipschitz in f with joint constants L_j (``Joint.lipschitz``). If
kappa = ||B diag(L)||_2 < 1 the map f -> f0 + B f_mu(f) is a contraction, so exactly one solution
exists and Newton from the friction-free reactions finds it. Otherwise (large friction, seed 000
Sect. 3 and the Painleve cases) Newton is started from every sign pattern of the joint reactions
and the distinct roots are counted: none raises InconsistentFrictionError, several raise
IndeterminateFrictionError. That search is exhaustive for the sign-piecewise-linear sliding-joint
laws and a careful heuristic for the revolute laws.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from ..errors import ConvergenceError, IndeterminateFrictionError, InconsistentFrictionError

MAX_ITERATIONS = 50
TOLERANCE = 1e-14  # relative residual: machine precision


@dataclass(frozen=True)
class CoupledSolution:
    """f: (m,) ideal reactions; f_mu: (l,) friction; iterations: Newton steps; kappa: contraction bound."""

    f: np.ndarray
    f_mu: np.ndarray
    iterations: int
    kappa: float


def _newton(f_start, f0, B, friction):
    """Damped Newton on R(f) = f - f0 - B f_mu(f). Returns (f, f_mu, iterations) or None."""
    f = f_start.copy()
    eye = np.eye(len(f0))
    scale = 1.0 + np.linalg.norm(f0)
    f_mu, J = friction(f)
    R = f - f0 - B @ f_mu
    for it in range(MAX_ITERATIONS + 1):
        res = np.linalg.norm(R)
        if res <= TOLERANCE * (scale + np.linalg.norm(B @ f_mu)):
            return f, f_mu, it
        if it == MAX_ITERATIONS:
            return None
        try:
            step = np.linalg.solve(eye - B @ J, R)
        except np.linalg.LinAlgError:
            step = R  # fixed-point step where the Jacobian is singular
        t = 1.0
        while True:  # backtracking on the residual norm
            f_new = f - t * step
            f_mu_new, J_new = friction(f_new)
            R_new = f_new - f0 - B @ f_mu_new
            if np.linalg.norm(R_new) < res or t < 1e-6:
                break
            t *= 0.5
        f, f_mu, J, R = f_new, f_mu_new, J_new, R_new
    return None


def solve_coupled(f0, B, friction, lipschitz, groups):
    """Solve f = f0 + B f_mu(f) to machine precision.

    f0: (m,) reactions without friction; B: (m, l) influence of friction on the reactions;
    friction: callable f -> (f_mu (l,), df_mu/df (l, m)); lipschitz: (l,) Lipschitz constants of the
    friction components; groups: list of index arrays of f, one per joint (the sign patterns tried
    when uniqueness is not guaranteed). Raises ConvergenceError, InconsistentFrictionError or
    IndeterminateFrictionError.
    """
    kappa = float(np.linalg.norm(B * lipschitz[None, :], 2)) if B.size else 0.0
    if kappa < 1.0:
        root = _newton(f0, f0, B, friction)
        if root is None:
            raise ConvergenceError(f"reaction-friction iteration did not converge (kappa={kappa:.3g})")
        return CoupledSolution(root[0], root[1], root[2], kappa)

    scale = 1.0 + np.linalg.norm(f0)
    roots = []
    for signs in product((1.0, -1.0), repeat=len(groups)):
        start = f0.copy()
        for sign, idx in zip(signs, groups):
            start[idx] *= sign
        root = _newton(start, f0, B, friction)
        if root is not None and not any(np.linalg.norm(root[0] - r[0]) <= 1e-8 * scale for r in roots):
            roots.append(root)
    if not roots:
        raise InconsistentFrictionError(
            f"the reaction-friction equations have no solution (Painleve inconsistency, kappa={kappa:.3g})")
    if len(roots) > 1:
        values = ", ".join(np.array2string(r[0], precision=4) for r in roots)
        raise IndeterminateFrictionError(
            f"the reaction-friction equations have {len(roots)} solutions (Painleve indeterminacy, "
            f"kappa={kappa:.3g}): f = {values}")
    return CoupledSolution(roots[0][0], roots[0][1], roots[0][2], kappa)
