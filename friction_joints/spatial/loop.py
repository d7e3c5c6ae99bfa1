"""A closed loop cut at a spherical joint: two open chains from the fixed base whose end points S
must coincide (seed 002 Sect. 3-4).

Coordinates q = [q1 (n1,), q2 (n2,)]. The closure Phi(q) = r_S1(q1) - r_S2(q2) = 0 (3,) has the
Jacobian G = [J1, -J2] (3, n) with J_c = D^(c)T of the paper. The cut reaction f_S (3,, global axes)
acts on chain 1 and -f_S on chain 2, so the equations of motion are seed 002 eq. (2):

    [ A1   0  -J1^T ] [qdd1]   [e1 + tau1]
    [ 0   A2   J2^T ] [qdd2] = [e2 + tau2]
    [ J1  -J2   0   ] [f_S ]   [    c    ]      c = b2 - b1 (the paper's c^(1,2)),

with b_c = sum_kl qd_k qd_l T_kl r_S the acceleration of S at qdd = 0. The last row is the closure
differentiated twice; Baumgarte's stabilisation (seed 002 ref. [15]) replaces c by
c - 2 alpha dPhi/dt - beta^2 Phi so that a drift of the closure decays instead of growing.

The minimal form (coordinate partitioning, as seed 000 Sect. 4 for planar mechanisms) solves three
dependent coordinates q_d from the closure (by default chain 2's three, q_d = q2) and keeps the others
q_i independent: with G_d, G_i the columns of G, qd = V qd_i with V_d = -G_d^-1 G_i, V_i = I,
qdd = V qdd_i + w with w_d = G_d^-1 c, w_i = 0, and V^T A V qdd_i = V^T (e + tau - A w). For q_d = q2
this is V = [I; J2^-1 J1], w = [0; -J2^-1 c]. The cut force follows from the rows of q_d in eq. (2),
A_d qdd - G_d^T f_S = e_d + tau_d.
"""

from __future__ import annotations

import numpy as np

from ..errors import SingularConfigurationError
from .chain import Chain
from .dynamics import point_terms, recursive


def _column(v, like):
    """v (k,) as a column (k, 1) when ``like`` is a matrix of cases, else unchanged."""
    return v[:, None] if np.ndim(like) == 2 else v


class CutJointLoop:
    """chain1, chain2: the open chains; r_S1, r_S2 (3,): the joint centre S in the last link frame
    of each chain (m); alpha, beta: Baumgarte constants (1/s, 0 for none); formulation: the open-chain
    dynamics (chain, q, qd) -> (A, e), ``recursive`` or the paper's ``lagrange_trace``; dependent: the
    indices of the three coordinates the closure determines (default chain 2's, which must then be 3)."""

    def __init__(self, chain1: Chain, chain2: Chain, r_S1, r_S2, alpha=0.0, beta=0.0, formulation=recursive,
                 dependent=None):
        self.chains = (chain1, chain2)
        self.r_S = (np.asarray(r_S1, float), np.asarray(r_S2, float))
        self.n1, self.n2 = chain1.n, chain2.n
        self.n = self.n1 + self.n2
        if dependent is None and self.n2 != 3:
            raise ValueError(f"chain 2 must have 3 joints for the partition q1 | q2, got {self.n2} (or name "
                             f"the dependent coordinates)")
        self.dependent = np.arange(self.n1, self.n) if dependent is None else np.asarray(dependent, int)
        d = self.dependent
        if d.shape != (3,) or len(set(d)) != 3 or not np.all((0 <= d) & (d < self.n)):
            raise ValueError(f"dependent must name 3 different coordinates in [0, {self.n}), got {dependent!r}")
        self.independent = np.setdiff1d(np.arange(self.n), self.dependent)
        self.alpha, self.beta = float(alpha), float(beta)
        self.formulation = formulation

    def split(self, v):
        v = np.asarray(v, float)
        return v[: self.n1], v[self.n1:]

    def points(self, q):
        """Positions of S on chain 1 and on chain 2 (global, m)."""
        return tuple(chain.frames(qc)[0][-1] @ np.append(r, 1.0) for chain, qc, r in
                     zip(self.chains, self.split(q), self.r_S))

    def closure(self, q) -> np.ndarray:
        """Phi = r_S1 - r_S2 (3,), m."""
        p1, p2 = self.points(q)
        return (p1 - p2)[:3]

    def kinematics(self, q, qd):
        """(G (3, n), c (3,), Phi (3,), dPhi/dt (3,)) at (q, qd)."""
        (q1, q2), (qd1, qd2) = self.split(q), self.split(qd)
        J1, b1 = point_terms(self.chains[0], q1, qd1, self.r_S[0])
        J2, b2 = point_terms(self.chains[1], q2, qd2, self.r_S[1])
        G = np.hstack((J1, -J2))
        return G, b2 - b1, self.closure(q), G @ np.asarray(qd, float)

    def mass_and_bias(self, q, qd):
        """(A (n, n) block diagonal, e (n,)) of the two open chains."""
        (q1, q2), (qd1, qd2) = self.split(q), self.split(qd)
        A1, e1 = self.formulation(self.chains[0], q1, qd1)
        A2, e2 = self.formulation(self.chains[1], q2, qd2)
        A = np.zeros((self.n, self.n))
        A[: self.n1, : self.n1], A[self.n1:, self.n1:] = A1, A2
        return A, np.concatenate((e1, e2))

    def solve(self, q, qd, tau):
        """(qdd (n,), f_S (3,)) of seed 002 eq. (2) with the joint torques tau (n,), N.m; tau (n, m)
        solves m cases at once (qdd (n, m), f_S (3, m))."""
        A, e = self.mass_and_bias(q, qd)
        G, c, Phi, Phid = self.kinematics(q, qd)
        K = np.zeros((self.n + 3, self.n + 3))
        K[: self.n, : self.n], K[: self.n, self.n:], K[self.n:, : self.n] = A, -G.T, G
        tau = np.asarray(tau, float)
        closure = c - 2.0 * self.alpha * Phid - self.beta**2 * Phi
        rhs = np.concatenate((_column(e, tau) + tau, np.broadcast_to(_column(closure, tau), (3,) + tau.shape[1:])))
        x = np.linalg.solve(K, rhs)
        return x[: self.n], x[self.n:]

    # --- minimal form -----------------------------------------------------------------------------
    def _dependent_inverse(self, G):
        """G_d^-1 (3, 3), the inverse of the closure's Jacobian in the dependent coordinates."""
        G_d = G[:, self.dependent]
        if abs(np.linalg.det(G_d)) < 1e-12 * max(1.0, np.abs(G_d).max() ** 3):
            raise SingularConfigurationError("the loop is singular at S: the closure's Jacobian in the dependent "
                                             "coordinates has no inverse")
        return np.linalg.inv(G_d)

    def solve_minimal(self, q, qd, tau):
        """(qdd (n,), f_S (3,)) by the minimal form in the independent velocities; q, qd must satisfy the
        closure. tau (n,) or (n, m) as in ``solve``."""
        A, e = self.mass_and_bias(q, qd)
        G, c, _, _ = self.kinematics(q, qd)
        G_dinv = self._dependent_inverse(G)
        V = np.zeros((self.n, self.n - 3))
        V[self.independent] = np.eye(self.n - 3)
        V[self.dependent] = -G_dinv @ G[:, self.independent]
        w = np.zeros(self.n)
        w[self.dependent] = G_dinv @ c
        tau = np.asarray(tau, float)
        force = _column(e - A @ w, tau) + tau
        qdd = V @ np.linalg.solve(V.T @ A @ V, V.T @ force) + _column(w, tau)
        # dependent rows of eq. (2): A_d qdd - G_d^T f_S = e_d + tau_d
        residual = (_column(e, tau) + tau - A @ qdd)[self.dependent]
        return qdd, -G_dinv.T @ residual

    def dependent_velocities(self, q, qd_i):
        """qd (n,) from the independent velocities qd_i (n - 3,) and the closure, G qd = 0."""
        G, _, _, _ = self.kinematics(q, np.zeros(self.n))
        qd = np.zeros(self.n)
        qd[self.independent] = qd_i
        qd[self.dependent] = -self._dependent_inverse(G) @ G[:, self.independent] @ np.asarray(qd_i, float)
        return qd

    def assemble(self, q_guess, tol=1e-13, max_iter=50) -> np.ndarray:
        """q (n,) satisfying the closure with the independent coordinates fixed, by Newton on the dependent ones."""
        q = np.array(q_guess, float)
        for _ in range(max_iter):
            Phi = self.closure(q)
            if np.abs(Phi).max() <= tol:
                return q
            G, _, _, _ = self.kinematics(q, np.zeros(self.n))
            q[self.dependent] -= self._dependent_inverse(G) @ Phi  # dPhi/dq_d = G_d
        raise SingularConfigurationError(f"the loop does not close near q = {q_guess}: |Phi| = "
                                         f"{np.abs(self.closure(q)).max():.3g} m after {max_iter} Newton steps")

    def project(self, q, qd):
        """(q, qd) projected onto the closure and its derivative, keeping the independent q and qd."""
        q = self.assemble(q)
        return q, self.dependent_velocities(q, np.asarray(qd, float)[self.independent])
