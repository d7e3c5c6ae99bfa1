"""The RSRRR linkage with a clearance joint and a flexible link (``ClearanceRSRRR``) as a HybridSystem.

State y = [q (n), qd (n), W_drive, W_res, W_friction, W_dissipated] (loop coordinates, their rates, J).
The loop has n - 3 degrees of freedom, so it is integrated in the cut form (seed 002 eq. 2 on all n
coordinates, Baumgarte's stabilisation of the closure, ``CutJointLoop.solve``): it needs no choice of
independent coordinates and no re-assembly at every evaluation, which the minimal form would repeat for
every clearance and sde coordinate. The works: W_drive of the net torque on the driving link, W_res the
resistance's share of it, W_friction of the journal friction (eqs 4-7) and of the contact friction,
W_dissipated of the contact's hysteresis damping and of the sdes' dampers (never positive), so that

    E_kin + E_pot + E_elastic changes by W_drive + W_friction + W_dissipated,

E_elastic = the contact's elastic energy + the sdes' strain energy. Friction follows seed 002 eq. (7):
one smooth mode of the friction, no stiction; the modes are the contact's (``contact.modes``: FREE or
Contact(deltad0)) with the located events ``impact`` and ``separation``. The compiled engine runs it
(``clearance_packing``: the C family spatial_clearance, on RODAS).
"""

from __future__ import annotations

import numpy as np

from ..contact import FREE, Contact, contact_events, contact_update
from ..contact.modes import quiet_overflow, rejectable
from .clearance_rsrrr import ClearanceRSRRR
from .system import RSRRRSystem


class ClearanceRSRRRSystem(RSRRRSystem):
    """mechanism: a ClearanceRSRRR; inputs: (tau, tau_res) signals; load: a SpeedLoad or None."""

    def __init__(self, mechanism: ClearanceRSRRR, inputs, load=None):
        if not isinstance(mechanism, ClearanceRSRRR):
            raise ValueError(f"mechanism must be a ClearanceRSRRR, got {mechanism!r}")
        super().__init__(mechanism, inputs, load)
        self.n = mechanism.loop.n

    def initial_state(self, psi11=np.pi / 2, psid11=0.0, seated=True):
        """y0 at the driving angle psi11 (rad) and speed psid11 (rad/s), the links undeformed. seated: the
        bearing rests against the journal where the ideal joint's reaction pushes it, pressed in by the
        penetration whose elastic force balances that reaction, then moved (and tilted) to where its
        clearance coordinates start without acceleration (``_balanced``); else: centred."""
        mech, n = self.mech, self.n
        q = mech.initial_position(psi11)
        if seated and len(mech.gap):
            rigid = mech.rigid
            q4 = q[mech.joints]
            qd4 = rigid.loop.dependent_velocities(q4, np.array([float(psid11)]))
            s = rigid.dynamics(q4, qd4, self.applied(0.0, np.r_[q, psid11]))
            j = mech.c.joint
            psi = q4[j]
            f = s.f_O[j]  # on the bearing's link, in its joint frame: into the journal frame by Rz(psi)
            f = np.array([np.cos(psi) * f[0] - np.sin(psi) * f[1], np.sin(psi) * f[0] + np.cos(psi) * f[1]])
            load = np.hypot(*f)
            law = mech.clearance_joint.law
            depth = (load / law.k_contact) ** (1.0 / law.n)
            q[mech.gap[:2]] = -(mech.clearance_joint.c + depth) * f / load  # F_B = F_n (r_J - r_B) / |e|
            q = self._balanced(mech.loop.assemble(q), psid11)
        qd = mech.loop.dependent_velocities(q, np.r_[float(psid11), np.zeros(n - 4)])
        return np.concatenate((q, qd, np.zeros(4)))

    def _balanced(self, q, psid11, tol=1e-9, max_iter=20):
        """q (n,) with the clearance coordinates moved from q so that, at rest relative to the journal and in
        contact, their accelerations vanish (Newton, Jacobian by forward differences): the bearing seated
        in balance, tilted by the joint's bending moment in the spatial model. q unchanged if that fails."""
        mech, gap = self.mech, self.mech.gap
        mode = Contact(mech.c.deltad0_min)

        def gap_accelerations(z):
            x = q.copy()
            x[gap] = z
            x = mech.loop.assemble(x)
            y = np.concatenate((x, mech.loop.dependent_velocities(x, np.r_[float(psid11), np.zeros(self.n - 4)])))
            return self.state_of_motion(0.0, y, mode)[2].qdd[gap], x

        z = q[gap].copy()
        h = np.where(np.arange(len(gap)) < 2, 1e-3 * mech.clearance_joint.c, 1e-3 * mech.clearance_joint.c / 0.01)
        for _ in range(max_iter):
            r, x = gap_accelerations(z)
            if np.abs(r).max() <= tol:
                return x
            J = np.array([(gap_accelerations(z + hk * e)[0] - r) / hk for hk, e in zip(h, np.eye(len(gap)))]).T
            z = z - np.linalg.solve(J, r)
        return q

    def resistance(self, t, y):
        """Resistance torque on the driving link (N.m): tau_res plus the load's at psid11 = y[n]."""
        return self.input_values(t)[1] + (self.load(y[self.n]) if self.load else 0.0)

    def _coordinates(self, y):
        return y[:self.n], y[self.n:2 * self.n]

    def _contact(self, q, qd, mode):
        """The JointContact in ``mode`` (None without clearance; forces only in Contact)."""
        if self.mech.clearance_joint is None:
            return None
        return self.mech.contact(q, qd, mode.deltad0 if isinstance(mode, Contact) else 1.0)

    def state_of_motion(self, t, y, mode):
        """(q, qd, DynamicState, JointContact or None; no force in FREE) at (t, y) in ``mode``."""
        q, qd = self._coordinates(y)
        k = self._contact(q, qd, mode)
        extra = k.Q if k is not None and isinstance(mode, Contact) else None
        return q, qd, self.mech.dynamics(q, qd, self.applied(t, y), extra=extra), k

    def rhs(self, t, y, mode):
        with quiet_overflow():  # a trial stage after an impact may overflow: rejected (``contact.modes``)
            q, qd, s, k = self.state_of_motion(t, y, mode)
            joints = self.mech.joints
            P_friction, P_damping = -s.t_f @ qd[joints], self.mech.structural_power(qd)
            if isinstance(mode, Contact):
                P_friction, P_damping = P_friction + k.P_friction, P_damping + k.P_damping
            return rejectable(np.concatenate((qd, s.qdd, [self.applied(t, y) * qd[0], -self.resistance(t, y) * qd[0],
                                                          P_friction, P_damping])))

    def events(self, mode):
        if self.mech.clearance_joint is None:
            return []
        return contact_events(lambda t, y: self.mech.penetration(y[:self.n]), mode)

    def update(self, t, y, mode, event):
        if self.mech.clearance_joint is None:
            return y, FREE, None
        k = self._contact(*self._coordinates(y), FREE)
        return (y,) + contact_update(mode, event, k.delta, k.deltad, self.mech.c.deltad0_min)

    # --- compiled engine (friction_joints.spatial.clearance_packing) ------------------------------------
    def _build_compiled(self):
        """The CompiledModel of this system (the C family "spatial_clearance"), None where it does not apply: a
        load other than SpeedLoad, another contact or friction law, a subclass that changes the equations."""
        if not self._keeps_equations(ClearanceRSRRRSystem, ("rhs", "events", "update", "events_watch_all", "record",
                                                            "state_of_motion", "resistance", "applied",
                                                            "_coordinates", "_contact")):
            return None
        from . import clearance_packing

        return clearance_packing.compile_system(self)

    def encode_mode(self, mode):
        from . import clearance_packing

        return clearance_packing.encode_mode(mode)

    def decode_mode(self, fmode, imode):
        from . import clearance_packing

        return clearance_packing.decode_mode(fmode, imode)

    def change_kind(self, mode, new, event, change):
        """The kind ``update`` names, from the compiled engine's change report."""
        from . import clearance_packing

        return clearance_packing.KINDS[int(change[0])]

    def decode_record(self, out):
        from . import clearance_packing

        return clearance_packing.decode_record(out, self.n)

    def record(self, t, y, mode):
        """RSRRRSystem's record for the four joints (q, qd, qdd, f_O, n_O, t_f), with q_all, qd_all (n,); the
        clearance's e_clearance (m), delta (m), F_contact (N), in_contact; E_contact, E_strain and
        E_elastic (their sum), W_dissipated (J)."""
        q, qd, s, k = self.state_of_motion(t, y, mode)
        joints, in_contact = self.mech.joints, isinstance(mode, Contact)
        E_kin, E_pot = self.mech.energy(q, qd)
        E_contact = k.E_el if in_contact else 0.0
        E_strain = self.mech.strain_energy(q)
        return dict(q=q[joints], qd=qd[joints], qdd=s.qdd[joints], q_all=q.copy(), qd_all=qd.copy(), f_S=s.f_S,
                    f_O=s.f_O, n_O=s.n_O, t_f=s.t_f, iterations=s.iterations, stuck=False,
                    tau=self.input_values(t)[0], tau_res=self.resistance(t, y), E_kin=E_kin, E_pot=E_pot,
                    W_drive=y[-4], W_res=y[-3], W_friction=y[-2], W_dissipated=y[-1],
                    closure=float(np.abs(self.mech.loop.closure(q)).max()),
                    e_clearance=k.e if k else 0.0, delta=k.delta if k else 0.0,
                    F_contact=k.F if in_contact else 0.0, in_contact=in_contact, E_contact=E_contact,
                    E_strain=E_strain, E_elastic=E_contact + E_strain)
