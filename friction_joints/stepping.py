"""Co-simulation stepping of a hybrid system (a mechanism, a lumped model): what an FMU slave calls,
with no FMI in it.

The inputs are held constant over each communication step, or follow the straight line of a given
rate (an FMU input with its derivative set); a change at a communication point is a time event
that re-decides stick or slip. Inside a step the hybrid integrator runs with error control and
exact stick-slip, so results do not depend on the step size beyond the inputs' hold.
"""

from __future__ import annotations

import copy
import math

import numpy as np

from .engine import make_integrator
from .hybrid.signals import Held


class Stepper:
    """make_system: function of the held input signals -> a HybridSystem with ``record``; y0_of:
    function of that system -> its initial state; inputs0: initial input values; rtol: integrator
    tolerance (atol = rtol / 100 in SI units); t0: start time (s); engine: "auto", "compiled" or
    "python" (``friction_joints.engine``)."""

    def __init__(self, make_system, y0_of, inputs0, rtol=1e-8, t0=0.0, engine="auto"):
        if not 0 < rtol < 1:
            raise ValueError(f"rtol = {rtol!r} is outside the allowed range (0, 1)")
        values = np.atleast_1d(np.asarray(inputs0, dtype=float))
        self.inputs = [Held(v) for v in self._checked(values, len(values))]
        self._held = (0.0,) * len(self.inputs)  # the rates of inputs held over a step
        self.system = make_system(self.inputs)
        self.integrator = make_integrator(self.system, t0, y0_of(self.system), engine=engine, rtol=rtol,
                                          atol=rtol * 1e-2)
        self.integrator.results.rows.clear()
        self._outputs, self._row = self._record(), None

    @staticmethod
    def _checked(values, n) -> list:
        """The n input values as a list of floats: a list of n Python floats is taken as it is (what an
        FMU slave passes), anything else through numpy (a sequence, or one number when n = 1).
        ValueError for another count, or a value that is not finite."""
        if type(values) is list and len(values) == n:
            for v in values:
                if type(v) is not float or not -math.inf < v < math.inf:
                    break
            else:
                return values  # the slave's list of finite floats, at every step
        array = np.atleast_1d(np.asarray(values, dtype=float))
        if array.shape != (n,):
            raise ValueError(f"expected {n} input values, got {array.shape}")
        values = array.tolist()
        if not all(map(math.isfinite, values)):
            raise ValueError(f"inputs must be finite, got {values}")
        return values

    @property
    def time(self) -> float:
        return self.integrator.time

    @property
    def outputs(self) -> dict:
        """The record dict at the current time: the last step's outputs."""
        if self._outputs is None:  # after step_record: its row, decoded once asked for
            self._outputs = self.integrator.decoded(self._row.copy(), self.integrator.time)
        return self._outputs

    def _record(self):
        s = self.integrator.state
        return self.integrator.record_row(s.t, s.y, s.mode)

    def step(self, t, h, inputs, rates=None) -> dict:
        """Advance from t to t + h (s) with the inputs held, or, with rates (per s, one per input),
        following inputs + rates (tau - t); returns the outputs at t + h (the
        ``MechanismSystem.record`` dict). The integrator's results then hold this step's events, no rows."""
        results = self.integrator.results
        self._hold(t, h, inputs, rates, results.events)  # the events of this step only: memory stays bounded
        self._outputs, self._row = self.integrator.advance_to(t + h), None
        results.rows.clear()
        return self._outputs

    def step_record(self, t, h, inputs, rates=None) -> np.ndarray:
        """``step`` on the compiled engine, as an FMU's step needs it: one call of the engine, no record
        dict and no events in the results; the record at t + h (n_record,) as the engine writes it, in a
        buffer that the next step overwrites (``outputs`` decodes it)."""
        now, values, rates = self._hold(t, h, inputs, rates)
        if rates is not self._held:  # now is within rounding of t: the lines' values there (Held.form)
            values = [held(now) for held in self.inputs]
        self._outputs, self._row = None, self.integrator.step_held(t + h, values, rates)
        return self._row

    def _hold(self, t, h, inputs, rates, events=None):
        """Checks a step's arguments and holds the inputs from t (the integrator restarts where they
        changed); the model's time, the values and rates as lists of floats (rates None: ``_held``).
        events: a list emptied once the arguments pass, before the restart (whose event it then keeps)."""
        if not 0.0 < h < math.inf:
            raise ValueError(f"step size h = {h!r} must be positive and finite")
        integrator = self.integrator
        now = integrator.time
        tolerance = 1e-9 * (t if t > 1.0 else -t if t < -1.0 else 1.0)  # 1e-9 max(1, |t|)
        if t - now > tolerance or now - t > tolerance:
            raise ValueError(f"communication point t = {t!r} does not match the model time {now!r}")
        values = self._checked(inputs, len(self.inputs))
        rates = self._held if rates is None else self._checked(rates, len(values))
        if events is not None:
            events.clear()
        changed = False
        for held, v, r in zip(self.inputs, values, rates):
            changed = changed or held.rate != r or (held(t) if held.rate else held.value) != v
            held.value, held.rate, held.t0 = v, r, t
        if changed:
            integrator.restart()
        return now, values, rates

    def get_state(self):
        """A snapshot of everything that determines the future: integrator state, held inputs, outputs."""
        return (self.integrator.get_state(), [(i.value, i.rate, i.t0) for i in self.inputs],
                copy.deepcopy(self.outputs))

    def set_state(self, snapshot):
        state, held_inputs, outputs = snapshot
        self.integrator.set_state(state)
        for held, (value, rate, t0) in zip(self.inputs, held_inputs):
            held.value, held.rate, held.t0 = value, rate, t0
        self._outputs, self._row = copy.deepcopy(outputs), None


class MechanismStepper(Stepper):
    """A Stepper of a planar mechanism: q0 (k1,), u0 (k,) its initial state, one input per drive."""

    def __init__(self, mechanism, q0, u0, inputs0, rtol=1e-8, t0=0.0, engine="auto"):
        self._checked(inputs0, mechanism.model.n_drives)
        from .planar import MechanismSystem  # here: the steppers of other systems import no planar model

        super().__init__(lambda inputs: MechanismSystem(mechanism, inputs), lambda s: s.initial_state(q0, u0),
                         inputs0, rtol, t0, engine)
