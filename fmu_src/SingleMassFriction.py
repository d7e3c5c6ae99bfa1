"""FMU: a single mass with extended Coulomb friction, luz/tar form (seed 001 Sect. 2)."""

import math

from friction_joints.fmi.slave import Experiment, SystemSlave, Var
from friction_joints.lumped import SingleMassFriction as Model
from friction_joints.lumped import SingleMassParameters


class SingleMassFriction(SystemSlave):
    author = "friction-joints"
    description = ("Mass M on a surface moving at v_belt, spring K to the ground, friction C tar(v, FT0/C) in slip "
                   "and up to FT0S in stiction, exact stick-slip (seed 001 Sect. 2, Karnopp-compatible)")
    equations = ("M zdd + C tar(v, F<sub>T0</sub>/C) = F - K z with v = zd - v_belt (seed 001 Sect. 2); at v = 0 "
                 "M zdd = luz(F - K z, F<sub>T0S</sub>): stiction while |F - K z| &le; F<sub>T0S</sub>, breakaway as a "
                 "located event; luz(x, a) = x + (|x - a| - |x + a|)/2, tar(x, a) = x + a sgh(x).")
    inputs = ("F",)
    experiment = Experiment(3.0, 0.01, ("z", "zd", "f_friction", "stuck"), {"F": lambda t: 5 * math.sin(2 * t)},
                            "F = 5 sin(2 t) N from rest")
    variables = (
        Var("F", "input", "N", "external force on the mass", 0.0),
        Var("M", "parameter", "kg", "mass", 1.0, 0.0),
        Var("C", "parameter", "N.s/m", "viscous friction coefficient", 0.0, 0.0),
        Var("FT0", "parameter", "N", "kinetic dry friction level", 2.0, 0.0),
        Var("FT0S", "parameter", "N", "static dry friction level (>= FT0)", 3.0, 0.0),
        Var("K", "parameter", "N/m", "spring stiffness to the ground (0: none)", 0.0, 0.0),
        Var("v_belt", "parameter", "m/s", "velocity of the friction surface (0: fixed ground)", 0.0),
        Var("z_start", "parameter", "m", "initial position", 0.0),
        Var("zd_start", "parameter", "m/s", "initial velocity", 0.0),
        Var("rtol", "parameter", "1", "relative tolerance of the internal integrator", 1e-8, 1e-14, 1e-2),
        Var("z", "output", "m", "position"),
        Var("zd", "output", "m/s", "velocity"),
        Var("zdd", "output", "m/s2", "acceleration"),
        Var("f_friction", "output", "N", "friction force on the mass (static while stuck)"),
        Var("stuck", "output", "", "true while the mass sticks to the surface", False, kind="Boolean"),
        Var("E_kin", "output", "J", "kinetic energy"),
        Var("W_drive", "output", "J", "work of F"),
        Var("W_friction", "output", "J", "work of the friction on the relative motion (never positive)"),
    )

    def build(self, p):
        params = SingleMassParameters(M=p["M"], C=p["C"], FT0=p["FT0"], FT0S=p["FT0S"], K=p["K"], v_belt=p["v_belt"])
        return (lambda inputs: Model(params, inputs), lambda s: s.initial_state(p["z_start"], p["zd_start"]),
                p["rtol"])

    def publish(self, rec):
        return dict(z=rec["z"], zd=rec["zd"], zdd=rec["zdd"], f_friction=rec["f"], stuck=bool(rec["stuck"]),
                    E_kin=rec["E_kin"], W_drive=rec["W_drive"], W_friction=rec["W_friction"])
