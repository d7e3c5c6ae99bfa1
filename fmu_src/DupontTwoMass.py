"""FMU: Dupont's two-mass system with exact stick-slip (seed 000 Sect. 3, Fig. 4)."""

import math

from friction_joints.fmi.slave import Experiment, MechanismSlave, Var
from friction_joints.mechanisms import dupont_two_mass


class DupontTwoMass(MechanismSlave):
    author = "friction-joints"
    description = ("Mass m1 slides in a slot of mass m2 (x) with Coulomb friction mu |f_n|; m2 moves "
                   "along y on a frictionless guide; exact stick-slip (seed 000 Sect. 3)")
    inputs = ("F1", "F2")
    experiment = Experiment(3.0, 0.01, ("x", "xd", "f_mu", "stuck"),
                            {"F1": lambda t: 7 * math.sin(2.4 * t), "F2": lambda t: 50 * math.cos(0.8 * t)},
                            "F1 = 7 sin(2.4 t) N, F2 = 50 cos(0.8 t) N (seed 000 Fig. 4c)")
    variables = (
        Var("F1", "input", "N", "force on m1 along the slot (x)", 0.0),
        Var("F2", "input", "N", "force on m2 along its guide (y)", 0.0),
        Var("m1", "parameter", "kg", "mass sliding in the slot", 10.0, 0.0),
        Var("m2", "parameter", "kg", "mass carrying the slot", 30.0, 0.0),
        Var("mu_s", "parameter", "1", "static friction coefficient", 0.5, 0.0),
        Var("mu_k", "parameter", "1", "kinetic friction coefficient (<= mu_s)", 0.3, 0.0),
        Var("x_start", "parameter", "m", "initial position of m1 along the slot", 0.0),
        Var("xd_start", "parameter", "m/s", "initial velocity of m1 along the slot", 0.0),
        Var("rtol", "parameter", "1", "relative tolerance of the internal integrator", 1e-8, 1e-14, 1e-2),
        Var("x", "output", "m", "position of m1 along the slot"),
        Var("xd", "output", "m/s", "velocity of m1"),
        Var("xdd", "output", "m/s2", "acceleration of m1"),
        Var("y", "output", "m", "position of m2 along its guide"),
        Var("yd", "output", "m/s", "velocity of m2"),
        Var("f_n", "output", "N", "normal reaction of the slot on m1 (from the reaction equations)"),
        Var("f_mu", "output", "N", "friction force on m1 along x"),
        Var("stuck", "output", "", "true while m1 sticks in the slot", False, kind="Boolean"),
        Var("E_kin", "output", "J", "kinetic energy"),
        Var("W_drive", "output", "J", "work of F1 and F2"),
        Var("W_friction", "output", "J", "work of the friction force (never positive)"),
    )

    def build(self, p):
        mech = dupont_two_mass(p["m1"], p["m2"], p["mu_s"], p["mu_k"])
        return mech, [0.0, p["x_start"]], [0.0, p["xd_start"]], p["rtol"]

    def publish(self, rec):
        return dict(x=rec["q"][1], xd=rec["qd"][1], xdd=rec["qdd"][1], y=rec["q"][0], yd=rec["qd"][0],
                    f_n=rec["f"][0], f_mu=rec["f_mu"][0], stuck=bool(rec["stuck"]), E_kin=rec["E_kin"],
                    W_drive=rec["W_drive"], W_friction=rec["W_friction"])
