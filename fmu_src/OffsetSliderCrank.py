"""FMU: the offset slider-crank of seed 000 Example 1 with friction in all joints, exact stick-slip."""

from friction_joints.fmi import crank
from friction_joints.fmi.slave import Experiment
from friction_joints.mechanisms import offset_slider_crank


class OffsetSliderCrank(crank.CrankSlave):
    author = "friction-joints"
    description = ("Offset slider-crank (seed 000 Example 1, Fig. 5) with reaction-dependent Coulomb friction "
                   "in its three revolute joints and prismatic guide, minimal form, exact stick-slip")
    experiment = Experiment(0.5, 0.01, ("q[1]", "u", "f[1]", "f_mu[4]"), {"tau": lambda t: 60.0},
                            "tau = 60 N.m from rest")
    variables = ((crank.CrankSlave.TAU,)
                 + crank.link_parameters((3.0, 7.0, 2.0), (0.3, 0.7, 0.2))
                 + crank.friction_parameters() + crank.OUTPUTS)

    def build(self, p):
        mech = offset_slider_crank((p["m1"], p["m2"], p["m3"]), (p["a1"], p["a2"], p["a3"]),
                                   (p["J1"], p["J2"], p["J3"]), p["r"], p["mu_rs"], p["mu_rk"], p["mu_ts"],
                                   p["mu_tk"], p["g"])
        return mech, mech.assemble([p["q1_start"]]), [p["u_start"]], p["rtol"]
