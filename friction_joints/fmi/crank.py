"""Variables and outputs shared by the 1-DOF slider-crank FMUs (seed 000 Examples 1 and 2).

The Integer parameter ``friction_model`` chooses the friction of every joint
(``slave.FrictionModelSlave``).
"""

from __future__ import annotations

from .slave import FrictionModelSlave, Var, publish_elements, record_elements

OUTPUTS = (
    tuple(Var(f"q[{i}]", "output", u, f"joint coordinate {n}", display=d)
          for i, (n, u, d) in enumerate((("th1", "rad", "deg"), ("th2", "rad", "deg"), ("x3", "m", None)), 1))
    + tuple(Var(f"qd[{i}]", "output", u, f"velocity of q[{i}]", display=d)
            for i, (u, d) in enumerate((("rad/s", "rpm"), ("rad/s", "rpm"), ("m/s", None)), 1))
    + tuple(Var(f"qdd[{i}]", "output", u, f"acceleration of q[{i}]")
            for i, u in enumerate(("rad/s2", "rad/s2", "m/s2"), 1))
    + (Var("u", "output", "rad/s", "independent velocity (= qd[1], the crank speed)", display="rpm"),)
    + tuple(Var(f"f[{i}]", "output", u, f"ideal reaction {i} (constraint order O, A, B, guide); while the whole "
                "mechanism sticks, with the holding friction shared in proportion to the static limits")
            for i, u in enumerate(("N",) * 7 + ("N.m",), 1))
    + tuple(Var(f"f_mu[{i}]", "output", u, d) for i, (u, d) in enumerate(
        (("N.m", "friction moment in joint O"), ("N.m", "friction moment in joint A"),
         ("N.m", "friction moment in joint B"), ("N", "friction force in the slider guide")), 1))
    + tuple(Var(f"sd[{i}]", "output", u, f"slip velocity of free coordinate s{i}")
            for i, u in enumerate(("rad/s", "rad/s", "rad/s", "m/s"), 1))
    + (Var("stuck", "output", "", "true while the mechanism is in stiction (always false with bristle friction, "
           "friction_model > 0: it has no stick mode)", False, kind="Boolean"),
       Var("E_kin", "output", "J", "kinetic energy"),
       Var("E_pot", "output", "J", "potential energy -sum m_i g . r_Ci (zero at the origin)"),
       Var("W_drive", "output", "J", "work of the drive torque (integral of tau u dt)"),
       Var("W_friction", "output", "J", "work of friction (integral of sum f_mu sd dt, never positive)"))
)


def friction_parameters(r=0.05, mu_rs=0.15, mu_rk=0.1, mu_ts=0.3, mu_tk=0.2, g=9.81):
    return ((Var("r", "parameter", "m", "friction arm of the revolute joints", r, 0.0),
            Var("mu_rs", "parameter", "1", "static friction coefficient of the revolute joints", mu_rs, 0.0),
            Var("mu_rk", "parameter", "1", "kinetic friction coefficient of the revolute joints", mu_rk, 0.0),
            Var("mu_ts", "parameter", "1", "static friction coefficient of the slider guide", mu_ts, 0.0),
            Var("mu_tk", "parameter", "1", "kinetic friction coefficient of the slider guide", mu_tk, 0.0),
            Var("g", "parameter", "m/s2", "gravitational acceleration", g),
            Var("q1_start", "parameter", "rad", "initial crank angle", 0.0, display="deg"),
            Var("u_start", "parameter", "rad/s", "initial crank speed", 0.0, display="rpm"),
            Var("rtol", "parameter", "1", "relative tolerance of the internal integrator", 1e-8, 1e-14, 1e-2))
            + FrictionModelSlave.BRISTLE_PARAMETERS)


def link_parameters(m, a):
    """m_i, a_i, J_i = m_i a_i^2 / 3 (seed data)."""
    out = []
    for i, (mi, ai) in enumerate(zip(m, a), 1):
        out += [Var(f"m{i}", "parameter", "kg", f"mass of link {i}", mi, 0.0),
                Var(f"a{i}", "parameter", "m", f"half length of link {i}", ai, 0.0),
                Var(f"J{i}", "parameter", "kg.m2", f"moment of inertia of link {i} about its centre",
                    mi * ai**2 / 3.0, 0.0)]
    return tuple(out)


class CrankSlave(FrictionModelSlave):
    """Base of the 1-DOF slider-crank slaves: input tau and the outputs of OUTPUTS."""

    inputs = ("tau",)
    TAU = Var("tau", "input", "N.m", "drive torque on link 1", 0.0)

    def publish(self, rec) -> dict:
        return publish(rec)


#: (record key, output names of its elements in order) of the record arrays published element-wise
ELEMENTS = record_elements([v.name for v in OUTPUTS], ("q", "qd", "qdd", "u", "f", "f_mu", "sd"))


def publish(rec) -> dict:
    """Output values of OUTPUTS from a ``MechanismSystem.record`` dict (its arrays: q, qd, qdd (3,),
    f (8,), f_mu, sd (4,))."""
    out = {"stuck": bool(rec["stuck"]), "E_kin": rec["E_kin"], "E_pot": rec["E_pot"],
           "W_drive": rec["W_drive"], "W_friction": rec["W_friction"]}
    return publish_elements(rec, ELEMENTS, out)
