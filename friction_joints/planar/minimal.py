"""The minimal form of a friction-affected mechanism (seed 000 Sect. 4-5).

From the open tree (``JointCoordinates``) the closing constraints Phi2'(q) = Phi2(g(q)) = 0 give
C2' = C2 D1 and xi2' = xi2 - C2 D1dot qdot. qdot is partitioned into independent velocities u
(``partition``, indices into q) and dependent v, with C2' = [U, V] (eq. 5.1), so that

    qdot = D2 u,   qddot = D2 udot + nu2        (eq. 5.2)
    M'' udot = h'' + h''_mu                     (eq. 5.4)_2

with M'' = D2^T M' D2, h'' = D2^T (h' - M' nu2), h''_mu = D2^T C_mu'^T f_mu, M' = D1^T M D1 and
h' = D1^T (h - M D1dot qdot) (eq. 4.3). The reaction equations (5.4)_3 give f at each instant.
Seed 000 writes them as d = C M^-1 h + C M^-1 C^T f + C M^-1 C_mu^T f_mu - xi = 0, which needs
M^-1; here they are the full dynamic equation C^T f = M xdd - h - C_mu^T f_mu with
xdd = D udot + gamma, D = D1 D2, gamma = D1 nu2 + D1dot qdot, solved for f by the left inverse
(C C^T)^-1 C. Both are exact; this one also holds for massless bodies (Example 2's slider) and is
tested against the paper's d = 0 where M is regular.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SingularConfigurationError
from .coupling import solve_coupled
from .tree import JointCoordinates

MAX_CONDITION = 1e4  # cond(V) beyond which the partition is changed
PROJECTION_TOLERANCE = 1e-12


@dataclass(frozen=True)
class MinimalSolution:
    """The minimal form solved at (q, u, tau).

    udot: (k,); qd, qdd: (k1,); x, xd, xdd: (n,); f: (m,); f_mu, sd: (l,); M2: (k, k) M'';
    h2, h2_mu: (k,) h'' and h''_mu; D2: (k1, k); nu2: (k1,); Cpp: (l, k) C_mu D (sd = Cpp u, eq. 5.5);
    kappa, iterations: of the coupled solve.
    """

    udot: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    x: np.ndarray
    xd: np.ndarray
    xdd: np.ndarray
    f: np.ndarray
    f_mu: np.ndarray
    sd: np.ndarray
    M2: np.ndarray
    h2: np.ndarray
    h2_mu: np.ndarray
    D2: np.ndarray
    nu2: np.ndarray
    Cpp: np.ndarray
    kappa: float
    iterations: int


class MinimalForm:
    """Minimal-form solver of a 1- or more-DOF planar mechanism built from its joint description.

    model: PlanarModel; tree, coordinates: as for ``JointCoordinates``.
    """

    def __init__(self, model, tree, coordinates=None):
        self.model = model
        self.coords = JointCoordinates(model, tree, coordinates)
        self.k1 = self.coords.k1
        self.m2 = len(self.coords.rows2)
        self.k = self.k1 - self.m2
        if self.k < 1:
            raise ValueError(f"the mechanism has k = k1 - m2 = {self.k} degrees of freedom; need at least 1")

    # --- kinematics ---------------------------------------------------------------------------
    def closure(self, q) -> np.ndarray:
        """Phi2'(q) = Phi2(g(q)) (m2,)."""
        z, *_ = self.model.constraints(self.coords.g(q))
        return z[self.coords.rows2]

    def closing_jacobian(self, q):
        """(x, C, D1, C2') at q: C2' = C2 D1 (m2, k1) (eq. 4.4)."""
        x = self.coords.g(q)
        _, _, C, _, _ = self.model.constraints(x)
        D1, _ = self.coords.velocity_maps(C)
        return x, C, D1, C[self.coords.rows2] @ D1

    def choose_partition(self, q, current=None):
        """Indices of q whose velocities are independent (u). Keeps ``current`` while cond(V) stays
        below MAX_CONDITION, else picks the best-conditioned V by QR with column pivoting of C2'."""
        import scipy.linalg as sla  # here: importing SciPy is most of an FMU's start-up
        if self.m2 == 0:
            return tuple(range(self.k1))
        _, _, _, C2p = self.closing_jacobian(q)
        if current is not None:
            current = tuple(int(i) for i in current)
            v_idx = [i for i in range(self.k1) if i not in current]
            if len(current) == self.k and np.linalg.cond(C2p[:, v_idx]) <= MAX_CONDITION:
                return current
        _, _, piv = sla.qr(C2p, pivoting=True)
        return tuple(sorted(int(i) for i in piv[self.m2:]))

    def _split(self, partition):
        u_idx = np.asarray(partition, dtype=int)
        if u_idx.shape != (self.k,) or len(set(u_idx)) != self.k or not all(0 <= i < self.k1 for i in u_idx):
            raise ValueError(f"partition must list {self.k} distinct indices of q in 0..{self.k1 - 1}, "
                             f"got {partition!r}")
        v_idx = np.array([i for i in range(self.k1) if i not in set(u_idx)], dtype=int)
        return u_idx, v_idx

    def _D2(self, C2p, u_idx, v_idx):
        """D2 (k1, k) of eq. (5.2) and the LU of V."""
        import scipy.linalg as sla  # here: importing SciPy is most of an FMU's start-up
        V = C2p[:, v_idx]
        if self.m2 and np.linalg.cond(V) > 1e12:
            raise SingularConfigurationError(
                f"V is singular for the partition u = q[{list(u_idx)}] (a dead-centre configuration)")
        D2 = np.zeros((self.k1, self.k))
        D2[u_idx] = np.eye(self.k)
        if self.m2 == 0:
            return D2, None
        lu = sla.lu_factor(V, check_finite=False)
        D2[v_idx] = -sla.lu_solve(lu, C2p[:, u_idx], check_finite=False)
        return D2, lu

    def project(self, q, partition, max_iterations=20):
        """q moved onto Phi2'(q) = 0 by Newton on its dependent coordinates (the u ones held)."""
        u_idx, v_idx = self._split(partition)
        q = np.array(q, dtype=float)
        if self.m2 == 0:
            return q
        for _ in range(max_iterations):
            phi = self.closure(q)
            if np.linalg.norm(phi) <= PROJECTION_TOLERANCE * (1.0 + np.linalg.norm(q)):
                return q
            _, _, _, C2p = self.closing_jacobian(q)
            try:
                q[v_idx] -= np.linalg.solve(C2p[:, v_idx], phi)
            except np.linalg.LinAlgError:
                break
        raise SingularConfigurationError(
            f"the closing constraints cannot be satisfied near q = {q} (unassemblable geometry or "
            f"dead centre); residual {np.linalg.norm(self.closure(q)):.3g}")

    def velocities(self, q, u, partition):
        """qdot = D2 u (eq. 5.2) at q."""
        u_idx, v_idx = self._split(partition)
        _, _, _, C2p = self.closing_jacobian(q)
        D2, _ = self._D2(C2p, u_idx, v_idx)
        return D2 @ np.atleast_1d(np.asarray(u, dtype=float))

    # --- dynamics -----------------------------------------------------------------------------
    def kinematics(self, q, u, partition):
        """Velocity-level quantities at (q, u): dict with x, xd, qd, C, Cmu, xi, D (= D1 D2), gamma,
        D1, D2, nu2, sd."""
        import scipy.linalg as sla  # here: importing SciPy is most of an FMU's start-up
        model, coords = self.model, self.coords
        u = np.atleast_1d(np.asarray(u, dtype=float))
        if u.shape != (self.k,):
            raise ValueError(f"u must have shape ({self.k},), got {u.shape}")
        u_idx, v_idx = self._split(partition)
        x = coords.g(q)
        _, _, C, Cmu, _ = model.constraints(x)  # the Jacobians once; xi below needs xd first
        D1, _ = coords.velocity_maps(C)
        C2p = C[coords.rows2] @ D1
        D2, lu = self._D2(C2p, u_idx, v_idx)
        qd = D2 @ u
        xd = D1 @ qd
        xi = model.xi(x, xd)
        _, D1dot_qd = coords.velocity_maps(C, xi)
        xi2p = xi[coords.rows2] - C[coords.rows2] @ D1dot_qd  # xi2' = xi2 - C2 D1dot qdot
        nu2 = np.zeros(self.k1)
        if lu is not None:
            # eq. (5.2) prints -V^-1 xi2'; with xi2' = -C2'dot qdot (as xi in eq. 2.9) the sign is +,
            # which the paper's own (6.7) confirms (tests/test_offset_slider_crank.py)
            nu2[v_idx] = sla.lu_solve(lu, xi2p, check_finite=False)
        return dict(x=x, xd=xd, qd=qd, C=C, Cmu=Cmu, xi=xi, D1=D1, D2=D2, nu2=nu2,
                    D=D1 @ D2, gamma=D1 @ nu2 + D1dot_qd, sd=Cmu @ xd)

    def linear_terms(self, q, u, tau, partition):
        """The minimal form with friction as an unknown: dict of ``kinematics`` plus M2, h2, the
        Cholesky factor M2_cho, Cpp = C_mu D (l, k) (eq. 5.5: sd = Cpp u), and f0 (m,), B (m, l)
        such that f = f0 + B f_mu and udot = M2^-1 (h2 + Cpp^T f_mu) for any friction f_mu."""
        import scipy.linalg as sla  # here: importing SciPy is most of an FMU's start-up
        model = self.model
        kin = self.kinematics(q, u, partition)
        D, gamma, C, Cmu = kin["D"], kin["gamma"], kin["C"], kin["Cmu"]
        h = model.h(tau)
        MD = model.M @ D
        M2 = D.T @ MD  # M'' = D2^T M' D2 (eq. 5.4)
        h2 = D.T @ (h - model.M @ gamma)  # h'' = D2^T (h' - M' nu2)
        try:
            M2_cho = sla.cho_factor(M2, check_finite=False)
        except np.linalg.LinAlgError:
            raise SingularConfigurationError("the reduced mass matrix M'' is not positive definite") from None
        Cpp = Cmu @ D
        L = np.linalg.solve(C @ C.T, C)  # left inverse of C^T
        f0 = L @ (MD @ sla.cho_solve(M2_cho, h2, check_finite=False) + model.M @ gamma - h)
        B = L @ (MD @ sla.cho_solve(M2_cho, Cpp.T, check_finite=False) - Cmu.T)
        return dict(kin, M2=M2, h2=h2, M2_cho=M2_cho, Cpp=Cpp, f0=f0, B=B)

    def solution(self, lin, f, f_mu, kappa=0.0, iterations=0) -> MinimalSolution:
        """Assemble the MinimalSolution of ``linear_terms`` for given reactions and friction."""
        import scipy.linalg as sla  # here: importing SciPy is most of an FMU's start-up
        h2_mu = lin["Cpp"].T @ f_mu  # h''_mu = D2^T C_mu'^T f_mu
        udot = sla.cho_solve(lin["M2_cho"], lin["h2"] + h2_mu, check_finite=False)
        return MinimalSolution(udot, lin["qd"], lin["D2"] @ udot + lin["nu2"], lin["x"], lin["xd"],
                               lin["D"] @ udot + lin["gamma"], f, f_mu, lin["sd"], lin["M2"], lin["h2"],
                               h2_mu, lin["D2"], lin["nu2"], lin["Cpp"], kappa, iterations)

    def evaluate(self, q, u, tau, partition, *, direction=None, static=False) -> MinimalSolution:
        """Solve eqs (5.4)_2-(5.4)_3 at (q (k1,), u (k,), tau (n_drives,)) for udot and f.

        direction: optional (l,) slip signs used instead of sgn(sd); static: friction with the static
        coefficients (the stick-slip test of seed 000 Sect. 5).
        """
        lin = self.linear_terms(q, u, tau, partition)
        model, sd = self.model, lin["sd"]
        coupled = solve_coupled(lin["f0"], lin["B"], lambda f: model.friction(f, sd, direction, static),
                                model.lipschitz, model.z_groups)
        return self.solution(lin, coupled.f, coupled.f_mu, coupled.kappa, coupled.iterations)
