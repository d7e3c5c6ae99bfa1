"""The steering system and the vehicle model: a linear model reproduced without friction and
freeplay, the friction law with exact stiction, the freeplay, the energy balance, and the
single-track model's steady-state yaw gain."""

import numpy as np
import pytest
from scipy.signal import lsim

from friction_joints.engine import run
from friction_joints.vehicle import ELEMENTS, SingleTrackVehicle, SteeringParameters, SteeringSystem, VehicleParameters


def linear_model(p: SteeringParameters):
    """M, C, K (5x5) and the input matrix (5x3: tau_sw, M_z_left, M_z_right) of the steering without
    friction and freeplay, written out from the free-body diagrams (independently of SteeringSystem)."""
    M = np.diag([p.J_sw, p.J_p, p.m_r, p.J_w, p.J_w])
    K = np.zeros((5, 5))
    C = np.zeros((5, 5))

    def spring(matrix, i, j, k, gain_i=1.0, gain_j=1.0):
        """A spring/damper k on the stretch gain_i q_i - gain_j q_j."""
        g = np.zeros(5)
        g[i], g[j] = gain_i, -gain_j
        matrix += k * np.outer(g, g)

    spring(K, 0, 1, p.k_c)
    spring(C, 0, 1, p.c_c)
    spring(K, 1, 2, p.k_g, p.r_p, 1.0)
    for wheel in (3, 4):
        spring(K, 2, wheel, p.k_t, 1.0, p.l_a)
        spring(C, 2, wheel, p.c_t, 1.0, p.l_a)
        C[wheel, wheel] += p.c_w
    B = np.zeros((5, 3))
    B[0, 0], B[3, 1], B[4, 2] = 1.0, 1.0, 1.0
    return M, C, K, B


def test_without_friction_and_freeplay_the_model_is_the_linear_one():
    """Chirp driver torque and aligning moments: the hybrid model equals the linear state-space model
    (so its frequency response is the linear one) to integration accuracy."""
    p = SteeringParameters(friction_scale=0.0, b=0.0)
    t = np.linspace(0.0, 2.0, 1001)
    tau = 2.0 * np.sin(2 * np.pi * (0.5 * t + 1.5 * t**2))  # 0.5 -> 6.5 Hz
    Mz_L, Mz_R = 5.0 * np.sin(7.0 * t), -3.0 * np.sin(11.0 * t) + 1.0
    system = SteeringSystem(p, [lambda s: np.interp(s, t, tau), lambda s: np.interp(s, t, Mz_L),
                                lambda s: np.interp(s, t, Mz_R), 3500.0, 3500.0])
    r = run(system, system.initial_state(), 2.0, dt_out=0.002, rtol=1e-9, atol=1e-11)
    M, C, K, B = linear_model(p)
    Minv = np.linalg.inv(M)
    A = np.block([[np.zeros((5, 5)), np.eye(5)], [-Minv @ K, -Minv @ C]])
    _, y, _ = lsim((A, np.vstack((np.zeros((5, 3)), Minv @ B)), np.eye(10), np.zeros((10, 3))),
                   np.column_stack((tau, Mz_L, Mz_R)), t)
    rows = r.rows_at(t)
    scale = np.abs(y[:, :5]).max(axis=0)
    assert np.all(np.abs(r["q"][rows] - y[:, :5]) <= 2e-5 * scale)  # each coordinate against its own range
    # frequency response at 3 Hz from the same matrices against the simulated gain of a pure sine
    w = 2 * np.pi * 3.0
    H = np.linalg.solve(K - w**2 * M + 1j * w * C, B[:, 0])
    sine = SteeringSystem(p, [lambda s: np.sin(w * s), 0.0, 0.0, 3500.0, 3500.0])
    rs = run(sine, sine.initial_state(), 3.0, dt_out=0.005, rtol=1e-9, atol=1e-11)
    late = rs.t >= 2.0
    basis = np.column_stack((np.sin(w * rs.t[late]), np.cos(w * rs.t[late]), np.ones(late.sum()), rs.t[late]))
    coef = np.linalg.lstsq(basis, rs["q"][late][:, 3], rcond=None)[0]
    assert coef[0] + 1j * coef[1] == pytest.approx(H[3], rel=2e-3)  # sin(wt) -> Re H sin + Im H cos


@pytest.fixture(scope="module")
def steering_run():
    system = SteeringSystem(SteeringParameters(), [lambda t: 3.0 * np.sin(np.pi * t), lambda t: -20.0 * np.sin(np.pi * t),
                                                   lambda t: -25.0 * np.sin(np.pi * t), 3500.0, 3800.0])
    return system, run(system, system.initial_state(), 4.0, dt_out=0.005, rtol=1e-9, atol=1e-11)


def test_friction_law_and_exact_stiction(steering_run):
    system, r = steering_run
    p = system.p
    for k, name in enumerate(ELEMENTS):
        dof = system.FRICTION_DOF[k]
        v, f, stuck = r["qd"][:, dof], r["friction"][:, k], r["stuck"][:, k]
        assert stuck.any() and (~stuck).any(), name
        assert np.all(v[stuck] == 0.0)  # no creep
        if name.startswith("kingpin"):
            F_z = 3500.0 if name.endswith("left") else 3800.0
            F_t = r["F_tL"] if name.endswith("left") else r["F_tR"]
            level = p.mu_k * p.r_k * (F_z + np.abs(F_t))
        else:
            level = np.full(len(r.t), p.T_p if name == "pinion" else p.F_r)
        moving = np.abs(v) > 1e-9
        np.testing.assert_allclose(f[moving], -np.sign(v[moving]) * level[moving], rtol=1e-12)
        assert np.all(np.abs(f[stuck]) <= p.static_factor * level[stuck] * (1 + 1e-9) + 1e-9)
    kinds = " ".join(k for _, k in r.events)
    assert "stick_kingpin_left" in kinds and "slip_rack" in kinds


def test_energy_balance_and_freeplay(steering_run):
    system, r = steering_run
    E = r["E_kin"] + r["E_spring"]
    W = r["W_driver"] + r["W_aligning"] + r["W_friction"] + r["W_damping"]
    assert np.abs(E - E[0] - W).max() < 1e-7
    assert np.all(np.diff(r["W_friction"]) <= 1e-12) and r["W_friction"][-1] < 0
    free = r["in_freeplay"]
    assert free.any() and (~free).any()
    assert np.all(r["F_g"][free] == 0.0) and np.all(np.abs(r["F_g"][~free]) > 0)


def test_bad_parameters_name_the_parameter():
    with pytest.raises(ValueError, match="static_factor"):
        SteeringParameters(static_factor=0.5)
    with pytest.raises(ValueError, match="k_t"):
        SteeringParameters(k_t=0.0)
    with pytest.raises(ValueError, match=r"u=.*allowed range"):
        VehicleParameters(u=-1.0)


def test_single_track_steady_state_yaw_gain():
    """r / delta = u / (L + K u^2) with the understeer gradient K = m (b / C_f - a / C_r) / L, and the
    aligning moments turn the wheels back."""
    p = VehicleParameters()
    delta = 0.01
    vehicle = SingleTrackVehicle(p, [delta, delta])
    r = run(vehicle, vehicle.initial_state(), 6.0, dt_out=0.1, rtol=1e-10, atol=1e-12)
    L = p.a + p.b
    K_us = p.m * (p.b / p.C_f - p.a / p.C_r) / L
    assert r["r"][-1] == pytest.approx(p.u * delta / (L + K_us * p.u**2), rel=1e-6)
    assert r["a_y"][-1] == pytest.approx(p.u * r["r"][-1], rel=1e-6)
    assert r["M_z_left"][-1] < 0 and r["F_z_left"][-1] < r["F_z_right"][-1]
    assert r["F_z_left"][-1] + r["F_z_right"][-1] == pytest.approx(2 * p.front_wheel_load, rel=1e-12)


def test_tyre_relaxation_lags_the_response_and_keeps_the_steady_state():
    """With a relaxation length sigma the axle forces lag their steady values with time constant
    sigma / u: the step response equals the matrix exponential of the linear 4-state model written out
    here (v_y, r, F_yf, F_yr), and the steady state is that of the model without relaxation."""
    from scipy.linalg import expm

    delta = 0.01
    relaxed = SingleTrackVehicle(VehicleParameters(sigma=0.5), [delta, delta])
    p = relaxed.p
    k = p.u / p.sigma
    A = np.array([[0.0, -p.u, 1 / p.m, 1 / p.m],
                  [0.0, 0.0, p.a / p.I_z, -p.b / p.I_z],
                  [-k * p.C_f / p.u, -k * p.C_f * p.a / p.u, -k, 0.0],
                  [-k * p.C_r / p.u, k * p.C_r * p.b / p.u, 0.0, -k]])
    B = np.array([0.0, 0.0, k * p.C_f, 0.0])
    M = np.zeros((5, 5))
    M[:4, :4], M[:4, 4] = A, B * delta
    for t_end in (p.sigma / p.u, 0.5):
        r = run(relaxed, relaxed.initial_state(), t_end, dt_out=t_end, rtol=1e-11, atol=1e-12)
        exact = expm(M * t_end)[:4, 4]
        np.testing.assert_allclose([r["v_y"][-1], r["r"][-1], r["F_yf"][-1], r["F_yr"][-1]], exact,
                                   rtol=1e-7, atol=1e-9)
    assert r["F_yf"][0] == 0.0  # the force builds up instead of jumping to C_f delta
    late = run(relaxed, relaxed.initial_state(), 6.0, dt_out=0.1, rtol=1e-10, atol=1e-12)
    plain = SingleTrackVehicle(VehicleParameters(), [delta, delta])
    ref = run(plain, plain.initial_state(), 6.0, dt_out=0.1, rtol=1e-10, atol=1e-12)
    assert late["r"][-1] == pytest.approx(ref["r"][-1], rel=1e-6)


# --- the rack's end stops (issue 32 item 14) ------------------------------------------------------------
def test_rack_end_stop_holds_the_issue_case():
    """4 N.m at the steering wheel, no aligning moment (the issue's case): the rack goes to its left end
    stop and stays within rack_travel + 0.5 mm (overshoot of the impact, the steering wheel turning at
    about 1300 deg/s); at rest the stop's force balances the load, from the free-body diagrams at rest:
    steering wheel T_c = tau_sw, pinion F_g = (tau_sw + T_fp) / r_p, wheels F_ti = -T_fk,i / l_a, rack
    F_stop = -(F_g - F_tL - F_tR + F_fr), within the friction's static levels of -tau_sw / r_p. Without
    the stops the same torque takes the rack far beyond (the issue: 0.17 m)."""
    p = SteeringParameters()
    system = SteeringSystem(p, [4.0, 0.0, 0.0, 3500.0, 3500.0])
    r = run(system, system.initial_state(), 8.0, dt_out=0.01, rtol=1e-9, atol=1e-12, engine="python")
    x, F_stop = r["q"][:, 2], r["F_stop"]
    assert p.rack_travel < x.max() < p.rack_travel + 5e-4 and x.min() > -p.rack_travel
    kinds = [k for _, k in r.events]
    assert "contact_stop_left" in kinds and "contact_stop_right" not in " ".join(kinds)
    assert np.all(F_stop <= 0.0) and np.all(F_stop[x < p.rack_travel - 1e-12] == 0.0)  # pushes back only, beyond
    last = r.rows[-1]
    assert np.abs(last["qd"]).max() < 1e-5 and last["stuck"].all()  # at rest, every friction element stuck
    f = last["friction"]
    load = (4.0 + f[0]) / p.r_p + f[1] + (f[2] + f[3]) / p.l_a  # the rack's load on the stop (N)
    assert -last["F_stop"] == pytest.approx(load, rel=1e-5)
    static = p.static_factor * np.array([p.T_p / p.r_p, p.F_r, 2 * p.mu_k * p.r_k * (3500.0 + 50.0) / p.l_a])
    assert abs(-last["F_stop"] - 4.0 / p.r_p) <= static.sum()
    assert -last["F_stop"] == pytest.approx(p.k_stop * (x[-1] - p.rack_travel), rel=1e-12)  # at rest: the spring
    assert x[-1] - p.rack_travel < 1e-4  # 0.05 mm under the 530 N of 4 N.m
    free = SteeringSystem(SteeringParameters(rack_travel=1.0), [4.0, 0.0, 0.0, 3500.0, 3500.0])
    r_free = run(free, free.initial_state(), 2.0, dt_out=0.1, rtol=1e-9, atol=1e-12)
    assert r_free["q"][-1, 2] > 0.15


@pytest.mark.parametrize("c_stop", [0.0, 1e4])
def test_rack_end_stop_energy(c_stop):
    """Without friction, the other dampers and the freeplay (whose kinks the integrator steps over), hitting
    the stop: E_kin + E_spring (the stop's
    spring included) - its start = W_driver + W_damping, the stop's spring holding joules at times (the
    balance would fail without it); the stop's damping only dissipates (W_damping never rises), and an
    undamped stop dissipates nothing."""
    p = SteeringParameters(friction_scale=0.0, c_c=0.0, c_t=0.0, c_w=0.0, c_stop=c_stop, b=0.0)
    system = SteeringSystem(p, [4.0, 0.0, 0.0, 3500.0, 3500.0])
    r = run(system, system.initial_state(), 2.0, dt_out=0.005, rtol=1e-10, atol=1e-12, engine="python")
    kinds = [k for _, k in r.events]
    assert kinds.count("contact_stop_left") >= 2 and kinds.count("release_stop_left") >= 2
    E = r["E_kin"] + r["E_spring"]
    assert np.abs(E - E[0] - r["W_driver"] - r["W_damping"]).max() < 1e-6
    stop_spring = 0.5 * p.k_stop * np.maximum(r["q"][:, 2] - p.rack_travel, 0.0) ** 2
    assert stop_spring.max() > 1.0  # J
    W_d = r["W_damping"]
    assert np.diff(W_d).max() <= 1e-9
    if c_stop:
        assert W_d[-1] < -0.5
    else:
        assert np.abs(W_d).max() < 1e-8
