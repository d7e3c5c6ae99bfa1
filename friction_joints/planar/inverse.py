"""Programmed motion (seed 000 Sect. 7): the drive inputs and reactions for a prescribed motion.

Given q on Phi2'(q) = 0, the independent velocities u and accelerations udot, eqs (5.4)_2 and
(5.4)_3 are k + m algebraic equations in tau and f. With xdd = D udot + gamma known they are the
full dynamic equation [H, C^T] [tau; f] = M xdd - h_ext - C_mu^T f_mu(f), H the drive matrix; this
is square when there are k drives, and again of the form f = f0 + B f_mu(f).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SingularConfigurationError
from .coupling import solve_coupled
from .minimal import MinimalForm


@dataclass(frozen=True)
class ProgrammedMotion:
    """tau: (n_drives,) drive inputs; f: (m,) reactions; f_mu, sd: (l,); qd, qdd: (k1,)."""

    tau: np.ndarray
    f: np.ndarray
    f_mu: np.ndarray
    sd: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray


def programmed_motion(minimal: MinimalForm, q, u, udot, partition) -> ProgrammedMotion:
    """Drive inputs and reactions, friction included, for the motion (q, u, udot) (seed 000 Sect. 7)."""
    model = minimal.model
    if model.n_drives != minimal.k:
        raise ValueError(f"programmed motion needs as many drives as degrees of freedom ({minimal.k}), "
                         f"the model has {model.n_drives}")
    udot = np.atleast_1d(np.asarray(udot, dtype=float))
    if udot.shape != (minimal.k,):
        raise ValueError(f"udot must have shape ({minimal.k},), got {udot.shape}")
    kin = minimal.kinematics(q, u, partition)
    xdd = kin["D"] @ udot + kin["gamma"]
    P = np.hstack((model.H, kin["C"].T))
    try:
        sol = np.linalg.solve(P, np.column_stack((model.M @ xdd - model.h_ext, -kin["Cmu"].T)))
    except np.linalg.LinAlgError:
        raise SingularConfigurationError("the drives cannot produce the programmed motion here") from None
    nd = model.n_drives
    sd = kin["sd"]
    coupled = solve_coupled(sol[nd:, 0], sol[nd:, 1:], lambda f: model.friction(f, sd),
                            model.lipschitz, model.z_groups)
    tau = sol[:nd, 0] + sol[:nd, 1:] @ coupled.f_mu
    return ProgrammedMotion(tau, coupled.f, coupled.f_mu, sd, kin["qd"], kin["D2"] @ udot + kin["nu2"])
