"""Bristle friction in the joints of a planar mechanism (planar.BristleSystem): the coupled
reaction-friction solve against the exact model, the energy balance, and convergence of seed 000
Example 2's stick-slip to the exact event-driven run as sigma0 grows."""

import numpy as np
import pytest

from friction_joints.engine import run
from friction_joints.mechanisms import slider_crank
from friction_joints.planar import MechanismSystem
from friction_joints.planar.bristle import BristleSystem, contact_laws
from friction_joints.simulation import simulate

E2 = {"float_kind": "{:.2e}".format}


def torque(t):
    return 4.0 * np.sin(3.0 * t)  # the SliderCrank FMU's default experiment: stuck at rest, then slip


def bristle_run(mech, laws, t_end, dt_out=0.005):
    system = BristleSystem(mech, laws, [torque])
    return run(system, system.initial_state(mech.assemble([0.0]), [0.0]), t_end, dt_out=dt_out, rtol=1e-8,
               atol=1e-10, engine="python")


def test_laws_are_validated():
    mech = slider_crank()
    with pytest.raises(ValueError, match="laws must give 4 bristle laws"):
        BristleSystem(mech, contact_laws(mech, 2, sigma0=1e4, sigma1=1.0)[:3], [0.0])
    with pytest.raises(ValueError, match="sigma1 must be one value or 4"):
        contact_laws(mech, 2, sigma0=1e4, sigma1=[1.0, 2.0])
    with pytest.raises(ValueError, match="model=7"):
        contact_laws(mech, 7, sigma0=1e4, sigma1=1.0)


@pytest.mark.parametrize("model", [1, 2, 3, 4])
def test_steady_bristles_give_the_exact_models_reactions_and_friction(model):
    """With every bristle at its steady sliding deflection (zdot = 0) and the slip far above v_s, the
    signed coefficient is -sgn(v) mu_k in every joint: the coupled solve (seed 000 eq. 3.3) must give
    the exact model's f, f_mu and udot at the same state."""
    mech = slider_crank()
    laws = contact_laws(mech, model, sigma0=1e4, sigma1=3.0, v_s=1e-4)
    system = BristleSystem(mech, laws, [2.0])
    q, u = mech.assemble([0.7]), np.array([3.0])
    sd = mech.minimal.kinematics(q, u, mech.partition)["sd"][system.contacts]
    z = np.array([np.sign(v) * law.mu(v) / law.sigma0 for v, law in zip(sd, laws)])
    if model == 4:  # Gonthier: the bristle saturates at mu_s / sigma0, blended out at |v| >> v_s
        z = np.array([np.sign(v) * law.mu_s / law.sigma0 for v, law in zip(sd, laws)])
    y = system.initial_state(q, u, z)
    rec = system.record(0.0, y, system.update(0.0, y, None, None)[1])
    exact = MechanismSystem(mech, [2.0]).minimal.evaluate(q, u, [2.0], mech.partition)
    np.testing.assert_allclose(rec["zdot"], 0.0, atol=1e-12 * np.abs(sd).max())
    np.testing.assert_allclose(rec["f"], exact.f, rtol=1e-10, atol=1e-10 * np.abs(exact.f).max())
    np.testing.assert_allclose(rec["f_mu"], exact.f_mu, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(rec["udot"], exact.udot, rtol=1e-10)


def test_energy_balance_closes_with_the_work_of_the_bristles():
    """E_kin + E_pot - its start = W_drive + W_friction along a run through stiction, breakaway and
    slip (LuGre, sigma0 = 1e4 1/rad or 1/m, sigma2 > 0), to the integrator's tolerance."""
    mech = slider_crank()
    laws = contact_laws(mech, 2, sigma0=1e4, sigma1=5.0, sigma2=[0.01, 0.01, 0.01, 0.5], v_s=1e-3)
    assert_energy_balance(bristle_run(mech, laws, 0.5), 1e-6)


def assert_energy_balance(res, tolerance):
    """E_kin + E_pot - its start = W_drive + W_friction to tolerance times max |W_drive| along the run res,
    which must slip (|u| above 0.3 rad/s) and dissipate (W_friction below -1 % of max |W_drive|)."""
    energy = res["E_kin"] + res["E_pot"]
    balance = energy - energy[0] - res["W_drive"] - res["W_friction"]
    scale = np.abs(res["W_drive"]).max()
    print(f"energy balance: max |error| {np.abs(balance).max():.2e} J of W_drive up to {scale:.3f} J")
    assert np.abs(res["u"]).max() > 0.3 and res["W_friction"][-1] < -0.01 * scale
    assert np.abs(balance).max() < tolerance * scale


@pytest.mark.slow
def test_stick_slip_of_example_2_converges_to_the_exact_model_as_sigma0_grows():
    """Seed 000 Example 2 held at th1 = 0.5 rad by the torque balancing gravity there, plus 2 sin 5t
    N.m: the exact model sticks on [0, 0.24] s, slips, sticks at 0.59 s and breaks away at 0.72 s.
    LuGre in all four joints (sigma1 = 0.05 sqrt(sigma0), v_s = 3e-3 rad/s or m/s, above the
    pre-sliding creep rates of these sigma0): the crank angle approaches the exact event-driven run
    as sigma0 = 1e3, 1e4, 1e5 (1/rad, 1/m) grows, and so do the times the crank leaves stiction."""
    mech = slider_crank()
    q0 = mech.assemble([0.5])
    rest = mech.minimal.evaluate(q0, [0.0], [0.0], mech.partition, direction=np.zeros(4))
    tau_eq = -float(rest.M2[0, 0] * rest.udot[0])  # the torque holding the crank against gravity

    def drive(t):
        return tau_eq + 2.0 * np.sin(5.0 * t)

    t_end, dt = 0.8, 0.005
    exact = simulate(mech, [drive], t_end, q0, [0.0], dt_out=dt, rtol=1e-10, atol=1e-12)
    grid = np.arange(0.0, t_end + 1e-9, dt)
    th_exact, u_exact = exact["q"][exact.rows_at(grid), 0], exact["u"][exact.rows_at(grid), 0]
    assert [k for _, k in exact.events] == ["stick", "breakaway", "stick", "breakaway"]

    def releases(u):  # the first time the crank moves faster than 0.01 rad/s after each exact stick
        return np.array([grid[np.flatnonzero((grid > t) & (np.abs(u) > 0.01))[0]] for t in exact.event_times("stick")])

    errors, release_errors = [], []
    for sigma0 in (1e3, 1e4, 1e5):
        laws = contact_laws(mech, 2, sigma0=sigma0, sigma1=0.05 * np.sqrt(sigma0), v_s=3e-3)
        system = BristleSystem(mech, laws, [drive])
        res = run(system, system.initial_state(q0, [0.0]), t_end, dt_out=dt, rtol=1e-8, atol=1e-10, engine="python")
        rows = res.rows_at(grid)
        errors.append(np.abs(res["q"][rows, 0] - th_exact).max())
        release_errors.append(np.abs(releases(res["u"][rows, 0]) - releases(u_exact)).max())
    rates = np.log10(np.array(errors[:-1]) / errors[1:])
    print(f"Example 2, LuGre: max |th1 - th1_exact| {np.array2string(np.array(errors), formatter=E2)} rad "
          f"(range {np.ptp(th_exact):.4f} rad), rates {rates.round(2)} per decade of sigma0; release time errors "
          f"{np.array2string(np.array(release_errors), formatter=E2)} s")
    assert np.all(rates > 0.15) and np.log10(errors[0] / errors[-1]) / 2 > 0.4, (errors, rates)
    assert errors[-1] < 0.05 * np.ptp(th_exact)
    assert release_errors[-1] < release_errors[0]


def test_a_held_crank_creeps_with_lugre_and_not_with_the_elasto_plastic_law():
    """Example 2 held at th1 = 0.5 rad by the torque balancing gravity plus 0.2 + 0.15 sin 4 pi t N.m (below
    every joint's breakaway: the exact model stays stuck), sigma0 = 1e4: with LuGre the crank drifts
    forward cycle by cycle; with the elasto-plastic law every deflection stays inside z_ba (purely
    elastic, alpha = 0), so after the start the motion repeats each cycle to the integrator's accuracy."""
    mech = slider_crank()
    q0 = mech.assemble([0.5])
    rest = mech.minimal.evaluate(q0, [0.0], [0.0], mech.partition, direction=np.zeros(4))
    tau_eq = -float(rest.M2[0, 0] * rest.udot[0])

    def drive(t):
        return tau_eq + 0.2 + 0.15 * np.sin(4.0 * np.pi * t)

    exact = simulate(mech, [drive], 1.5, q0, [0.0], dt_out=0.5, rtol=1e-10, atol=1e-12)
    assert [k for _, k in exact.events] == ["stick"]
    drift = {}
    for model in (2, 3):
        laws = contact_laws(mech, model, sigma0=1e4, sigma1=5.0, v_s=3e-3)
        system = BristleSystem(mech, laws, [drive])
        res = run(system, system.initial_state(q0, [0.0]), 1.5, dt_out=0.005, rtol=1e-8, atol=1e-10, engine="python")
        th = res["q"][res.rows_at([0.5, 1.5]), 0]
        drift[model] = th[1] - th[0]  # over two periods of the torque
        if model == 3:
            z_ba = np.array([law.z_ba_ratio * law.mu_c / law.sigma0 for law in laws])
            assert np.all(np.abs(res["z"]) < z_ba)
    print(f"held crank, drift over two cycles: LuGre {drift[2]:.2e} rad, elasto-plastic {drift[3]:.2e} rad")
    assert drift[2] > 1e-7 and abs(drift[3]) < 1e-9
