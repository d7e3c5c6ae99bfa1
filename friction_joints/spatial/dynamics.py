"""Equations of motion of an open chain, A(q) qdd = e(q, qd) + tau, in two formulations.
e holds the velocity and gravity terms and the joints' spring-damper forces tau_s = -k q - d qd
(``Chain.spring_forces``; the rigid finite element method's spring-damper elements, ``rfem``).
In a tree the sums over p >= k below run over the links p that joint k supports, and the sums over
i, j <= p over the joints on the path to p (the serial chain is the case where both are ranges).

``lagrange_trace``: the paper's Lagrange form with 4x4 matrices (seed 002 eq. 2):
  A_ij = sum_{p >= max(i,j)} tr(T_i^(p) H^(p) T_j^(p)T),
  e_k = -sum_{p >= k} (h_k^(p) + g_k^(p)), h_k^(p) = sum_{i,j <= p} tr(T_k^(p) H^(p) T_ij^(p)T) qd_i qd_j,
  g_k^(p) = -m^(p) g^T T_k^(p) rbar^(p) (rbar: centre of mass, homogeneous), with the derivatives
  T_i = Delta_i T and T_ij = Delta_min(i,j) Delta_max(i,j) T, Delta_i = M_i Q_i M_i^-1 (M_i: the frame
  of joint axis i, Q_i the derivative operator of Rz, or of Tz for a prismatic joint, where
  Q_i Q_i = 0 gives T_ii = 0 as it must). O(n^4), for reference.
``recursive``: composite-rigid-body mass matrix and recursive Newton-Euler bias forces with
  spatial vectors (Featherstone) in the global frame, O(n^2); used for speed. The motion axis of a
  revolute joint is [z; o x z] (axis z through o), of a prismatic one [0; z].
"""

from __future__ import annotations

import numpy as np

from .chain import JOINT_KINDS, Chain, cross3


def _derivative_operators(chain: Chain, M):
    """Delta_i = M_i Q_i M_i^-1 (n, 4, 4): dT/dq_i = Delta_i T for every frame beyond joint i."""
    return np.array([Mi @ JOINT_KINDS[kind] @ np.linalg.inv(Mi) for Mi, kind in zip(M, chain.kinds)])


def lagrange_trace(chain: Chain, q, qd):
    """(A (n, n), e (n,)) by the trace formulation of seed 002 eq. (2)."""
    T, M = chain.frames(q)
    n = chain.n
    Delta = _derivative_operators(chain, M)
    g4 = np.append(chain.gravity, 0.0)
    A, e = np.zeros((n, n)), np.zeros(n)
    qd = np.asarray(qd, float)
    for p, link in enumerate(chain.links):
        H = link.H
        path = chain.path(p)
        Ti = {i: Delta[i] @ T[p] for i in path}
        rbar = np.append(np.asarray(link.c, float), 1.0)
        for i in path:
            for j in path:
                A[i, j] += np.trace(Ti[i] @ H @ Ti[j].T)
        # sum_ij T_ij qd_i qd_j with T_ij = Delta_min Delta_max T (the path is in base-to-tip order)
        Tqq = np.zeros((4, 4))
        for i in path:
            for j in path:
                lo, hi = min(i, j), max(i, j)
                Tqq += Delta[lo] @ Delta[hi] @ T[p] * qd[i] * qd[j]
        for k in path:
            h = np.trace(Ti[k] @ H @ Tqq.T)
            g = -link.m * g4 @ Ti[k] @ rbar
            e[k] -= h + g
    return A, e + chain.spring_forces(q, qd)


def point_terms_trace(chain: Chain, q, qd, r, link=-1):
    """(D^T (3, n), c (3,)) of the point r (3,) of a link (default the last; r in its frame), seed 002
    eq. (2): (D^T)_{alpha,i} = (T_i r)_alpha, the point's Jacobian, and c = sum_kl qd_k qd_l T_kl r,
    its acceleration at qdd = 0 (the chain's share of the paper's c^(1,2))."""
    T, M = chain.frames(q)
    Delta = _derivative_operators(chain, M)
    rh = T[link] @ np.append(np.asarray(r, float), 1.0)
    qd = np.asarray(qd, float)
    path = chain.path(range(chain.n)[link])
    DT = np.zeros((3, chain.n))
    for i in path:
        DT[:, i] = (Delta[i] @ rh)[:3]
    c = sum(qd[i] * qd[j] * (Delta[min(i, j)] @ Delta[max(i, j)] @ rh)[:3] for i in path for j in path)
    return DT, c


def point_terms(chain: Chain, q, qd, r, link=-1):
    """(J (3, n), b (3,)): Jacobian of the point r (3,) of a link (default the last) and its
    acceleration at qdd = 0, by vector kinematics in O(n) (the same as ``point_terms_trace``).

    Column i of J is z_i x (P - o_i) (revolute axis z_i through o_i) or z_i (prismatic) for the joints
    i on the link's path, zero elsewhere; b = sum_i qd_i d/dt[column i] with dz_i/dt = omega x z_i
    (omega: the angular velocity of the link carrying axis i) and do_i/dt the velocity of the axis
    point o_i.
    """
    T, M = chain.frames(q)
    qd = np.asarray(qd, float)
    P = T[link][:3, :3] @ np.asarray(r, float) + T[link][:3, 3]
    path = chain.path(range(chain.n)[link])
    z, o = M[path, :3, 2], M[path, :3, 3]
    revolute = np.array([chain.kinds[i] == "R" for i in path])
    J = np.zeros((3, chain.n))
    J[:, path] = np.where(revolute, cross3(z.T, (P - o).T), z.T)
    vP = J @ qd
    b = np.zeros(3)
    omega, v_o, o_prev = np.zeros(3), np.zeros(3), o[0]
    for k, i in enumerate(path):
        v_o = v_o + cross3(omega, o[k] - o_prev)  # consecutive axis points both lie on the link between them
        zd = cross3(omega, z[k])
        b += qd[i] * (cross3(zd, P - o[k]) + cross3(z[k], vP - v_o) if revolute[k] else zd)
        if revolute[k]:
            omega = omega + qd[i] * z[k]
        else:
            v_o = v_o + qd[i] * z[k]  # the child's point at o_k slides along z_k
        o_prev = o[k]
    return J, b


def _skew(v):
    """The matrix of v x (3, 3)."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _spatial_inertia(m, c, I_c):
    """6x6 spatial inertia at the global origin ([omega; v] convention) of a body with mass m,
    centre of mass c (3,) and inertia I_c (3x3) about it, both global."""
    C = _skew(c)
    I = np.empty((6, 6))
    I[:3, :3], I[:3, 3:], I[3:, :3], I[3:, 3:] = I_c + m * C @ C.T, m * C, m * C.T, m * np.eye(3)
    return I


def _crm(v):
    """Spatial cross product for motion vectors (v x)."""
    w = _skew(v[:3])
    X = np.zeros((6, 6))
    X[:3, :3], X[3:, :3], X[3:, 3:] = w, _skew(v[3:]), w
    return X


def _link_terms(chain: Chain, q):
    """Joint motion axes S (n, 6) and spatial inertias I (n, 6, 6), global frame, at q."""
    T, M = chain.frames(q)
    S, I = np.empty((chain.n, 6)), np.empty((chain.n, 6, 6))
    for p, link in enumerate(chain.links):
        z, o = M[p][:3, 2], M[p][:3, 3]
        # rotation about z through o, at the origin; or translation along z
        S[p] = np.concatenate((z, cross3(o, z)) if chain.kinds[p] == "R" else (np.zeros(3), z))
        R = T[p][:3, :3]
        c = T[p][:3, :3] @ np.asarray(link.c, float) + T[p][:3, 3]
        I[p] = _spatial_inertia(link.m, c, R @ np.asarray(link.I_c, float) @ R.T)
    return S, I


def recursive(chain: Chain, q, qd):
    """(A (n, n), e (n,)) by composite rigid bodies and recursive Newton-Euler."""
    S, I = _link_terms(chain, q)
    n = chain.n
    qd = np.asarray(qd, float)
    parents = chain.parents
    composite = I.copy()  # the inertia of each link with everything beyond it
    for p in range(n - 1, -1, -1):
        if parents[p] >= 0:
            composite[parents[p]] += composite[p]
    A = np.zeros((n, n))
    for j in range(n):
        for i in chain.path(j):  # A_ij = S_i . composite_j S_j where joint i supports link j
            A[i, j] = A[j, i] = S[i] @ composite[j] @ S[j]
    # Newton-Euler with qdd = 0: the bias forces e = -(h + g)
    base_v, base_a = np.zeros(6), np.concatenate((np.zeros(3), -chain.gravity))  # gravity as base acceleration
    v, a, f = np.empty((n, 6)), np.empty((n, 6)), np.empty((n, 6))
    for p in range(n):
        i = parents[p]
        v[p] = (base_v if i < 0 else v[i]) + S[p] * qd[p]
        a[p] = (base_a if i < 0 else a[i]) + _crm(v[p]) @ (S[p] * qd[p])
        f[p] = I[p] @ a[p] - _crm(v[p]).T @ I[p] @ v[p]
    e = chain.spring_forces(q, qd)
    for p in range(n - 1, -1, -1):  # each link passes its subtree's force to its parent
        e[p] -= S[p] @ f[p]
        if parents[p] >= 0:
            f[parents[p]] += f[p]
    return A, e


def energy(chain: Chain, q, qd):
    """(kinetic, potential) energy (J): qd^T A qd / 2 and -sum m g . r_C (zero at the global origin);
    the springs' strain energy is ``chain.strain_energy(q)``."""
    A, _ = recursive(chain, q, np.zeros(chain.n))
    T, _ = chain.frames(q)
    potential = -sum(link.m * chain.gravity @ (T[p][:3, :3] @ np.asarray(link.c, float) + T[p][:3, 3])
                     for p, link in enumerate(chain.links))
    qd = np.asarray(qd, float)
    return 0.5 * float(qd @ A @ qd), float(potential)
