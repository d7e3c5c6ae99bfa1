"""The absolute-coordinate formulation (seed 000 eq. 2.9).

    M xdd = h(x, xd, tau) + C^T f + C_mu^T f_mu(xd, f)
    C xdd = xi(x, xd)

solved at a state for xdd, f and f_mu together. The augmented matrix [[M, -C^T], [C, 0]] is
factorised instead of forming M^-1 (as eq. 3.3 does), so that bodies with zero mass whose motion
the constraints determine (the slider of seed 000 Example 2) are allowed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SingularConfigurationError
from .coupling import solve_coupled
from .model import PlanarModel


@dataclass(frozen=True)
class AbsoluteSolution:
    """xdd: (n,) accelerations; f: (m,) ideal reactions; f_mu: (l,) friction; sd: (l,) slip velocities;
    kappa: contraction bound of the coupled equations; iterations: Newton steps."""

    xdd: np.ndarray
    f: np.ndarray
    f_mu: np.ndarray
    sd: np.ndarray
    kappa: float
    iterations: int


def absolute_dynamics(model: PlanarModel, x, xd, tau, *, direction=None, static=False) -> AbsoluteSolution:
    """Solve eq. (2.9) at the state (x (n,), xd (n,), tau (n_drives,)).

    direction: optional (l,) slip signs used instead of sgn(sd) (the intended sliding direction at
    sd = 0); static: evaluate friction with the static coefficients (seed 000 Sect. 5).
    """
    import scipy.linalg as sla  # here: importing SciPy is most of an FMU's start-up
    _, _, C, Cmu, xi = model.constraints(x, xd)
    n, m = model.n, model.m
    K = np.block([[model.M, -C.T], [C, np.zeros((m, m))]])
    rhs = np.zeros((n + m, 1 + model.l))
    rhs[:n, 0] = model.h(tau)
    rhs[n:, 0] = xi
    rhs[:n, 1:] = Cmu.T
    try:
        lu = sla.lu_factor(K, check_finite=True)
    except ValueError as exc:
        raise ValueError(f"the state contains a non-finite value: {exc}") from None
    if np.min(np.abs(np.diag(lu[0]))) <= 1e-12 * np.max(np.abs(np.diag(lu[0]))):
        raise SingularConfigurationError("the augmented matrix [[M, -C^T], [C, 0]] is singular: "
                                         "redundant constraints or a body with unconstrained zero mass")
    sol = sla.lu_solve(lu, rhs)
    a0, A = sol[:n, 0], sol[:n, 1:]
    f0, B = sol[n:, 0], sol[n:, 1:]
    sd = Cmu @ xd
    coupled = solve_coupled(f0, B, lambda f: model.friction(f, sd, direction, static),
                            model.lipschitz, model.z_groups)
    return AbsoluteSolution(a0 + A @ coupled.f_mu, coupled.f, coupled.f_mu, sd, coupled.kappa,
                            coupled.iterations)
