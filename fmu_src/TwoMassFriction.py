"""FMU: two masses with two frictions, luz/tar form (seed 001 Sect. 3-4)."""

import math

from friction_joints.fmi.slave import Experiment, SystemSlave, Var
from friction_joints.lumped import TwoMassFriction as Model
from friction_joints.lumped import TwoMassParameters


class TwoMassFriction(SystemSlave):
    author = "friction-joints"
    description = ("Block 1 on block 2 on a fixed base with extended Coulomb friction between the blocks (12) and "
                   "under block 2 (20), exact stick-slip with the Gauss-principle static frictions (seed 001 Sect. 4)")
    equations = ("M1 zdd1 + C12 tar(zd1 - zd2, F<sub>T012</sub>/C12) = F1; M2 zdd2 - C12 tar(zd1 - zd2, "
                 "F<sub>T012</sub>/C12) + C20 tar(zd2, F<sub>T020</sub>/C20) = F2 (seed 001 Sect. 4); in the velocity "
                 "cases zd1 = zd2, zd2 = 0 the luz forms of Sect. 3-4; the stuck set at zero relative velocity by "
                 "the Gauss principle (bounded least squares). The paper's printed total-stiction formula is not "
                 "used: it is wrong when block 1 slips on a held block 2 (see the project's tests).")
    inputs = ("F1", "F2")
    experiment = Experiment(5.0, 0.01, ("z1", "z2", "f_12", "f_20", "stuck_12", "stuck_20"),
                            {"F1": lambda t: 6 * math.sin(2 * t), "F2": lambda t: 20 * math.cos(1.3 * t)},
                            "F1 = 6 sin(2 t) N, F2 = 20 cos(1.3 t) N from rest")
    variables = (
        Var("F1", "input", "N", "force on block 1", 0.0),
        Var("F2", "input", "N", "force on block 2", 0.0),
        Var("M1", "parameter", "kg", "mass of block 1 (top)", 1.0, 0.0),
        Var("M2", "parameter", "kg", "mass of block 2 (bottom)", 2.0, 0.0),
        Var("C12", "parameter", "N.s/m", "viscous coefficient between the blocks", 0.0, 0.0),
        Var("C20", "parameter", "N.s/m", "viscous coefficient under block 2", 0.0, 0.0),
        Var("FT012", "parameter", "N", "kinetic dry friction level between the blocks", 0.2 * 9.81, 0.0),
        Var("FT020", "parameter", "N", "kinetic dry friction level under block 2", 0.4 * 3 * 9.81, 0.0),
        Var("FT012S", "parameter", "N", "static level between the blocks (>= FT012)", 0.3 * 9.81, 0.0),
        Var("FT020S", "parameter", "N", "static level under block 2 (>= FT020)", 0.5 * 3 * 9.81, 0.0),
        Var("z1_start", "parameter", "m", "initial position of block 1", 0.0),
        Var("z2_start", "parameter", "m", "initial position of block 2", 0.0),
        Var("zd1_start", "parameter", "m/s", "initial velocity of block 1", 0.0),
        Var("zd2_start", "parameter", "m/s", "initial velocity of block 2", 0.0),
        Var("rtol", "parameter", "1", "relative tolerance of the internal integrator", 1e-8, 1e-14, 1e-2),
        Var("z1", "output", "m", "position of block 1"),
        Var("z2", "output", "m", "position of block 2"),
        Var("zd1", "output", "m/s", "velocity of block 1"),
        Var("zd2", "output", "m/s", "velocity of block 2"),
        Var("zdd1", "output", "m/s2", "acceleration of block 1"),
        Var("zdd2", "output", "m/s2", "acceleration of block 2"),
        Var("f_12", "output", "N", "friction force of block 2 on block 1"),
        Var("f_20", "output", "N", "friction force of the base on block 2"),
        Var("stuck_12", "output", "", "true while block 1 sticks to block 2", False, kind="Boolean"),
        Var("stuck_20", "output", "", "true while block 2 sticks to the base", False, kind="Boolean"),
        Var("E_kin", "output", "J", "kinetic energy"),
        Var("W_drive", "output", "J", "work of F1 and F2"),
        Var("W_friction", "output", "J", "work of the frictions (never positive)"),
    )

    def build(self, p):
        params = TwoMassParameters(M1=p["M1"], M2=p["M2"], C12=p["C12"], C20=p["C20"], FT012=p["FT012"],
                                   FT020=p["FT020"], FT012S=p["FT012S"], FT020S=p["FT020S"])
        z0, zd0 = (p["z1_start"], p["z2_start"]), (p["zd1_start"], p["zd2_start"])
        return lambda inputs: Model(params, inputs), lambda s: s.initial_state(z0, zd0), p["rtol"]

    def publish(self, rec):
        return dict(z1=rec["z"][0], z2=rec["z"][1], zd1=rec["zd"][0], zd2=rec["zd"][1], zdd1=rec["zdd"][0],
                    zdd2=rec["zdd"][1], f_12=rec["f"][0], f_20=rec["f"][1], stuck_12=bool(rec["stuck"][0]),
                    stuck_20=bool(rec["stuck"][1]), E_kin=rec["E_kin"], W_drive=rec["W_drive"],
                    W_friction=rec["W_friction"])
