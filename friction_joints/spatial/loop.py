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

The minimal form (coordinate partitioning, as seed 000 Sect. 4 for planar mechanisms) keeps q1 as
independent coordinates when n1 equals the degrees of freedom n - 3: qd = V qd1 with
V = [I; J2^-1 J1], qdd = V qdd1 + w with w = [0; -J2^-1 c], and V^T A V qdd1 = V^T (e + tau - A w).
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
    dynamics (chain, q, qd) -> (A, e), ``recursive`` or the paper's ``lagrange_trace``."""

    def __init__(self, chain1: Chain, chain2: Chain, r_S1, r_S2, alpha=0.0, beta=0.0, formulation=recursive):
        self.chains = (chain1, chain2)
        self.r_S = (np.asarray(r_S1, float), np.asarray(r_S2, float))
        self.n1, self.n2 = chain1.n, chain2.n
        self.n = self.n1 + self.n2
        if self.n2 != 3:
            raise ValueError(f"chain 2 must have 3 joints for the partition q1 | q2, got {self.n2}")
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
    def _J2_inverse(self, G):
        J2 = -G[:, self.n1:]
        if abs(np.linalg.det(J2)) < 1e-12 * max(1.0, np.abs(J2).max() ** 3):
            raise SingularConfigurationError("chain 2 is singular at S: its Jacobian J2 has no inverse")
        return np.linalg.inv(J2)

    def solve_minimal(self, q, qd, tau):
        """(qdd (n,), f_S (3,)) by the minimal form in qd1; q, qd must satisfy the closure. tau (n,) or
        (n, m) as in ``solve``."""
        A, e = self.mass_and_bias(q, qd)
        G, c, _, _ = self.kinematics(q, qd)
        J2inv = self._J2_inverse(G)
        V = np.vstack((np.eye(self.n1), J2inv @ G[:, : self.n1]))
        w = np.concatenate((np.zeros(self.n1), -J2inv @ c))
        tau = np.asarray(tau, float)
        force = _column(e - A @ w, tau) + tau
        qdd = V @ np.linalg.solve(V.T @ A @ V, V.T @ force) + _column(w, tau)
        # chain 2 rows of eq. (2): A2 qdd2 + J2^T f_S = e2 + tau2
        residual2 = (_column(e, tau) + tau - A @ qdd)[self.n1:]
        return qdd, J2inv.T @ residual2

    def dependent_velocities(self, q, qd1):
        """qd (n,) with chain 2's velocities from the closure, J2 qd2 = J1 qd1."""
        G, _, _, _ = self.kinematics(q, np.zeros(self.n))
        return np.concatenate((qd1, self._J2_inverse(G) @ G[:, : self.n1] @ qd1))

    def assemble(self, q_guess, tol=1e-13, max_iter=50) -> np.ndarray:
        """q (n,) satisfying the closure with q1 fixed, by Newton on chain 2's coordinates."""
        q = np.array(q_guess, float)
        for _ in range(max_iter):
            Phi = self.closure(q)
            if np.abs(Phi).max() <= tol:
                return q
            G, _, _, _ = self.kinematics(q, np.zeros(self.n))
            q[self.n1:] -= self._J2_inverse(G) @ (-Phi)  # dPhi/dq2 = -J2
        raise SingularConfigurationError(f"the loop does not close near q = {q_guess}: |Phi| = "
                                         f"{np.abs(self.closure(q)).max():.3g} m after {max_iter} Newton steps")

    def project(self, q, qd):
        """(q, qd) projected onto the closure and its derivative, keeping q1 and qd1."""
        q = self.assemble(q)
        return q, self.dependent_velocities(q, self.split(qd)[0])
