"""The common pythonfmu slave of the project's FMUs: variables, stepping, state and failures.

A slave in ``fmu_src/`` declares its variables as ``Var`` rows and implements ``build`` (the
mechanism and initial state from the parameter values) and ``publish`` (output values from the
``MechanismSystem.record`` dict). Everything else is here, and there is no physics here.

Failures never reach the host as a crash. An invalid parameter is logged with fmi2Error status at
exitInitializationMode (pythonfmu can only report an exception there as fmi2Fatal, without its
message, so the call returns and the failure is reported again by every doStep); a NaN input or a
step the solver cannot finish makes doStep fail, each with a logged message naming the cause.
"""

from __future__ import annotations

import os
import pickle
from dataclasses import dataclass, field

# The FMUs ship the compiled engine's cache for the generic CPU of their architecture (build_fmu.py):
# ask numba for it (unless the host chose a CPU, or imported numba already) so that it loads anywhere.
os.environ.setdefault("NUMBA_CPU_NAME", "generic")

from pythonfmu import Boolean, Fmi2Causality, Fmi2Slave, Fmi2Variability, Real  # noqa: E402
from pythonfmu.enums import Fmi2Status

from .cosim import MechanismStepper, Stepper
from .engine import PYTHON_SLOWDOWN, engine_from_environment, load_compiled
from .errors import FrictionJointsError
from .fmi_exit_guard import guard_library_exit, pin_scipy_uarray


@dataclass(frozen=True)
class Var:
    """One FMI variable. causality: 'parameter', 'input' or 'output'; unit: SI unit ('' for none);
    display: display unit offered by build_fmu.py ('deg', 'rpm'); kind: 'Real' or 'Boolean'."""

    name: str
    causality: str
    unit: str = ""
    description: str = ""
    start: float | bool | None = None
    min: float | None = None
    max: float | None = None
    display: str | None = None
    kind: str = "Real"


@dataclass(frozen=True)
class Experiment:
    """The default experiment of an FMU (written to its modelDescription) and the inputs and outputs
    of the plot in its documentation. inputs: {input name: function of t} sampled at every step
    (the FMI default experiment itself has no inputs: they stay at their start values); inputs_text:
    the same inputs in words, for the caption."""

    stop_time: float
    step_size: float
    outputs: tuple
    inputs: dict = field(default_factory=dict)
    inputs_text: str = "inputs at their start values"


class VarSlave(Fmi2Slave):
    """A pythonfmu slave whose variables are declared as ``Var`` rows; values live in ``self.values``.
    ``equations``: HTML for documentation/index.html (what the FMU computes, with seed references);
    ``experiment``: its default experiment and documentation plot."""

    variables: tuple = ()
    equations: str = ""
    experiment: Experiment | None = None

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        guard_library_exit(self.resources, type(self).__name__)
        pin_scipy_uarray()
        self.values = {v.name: (v.start if v.start is not None else (False if v.kind == "Boolean" else 0.0))
                       for v in self.variables}
        self.explicit = set()  # names of the variables the host has set
        self.t_start = 0.0
        for v in self.variables:
            cls = Boolean if v.kind == "Boolean" else Real
            kw = dict(causality=Fmi2Causality[v.causality], description=v.description,
                      getter=lambda name=v.name: self.values[name])
            if v.causality == "parameter":
                kw.update(variability=Fmi2Variability.fixed, setter=lambda x, name=v.name: self._set(name, x))
            elif v.causality == "input":
                kw.update(variability=Fmi2Variability.continuous, setter=lambda x, name=v.name: self._set(name, x))
            else:
                kw.update(variability=Fmi2Variability.discrete if v.kind == "Boolean" else Fmi2Variability.continuous)
            self.register_variable(cls(v.name, **kw))

    def _set(self, name, value):
        self.values[name] = value
        self.explicit.add(name)

    def setup_experiment(self, start_time, stop_time=None, tolerance=None):  # pythonfmu < 0.7 passes start_time only
        """The host's start time; its tolerance becomes the internal rtol unless rtol was set explicitly
        (kept within rtol's declared range)."""
        self.t_start = float(start_time or 0.0)
        rtol = next((v for v in self.variables if v.name == "rtol"), None)
        if tolerance and rtol is not None and "rtol" not in self.explicit:
            value = min(max(float(tolerance), rtol.min), rtol.max)
            if value != tolerance:
                self.log(f"setupExperiment: tolerance {tolerance} is outside rtol's range [{rtol.min}, {rtol.max}]: "
                         f"rtol = {value}", Fmi2Status.warning)
            self.values["rtol"] = value

    def _fail(self, where, exc):
        self.log(f"{where}: {exc}", Fmi2Status.error)

    @staticmethod
    def _fmu_state_to_bytes(state) -> bytes:
        return pickle.dumps(state)

    @staticmethod
    def _fmu_state_from_bytes(state: bytes):
        return pickle.loads(state)


class MechanismSlave(VarSlave):
    """Base of the FMUs of hybrid systems (FMI 2.0 co-simulation): ``build`` returns a planar
    mechanism with its initial state; a slave of another HybridSystem overrides ``make_stepper``."""

    inputs: tuple = ()  # names of the input variables, in the drive order of the mechanism
    equations = ("Planar multibody system in absolute coordinates with non-ideal constraints (seed 000 eqs "
                 "2.1-2.9), reduced to the minimal form (eqs 4.1-5.5); reactions and friction solved together "
                 "at every instant (eq. 3.3); stick-slip by the algorithm of seed 000 Sect. 5, several stuck "
                 "contacts by the Gauss principle (seed 001). Inputs are held over each communication step; "
                 "inside it an event-driven DOP853 integrator with error control runs.")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.stepper = None
        self.failure = "the FMU is not initialized"

    # --- to implement -----------------------------------------------------------------------------
    def build(self, p: dict):
        """(mechanism, q0, u0, rtol) from the parameter values p; raise ValueError on bad ones."""
        raise NotImplementedError

    def make_stepper(self, built, inputs0):
        """The stepper of what ``build`` returned, started at the experiment's start time."""
        mechanism, q0, u0, rtol = built
        return MechanismStepper(mechanism, q0, u0, inputs0, rtol, self.t_start, engine_from_environment())

    def publish(self, rec: dict) -> dict:
        """Output values {name: value} from a ``MechanismSystem.record`` dict."""
        raise NotImplementedError

    # --- FMI --------------------------------------------------------------------------------------
    def exit_initialization_mode(self):
        try:
            self.stepper = self.make_stepper(self.build(self.values), [self.values[n] for n in self.inputs])
            self._log_engine()
        except (ValueError, FrictionJointsError) as exc:
            # pythonfmu turns an exception here into fmi2Fatal without its message: log instead, and
            # every doStep then fails with the same message
            self.failure = f"initialization failed: {exc}"
            self._fail("exitInitializationMode", self.failure)
            return
        self.values.update(self.publish(self.stepper.outputs))

    def _log_engine(self):
        """Say which engine runs the model and what its start-up cost."""
        if self.stepper.integrator.engine == "python":
            self.log(f"Python engine (numba missing or model not compiled): {PYTHON_SLOWDOWN} slower than the "
                     "compiled engine", Fmi2Status.warning)
            return
        load = load_compiled()
        if load["compiled"]:
            self.log(f"compiled engine: its cache does not fit this CPU or numba version; compiled in "
                     f"{load['seconds']:.1f} s", Fmi2Status.warning)
        else:
            self.log(f"compiled engine loaded from its cache in {load['seconds']:.2f} s", Fmi2Status.ok)

    def do_step(self, current_time, step_size):
        if self.stepper is None:
            self._fail("doStep", self.failure)
            return False
        try:
            rec = self.stepper.step(current_time, step_size, [self.values[n] for n in self.inputs])
        except (ValueError, FrictionJointsError, ArithmeticError) as exc:
            self._fail(f"doStep at t={current_time:.9g}", exc)
            return False
        self.values.update(self.publish(rec))
        return True

    def _get_fmu_state(self):
        return {"values": dict(self.values),
                "stepper": None if self.stepper is None else self.stepper.get_state()}

    def _set_fmu_state(self, state):
        self.values = dict(state["values"])
        if state["stepper"] is not None:
            self.stepper.set_state(state["stepper"])


class SystemSlave(MechanismSlave):
    """Base of the FMUs of other hybrid systems: ``build`` returns (make_system, y0_of, rtol) as
    taken by ``cosim.Stepper`` (make_system: function of the held input signals)."""

    def make_stepper(self, built, inputs0):
        make_system, y0_of, rtol = built
        return Stepper(make_system, y0_of, inputs0, rtol, self.t_start, engine_from_environment())
