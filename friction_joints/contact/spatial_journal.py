"""A free rigid journal in a fixed bearing (spatial clearance joint), run by the project's hybrid integrator.

The bearing's centre is the origin and its axis z. The journal is an axisymmetric rigid body: mass m, moment of
inertia I_a about its axis (its body z) and I_t about the transverse axes through its centre. State
y = [r (3), q (4), v (3), H (3), W_d]: centre (m), unit quaternion (scalar first, body to world), velocity (m/s),
angular momentum about the centre (N.m.s, world frame), and W_d (J, <= 0) the work of the contact's damping
and friction. With R = R(q / |q|), omega = R diag(1/I_t, 1/I_t, 1/I_a) R^T H and u_J = R e_z:

    m vd = F_J + m g,   Hd = M_J,   qd = (0, omega) * q / 2   (quaternion product)     (``SpatialClearance``)
    W_d' = F_J . v + M_J . omega + sum F_el deltad     (contact power less the elastic power)

so that E_kin + E_el - W_d - m g . r stays at its start (E_el = sum (w / L) K delta^(n+1) / (n+1), exact because
the slices' normal forces derive from that potential). Modes and events: ``contact.modes``, on the largest
penetration over the slices (an end slice); the impact rate is the rate of that slice. Python engine only.
"""

from __future__ import annotations

import numpy as np

from ..errors import check_parameters, require
from ..hybrid.integrator import HybridSystem
from .modes import FREE, Contact, contact_events, contact_update, quiet_overflow, rejectable
from .spatial import MIN_AXIS_COSINE, SpatialClearance

E_Z, ZERO = np.array([0.0, 0.0, 1.0]), np.zeros(3)


def rotation_matrix(q) -> np.ndarray:
    """(3, 3) rotation of the quaternion q (4,; scalar first), normalised here."""
    w, x, y, z = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


class SpatialJournal(HybridSystem):
    """joint: the SpatialClearance; m (kg), I_a, I_t (kg.m^2) > 0: mass and moments of inertia about the journal
    axis and a transverse axis through the centre; g (3,; m/s^2): gravity; deltad0_min (m/s) > 0: the floor of
    the impact rate."""

    def __init__(self, joint: SpatialClearance, m: float, I_a: float, I_t: float, g=(0.0, 0.0, 0.0),
                 deltad0_min: float = 1e-3):
        problems = []
        if not isinstance(joint, SpatialClearance):
            problems.append(f"joint must be a SpatialClearance, got {joint!r}")
        require(problems, "m", m, 0.0, low_open=True)
        require(problems, "I_a", I_a, 0.0, low_open=True)
        require(problems, "I_t", I_t, 0.0, low_open=True)
        require(problems, "deltad0_min", deltad0_min, 0.0, low_open=True)
        g = np.asarray(g, dtype=float)
        if g.shape != (3,) or not np.all(np.isfinite(g)):
            problems.append(f"g must be 3 finite numbers (m/s^2), got {g!r}")
        check_parameters(problems)
        self.joint, self.m, self.g, self.deltad0_min = joint, float(m), g, float(deltad0_min)
        self.inverse_inertia = np.array([1.0 / I_t, 1.0 / I_t, 1.0 / I_a])  # body frame
        self.inertia = np.array([I_t, I_t, I_a])

    def initial_state(self, r, v, q=(1.0, 0.0, 0.0, 0.0), omega=(0.0, 0.0, 0.0)):
        """y0 from the centre r (3,; m), velocity v (3,; m/s), quaternion q (4,) and angular velocity omega
        (3,; rad/s, world frame)."""
        R = rotation_matrix(q)
        H = R @ (self.inertia * (R.T @ np.asarray(omega, dtype=float)))
        return np.concatenate((r, np.asarray(q, float) / np.linalg.norm(q), v, H, [0.0]))

    def kinematics(self, y):
        """(u_J (3,), omega (3,; rad/s)) at the state y."""
        R = rotation_matrix(y[3:7])
        return R[:, 2], R @ (self.inverse_inertia * (R.T @ y[10:13]))

    def _contact(self, y, mode):
        u_J, omega = self.kinematics(y)
        return self.joint.contact(y[0:3], u_J, y[7:10], omega, ZERO, E_Z, ZERO, ZERO,
                                  mode.deltad0 if isinstance(mode, Contact) else 1.0)

    def _delta(self, t, y):
        return self.joint.penetration(y[0:3], rotation_matrix(y[3:7])[:, 2], ZERO, E_Z)

    # --- HybridSystem -----------------------------------------------------------------------------
    def rhs(self, t, y, mode):
        u_J, omega = self.kinematics(y)
        if isinstance(mode, Contact) and not u_J[2] > MIN_AXIS_COSINE:
            # only a trial stage of the first step after an impact turns the journal this far (``contact.modes``)
            return np.full_like(y, np.nan)
        q = y[3:7]
        qd = 0.5 * np.concatenate(([-omega @ q[1:]], q[0] * omega + np.cross(omega, q[1:])))
        vd, Hd, power = self.g.copy(), ZERO, 0.0
        if isinstance(mode, Contact):
            with quiet_overflow():
                k = self._contact(y, mode)
                vd += k.F_J / self.m
                Hd = k.M_J
                power = k.F_J @ y[7:10] + k.M_J @ omega + k.F_el @ k.deltad
        return rejectable(np.concatenate((y[7:10], qd, vd, Hd, [power])))

    def events(self, mode):
        return contact_events(self._delta, mode)

    def update(self, t, y, mode, event):
        k = self._contact(y, FREE)
        i = int(np.argmax(k.delta))
        mode, kind = contact_update(mode, event, k.delta[i], k.deltad[i], self.deltad0_min)
        return y, mode, kind

    def record(self, t, y, mode):
        """r, v, omega, u_J (3,), the largest penetration delta (m), the resultant contact force F_J and moment
        M_J (3,; zero in FREE), E_kin, E_el, E_pot (J; gravity, zero at the bearing centre), W_d (J), in_contact."""
        u_J, omega = self.kinematics(y)
        k = self._contact(y, mode)
        in_contact = isinstance(mode, Contact)
        _, w = self.joint.slices()
        E_el = float(w @ self.joint.law.energy(k.delta)) / self.joint.L if in_contact else 0.0
        return dict(r=y[0:3].copy(), v=y[7:10].copy(), omega=omega, u_J=u_J, delta=float(k.delta.max()),
                    F_J=k.F_J if in_contact else ZERO, M_J=k.M_J if in_contact else ZERO,
                    E_kin=0.5 * self.m * (y[7:10] @ y[7:10]) + 0.5 * omega @ y[10:13], E_el=E_el,
                    E_pot=-self.m * (self.g @ y[0:3]), W_d=y[13], in_contact=in_contact)
