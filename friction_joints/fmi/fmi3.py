"""FMI 3.0 co-simulation binding of the project's FMI 2 slaves (pythonfmu3), with no model code of its own.

An FMI 3.0 FMU runs the same slave class as the FMI 2.0 one (``slave.VarSlave`` and its subclasses in
fmu_src/): ``Fmi3Binding`` holds an instance of it and translates the calls. The variables are the
slave's, in its order and with its value references, then ``time`` (the independent variable FMI 3.0
asks for); their values, checks, failures, state and
messages all stay in the slave, so an FMI 3 FMU gives the FMI 2 one's results and errors.

    pythonfmu3 (fmi3...)             the slave (pythonfmu, fmi2...)
    setFloat64 / getFloat64           set_real / get_real
    setInt32 / getInt32               set_integer / get_integer
    setBoolean, setString and gets    set_boolean, set_string, ...
    enterInitializationMode           setup_experiment (from the loader, see below), enter_initialization_mode
    exitInitializationMode, doStep, terminate, get/setFMUState: the same methods

The experiment: pythonfmu3 0.3.4 drops the arguments of fmi3EnterInitializationMode (start and stop
time, tolerance) and never calls a setup_experiment. The FMU's loader (loader_fmi3.c) passes them
before it forwards the call, through fmi3SetFloat64 with the value references EXPERIMENT_REFERENCES
(NaN for "not defined"); ``set_float64`` hands them to the slave's ``setup_experiment``, which checks
them as fmi2SetupExperiment's are checked. Without the loader the experiment starts at 0 with the
slave's own rtol.

Statuses: do_step returns an ``Fmi3StepResult`` with fmi3Error when the slave failed (with fmi3Discard
when it declined a step without an error), so doStep fails loudly even without the loader; the
loader also makes every other call during which the slave logged an error return fmi3Error. The
slave's messages name the FMI 3 functions ("setFloat64: rtol = 0.5 is outside its allowed range ...").
FMI 3.0 co-simulation has no input derivatives: the inputs are held over each step.

pythonfmu3 finds the slave class of an FMU by a regular expression on its script, which wants
``Fmi3Slave`` among the bases of the class: build_fmu.py writes each FMU's script as
``class <Model>(Fmi3Binding, Fmi3Slave): model = <the FMI 2 slave class>``.
"""

from __future__ import annotations

import math
import re

from pythonfmu3 import Boolean, Float64, Fmi3Causality, Fmi3Slave, Fmi3Variability, Int32
from pythonfmu3.enums import Fmi3Status
from pythonfmu3.fmi3slave import Fmi3StepResult

#: value references of fmi3SetFloat64 that carry fmi3EnterInitializationMode's startTime, stopTime and
#: tolerance from the loader (loader_fmi3.c); NaN: not defined. Above every variable's reference.
EXPERIMENT_REFERENCES = (2**28 - 3, 2**28 - 2, 2**28 - 1)

_VARIABLE = {"Real": Float64, "Integer": Int32, "Boolean": Boolean}  # pythonfmu's type: pythonfmu3's
# the FMI 2 functions the slave's messages name, and their FMI 3 counterparts
_FUNCTION = {"setReal": "setFloat64", "getReal": "getFloat64", "setInteger": "setInt32", "getInteger": "getInt32",
             "setupExperiment": "enterInitializationMode"}
_FUNCTIONS = re.compile(r"\b(" + "|".join(_FUNCTION) + r")\b:")


class Fmi3Binding(Fmi3Slave):
    """An FMI 3.0 co-simulation slave that runs the FMI 2 slave class ``model`` (a ``slave.VarSlave``)."""

    model: type = None

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.slave = self.model(**kwargs)
        for message in self.slave.log_queue:  # logged while it started: one queue from here on
            self.log(message.msg, message.status, message.category)
        self.slave.log = self._log_in_fmi3_terms
        for name in ("author", "description", "version", "copyright", "license"):
            setattr(self, name, getattr(self.slave, name, None))
        for vr, var in self.slave.vars.items():
            copy = _VARIABLE[type(var).__name__](
                var.name, causality=Fmi3Causality[var.causality.name],
                variability=Fmi3Variability[var.variability.name], description=var.description)
            self.register_variable(copy, nested=False)  # a dot in a name is no attribute path (O.bristle.sigma0)
            if copy.value_reference != vr:
                raise RuntimeError(f"{var.name}: value reference {copy.value_reference} in FMI 3, {vr} in FMI 2")
        # FMI 3.0 asks for one independent variable: the time, after the slave's variables
        self.time = 0.0
        self.register_variable(Float64("time", causality=Fmi3Causality.independent,
                                       variability=Fmi3Variability.continuous,
                                       description="simulation time (s): the end of the last completed step"))
        self.time_reference = len(self.slave.vars)

    def _log_in_fmi3_terms(self, msg, status=Fmi3Status.ok, category=None, debug=False):
        """The slave's log, its messages naming the FMI 3 functions where they name FMI 2 ones."""
        self.log(_FUNCTIONS.sub(lambda m: _FUNCTION[m.group(1)] + ":", msg), status, category, debug)

    # --- values -----------------------------------------------------------------------------------
    def set_float64(self, vrs, values):
        if not vrs or max(vrs) < EXPERIMENT_REFERENCES[0]:
            self.slave.set_real(vrs, values)
        elif set(vrs) <= set(EXPERIMENT_REFERENCES):  # from the loader's fmi3EnterInitializationMode
            start, stop, tolerance = (dict(zip(vrs, values)).get(vr, math.nan) for vr in EXPERIMENT_REFERENCES)
            self.slave.setup_experiment(0.0 if math.isnan(start) else start, None if math.isnan(stop) else stop,
                                        None if math.isnan(tolerance) else tolerance)
            self.time = self.slave.t_start
        else:  # the slave would take a reference from 2^28 on for an input derivative's (slave.DERIVATIVE_ORDER_SHIFT)
            for vr in vrs:
                if vr >= EXPERIMENT_REFERENCES[0]:
                    self.slave._fail("setFloat64", f"no variable has the value reference {vr}")

    def get_float64(self, vrs):
        if self.time_reference not in vrs:
            return self.slave.get_real(vrs)
        return [self.time if vr == self.time_reference else self.slave.get_real([vr])[0] for vr in vrs]

    def set_int32(self, vrs, values):
        self.slave.set_integer(vrs, values)

    def get_int32(self, vrs):
        return self.slave.get_integer(vrs)

    def set_boolean(self, vrs, values):
        self.slave.set_boolean(vrs, values)

    def get_boolean(self, vrs):
        return self.slave.get_boolean(vrs)

    def set_string(self, vrs, values):
        self.slave.set_string(vrs, values)

    def get_string(self, vrs):
        return self.slave.get_string(vrs)

    # --- modes and steps --------------------------------------------------------------------------
    def enter_initialization_mode(self):
        self.slave.enter_initialization_mode()

    def exit_initialization_mode(self):
        self.slave.exit_initialization_mode()

    def do_step(self, current_time, step_size):
        if self.slave.do_step(current_time, step_size):
            self.time = current_time + step_size
            return Fmi3StepResult()
        return Fmi3StepResult(status=Fmi3Status.error if self.slave.error is not None else Fmi3Status.discard)

    def terminate(self):
        self.slave.terminate()

    # --- FMU state --------------------------------------------------------------------------------
    def _get_fmu_state(self):
        return {"slave": self.slave._get_fmu_state(), "time": self.time}

    def _set_fmu_state(self, state):
        self.slave._set_fmu_state(state["slave"])
        self.time = state["time"]

    @classmethod
    def _fmu_state_to_bytes(cls, state) -> bytes:
        return cls.model._fmu_state_to_bytes(state)

    @classmethod
    def _fmu_state_from_bytes(cls, state: bytes):
        return cls.model._fmu_state_from_bytes(state)
