"""Bristle friction laws (seed 003: Dahl, LuGre, elasto-plastic, Gonthier) and the bristle oscillator:
the Stribeck curve in steady sliding, pre-sliding hysteresis, breakaway, drift, passivity, the load
N(t), and convergence to the exact event-driven stick-slip as sigma0 grows."""

import numpy as np
import pytest

from friction_joints.friction import Dahl, ElastoPlastic, LuGre, dissipation, make_law, passive_sigma1_limit
from friction_joints.lumped import (BristleOscillatorParameters, SingleMassParameters, prescribed_slip,
                                    simulate_bristle, simulate_single_mass)

N, M = 10.0, 1.0  # load (N), mass (kg)
MU_C, MU_S, V_S = 0.3, 0.4, 1e-3
SIGMA0 = 1e5  # 1/m
SIGMA1 = 2.0 * np.sqrt(SIGMA0 * M / N)  # s/m: the bristle spring N sigma0 critically damped on M


def law_of(name, sigma0=SIGMA0, sigma1=SIGMA1, sigma2=0.5, mu_c=MU_C, mu_s=MU_S, v_s=V_S, z_ba_ratio=0.7):
    model = {"Dahl": 1, "LuGre": 2, "ElastoPlastic": 3, "Gonthier": 4}[name]
    return make_law(model, sigma0=sigma0, sigma1=sigma1, sigma2=sigma2, mu_c=mu_c, mu_s=mu_s, v_s=v_s, delta=2.0,
                    z_ba_ratio=z_ba_ratio)


LAWS = ["Dahl", "LuGre", "ElastoPlastic", "Gonthier"]
E2 = {"float_kind": "{:.2e}".format}  # numbers in the printed measurements


def test_parameters_are_validated_with_their_names_and_ranges():
    with pytest.raises(ValueError) as err:
        LuGre(sigma0=0.0, mu_c=0.5, mu_s=0.3, v_s=-1.0, sigma1=-2.0)
    text = str(err.value)
    for part in ("sigma0=0.0 is outside the allowed range (0, inf)", "sigma1=-2.0 is outside the allowed range [0, inf)",
                 "mu_s=0.3 is outside the allowed range [0.5, inf)", "v_s=-1.0 is outside the allowed range (0, inf)"):
        assert part in text
    with pytest.raises(ValueError, match=r"z_ba_ratio=1.0 is outside the allowed range \[0, 1\)"):
        ElastoPlastic(1e5, 0.3, 0.4, 1e-3, z_ba_ratio=1.0)
    with pytest.raises(ValueError, match=r"mu_c=0.0 is outside the allowed range \(0, inf\)"):
        Dahl(1e5, 0.0)
    with pytest.raises(ValueError, match=r"model=5 is outside the allowed range \[1, 4\]"):
        make_law(5, sigma0=1, sigma1=0, sigma2=0, mu_c=0.3, mu_s=0.4, v_s=1e-3, delta=2, z_ba_ratio=0.5)
    with pytest.raises(ValueError, match="m=0.0 is outside the allowed range"):
        BristleOscillatorParameters(law_of("LuGre"), m=0.0)


@pytest.mark.parametrize("name", LAWS)
def test_steady_sliding_gives_the_stribeck_curve(name):
    """Sliding at a constant v from z = 0 until the bristle is steady: F = sgn(v) mu(v) N + sigma2 v, the
    Stribeck curve with the laws' mu(v) (constant mu_c for Dahl, which has no Stribeck effect)."""
    law = law_of(name)
    speeds = np.array([-0.1, -3e-3, -1e-3, -3e-4, 1e-4, 5e-4, 1e-3, 2e-3, 1e-2, 0.1])
    errors = []
    for v in speeds:
        t_end = 40.0 * law.z_bound / abs(v)  # 40 relaxation lengths
        F = prescribed_slip(law, lambda t: v, t_end, N, t_eval=[t_end])["F"][-1]
        expected = np.sign(v) * law.mu(v) * N + law.sigma2 * v
        errors.append(abs(F - expected) / (MU_S * N))
    print(f"{name}: largest Stribeck curve error {max(errors):.2e} of mu_s N")
    assert max(errors) < 1e-6, f"{name}: Stribeck curve error {max(errors):.2e} of mu_s N"
    if name != "Dahl":  # the Stribeck dip: friction falls from mu_s N to mu_c N as the speed grows
        mu = law.mu(np.abs(speeds))
        assert mu[4] > 0.99 * MU_S and abs(mu[0] - MU_C) < 1e-9


def loop(law, amplitude, omega=1.0, cycles=8):
    """x = A sin(omega t): the friction-displacement record over ``cycles`` periods, 400 points each."""
    period = 2 * np.pi / omega
    t = np.linspace(0.0, cycles * period, 400 * cycles + 1)
    return prescribed_slip(law, lambda s: amplitude * omega * np.cos(omega * s), t[-1], N, t_eval=t)


@pytest.mark.parametrize("name", LAWS)
def test_pre_sliding_loop_slope_closure_and_area(name):
    """A small oscillating displacement: the virgin curve leaves x = 0 with slope N sigma0, the loop closes
    (the eighth cycle repeats the seventh) and its area grows with the amplitude."""
    law = law_of(name, sigma2=0.0)
    amplitude = 0.5 * law.z_bound
    # quasi-static (omega = 0.01 rad/s): the damping term lowers the slope by sigma1 v / mu, 7e-6 here
    start = prescribed_slip(law, lambda s: 0.01 * amplitude * np.cos(0.01 * s), 0.02, N, t_eval=[0.0, 0.01, 0.02],
                            rtol=1e-12, atol=1e-20)
    slope = (start["F"][2] - start["F"][1]) / (start["x"][2] - start["x"][1])
    print(f"{name}: initial loop slope {slope / (N * law.sigma0):.6f} N sigma0")
    assert slope == pytest.approx(N * law.sigma0, rel=1e-3), name
    res = loop(law, amplitude)
    F = res["F"]
    # the loop closes: the start from z = 0 fades exponentially with the travel (Dahl, LuGre, Gonthier)
    gaps = [np.abs(F[400 * (c + 1):400 * (c + 2) + 1] - F[400 * c:400 * (c + 1) + 1]).max() for c in range(7)]
    assert gaps[-1] < 1e-5 * np.abs(F).max() and gaps[-1] <= max(1e-2 * gaps[0], 1e-8 * np.abs(F).max()), (name, gaps)
    areas = []
    for ratio in (0.05, 0.2, 0.5, 0.9):
        r = loop(law, ratio * law.z_bound)
        areas.append(np.trapezoid(r["F"][-401:], r["x"][-401:]))  # the last cycle: the work the contact dissipates
    assert np.all(np.diff(areas) > 0) and areas[0] > 0, (name, areas)


def ramp_breakaway(law, rate):
    """Peak friction (in units of N) when the spring force on a held mass rises at ``rate`` (N/s)."""
    t_end = 1.2 * MU_S * N / rate
    res = simulate_bristle(BristleOscillatorParameters(law, m=M, k=1.0), [lambda t: rate * t, 0.0, N], t_end,
                           dt_out=t_end / 4000)
    return res["F"].max() / N


def test_breakaway_force_under_a_rising_load():
    """Slowly rising force: the stiction laws break away at mu_s N, Dahl at mu_c N (it has no static
    level). LuGre's breakaway force falls as the force rate grows (the rate-dependent break-away force
    that Canudas de Wit et al. 1995 reproduce with LuGre)."""
    for name in LAWS:
        expected = MU_C if name == "Dahl" else MU_S
        assert ramp_breakaway(law_of(name, sigma2=0.0), 0.3) == pytest.approx(expected, rel=1e-2), name
    lugre = [ramp_breakaway(law_of("LuGre", sigma2=0.0), rate) for rate in (0.3, 3.0, 30.0, 300.0)]
    print(f"LuGre breakaway friction / N at 0.3, 3, 30, 300 N/s: {np.round(lugre, 4)}")
    assert np.all(np.diff(lugre) < 0) and lugre[-1] < 0.9 * MU_S, lugre


def drift_per_cycle(law, cycles=10):
    """Mean displacement per cycle (m) over the last half of ``cycles`` periods of a force
    0.5 mu_c N + 0.3 mu_c N sin(2 pi t) on a mass on a fixed surface: below breakaway."""
    force = lambda t: MU_C * N * (0.5 + 0.3 * np.sin(2 * np.pi * t))  # noqa: E731 (k = 1 N/m: x_d = force)
    res = simulate_bristle(BristleOscillatorParameters(law, m=M, k=1.0), [force, 0.0, N], float(cycles), dt_out=0.5)
    x = res["x"][res.rows_at([cycles / 2, cycles])]
    return (x[1] - x[0]) / (cycles / 2)


def test_lugre_drifts_under_an_oscillating_sub_breakaway_force_and_elasto_plastic_does_not():
    """The drift Dupont et al. 2002 point out: LuGre creeps a constant amount every cycle; the elasto-plastic model
    with the peak force inside its elastic range (z_ba = 0.9 mu_c / sigma0) does not move at all."""
    lugre = drift_per_cycle(law_of("LuGre", sigma2=0.0))
    plastic = drift_per_cycle(law_of("ElastoPlastic", sigma2=0.0, z_ba_ratio=0.9))
    z_bound = MU_S / SIGMA0
    print(f"drift per cycle: LuGre {lugre:.3e} m, elasto-plastic {plastic:.3e} m")
    assert lugre > 0.1 * z_bound, lugre
    assert abs(plastic) < 1e-9 * z_bound, plastic


def test_the_issues_elasto_plastic_rate_diverges_for_negative_slip():
    """The issue writes zdot = v (1 - alpha sigma0 z / mu(v)): for v < 0 (alpha > 0 needs z < 0) that
    drives z away from -mu / sigma0 instead of towards it. Dupont et al.'s v - alpha sigma0 |v| z / mu
    (implemented) settles there."""
    law = law_of("ElastoPlastic")
    z = -1.5 * law.mu(-0.1) / law.sigma0  # beyond the steady deflection, alpha = 1
    issue = -0.1 * (1.0 - law.alpha(z, -0.1) * law.sigma0 * z / law.mu(-0.1))
    assert issue < 0 and z < 0  # |z| grows: unstable
    assert law.zdot(z, -0.1) > 0  # back towards -mu / sigma0


@pytest.mark.parametrize("name", ["Dahl", "LuGre", "ElastoPlastic"])
def test_dissipation_is_not_negative_up_to_the_derived_sigma1_limit(name):
    """Passivity of v -> F with storage N sigma0 z^2 / 2 (constant N): D >= 0 on |z| <= mu_s / sigma0,
    |v| <= v_max for sigma1 up to passive_sigma1_limit, and negative somewhere beyond it (the limit is
    sharp). Dahl (no Stribeck drop) is passive for every sigma1."""
    z = np.linspace(-1.0, 1.0, 2001)[:, None]
    v_max = 1.0
    v = np.concatenate([-np.logspace(-7, 0, 300), np.logspace(-7, 0, 300)])[None, :] * v_max
    law = law_of(name)
    limit = passive_sigma1_limit(law, v_max)
    if name == "Dahl":
        assert limit == np.inf
        limit = 1e4
    for sigma1 in (0.0, limit):
        law = law_of(name, sigma1=sigma1)
        assert dissipation(law, z * law.z_bound, v).min() >= -1e-9 * MU_S * v_max, (name, sigma1)
    if name != "Dahl":
        law = law_of(name, sigma1=1.5 * limit)
        assert dissipation(law, z * law.z_bound, v).min() < 0, name
        print(f"{name}: sigma1 limit for |v| <= {v_max} m/s: {limit:.3g} s/m (critical bristle damping: {SIGMA1:.3g})")


@pytest.mark.parametrize("name", LAWS)
def test_friction_never_gives_energy_in_stick_slip(name):
    """The belt oscillator (stick-slip, sigma1 critical): the work of the friction on the relative
    motion never becomes positive; for the passive laws it stays below minus the stored bristle energy."""
    law = law_of(name)
    res = simulate_bristle(BristleOscillatorParameters(law, m=M, k=100.0), [0.0, 0.1, N], 2.0, dt_out=0.002)
    W = res["W_friction"]
    assert W.max() <= 1e-9 and W[-1] < -0.1, name
    if name != "Gonthier":  # its storage is not N sigma0 z^2 / 2 (the bristle term is blended by s(v))
        stored = 0.5 * N * law.sigma0 * res["z"] ** 2
        assert np.all(-W >= stored - 1e-7), name


def test_load_changes_and_zero_load():
    """F follows N at once, with z continuous; at N = 0 only sigma2 v_r is left while z keeps evolving:
    unloaded, the mass on the belt moves as a damped oscillator k, sigma2."""
    law = law_of("LuGre")
    load = lambda t: N if t < 0.5 else (0.0 if t < 1.0 else 2 * N)  # noqa: E731
    res = simulate_bristle(BristleOscillatorParameters(law, m=M, k=100.0), [0.0, 0.1, load], 1.5, dt_out=0.001)
    t, F, v_r, z = res.t, res["F"], res["v_r"], res["z"]
    free = (t > 0.51) & (t < 0.99)
    np.testing.assert_allclose(F[free], law.sigma2 * v_r[free], atol=1e-12)
    assert np.ptp(z[free]) > 0.1 * law.z_bound  # the bristle still relaxes with the slip
    i = res.rows_at([1.0])[0]  # last row before the load returns, and the next one after it
    assert np.abs(z[i + 1] - z[i]) < 1e-3 * law.z_bound


def exact_belt(t_end):
    return simulate_single_mass(SingleMassParameters(M=M, C=0.0, FT0=MU_C * N, FT0S=MU_S * N, K=100.0, v_belt=0.1),
                                0.0, t_end, dt_out=0.001)


@pytest.mark.parametrize("name", ["LuGre", "ElastoPlastic", "Gonthier"])
def test_stick_slip_converges_to_the_exact_event_driven_model_as_sigma0_grows(name):
    """Belt oscillator (m 1 kg, k 100 N/m, belt 0.1 m/s, N 10 N, mu_c 0.3, mu_s 0.4), sigma1 critical,
    sigma2 = 0, v_s = 1e-4 m/s: positions and the first breakaway time approach the exact stick-slip
    of lumped.SingleMassFriction (F_T0 = mu_c N, F_T0S = mu_s N) at a rate close to 1 / sigma0."""
    t_end = 1.2
    exact = exact_belt(t_end)
    grid = np.arange(0.0, t_end + 1e-9, 0.001)
    x_exact = exact["z"][exact.rows_at(grid)]
    t_break = exact.event_times("breakaway")[0]
    errors, break_errors = [], []
    for sigma0 in (1e5, 1e6, 1e7):
        law = law_of(name, sigma0=sigma0, sigma1=2.0 * np.sqrt(sigma0 * M / N), sigma2=0.0, v_s=1e-4)
        res = simulate_bristle(BristleOscillatorParameters(law, m=M, k=100.0), [0.0, 0.1, N], t_end, dt_out=0.001)
        rows = res.rows_at(grid)
        errors.append(np.abs(res["x"][rows] - x_exact).max())
        slipping = np.flatnonzero((grid > 0.1) & (res["v_r"][rows] < -1e-3))
        break_errors.append(abs(grid[slipping[0]] - t_break))
    rates = np.log10(np.array(errors[:-1]) / errors[1:])
    print(f"{name}: max |x - x_exact| {np.array2string(np.array(errors), formatter=E2)} m, rates {rates.round(2)}, "
          f"breakaway time errors {np.array2string(np.array(break_errors), formatter=E2)} s")
    assert errors[-1] < 0.05 * np.ptp(x_exact) and rates[-1] > 0.7, (errors, rates)
    assert break_errors[-1] < break_errors[0] and break_errors[-1] < 0.01


def test_gonthier_blends_the_bristle_out_in_fast_sliding():
    """Gonthier (as reconstructed): at |v| >> v_s the force is mu_c N sgn(v) + sigma2 v whatever the
    deflection (s(v) -> 0), while LuGre's bristle damper still acts there (sigma1 zdot with z away from
    its steady value); at v = 0 both are the bristle force N sigma0 z."""
    gonthier, lugre = law_of("Gonthier"), law_of("LuGre")
    z = np.linspace(-1.0, 1.0, 11) * gonthier.z_bound
    v = 50 * V_S
    np.testing.assert_allclose(gonthier.force(z, v, N), MU_C * N + gonthier.sigma2 * v, rtol=1e-12)
    assert np.ptp(lugre.force(z, v, N)) > N * MU_S
    np.testing.assert_allclose(gonthier.force(z, 0.0, N), N * gonthier.sigma0 * z, rtol=1e-12)


def test_a_rising_load_lets_the_contact_return_more_energy_than_it_received():
    """The elastic energy N sigma0 z^2 / 2 is not a function of z alone: load the bristle at N1 (elastic
    range of the elasto-plastic law, sigma1 = sigma2 = 0), raise the load to N2 at rest, unload. The
    contact does net work (N2 - N1) sigma0 z1^2 / 2 on the body: the integral of Ndot sigma0 z^2 / 2."""
    law = law_of("ElastoPlastic", sigma1=0.0, sigma2=0.0)
    z1 = 0.5 * law.z_ba_ratio * MU_C / law.sigma0  # within the elastic range: z = x
    speed = lambda t: z1 if t < 1.0 else (0.0 if t < 2.0 else -z1)  # noqa: E731
    load = lambda t: N if t < 1.0 else (N * t if t < 2.0 else 2.0 * N)  # noqa: E731
    t = np.linspace(0.0, 3.0, 30001)
    res = prescribed_slip(law, speed, 3.0, load, t_eval=t, rtol=1e-12, atol=1e-20)
    work_on_contact = np.trapezoid(res["F"] * res["v"], t)  # the power the body gives the contact
    assert abs(res["z"][-1]) < 1e-6 * z1 and res["z"][10000] == pytest.approx(z1, rel=1e-9)
    assert work_on_contact == pytest.approx(-(2 * N - N) * law.sigma0 * z1 ** 2 / 2, rel=1e-3)


def test_a_stiff_bristle_survives_a_jump_of_the_belt_velocity():
    """sigma0 = 1e7 1/m, light damping, the belt reversing at once from 0.1 to -0.1 m/s while the mass
    sticks to it: the deflection crosses 2 mu / sigma0 in under a microsecond. LSODA picks its own
    first step after the jump (carrying the last one over made it fail its corrector)."""
    from friction_joints.hybrid import PiecewiseConstant

    law = law_of("Dahl", sigma0=1e7, sigma1=5.0, sigma2=0.0)
    belt = PiecewiseConstant([0.0, 0.5], [0.1, -0.1])
    res = simulate_bristle(BristleOscillatorParameters(law, m=M, k=100.0), [0.0, belt, N], 0.6, dt_out=0.01,
                           rtol=1e-6, atol=1e-8)
    assert res.t[-1] == pytest.approx(0.6)
    sliding = (np.abs(res["v_r"]) > 1e-3) & (res.t > 0.01)  # there Dahl's bristle sits at sgn(v_r) mu_c / sigma0
    np.testing.assert_allclose(res["z"][sliding], np.sign(res["v_r"][sliding]) * MU_C / law.sigma0, rtol=1e-3)
    assert sliding[-1] and res["v_r"][-1] < 0


def test_two_stacked_blocks_converge_to_the_exact_luz_tar_model_as_sigma0_grows():
    """Seed 001's two blocks (1 kg on 2 kg on the base, F1 = 6 sin 2t, F2 = 20 cos 1.3t, loads from the
    weights, mu 0.2 / 0.3 between the blocks and 0.4 / 0.5 on the base) with LuGre contacts (sigma1
    critical, v_s = 0.1 mm/s) approach lumped.TwoMassFriction's exact stick-slip as sigma0 grows."""
    from friction_joints.lumped import TwoMassBristleParameters, TwoMassParameters, simulate_two_mass, \
        simulate_two_mass_bristle

    g, t_end = 9.81, 2.0
    N12, N20 = 1.0 * g, 3.0 * g
    forces = [lambda t: 6 * np.sin(2 * t), lambda t: 20 * np.cos(1.3 * t)]
    exact = simulate_two_mass(TwoMassParameters(M1=1.0, M2=2.0, FT012=0.2 * N12, FT012S=0.3 * N12, FT020=0.4 * N20,
                                                FT020S=0.5 * N20), forces, t_end, dt_out=0.001)
    grid = np.arange(0.0, t_end + 1e-9, 0.001)
    z_exact = exact["z"][exact.rows_at(grid)]
    assert len(exact.event_times("breakaway")) >= 1
    errors = []
    for sigma0 in (1e5, 1e6, 1e7):
        laws = [LuGre(sigma0, mu_c, mu_s, 1e-4, 2.0 * np.sqrt(sigma0 * m / load))
                for mu_c, mu_s, m, load in ((0.2, 0.3, 1.0, N12), (0.4, 0.5, 2.0, N20))]
        res = simulate_two_mass_bristle(TwoMassBristleParameters(*laws, N12, N20), forces, t_end, dt_out=0.001)
        rows = res.rows_at(grid)
        errors.append(max(np.abs(res["z1"][rows] - z_exact[:, 0]).max(), np.abs(res["z2"][rows] - z_exact[:, 1]).max()))
    rates = np.log10(np.array(errors[:-1]) / errors[1:])
    print(f"two blocks, LuGre: max |z - z_exact| {np.array2string(np.array(errors), formatter=E2)} m, rates {rates.round(2)}"
          f" (position range {np.ptp(z_exact):.3f} m)")
    # slower and less regular than the belt oscillator's 1 / sigma0 (0.67, 0.45 per decade over 2 s here)
    assert errors[-1] < 1e-3 * np.ptp(z_exact) and np.all(rates > 0.3), (errors, rates)
