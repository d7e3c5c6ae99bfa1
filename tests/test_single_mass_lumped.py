"""The single-mass luz/tar model (seed 001 Sect. 2) against closed forms and its limits."""

import numpy as np
import pytest

from friction_joints.lumped import (SingleMassParameters, TwoMassParameters, luz, massless_velocity,
                                    simulate_single_mass, simulate_two_mass, substitutive_parameters)


def test_constant_force_below_the_static_level_holds_exactly():
    res = simulate_single_mass(SingleMassParameters(M=2.0, FT0=2.0, FT0S=3.0), 2.9, 1.0, dt_out=0.1)
    assert np.all(res["z"] == 0.0) and np.all(res["stuck"])
    np.testing.assert_allclose(res["f"], -2.9)  # the static friction is the acting force


def test_constant_force_above_it_slides_with_the_kinetic_level():
    M, F, FT0 = 2.0, 5.0, 2.0
    res = simulate_single_mass(SingleMassParameters(M=M, FT0=FT0, FT0S=3.0), F, 1.0, dt_out=0.1)
    np.testing.assert_allclose(res["z"], (F - FT0) / (2 * M) * res.t**2, rtol=1e-10, atol=1e-14)


def test_ramp_breaks_away_when_the_force_reaches_the_static_level():
    k, FT0S = 4.0, 3.0
    res = simulate_single_mass(SingleMassParameters(M=1.0, FT0=2.0, FT0S=FT0S), lambda t: k * t, 2.0)
    assert res.event_times("breakaway")[0] == pytest.approx(FT0S / k, abs=1e-10)


def test_stick_slip_oscillator_limit_cycle():
    """Mass on a belt held by a spring (Karnopp's classic test), C = 0: stick phases last
    2 (F_T0S - F_T0K) / (K v_belt); slip phases are half-turns of an oscillation about F_T0K / K,
    lasting (pi + 2 phi) / omega with tan phi = v_belt K / (omega (F_T0S - F_T0K))."""
    p = SingleMassParameters(M=1.0, FT0=2.0, FT0S=3.0, K=10.0, v_belt=0.5)
    res = simulate_single_mass(p, 0.0, 10.0, dt_out=0.05)
    sticks, breaks = res.event_times("stick"), res.event_times("breakaway")
    omega = np.sqrt(p.K / p.M)
    phi = np.arctan2(p.v_belt / omega, (p.FT0S - p.FT0) / p.K)
    assert len(breaks) >= 4 and sticks[0] < breaks[0]
    n = min(len(sticks), len(breaks)) - 1  # from the second cycle on (the first starts from rest)
    np.testing.assert_allclose(breaks[1 : n + 1] - sticks[1 : n + 1], 2 * (p.FT0S - p.FT0) / (p.K * p.v_belt),
                               rtol=1e-8)
    np.testing.assert_allclose(sticks[2 : n + 1] - breaks[1:n], (np.pi + 2 * phi) / omega, rtol=1e-8)
    assert np.all(res["zd"][res["stuck"]] == p.v_belt)  # stuck to the belt, no creep


def test_energy_balance_with_spring_and_viscous_friction():
    p = SingleMassParameters(M=1.5, C=0.7, FT0=1.0, FT0S=1.4, K=6.0)
    res = simulate_single_mass(p, lambda t: 5 * np.sin(1.7 * t), 8.0)
    balance = res["W_drive"] - res["E_kin"] - res["E_spring"] + res["W_friction"]
    assert np.abs(balance).max() <= 1e-8 * res["W_drive"].max()
    assert res["stuck"].any() and res["W_friction"][-1] < 0


def test_small_mass_tends_to_the_massless_limit():
    """C zd = luz(F, F_T0) for M -> 0 (seed 001 Sect. 2): the velocity error shrinks with M."""
    C, FT0 = 2.0, 1.0
    F = lambda t: 3 * np.sin(t)  # noqa: E731
    errors = []
    for M in (1e-2, 1e-3, 1e-4):
        res = simulate_single_mass(SingleMassParameters(M=M, C=C, FT0=FT0), F, 4.0, dt_out=0.05)
        late = res.t > 0.5
        errors.append(np.abs(res["zd"][late] - massless_velocity(F(res.t[late]), C, FT0)).max())
    assert errors[0] > 1e-4 and errors[1] < errors[0] / 5 and errors[2] < errors[1] / 5


def test_substitutive_parameters_of_two_frictions_on_one_mass():
    """Block 2 of the two-mass model under a nearly immovable block 1 (M1 -> infinity, seed 001
    Sect. 4 limit (1)) feels both frictions; the single mass with C = C12 + C20, F_T0 = F_T012 +
    F_T020 (the substitutive parameters of Sect. 2) must move the same way."""
    C12, C20, FT012, FT020 = 0.3, 0.5, 1.0, 2.0
    F2 = lambda t: 5 * np.sin(1.3 * t)  # noqa: E731
    C, FT0 = substitutive_parameters([C12, C20], [FT012, FT020])
    single = simulate_single_mass(SingleMassParameters(M=2.0, C=C, FT0=FT0), F2, 6.0, dt_out=0.1)
    two = simulate_two_mass(TwoMassParameters(M1=1e12, M2=2.0, C12=C12, C20=C20, FT012=FT012, FT020=FT020),
                            [0.0, F2], 6.0, dt_out=0.1)
    assert single["stuck"].any() and not single["stuck"].all()
    grid = np.arange(0.1, 6.0, 0.1)
    first = [r.rows_at(grid) for r in (single, two)]
    np.testing.assert_allclose(two["z"][first[1], 1], single["z"][first[0]], atol=1e-9)
    # every event of the single mass is an event of the two-mass model; the two-mass model has one more
    # breakaway per stick phase, at |F2| = F_T020S: both blocks start to move together, block 1 by O(1/M1)
    two_times = np.array([t for t, _ in two.events])
    for t, _ in single.events:
        assert np.abs(two_times - t).min() <= 1e-8
    assert np.abs(two["z"][:, 0]).max() < 1e-9


def test_bad_parameters_name_them():
    with pytest.raises(ValueError, match="FT0S"):
        SingleMassParameters(FT0=2.0, FT0S=1.0)
    with pytest.raises(ValueError, match="M=0.0"):
        SingleMassParameters(M=0.0)
    assert luz(1.0, 2.0) == 0.0


def test_a_short_force_pulse_during_stiction_is_not_stepped_over():
    """While the mass sticks its state stands still, so the solver's steps grow without bound; a
    breakaway driven by the input alone could fall between two steps. ``simulate_*`` bound the step
    by dt_out while such an event is armed; the bare integrator without that bound misses this
    pulse (which shows the need)."""
    from friction_joints.hybrid import HybridIntegrator
    from friction_joints.lumped import SingleMassFriction

    p = SingleMassParameters(M=1.0, FT0=2.0, FT0S=3.0)
    pulse = lambda t: 2.5 + 1.0 * np.exp(-(((t - 3.0) / 0.05) ** 2))  # noqa: E731  above 3 N for ~0.06 s
    res = simulate_single_mass(p, pulse, 5.0, dt_out=0.01)
    assert len(res.event_times("breakaway")) == 1 and res["z"][-1] > 0
    system = SingleMassFriction(p, [pulse])
    bare = HybridIntegrator(system, 0.0, system.initial_state(0.0, 0.0), rtol=1e-10, atol=1e-12).advance(5.0)
    assert len(bare.event_times("breakaway")) == 0
