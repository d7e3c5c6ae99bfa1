"""FMU: the spatial RSRRR linkage of seed 002 with friction in its four revolute joints."""

import math

from friction_joints.fmi.slave import Experiment, FrictionModelSlave, SystemSlave, Var
from friction_joints.spatial.load import SpeedLoad
from friction_joints.spatial.rsrrr import RSRRR, RSRRRParameters, table1_journals
from friction_joints.spatial.system import RSRRRSystem

JOINT_AXES = "joint frame: z along the joint axis, origin on it midway between the journal surfaces A and B"


def _outputs():
    rows = []
    for i, joint in enumerate(("(1,1)", "(2,1)", "(2,2)", "(2,3)"), 1):
        rows += [Var(f"psi[{i}]", "output", "rad", f"joint coordinate psi{joint}", display="deg"),
                 Var(f"psid[{i}]", "output", "rad/s", f"joint velocity of psi{joint}"),
                 Var(f"psidd[{i}]", "output", "rad/s2", f"joint acceleration of psi{joint}")]
    rows += [Var(f"f_S[{k}]", "output", "N", f"cut-joint reaction on chain 1, global {a}")
             for k, a in enumerate("xyz", 1)]
    for i, joint in enumerate(("(1,1)", "(2,1)", "(2,2)", "(2,3)"), 1):
        rows += [Var(f"f_{a}[{i}]", "output", "N", f"reaction force of joint {joint} on its link, {a} ({JOINT_AXES})")
                 for a in "xyz"]
        rows += [Var(f"n_{a}[{i}]", "output", "N.m", f"reaction torque of joint {joint} on its link, {a} ({JOINT_AXES})")
                 for a in "xyz"]
        rows.append(Var(f"t_f[{i}]", "output", "N.m",
                        f"friction torque in joint {joint}, opposing its rotation (the holding torque while stuck)"))
    return tuple(rows) + (
        Var("stuck", "output", "", "true while the linkage is held by static friction", False, kind="Boolean"),
        Var("E_kin", "output", "J", "kinetic energy"),
        Var("E_pot", "output", "J", "potential energy (zero at y = 0)"),
        Var("W_drive", "output", "J", "work of the net torque on the driving link (tau less tau_res and the load): "
            "E_kin + E_pot change by W_drive + W_friction"),
        Var("W_res", "output", "J", "the resistance's share of W_drive (tau_res and the load)"),
        Var("W_friction", "output", "J", "work of the joint friction (never positive)"),
        Var("closure", "output", "m", "loop closure error |r_S1 - r_S2| (largest component)"),
    )


# --- clearance joint and flexible link (seed 003, issue 17): the defaults keep the ideal rigid linkage ---
CLEARANCE_VARIABLES = (
    Var("clearance", "parameter", "m", "radial clearance of joint clearance_joint (0: the ideal joint)", 0.0, 0.0),
    Var("clearance_joint", "parameter", "", "joint with the clearance: 1 (1,1), 2 (2,1), 3 (2,2), 4 (2,3)", 3, 1, 4,
        kind="Integer"),
    Var("clearance_model", "parameter", "", "clearance model: 1 planar (parallel axes), 2 spatial (the axes tilt, "
        "the contact spread along the bearing)", 1, 1, 2, kind="Integer"),
    Var("k_contact", "parameter", "", "contact stiffness K (N/m^1.5; FMI units have integer exponents) of "
        "F = K delta^1.5 (1 + chi deltad / deltad0); 0: from the materials E_joint, nu_joint, the Hertz stiffness of "
        "the journal (diameter d_A of seed 002 Table 1) in its bearing (radius + clearance; Flores et al. 2006)",
        0.0, 0.0),
    Var("E_joint", "parameter", "Pa", "Young's modulus of the clearance joint's journal and bearing (k_contact 0; "
        "steel: 2.1e11)", 2.1e11, 0.0),
    Var("nu_joint", "parameter", "1", "Poisson's ratio of the clearance joint's journal and bearing (k_contact 0), "
        "below 0.5", 0.3, 0.0, 0.5),
    Var("e_restitution", "parameter", "1", "coefficient of restitution of the Flores et al. (2011) contact law", 0.9,
        0.0, 1.0),
    Var("n_rfe", "parameter", "", "spring-damper elements of the flexible link flexible_link (0: rigid)", 0, 0,
        10, kind="Integer"),
    Var("flexible_link", "parameter", "", "the flexible link: 1 (1,1), 2 (2,1), 3 (2,2), 4 (2,3)", 4, 1, 4,
        kind="Integer"),
    Var("rfem", "parameter", "", "RFEM approach: 1 modified (bending, torsion), 2 classical (also stretching, "
        "shear)", 1, 1, 2, kind="Integer"),
    Var("E", "parameter", "Pa", "Young's modulus of the flexible link", 2.1e11, 0.0),
    Var("G", "parameter", "Pa", "shear modulus of the flexible link", 8.1e10, 0.0),
    Var("e_clearance", "output", "m", "eccentricity of the clearance joint's bearing from its journal"),
    Var("F_contact", "output", "N", "contact force in the clearance joint"),
    Var("E_elastic", "output", "J", "elastic energy: contact plus the flexible link's strain"),
    Var("W_dissipated", "output", "J", "work of the contact's and the flexible link's damping (never positive): "
        "E_kin + E_pot + E_elastic change by W_drive + W_friction + W_dissipated"),
)

CLEARANCE_EQUATIONS = (
    " With clearance > 0 the bearing of one joint moves in the plane normal to its journal (planar model; the "
    "spatial model also tilts its axis), pressed by a Flores et al. (2011) contact force K delta<sup>1.5</sup>"
    "(1 + chi deltad/deltad<sub>0</sub>) with regularised friction, impacts and separations located as events; "
    "with n_rfe > 0 one link is a chain of rigid finite elements joined by spring-dampers (RFEM, seed 003). "
    "The loop is then solved in the cut form with Baumgarte's stabilisation on every coordinate.")


def clearance_system(p, params, load):
    """The ClearanceRSRRRSystem factory of the parameters p, or None for the ideal rigid linkage."""
    if p["clearance"] == 0 and p["n_rfe"] == 0:
        return None
    # here: the ideal linkage's start-up imports none of the clearance and flexible-link models
    from friction_joints.spatial.clearance_rsrrr import APPROACHES, MODELS, ClearanceParameters, ClearanceRSRRR
    from friction_joints.spatial.clearance_system import ClearanceRSRRRSystem

    cp = ClearanceParameters(clearance=p["clearance"], joint=int(p["clearance_joint"]) - 1,
                             model=MODELS[int(p["clearance_model"]) - 1], k_contact=p["k_contact"] or None,
                             e_restitution=p["e_restitution"], E_joint=p["E_joint"], nu_joint=p["nu_joint"],
                             flexible=int(p["flexible_link"]) - 1,
                             n_rfe=int(p["n_rfe"]), rfem=APPROACHES[int(p["rfem"]) - 1], E=p["E"], G=p["G"])
    mech = ClearanceRSRRR(params, cp)
    return lambda inputs: ClearanceRSRRRSystem(mech, inputs, load)


class RSRRRLinkage(SystemSlave):
    author = "friction-joints"
    description = ("Spatial RSRRR linkage (seed 002) cut at its spherical joint, with load-dependent journal "
                   "friction in its four revolute joints (Table 1 data), optional exact stiction")
    equations = ("Two open chains from the base joined at the cut spherical joint S: [A1 0 -D1; 0 A2 D2; "
                 "D1<sup>T</sup> -D2<sup>T</sup> 0] [qdd1; qdd2; f<sub>S</sub>] = [e1 + t<sub>dr</sub> - t<sub>res</sub> - "
                 "t<sub>f</sub>1; e2 - t<sub>f</sub>2; c] (seed 002 eq. 2, A and e by composite rigid bodies and "
                 "recursive Newton-Euler, Baumgarte-stabilised closure); joint reactions by the Newton-Euler "
                 "recursion (eqs 3.1-3.8); friction torque t<sub>f</sub> = t<sub>A</sub> + t<sub>B</sub> + t<sub>C</sub> "
                 "from the journal loads (eqs 4-6.2) with the kinetic characteristic mu = mu<sub>0</sub>(1 - exp(-k|psid|/"
                 "psid<sub>k</sub>)) (eq. 7), the reaction-friction coupling iterated to convergence. The resistance "
                 "on the driving link is tau_res + max(0, load_t0 + load_c (psid[1] - load_psid0)). With stiction on, "
                 "the linkage also sticks when psid[1] = 0 while every joint can hold the same fraction of its static "
                 "limit. With friction_model 1-4 every surface A, B, C with a nonzero level instead carries a bristle "
                 "law (seed 003: Dahl, LuGre, elasto-plastic, Gonthier) with its own deflection z: t<sub>a</sub> = "
                 "N<sub>a</sub> (&sigma;<sub>0</sub> z + &sigma;<sub>1</sub> z') + &sigma;<sub>2</sub> psid, "
                 "N<sub>a</sub> the surface's load times its arm (eqs 5.1-6.2), mu_c = 0.2 mu_scale (Table 1), mu_s = "
                 "mu_s_factor mu_c, t<sub>f</sub> the sum over the joint's surfaces; no stick events, the stiff "
                 "smooth system integrated by RODAS (LSODA on the Python engine), the coupling solved by Newton's "
                 "method.") + CLEARANCE_EQUATIONS
    inputs = ("tau", "tau_res")
    experiment = Experiment(2.5, 0.01, ("psid[1]", "psid[2]", "f_S[2]", "t_f[2]"),
                            {"tau": lambda t: 10.0 * min(t / 2.0, 1.0), "tau_res": lambda t: 0.0},
                            "tau ramped to 10 N.m over 2 s from rest, governed load (seed 002 Fig. 10)")
    variables = (
        Var("tau", "input", "N.m", "drive torque on the driving link (1,1)", 0.0),
        Var("tau_res", "input", "N.m", "resistance torque on the driving link (1,1), opposing positive rotation", 0.0),
        Var("friction", "parameter", "", "friction in the joints (false: ideal joints)", True, kind="Boolean"),
        Var("stiction", "parameter", "", "exact static friction at rest (beyond the paper; friction_model 0 only)",
            False, kind="Boolean"),
        Var("mu_scale", "parameter", "1", "factor on every friction level of Table 1 (mu_A = mu_B = mu_C = 0.2)", 1.0, 0.0),
        Var("mu_s_factor", "parameter", "1", "static level / kinetic level of every surface: the holding limit with "
            "stiction, mu_s / mu_c of the bristle laws 2-4", 1.0, 1.0),
        Var("load_t0", "parameter", "N.m", "governed load: resistance at load_psid0", 10.0, 0.0),
        Var("load_psid0", "parameter", "rad/s", "governed load: speed where it equals load_t0", 9.0),
        Var("load_c", "parameter", "N.m.s/rad", "governed load: slope (0: no load)", 5.0, 0.0),
        Var("y0", "parameter", "m", "base of chain 2 at (0, -y0, z0)", 0.1),
        Var("z0", "parameter", "m", "base of chain 2 at (0, -y0, z0)", 0.22, 0.0),
        Var("psi1_start", "parameter", "rad", "initial driving angle (pi/2: every link in the yz plane)",
            math.pi / 2, display="deg"),
        Var("psid1_start", "parameter", "rad/s", "initial driving speed", 0.0),
        Var("baumgarte", "parameter", "1/s", "Baumgarte constants alpha = beta of the closure", 10.0, 0.0),
        Var("rtol", "parameter", "1", "relative tolerance of the internal integrator", 1e-6, 1e-12, 1e-2),
    ) + FrictionModelSlave.BRISTLE_PARAMETERS + _outputs() + CLEARANCE_VARIABLES

    def build(self, p):
        params = RSRRRParameters(y0=p["y0"], z0=p["z0"], journals=table1_journals(p["mu_scale"], p["mu_s_factor"]),
                                 friction=bool(p["friction"]), alpha=p["baumgarte"], beta=p["baumgarte"])
        load = SpeedLoad(p["load_t0"], p["load_psid0"], p["load_c"]) if p["load_c"] > 0 else None
        mech = RSRRR(params)

        def start(system):
            return system.initial_state(p["psi1_start"], p["psid1_start"])

        model = int(p["friction_model"])
        make = clearance_system(p, params, load)
        if make and (p["stiction"] or model):
            raise ValueError(f"stiction = {bool(p['stiction'])} and friction_model = {model} must be false and 0 with "
                             "a clearance or a flexible link (one smooth mode, the journal friction of eqs 4-7)")
        if make:
            return make, start, p["rtol"]
        if model == 0:
            return lambda inputs: RSRRRSystem(mech, inputs, load, stiction=bool(p["stiction"])), start, p["rtol"]
        if p["stiction"]:
            raise ValueError(f"stiction=True is outside its allowed range with friction_model={model}: only False "
                             "(the bristles hold the joints)")
        from friction_joints.spatial.bristle import BristleRSRRRSystem, surface_laws  # here: the exact model imports none

        laws = surface_laws(mech, model, **FrictionModelSlave.bristle_options(p))
        return lambda inputs: BristleRSRRRSystem(mech, laws, inputs, load), start, p["rtol"]

    def publish(self, rec):
        out = dict(stuck=bool(rec["stuck"]), E_kin=rec["E_kin"], E_pot=rec["E_pot"], W_drive=rec["W_drive"],
                   W_res=rec["W_res"], W_friction=rec["W_friction"], closure=rec["closure"])
        for i in range(4):
            out.update({f"psi[{i + 1}]": rec["q"][i], f"psid[{i + 1}]": rec["qd"][i], f"psidd[{i + 1}]": rec["qdd"][i],
                        f"t_f[{i + 1}]": rec["t_f"][i]})
            for k, a in enumerate("xyz"):
                out[f"f_{a}[{i + 1}]"] = rec["f_O"][i][k]
                out[f"n_{a}[{i + 1}]"] = rec["n_O"][i][k]
        out.update({f"f_S[{k + 1}]": rec["f_S"][k] for k in range(3)})
        out.update({name: rec.get(name, 0.0) for name in ("e_clearance", "F_contact", "E_elastic", "W_dissipated")})
        return out
