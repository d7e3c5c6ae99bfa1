"""The RSRRR linkage with bristle friction on the surfaces of its journal joints (seed 003 applied to seed 002).

Seed 003 (Augustynek & Urbas) puts the bristle models into the revolute-joint friction model of seed 002
(Fig. 6, ``journal``): every frictional surface a in (A, B, C) of joint p, those with a level mu_a0 > 0,
carries its own bristle deflection z_pa (rad) slipping at the joint's relative rate psid_p, and resists it
with the torque of the ``friction.bristle`` frame

    t_pa = N_pa (sigma0 z_pa + sigma1 zdot_pa) + sigma2 psid_p,     N_pa = arm_a load_a,

load_a = |F_A|, |F_B|, |f_z| (N) from the joint reactions exactly as the exact model takes them (eqs
6.1-6.2) and arm_a = d_A/2, d_B/2 and the face's (d_C^3 - d_A^3) / (3 (d_C^2 - d_A^2)) (eqs 5.1-5.3), so
that at the steady deflection sigma0 z_pa = mu_a0 sgn(psid_p) the surface gives the t_a of eqs 5.1-5.3. The
law of a surface has mu_c = mu_a0 and mu_s = mu_s_factor mu_a0; the bristle replaces the kinetic
characteristic of eq. (7). The joint's friction torque is t_f,p = sum_a t_pa (eq. 4), entering the
equations of motion as -t_f (eq. 2); sigma2 acts per surface, so a joint has sigma2 times the number of its
frictional surfaces of viscous friction.

Coupling: the loads depend on the reactions, which depend on t_f. At a given state the bristle
coefficients c_pa = sigma0 z + sigma1 zdot (Gonthier: its blended coefficient) do not depend on the
loads, so t_f is a function of the reactions alone, and ``RSRRR.dynamics`` solves t_f = t_f(reactions(t_f))
by Newton's method from t_f = 0 (Jacobian by forward differences, ``RSRRR._newton_coupling``). The exact
model's fixed point diverges here once a coefficient reaches about 0.5-1 (a joint sliding fast from z = 0:
sigma1 |zdot| far above mu); Newton converges up to coefficients of about 1-1.3 at the poses we tried
(tests/test_rsrrr_bristle.py). Beyond, the rigid coupling may have no solution (the load of a surface grows
with its own torque faster than the torque: t_f(reactions(t)) - t keeps its sign, a Painlevé-type paradox):
ConvergenceError. The steady default deflections of ``initial_state`` keep the coefficients near mu.

State y = [q (4), qd (4), W_drive, W_res, W_friction, zeta (n_s)] with zeta = sigma0 z (dimensionless,
O(mu): one absolute tolerance fits every sigma0, as in ``lumped.bristle``). One smooth mode, no events
(a held joint is a deflected bristle); stiff (rates sigma0 |psid| / mu in sliding, N sigma0 / inertia in
pre-sliding), so it runs with LSODA on the Python engine, with RODAS on the compiled one (the family
"spatial_bristle", ``spatial.bristle_packing``), as ``planar.BristleSystem`` does. W_friction
integrates -t_f . qd, the work of the joint friction including the elastic energy the bristles hold, so
that E_kin + E_pot changes by W_drive + W_friction (up to the Baumgarte closure's drift in form 'cut').
"""

from __future__ import annotations

import numpy as np

from ..errors import check_parameters
from ..friction import BristleLaw, law_list_problems, make_law
from .rsrrr import RSRRR
from .system import ZERO_VELOCITY, RSRRRSystem

SURFACES = ("A", "B", "C")


def frictional_surfaces(mechanism: RSRRR) -> tuple:
    """((p, a), ...): joint index p (0-3) and surface index a (0-2 = A, B, C) of every surface with a
    level mu_a0 > 0 (none for ideal joints, ``RSRRRParameters.friction`` false)."""
    if not mechanism.p.friction:
        return ()
    levels = [(j.mu_A, j.mu_B, j.mu_C) for j in mechanism.journals.journals]
    return tuple((p, a) for p, mu in enumerate(levels) for a in range(3) if mu[a] > 0)


def surface_laws(mechanism: RSRRR, model: int, *, sigma0, sigma1, sigma2=0.0, v_s=1e-3, delta=2.0,
                 z_ba_ratio=0.7) -> tuple:
    """One bristle law (``friction.make_law``: 1 Dahl, 2 LuGre, 3 elasto-plastic, 4 Gonthier) per
    frictional surface (``frictional_surfaces`` order), mu_c = mu_a0 and mu_s = mu_s_factor mu_a0 of its
    journal; sigma0 (1/rad), sigma1 (s/rad), sigma2 (N.m.s/rad), v_s (rad/s): the same for all."""
    journals = mechanism.journals.journals
    laws = []
    for p, a in frictional_surfaces(mechanism):
        mu = getattr(journals[p], "mu_" + SURFACES[a])
        laws.append(make_law(model, sigma0=sigma0, sigma1=sigma1, sigma2=sigma2, mu_c=mu,
                             mu_s=mu * journals[p].mu_s_factor, v_s=v_s, delta=delta, z_ba_ratio=z_ba_ratio))
    return tuple(laws)


def steady_deflection(law: BristleLaw, v) -> float:
    """The deflection z (rad) with zdot(z, v) = 0 at the slip v (rad/s; 0 at v = 0): the root on
    |z| <= 1.01 z_bound, across which every law's zdot changes sign from that of v to the opposite."""
    from scipy.optimize import brentq  # here: importing SciPy is most of an FMU's start-up
    if v == 0.0:
        return 0.0
    bound = 1.01 * law.z_bound
    return brentq(lambda z: float(law.zdot(z, v)), -bound, bound, xtol=1e-15 * bound, rtol=1e-14)


class BristleRSRRRSystem(RSRRRSystem):
    """mechanism: an RSRRR; laws: one BristleLaw per frictional surface (``surface_laws``); inputs, load,
    form: as RSRRRSystem (no exact stiction: the bristles hold the joints)."""

    ode_method = "LSODA"

    def __init__(self, mechanism: RSRRR, laws, inputs, load=None, form="cut"):
        super().__init__(mechanism, inputs, load, form)
        self.surfaces = frictional_surfaces(mechanism)
        laws = tuple(laws)
        problems = law_list_problems(laws, len(self.surfaces), "one per frictional surface")
        check_parameters(problems)
        self.laws = laws
        self.sigma0 = np.array([law.sigma0 for law in laws])
        index = np.array(self.surfaces, dtype=int).reshape(-1, 2)
        self.joint, self.surface = index[:, 0], index[:, 1]  # (n_s,) each
        self.arm = mechanism.journals.arms()[self.surface, self.joint]  # (n_s,) m

    def initial_state(self, psi11=np.pi / 2, psid11=0.0, z=None):
        """y0 at the driving angle psi11 (rad) and speed psid11 (rad/s) with the deflections z (n_s,; rad).
        Default: each surface's steady sliding deflection at its slip (zdot = 0), 0 where the slip is below
        ZERO_VELOCITY (a joint at rest, up to the rounding of the dependent velocities). A moving
        joint started from z = 0 has a coefficient sigma1 |psid|, which can be beyond what the coupling
        has a solution for (module docstring)."""
        y = super().initial_state(psi11, psid11)
        if z is None:
            slip = self._coordinates(y)[1][self.joint]
            z = np.array([steady_deflection(law, v if abs(v) > ZERO_VELOCITY else 0.0)
                          for law, v in zip(self.laws, slip)])
        z = np.asarray(z, dtype=float)
        if z.shape != (len(self.laws),):
            raise ValueError(f"z must have shape ({len(self.laws)},), got {z.shape}")
        return np.concatenate((y, self.sigma0 * z))

    def surface_loads(self, f_O, n_O):
        """N (n_s,; N.m per unit coefficient): arm_a load_a of every frictional surface from the
        reactions f_O, n_O (4, 3) (eqs 5.1-5.3, 6.1-6.2)."""
        return self.arm * self.mech.journals.surface_loads(f_O, n_O)[self.surface, self.joint]

    def _motion(self, t, y):
        """(q, qd, DynamicState, z, zdot, c, viscous) at (t, y): the bristle deflections z (n_s,; rad), their
        rates (rad/s), each surface's coefficient c and viscous torque (N.m), t_pa = N c + viscous."""
        q, qd = self._coordinates(y)
        z, v = y[11:] / self.sigma0, qd[self.joint]
        zdot, c, viscous = (np.empty(len(self.laws)) for _ in range(3))
        for i, law in enumerate(self.laws):
            zdot[i] = law.zdot(z[i], v[i])
            viscous[i] = law.force(z[i], v[i], 0.0)
            c[i] = law.force(z[i], v[i], 1.0) - viscous[i]

        def friction(f_O, n_O):  # eq. (4): t_f,p = sum over the surfaces of joint p
            return np.bincount(self.joint, self.surface_loads(f_O, n_O) * c + viscous, minlength=4)

        s = self.mech.dynamics(q, qd, self.applied(t, y), minimal=self.form == "minimal", friction=friction,
                               newton=True)
        return q, qd, s, z, zdot, c, viscous

    def state_of_motion(self, t, y, mode) -> tuple:
        return self._motion(t, y)[:3]

    def rhs(self, t, y, mode):
        q, qd, s, _, zdot, _, _ = self._motion(t, y)
        work = [self.applied(t, y) * qd[0], -self.resistance(t, y) * qd[0], -s.t_f @ qd]
        return np.concatenate((qd, s.qdd, work, self.sigma0 * zdot))

    def _build_compiled(self):
        """The CompiledModel of this system (the C family "spatial_bristle", ``spatial.bristle_packing``), None
        where the spatial family does not pack its linkage or a subclass changes the equations."""
        if not self._keeps_equations(BristleRSRRRSystem, ("rhs", "record", "state_of_motion", "_motion",
                                                          "surface_loads", "events", "update", "resistance",
                                                          "applied", "_coordinates")):
            return None
        from . import bristle_packing

        return bristle_packing.compile_system(self)

    def decode_record(self, out):
        """The dict of ``record`` from the flat output of the compiled record kernel."""
        from . import bristle_packing

        return bristle_packing.decode_record(out, len(self.laws))

    def record(self, t, y, mode):
        """RSRRRSystem's record (stuck always False) and, per frictional surface, the deflection z (rad),
        its rate zdot (rad/s), the load N (N.m per unit coefficient), the slip psid (rad/s) and the
        torque t_s (N.m)."""
        rec = super().record(t, y, mode)
        _, qd, s, z, zdot, c, viscous = self._motion(t, y)
        N = self.surface_loads(s.f_O, s.n_O)
        return rec | dict(z=z, zdot=zdot, N=N, psid_s=qd[self.joint], t_s=N * c + viscous)
