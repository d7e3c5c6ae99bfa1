"""FMU: the slider-crank of seed 000 Example 2 with friction in all joints, exact stick-slip."""

import math

from friction_joints.fmi import crank
from friction_joints.fmi.slave import Experiment, Var
from friction_joints.mechanisms import slider_crank


class SliderCrank(crank.CrankSlave):
    author = "friction-joints"
    description = ("Slider-crank (seed 000 Example 2, Fig. 7) with reaction-dependent Coulomb friction in "
                   "its three revolute joints and slider guide, minimal form, exact stick-slip (Sect. 5)")
    experiment = Experiment(2.0, 0.01, ("u", "f[1]", "f_mu[1]", "stuck"), {"tau": lambda t: 4 * math.sin(3 * t)},
                            "tau = 4 sin(3 t) N.m from rest in the hanging equilibrium")
    variables = ((crank.CrankSlave.TAU,)
                 + crank.link_parameters((2.5, 4.0), (0.25, 0.4))
                 + (Var("m3", "parameter", "kg", "mass of the slider (a point mass; massless in the paper)", 0.0, 0.0),)
                 + crank.friction_parameters() + crank.OUTPUTS)

    def build(self, p):
        mech = slider_crank((p["m1"], p["m2"]), (p["a1"], p["a2"]), (p["J1"], p["J2"]), p["r"], p["mu_rs"],
                            p["mu_rk"], p["mu_ts"], p["mu_tk"], p["g"], m3=p["m3"])
        return mech, mech.assemble([p["q1_start"]]), [p["u_start"]], p["rtol"]
