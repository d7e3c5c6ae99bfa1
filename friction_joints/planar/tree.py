"""The open-tree joint-coordinate map x = g(q) (seed 000 Sect. 4, eqs 4.1-4.2).

The tree joints (constraints "1") attach every body once to the ground or to a body placed before
it; the other joints are the closing constraints "2". Each tree joint has one joint coordinate q_i,
an absolute coordinate of its distal body as in seed 000 (6.4): the angle theta_i of a revolute
joint, the x or y coordinate of a prismatic joint. D1 and D1dot qdot are built numerically from the
joint description: with S the selection of q from x, C1 D1 = 0 and S D1 = I, so
D1 = [C1; S]^-1 [0; I] and D1dot qdot = [C1; S]^-1 [xi_1; 0] (from C1 xdd = xi_1, S xdd = qdd).
"""

from __future__ import annotations

import numpy as np

from ..errors import check_parameters
from .joints import Prismatic, Revolute, pose
from .model import PlanarModel


class JointCoordinates:
    """Joint coordinates of an open tree cut from a planar model.

    tree: indices of model.joints forming the tree, each attaching its body_i to the ground or to a
    body attached earlier; coordinates: per tree joint 'theta' (revolute) or 'x'/'y' (prismatic),
    default 'theta' for revolutes and the axis closest to the guide for prismatic joints.
    """

    def __init__(self, model: PlanarModel, tree, coordinates=None):
        problems = []
        self.model = model
        self.tree = tuple(int(t) for t in tree)
        coordinates = coordinates or [None] * len(self.tree)
        placed, q_index, axes = {0}, [], []
        for t, coord in zip(self.tree, coordinates):
            joint = model.joints[t]
            if isinstance(joint, Revolute):
                coord = coord or "theta"
                if coord != "theta":
                    problems.append(f"tree joint {t} is revolute: its coordinate must be 'theta', got {coord!r}")
            elif isinstance(joint, Prismatic):
                coord = coord or "xy"[int(abs(joint.e_j[1]) > abs(joint.e_j[0]))]
                if coord not in ("x", "y"):
                    problems.append(f"tree joint {t} is prismatic: its coordinate must be 'x' or 'y', got {coord!r}")
            else:
                problems.append(f"tree joint {t} must be Revolute or Prismatic, got {type(joint).__name__}")
                continue
            if joint.body_j not in placed:
                problems.append(f"tree joint {t}: body {joint.body_j} is not attached before body {joint.body_i}")
            if joint.body_i in placed:
                problems.append(f"tree joint {t}: body {joint.body_i} is attached twice")
            placed.add(joint.body_i)
            axis = {"x": 0, "y": 1, "theta": 2}.get(coord, 2)
            axes.append(axis)
            q_index.append(3 * (joint.body_i - 1) + axis)
        if placed != set(range(len(model.bodies) + 1)):
            problems.append(f"the tree must attach every body once, it attaches {sorted(placed - {0})}")
        check_parameters(problems)

        self.q_index = np.array(q_index)
        self.axes = tuple(axes)
        self.k1 = len(self.tree)
        self.rows1 = np.concatenate([np.arange(model.z_slices[t].start, model.z_slices[t].stop)
                                     for t in self.tree])
        closing = [j for j in range(len(model.joints)) if j not in self.tree]
        self.closing = tuple(closing)
        self.rows2 = (np.concatenate([np.arange(model.z_slices[j].start, model.z_slices[j].stop)
                                      for j in closing]) if closing else np.zeros(0, dtype=int))
        self.S = np.zeros((self.k1, model.n))
        self.S[np.arange(self.k1), self.q_index] = 1.0

    def g(self, q) -> np.ndarray:
        """x = g(q) (eq. 4.2): place the bodies joint by joint from the ground. q: (k1,)."""
        q = np.asarray(q, dtype=float)
        if q.shape != (self.k1,):
            raise ValueError(f"q must have shape ({self.k1},), got {q.shape}")
        x = np.zeros(self.model.n)
        for t, axis, qi in zip(self.tree, self.axes, q):
            joint = self.model.joints[t]
            parent = pose(x, joint.body_j)
            r, th = joint.place(parent, qi) if axis == 2 else joint.place(parent, qi, axis)
            k = 3 * (joint.body_i - 1)
            x[k : k + 2], x[k + 2] = r, th
        return x

    def q_of(self, x) -> np.ndarray:
        """The joint coordinates q of an absolute configuration x."""
        return np.asarray(x, dtype=float)[self.q_index]

    def velocity_maps(self, C, xi=None):
        """D1 (n, k1) and, if xi is given, D1dot qdot (n,), from C (m, n) and xi (m,) at g(q)."""
        A = np.vstack((C[self.rows1], self.S))
        rhs = np.zeros((self.model.n, self.k1 + 1))
        rhs[len(self.rows1):, : self.k1] = np.eye(self.k1)
        if xi is not None:
            rhs[: len(self.rows1), -1] = xi[self.rows1]
        sol = np.linalg.solve(A, rhs)
        return sol[:, : self.k1], sol[:, -1]
