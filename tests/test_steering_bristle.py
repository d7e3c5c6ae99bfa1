"""The steering system with bristle friction in its four elements (vehicle.SteeringBristle): without dry
friction it is the linear model with the sigma2 dampers, its energy balance closes with the work of the
bristles, and its stick-slip converges to the exact event-driven model's as sigma0 grows."""

import numpy as np
import pytest
from scipy.signal import lsim
from test_steering import linear_model

from friction_joints.engine import run
from friction_joints.vehicle import ELEMENTS, SteeringBristle, SteeringParameters, SteeringSystem, element_laws

E2 = {"float_kind": "{:.2e}".format}


def inputs():
    """The driver and aligning moments of test_steering's run (N.m), wheel loads 3.5 and 3.8 kN."""
    return [lambda t: 3.0 * np.sin(np.pi * t), lambda t: -20.0 * np.sin(np.pi * t),
            lambda t: -25.0 * np.sin(np.pi * t), 3500.0, 3800.0]


def bristle_run(params, laws, t_end, dt=0.005):
    system = SteeringBristle(params, laws, inputs())
    return run(system, system.initial_state(), t_end, dt_out=dt, rtol=1e-8, atol=1e-10, engine="python")


def test_laws_are_validated():
    p = SteeringParameters()
    with pytest.raises(ValueError, match="laws must give 4"):
        SteeringBristle(p, element_laws(p, 2, sigma0=1e4, sigma1=1.0)[:3], inputs())
    with pytest.raises(ValueError, match=r"laws\[1\] must have mu_c = 1 and mu_s = static_factor = 1.5"):
        SteeringBristle(SteeringParameters(static_factor=1.5), element_laws(p, 2, sigma0=1e4, sigma1=1.0), inputs())
    with pytest.raises(ValueError, match="sigma1 must be one value or 4"):
        element_laws(p, 2, sigma0=1e4, sigma1=[1.0, 2.0])
    with pytest.raises(ValueError, match="sigma0"):
        element_laws(p, 3, sigma0=0.0, sigma1=1.0)
    with pytest.raises(ValueError, match="z must have shape"):
        SteeringBristle(p, element_laws(p, 1, sigma0=1e4, sigma1=1.0), inputs()).initial_state(z=[0.0])


def test_without_dry_friction_the_model_is_the_linear_one_with_the_sigma2_dampers():
    """friction_scale = 0 (every load N = 0) and no freeplay: only sigma2 v acts in each element, so the
    model is test_steering's linear model with sigma2 added on the diagonal of C at the element's
    coordinate; a chirp torque drives both (the bristle deflections still evolve, unloaded)."""
    p = SteeringParameters(friction_scale=0.0, b=0.0)
    sigma2 = np.array([0.05, 300.0, 2.0, 3.0])  # N.m.s/rad, N.s/m (rack), N.m.s/rad
    t = np.linspace(0.0, 1.0, 501)
    tau = 2.0 * np.sin(2 * np.pi * (0.5 * t + 3.0 * t**2))
    system = SteeringBristle(p, element_laws(p, 2, sigma0=1e4, sigma1=1.0, sigma2=sigma2),
                             [lambda s: np.interp(s, t, tau), 0.0, lambda s: 5.0 * np.sin(7.0 * s), 3500.0, 3500.0])
    r = run(system, system.initial_state(), 1.0, dt_out=0.002, rtol=1e-9, atol=1e-11, engine="python")
    M, C, K, B = linear_model(p)
    C[SteeringSystem.FRICTION_DOF, SteeringSystem.FRICTION_DOF] += sigma2
    Minv = np.linalg.inv(M)
    A = np.block([[np.zeros((5, 5)), np.eye(5)], [-Minv @ K, -Minv @ C]])
    _, y, _ = lsim((A, np.vstack((np.zeros((5, 3)), Minv @ B)), np.eye(10), np.zeros((10, 3))),
                   np.column_stack((tau, 0 * t, 5.0 * np.sin(7.0 * t))), t)
    rows = r.rows_at(t)
    scale = np.abs(y[:, :5]).max(axis=0)
    assert np.all(np.abs(r["q"][rows] - y[:, :5]) <= 2e-5 * scale), np.abs(r["q"][rows] - y[:, :5]).max(axis=0)
    np.testing.assert_allclose(r["friction"][rows], -sigma2 * r["qd"][rows][:, SteeringSystem.FRICTION_DOF],
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("model", [1, 2, 3, 4])
def test_energy_balance_closes_with_the_work_of_the_bristles(model):
    """E_kin + E_spring - its start = W_driver + W_aligning + W_friction + W_damping along a run through
    pre-sliding, breakaway and slip of every element (each law, sigma0 = 1e4, sigma2 > 0), to the
    integrator's tolerance; friction took energy out in the end; each element's load N is the exact
    element's kinetic level, and in steady slip its friction is the Stribeck level N mu(v) + sigma2 v."""
    p = SteeringParameters()
    laws = element_laws(p, model, sigma0=1e4, sigma1=5.0, sigma2=[0.01, 20.0, 0.1, 0.1])
    r = bristle_run(p, laws, 1.0)
    E = r["E_kin"] + r["E_spring"]
    W = r["W_driver"] + r["W_aligning"] + r["W_friction"] + r["W_damping"]
    scale = np.abs(r["W_driver"]).max()
    print(f"model {model}: energy balance: max |error| {np.abs(E - E[0] - W).max():.2e} J of W_driver up to "
          f"{scale:.3f} J")
    assert np.abs(E - E[0] - W).max() < 1e-7 * scale
    assert r["W_friction"][-1] < -0.05 * scale
    # the loads are the exact elements' kinetic levels (test_steering's formulas)
    kingpin = p.mu_k * p.r_k * (np.array([3500.0, 3800.0]) + np.abs(np.column_stack((r["F_tL"], r["F_tR"]))))
    np.testing.assert_allclose(r["N"], np.column_stack((np.full(len(r.t), p.T_p), np.full(len(r.t), p.F_r), kingpin)),
                               rtol=1e-14)
    for k, (name, law) in enumerate(zip(ELEMENTS, laws)):
        v = r["qd"][:, SteeringSystem.FRICTION_DOF[k]]
        steady = (np.abs(v) > getattr(law, "v_s", 0.0)) & (np.abs(r["zdot"][:, k]) < 1e-6 * np.abs(v))
        assert steady.any() or name == "rack", name  # the rack only creeps and slips in short bursts here
        np.testing.assert_allclose(-r["friction"][steady, k], r["N"][steady, k] * law.mu(v[steady]) * np.sign(v[steady])
                                   + law.sigma2 * v[steady], rtol=1e-4, err_msg=name)


def test_stick_slip_converges_to_the_exact_model_as_sigma0_grows():
    """test_steering's run over its first second: the exact model sticks and slips in every element (the
    pinion from 0.537 s to 0.696 s, the left king-pin from 0.132 s to 0.256 s and from 0.327 s to
    0.600 s, ...). LuGre in every element (sigma1 = 0.05 sqrt(sigma0), v_s = 1e-3) with sigma0 = 1e3,
    1e4, 1e5 (1/rad, 1/m): the five coordinates approach the exact run at about 0.7 decades per decade of
    sigma0, and the times the pinion and the left king-pin leave their exact stick intervals (speed above
    a tenth of its maximum) approach the exact ones on average (the last release of the king-pin moves by
    0.27 s at both 1e3 and 1e4: a creeping bristle reaches the speed threshold early). Measured beyond this
    test: at sigma0 = 1e6 the first half second keeps converging (0.10 -> 0.019 of the range) while the rack's
    rapid stick-slip after 0.6 s (cycles of about 10 ms at up to 5 v_s) holds the error of the second half at
    0.09: the convergence there is not yet asymptotic at these sigma0."""
    p = SteeringParameters()
    t_end, dt = 1.0, 0.005
    grid = np.arange(0.0, t_end + dt / 2, dt)
    exact_system = SteeringSystem(p, inputs())
    exact = run(exact_system, exact_system.initial_state(), t_end, dt_out=dt, rtol=1e-10, atol=1e-12)
    rows = exact.rows_at(grid)
    q_exact, qd_exact = exact["q"][rows], exact["qd"][rows]

    def releases(qd):
        """For the pinion and the left king-pin, the first grid time after each exact stick at which the
        element moves faster than a tenth of its exact maximum speed."""
        out = []
        for k in (0, 2):
            dof = SteeringSystem.FRICTION_DOF[k]
            v, v_max = qd[:, dof], np.abs(qd_exact[:, dof]).max()
            for t_stick in [t for t, kind in exact.events if f"stick_{ELEMENTS[k]}" in kind]:
                out.append(grid[np.flatnonzero((grid > t_stick) & (np.abs(v) > 0.1 * v_max))[0]])
        return np.array(out)

    errors, release_errors = [], []
    for sigma0 in (1e3, 1e4, 1e5):
        r = bristle_run(p, element_laws(p, 2, sigma0=sigma0, sigma1=0.05 * np.sqrt(sigma0), v_s=1e-3), t_end, dt)
        q, qd = r["q"][r.rows_at(grid)], r["qd"][r.rows_at(grid)]
        errors.append((np.abs(q - q_exact).max(axis=0) / np.ptp(q_exact, axis=0)).max())
        release_errors.append(np.abs(releases(qd) - releases(qd_exact)).mean())
    rates = np.log10(np.array(errors[:-1]) / errors[1:])
    print(f"steering, LuGre: max |q - q_exact| / range {np.array2string(np.array(errors), formatter=E2)}, rates "
          f"{rates.round(2)} per decade of sigma0; release time errors "
          f"{np.array2string(np.array(release_errors), formatter=E2)} s (mean)")
    assert np.all(rates > 0.5), (errors, rates)
    assert errors[-1] < 0.15
    assert release_errors[0] > release_errors[1] > release_errors[2] and release_errors[2] <= 5 * dt, release_errors
