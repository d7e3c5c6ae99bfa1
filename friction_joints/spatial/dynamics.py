"""Equations of motion of an open revolute chain, A(q) qdd = e(q, qd) + tau, in two formulations.

``lagrange_trace``: the paper's Lagrange form with 4x4 matrices (seed 002 eq. 2):
  A_ij = sum_{p >= max(i,j)} tr(T_i^(p) H^(p) T_j^(p)T),
  e_k = -sum_{p >= k} (h_k^(p) + g_k^(p)), h_k^(p) = sum_{i,j <= p} tr(T_k^(p) H^(p) T_ij^(p)T) qd_i qd_j,
  g_k^(p) = -m^(p) g^T T_k^(p) rbar^(p) (rbar: centre of mass, homogeneous), with the derivatives
  T_i = Delta_i T and T_ij = Delta_min(i,j) Delta_max(i,j) T, Delta_i = M_i Q M_i^-1 (M_i: the frame
  of joint axis i, Q the derivative operator of Rz). O(n^4), for reference.
``recursive``: composite-rigid-body mass matrix and recursive Newton-Euler bias forces with
  spatial vectors (Featherstone) in the global frame, O(n^2); used for speed.
"""

from __future__ import annotations

import numpy as np

from .chain import Q, Chain


def lagrange_trace(chain: Chain, q, qd):
    """(A (n, n), e (n,)) by the trace formulation of seed 002 eq. (2)."""
    T, M = chain.frames(q)
    n = chain.n
    Delta = np.array([M[i] @ Q @ np.linalg.inv(M[i]) for i in range(n)])
    g4 = np.append(chain.gravity, 0.0)
    A, e = np.zeros((n, n)), np.zeros(n)
    qd = np.asarray(qd, float)
    for p, link in enumerate(chain.links):
        H = link.H
        Ti = [Delta[i] @ T[p] for i in range(p + 1)]
        rbar = np.append(np.asarray(link.c, float), 1.0)
        for i in range(p + 1):
            for j in range(p + 1):
                A[i, j] += np.trace(Ti[i] @ H @ Ti[j].T)
        # sum_ij T_ij qd_i qd_j with T_ij = Delta_min Delta_max T
        Tqq = np.zeros((4, 4))
        for i in range(p + 1):
            for j in range(p + 1):
                lo, hi = min(i, j), max(i, j)
                Tqq += Delta[lo] @ Delta[hi] @ T[p] * qd[i] * qd[j]
        for k in range(p + 1):
            h = np.trace(Ti[k] @ H @ Tqq.T)
            g = -link.m * g4 @ Ti[k] @ rbar
            e[k] -= h + g
    return A, e


def _cross(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _spatial_inertia(m, c, I_c):
    """6x6 spatial inertia at the global origin ([omega; v] convention) of a body with mass m,
    centre of mass c (3,) and inertia I_c (3x3) about it, both global."""
    C = _cross(c)
    return np.block([[I_c + m * C @ C.T, m * C], [m * C.T, m * np.eye(3)]])


def _crm(v):
    """Spatial cross product for motion vectors (v x)."""
    w, u = _cross(v[:3]), _cross(v[3:])
    return np.block([[w, np.zeros((3, 3))], [u, w]])


def _link_terms(chain: Chain, q):
    """Joint motion axes S (n, 6) and spatial inertias I (n, 6, 6), global frame, at q."""
    T, M = chain.frames(q)
    S, I = np.empty((chain.n, 6)), np.empty((chain.n, 6, 6))
    for p, link in enumerate(chain.links):
        z, o = M[p][:3, 2], M[p][:3, 3]
        S[p] = np.concatenate((z, np.cross(o, z)))  # rotation about z through o, at the origin
        R = T[p][:3, :3]
        c = T[p][:3, :3] @ np.asarray(link.c, float) + T[p][:3, 3]
        I[p] = _spatial_inertia(link.m, c, R @ np.asarray(link.I_c, float) @ R.T)
    return S, I


def recursive(chain: Chain, q, qd):
    """(A (n, n), e (n,)) by composite rigid bodies and recursive Newton-Euler."""
    S, I = _link_terms(chain, q)
    n = chain.n
    qd = np.asarray(qd, float)
    composite = I.copy()
    for p in range(n - 2, -1, -1):
        composite[p] += composite[p + 1]
    A = np.empty((n, n))
    for i in range(n):
        for j in range(i, n):
            A[i, j] = A[j, i] = S[i] @ composite[j] @ S[j]
    # Newton-Euler with qdd = 0: the bias forces e = -(h + g)
    v, a = np.zeros(6), np.concatenate((np.zeros(3), -chain.gravity))  # gravity as base acceleration
    f = np.empty((n, 6))
    for p in range(n):
        vp = v + S[p] * qd[p]
        a = a + _crm(vp) @ (S[p] * qd[p])
        v = vp
        f[p] = I[p] @ a - _crm(v).T @ I[p] @ v
    e = np.empty(n)
    total = np.zeros(6)
    for p in range(n - 1, -1, -1):
        total += f[p]
        e[p] = -S[p] @ total
    return A, e


def energy(chain: Chain, q, qd):
    """(kinetic, potential) energy (J): qd^T A qd / 2 and -sum m g . r_C (zero at the global origin)."""
    A, _ = recursive(chain, q, np.zeros(chain.n))
    T, _ = chain.frames(q)
    potential = -sum(link.m * chain.gravity @ (T[p][:3, :3] @ np.asarray(link.c, float) + T[p][:3, 3])
                     for p, link in enumerate(chain.links))
    qd = np.asarray(qd, float)
    return 0.5 * float(qd @ A @ qd), float(potential)
