"""FMU: a PI speed controller (drive torque from a speed set point and a measured speed)."""

import math

from friction_joints.control import PIController
from friction_joints.fmi.slave import Experiment, Var, VarSlave


class SpeedController(VarSlave):
    author = "friction-joints"
    description = "Discrete PI speed controller with torque limit and anti-windup, for driving a crank FMU"
    equations = ("e = w_ref - w held over each step h; I &larr; I + e h (not while that deepens a saturation); "
                 "tau = sat(k_p (e + I / T_i)), |tau| &le; tau_max.")
    experiment = Experiment(1.0, 0.01, ("tau", "integral"),
                            {"w_ref": lambda t: 2.0 if t >= 0.2 else 0.0, "w": lambda t: 1.5 * math.sin(3 * t)},
                            "w_ref steps 0 -> 2 rad/s at 0.2 s, w = 1.5 sin(3 t) rad/s")
    variables = (
        Var("w_ref", "input", "rad/s", "speed set point", 0.0, display="rpm"),
        Var("w", "input", "rad/s", "measured speed", 0.0, display="rpm"),
        Var("k_p", "parameter", "N.m.s/rad", "proportional gain", 20.0, 0.0),
        Var("T_i", "parameter", "s", "integral time", 0.5, 0.0),
        Var("tau_max", "parameter", "N.m", "torque limit", 30.0, 0.0),
        Var("tau", "output", "N.m", "drive torque"),
        Var("integral", "output", "rad", "integral of the speed error"),
    )

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.controller = None

    def exit_initialization_mode(self):
        try:
            self.controller = self._controller()
        except ValueError as exc:
            self._fail("exitInitializationMode", f"initialization failed: {exc}")

    def _controller(self):
        return PIController(self.values["k_p"], self.values["T_i"], self.values["tau_max"])

    def do_step(self, current_time, step_size):
        """Called initialised, with no earlier failure (VarSlave checks those): the controller exists."""
        try:
            self.values["tau"] = self.controller.step(self.values["w_ref"], self.values["w"], step_size)
        except ValueError as exc:
            return self._fail(f"doStep at t={current_time:.9g}", exc)
        self.values["integral"] = self.controller.integral
        return True

    def _get_fmu_state(self):
        return {"values": dict(self.values), "controller": None if self.controller is None else
                (self.controller.integral, self.controller.tau)}

    def _set_fmu_state(self, state):
        """The state's values and a controller of its parameters (also in a fresh or reset instance)."""
        self.values = dict(state["values"])
        if state["controller"] is not None:
            self.controller = self._controller()
            self.controller.integral, self.controller.tau = state["controller"]
