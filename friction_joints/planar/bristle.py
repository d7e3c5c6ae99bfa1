"""A planar mechanism with bristle friction in its joints: one smooth, stiff mode (LSODA; RODAS compiled).

State y = [q (k1), u (k), zeta (n_c), W_drive, W_friction]: the mechanism's minimal form (seed 000
Sect. 4-5, as ``MechanismSystem``) and one bristle deflection per frictional contact, scaled as in
``lumped.bristle``: zeta_c = sigma0_c z_c (dimensionless, O(mu)), z_c in rad for a revolute
contact and m for a sliding one.

Friction. Each contact resists its slip v_c = sd_c = Cpp_c u (eq. 5.5) with
F_c = N_c (sigma0 z + sigma1 zdot) + sigma2 v_c (``friction.bristle`` frame); the generalised
friction is f_mu_c = -F_c and N_c is the contact's load from the joint reactions as the exact model
computes it (``planar.joints``: r |f| in a revolute joint, |f_n| in a guide, the resultant pin load
of a pin in a slot). At a given (z, v) F_c is affine in N_c: the signed coefficient
c_c = (F_c - F_c|_{N=0}) / N_c takes the place of -sgn(v) mu(v) of the Coulomb model, so the coupled
reaction-friction equations f = f0 + B f_mu(f) (seed 000 eq. 3.3) keep their form and are solved by
``planar.coupling.solve_coupled`` with the joints' own load functions: a joint's static friction
-d mu_s load with the direction factor d = c_c / mu_s gives c_c load, and the viscous part
-F_c|_{N=0} = -sigma2 v_c is a constant added to it. There are no stick modes and no events: a held
joint is a deflected bristle, the contact's stiffness N_c sigma0 acting on the mechanism.

Integration: the model is stiff (rates of order N sigma0 / inertia in pre-sliding and sigma0 |v| /
mu in sliding, see ``lumped.bristle``), so it runs with SciPy's LSODA on the Python engine, whose BDF
branch follows the slow motion with few steps; the compiled engine has it as the family
"planar_bristle" (``planar.bristle_packing``), which it integrates with its Rosenbrock method RODAS.

Energy: W_friction integrates the friction power f_mu . sd on the mechanism, so that
E_kin + E_pot - (its start) = W_drive + W_friction; the elastic energy held in the bristles is part
of W_friction (it is work done on the contacts).
"""

from __future__ import annotations

import numpy as np

from ..errors import check_parameters
from ..friction import law_list_problems, make_law
from .coupling import solve_coupled
from .system import MechanismSystem, Mode


def contact_laws(mechanism, model: int, *, sigma0, sigma1, sigma2=0.0, v_s=1e-3, delta=2.0, z_ba_ratio=0.7,
                 own=None) -> tuple:
    """One bristle law (``friction.make_law``: 1 Dahl, 2 LuGre, 3 elasto-plastic, 4 Gonthier) per
    frictional contact of ``mechanism``, with mu_s and mu_c (its kinetic coefficient at high speed) of
    that contact's exact law. sigma0 (1/rad or 1/m), sigma1 (s/rad or s/m), sigma2 (N.m.s/rad or
    N.s/m), v_s (rad/s or m/s): one value for all contacts, or one per contact. own: None, or per
    contact a BristleLaw that takes the place of that contact's law ``model``, or None (a mechanism
    file's joint laws: ``MechanismFile.bristle_laws``)."""
    laws = [law for joint in mechanism.model.joints for law in joint.friction_laws() if law is not None]
    own = (None,) * len(laws) if own is None else tuple(own)
    if len(own) != len(laws):
        raise ValueError(f"own must give {len(laws)} laws or None (one per frictional contact), got {len(own)}")
    per_contact = {}
    for name, value in dict(sigma0=sigma0, sigma1=sigma1, sigma2=sigma2, v_s=v_s).items():
        values = np.broadcast_to(np.asarray(value, dtype=float), (len(laws),)) if np.ndim(value) == 0 else \
            np.asarray(value, dtype=float)
        if values.shape != (len(laws),):
            raise ValueError(f"{name} must be one value or {len(laws)} (one per frictional contact), got {value!r}")
        per_contact[name] = values
    return tuple(own[i] if own[i] is not None else
                 make_law(model, sigma0=per_contact["sigma0"][i], sigma1=per_contact["sigma1"][i],
                          sigma2=per_contact["sigma2"][i], mu_c=float(law.coefficient(np.inf)), mu_s=law.mu_s,
                          v_s=per_contact["v_s"][i], delta=delta, z_ba_ratio=z_ba_ratio)
                 for i, law in enumerate(laws))


class BristleSystem(MechanismSystem):
    """mechanism: a ready Mechanism; laws: one BristleLaw per frictional contact (in the order of the
    free coordinates, ``contact_laws``); inputs: one signal per drive. The independent velocities are
    the mechanism's default partition throughout."""

    ode_method = "LSODA"

    def __init__(self, mechanism, laws, inputs):
        super().__init__(mechanism, inputs)
        laws = tuple(laws)
        problems = law_list_problems(laws, len(self.contacts), "one per frictional contact")
        exact = [law for joint in self.model.joints for law in joint.friction_laws() if law is not None]
        problems += [f"the static coefficient of contact {c} is {law.mu_s!r}: it must be positive (its load is "
                     "taken through it)" for c, law in zip(self.contacts, exact) if not law.mu_s > 0]
        check_parameters(problems)
        self.laws = laws
        self.sigma0 = np.array([law.sigma0 for law in laws])
        self.mu_s = np.array([law.mu_s for law in exact])
        self.n_c = len(laws)
        self.mode = Mode(None, (), (), mechanism.partition)

    def initial_state(self, q, u, z=None):
        """y0 from q (k1,), u (k,) and the deflections z (n_c,; rad or m; default 0)."""
        z = np.zeros(self.n_c) if z is None else np.asarray(z, dtype=float)
        if z.shape != (self.n_c,):
            raise ValueError(f"z must have shape ({self.n_c},), got {z.shape}")
        y = super().initial_state(q, u)
        return np.concatenate((y[:-2], self.sigma0 * z, y[-2:]))

    def _contacts(self, t, y):
        """(MinimalSolution, z (n_c,), zdot (n_c,)) at (t, y): the coupled solve with bristle friction."""
        def compute():
            q, u = self._split(y)
            z = y[self.k1 + self.k : -2] / self.sigma0
            lin = self.minimal.linear_terms(q, u, self.tau(t), self.mode.partition)
            sd = lin["sd"]
            direction, viscous = np.zeros(self.model.l), np.zeros(self.model.l)
            zdot = np.empty(self.n_c)
            for i, (c, law) in enumerate(zip(self.contacts, self.laws)):
                zdot[i] = law.zdot(z[i], sd[c])
                viscous[c] = law.force(z[i], sd[c], 0.0)
                direction[c] = (law.force(z[i], sd[c], 1.0) - viscous[c]) / self.mu_s[i]

            def friction(f):
                f_mu, J = self.model.friction(f, sd, direction, True)
                return f_mu - viscous, J

            # f_mu is Lipschitz in f with the joint constants scaled by |c| / mu_s where that exceeds 1
            lipschitz = self.model.lipschitz * max(1.0, float(np.abs(direction).max(initial=0.0)))
            coupled = solve_coupled(lin["f0"], lin["B"], friction, lipschitz, self.model.z_groups)
            sol = self.minimal.solution(lin, coupled.f, coupled.f_mu, coupled.kappa, coupled.iterations)
            return sol, z, zdot
        return self._memo("bristle", t, y, None, compute)

    # --- HybridSystem -----------------------------------------------------------------------------
    def rhs(self, t, y, mode):
        sol, _, zdot = self._contacts(t, y)
        drive_power = (self.model.H @ self.tau(t)) @ sol.xd
        return np.concatenate((sol.qd, sol.udot, self.sigma0 * zdot, [drive_power, sol.f_mu @ sol.sd]))

    def events(self, mode):
        return []

    def events_watch_all(self, mode):
        return True  # one mode: nothing to switch

    def update(self, t, y, mode, event):
        return y, self.mode, None

    def change_kind(self, mode, new, event, change):
        """None: the single mode never changes."""
        return None

    # --- compiled engine (friction_joints.planar.bristle_packing) -----------------------------------
    def _build_compiled(self):
        """The CompiledModel of this system (the C family "planar_bristle"), None for a joint or friction
        law the planar kernels do not implement or a subclass that changes the equations."""
        if not self._keeps_equations(BristleSystem, ("rhs", "record", "events", "update", "_contacts")):
            return None
        from . import bristle_packing

        return bristle_packing.compile_system(self)

    def _record_layout(self):
        from . import bristle_packing

        return bristle_packing.record_layout(self)

    def record(self, t, y, mode):
        """The quantities of ``MechanismSystem.record`` (stuck always False: no stick modes) and the
        bristle deflections z (n_c,; rad or m) and their rates zdot (n_c,)."""
        sol, z, zdot = self._contacts(t, y)
        q, u = self._split(y)
        return dict(q=q.copy(), u=u.copy(), qd=sol.qd, qdd=sol.qdd, udot=sol.udot, f=sol.f, f_mu=sol.f_mu,
                    sd=sol.sd, tau=self.tau(t), stuck=False, stuck_contacts=np.zeros(self.model.l, dtype=bool),
                    E_kin=self.model.kinetic_energy(sol.xd), E_pot=self.model.potential_energy(sol.x),
                    W_drive=y[-2], W_friction=y[-1], z=z, zdot=zdot)
