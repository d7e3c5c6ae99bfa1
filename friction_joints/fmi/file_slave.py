"""The FMU of a mechanism file: its variables declared from the file, its mechanism built from it.

A slave script names the file (bundled beside it in the FMU's resources)::

    from pathlib import Path
    from friction_joints.fmi import file_slave

    class FourBar(file_slave.FileSlave):
        mechanism_file = Path(__file__).with_name("FourBar.toml")

Variables (units SI, descriptions from the file's names):

* inputs: one per drive, named as the drive (N.m for a torque, N for a force);
* parameters: the file's [parameters] (unit, bounds, description), ``rtol``, ``friction_model`` and the
  file-wide bristle parameters, and the parameters of the joints' own bristle laws, named
  ``<joint>.<key>.<parameter>`` (``O.bristle.sigma0``; ``JointLaw.parameter``);
* outputs: ``q[i]``, ``qd[i]``, ``qdd[i]`` (the joint coordinates in tree order, named in the
  descriptions), ``u`` (one degree of freedom) or ``u[i]``, ``f[j]`` (every joint's ideal
  reactions, joints in file order), ``f_mu[k]`` and ``sd[k]`` (friction and slip velocity of every
  free coordinate), ``stuck_<joint name>`` (for each joint with friction), ``stuck``, ``E_kin``, ``E_pot``,
  ``W_drive``, ``W_friction``.
"""

from __future__ import annotations

from pathlib import Path

from ..mechanisms.files import MechanismFile, read_file
from ..planar import PinInSlot, Prismatic
from .slave import Experiment, FrictionModelSlave, Var, publish_elements, record_elements
from .units import UNITS

TOLERANCE = Var("rtol", "parameter", "1", "relative tolerance of the internal integrator", 1e-8, 1e-14, 1e-2)


def coordinate_units(axes) -> list:
    """(unit, display unit) of each joint coordinate q[i] from its axis (0 x, 1 y, 2 theta): rad (deg)
    for an angle, m for a slide."""
    return [("rad", "deg") if a == 2 else ("m", None) for a in axes]


def joint_rows(spec: MechanismFile, model) -> tuple:
    """Per joint (in file order): ([(unit, text) of each reaction row], [(force unit, slip unit, text)
    of each free coordinate]), texts naming the joint and its bodies."""
    out = []
    for name, kind, joint in zip(spec.joint_names, spec.joint_types, model.joints):
        bi, bj = spec.body_names[joint.body_i], spec.body_names[joint.body_j]
        where = f"joint {name} ({kind}, {bi} on {bj})"
        if isinstance(joint, PinInSlot):
            rows = [("N", f"{where}: normal force on {bi} across the slot")]
            free = [("N", "m/s", f"{where}: sliding along the slot"), ("N.m", "rad/s", f"{where}: turning of the pin")]
        elif isinstance(joint, Prismatic):
            rows = [("N", f"{where}: normal force on {bi} across the guide"), ("N.m", f"{where}: lock moment on {bi}")]
            free = [("N", "m/s", f"{where}: sliding along the guide")]
        else:
            rows = [("N", f"{where}: force on {bi} along x"), ("N", f"{where}: force on {bi} along y")]
            free = [("N.m", "rad/s", f"{where}: relative rotation")]
        out.append((rows, free))
    return tuple(out)


#: what each parameter of a joint's bristle law is, its unit from the unit of the slip ("rad" or "m")
LAW_PARAMETERS = {
    "sigma0": ("bristle stiffness per unit load", lambda slip: f"1/{slip}"),
    "sigma1": ("bristle damping per unit load", lambda slip: f"s/{slip}"),
    "sigma2": ("viscous friction", lambda slip: "N.m.s/rad" if slip == "rad" else "N.s/m"),
    "v_s": ("Stribeck velocity", lambda slip: f"{slip}/s"),
    "delta": ("Stribeck exponent", lambda slip: "1"),
    "z_ba_ratio": ("breakaway deflection z_ba sigma0 / mu_c", lambda slip: "1"),
}
WHERE = {"bristle": "", "bristle_t": " along the slot", "bristle_r": " on the pin"}


def joint_law_variables(spec: MechanismFile) -> tuple:
    """The Var rows of the parameters of the joints' own bristle laws (``MechanismFile.joint_laws``), each
    named and described after its joint; the file's values are their starts."""
    out = []
    for law in spec.joint_laws:
        for name, value in law.values.items():
            text, unit = LAW_PARAMETERS[name]
            out.append(Var(law.parameter(name), "parameter", unit(law.slip),
                           f"joint {law.joint_name}'s {law.law} law{WHERE[law.key]}: {text} (friction_model > 0)",
                           value, 0.0, 1.0 if name == "z_ba_ratio" else None))
    return tuple(out)


def variables(spec: MechanismFile) -> tuple:
    """The Var rows of a file's FMU (see the module's docstring)."""
    built = spec.build()
    mech = built.mechanism
    model, partition = mech.model, mech.partition
    units = coordinate_units(mech.minimal.coords.axes)
    for p in spec.parameters:
        if p.unit not in UNITS and p.unit not in ("", "1"):
            raise spec.error(f"parameters.{p.name}.unit", p.unit, f"must be one of {', '.join(UNITS)}, \"1\" "
                             "(dimensionless) or \"\"")
    out = [Var(d.name, "input", d.unit, d.description, 0.0) for d in spec.drives]
    out += [Var(p.name, "parameter", p.unit, p.description, p.value, p.min, p.max) for p in spec.parameters]
    out.append(TOLERANCE)
    out += FrictionModelSlave.BRISTLE_PARAMETERS
    out += joint_law_variables(spec)
    role = ["independent" if i in partition else "dependent" for i in range(len(mech.q_names))]
    out += [Var(f"q[{i}]", "output", u, f"joint coordinate {n} ({r})", display=d)
            for i, (n, (u, d), r) in enumerate(zip(mech.q_names, units, role), 1)]
    out += [Var(f"qd[{i}]", "output", f"{u}/s", f"velocity of {n}", display="rpm" if d else None)
            for i, (n, (u, d)) in enumerate(zip(mech.q_names, units), 1)]
    out += [Var(f"qdd[{i}]", "output", f"{u}/s2", f"acceleration of {n}")
            for i, (n, (u, _)) in enumerate(zip(mech.q_names, units), 1)]
    names = ["u"] if len(partition) == 1 else [f"u[{i}]" for i in range(1, len(partition) + 1)]
    out += [Var(name, "output", f"{units[i][0]}/s", f"independent velocity (= velocity of {mech.q_names[i]})",
                display="rpm" if units[i][1] else None) for name, i in zip(names, partition)]
    rows = joint_rows(spec, model)
    reactions = [r for joint_rows_, _ in rows for r in joint_rows_]
    frees = [f for _, joint_free in rows for f in joint_free]
    out += [Var(f"f[{j}]", "output", u, f"ideal reaction: {text}") for j, (u, text) in enumerate(reactions, 1)]
    out += [Var(f"f_mu[{k}]", "output", u, f"friction: {text}") for k, (u, _, text) in enumerate(frees, 1)]
    out += [Var(f"sd[{k}]", "output", u, f"slip velocity: {text}") for k, (_, u, text) in enumerate(frees, 1)]
    out += [Var(f"stuck_{name}", "output", "", f"true while joint {name} sticks", False, kind="Boolean")
            for name, joint in zip(spec.joint_names, model.joints)
            if any(law is not None for law in joint.friction_laws())]
    out += [Var("stuck", "output", "", "true while a joint of the mechanism sticks", False, kind="Boolean"),
            Var("E_kin", "output", "J", "kinetic energy"),
            Var("E_pot", "output", "J", "potential energy -sum m_i g . r_Ci (zero at the origin)"),
            Var("W_drive", "output", "J", "work of the drives"),
            Var("W_friction", "output", "J", "work of friction (integral of sum f_mu sd dt, never positive)")]
    return tuple(out)


def experiment(spec: MechanismFile, names) -> Experiment:
    """The file's [experiment] (defaults: 1 s, step 0.01 s, the first joint coordinate, u, the first
    friction and stuck), its outputs checked against the FMU's output names ``names``."""
    e = spec.experiment
    default = [n for n in ("q[1]", "u", "u[1]", "f_mu[1]", "stuck") if n in names]
    outputs = e.get("outputs", default)
    if not isinstance(outputs, list) or not outputs or any(o not in names for o in outputs):
        bad = [o for o in outputs if o not in names] if isinstance(outputs, list) else outputs
        raise spec.error("experiment.outputs", bad, "must list outputs of the FMU: "
                         f"{', '.join(n for n in names if not n.startswith('stuck_'))}, ...")
    inputs = spec.experiment_inputs()
    return Experiment(float(e.get("stop_time", 1.0)), float(e.get("step_size", 0.01)), tuple(outputs), inputs,
                      str(e.get("description", "inputs as the mechanism file's [experiment] gives them")))


class FileSlave(FrictionModelSlave):
    """Base of the FMUs of mechanism files: a subclass sets ``mechanism_file`` (a path); the class
    then gets its variables, inputs, description and default experiment from the file.

    The mechanism file is read when the class is made (once per process): the folder it was extracted
    to may be gone when another instance starts (FMPy deletes it after a run)."""

    mechanism_file: Path | str | None = None
    spec: MechanismFile | None = None
    author = "friction-joints"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.spec = read_file(cls.mechanism_file)
        cls.description = cls.spec.description or f"Mechanism {cls.spec.name} of a mechanism file"
        cls.inputs = tuple(d.name for d in cls.spec.drives)
        cls.variables = variables(cls.spec)
        if cls.spec.joint_laws:
            own = ", ".join(f"{law.joint_name} ({law.key}: {law.law})" for law in cls.spec.joint_laws)
            cls.equations = FrictionModelSlave.equations + (f" Joints with a bristle law of their own, which takes the "
                                                            f"place of friction_model's there: {own}.")
        cls.experiment = experiment(cls.spec, [v.name for v in cls.variables if v.causality == "output"])
        cls._outputs = _output_layout(cls.spec, cls.variables)

    def build(self, p):
        built = self.spec.build({q.name: p[q.name] for q in self.spec.parameters})
        return built.mechanism, built.q0, built.u0, p["rtol"]

    @classmethod
    def joint_laws(cls, mechanism, values: dict):
        """The file's joint laws (``MechanismFile.bristle_laws``) with their parameters' values."""
        return cls.spec.bristle_laws(mechanism, values)

    def publish(self, rec) -> dict:
        elements, stuck_joints = self._outputs
        contacts = rec["stuck_contacts"]
        out = {name: bool(contacts[s].any()) for name, s in stuck_joints}
        out.update(stuck=bool(rec["stuck"]), E_kin=rec["E_kin"], E_pot=rec["E_pot"], W_drive=rec["W_drive"],
                   W_friction=rec["W_friction"])
        return publish_elements(rec, elements, out)


def _output_layout(spec, variables):
    """(``record_elements`` of the outputs, ((stuck_<joint> name, slice of s of the joint), ...))."""
    names = [v.name for v in variables if v.causality == "output"]
    model = spec.build().mechanism.model
    stuck = tuple((f"stuck_{name}", s) for name, s in zip(spec.joint_names, model.s_slices) if f"stuck_{name}" in names)
    return record_elements(names, ("q", "qd", "qdd", "u", "f", "f_mu", "sd")), stuck
