"""FMU: a rack-and-pinion steering system with dry friction and freeplay (seed 001 luz/tar, exact stick-slip)."""

import dataclasses
import math

from friction_joints.fmi.slave import Experiment, FrictionModelSlave, SystemSlave, Var
from friction_joints.vehicle import ELEMENTS, SteeringBristle, SteeringParameters, SteeringSystem as Model, element_laws

_DEFAULTS = SteeringParameters()
_PARAMETERS = (
    ("J_sw", "kg.m2", "steering wheel and upper column inertia"), ("k_c", "N.m/rad", "column torsional stiffness"),
    ("c_c", "N.m.s/rad", "column torsional damping"), ("J_p", "kg.m2", "pinion and lower column inertia"),
    ("r_p", "m", "pinion pitch radius (rack travel per pinion radian)"), ("k_g", "N/m", "gear mesh stiffness"),
    ("b", "m", "half of the rack-pinion freeplay (at the rack)"), ("m_r", "kg", "rack mass"),
    ("k_t", "N/m", "tie-rod stiffness"), ("c_t", "N.s/m", "tie-rod damping"), ("l_a", "m", "steering arm length"),
    ("J_w", "kg.m2", "wheel and knuckle inertia about the king-pin"),
    ("c_w", "N.m.s/rad", "damping about the king-pin (tyre scrub)"),
    ("T_p", "N.m", "kinetic friction torque of the pinion bearings"), ("F_r", "N", "kinetic friction force of the rack"),
    ("mu_k", "1", "king-pin friction coefficient"), ("r_k", "m", "king-pin friction radius"),
    ("static_factor", "1", "static / kinetic friction level of every element (>= 1)"),
    ("friction_scale", "1", "factor on every friction level (0: no friction)"),
    ("rack_travel", "m", "rack travel each way from the centre to an end stop (> 0)"),
    ("k_stop", "N/m", "stiffness of the rack's end stops (> 0)"),
    ("c_stop", "N.s/m", "damping of the rack's end stops (the contact pushes only)"),
)
_MAX = {"rack_travel": 1.0, "k_stop": 1e9, "c_stop": 1e6}  # beyond: stops that are off, or far stiffer than steel
_STEERING_PARAMETERS = tuple(name for name, _, _ in _PARAMETERS)
# the shared bristle parameters, in the units of the steering's elements: the load of each element is its kinetic
# level (T_p, F_r, a king-pin's mu_k r_k (|F_z| + |F_t|)), mu_c = 1, mu_s = static_factor (vehicle.steering_bristle)
_BRISTLE_TEXT = {
    "friction_model": "friction of the four elements: 0 exact Coulomb stick-slip (events), bristle laws 1 Dahl, "
                      "2 LuGre, 3 elasto-plastic, 4 Gonthier (seed 003; RODAS on the compiled engine)",
    "sigma0": "bristle stiffness per unit load (1/rad in the pinion and the king-pins, 1/m in the rack; the load is "
              "the element's kinetic friction level; friction_model > 0)",
    "sigma1": "bristle damping per unit load (s/rad, s/m in the rack; friction_model > 0)",
    "sigma2": "viscous friction (N.m.s/rad, N.s/m in the rack; friction_model > 0)",
    "v_s": "Stribeck velocity (rad/s, m/s in the rack; friction_model 2-4)"}
_STUCK_OUTPUTS = tuple(f"stuck_{name}" for name in ELEMENTS)
_BRISTLE_PARAMETERS = tuple(dataclasses.replace(var, description=_BRISTLE_TEXT.get(var.name, var.description))
                            for var in FrictionModelSlave.BRISTLE_PARAMETERS)


class SteeringSystem(SystemSlave):
    author = "friction-joints"
    description = ("Rack-and-pinion steering: steering wheel, column, pinion, gear freeplay, rack, tie rods and two "
                   "road wheels on king-pins; dry friction in the pinion bearings, the rack housing and the king-pins "
                   "(load-dependent), exact stick-slip per element (seed 001); the rack's end stops at +-rack_travel")
    equations = ("J<sub>sw</sub> thdd<sub>sw</sub> = tau<sub>sw</sub> - T<sub>c</sub>; J<sub>p</sub> thdd<sub>p</sub> = "
                 "T<sub>c</sub> - r<sub>p</sub> F<sub>g</sub> + T<sub>fp</sub>; m<sub>r</sub> xdd = F<sub>g</sub> - "
                 "F<sub>tL</sub> - F<sub>tR</sub> + F<sub>fr</sub>; J<sub>w</sub> deltadd<sub>i</sub> = l<sub>a</sub> "
                 "F<sub>ti</sub> + M<sub>z,i</sub> - c<sub>w</sub> deltad<sub>i</sub> + T<sub>fk,i</sub>, with the column "
                 "torque T<sub>c</sub> = k<sub>c</sub> (th<sub>sw</sub> - th<sub>p</sub>) + c<sub>c</sub> (thd<sub>sw</sub> - "
                 "thd<sub>p</sub>), the gear force F<sub>g</sub> = k<sub>g</sub> luz(r<sub>p</sub> th<sub>p</sub> - x, b) "
                 "(freeplay, seed 001 Sect. 2), tie-rod forces F<sub>ti</sub> = k<sub>t</sub> (x - l<sub>a</sub> "
                 "delta<sub>i</sub>) + c<sub>t</sub> (xd - l<sub>a</sub> deltad<sub>i</sub>); Coulomb friction per element "
                 "with static and kinetic levels, king-pin levels mu<sub>k</sub> r<sub>k</sub> (|F<sub>z,i</sub>| + "
                 "|F<sub>ti</sub>|); an element sticks exactly while its acting force is within its static level. "
                 "Rack end stops (the project's addition, not a seed's equation): beyond |x| = rack_travel the "
                 "force F<sub>stop</sub> = -s max(0, k<sub>stop</sub> pen + c<sub>stop</sub> pen') with pen = s x - "
                 "rack_travel at stop s = +-1 acts on the rack; its contact and release are located events. "
                 "With friction_model 1-4 every element has a bristle law instead (seed 003: Dahl, LuGre, "
                 "elasto-plastic, Gonthier): friction = N (&sigma;<sub>0</sub> z + &sigma;<sub>1</sub> z') + "
                 "&sigma;<sub>2</sub> v with the element's kinetic level as its load N, mu<sub>c</sub> = 1, "
                 "mu<sub>s</sub> = static_factor, one bristle deflection z per element; no stick events, the stiff "
                 "smooth system integrated by RODAS on the compiled engine (LSODA on the Python engine).")
    inputs = ("tau_sw", "M_z_left", "M_z_right", "F_z_left", "F_z_right")
    experiment = Experiment(4.0, 0.01, ("delta_sw", "delta_left", "T_f_kingpin_left", "stuck_rack"),
                            {"tau_sw": lambda t: 1.5 * math.sin(math.pi * t), "M_z_left": lambda t: 0.0,
                             "M_z_right": lambda t: 0.0, "F_z_left": lambda t: 3500.0, "F_z_right": lambda t: 3500.0},
                            "tau_sw = 1.5 sin(pi t) N.m, no aligning moments (no vehicle), 3.5 kN wheel loads")
    variables = (
        (Var("tau_sw", "input", "N.m", "driver torque at the steering wheel", 0.0),
         Var("M_z_left", "input", "N.m", "aligning moment on the left wheel about its king-pin (positive steers left)", 0.0),
         Var("M_z_right", "input", "N.m", "aligning moment on the right wheel about its king-pin", 0.0),
         Var("F_z_left", "input", "N", "vertical load of the left front wheel", 3500.0),
         Var("F_z_right", "input", "N", "vertical load of the right front wheel", 3500.0))
        + tuple(Var(name, "parameter", unit, text, getattr(_DEFAULTS, name), 1.0 if name == "static_factor" else 0.0,
                    _MAX.get(name)) for name, unit, text in _PARAMETERS)
        + (Var("delta_sw_start", "parameter", "rad", "initial steering-wheel angle (at rest, springs relaxed)", 0.0,
               display="deg"),
           Var("rtol", "parameter", "1", "relative tolerance of the internal integrator", 1e-6, 1e-12, 1e-2))
        + _BRISTLE_PARAMETERS
        + (Var("delta_sw", "output", "rad", "steering-wheel angle", display="deg"),
           Var("delta_sw_rate", "output", "rad/s", "steering-wheel angular velocity"),
           Var("theta_pinion", "output", "rad", "pinion angle", display="deg"),
           Var("x_rack", "output", "m", "rack displacement (positive steers left)"),
           Var("delta_left", "output", "rad", "left road-wheel steer angle", display="deg"),
           Var("delta_right", "output", "rad", "right road-wheel steer angle", display="deg"),
           Var("T_column", "output", "N.m", "column torque (torsion between steering wheel and pinion)"),
           Var("F_gear", "output", "N", "rack-pinion mesh force"),
           Var("F_tierod_left", "output", "N", "left tie-rod force"),
           Var("F_tierod_right", "output", "N", "right tie-rod force"),
           Var("F_stop", "output", "N", "force of the rack's end stops on the rack (along x_rack: negative on "
                                         "the left stop at x_rack > rack_travel, positive on the right one; 0 "
                                         "within the travel)"),
           Var("T_f_pinion", "output", "N.m", "friction torque of the pinion bearings (static while stuck)"),
           Var("F_f_rack", "output", "N", "friction force of the rack housing (static while stuck)"),
           Var("T_f_kingpin_left", "output", "N.m", "friction torque of the left king-pin (static while stuck)"),
           Var("T_f_kingpin_right", "output", "N.m", "friction torque of the right king-pin (static while stuck)"))
        + tuple(Var(f"stuck_{name}", "output", "", f"true while the {name.replace('_', ' ')} friction sticks "
                    "(always false with bristle friction, friction_model > 0: it has no stick mode)", False,
                    kind="Boolean") for name in ELEMENTS)
        + (Var("in_freeplay", "output", "", "true while the pinion and the rack are out of contact", False,
               kind="Boolean"),
           Var("E_kin", "output", "J", "kinetic energy"),
           Var("E_spring", "output", "J", "elastic energy (column, gear, tie rods, rack end stops)"),
           Var("W_driver", "output", "J", "work of tau_sw"),
           Var("W_aligning", "output", "J", "work of the aligning moments"),
           Var("W_friction", "output", "J", "work of the dry frictions (never positive)"),
           Var("W_damping", "output", "J", "work of the dampers, the end stops' included (never positive)"))
    )

    def build(self, p):
        params = SteeringParameters(**{name: p[name] for name in _STEERING_PARAMETERS})
        y0_of = lambda s: s.initial_state(p["delta_sw_start"])  # noqa: E731
        if p["friction_model"] == 0:
            return lambda inputs: Model(params, inputs), y0_of, p["rtol"]
        laws = element_laws(params, p["friction_model"], **FrictionModelSlave.bristle_options(p))
        return lambda inputs: SteeringBristle(params, laws, inputs), y0_of, p["rtol"]

    def publish(self, rec):
        (delta_sw, theta_pinion, x_rack, delta_left, delta_right), f = rec["q"].tolist(), rec["friction"].tolist()
        out = dict(delta_sw=delta_sw, delta_sw_rate=float(rec["qd"][0]), theta_pinion=theta_pinion, x_rack=x_rack,
                   delta_left=delta_left, delta_right=delta_right, T_column=rec["T_c"], F_gear=rec["F_g"],
                   F_tierod_left=rec["F_tL"], F_tierod_right=rec["F_tR"], F_stop=rec["F_stop"], T_f_pinion=f[0],
                   F_f_rack=f[1],
                   T_f_kingpin_left=f[2], T_f_kingpin_right=f[3], in_freeplay=bool(rec["in_freeplay"]),
                   E_kin=rec["E_kin"], E_spring=rec["E_spring"], W_driver=rec["W_driver"], W_aligning=rec["W_aligning"],
                   W_friction=rec["W_friction"], W_damping=rec["W_damping"])
        out.update(zip(_STUCK_OUTPUTS, rec["stuck"].tolist()))
        return out
