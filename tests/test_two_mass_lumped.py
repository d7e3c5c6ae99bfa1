"""The two-mass luz/tar model (seed 001 Sect. 3-4) against the planar engine, the Gauss principle
and its limits; where the paper's printed total-stiction formula is wrong."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from friction_joints.lumped import (TwoMassParameters, accelerations, gauss_static_friction, luz, simulate_two_mass,
                                    total_stiction_paper)
from friction_joints.mechanisms.stacked_blocks import stacked_blocks
from friction_joints.simulation import simulate

G_ACC = 9.81
FORCES = [lambda t: 6 * np.sin(2 * t), lambda t: 20 * np.cos(1.3 * t)]


def blocks_as_lumped(M1=1.0, M2=2.0, mu12_s=0.3, mu12_k=0.2, mu20_s=0.5, mu20_k=0.4):
    """The friction levels of stacked_blocks (normal forces M1 g and (M1 + M2) g)."""
    return TwoMassParameters(M1=M1, M2=M2, FT012=mu12_k * M1 * G_ACC, FT012S=mu12_s * M1 * G_ACC,
                             FT020=mu20_k * (M1 + M2) * G_ACC, FT020S=mu20_s * (M1 + M2) * G_ACC)


def test_agrees_with_the_planar_engine_on_every_event():
    """Same stick/slip/reversal events (to 1e-6 s) and trajectories as the block-on-block mechanism of
    the planar engine, whose normal forces come out of its reaction equations."""
    t_end = 5.0
    lumped = simulate_two_mass(blocks_as_lumped(), FORCES, t_end, dt_out=0.05)
    planar = simulate(stacked_blocks(), FORCES, t_end, [0.0, 0.0], [0.0, 0.0], dt_out=0.05)
    assert [k for _, k in lumped.events] == [k for _, k in planar.events]
    assert len(lumped.events) >= 8 and any(k == "stick" for _, k in lumped.events)
    np.testing.assert_allclose([t for t, _ in lumped.events], [t for t, _ in planar.events], atol=1e-6)
    grid = np.arange(0.05, t_end + 1e-9, 0.05)
    z_lumped = lumped["z"][lumped.rows_at(grid)]
    z_planar = planar["q"][planar.rows_at(grid)][:, ::-1]
    np.testing.assert_allclose(z_lumped, z_planar, atol=1e-7)


def test_energy_balance_and_friction_law():
    res = simulate_two_mass(blocks_as_lumped(), FORCES, 5.0, dt_out=0.01)
    scale = max(np.abs(res["W_drive"]).max(), 1.0)
    assert np.abs(res["W_drive"] - res["E_kin"] + res["W_friction"]).max() <= 1e-8 * scale
    p = blocks_as_lumped()
    slip = np.abs(res["v"]) > 1e-9
    np.testing.assert_allclose(res["f"][slip], (-np.sign(res["v"]) * p.kinetic)[slip], rtol=1e-12)
    held = res["stuck"]
    assert held.any() and np.all(np.abs(res["f"][held]) <= np.broadcast_to(p.static, held.shape)[held] + 1e-9)
    assert np.all(res["v"][held] == 0.0)  # no creep


levels = st.floats(0.1, 20.0)
masses = st.floats(0.1, 10.0)
forces = st.floats(-50.0, 50.0)


@settings(max_examples=200)
@given(masses, masses, levels, levels, st.floats(0.0, 3.0), forces, forces, st.floats(-3.0, 3.0))
def test_paper_luz_forms_are_the_gauss_principle(M1, M2, FT012, FT020, C20, F1, F2, v):
    """Cases 1 and 2 of seed 001 Sect. 4 (one friction at zero relative velocity, the other
    slipping): the luz closed forms give the accelerations of the Gauss principle."""
    p = TwoMassParameters(M1=M1, M2=M2, C20=C20, FT012=FT012, FT020=FT020)
    d = 1 if v >= 0 else -1
    v = v if v != 0 else 1.0
    # case 1: zd1 = zd2 = v != 0
    lam, _ = gauss_static_friction(p, F1, F2, np.array([0.0, v]), (0, d), [0])
    expected = (np.array([F1, F2]) + np.array([[1.0, 0.0], [-1.0, 1.0]]) @ lam) / p.masses
    np.testing.assert_allclose(accelerations(p, F1, F2, (0.0, v), (0, d), (True, False)), expected,
                               rtol=1e-9, atol=1e-9)
    # case 2: zd2 = 0, block 1 slipping at relative velocity v
    lam, _ = gauss_static_friction(p, F1, F2, np.array([v, 0.0]), (d, 0), [1])
    expected = (np.array([F1, F2]) + np.array([[1.0, 0.0], [-1.0, 1.0]]) @ lam) / p.masses
    np.testing.assert_allclose(accelerations(p, F1, F2, (v, 0.0), (d, 0), (False, True)), expected,
                               rtol=1e-9, atol=1e-9)


def test_printed_total_stiction_formula_is_wrong_when_only_the_top_block_slips():
    """Seed 001 Sect. 4 prints, from total stiction, M1 zdd1 = luz(F1, FT012) and M2 zdd2 =
    -luz(F1, FT012) + luz(F1 + F2, FT020). With F1 = 10 N, F2 = -7.5 N, FT012 = 5 N, FT020 = 3 N
    the top block slips and pulls block 2 with 5 N against F2 = -7.5 N: the base must hold 2.5 N,
    which it can. Gauss and the planar engine keep block 2 at rest; the printed formula accelerates
    it (by -2.5 m/s^2)."""
    M1, M2, F1, F2, FT012, FT020 = 1.0, 2.0, 10.0, -7.5, 5.0, 3.0
    p = TwoMassParameters(M1=M1, M2=M2, FT012=FT012, FT020=FT020)
    lam, _ = gauss_static_friction(p, F1, F2, np.zeros(2), (0, 0), [0, 1])
    gauss = (np.array([F1, F2]) + np.array([[1.0, 0.0], [-1.0, 1.0]]) @ lam) / p.masses
    np.testing.assert_allclose(gauss, [5.0, 0.0], atol=1e-12)
    paper = total_stiction_paper(p, F1, F2)
    assert paper[0] == pytest.approx(5.0) and paper[1] == pytest.approx(-2.5)  # wrong
    mech = stacked_blocks(M1, M2, mu12_s=FT012 / (M1 * G_ACC), mu12_k=FT012 / (M1 * G_ACC),
                          mu20_s=FT020 / ((M1 + M2) * G_ACC), mu20_k=FT020 / ((M1 + M2) * G_ACC))
    res = simulate(mech, [F1, F2], 0.2, [0.0, 0.0], [0.0, 0.0], dt_out=0.05)
    assert np.all(res["q"][:, 0] == 0.0)  # block 2 held by the base
    np.testing.assert_allclose(res["q"][-1, 1], 0.5 * 5.0 * 0.2**2, rtol=1e-9)  # block 1 at 5 m/s^2
    # inside the total-stiction region the two agree
    np.testing.assert_allclose(total_stiction_paper(p, 3.0, -4.0), [0.0, 0.0])


def test_setting_the_base_friction_to_zero_before_the_minimisation_is_right():
    """Seed 001 Sect. 4 remark: FT020 = 0 set before the Gauss minimisation gives the Sect. 3 model,
    FTS12 = F12 - luz(F12, FT012) with F12 = (M2 F1 - M1 F2)/(M1 + M2); set after it, the total
    stiction formula gives FTS12 = F1 - luz(F1, FT012). With F2 != 0 only the first holds: the
    static friction that makes both blocks move together (the planar engine agrees)."""
    M1, M2, F1, F2, FT012 = 1.0, 3.0, 2.0, 6.0, 4.0
    p = TwoMassParameters(M1=M1, M2=M2, FT012=FT012, FT020=0.0)
    lam, _ = gauss_static_friction(p, F1, F2, np.zeros(2), (0, 0), [0])
    F12 = (M2 * F1 - M1 * F2) / (M1 + M2)
    before = F12 - luz(F12, FT012)
    after = F1 - luz(F1, FT012)
    assert abs(before) < FT012 and before != pytest.approx(after)
    assert -lam[0] == pytest.approx(before)  # lambda_12 acts on block 1: F1 + lambda_12 = M1 a
    res = simulate_two_mass(p, [F1, F2], 0.5, dt_out=0.1)
    np.testing.assert_allclose(res["zd"][-1], [(F1 + F2) / (M1 + M2) * 0.5] * 2, rtol=1e-12)
    assert res["stuck"][-1][0]
    mech = stacked_blocks(M1, M2, mu12_s=FT012 / (M1 * G_ACC), mu12_k=FT012 / (M1 * G_ACC), mu20_s=0.0, mu20_k=0.0)
    planar = simulate(mech, [F1, F2], 0.5, [0.0, 0.0], [0.0, 0.0], dt_out=0.1)
    np.testing.assert_allclose(planar["u"][-1][::-1], res["zd"][-1], rtol=1e-9)


def test_heavy_base_block_converges_to_the_single_mass_limit():
    """M2 -> infinity (seed 001 Sect. 3): block 2 stays put and block 1 is the single mass of Sect. 2.
    The differences to that limit shrink in proportion to 1/M2."""
    F1 = lambda t: 6 * np.sin(2 * t)  # noqa: E731
    limit = simulate_two_mass(TwoMassParameters(M1=1.0, M2=1e12, FT012=2.0, FT020=1e13), [F1, 0.0], 3.0, dt_out=0.1)
    errors = []
    for M2 in (1e2, 1e4, 1e6):
        res = simulate_two_mass(TwoMassParameters(M1=1.0, M2=M2, FT012=2.0, FT020=0.0), [F1, 0.0], 3.0, dt_out=0.1)
        errors.append(np.abs((res["z"][-1, 0] - res["z"][-1, 1]) - limit["z"][-1, 0]))
    assert errors[0] > 1e-4 and errors[1] < errors[0] / 50 and errors[2] < errors[1] / 50


def test_bad_parameters_name_them():
    with pytest.raises(ValueError, match="M1=-1.0 is outside the allowed range"):
        TwoMassParameters(M1=-1.0)
    with pytest.raises(ValueError, match="FT012S"):
        TwoMassParameters(FT012=3.0, FT012S=2.0)


def test_example_shows_all_four_velocity_cases(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "examples" / "lumped_stick_slip.py"
    proc = subprocess.run([sys.executable, str(script), "--out", str(tmp_path)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    times = {line.split()[0]: float(line.split()[-2]) for line in proc.stdout.splitlines()
             if line.strip().endswith(" s") and line.startswith("   ") and not line.strip().startswith("stick")}
    assert len(times) == 4 and all(v > 0.1 for v in times.values()), proc.stdout
    for name in ("lumped_oscillator", "lumped_two_mass"):
        assert (tmp_path / f"{name}.csv").exists()


def test_light_top_block_tends_to_the_kinematic_limit():
    """M1 -> 0 (seed 001 Sect. 4 limit (3)): zd1 - zd2 = luz(F1, FT012) / C12 and block 2 moves as a
    single mass under F1 + F2 with the base friction."""
    from friction_joints.lumped import SingleMassParameters, simulate_single_mass

    C12, FT012, C20, FT020 = 2.0, 1.0, 0.5, 3.0
    F1 = lambda t: 3 * np.sin(2 * t)  # noqa: E731
    F2 = lambda t: 4 * np.cos(t)  # noqa: E731
    base = simulate_single_mass(SingleMassParameters(M=2.0, C=C20, FT0=FT020), lambda t: F1(t) + F2(t), 4.0,
                                dt_out=0.05)
    errors = []
    for M1 in (1e-1, 1e-2, 1e-3):
        res = simulate_two_mass(TwoMassParameters(M1=M1, M2=2.0, C12=C12, C20=C20, FT012=FT012, FT020=FT020),
                                [F1, F2], 4.0, dt_out=0.05, rtol=1e-8, atol=1e-10)
        late = res.t > 0.5
        rel = res["zd"][late, 0] - res["zd"][late, 1]
        errors.append(np.abs(rel - luz(F1(res.t[late]), FT012) / C12).max())
        grid = np.arange(0.05, 4.0, 0.05)
        z2 = res["z"][res.rows_at(grid), 1]
        assert np.abs(z2 - base["z"][base.rows_at(grid)]).max() < 50 * M1
    assert errors[1] < errors[0] / 5 and errors[2] < errors[1] / 5


def test_massless_sheet_follows_the_series_inversion_theorem():
    """M2 -> 0 with F2 = 0 (seed 001 Sect. 4 limit (4)): the bottom block is a massless sheet whose
    velocity solves C20 tar(zd2, FT020/C20) = C12 tar(zd1 - zd2, FT012/C12), i.e. the inversion
    theorem zd2 = y(zd1) with a = FT012/C12, b = FT020/C20, k = C12/C20, for both branches."""
    from friction_joints.lumped import tar_inverse_series

    F1 = lambda t: 6 * np.sin(2 * t)  # noqa: E731
    for FT012, FT020 in ((1.0, 2.5), (2.5, 1.0)):  # k a < b and k a > b
        C12, C20 = 2.0, 1.0
        errors = []
        for M2 in (1e-2, 1e-3):
            res = simulate_two_mass(TwoMassParameters(M1=1.0, M2=M2, C12=C12, C20=C20, FT012=FT012, FT020=FT020),
                                    [F1, 0.0], 4.0, dt_out=0.05, rtol=1e-8, atol=1e-10)
            late = res.t > 0.5
            y = tar_inverse_series(res["zd"][late, 0], FT012 / C12, FT020 / C20, C12 / C20)
            errors.append(np.abs(res["zd"][late, 1] - y).max())
        assert errors[1] < errors[0] / 5 and errors[1] < 2e-2, errors


def test_agrees_with_an_independent_karnopp_reference():
    """tests/karnopp_reference.py: plain solve_ivp phases, the consistent phase found by enumerating
    stick / forward / backward (Karnopp 1985) instead of the Gauss principle; with viscous parts."""
    from karnopp_reference import positions, simulate_blocks

    d = dict(M1=1.0, M2=2.0, C12=0.3, C20=0.2, FT012=0.2 * G_ACC, FT012S=0.3 * G_ACC, FT020=0.4 * 3 * G_ACC,
             FT020S=0.5 * 3 * G_ACC)
    F = (lambda t: 4 * np.sin(2 * t), lambda t: 18 * np.sin(1.3 * t))
    switches, pieces = simulate_blocks(d, F, 10.0)
    res = simulate_two_mass(TwoMassParameters(**d), list(F), 10.0, dt_out=0.05)
    ours = np.array([t for t, _ in res.events])
    theirs = np.unique(np.round([t for t, _ in switches], 9))
    assert len(ours) >= 12
    assert np.abs(ours[:, None] - theirs[None, :]).min(axis=1).max() <= 1e-6  # every event of ours is theirs
    assert np.abs(theirs[:, None] - ours[None, :]).min(axis=1).max() <= 1e-6  # and the other way round
    grid = np.arange(0.05, 10.0, 0.05)
    z = res["z"][res.rows_at(grid)]
    np.testing.assert_allclose(z, positions(pieces, grid), atol=1e-7)
