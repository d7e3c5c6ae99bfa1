"""Joint reactions of an open revolute chain by the recursive Newton-Euler algorithm (seed 002
eqs 3.1-3.8, after Craig), with a force applied at a point of the last link (the cut reaction).

Everything is expressed in the joint frames: frame p has its z axis along joint p's axis and its
origin O^(p) on that axis; it turns with link p (it is the link frame of the paper, where A_p = I).
For a Link with a fixed part A_p after the rotation, frame p is T^(p) A_p^-1, and the link's centre
of mass and inertia are carried into it.

The extracted eq. (3.2) lost its dots (it reads omega = R^T omega + ... on both sides); it is used
in Craig's form omegad_(p+1) = R^T omegad_p + (R^T omega_p) x psid z + psidd z, and the recursion is
tested against the Lagrange equations (n_z equals the joint torque) and against Newton-Euler
balances of every link taken by finite differences.

Results: f_O^(p) (3,), the force exerted on link p by link p-1 at O^(p), and n_O^(p) (3,), the
torque about O^(p); both in frame p. Their z component along the axis: n_z is the joint torque
(drive minus friction), f_z the axial thrust; f_x, f_y, n_x, n_y load the journal (``journal``).
"""

from __future__ import annotations

import numpy as np

from .chain import Chain, cross3, rot_z


def _joint_geometry(chain: Chain, q):
    """Per joint p: R~ (3, 3) from frame p to frame p-1, r~_O (3,) position of O^(p) in frame p-1,
    centre of mass c (3,) and inertia I (3, 3) of link p in frame p."""
    geometry = []
    A_prev = np.eye(4)  # the base frame is frame 0
    for link, psi in zip(chain.links, q):
        step = A_prev @ link.B @ rot_z(psi)
        R_A = link.A[:3, :3]
        c = link.A[:3, :3] @ np.asarray(link.c, float) + link.A[:3, 3]
        geometry.append((step[:3, :3], step[:3, 3], c, R_A @ np.asarray(link.I_c, float) @ R_A.T))
        A_prev = link.A
    return geometry


def newton_euler(chain: Chain, q, qd, qdd, tip_force=np.zeros(3), tip_point=np.zeros(3)):
    """(f_O (n, 3), n_O (n, 3)) in the joint frames.

    tip_force (3,): external force on the last link in global axes (N), applied at tip_point (3,),
    given in the last link's frame (m). Gravity enters as the base acceleration -g (Craig).
    Several cases at once: qdd (n, m) and tip_force (3, m) give f_O, n_O of shape (n, 3, m).
    """
    geometry = _joint_geometry(chain, q)
    n = chain.n
    qdd = np.asarray(qdd, float)
    cases = qdd.shape[1:]
    col = (lambda v: v[:, None]) if cases else (lambda v: v)
    R0 = chain.base[:3, :3]
    omega, omegad, vd = np.zeros(3), col(np.zeros(3)), col(-R0.T @ chain.gravity)
    F, N = np.empty((n, 3) + cases), np.empty((n, 3) + cases)
    axis = np.array([0.0, 0.0, 1.0])
    for p, (R, r_O, c, I) in enumerate(geometry):  # outward, eqs 3.1-3.6
        z = qd[p] * axis
        vd = R.T @ (cross3(omegad, col(r_O)) + col(cross3(omega, cross3(omega, r_O))) + vd)  # (3.3)
        omega_prev = R.T @ omega
        omegad = R.T @ omegad + col(cross3(omega_prev, z)) + np.multiply.outer(axis, qdd[p])  # (3.2)
        omega = omega_prev + z  # (3.1)
        vd_C = cross3(omegad, col(c)) + col(cross3(omega, cross3(omega, c))) + vd  # (3.4)
        F[p] = chain.links[p].m * vd_C  # (3.5)
        N[p] = I @ omegad + col(cross3(omega, I @ omega))  # (3.6)
    # the tip: the external force acts on link n like f_(n+1) = -(that force), applied at tip_point
    T, _ = chain.frames(q)
    A_last = chain.links[-1].A
    R_n = T[-1][:3, :3] @ A_last[:3, :3].T  # frame n in global axes
    tip = A_last[:3, :3] @ np.asarray(tip_point, float) + A_last[:3, 3]
    f_tip = -R_n.T @ np.asarray(tip_force, float)
    f_O, n_O = np.empty_like(F), np.empty_like(N)
    f_O[-1] = f_tip + F[-1]
    n_O[-1] = N[-1] + cross3(col(geometry[-1][2]), F[-1]) + cross3(col(tip), f_tip)
    for p in range(n - 2, -1, -1):  # inward, eqs 3.7-3.8
        R_next, r_next = geometry[p + 1][0], geometry[p + 1][1]
        f_next = R_next @ f_O[p + 1]
        f_O[p] = f_next + F[p]  # (3.7)
        n_O[p] = N[p] + R_next @ n_O[p + 1] + cross3(col(geometry[p][2]), F[p]) + cross3(col(r_next), f_next)  # (3.8)
    return f_O, n_O
