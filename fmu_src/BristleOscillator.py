"""FMU: a mass on a moving belt held by a spring, with bristle friction (seed 003: Dahl, LuGre,
elasto-plastic, Gonthier)."""

import math

from friction_joints.fmi.slave import Experiment, SystemSlave, Var
from friction_joints.friction import make_law
from friction_joints.lumped import BristleOscillator as Model
from friction_joints.lumped import BristleOscillatorParameters


class BristleOscillator(SystemSlave):
    author = "friction-joints"
    description = ("Mass m on a surface moving at v_belt, spring k to the point x_d, pressed by F_n, with bristle "
                   "friction: Dahl, LuGre, elasto-plastic or Gonthier (seed 003); starts at rest with x = z = 0")
    equations = ("m a = k (x<sub>d</sub> - x) - F, v<sub>r</sub> = v - v<sub>belt</sub>, "
                 "F = N (&sigma;<sub>0</sub> z + &sigma;<sub>1</sub> z') + &sigma;<sub>2</sub> v<sub>r</sub> with "
                 "N = F<sub>n</sub>; &mu;(v) = &mu;<sub>c</sub> + (&mu;<sub>s</sub> - &mu;<sub>c</sub>) "
                 "exp(-|v/v<sub>s</sub>|<sup>&delta;</sup>). model 1 Dahl: z' = v<sub>r</sub> - &sigma;<sub>0</sub> "
                 "|v<sub>r</sub>| z / &mu;<sub>c</sub>; 2 LuGre: z' = v<sub>r</sub> - &sigma;<sub>0</sub> |v<sub>r</sub>| z "
                 "/ &mu;(v<sub>r</sub>); 3 elasto-plastic (Dupont et al. 2002): z' = v<sub>r</sub> - &alpha;(z, "
                 "v<sub>r</sub>) &sigma;<sub>0</sub> |v<sub>r</sub>| z / &mu;(v<sub>r</sub>), &alpha; = 0 below "
                 "z<sub>ba</sub> = z_ba_ratio &mu;<sub>c</sub> / &sigma;<sub>0</sub> (true stiction); 4 Gonthier et al. "
                 "2004 (as reconstructed, see friction_joints.friction.bristle): F = N [s (&sigma;<sub>0</sub> z + "
                 "&sigma;<sub>1</sub> z') + (1 - s) &mu;<sub>c</sub> sgn v<sub>r</sub>] + &sigma;<sub>2</sub> v<sub>r</sub>, "
                 "s = exp(-|v<sub>r</sub>/v<sub>s</sub>|<sup>&delta;</sup>), z' = v<sub>r</sub> - &sigma;<sub>0</sub> "
                 "|v<sub>r</sub>| z / &mu;<sub>s</sub>. No stick events: the stiff smooth system is integrated with error "
                 "control by RODAS (Rosenbrock, order 4) on the compiled engine, by LSODA on the Python engine; inputs "
                 "are held over each communication step.")
    inputs = ("x_d", "v_belt", "F_n")
    experiment = Experiment(3.0, 0.01, ("x", "v", "z", "F_f"),
                            {"x_d": lambda t: 0.0 * t, "v_belt": lambda t: 0.1 + 0.0 * t,
                             "F_n": lambda t: 10.0 * (1.0 + 0.3 * math.sin(3.0 * t))},
                            "LuGre, belt at 0.1 m/s, F_n = 10 (1 + 0.3 sin 3t) N from rest")
    variables = (
        Var("x_d", "input", "m", "position of the spring's far end", 0.0),
        Var("v_belt", "input", "m/s", "velocity of the friction surface", 0.1),
        Var("F_n", "input", "N", "normal force N pressing the mass on the surface", 10.0, 0.0),
        Var("model", "parameter", "", "friction law: 1 Dahl, 2 LuGre, 3 elasto-plastic, 4 Gonthier", 2, 1, 4,
            kind="Integer"),
        Var("m", "parameter", "kg", "mass", 1.0, 0.0),
        Var("k", "parameter", "N/m", "spring stiffness", 100.0, 0.0),
        Var("sigma0", "parameter", "1/m", "bristle stiffness per unit load", 1e5, 0.0),
        Var("sigma1", "parameter", "s/m", "bristle damping per unit load (passive for |v_r| <= 0.3 m/s at the "
            "defaults, see friction.passive_sigma1_limit)", 5.0, 0.0),
        Var("sigma2", "parameter", "N.s/m", "viscous friction coefficient", 0.0, 0.0),
        Var("mu_c", "parameter", "1", "Coulomb (kinetic) friction coefficient", 0.3, 0.0),
        Var("mu_s", "parameter", "1", "static friction coefficient (>= mu_c; not used by Dahl)", 0.4, 0.0),
        Var("v_s", "parameter", "m/s", "Stribeck velocity (not used by Dahl)", 1e-3, 0.0),
        Var("delta", "parameter", "1", "Stribeck exponent (not used by Dahl)", 2.0, 0.0),
        Var("z_ba_ratio", "parameter", "1", "elasto-plastic breakaway deflection z_ba sigma0 / mu_c (model 3 only)",
            0.7, 0.0, 1.0),
        Var("rtol", "parameter", "1", "relative tolerance of the internal integrator (F_f = N sigma0 z amplifies the "
            "error of z: 1e-8 keeps it near 1e-4 of its range)", 1e-8, 1e-12, 1e-2),
        Var("x", "output", "m", "position"),
        Var("v", "output", "m/s", "velocity"),
        Var("a", "output", "m/s2", "acceleration"),
        Var("z", "output", "m", "mean bristle deflection"),
        Var("F_f", "output", "N", "friction force F along the slip v - v_belt (the mass receives -F)"),
        Var("W_friction", "output", "J", "work of the friction on the relative motion"),
    )

    def build(self, p):
        law = make_law(int(p["model"]), sigma0=p["sigma0"], sigma1=p["sigma1"], sigma2=p["sigma2"], mu_c=p["mu_c"],
                       mu_s=p["mu_s"], v_s=p["v_s"], delta=p["delta"], z_ba_ratio=p["z_ba_ratio"])
        params = BristleOscillatorParameters(law, m=p["m"], k=p["k"])
        return (lambda inputs: Model(params, inputs), lambda s: s.initial_state(0.0, 0.0, 0.0, law.sigma0), p["rtol"])

    def publish(self, rec):
        return dict(x=rec["x"], v=rec["v"], a=rec["a"], z=rec["z"], F_f=rec["F"], W_friction=rec["W_friction"])
