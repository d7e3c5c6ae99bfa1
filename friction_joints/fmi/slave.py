"""The common pythonfmu slave of the project's FMUs: variables, stepping, state and failures.

A slave in ``fmu_src/`` declares its variables as ``Var`` rows and implements ``build`` (the
mechanism and initial state from the parameter values) and ``publish`` (output values from the
``MechanismSystem.record`` dict). Everything else is here, and there is no physics here. On the
compiled engine a doStep is one call of the C engine (``Stepper.step_record``) and the outputs are
read from its record row at the indices publish takes them from (``publication.Publication``, found
once when the model is built) when a getter or getFMUstate first asks for them after the step; on the
Python engine publish gets the record dict at every step.

Failures (FMI error semantics)
------------------------------
Every failure is logged with fmi2Error status at the call where it happens, in a message that
names the variable (or argument), its value and its allowed range, and that call returns fmi2Error:

* ``fmi2SetReal``: a NaN or infinite value, or one outside the ``min``/``max`` its ``Var`` declares
  (the modelDescription's min/max): "rtol = 0.5 is outside its allowed range [1e-14, 0.01]";
  a parameter (variability fixed) set after exitInitializationMode; an output, or an unknown value
  reference (getters too). The value is left unchanged.
* ``fmi2SetupExperiment``: a stop time before the start time, a non-finite start time, a negative or
  non-finite tolerance (0 means none); setupExperiment after exitInitializationMode.
* ``fmi2ExitInitializationMode``: parameters that are each within their declared range but that
  the model rejects together (mu_k > mu_s, a zero mass where min = 0 admits it): the library's
  ValueError, which names the parameter, its value and the allowed range.
* ``fmi2DoStep``: a communication step size that is not positive and finite, a non-finite or wrong
  communication point, and a failure inside the step (see below).

An error ends the instance, as FMI 2.0 defines fmi2Error: every later doStep (and an
exitInitializationMode still to come) fails with fmi2Error and repeats the first failure's message,
until fmi2SetFMUstate restores a state saved before it, or fmi2Reset. So a host that ignores a
status never runs on with other values than it asked for.

fmi2Discard is kept for a step that a smaller step could complete (a do_step that returns False
without logging an error; then fmi2GetRealStatus(fmi2LastSuccessfulTime) gives the step's start,
where the model stays). No failure of these models is of that kind today, and the failures inside
the integration are errors: the inputs are held over the step and the integrator inside it controls
its own error and finds the stick-slip events exactly, so the step size does not change the
trajectory up to the failure. A mechanism that locks (Painleve inconsistency or indeterminacy), a
singular configuration, a Zeno accumulation of events or a reaction-friction iteration that does
not converge occur at a state that a shorter step reaches just the same; and the stepper has taken
the new inputs and may have advanced into the step when it fails (there is no rollback), so a
retry would not even start from the step's start.

How the status reaches the host: pythonfmu 0.7 maps a Python ``do_step`` returning False to
fmi2Discard and any Python exception to fmi2Fatal (destroying the Python instance), and returns
fmi2OK from every other call that returns: Python alone cannot return fmi2Error. The slave
therefore logs (``_fail``) and returns normally, and the FMU's loader (friction_joints/fmi/
loader_fmi2.c, in front of pythonfmu's binary in binaries/linux64; loader_fmi3.c for FMI 3.0) sees the messages of status fmi2Error that a
call logs and returns fmi2Error from it; it also passes such messages to the host whether or not
debug logging is on. An FMU built without the loader (``build_fmu.py --no-loader``, or a platform
other than Linux x86_64) keeps pythonfmu's statuses: the failing call returns fmi2OK with its
message logged (when logging is on), and every later doStep returns fmi2Discard with the message.

Input derivatives: an FMU with the loader whose slave sets ``interpolates_inputs`` (every
MechanismSlave) declares canInterpolateInputs="true". The loader passes fmi2SetRealInputDerivatives
on to ``set_real`` with the derivative's order in the value reference's bits from
DERIVATIVE_ORDER_SHIFT on; the first derivatives set before a doStep make that step's inputs the
lines u + du/dt (t - t_c) instead of held values, and the doStep resets them to 0 (set them again
before every step that shall interpolate). Higher orders are accepted and not used (a warning).

The checks wrap whatever a subclass defines (SpeedController has its own do_step): ``__init__``
binds the checked ``do_step``, ``exit_initialization_mode`` and FMU-state functions on the
instance, where pythonfmu looks them up by name; calls within the class hierarchy stay unchecked.
"""

from __future__ import annotations

import math
import pickle
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from pythonfmu import Boolean, Fmi2Causality, Fmi2Slave, Fmi2Variability, Integer, Real, String
from pythonfmu.enums import Fmi2Status

from ..stepping import MechanismStepper, Stepper
from ..engine import PYTHON_SLOWDOWN, engine_from_environment
from ..errors import FrictionJointsError
from ..friction.bristle import MODEL_PARAMETERS
from .bundle import drop_repeated_path, follow_resources
from .exit_guard import guard_library_exit, pin_scipy_uarray
from .publication import NotFromRecord, Publication


def _internal_error(exc: Exception) -> str:
    """An unexpected exception (a bug) in words, with where it was raised: pythonfmu would turn it into
    fmi2Fatal and destroy the Python instance, so the slave reports it as a failure instead."""
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    at = f" (at {Path(where.filename).name}:{where.lineno} in {where.name})" if where else ""
    return f"internal error: {type(exc).__name__}: {exc}{at}"


@dataclass(frozen=True)
class Var:
    """One FMI variable. causality: 'parameter', 'input' or 'output'; unit: SI unit ('' for none);
    display: display unit offered by build_fmu.py ('deg', 'rpm'); kind: 'Real', 'Integer' or 'Boolean'."""

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


def record_elements(outputs, keys) -> tuple:
    """((record key, output names of its elements in order), ...) for the record arrays published
    element-wise: the outputs named ``key[i]`` (or ``key`` alone, a one-element array) of each key."""
    return tuple((key, tuple(n for n in outputs if n == key or n.startswith(key + "["))) for key in keys)


def publish_elements(rec: dict, elements, out: dict) -> dict:
    """``out`` updated with the elements of the record arrays, as ``record_elements`` names them."""
    for key, names in elements:
        out.update(zip(names, rec[key].tolist()))
    return out


_INF = math.inf  # a module's constant: cheaper than math.inf in the checks of every step
DERIVATIVE_ORDER_SHIFT = 28  # set_real: value reference = order << 28 | vr for a derivative of input vr (loader_fmi2.c)


class VarSlave(Fmi2Slave):
    """A pythonfmu slave whose variables are declared as ``Var`` rows; values live in ``self.values``.
    ``equations``: HTML for documentation/index.html (what the FMU computes, with seed references);
    ``experiment``: its default experiment and documentation plot. Failures: see the module's
    docstring; ``error`` is the first failure's message (None while there is none)."""

    variables: tuple = ()
    equations: str = ""
    experiment: Experiment | None = None
    interpolates_inputs = False  # do_step uses the input derivatives in ``self.rates``

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        follow_resources(self.resources)  # before any lazy import of the bundled package's modules
        drop_repeated_path(self.resources)
        guard_library_exit(self.resources, type(self).__name__)
        pin_scipy_uarray()
        self.values = {v.name: (v.start if v.start is not None else (False if v.kind == "Boolean" else 0.0))
                       for v in self.variables}
        self.explicit = set()  # names of the parameters (and Boolean inputs) the host has set
        self.rates = {}  # input name: its first derivative for the next doStep (fmi2SetRealInputDerivatives)
        self.t_start = 0.0
        self.error = None  # the first failure's message: the instance fails every later step
        self.initialized = False  # exitInitializationMode has been called: the parameters are fixed
        self.terminated = False  # terminate has been called: only getters, FMU states and reset remain
        # name: (low, high, fixed) of each settable variable; low/high None for a Boolean, else the
        # declared bounds or +-the largest float, so that one chained comparison also refuses NaN and inf
        self._limits = {}
        self._setter = {v.name: "set" + v.kind for v in self.variables}  # the FMI function that sets each
        for v in self.variables:
            cls = {"Real": Real, "Integer": Integer, "Boolean": Boolean}[v.kind]
            kw = dict(causality=Fmi2Causality[v.causality], description=v.description,
                      getter=lambda name=v.name: self._published()[name])
            if v.causality in ("parameter", "input"):
                kw.update(setter=lambda x, name=v.name: self._set(name, x))
                bounds = ((None, None) if v.kind == "Boolean" else
                          (-sys.float_info.max if v.min is None else float(v.min),
                           sys.float_info.max if v.max is None else float(v.max)))
                self._limits[v.name] = (*bounds, v.causality == "parameter")
            if v.causality == "parameter":
                kw.update(variability=Fmi2Variability.fixed)
            elif v.causality == "input":
                kw.update(variability=Fmi2Variability.continuous)
            else:
                kw.update(variability=Fmi2Variability.continuous if v.kind == "Real" else Fmi2Variability.discrete)
            self.register_variable(cls(v.name, **kw))
        # value reference: variable name, by type, of the variables the setters and getters below accept
        self._settable = {kind: {} for kind in (Real, Boolean, Integer, String)}
        self._gettable = {kind: {} for kind in (Real, Boolean, Integer, String)}
        for vr, var in self.vars.items():
            self._gettable[type(var)][vr] = var.name
            if var.name in self._limits:
                self._settable[type(var)][vr] = var.name
        # value reference: (name, low, high) of the Real inputs, which set_real takes without a further call
        self._real_inputs = {vr: (name, *self._limits[name][:2]) for vr, name in self._settable[Real].items()
                             if not self._limits[name][2]}
        # pythonfmu calls these by name: the checked versions wrap whatever the class defines
        self._unchecked_do_step = type(self).do_step.__get__(self)
        self.do_step = self._checked_do_step
        self.enter_initialization_mode = self._checked_enter_initialization_mode
        self.exit_initialization_mode = self._checked_exit_initialization_mode
        self.terminate = self._checked_terminate
        self._get_fmu_state = self._checked_get_fmu_state
        self._set_fmu_state = self._checked_set_fmu_state

    # --- failures ---------------------------------------------------------------------------------
    def _fail(self, where, message) -> bool:
        """Log a failure of the current call with fmi2Error status (the loader makes the call return
        fmi2Error) and keep the first one as ``error``; returns False, do_step's failure."""
        text = f"{where}: {message}"
        self.log(text, Fmi2Status.error)
        if self.error is None:
            self.error = text
        return False

    def _after_terminate(self, where) -> bool:
        """Fail the call ``where`` if the instance is terminated (FMI's state machine: illegal call
        sequence); True if it failed."""
        if self.terminated:
            self._fail(where, "illegal call sequence: called after terminate (a terminated instance takes only "
                              "getters, getFMUstate/setFMUstate, reset and freeInstance)")
        return self.terminated

    def parameters(self) -> dict:
        """{name: value} of the parameters (variability fixed)."""
        return {name: self.values[name] for name, (_, _, fixed) in self._limits.items() if fixed}

    def _range(self, name) -> str:
        low, high, _ = self._limits[name]
        show = (lambda x: repr(int(x))) if self._setter[name] == "setInteger" else repr
        return (f"{'(-inf' if low == -sys.float_info.max else f'[{show(low)}'}, "
                f"{'inf)' if high == sys.float_info.max else f'{show(high)}]'}")

    # --- setters ----------------------------------------------------------------------------------
    def _set(self, name, value):
        low, high, fixed = self._limits[name]
        if not (self.terminated or fixed and self.initialized or low is not None and not low <= value <= high):
            self.values[name] = value  # a parameter before exitInitializationMode, a Boolean input
            self.explicit.add(name)
            return
        where = self._setter[name]
        if self._after_terminate(where):
            return
        if fixed and self.initialized:
            self._fail(where,
                       f"{name} = {value!r} refused after exitInitializationMode: {name} is a parameter (variability "
                       f"fixed{'' if low is None else ', allowed range ' + self._range(name)}), settable only "
                       f"before; it stays {self.values[name]!r}")
        else:
            self._fail(where, f"{name} = {value!r} is outside its allowed range {self._range(name)}")

    def _set_values(self, where, kind, vrs, values):
        settable, limits, store = self._settable[kind], self._limits, self.values
        for vr, value in zip(vrs, values):
            name = settable.get(vr)
            if name is None:
                self._fail(where, self._wrong_reference(vr, kind))
                continue
            low, high, fixed = limits[name]
            if fixed or low is None or self.terminated or not low <= value <= high:
                self._set(name, value)
            else:
                store[name] = value  # the usual case, at every step: a Real or Integer input's value in range

    def _wrong_reference(self, vr, kind) -> str:
        var = self.vars.get(vr)
        if var is None:
            return f"no variable has the value reference {vr}"
        if not isinstance(var, kind):
            return f"{var.name} (value reference {vr}) is a {type(var).__name__} variable, not a {kind.__name__}"
        return f"{var.name} (value reference {vr}) is an {var.causality.name}: it cannot be set"

    def set_real(self, vrs, values):
        if not self.terminated:  # the usual call, at every step: Real inputs' values in range, stored here
            inputs, store = self._real_inputs, self.values
            for vr, value in zip(vrs, values):
                bounds = inputs.get(vr)
                if bounds is None or not bounds[1] <= value <= bounds[2]:
                    break
                store[bounds[0]] = value
            else:
                return
        if vrs and max(vrs) >> DERIVATIVE_ORDER_SHIFT:  # from the loader's fmi2SetRealInputDerivatives
            self._set_rates(vrs, values)
        else:
            self._set_values("setReal", Real, vrs, values)

    def _set_rates(self, vrs, values):
        where = "setRealInputDerivatives"
        if self._after_terminate(where):
            return
        for tagged, value in zip(vrs, values):
            order, vr = tagged >> DERIVATIVE_ORDER_SHIFT, tagged & ((1 << DERIVATIVE_ORDER_SHIFT) - 1)
            name = self._settable[Real].get(vr)
            if name is None or self._limits[name][2]:
                self._fail(where, self._wrong_reference(vr, Real) if name is None else
                           f"{name} (value reference {vr}) is a parameter: only Real inputs have derivatives")
            elif not math.isfinite(value):
                self._fail(where, f"the derivative of {name} = {value!r} is outside its allowed range (-inf, inf)")
            elif order == 1:
                self.rates[name] = value
            else:
                self.log(f"{where}: the derivative of order {order} of {name} is not used (the inputs are "
                         "interpolated linearly)", Fmi2Status.warning)

    def set_boolean(self, vrs, values):
        self._set_values("setBoolean", Boolean, vrs, values)

    def set_integer(self, vrs, values):
        self._set_values("setInteger", Integer, vrs, values)

    def set_string(self, vrs, values):
        self._set_values("setString", String, vrs, values)

    # --- getters: an unknown reference or another type is an error, not an exception --------------
    def _published(self) -> dict:
        """``values``, the outputs of the last step in it (MechanismSlave publishes them when asked)."""
        return self.values

    def _get_values(self, where, kind, vrs, default):
        names, values, out = self._gettable[kind], self._published(), []
        for vr in vrs:
            name = names.get(vr)
            if name is None:
                self._fail(where, self._wrong_reference(vr, kind))
            out.append(default if name is None else values[name])
        return out

    def get_real(self, vrs):
        names, values, out = self._gettable[Real], self._published(), []
        try:
            for vr in vrs:
                out.append(float(values[names[vr]]))
        except KeyError:
            return [float(x) for x in self._get_values("getReal", Real, vrs, math.nan)]
        return out

    def get_boolean(self, vrs):
        names, values, out = self._gettable[Boolean], self._published(), []
        try:
            for vr in vrs:
                out.append(bool(values[names[vr]]))
        except KeyError:
            return [bool(x) for x in self._get_values("getBoolean", Boolean, vrs, False)]
        return out

    def get_integer(self, vrs):
        return self._get_values("getInteger", Integer, vrs, 0)

    def get_string(self, vrs):
        return self._get_values("getString", String, vrs, "")

    # --- FMI --------------------------------------------------------------------------------------
    def setup_experiment(self, start_time, stop_time=None, tolerance=None):  # pythonfmu < 0.7 passes start_time only
        """The host's start time and tolerance (``_take_tolerance``)."""
        where = "setupExperiment"
        start = 0.0 if start_time is None else float(start_time)
        if self._after_terminate(where):
            return
        if self.initialized:
            self._fail(where, "called after exitInitializationMode: the experiment is already set up")
            return
        if not math.isfinite(start):
            self._fail(where, f"startTime = {start!r} is outside its allowed range (-inf, inf)")
            return
        if stop_time is not None and not start <= stop_time:
            self._fail(where, f"stopTime = {stop_time!r} is outside its allowed range [{start!r}, inf): it is "
                              f"before startTime = {start!r}")
            return
        if tolerance is not None and not 0.0 <= tolerance < math.inf:
            self._fail(where, f"tolerance = {tolerance!r} is outside its allowed range [0, inf)")
            return
        self.t_start = start
        if tolerance and "rtol" in self._limits and "rtol" not in self.explicit:  # 0: none (some hosts say 0)
            self._take_tolerance(float(tolerance))

    def _take_tolerance(self, tolerance):
        """rtol from the host's tolerance: the tighter of it and the FMU's default (a host's loose
        default must not loosen the model), at least rtol's minimum; logged. A tolerance outside rtol's
        allowed range is a warning (the call returns fmi2Warning with the loader)."""
        low, high, _ = self._limits["rtol"]
        default = next(v.start for v in self.variables if v.name == "rtol")
        rtol = max(min(tolerance, default), low)
        if not low <= tolerance <= high:
            self.log(f"setupExperiment: tolerance = {tolerance!r} is outside rtol's allowed range "
                     f"{self._range('rtol')}: rtol = {rtol!r}", Fmi2Status.warning)
        else:
            self.log(f"setupExperiment: rtol = {rtol!r}, the tighter of the host's tolerance {tolerance!r} and the "
                     f"FMU's default {default!r} (set the parameter rtol to choose another)", Fmi2Status.ok)
        self.values["rtol"] = rtol

    def _checked_enter_initialization_mode(self):
        if not self._after_terminate("enterInitializationMode"):
            type(self).enter_initialization_mode(self)

    def _checked_terminate(self):
        if not self._after_terminate("terminate"):
            type(self).terminate(self)
            self.terminated = True

    def _checked_exit_initialization_mode(self):
        where = "exitInitializationMode"
        if self._after_terminate(where):
            return
        try:
            if self.error is not None:
                self._fail(where, f"not initialized, an earlier call failed: {self.error}")
            elif not self.initialized:
                type(self).exit_initialization_mode(self)
        except Exception as exc:  # a bug: pythonfmu would destroy the instance (fmi2Fatal)
            self._fail(where, _internal_error(exc))
        self.initialized = True

    def _checked_do_step(self, current_time, step_size):
        if (self.error is None and self.initialized and not self.terminated and 0.0 < step_size < _INF
                and -_INF < current_time < _INF):
            try:
                return self._unchecked_do_step(current_time, step_size)
            except Exception as exc:  # a bug: pythonfmu would destroy the instance (fmi2Fatal)
                return self._fail(f"doStep at t={current_time!r}", _internal_error(exc))
        where = f"doStep at t={current_time!r}"
        if self._after_terminate(where):
            return False
        if self.error is not None:
            return self._fail(where, f"not stepped, an earlier call failed: {self.error}")
        if not self.initialized:
            return self._fail(where, "called before exitInitializationMode")
        if not math.isfinite(current_time):
            return self._fail(where, f"currentCommunicationPoint = {current_time!r} is outside its allowed range "
                                     "(-inf, inf)")
        return self._fail(where, f"communicationStepSize = {step_size!r} is outside its allowed range (0, inf)")

    def _checked_get_fmu_state(self):
        try:
            return {"slave": type(self)._get_fmu_state(self), "error": self.error, "initialized": self.initialized,
                    "terminated": self.terminated}
        except Exception as exc:
            self._fail("getFMUstate", _internal_error(exc))
            return None

    def _checked_set_fmu_state(self, state):
        try:
            type(self)._set_fmu_state(self, state["slave"])
            self.error, self.initialized, self.terminated = state["error"], state["initialized"], state["terminated"]
        except Exception as exc:
            self._fail("setFMUstate", f"not a state of this FMU ({type(exc).__name__}: {exc})")

    @staticmethod
    def _fmu_state_to_bytes(state) -> bytes:
        return pickle.dumps(state)

    @staticmethod
    def _fmu_state_from_bytes(state: bytes):
        return pickle.loads(state)


class MechanismSlave(VarSlave):
    """Base of the FMUs of hybrid systems (FMI 2.0 co-simulation): ``build`` returns a planar
    mechanism with its initial state; a slave of another HybridSystem overrides ``make_stepper``."""

    interpolates_inputs = True

    inputs: tuple = ()  # names of the input variables, in the drive order of the mechanism
    equations = ("Planar multibody system in absolute coordinates with non-ideal constraints (seed 000 eqs "
                 "2.1-2.9), reduced to the minimal form (eqs 4.1-5.5); reactions and friction solved together "
                 "at every instant (eq. 3.3); stick-slip by the algorithm of seed 000 Sect. 5, several stuck "
                 "contacts by the Gauss principle (seed 001). Inputs are held over each communication step, or "
                 "follow the lines of their first derivatives when the host sets them (canInterpolateInputs); "
                 "inside it an event-driven DOP853/RK45 integrator with error control runs.")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.stepper = None
        self.built_with = None  # the parameters the stepper was built with
        self.publication = None  # publish read from the compiled engine's record row, where it can be
        self.unpublished = None  # the record row of the last step while its outputs are not in values yet

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
        inertia = {v.name: self.values[v.name] for v in self.variables
                   if v.causality == "parameter" and v.unit in ("kg", "kg.m2")}
        if inertia and not any(inertia.values()):  # else M'' (or M) is singular, a message naming no parameter
            self._fail("exitInitializationMode", f"initialization failed: {', '.join(inertia)} = 0: every mass and "
                                                 "moment of inertia is 0, the model has no inertia (allowed: at "
                                                 "least one of them > 0)")
            return
        try:
            self._build_stepper()
            self._log_engine()
        except (ValueError, FrictionJointsError) as exc:  # bad parameters: the call returns fmi2Error
            self._fail("exitInitializationMode", f"initialization failed: {exc}")
            return
        self.values.update(self.publish(self.stepper.outputs))

    def _build_stepper(self):
        """The stepper of the current values."""
        self.stepper = self.make_stepper(self.build(self.values), [self.values[n] for n in self.inputs])
        self.unpublished = None
        self.built_with = self.parameters()
        self.publication = self._publication()

    def _publication(self):
        """``publish`` as a Publication of the compiled engine's record row (a step is then one call of the
        engine and no record dict), or None: the Python engine, or a publish that computes an output."""
        integrator = self.stepper.integrator
        if integrator.engine != "compiled":
            return None
        try:
            return Publication(self.variables, self.publish, self.stepper.system.decode_record,
                               integrator.model.n_record)
        except NotFromRecord:
            return None

    def friction_model(self) -> int:
        """The value of the Integer parameter ``friction_model`` (0, also without one: the exact model; 1-4 a
        bristle law)."""
        return int(self.values.get("friction_model", 0))

    def _log_engine(self):
        """Say which engine runs the model."""
        python = self.stepper.integrator.engine == "python"
        if self.friction_model() > 0 and python:
            self.log("bristle friction runs on the Python engine with LSODA (it has no compiled form, or the "
                     "Python engine was chosen)", Fmi2Status.ok)
            return
        if python:
            self.log(f"Python engine (C engine not built, or model not compiled): {PYTHON_SLOWDOWN} slower than "
                     "the compiled engine", Fmi2Status.warning)
            return
        self.log("compiled engine (C)", Fmi2Status.ok)

    def do_step(self, current_time, step_size):
        """Called initialised, with no earlier failure and a valid step (VarSlave checks those)."""
        values, rates, publication = self.values, self.rates, self.publication
        if rates:
            self.rates = {}  # the derivatives hold for this step only
            rates = [rates.get(n, 0.0) for n in self.inputs]
        inputs = []  # a loop, not a list comprehension: that is a function call of its own, at every step
        for name in self.inputs:
            inputs.append(values[name])
        try:
            if publication is None:
                rec = self.stepper.step(current_time, step_size, inputs, rates or None)
            else:
                row = self.stepper.step_record(current_time, step_size, inputs, rates or None)
        except (ValueError, FrictionJointsError, ArithmeticError) as exc:
            # a wrong communication point, or the model failed inside the step: fmi2Error, not
            # fmi2Discard (a smaller step would fail the same way, see the module's docstring)
            return self._fail(f"doStep at t={current_time!r}", exc)
        if publication is None:
            values.update(self.publish(rec))
        else:
            self.unpublished = row  # its outputs go into values when something reads them (_published)
        return True

    def _published(self) -> dict:
        """``values`` with the outputs of the last step: published from its record row on the first read
        after the step (a host that reads no output at a step does not pay for publishing them). The row is
        the engine's buffer, which only the next step writes."""
        if self.unpublished is not None:
            self.publication.update(self.values, self.unpublished)
            self.unpublished = None
        return self.values

    def _get_fmu_state(self):
        return {"values": dict(self._published()), "rates": dict(self.rates),
                "stepper": None if self.stepper is None else self.stepper.get_state()}

    def _set_fmu_state(self, state):
        """The state's values, parameters included, and its stepper's state; the stepper is built again
        from the state's parameters where they are not the ones it was built with (or there is none yet:
        a fresh or reset instance), so that a state restores the model it was taken from."""
        self.values, self.rates, self.unpublished = dict(state["values"]), dict(state["rates"]), None
        if state["stepper"] is not None:
            if self.stepper is None or self.built_with != self.parameters():
                self._build_stepper()
            self.stepper.set_state(state["stepper"])


class FrictionModelSlave(MechanismSlave):
    """A MechanismSlave whose Integer parameter ``friction_model`` chooses the friction of every joint:
    0 the exact reaction-dependent Coulomb model with stick-slip events (the default), 1-4 a bristle
    law (seed 003: Dahl, LuGre, elasto-plastic, Gonthier; ``planar.BristleSystem``, RODAS on the compiled
    engine) with mu_c and mu_s of each joint taken from its kinetic and static coefficients. Its
    ``variables`` include BRISTLE_PARAMETERS."""

    #: friction_model and the bristle parameters, one value for every joint (per rad in the revolute joints,
    #: per m in the prismatic ones); mu_c and mu_s of a joint are its kinetic and static coefficients
    BRISTLE_PARAMETERS = (
        Var("friction_model", "parameter", "", "friction of the joints: 0 exact Coulomb stick-slip (events), bristle "
            "laws 1 Dahl, 2 LuGre, 3 elasto-plastic, 4 Gonthier (seed 003; stiff: RODAS, LSODA on the Python engine)",
            0, 0, 4, kind="Integer"),
        Var("sigma0", "parameter", "", "bristle stiffness per unit load (1/rad in the revolute joints, 1/m in the "
            "sliding ones; friction_model > 0)", MODEL_PARAMETERS["sigma0"], 0.0),
        Var("sigma1", "parameter", "", "bristle damping per unit load (s/rad, s/m; friction_model > 0)",
            MODEL_PARAMETERS["sigma1"], 0.0),
        Var("sigma2", "parameter", "", "viscous friction (N.m.s/rad, N.s/m; friction_model > 0)",
            MODEL_PARAMETERS["sigma2"], 0.0),
        Var("v_s", "parameter", "", "Stribeck velocity (rad/s, m/s; friction_model 2-4)", MODEL_PARAMETERS["v_s"], 0.0),
        Var("delta", "parameter", "1", "Stribeck exponent (friction_model 2-4)", MODEL_PARAMETERS["delta"], 0.0),
        Var("z_ba_ratio", "parameter", "1", "elasto-plastic breakaway deflection z_ba sigma0 / mu_c (friction_model "
            "3)", MODEL_PARAMETERS["z_ba_ratio"], 0.0, 1.0))
    equations = MechanismSlave.equations + (
        " With friction_model 1-4 every joint has a bristle law instead (seed 003: Dahl, LuGre, elasto-plastic, "
        "Gonthier): friction = N (&sigma;<sub>0</sub> z + &sigma;<sub>1</sub> z') + &sigma;<sub>2</sub> v with the "
        "joint's load N from the same coupled solve (eq. 3.3), one bristle deflection z per joint; no stick events, "
        "the stiff smooth system integrated by RODAS (LSODA on the Python engine).")

    def make_stepper(self, built, inputs0):
        """The exact model's stepper (friction_model 0), or the bristle system's, each on the environment's
        engine (``engine_from_environment``)."""
        model = self.friction_model()
        if model == 0:
            return super().make_stepper(built, inputs0)
        make_system, y0_of = self.bristle_system(built, model, self.values)
        return Stepper(make_system, y0_of, inputs0, built[3], self.t_start, engine_from_environment())

    @classmethod
    def bristle_system(cls, built, model: int, values: dict):
        """(make_system, y0_of): the BristleSystem of the held input signals of the mechanism of ``built``
        (``build``'s) with the bristle law ``model`` (1-4) in every joint and the bristle parameters of
        ``values``, and its initial state (q0, u0 of ``built``, the deflections 0)."""
        mechanism, q0, u0, _ = built
        from ..planar import BristleSystem, contact_laws  # here: the slaves of other systems import no planar model

        laws = contact_laws(mechanism, model, own=cls.joint_laws(mechanism, values), **cls.bristle_options(values))
        return (lambda inputs: BristleSystem(mechanism, laws, inputs)), (lambda system: system.initial_state(q0, u0))

    @classmethod
    def joint_laws(cls, mechanism, values: dict):
        """Per frictional contact a bristle law of its own that takes the place of the law friction_model, or
        None (``planar.contact_laws``' own); None: none has one (a mechanism file's FMU has its joints')."""
        return None

    @classmethod
    def bristle_options(cls, values: dict) -> dict:
        """The bristle parameters (BRISTLE_PARAMETERS but friction_model) by name, from the parameter values."""
        return {var.name: values[var.name] for var in cls.BRISTLE_PARAMETERS[1:]}


class SystemSlave(MechanismSlave):
    """Base of the FMUs of other hybrid systems: ``build`` returns (make_system, y0_of, rtol) as
    taken by ``stepping.Stepper`` (make_system: function of the held input signals)."""

    def make_stepper(self, built, inputs0):
        """On the environment's choice of engine (``engine_from_environment``; "auto": the Python engine for a
        system without a compiled form)."""
        make_system, y0_of, rtol = built
        return Stepper(make_system, y0_of, inputs0, rtol, self.t_start, engine_from_environment())
