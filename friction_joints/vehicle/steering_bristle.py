"""The steering system with bristle friction (seed 003: Dahl, LuGre, elasto-plastic, Gonthier) in each of
its four friction elements instead of the exact stick-slip of ``vehicle.steering``: one smooth mode.

The mechanics are those of ``SteeringSystem`` (its ``forces``, ``accelerations_of``, ``powers`` and
``energies``); only the element frictions change. The rack's end stops push with the same force, taken
as a function of the state (``SteeringSystem.stop_contact``) instead of a mode: their onset and release
are not located (the integrator, LSODA or RODAS, integrates over them, as it has no events here).
Element k (ELEMENTS order: pinion bearings, rack housing, left and right king-pin) resists the slip v_k
of its coordinate with the bristle force of the ``friction.bristle`` frame,

    F_k = N_k (sigma0 z_k + sigma1 zdot_k) + sigma2 v_k,        f_k = -F_k on the coordinate,

with its own deflection z_k (rad for the pinion and the king-pins, m for the rack). The load N_k
(N.m or N) is the exact element's kinetic level, as ``SteeringSystem.forces`` computes it: T_p and
F_r for the pinion and the rack (levels without a load), mu_k r_k (|F_z,i| + |F_ti|) for a king-pin
(its wheel load and the tie-rod force it carries, so that N_k follows them in time), each times
friction_scale. The law's coefficients are then mu_c = 1 and mu_s = static_factor, so that steady
sliding gives the exact element's kinetic level and the bristle breaks away at its static level; the
pre-sliding deflection of every element is bounded by static_factor / sigma0. While a king-pin's load
rises at a held deflection its bristle can return up to Ndot sigma0 z^2 / 2 more than it stored
(``friction.bristle``), a power bounded by Ndot static_factor^2 / (2 sigma0) that vanishes as sigma0 grows.
(A king-pin written
with the load r_k (|F_z,i| + |F_ti|) and the coefficients mu_k, static_factor mu_k is the same model
with sigma0 and sigma1 multiplied by mu_k.)

State y = [q (5), qd (5), W_driver, W_aligning, W_friction, W_damping, zeta (4)] with the scaled
deflections zeta_k = sigma0_k z_k (O(1), as ``lumped.bristle``): the exact model's layout with the
bristles appended. W_friction integrates f . v, so the elastic energy held by the bristles is part of
it and E_kin + E_spring - (its start) = W_driver + W_aligning + W_friction + W_damping holds as in
the exact model.

Integration: stiff (pre-sliding rates of order sqrt(N sigma0 / inertia), relaxation sigma0 |v| / mu in
slip): SciPy's LSODA on the Python engine, as the other bristle systems (``lumped.bristle`` gives the measured
reasons); on the compiled engine (``engine="compiled"``) the C family "steering_bristle"
(``vehicle.steering_bristle_packing``), which shares the steering family's mechanics and runs on the engine's
Rosenbrock method RODAS.
"""

from __future__ import annotations

import numpy as np

from ..errors import check_parameters
from ..friction import BristleLaw, Dahl, law_list_problems, make_law
from ..lumped.bristle import bristle_contact
from .steering import ELEMENTS, SteeringParameters, SteeringSystem


def element_laws(params: SteeringParameters, model: int, *, sigma0, sigma1, sigma2=0.0, v_s=1e-3, delta=2.0,
                 z_ba_ratio=0.7) -> tuple:
    """One bristle law (``friction.make_law``: 1 Dahl, 2 LuGre, 3 elasto-plastic, 4 Gonthier) per element of
    ELEMENTS with mu_c = 1 and mu_s = params.static_factor (the load is the element's kinetic level).
    sigma0 (1/rad, 1/m for the rack), sigma1 (s/rad, s/m), sigma2 (N.m.s/rad, N.s/m), v_s (rad/s, m/s): one
    value for every element or four (ELEMENTS order)."""
    values = {}
    for name, value in dict(sigma0=sigma0, sigma1=sigma1, sigma2=sigma2, v_s=v_s).items():
        array = np.asarray(value, dtype=float)
        if array.shape not in ((), (len(ELEMENTS),)):
            raise ValueError(f"{name} must be one value or {len(ELEMENTS)} (one per element {ELEMENTS}), "
                             f"got {value!r}")
        values[name] = np.broadcast_to(array, (len(ELEMENTS),))
    return tuple(make_law(model, sigma0=values["sigma0"][k], sigma1=values["sigma1"][k], sigma2=values["sigma2"][k],
                          mu_c=1.0, mu_s=params.static_factor, v_s=values["v_s"][k], delta=delta,
                          z_ba_ratio=z_ba_ratio) for k in range(len(ELEMENTS)))


class SteeringBristle(SteeringSystem):
    """params: SteeringParameters; laws: four bristle laws (ELEMENTS order, ``element_laws``: mu_c = 1 and,
    but for Dahl, mu_s = static_factor); inputs: as ``SteeringSystem`` (tau_sw, M_z_left, M_z_right,
    F_z_left, F_z_right in N.m and N)."""

    ode_method = "LSODA"

    def __init__(self, params: SteeringParameters, laws, inputs):
        super().__init__(params, inputs)
        laws = tuple(laws)
        problems = law_list_problems(laws, len(ELEMENTS), f"one per element {ELEMENTS}")
        for k, law in enumerate(laws):
            if isinstance(law, BristleLaw) and (law.mu_c != 1.0 or not (isinstance(law, Dahl)
                                                                         or law.mu_s == params.static_factor)):
                problems.append(f"laws[{k}] must have mu_c = 1 and mu_s = static_factor = {params.static_factor!r} "
                                f"(its load is the element's kinetic level), got mu_c = {law.mu_c!r}, "
                                f"mu_s = {law.mu_s!r}")
        check_parameters(problems)
        self.laws = laws
        self.sigma0 = np.array([law.sigma0 for law in laws])

    def initial_state(self, theta_sw=0.0, z=None):
        """At rest with every spring relaxed at the steering-wheel angle theta_sw (rad), the bristle
        deflections z (4,; rad, m for the rack; default 0)."""
        z = np.zeros(len(ELEMENTS)) if z is None else np.asarray(z, dtype=float)
        if z.shape != (len(ELEMENTS),):
            raise ValueError(f"z must have shape ({len(ELEMENTS)},), got {z.shape}")
        return np.concatenate((super().initial_state(theta_sw), self.sigma0 * z))

    def bristles(self, t, y):
        """(Q (5 floats), element frictions f (4,), loads N (4,), deflections z (4,), rates zdot (4,), internal
        forces dict) at (t, y)."""
        Q, kinetic, internal = self.forces(t, y, self.stop_contact(y))
        f, z, zdot = np.empty(len(ELEMENTS)), np.empty(len(ELEMENTS)), np.empty(len(ELEMENTS))
        for k, (law, dof) in enumerate(zip(self.laws, self.FRICTION_DOF)):
            z[k], zdot[k], F = bristle_contact(law, y[14 + k], y[5 + dof], kinetic[k])
            f[k] = -F
        return Q, f, np.array(kinetic), z, zdot, internal

    # --- HybridSystem: one smooth mode -------------------------------------------------------------
    def rhs(self, t, y, mode):
        Q, f, _, _, zdot, internal = self.bristles(t, y)
        return np.array([*y[5:10].tolist(), *self.accelerations_of(Q, f.tolist()),
                         *self.powers(t, y, f, internal["F_stop"], self.stop_contact(y)),
                         *(self.sigma0 * zdot)])

    def events(self, mode):
        return []

    def update(self, t, y, mode, event):
        return y, None, None

    # --- compiled engine (friction_joints.vehicle.steering_bristle_packing) --------------------------
    def _build_compiled(self):
        """The CompiledModel of this system (the C family "steering_bristle"), None for a subclass that changes
        the equations."""
        if not self._keeps_equations(SteeringBristle, ("rhs", "events", "update", "record", "bristles", "forces",
                                                       "accelerations_of", "powers", "energies", "record_state",
                                                       "input_values", "stop_contact", "_stop_spring",
                                                       "_stop_push")):
            return None
        if type(self).FRICTION_DOF != SteeringSystem.FRICTION_DOF:
            return None
        from . import steering_bristle_packing

        return steering_bristle_packing.compile_system(self)

    def encode_mode(self, mode):
        """(fmode float64, imode int64) of the single mode for the compiled kernels."""
        from . import steering_bristle_packing

        return steering_bristle_packing.encode_mode(mode)

    def decode_mode(self, fmode, imode):
        """The mode of the C engine's arrays: the single mode (None, as ``update`` gives it)."""
        return None

    def change_kind(self, mode, new, event, change):
        """The kind of the C engine's mode decision: none (the single mode never changes)."""
        return None

    def decode_record(self, out):
        """The dict of ``record`` from the flat output of the compiled record kernel."""
        from . import steering_bristle_packing

        return steering_bristle_packing.decode_record(out)

    def record(self, t, y, mode):
        """The quantities of ``SteeringSystem.record`` (stuck always False: no stick modes) and the loads N
        (4,; N.m, N), deflections z (4,; rad, m) and their rates zdot (4,) of the elements."""
        Q, f, N, z, zdot, internal = self.bristles(t, y)
        return dict(q=y[:5].copy(), qd=y[5:10].copy(), qdd=self.accelerations_of(Q, f.tolist()), friction=f,
                    stuck=np.zeros(len(ELEMENTS), dtype=bool), **self.record_state(y), N=N, z=z, zdot=zdot,
                    **internal)
