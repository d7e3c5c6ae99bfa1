"""The immutable planar model: bodies, joints, drives and gravity, assembled in absolute coordinates.

x = [x_1, y_1, theta_1, ..., x_b, y_b, theta_b] (n = 3b), z = Phi(x) (m constraints, joints in
order), s = Psi(x) (l free coordinates, joints in order), C = dPhi/dx (m x n), C_mu = dPsi/dx
(l x n), M = diag(m_i, m_i, J_i), h = gravity + applied loads + drives (seed 000 eqs 2.1-2.9).
"""

from __future__ import annotations

import numpy as np

from ..errors import check_parameters, require
from .bodies import Body, BodyLoad
from .joints import Joint


class PlanarModel:
    """A planar multibody model. Immutable after construction; computed values live elsewhere.

    bodies: sequence of Body (indices 1..b in the joints); joints: sequence of Joint, the constraint
    and free-coordinate order; drives: sequence of BodyLoad, one per input tau_k; gravity: (gx, gy)
    in m/s^2, any direction.
    """

    def __init__(self, bodies, joints, drives=(), gravity=(0.0, 0.0)):
        problems = []
        self.bodies = tuple(bodies)
        self.joints = tuple(joints)
        self.drives = tuple(drives)
        b = len(self.bodies)
        if b == 0:
            problems.append("bodies must not be empty")
        for k, body in enumerate(self.bodies):
            if not isinstance(body, Body):
                problems.append(f"bodies[{k}] must be a Body, got {type(body).__name__}")
        for k, joint in enumerate(self.joints):
            if not isinstance(joint, Joint):
                problems.append(f"joints[{k}] must be a Joint, got {type(joint).__name__}")
            elif joint.body_i > b or joint.body_j > b:
                problems.append(f"joints[{k}] refers to a body outside 0..{b}")
        for k, drive in enumerate(self.drives):
            if not isinstance(drive, BodyLoad) or not 1 <= drive.body <= b:
                problems.append(f"drives[{k}] must be a BodyLoad on a body in 1..{b}")
        g = np.asarray(gravity, dtype=float)
        if g.shape != (2,):
            problems.append(f"gravity must be a 2-vector, got shape {g.shape}")
        else:
            for c, v in zip("xy", g):
                require(problems, f"gravity_{c}", v)
        check_parameters(problems)

        self.gravity = g
        self.n = 3 * b
        self.m = sum(j.n_z for j in self.joints)
        self.l = sum(j.n_s for j in self.joints)
        self.z_slices, self.s_slices = [], []
        zi = si = 0
        for j in self.joints:
            self.z_slices.append(slice(zi, zi + j.n_z))
            self.s_slices.append(slice(si, si + j.n_s))
            zi, si = zi + j.n_z, si + j.n_s
        # index arrays of f, one per joint (the sign patterns of the coupled solver)
        self.z_groups = [np.arange(s.start, s.stop) for s in self.z_slices]
        masses = np.array([[bd.m, bd.m, bd.J] for bd in self.bodies]).ravel()
        self.M = np.diag(masses)  # seed 000 eq. (6.1)
        self.masses = np.array([bd.m for bd in self.bodies])
        self.h_ext = np.concatenate([[bd.m * g[0] + bd.force[0], bd.m * g[1] + bd.force[1], bd.moment]
                                     for bd in self.bodies])
        self.H = (np.column_stack([d.generalized_force(self.n) for d in self.drives])
                  if self.drives else np.zeros((self.n, 0)))
        self.frictional = np.array([law is not None for j in self.joints for law in j.friction_laws()], dtype=bool)
        self.lipschitz = np.concatenate([np.full(j.n_s, j.lipschitz()) for j in self.joints]) \
            if self.joints else np.zeros(0)

    @property
    def n_drives(self) -> int:
        return len(self.drives)

    def h(self, tau) -> np.ndarray:
        """h(x, xdot, tau) of seed 000 eq. (2.9): constant loads plus drives (planar bodies have no
        velocity-dependent inertia terms in absolute coordinates). tau: (n_drives,)."""
        tau = np.atleast_1d(np.asarray(tau, dtype=float))
        if tau.shape != (self.n_drives,):
            raise ValueError(f"tau must have shape ({self.n_drives},), got {tau.shape}")
        return self.h_ext + self.H @ tau

    def _block(self, body):
        return slice(3 * body - 3, 3 * body)

    def constraints(self, x, xd=None):
        """(z, s, C, C_mu, xi) at x (and xd for xi): shapes (m,), (l,), (m, n), (l, n), (m,)."""
        x = self._check_x(x, "x")
        if xd is not None:
            xd = self._check_x(xd, "xd")
        z, s = np.zeros(self.m), np.zeros(self.l)
        C, Cmu, xi = np.zeros((self.m, self.n)), np.zeros((self.l, self.n)), np.zeros(self.m)
        for joint, zs, ss in zip(self.joints, self.z_slices, self.s_slices):
            t = joint.terms(x, xd)
            z[zs], s[ss], xi[zs] = t.z, t.s, t.xi
            C[zs, self._block(joint.body_i)] = t.C_i
            Cmu[ss, self._block(joint.body_i)] = t.Cmu_i
            if joint.body_j:
                C[zs, self._block(joint.body_j)] = t.C_j
                Cmu[ss, self._block(joint.body_j)] = t.Cmu_j
        return z, s, C, Cmu, xi

    def xi(self, x, xd) -> np.ndarray:
        """xi = -Cdot xdot (m,) alone, without assembling the Jacobians again."""
        xi = np.zeros(self.m)
        for joint, zs in zip(self.joints, self.z_slices):
            xi[zs] = joint.xi(x, xd)
        return xi

    def friction(self, f, sd, direction=None, static=False):
        """f_mu (l,) from the ideal reactions f (m,) and slip velocities sd (l,), and df_mu/df (l, m).

        direction: optional (l,) signs used instead of sgn(sd); static: use the static coefficients
        (a bool, or an (l,) bool array per free coordinate).
        """
        f_mu, J = np.zeros(self.l), np.zeros((self.l, self.m))
        static = np.broadcast_to(static, (self.l,))
        for joint, zs, ss in zip(self.joints, self.z_slices, self.s_slices):
            dj = None if direction is None else direction[ss]
            f_mu[ss], J[ss, zs] = joint.friction(f[zs], sd[ss], dj, static[ss])
        return f_mu, J

    def kinetic_energy(self, xd) -> float:
        """E_kin = xd^T M xd / 2 (J)."""
        return 0.5 * float(xd @ self.M @ xd)

    def potential_energy(self, x) -> float:
        """E_pot = -sum m_i g . r_Ci (J), zero with every centre at the origin."""
        r = np.reshape(x, (-1, 3))[:, :2]
        return -float(self.masses @ (r @ self.gravity))

    def _check_x(self, x, name):
        x = np.asarray(x, dtype=float)
        if x.shape != (self.n,):
            raise ValueError(f"{name} must have shape ({self.n},), got {x.shape}")
        return x
