"""Bristle friction on the journal surfaces A, B, C of the RSRRR linkage (spatial.bristle): the same
torques and reactions as the exact model at steady deflections, the energy balance, the friction of
every surface within its bounds and on the Stribeck curve in steady sliding, convergence of a run to
the exact kinetic model's as sigma0 grows, the drift of a held linkage with LuGre (none with the
elasto-plastic law), and the errors on bad input."""

import dataclasses

import numpy as np
import pytest

from friction_joints.engine import run
from friction_joints.spatial.bristle import BristleRSRRRSystem, frictional_surfaces, steady_deflection, surface_laws
from friction_joints.spatial.rsrrr import RSRRR, RSRRRParameters, table1_journals
from friction_joints.spatial.system import RSRRRSystem

TAU, PSID0 = 3.0, 5.0  # constant drive torque (N.m) and initial driving speed (rad/s) of the runs
E2 = {"float_kind": "{:.2e}".format}


def test_surfaces_and_bad_input():
    mech = RSRRR()
    surfaces = frictional_surfaces(mech)
    assert len(surfaces) == 11 and (0, 2) not in surfaces  # joint (1,1) has no face friction (Table 1)
    laws = surface_laws(mech, 2, sigma0=1e4, sigma1=1.0)
    assert [law.mu_c for law in laws] == [0.2] * 11
    with pytest.raises(ValueError, match="laws must give 11 bristle laws"):
        BristleRSRRRSystem(mech, laws[:10], [TAU, 0.0])
    with pytest.raises(ValueError, match=r"laws\[3\] must be a bristle law"):
        BristleRSRRRSystem(mech, laws[:3] + (0.2,) + laws[4:], [TAU, 0.0])
    with pytest.raises(ValueError, match=r"sigma0=0.0 is outside the allowed range \(0, inf\)"):
        surface_laws(mech, 2, sigma0=0.0, sigma1=1.0)
    with pytest.raises(ValueError, match=r"model=5 is outside the allowed range \[1, 4\]"):
        surface_laws(mech, 5, sigma0=1e4, sigma1=1.0)
    with pytest.raises(ValueError, match=r"z must have shape \(11,\)"):
        BristleRSRRRSystem(mech, laws, [TAU, 0.0]).initial_state(z=np.zeros(4))
    with pytest.raises(ValueError, match="inputs \\(tau, tau_res\\) must give 2 signals"):
        BristleRSRRRSystem(mech, laws, [TAU])
    ideal = RSRRR(RSRRRParameters(friction=False))
    assert frictional_surfaces(ideal) == () and surface_laws(ideal, 2, sigma0=1e4, sigma1=1.0) == ()


@pytest.mark.parametrize("model", [1, 2, 3, 4])
def test_steady_deflections_give_the_exact_models_torques_and_reactions(model):
    """mu_s = mu_c, every joint sliding far above psid_k / k and v_s, every bristle at its steady
    deflection (zdot = 0): each surface's torque is the exact model's t_a = mu_a0 arm_a load_a (eqs
    5.1-5.3) and the coupled solve gives the exact model's accelerations, reactions and t_f (eq. 4)."""
    mech = RSRRR()
    system = BristleRSRRRSystem(mech, surface_laws(mech, model, sigma0=1e4, sigma1=2.0, v_s=1e-3), [TAU, 0.0])
    y = system.initial_state(psi11=np.pi / 2 + 0.4, psid11=PSID0)
    rec = system.record(0.0, y, system.update(0.0, y, None, None)[1])
    q, qd = y[:4], y[4:8]
    assert np.abs(qd).min() > 0.5  # (1 - exp(-k |psid| / psid_k)) = 1 to 1e-65
    exact = mech.dynamics(q, qd, TAU)
    np.testing.assert_allclose(rec["zdot"], 0.0, atol=1e-12)
    np.testing.assert_allclose(rec["qdd"], exact.qdd, rtol=1e-10)
    np.testing.assert_allclose(rec["f_O"], exact.f_O, rtol=1e-10, atol=1e-10 * np.abs(exact.f_O).max())
    np.testing.assert_allclose(rec["n_O"], exact.n_O, rtol=1e-10, atol=1e-10 * np.abs(exact.n_O).max())
    np.testing.assert_allclose(rec["t_f"], exact.t_f, rtol=1e-10)
    # each surface against eqs 5.1-5.3 evaluated by hand from the exact reactions
    for (p, a), t_s, v in zip(system.surfaces, rec["t_s"], rec["psid_s"]):
        j = mech.p.journals[p]
        loads = j.surface_loads(exact.f_O[p], exact.n_O[p])
        face = (j.d_C**3 - j.d_A**3) / (3 * (j.d_C**2 - j.d_A**2)) if j.d_C > j.d_A else j.d_A / 2  # (5.3), its limit
        arm = (j.d_A / 2, j.d_B / 2, face)[a]
        np.testing.assert_allclose(t_s, np.sign(v) * (j.mu_A, j.mu_B, j.mu_C)[a] * arm * loads[a], rtol=1e-10)


def test_cut_and_minimal_forms_agree_with_bristles_off_their_steady_deflections():
    """At a state on the closure manifold with arbitrary deflections (|sigma0 z| < mu_s) the cut form
    (eq. 2 with Baumgarte's terms, zero there) and the minimal form give the same accelerations,
    friction torques, surface loads and bristle rates (elasto-plastic law, sigma2 > 0)."""
    mech = RSRRR(RSRRRParameters(journals=table1_journals(mu_s_factor=1.3)))
    laws = surface_laws(mech, 3, sigma0=1e4, sigma1=0.05, sigma2=1e-3, v_s=0.1)
    z = np.random.default_rng(3).uniform(-1.0, 1.0, len(laws)) * np.array([law.z_bound for law in laws])
    recs = []
    for form in ("cut", "minimal"):
        system = BristleRSRRRSystem(mech, laws, [TAU, 0.2], form=form)
        y = system.initial_state(psi11=1.0, psid11=2.0, z=z)
        recs.append(system.record(0.3, y, system.update(0.3, y, None, None)[1]))
    for key in ("qdd", "t_f", "N", "zdot", "t_s"):
        np.testing.assert_allclose(recs[1][key], recs[0][key], rtol=1e-9, atol=1e-12, err_msg=key)
    assert np.abs(recs[0]["t_f"]).min() > 0


@pytest.fixture(scope="module")
def stribeck_run():
    """0.1 s of LuGre with a Stribeck drop (mu_s = 1.5 mu_c, v_s = 0.5 rad/s) and viscous friction in
    every surface, sigma0 = 1e4 1/rad, from PSID0 with steady deflections; joints (2,2) and (2,3)
    start at rest and so pre-slide, then slide."""
    mech = RSRRR(RSRRRParameters(journals=table1_journals(mu_s_factor=1.5)))
    laws = surface_laws(mech, 2, sigma0=1e4, sigma1=1.0, sigma2=2e-4, v_s=0.5)
    system = BristleRSRRRSystem(mech, laws, [TAU, 0.0])
    return system, run(system, system.initial_state(psid11=PSID0), 0.1, dt_out=0.002, rtol=1e-7, atol=1e-9,
                       engine="python")


def test_energy_balance_closes_with_the_work_of_the_bristles(stribeck_run):
    """E_kin + E_pot - its start = W_drive + W_friction (W_friction includes the energy the bristles
    hold), to the integrator's tolerance; friction takes energy overall."""
    _, r = stribeck_run
    E = r["E_kin"] + r["E_pot"]
    balance = np.abs(E - E[0] - r["W_drive"] - r["W_friction"]).max()
    print(f"energy balance: max |error| {balance:.2e} J, W_drive {r['W_drive'][-1]:.3f} J, "
          f"W_friction {r['W_friction'][-1]:.3f} J")
    assert r["W_friction"][-1] < -0.05 * r["W_drive"][-1] < 0
    assert balance < 1e-6 * np.abs(r["W_drive"]).max()


def test_every_surface_stays_within_its_bound_and_follows_the_stribeck_curve_in_sliding(stribeck_run):
    """|t_s - sigma2 psid - N sigma1 zdot| = N sigma0 |z| <= N mu_s at every sample (LuGre keeps |z| <=
    mu_s / sigma0). In sliding (|psid| > 0.5 rad/s, after 10 ms) t_s is the Stribeck curve
    N mu(psid) sgn(psid) + sigma2 psid shifted by the bristle's quasi-steady lag: LuGre gives exactly
    sigma0 z + sigma1 zdot = mu sgn(v) + (sigma1 - mu / |v|) zdot, and a bristle following its steady
    deflection mu(v) sgn(v) / sigma0 of an accelerating slip has zdot = mu'(|v|) vdot / sigma0 (derived
    here). That prediction must leave a residual far below both the lag and the curve's Stribeck part."""
    system, r = stribeck_run
    laws = system.laws
    mu_s, mu_c = (np.array([getattr(law, name) for law in laws]) for name in ("mu_s", "mu_c"))
    sigma0, sigma1, sigma2 = (np.array([getattr(law, name) for law in laws]) for name in ("sigma0", "sigma1", "sigma2"))
    N, v, t_s, zdot = r["N"], r["psid_s"], r["t_s"], r["zdot"]
    assert N.min() >= 0 and N.max() > 0.1
    assert np.all(np.abs(t_s - sigma2 * v - N * sigma1 * zdot) <= N * mu_s * (1 + 1e-6) + 1e-12)
    mu = np.array([[law.mu(x) for law, x in zip(laws, row)] for row in v])
    h = 1e-6  # rad/s: central difference of the curve
    slope = np.array([[(law.mu(abs(x) + h) - law.mu(abs(x) - h)) / (2 * h) for law, x in zip(laws, row)] for row in v])
    zdot_ss = slope * r["qdd"][:, system.joint] / sigma0
    curve = N * mu * np.sign(v) + sigma2 * v
    lagging = curve + N * (sigma1 - mu / np.abs(v)) * zdot_ss
    sliding = (np.abs(v) > 0.5) & (r["t"][:, None] > 0.01)
    lag, residual = ((np.abs(t_s - x) / (N * mu))[sliding] for x in (curve, lagging))
    stribeck = (mu / mu_c - 1)[sliding]  # the curve's part above mu_c
    print(f"sliding: {sliding.sum()} samples; |t_s - curve| / (N mu) up to {lag.max():.2e}, less the quasi-steady "
          f"lag {residual.max():.2e}; Stribeck part up to {stribeck.max():.2e}")
    assert sliding.sum() > 100 and lag.max() < 1e-2
    assert residual.max() < 0.05 * lag.max() and residual.max() < 1e-3 * stribeck.max()


@pytest.mark.slow
def test_lugre_run_converges_to_the_exact_kinetic_model_as_sigma0_grows():
    """LuGre with mu_s = mu_c (no Stribeck drop), sigma1 = 1 s/rad, against the exact model with a sharp
    kinetic characteristic (eq. 7 with psid_k = 1e-4 rad/s, so that its own smoothing at the velocity
    reversals is far shorter than the bristles'), 0.1 s from PSID0 with joints (2,2), (2,3) starting at
    rest: the largest joint-angle difference falls with sigma0 = 1e3, 1e4, 1e5 1/rad. The bristles lag
    the reversal by a slip angle of order mu / sigma0, during which joints accelerating at a have
    wrong friction for a time ~ sqrt(mu / (sigma0 a)): the error should fall like sigma0^-1/2 or faster."""
    journals = tuple(dataclasses.replace(j, psid_k=1e-4) for j in table1_journals())
    mech = RSRRR(RSRRRParameters(journals=journals))
    exact = RSRRRSystem(mech, [TAU, 0.0])
    ref = run(exact, exact.initial_state(psid11=PSID0), 0.1, dt_out=0.005, rtol=1e-10, atol=1e-12)
    errors = []
    for sigma0 in (1e3, 1e4, 1e5):
        system = BristleRSRRRSystem(mech, surface_laws(mech, 2, sigma0=sigma0, sigma1=1.0, v_s=1e-3), [TAU, 0.0])
        res = run(system, system.initial_state(psid11=PSID0), 0.1, dt_out=0.005, rtol=1e-8, atol=1e-10,
                  engine="python")
        errors.append(np.abs(res["q"] - ref["q"]).max())
    rates = np.log10(np.array(errors[:-1]) / errors[1:])
    print(f"max |q - q_exact| {np.array2string(np.array(errors), formatter=E2)} rad (range "
          f"{np.ptp(ref['q'], axis=0).max():.3f} rad), rates {rates.round(2)} per decade of sigma0")
    assert np.all(rates > 0.3) and rates[-1] > 0.4, (errors, rates)  # measured: 0.35, 0.46
    assert errors[-1] < 1e-3 * np.ptp(ref["q"], axis=0).max()


def test_steady_deflection_is_each_laws_closed_form():
    """zdot(z, v) = 0 at sigma0 z = mu_c sgn(v) (Dahl), mu(v) sgn(v) (LuGre, elasto-plastic: alpha = 1
    there) and mu_s sgn(v) (Gonthier's bristle; its blend gives the Stribeck curve); 0 at rest."""
    mech = RSRRR(RSRRRParameters(journals=table1_journals(mu_s_factor=1.5)))
    for model in (1, 2, 3, 4):
        law = surface_laws(mech, model, sigma0=1e4, sigma1=1.0, v_s=0.3)[0]
        for v in (-2.0, 0.05, 0.3, 3.0):
            level = {1: law.mu_c, 4: law.mu_s}.get(model, float(law.mu(v)))
            assert steady_deflection(law, v) == pytest.approx(np.sign(v) * level / law.sigma0, rel=1e-12), (model, v)
        assert steady_deflection(law, 0.0) == 0.0


@pytest.mark.slow
def test_a_held_linkage_creeps_with_lugre_and_not_with_the_elasto_plastic_law():
    """The linkage at rest at psi11 = pi/2 (in equilibrium without torque) under 0.15 + 0.1 sin 4 pi t N.m,
    below the breakaway of its journals: with LuGre the driving link creeps forward cycle by cycle (the
    known drift of LuGre under a sub-breakaway oscillating load); with the elasto-plastic law every
    surface's deflection stays inside z_ba (purely elastic, alpha = 0) and after the first cycle the
    motion repeats, so over the second cycle the driving angle does not move, to the integrator's accuracy."""
    mech = RSRRR()

    def torque(t):
        return 0.15 + 0.1 * np.sin(4.0 * np.pi * t)

    drift = {}
    for model in (2, 3):
        laws = surface_laws(mech, model, sigma0=1e4, sigma1=5.0, v_s=3e-3)
        system = BristleRSRRRSystem(mech, laws, [torque, 0.0])
        res = run(system, system.initial_state(), 1.0, dt_out=0.01, rtol=1e-7, atol=1e-9, engine="python")
        psi11 = res["q"][res.rows_at([0.5, 1.0]), 0]
        drift[model] = psi11[1] - psi11[0]  # over the second cycle of the torque
        assert np.abs(res["q"][:, 0] - res["q"][0, 0]).max() < 1e-4  # held: no breakaway
        if model == 3:
            z_ba = np.array([law.z_ba_ratio * law.mu_c / law.sigma0 for law in laws])
            assert np.all(np.abs(res["z"]) < z_ba)
    print(f"held linkage, drift of psi11 over one cycle: LuGre {drift[2]:.2e} rad, elasto-plastic {drift[3]:.2e} rad")
    assert drift[2] > 1e-6 and abs(drift[3]) < 1e-4 * drift[2]
