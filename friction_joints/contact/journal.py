"""A free rigid body carrying a journal in a fixed bearing (planar clearance joint), run by the project's hybrid
integrator: a free journal (a = 0), or a pendulum hanging from a clearance joint (a != 0).

The journal centre sits at a (2,; m, body frame) from the body's centre of mass G: r_J = r + A(phi) a with A the
rotation by phi. State y = [x, y, phi, xd, yd, omega, W_d]: G (m) relative to the bearing centre, the body's
angle (rad), their rates, and W_d (J, <= 0) the work of the contact's damping and friction. Equations of motion:

    m (xdd, ydd) = F_J + m g,    J omegad = M_J + (A a) x F_J        (``PlanarClearance.contact``)
    W_d' = -(F_n - K delta^n) deltad + F_t v_t                        (contact power less the elastic part)

with J about G, so that E_kin + E_el - W_d - m g . r stays at its start (E_el = K delta^(n+1) / (n+1)).

Modes and events: ``contact.modes`` (``FREE`` or ``Contact(deltad0)``, events ``impact`` and ``separation`` on
delta). The energy check holds with the regularised friction of ``contact.planar``. Python engine only.
"""

from __future__ import annotations

import numpy as np

from ..errors import check_parameters, require
from ..hybrid.integrator import HybridSystem
from ..planar.joints import rotation
from .modes import FREE, Contact, contact_events, contact_update, quiet_overflow, rejectable
from .planar import PlanarClearance


class FreeJournal(HybridSystem):
    """joint: the PlanarClearance; m (kg) > 0, J (kg.m^2) > 0: the body's mass and moment of inertia about G;
    g (2,; m/s^2): gravity; deltad0_min (m/s) > 0: the floor of the impact rate; a (2,; m): the journal centre
    from G in the body frame."""

    def __init__(self, joint: PlanarClearance, m: float, J: float, g=(0.0, 0.0), deltad0_min: float = 1e-3,
                 a=(0.0, 0.0)):
        problems = []
        if not isinstance(joint, PlanarClearance):
            problems.append(f"joint must be a PlanarClearance, got {joint!r}")
        require(problems, "m", m, 0.0, low_open=True)
        require(problems, "J", J, 0.0, low_open=True)
        require(problems, "deltad0_min", deltad0_min, 0.0, low_open=True)
        g, a = np.asarray(g, dtype=float), np.asarray(a, dtype=float)
        for name, value in (("g", g), ("a", a)):
            if value.shape != (2,) or not np.all(np.isfinite(value)):
                problems.append(f"{name} must be 2 finite numbers, got {value!r}")
        check_parameters(problems)
        self.joint, self.m, self.J, self.g, self.deltad0_min, self.a = joint, float(m), float(J), g, \
            float(deltad0_min), a

    @staticmethod
    def initial_state(r, v, phi=0.0, omega=0.0):
        """y0 from G's position r (2,; m) and velocity v (2,; m/s), the angle phi (rad) and rate omega (rad/s)."""
        return np.array([r[0], r[1], phi, v[0], v[1], omega, 0.0], dtype=float)

    def journal(self, y):
        """(r_J (2,; m), v_J (2,; m/s), arm (2,; m) = r_J - r): the journal centre's position and velocity."""
        arm = rotation(y[2]) @ self.a
        return y[0:2] + arm, y[3:5] + y[5] * np.array([-arm[1], arm[0]]), arm

    def _contact(self, y, mode):
        r_J, v_J, _ = self.journal(y)
        return self.joint.contact(r_J, v_J, y[5], (0.0, 0.0), (0.0, 0.0), 0.0,
                                  mode.deltad0 if isinstance(mode, Contact) else 1.0)

    def _delta(self, t, y):
        return self.joint.penetration(self.journal(y)[0])

    # --- HybridSystem -----------------------------------------------------------------------------
    def rhs(self, t, y, mode):
        a, alpha, power = self.g.copy(), 0.0, 0.0
        if isinstance(mode, Contact):
            with quiet_overflow():
                k = self._contact(y, mode)
                arm = self.journal(y)[2]
                a += k.F_J / self.m
                alpha = (k.M_J + arm[0] * k.F_J[1] - arm[1] * k.F_J[0]) / self.J
                power = -(k.F_n - float(self.joint.law.elastic(k.delta))) * k.deltad + k.F_t * k.v_t
        return rejectable(np.array([y[3], y[4], y[5], a[0], a[1], alpha, power]))

    def events(self, mode):
        return contact_events(self._delta, mode)

    def update(self, t, y, mode, event):
        k = self._contact(y, FREE)
        mode, kind = contact_update(mode, event, k.delta, k.deltad, self.deltad0_min)
        return y, mode, kind

    def record(self, t, y, mode):
        """r, v (2,; of G), r_J (2,; the journal centre), phi, omega, the contact quantities (delta, deltad, v_t,
        F_n, F_t; zero force in FREE), E_kin, E_el, E_pot (J; gravity, zero with G at the bearing centre), W_d (J)
        and in_contact."""
        k = self._contact(y, mode)
        in_contact = isinstance(mode, Contact)
        E_el = float(self.joint.law.energy(k.delta)) if in_contact else 0.0
        return dict(r=y[0:2].copy(), v=y[3:5].copy(), r_J=self.journal(y)[0], phi=y[2], omega=y[5], delta=k.delta,
                    deltad=k.deltad, v_t=k.v_t, F_n=k.F_n if in_contact else 0.0, F_t=k.F_t if in_contact else 0.0,
                    E_kin=0.5 * self.m * (y[3:5] @ y[3:5]) + 0.5 * self.J * y[5] ** 2, E_el=E_el,
                    E_pot=-self.m * (self.g @ y[0:2]), W_d=y[6], in_contact=in_contact)
