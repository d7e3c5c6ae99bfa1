"""Property tests of the hybrid integrator on the Dupont two-mass system (seed 000 Sect. 3) over
random piecewise-constant forces that include exact zeros, sign changes at t = 0 and forces exactly
at the static limit mu_s m1 |F2| / (m1 + m2): every run reaches its end (no false Zeno), a stuck
mass does not creep and holds within the static limit, a slipping one feels mu_k |f_n| against its
slip, the energy balance closes, and a mass at rest with no load stays at rest. The same holds for
held inputs changed between co-simulation steps (the FMU path)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dupont_reference import M1, M2, MU_K, MU_S
from friction_joints.hybrid import PiecewiseConstant
from friction_joints.mechanisms import dupont_two_mass
from friction_joints.simulation import simulate
from friction_joints.stepping import MechanismStepper

T_END, SWITCHES = 0.6, (-1.0, 0.0, 0.2, 0.4)  # table times: the value before t = 0, then jumps at 0, 0.2, 0.4 s


def limit(f2):
    """Static limit of the friction on m1 for the guide force F2 (N): the holding force of F1."""
    return MU_S * M1 * abs(f2) / (M1 + M2)


normal_forces = st.sampled_from([0.0, 8.0, -8.0, 40.0]) | st.floats(-50.0, 50.0)
f1_kinds = st.sampled_from(["zero", "+limit", "-limit", "2 limit"]) | st.floats(-10.0, 10.0)


def f1_value(kind, f2):
    return {"zero": 0.0, "+limit": limit(f2), "-limit": -limit(f2), "2 limit": 2.0 * limit(f2)}.get(kind, kind)


@st.composite
def force_tables(draw):
    """(F1 values, F2 values): one value before t = 0, then one from each later switch time on."""
    f2 = [draw(normal_forces) for _ in SWITCHES]
    f1 = [f1_value(draw(f1_kinds), v) for v in f2]
    if draw(st.booleans()):
        f1[0] = -f1[1]  # F1 changes sign at t = 0
    return f1, f2


def check_run(res, f1_table):
    stuck, f_n, f_mu, xd = res["stuck"], res["f"][:, 0], res["f_mu"][:, 0], res["u"][:, 1]
    assert res.t[-1] == pytest.approx(T_END)
    assert np.all(xd[stuck] == 0.0), "a stuck mass must not creep"
    assert np.all(np.abs(f_mu[stuck]) <= MU_S * np.abs(f_n[stuck]) * (1 + 1e-9) + 1e-9)
    slip = ~stuck & (np.abs(xd) > 1e-9)
    np.testing.assert_allclose(f_mu[slip], -np.sign(xd[slip]) * MU_K * np.abs(f_n[slip]), rtol=1e-9, atol=1e-9)
    scale = 1.0 + np.abs(res["E_kin"]).max() + np.abs(res["W_drive"]).max()
    residual = res["W_drive"] + res["W_friction"] - (res["E_kin"] - res["E_kin"][0])
    assert np.abs(residual).max() <= 1e-6 * scale
    if all(v == 0.0 for v in f1_table[1:]):  # no load along the slot: m1 stays where it was, at rest
        assert np.all(res["q"][:, 1] == 0.0) and np.all(xd == 0.0)


@pytest.mark.parametrize("engine,examples", [("compiled", 40), ("python", 6)])
def test_piecewise_constant_forces_keep_the_friction_law(engine, examples):
    @settings(max_examples=examples, deadline=None, derandomize=True)
    @given(force_tables())
    def check(tables):
        f1, f2 = tables
        inputs = [PiecewiseConstant(SWITCHES, f1), PiecewiseConstant(SWITCHES, f2)]
        res = simulate(dupont_two_mass(M1, M2, MU_S, MU_K), inputs, T_END, [0.0, 0.0], [0.0, 0.0], dt_out=0.01,
                       rtol=1e-9, atol=1e-11, engine=engine)
        check_run(res, f1)
    check()


@settings(max_examples=25, deadline=None, derandomize=True)
@given(force_tables(), st.sampled_from([1e-3, 0.01, 0.1]))
def test_held_inputs_changed_between_steps_keep_the_friction_law(tables, h):
    """The FMU path: inputs held over each step, changed at the switch times (the first at t = 0)."""
    f1, f2 = tables
    stepper = MechanismStepper(dupont_two_mass(M1, M2, MU_S, MU_K), [0.0, 0.0], [0.0, 0.0], [f1[0], f2[0]], 1e-9)
    t, rows = 0.0, []
    while t < T_END - h / 2:
        k = int(np.searchsorted(SWITCHES, t + 1e-12, side="right")) - 1  # the table value from t on
        rec = stepper.step(t, h, [f1[k], f2[k]])
        t += h
        rows.append({**rec, "t": t})
    assert stepper.time == pytest.approx(T_END)
    if all(v == 0.0 for v in f1[1:]):
        assert all(r["q"][1] == 0.0 and r["qd"][1] == 0.0 for r in rows)
    for r in rows:
        f_n, f_mu, xd = r["f"][0], r["f_mu"][0], r["qd"][1]
        if r["stuck"]:
            assert xd == 0.0 and abs(f_mu) <= MU_S * abs(f_n) * (1 + 1e-9) + 1e-9
        elif abs(xd) > 1e-9:
            assert f_mu == pytest.approx(-np.sign(xd) * MU_K * abs(f_n), rel=1e-9, abs=1e-9)
