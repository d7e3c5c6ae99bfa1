"""Mechanism files: a planar mechanism with friction written in TOML, read into a ``Mechanism``.

A file names its bodies, joints (revolute, prismatic, pin-in-slot; to the ground or between
bodies, with their geometry and friction laws), drives (each an input: a torque or a force on a
body), gravity, the joint coordinates and the independent ones, an initial configuration and named
parameters; any number may be an expression of the parameters (``"-a1"``, ``"m1 * a1**2 / 3"``).
The format is described in docs/mechanism-files.md and shown by examples/mechanisms/*.toml.

``read_file(path)`` parses and validates a file; ``MechanismFile.build(values)`` makes the
``Mechanism`` and its initial state for parameter values (the file's by default);
``MechanismFile.bristle_laws(mechanism, values)`` the bristle laws a joint names for itself (its key
``bristle``; ``bristle_t``, ``bristle_r`` of a pin in a slot), which take the place of the file-wide
bristle law in those contacts. Every problem is
collected and raised at once as one ValueError, each naming its key path and, where the text shows
it, its line: ``joints[2].body_j = "crank2" (line 41): no body "crank2" (bodies: ground, crank, rod)``.
Indices in key paths count from 0, as the entries appear in the file.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path

import numpy as np

from ..errors import FrictionJointsError
from ..friction import Coulomb, Dahl, ElastoPlastic, Exponential, Gonthier, LuGre, Stribeck, Tanh
from ..planar import Body, BodyLoad, MinimalForm, PinInSlot, PlanarModel, Prismatic, Revolute
from .base import Mechanism
from .expressions import CONSTANTS, FUNCTIONS, evaluate

LAWS = {"coulomb": Coulomb, "stribeck": Stribeck, "exponential": Exponential, "tanh": Tanh}
#: the bristle laws a joint may name (friction.bristle); mu_c and mu_s come from the joint's friction law
BRISTLE_LAWS = {"dahl": Dahl, "lugre": LuGre, "elasto-plastic": ElastoPlastic, "gonthier": Gonthier}
#: a joint's key of its own bristle law -> the key of the friction law it replaces
BRISTLE_KEYS = {"bristle": "friction", "bristle_t": "friction_t", "bristle_r": "friction_r"}
JOINTS = {"revolute": Revolute, "prismatic": Prismatic, "pin-in-slot": PinInSlot}
DRIVE_UNITS = {"torque": "N.m", "force": "N"}
GROUND = "ground"
#: names a parameter may not take: the time of input expressions, constants, functions and the
#: FMU's own parameters (its tolerance; the friction model and the bristle parameters of
#: fmi.slave.FrictionModelSlave)
FMU_PARAMETERS = {"rtol", "friction_model", "sigma0", "sigma1", "sigma2", "v_s", "delta", "z_ba_ratio"}
RESERVED = {"t", *FMU_PARAMETERS, *CONSTANTS, *FUNCTIONS}

KEYS = {
    "": {"name", "description", "gravity", "dof", "independent", "parameters", "bodies", "joints", "drives",
         "initial", "experiment"},
    "parameters.*": {"value", "unit", "description", "min", "max"},
    "bodies": {"name", "m", "J", "force", "moment"},
    "revolute": {"name", "type", "body_i", "body_j", "p_i", "p_j", "friction", "bristle", "r", "coordinate"},
    "prismatic": {"name", "type", "body_i", "body_j", "p_i", "p_j", "e_j", "theta_0", "friction", "bristle",
                  "edge_length", "coordinate", "axis"},
    "pin-in-slot": {"name", "type", "body_i", "body_j", "p_i", "p_j", "e_j", "friction_t", "friction_r", "bristle_t",
                    "bristle_r", "r"},
    "drives": {"name", "body", "kind", "direction", "description"},
    "initial": {"q", "u"},
    "experiment": {"stop_time", "step_size", "outputs", "inputs", "description"},
}


@dataclass(frozen=True)
class Parameter:
    """A named parameter of a file (an FMU parameter): value, SI unit ('' none), bounds (None: open)."""

    name: str
    value: float
    unit: str = ""
    description: str = ""
    min: float | None = None
    max: float | None = None


@dataclass(frozen=True)
class Drive:
    """An input of the mechanism: its name, 'torque' or 'force', unit (N.m or N), body index (1-based)."""

    name: str
    kind: str
    unit: str
    body: int
    description: str


@dataclass(frozen=True)
class JointLaw:
    """A joint's own bristle law: joint (its index, file order), joint_name, key ("bristle"; "bristle_t" or
    "bristle_r" of a pin in a slot), law (a name of BRISTLE_LAWS), slot (the joint's free coordinate it acts
    on: 0, 1 for the pin of a pin-in-slot), slip ("rad" or "m": the unit of its slip) and values {parameter:
    value} of every parameter of the law but mu_c, mu_s (the file's numbers, the law's defaults where not
    given; sigma0 per rad or per m, sigma1 s/rad or s/m, sigma2 N.m.s/rad or N.s/m, v_s rad/s or m/s)."""

    joint: int
    joint_name: str
    key: str
    law: str
    slot: int
    slip: str
    values: dict = field(default_factory=dict)

    def parameter(self, name: str) -> str:
        """The name of the law's parameter ``name`` as a parameter of the file (of its FMU): joint.key.name."""
        return f"{self.joint_name}.{self.key}.{name}"

    @property
    def parameters(self) -> tuple:
        """The parameter names of the law (joint.key.name), in the order of ``values``."""
        return tuple(self.parameter(name) for name in self.values)


def bristle_parameters(law: str) -> dict:
    """{name: default (None: required)} of the parameters of a bristle law of BRISTLE_LAWS that a joint
    gives (those but mu_c and mu_s, which come from the joint's friction law)."""
    return {f.name: (None if f.default is MISSING else f.default)
            for f in fields(BRISTLE_LAWS[law]) if f.name not in ("mu_c", "mu_s")}


@dataclass(frozen=True)
class Built:
    """A file's mechanism for one set of parameter values, with its initial state.

    mechanism: the Mechanism (model, minimal form, partition, q names); q0: (k1,) assembled joint
    coordinates; u0: (k,) independent velocities; residual: |Phi2'(q0)| after assembly (m or rad);
    guess_residual: the same at the file's guess."""

    mechanism: Mechanism
    q0: np.ndarray
    u0: np.ndarray
    residual: float
    guess_residual: float


class MechanismFile:
    """A parsed mechanism file. name, description: strings; parameters: tuple of Parameter; drives:
    tuple of Drive; body_names: ('ground', then the bodies); joint_names, joint_types: one per joint;
    joint_laws: tuple of JointLaw, the joints' own bristle laws; experiment: the [experiment] table (may be
    empty); source: where it was read from."""

    def __init__(self, data: dict, text: str = "", source: str = "<mechanism file>"):
        self.data, self.text, self.source = data, text, source
        problems = []
        self._check_keys(problems)
        self.name = str(data.get("name", Path(source).stem if source.endswith(".toml") else "Mechanism"))
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.name):
            problems.append(self.at("name", self.name, "must be an identifier (letters, digits, _), the FMU's "
                                                         "model name"))
        self.description = str(data.get("description", ""))
        self.parameters = self._parameters(problems)
        self.body_names = (GROUND, *(str(b.get("name", f"body{k + 1}")) for k, b in enumerate(self.tables("bodies"))))
        self.joint_names = tuple(str(j.get("name", f"joint{k + 1}")) for k, j in enumerate(self.tables("joints")))
        self.joint_types = tuple(str(j.get("type", "")) for j in self.tables("joints"))
        for kind, names in (("bodies", self.body_names[1:]), ("joints", self.joint_names)):
            for k, name in enumerate(names):
                if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name == GROUND or names.index(name) != k:
                    problems.append(self.at(f"{kind}[{k}].name", name, "must be an identifier (letters, digits, _), "
                                             f"not {GROUND!r}, and differ from the other {kind}' names"))
        self.drives = self._drives(problems)
        self.joint_laws = self._joint_laws(problems)
        self.experiment = data.get("experiment", {})
        for key in ("stop_time", "step_size"):
            v = self.experiment.get(key) if isinstance(self.experiment, dict) else None
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < math.inf):
                problems.append(self.at(f"experiment.{key}", v, "must be a positive number of seconds"))
        if problems:
            raise ValueError(self._report(problems))
        self.bristle_laws(self.build().mechanism)  # validates the mechanism and the joints' laws with the file's values

    # --- reporting --------------------------------------------------------------------------------
    def _line(self, path: str) -> int | None:
        """The line of a key path in the text, found by searching (tomllib gives no positions)."""
        lines, start = self.text.splitlines(), 0
        for part in path.split("."):
            m = re.fullmatch(r"(\w[\w-]*)\[(\d+)\]", part)
            if m:  # the (index+1)-th [[table]] header, or the key of an inline array
                headers = [i for i, line in enumerate(lines) if re.match(rf"\s*\[\[\s*{m[1]}\s*\]\]", line)]
                if len(headers) > int(m[2]) and headers[int(m[2])] >= start:
                    start = headers[int(m[2])]
                    continue
                part = m[1]
            header = [i for i, line in enumerate(lines) if i >= start and re.match(rf"\s*\[\s*{re.escape(part)}\s*\]", line)]
            keyed = [i for i, line in enumerate(lines) if i >= start and re.search(rf"(^|[{{,\s]){re.escape(part)}\s*=", line)]
            found = min(header + keyed, default=None)
            if found is None:
                return None
            start = found
        return start + 1

    def at(self, path: str, value, message: str) -> str:
        """A problem at a key path of the file, in its messages' form: "path = value (line n): message" (value
        None: not shown; the line where the text has the key)."""
        line = self._line(path)
        shown = "" if value is None else f" = {value!r}".replace("'", '"')
        return f"{path}{shown}{'' if line is None else f' (line {line})'}: {message}"

    def _report(self, problems) -> str:
        return f"{self.source}: " + ("; ".join(problems) if len(problems) == 1 else
                                     f"{len(problems)} problems:\n  " + "\n  ".join(problems))

    def tables(self, key) -> list:
        """The file's array of tables under key ("bodies", "joints", "drives"): [] where it is absent or not one."""
        value = self.data.get(key, [])
        return value if isinstance(value, list) and all(isinstance(v, dict) for v in value) else []

    def _parameter_table(self) -> dict:
        table = self.data.get("parameters", {})
        return table if isinstance(table, dict) else {}

    def _check_keys(self, problems):
        def check(table, allowed, path):
            if not isinstance(table, dict):
                problems.append(self.at(path, None, "must be a table"))
                return
            for key in table:
                if key not in allowed:
                    problems.append(self.at(f"{path}.{key}" if path else key, None,
                                             f"unknown key (allowed: {', '.join(sorted(allowed))})"))

        check(self.data, KEYS[""], "")
        for key in ("initial", "experiment"):
            if key in self.data:
                check(self.data[key], KEYS[key], key)
        if not isinstance(self.data.get("parameters", {}), dict):
            problems.append(self.at("parameters", None, "must be a table ([parameters])"))
        for name, spec in self._parameter_table().items():
            if isinstance(spec, dict):
                check(spec, KEYS["parameters.*"], f"parameters.{name}")
        for key in ("bodies", "joints", "drives"):
            if key in self.data and not (isinstance(self.data[key], list)
                                         and all(isinstance(v, dict) for v in self.data[key])):
                problems.append(self.at(key, None, f"must be an array of tables ([[{key}]])"))
        if not self.tables("bodies"):
            problems.append(self.at("bodies", None, "the file must define at least one body ([[bodies]])"))
        for k, body in enumerate(self.tables("bodies")):
            check(body, KEYS["bodies"], f"bodies[{k}]")
        for k, joint in enumerate(self.tables("joints")):
            kind = joint.get("type")
            if kind not in JOINTS:
                problems.append(self.at(f"joints[{k}].type", kind, f"must be one of {', '.join(JOINTS)}"))
            else:
                check(joint, KEYS[kind], f"joints[{k}]")
        for k, drive in enumerate(self.tables("drives")):
            check(drive, KEYS["drives"], f"drives[{k}]")

    # --- parts read once ----------------------------------------------------------------------------
    def _parameters(self, problems) -> tuple:
        out = []
        for name, spec in self._parameter_table().items():
            path = f"parameters.{name}"
            spec = spec if isinstance(spec, dict) else {"value": spec}
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in RESERVED:
                problems.append(self.at(path, None, "a parameter's name must be an identifier other than "
                                                     f"{', '.join(sorted(RESERVED))}"))
                continue
            values = {}
            for key in ("value", "min", "max"):
                v = spec.get(key)
                if key == "value" or v is not None:
                    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                        problems.append(self.at(f"{path}.{key}", v, "must be a finite number"))
                        v = None
                values[key] = None if v is None else float(v)
            low, high, value = values.get("min"), values.get("max"), values["value"]
            if value is not None and ((low is not None and value < low) or (high is not None and value > high)):
                problems.append(self.at(f"{path}.value", value, f"is outside its allowed range "
                                         f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"))
            unit = str(spec.get("unit", ""))
            out.append(Parameter(name, value if value is not None else math.nan, unit,
                                 str(spec.get("description", f"parameter {name} of the mechanism file")), low, high))
        return tuple(out)

    def _body(self, path, ref, problems, ground=True) -> int | None:
        """The index of a body reference (name, or index with 0 the ground)."""
        names = self.body_names if ground else self.body_names[1:]
        if isinstance(ref, str) and ref in self.body_names and (ground or ref != GROUND):
            return self.body_names.index(ref)
        if isinstance(ref, int) and not isinstance(ref, bool) and (0 if ground else 1) <= ref < len(self.body_names):
            return ref
        problems.append(self.at(path, ref, f"no body {ref!r} (bodies: {', '.join(names)})".replace("'", '"')))
        return None

    def _drives(self, problems) -> tuple:
        out = []
        for k, d in enumerate(self.tables("drives")):
            path = f"drives[{k}]"
            kind = d.get("kind")
            if kind not in DRIVE_UNITS:
                problems.append(self.at(f"{path}.kind", kind, "must be \"torque\" or \"force\""))
                continue
            name = str(d.get("name", f"input{k + 1}"))
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in RESERVED:
                problems.append(self.at(f"{path}.name", name, "must be an identifier (the FMU input's name)"))
            body = self._body(f"{path}.body", d.get("body"), problems, ground=False)
            if body is not None:
                text = f"drive {kind} on {self.body_names[body]}" + (" (at its centre of mass)" if kind == "force" else "")
                out.append(Drive(name, kind, DRIVE_UNITS[kind], body, str(d.get("description", text))))
        names = [d.name for d in out] + [p.name for p in self.parameters]
        for dup in sorted({n for n in names if names.count(n) > 1}):
            problems.append(self.at("drives", None, f"the name {dup!r} is used twice (inputs and parameters "
                                                     "need names of their own)"))
        return tuple(out)

    def _joint_laws(self, problems) -> tuple:
        """The JointLaw of each bristle key of the joints (BRISTLE_KEYS; one the joint's type does not have is
        an unknown key)."""
        out = []
        for k, (name, joint) in enumerate(zip(self.joint_names, self.tables("joints"))):
            for key in BRISTLE_KEYS:
                if key in joint and key in KEYS.get(joint.get("type"), ()):
                    out.append(self._joint_law(k, name, joint, key, problems))
        return tuple(law for law in out if law is not None)

    def _joint_law(self, k, name, joint, key, problems) -> JointLaw | None:
        """The JointLaw of the table {law = name, parameter = number, ...} at joints[k].key (its numbers the
        start values of its FMU parameters, JointLaw.parameter), None if its law is unknown."""
        path, spec, friction = f"joints[{k}].{key}", joint[key], BRISTLE_KEYS[key]
        law = spec.get("law") if isinstance(spec, dict) else None
        if law not in BRISTLE_LAWS:
            problems.append(self.at(f"{path}.law" if isinstance(spec, dict) else path, law,
                                     f"joint {name}: must be a table {{law = ..., sigma0 = ...}} with law one of "
                                     f"{', '.join(BRISTLE_LAWS)}"))
            return None
        if joint.get(friction) is None:
            problems.append(self.at(path, None, f"joint {name} has no {friction} law: its bristle law takes mu_c and "
                                                 "mu_s from it"))
        defaults, values = bristle_parameters(law), {}
        for extra in sorted(set(spec) - set(defaults) - {"law"}):
            problems.append(self.at(f"{path}.{extra}", None, f"joint {name}: unknown parameter of the {law} law (it "
                                     f"has {', '.join(defaults)}; mu_c and mu_s come from its {friction} law)"))
        for parameter, default in defaults.items():
            value = spec.get(parameter, default)
            if value is None:
                required = ", ".join(n for n, v in defaults.items() if v is None)
                problems.append(self.at(f"{path}.{parameter}", None, f"is missing: joint {name}'s {law} law needs "
                                                                     f"{required}"))
            elif isinstance(value, bool) or not isinstance(value, (int, float)):
                problems.append(self.at(f"{path}.{parameter}", value, f"joint {name}: must be a number (the start "
                                         f"value of the parameter {name}.{key}.{parameter})"))
            else:
                values[parameter] = float(value)
        slip = "m" if key == "bristle_t" or joint["type"] == "prismatic" else "rad"
        return JointLaw(k, name, key, law, int(key == "bristle_r"), slip, values)

    def error(self, path: str, value, message: str) -> ValueError:
        """A ValueError on one key of the file, in the form of the file's other problems."""
        return ValueError(self._report([self.at(path, value, message)]))

    def experiment_inputs(self, values: dict | None = None) -> dict:
        """{drive name: function of t (s)} of the drives listed in [experiment] inputs (expressions of
        t and the parameters; a drive not listed stays 0)."""
        values = {**self.default_values(), **(values or {})}
        table = self.experiment.get("inputs", {})
        if not isinstance(table, dict):
            raise self.error("experiment.inputs", None, "must be a table {drive = expression of t}")
        names = [d.name for d in self.drives]
        problems = [self.at(f"experiment.inputs.{n}", None, f"no drive {n!r} (drives: {', '.join(names) or 'none'})")
                    for n in table if n not in names]
        for n, text in table.items():
            try:
                evaluate(text, {**values, "t": 0.0})
            except ValueError as exc:
                problems.append(self.at(f"experiment.inputs.{n}", text, str(exc)))
        if problems:
            raise ValueError(self._report(problems))
        return {n: (lambda t, text=table[n]: evaluate(text, {**values, "t": float(t)})) for n in names if n in table}

    # --- the mechanism for parameter values --------------------------------------------------------
    def default_values(self) -> dict:
        return {p.name: p.value for p in self.parameters}

    def law_values(self) -> dict:
        """{JointLaw.parameter name: the file's value} of the joints' own bristle laws."""
        return {law.parameter(name): value for law in self.joint_laws for name, value in law.values.items()}

    def bristle_laws(self, mechanism, values: dict | None = None) -> tuple:
        """Per frictional contact of the file's ``mechanism`` (``build``'s; contacts in the order of the free
        coordinates, as ``planar.contact_laws`` takes them), the bristle law its joint names for it (the values
        of its parameters by their names ``JointLaw.parameter`` from ``values``, else the file's), None where
        the file-wide law holds. mu_c and mu_s are the kinetic coefficient at high speed and the static one of
        the contact's friction law. Raises ValueError naming the joint, the parameter and its allowed range."""
        values = {**self.law_values(), **(values or {})}
        own = {(law.joint, law.slot): law for law in self.joint_laws}
        laws, problems = [], []
        for k, joint in enumerate(mechanism.model.joints):
            for slot, exact in enumerate(joint.friction_laws()):
                if exact is not None:
                    law = own.get((k, slot))
                    laws.append(None if law is None else self._bristle_law(law, exact, values, problems))
        if problems:
            raise ValueError(self._report(problems))
        return tuple(laws)

    def _bristle_law(self, law: JointLaw, exact, values: dict, problems):
        kind = BRISTLE_LAWS[law.law]
        coefficients = dict(mu_c=float(exact.coefficient(np.inf)), mu_s=exact.mu_s)
        coefficients = {name: value for name, value in coefficients.items() if name in kind.__dataclass_fields__}
        try:
            return kind(**{name: values[law.parameter(name)] for name in law.values}, **coefficients)
        except ValueError as exc:  # the law's message, its parameters named as the file's
            named = re.sub(rf"\b({'|'.join(law.values)})=", lambda m: f"{law.parameter(m[1])}=", str(exc))
            if re.search(r"\bmu_[cs]=", named):
                named += " (mu_c and mu_s: the kinetic and static coefficients of its friction law)"
            problems.append(self.at(f"joints[{law.joint}].{law.key}", None, f"joint {law.joint_name}'s {law.law} law: "
                                                                            f"{named}"))
            return None

    def build(self, values: dict | None = None) -> Built:
        """The mechanism and its initial state for parameter values ({name: float}, default the file's).
        Raises ValueError listing every problem with its key path."""
        values = {**self.default_values(), **(values or {})}
        problems = []

        def num(path, value, default=None):
            if value is None:
                if default is None:
                    problems.append(self.at(path, None, "is missing"))
                    return math.nan
                return default
            try:
                return evaluate(value, values)
            except ValueError as exc:
                problems.append(self.at(path, value, str(exc)))
                return math.nan

        def vec(path, value, default=None):
            if value is None and default is not None:
                return default
            if not isinstance(value, list) or len(value) != 2:
                problems.append(self.at(path, value, "must be a list of two numbers [x, y]"))
                return (math.nan, math.nan)
            return tuple(num(f"{path}[{c}]", v) for c, v in enumerate(value))

        def attempt(path, make):
            try:
                return make()
            except ValueError as exc:
                problems.append(self.at(path, None, str(exc)))
                return None

        bodies = []
        for k, b in enumerate(self.tables("bodies")):
            path = f"bodies[{k}]"
            args = (self.body_names[k + 1], num(f"{path}.m", b.get("m")), num(f"{path}.J", b.get("J"), 0.0),
                    vec(f"{path}.force", b.get("force"), (0.0, 0.0)), num(f"{path}.moment", b.get("moment"), 0.0))
            bodies.append(attempt(path, lambda: Body(*args)))
        joints = []
        for k, j in enumerate(self.tables("joints")):
            joints.append(self._joint(k, j, num, vec, attempt, problems))
        drives = []
        for d, spec in zip(self.drives, self.tables("drives")):
            if d.kind == "torque":
                drives.append(BodyLoad(d.body, (0.0, 0.0, 1.0)))
            else:
                e = vec(f"drives[{self.drives.index(d)}].direction", spec.get("direction"))
                norm = math.hypot(*e)
                if not norm > 0.0:
                    problems.append(self.at(f"drives[{self.drives.index(d)}].direction", spec.get("direction"),
                                             "must be a non-zero direction"))
                    continue
                drives.append(BodyLoad(d.body, (e[0] / norm, e[1] / norm, 0.0)))
        gravity = vec("gravity", self.data.get("gravity"), (0.0, 0.0))
        if problems:
            raise ValueError(self._report(problems))
        model = attempt("joints", lambda: PlanarModel(bodies, joints, drives, gravity))
        tree, axes, q_names = self._tree(joints, problems)
        if problems:
            raise ValueError(self._report(problems))
        minimal = attempt("joints", lambda: MinimalForm(model, tree, axes))
        if problems:
            raise ValueError(self._report(problems))
        return self._assemble(model, minimal, q_names, num, problems)

    def _law(self, path, spec, num, attempt, problems):
        """The friction law of a table {law = "coulomb", mu_s = ..., mu_k = ...}, None if absent."""
        if spec is None:
            return None
        law = spec.get("law") if isinstance(spec, dict) else spec
        if law not in LAWS:
            problems.append(self.at(f"{path}.law" if isinstance(spec, dict) else path, law,
                                     f"must be one of {', '.join(LAWS)}"))
            return None
        fields = list(LAWS[law].__dataclass_fields__)
        for key in sorted(set(spec) - set(fields) - {"law"}):
            problems.append(self.at(f"{path}.{key}", None, f"unknown coefficient of the {law} law (it has "
                                                            f"{', '.join(fields)})"))
        kwargs = {key: num(f"{path}.{key}", v) for key, v in spec.items() if key in fields}
        return attempt(path, lambda: LAWS[law](**kwargs))

    def _joint(self, k, j, num, vec, attempt, problems):
        path = f"joints[{k}]"
        kind = j["type"]
        body_i = self._body(f"{path}.body_i", j.get("body_i"), problems, ground=False)
        body_j = self._body(f"{path}.body_j", j.get("body_j"), problems)
        p_i = vec(f"{path}.p_i", j.get("p_i"), (0.0, 0.0))
        p_j = vec(f"{path}.p_j", j.get("p_j"), (0.0, 0.0))
        if body_i is None or body_j is None:
            return None
        if kind == "revolute":
            law = self._law(f"{path}.friction", j.get("friction"), num, attempt, problems)
            r = num(f"{path}.r", j.get("r"), 0.0)
            return attempt(path, lambda: Revolute(body_i, body_j, p_i, p_j, law, r))
        e_j = vec(f"{path}.e_j", j.get("e_j"), (1.0, 0.0))
        if kind == "prismatic":
            law = self._law(f"{path}.friction", j.get("friction"), num, attempt, problems)
            edge = None if j.get("edge_length") is None else num(f"{path}.edge_length", j["edge_length"])
            theta_0 = num(f"{path}.theta_0", j.get("theta_0"), 0.0)
            return attempt(path, lambda: Prismatic(body_i, body_j, p_i, p_j, e_j, theta_0, law, edge))
        law_t = self._law(f"{path}.friction_t", j.get("friction_t"), num, attempt, problems)
        law_r = self._law(f"{path}.friction_r", j.get("friction_r"), num, attempt, problems)
        r = num(f"{path}.r", j.get("r"), 0.0)
        return attempt(path, lambda: PinInSlot(body_i, body_j, p_i, p_j, e_j, law_t, law_r, r))

    def _tree(self, joints, problems):
        """(tree joint indices in placing order, their coordinate axes, their q names): the joints
        with a ``coordinate`` (or, if none has one, a spanning tree of the revolute and prismatic
        joints in file order), each placed once its body_j is."""
        specs = self.tables("joints")
        named = [k for k, j in enumerate(specs) if "coordinate" in j]
        candidates = named or [k for k, j in enumerate(specs) if j["type"] != "pin-in-slot"]
        order, placed, pending = [], {0}, list(candidates)
        progress = True
        while pending and progress:
            progress = False
            for k in list(pending):
                if joints[k].body_i in placed and not named:
                    pending.remove(k)  # a closing joint of the automatic tree
                elif joints[k].body_j in placed and joints[k].body_i not in placed:
                    order.append(k)
                    placed.add(joints[k].body_i)
                    pending.remove(k)
                    progress = True
        for k in pending if named else ():
            reason = (f"its body_i {self.body_names[joints[k].body_i]!r} is placed by another joint coordinate"
                      if joints[k].body_i in placed else
                      f"its body_j {self.body_names[joints[k].body_j]!r} is placed by no joint coordinate (a joint "
                      "coordinate places body_i from the ground or a body placed before it)")
            problems.append(self.at(f"joints[{k}].coordinate", specs[k]["coordinate"], reason))
        missing = [n for b, n in enumerate(self.body_names) if b and b not in placed]
        if missing:
            problems.append(self.at("joints", None, f"no joint coordinate places the bodies {', '.join(missing)}: "
                                     "every body needs one tree joint (a revolute or prismatic joint with a "
                                     "coordinate) that attaches it to the ground or to a body placed before it"))
        axes, names = [], []
        for k in order:
            j = specs[k]
            if j["type"] == "revolute":
                axis = "theta"
            else:
                e = joints[k].e_j
                axis = j.get("axis", "xy"[int(abs(e[1]) > abs(e[0]))])
                if axis not in ("x", "y"):
                    problems.append(self.at(f"joints[{k}].axis", axis, "must be \"x\" or \"y\""))
            axes.append(axis)
            default = f"{'th' if axis == 'theta' else axis}_{self.body_names[joints[k].body_i]}"
            names.append(str(j.get("coordinate", default)))
        for dup in sorted({n for n in names if names.count(n) > 1}):
            problems.append(self.at("joints", None, f"the coordinate name {dup!r} is used twice"))
        return tuple(order), tuple(axes), tuple(names)

    def _assemble(self, model, minimal, q_names, num, problems) -> Built:
        """Partition, q0 on the closing constraints and u0, from [initial] and ``independent``."""
        initial = self.data.get("initial", {})
        guess_q, guess_u = initial.get("q", {}), initial.get("u", {})
        for key, table in (("initial.q", guess_q), ("initial.u", guess_u)):
            for name in table if isinstance(table, dict) else ():
                if name not in q_names:
                    problems.append(self.at(f"{key}.{name}", None, f"no coordinate {name!r} (coordinates: "
                                                                   f"{', '.join(q_names)})"))
        guess = np.array([num(f"initial.q.{n}", guess_q.get(n), 0.0) for n in q_names])
        k, k1, m2 = minimal.k, minimal.k1, minimal.m2
        dof = self.data.get("dof")
        if dof is not None and dof != k:
            problems.append(self.at("dof", dof, f"the joints give k = k1 - m2 = {k1} joint coordinates - {m2} "
                                                 f"closing constraints = {k} degrees of freedom"))
        independent = self.data.get("independent", "auto")
        if problems:
            raise ValueError(self._report(problems))
        if independent == "auto":
            partition = minimal.choose_partition(guess)
        elif (isinstance(independent, list) and len(independent) == k
              and all(n in q_names for n in independent) and len(set(independent)) == k):
            partition = tuple(q_names.index(n) for n in independent)
        else:
            raise ValueError(self._report([self.at(
                "independent", independent, f"must be \"auto\" or a list of {k} distinct coordinates out of "
                f"{', '.join(q_names)} (the mechanism has {k} degree{'s' if k != 1 else ''} of freedom: "
                f"{k1} joint coordinates - {m2} closing constraints)")]))
        for name in guess_u if isinstance(guess_u, dict) else ():
            if name in q_names and q_names.index(name) not in partition:
                problems.append(self.at(f"initial.u.{name}", None, "is a dependent coordinate: give the velocities "
                                         f"of the independent ones ({', '.join(q_names[i] for i in partition)})"))
        u0 = np.array([num(f"initial.u.{q_names[i]}", guess_u.get(q_names[i]), 0.0) for i in partition])
        if problems:
            raise ValueError(self._report(problems))

        def placed(q_u):
            q = guess.copy()
            q[list(partition)] = q_u
            return q

        mechanism = Mechanism(self.name, model, minimal, partition, q_names, placed)
        guess_residual = float(np.linalg.norm(minimal.closure(guess))) if m2 else 0.0
        try:
            q0 = mechanism.assemble(guess[list(partition)])
            minimal.velocities(q0, u0, partition)  # a dead centre at q0 fails here
        except (FrictionJointsError, ValueError) as exc:
            raise ValueError(self._report([self.at(
                "initial.q", None, f"the mechanism cannot be assembled from this guess with "
                f"{', '.join(q_names[i] for i in partition)} held: {exc}")])) from None
        try:  # the reduced mass matrix and the reactions at the start (a massless body left free fails)
            minimal.evaluate(q0, u0, np.zeros(model.n_drives), partition)
        except FrictionJointsError as exc:
            raise ValueError(self._report([self.at(
                "bodies", None, f"the equations of motion cannot be solved at the initial state: {exc}")])) from None
        residual = float(np.linalg.norm(minimal.closure(q0))) if m2 else 0.0
        return Built(mechanism, q0, u0, residual, guess_residual)


def read_file(path) -> MechanismFile:
    """Parse and validate a mechanism file (TOML). Raises ValueError naming the file, the key paths
    and lines of every problem (a TOML syntax error with its line and column)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    return read_text(text, str(path))


def read_text(text: str, source: str = "<mechanism file>") -> MechanismFile:
    """Parse and validate the text of a mechanism file (see ``read_file``)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{source}: not valid TOML: {exc}") from None
    return MechanismFile(data, text, source)
