"""The absolute-coordinate formulation (seed 000 eq. 2.9) as a HybridSystem, for comparison with the
minimal form (``MechanismSystem``) on either engine.

State y = [x (n), xd (n)]: the absolute coordinates of the bodies and their velocities, integrated
with the constraints only at acceleration level (C xdd = xi), so x drifts off Phi(x) = 0 at the
integrator's tolerance. One mode: the friction directions are sgn(sd) (no stick-slip modes, no
events), the setting of ``benchmarks/bench_formulations.py``. The right-hand side is
``planar.absolute_dynamics``; its compiled form is ``planar.absolute_packing``.
"""

from __future__ import annotations

import numpy as np

from ..hybrid.integrator import DrivenSystem
from .absolute import absolute_dynamics

#: the single mode: friction directions sgn(sd)
SIGN_MODE = "sgn(sd)"


class AbsoluteSystem(DrivenSystem):
    """mechanism: a ready Mechanism (its minimal form gives the initial state and the packing of the
    compiled kernels); inputs: one signal per drive (callable of t, number or table)."""

    def __init__(self, mechanism, inputs):
        super().__init__(inputs, mechanism.model.n_drives, "inputs (one per drive)")
        self.mech = mechanism
        self.model = mechanism.model
        self.minimal = mechanism.minimal
        self.n = self.model.n

    def initial_state(self, q, u):
        """y0 = [x, xd] of the minimal coordinates q (k1,) (projected onto the closing constraints)
        and independent velocities u (k,) of the mechanism's partition."""
        q = self.minimal.project(np.asarray(q, float), self.mech.partition)
        kin = self.minimal.kinematics(q, np.atleast_1d(np.asarray(u, float)), self.mech.partition)
        return np.concatenate((kin["x"], kin["xd"]))

    def tau(self, t):
        """Drive inputs at t; at the end of the current segment, their left limits."""
        return self.input_values(t)

    # --- HybridSystem -----------------------------------------------------------------------------
    def events(self, mode):
        return []

    def update(self, t, y, mode, event):
        return y, SIGN_MODE, None

    def rhs(self, t, y, mode):
        n = self.n
        return np.concatenate((y[n:], absolute_dynamics(self.model, y[:n], y[n:], self.tau(t)).xdd))

    def record(self, t, y, mode):
        n = self.n
        sol = absolute_dynamics(self.model, y[:n], y[n:], self.tau(t))
        return dict(x=y[:n].copy(), xd=y[n:].copy(), xdd=sol.xdd, f=sol.f, f_mu=sol.f_mu)

    # --- compiled engine (friction_joints.planar.absolute_packing) ---------------------------------
    def _build_compiled(self):
        """The CompiledModel of this system (kernels of the C family "absolute" on the arrays of
        ``planar.packing.pack``), None for a joint or friction law the
        kernels do not implement, or a subclass that changes rhs, record or events."""
        cls = type(self)
        if (cls.rhs is not AbsoluteSystem.rhs or cls.record is not AbsoluteSystem.record
                or cls.events is not AbsoluteSystem.events):
            return None
        from . import absolute_packing

        return absolute_packing.compile_system(self)

    def encode_mode(self, mode):
        """(fmode, imode) of the single mode: empty arrays."""
        from . import absolute_packing

        return absolute_packing.encode_mode(mode)

    def decode_mode(self, fmode, imode):
        """The mode of the C engine's arrays: the single mode."""
        return SIGN_MODE

    def change_kind(self, mode, new, event, change):
        """The kind of the C engine's mode decision: none (the single mode never changes)."""
        return None

    def decode_record(self, out):
        """The dict of ``record`` from the flat output of the compiled record kernel."""
        from . import absolute_packing, packing

        if "_record_decoder" not in self.__dict__:
            self._record_decoder = packing.record_decoder(absolute_packing.record_layout(self.model))
        return self._record_decoder(out)
