"""Joint reactions of an open chain by the recursive Newton-Euler algorithm (seed 002
eqs 3.1-3.8, after Craig), with a force applied at a point of the last link (the cut reaction).

Everything is expressed in the joint frames: frame p has its z axis along joint p's axis and its
origin O^(p) on that axis; it turns with link p (it is the link frame of the paper, where A_p = I).
For a Link with a fixed part A_p after the rotation, frame p is T^(p) A_p^-1, and the link's centre
of mass and inertia are carried into it.

The extracted eq. (3.2) lost its dots (it reads omega = R^T omega + ... on both sides); it is used
in Craig's form omegad_(p+1) = R^T omegad_p + (R^T omega_p) x psid z + psidd z; a prismatic joint
(``Link.joint`` "P") adds 2 omega_(p+1) x sd z + sdd z to eq. (3.3) instead and leaves omega, omegad
as the parent's (Craig's outward iteration for a prismatic joint), its frame p sliding with s along z. The recursion is
tested against the Lagrange equations (n_z equals the joint torque) and against Newton-Euler
balances of every link taken by finite differences.

Results: f_O^(p) (3,), the force exerted on link p by link p-1 at O^(p), and n_O^(p) (3,), the
torque about O^(p); both in frame p. Their z component along the axis: n_z is the joint torque
(drive minus friction, plus the joint's spring-damper force) of a revolute joint, f_z its axial
thrust (the joint force of a prismatic joint); f_x, f_y, n_x, n_y load the journal (``journal``).
"""

from __future__ import annotations

import numpy as np

from .chain import Chain, cross3, joint_motion


def _joint_geometry(chain: Chain, q):
    """Per joint p: R~ (3, 3) from frame p to its parent's frame, r~_O (3,) position of O^(p) in the
    parent's frame, centre of mass c (3,) and inertia I (3, 3) of link p in frame p."""
    geometry = []
    for link, qp, i in zip(chain.links, q, chain.parents):
        A_parent = np.eye(4) if i < 0 else chain.links[i].A  # the base frame is frame 0
        step = A_parent @ link.B @ joint_motion(link.joint, qp)
        R_A = link.A[:3, :3]
        c = link.A[:3, :3] @ np.asarray(link.c, float) + link.A[:3, 3]
        geometry.append((step[:3, :3], step[:3, 3], c, R_A @ np.asarray(link.I_c, float) @ R_A.T))
    return geometry


def newton_euler(chain: Chain, q, qd, qdd, tip_force=np.zeros(3), tip_point=np.zeros(3), tip_link=-1):
    """(f_O (n, 3), n_O (n, 3)) in the joint frames.

    tip_force (3,): external force on link tip_link (default the last) in global axes (N), applied at
    tip_point (3,), given in that link's frame (m). Gravity enters as the base acceleration -g
    (Craig). Several cases at once: qdd (n, m) and tip_force (3, m) give f_O, n_O of shape (n, 3, m).
    In a tree, each link's reaction collects those of all its children (eqs 3.7-3.8 summed).
    """
    geometry = _joint_geometry(chain, q)
    n, parents = chain.n, chain.parents
    qdd = np.asarray(qdd, float)
    cases = qdd.shape[1:]
    col = (lambda v: v[:, None]) if cases else (lambda v: v)
    R0 = chain.base[:3, :3]
    base = (np.zeros(3), col(np.zeros(3)), col(-R0.T @ chain.gravity))
    motion = []  # (omega, omegad, vd) of each link in its frame
    F, N = np.empty((n, 3) + cases), np.empty((n, 3) + cases)
    axis = np.array([0.0, 0.0, 1.0])
    for p, (R, r_O, c, I) in enumerate(geometry):  # outward, eqs 3.1-3.6
        omega, omegad, vd = base if parents[p] < 0 else motion[parents[p]]
        z, zdd = qd[p] * axis, np.multiply.outer(axis, qdd[p])
        vd = R.T @ (cross3(omegad, col(r_O)) + col(cross3(omega, cross3(omega, r_O))) + vd)  # (3.3)
        omega_prev = R.T @ omega
        if chain.kinds[p] == "R":
            omegad = R.T @ omegad + col(cross3(omega_prev, z)) + zdd  # (3.2)
            omega = omega_prev + z  # (3.1)
        else:  # prismatic (Craig): the Coriolis and sliding terms of eq. (3.3)
            omega, omegad = omega_prev, R.T @ omegad
            vd = vd + col(2.0 * cross3(omega, z)) + zdd
        motion.append((omega, omegad, vd))
        vd_C = cross3(omegad, col(c)) + col(cross3(omega, cross3(omega, c))) + vd  # (3.4)
        F[p] = chain.links[p].m * vd_C  # (3.5)
        N[p] = I @ omegad + col(cross3(omega, I @ omega))  # (3.6)
    # the link's own terms, and the tip force acting like a child's -f at tip_point
    f_O = F.copy()
    n_O = N + np.array([cross3(col(g[2]), F[p]) for p, g in enumerate(geometry)])
    T, _ = chain.frames(q)
    k = range(n)[tip_link]
    A_k = chain.links[k].A
    R_k = T[k][:3, :3] @ A_k[:3, :3].T  # frame k in global axes
    tip = A_k[:3, :3] @ np.asarray(tip_point, float) + A_k[:3, 3]
    f_tip = -R_k.T @ np.asarray(tip_force, float)
    f_O[k] += f_tip
    n_O[k] += cross3(col(tip), f_tip)
    for p in range(n - 1, -1, -1):  # inward, eqs 3.7-3.8: each link passes its reaction to its parent
        i = parents[p]
        if i >= 0:
            R, r_O = geometry[p][0], geometry[p][1]
            f_child = R @ f_O[p]
            f_O[i] += f_child  # (3.7)
            n_O[i] += R @ n_O[p] + cross3(col(r_O), f_child)  # (3.8)
    return f_O, n_O
