"""The C family spatial_clearance (ClearanceRSRRRSystem on the compiled engine) against the Python engine: the
right-hand side and the record at random states in both contact modes (the planar clearance in every joint, the
spatial one, RFEM links of both approaches, clearance and flexible link together, the ideal joint, without
friction, with a SpeedLoad), the mode decisions, a run's impacts, separations and states, the energy balance of
compiled runs (planar and spatial clearance)."""

from pathlib import Path

import numpy as np
import pytest

from friction_joints.contact import FREE, Contact, Free
from friction_joints.engine import make_integrator, run
from friction_joints.spatial.clearance_rsrrr import ClearanceParameters, ClearanceRSRRR
from friction_joints.spatial.clearance_system import ClearanceRSRRRSystem
from friction_joints.spatial.load import SpeedLoad
from friction_joints.spatial.rsrrr import RSRRRParameters

from native_build import run_against
from test_compiled_engine import assert_same_run

RHS = 1e-10  # of 1 + |dy/dt| per entry
CASES = {
    "planar clearance in (1,1)": (dict(clearance=1e-4, joint=0), {}),
    "planar clearance in (2,1), SpeedLoad": (dict(clearance=1e-4, joint=1, k_contact=1e8), dict(load=True)),
    "planar clearance in (2,2)": (dict(clearance=1e-4, joint=2), {}),
    "planar clearance in (2,3), no friction": (dict(clearance=2e-4, joint=3), dict(friction=False)),
    "modified flexible (2,3)": (dict(n_rfe=3, flexible=3), {}),
    "classical flexible (1,1)": (dict(n_rfe=2, flexible=0, rfem="classical", E=2e9, G=2e9 / 2.6), {}),
    "clearance in (1,1), flexible (2,2)": (dict(clearance=1e-4, joint=0, n_rfe=2, flexible=2), {}),
    "clearance and flexible link in (2,2)": (dict(clearance=1e-4, joint=2, n_rfe=1, flexible=2, rfem="classical"), {}),
    "ideal joint, rigid link": (dict(), {}),
    "spatial clearance in (2,2)": (dict(clearance=1e-4, joint=2, model="spatial", n_slices=4), {}),
    "spatial clearance in (2,1), flexible (2,3)": (dict(clearance=1e-4, joint=1, model="spatial", n_slices=3,
                                                        k_contact=1e8, n_rfe=1, flexible=3), {}),
}


def make(case, tau=(2.0, 0.3)):
    clearance, options = CASES[case]
    params = RSRRRParameters(friction=options.get("friction", True))
    mech = ClearanceRSRRR(params, ClearanceParameters(**clearance))
    return ClearanceRSRRRSystem(mech, list(tau), SpeedLoad(1.0, 3.0, 0.5) if options.get("load") else None)


def random_states(system, rng, count):
    """States near the start at random driving angles, the bearing within 2 um of its wall (in or out)."""
    mech, n = system.mech, system.n
    for _ in range(count):
        y = system.initial_state(psi11=rng.uniform(0.0, 2.0 * np.pi), psid11=rng.uniform(-5.0, 5.0), seated=False)
        if len(mech.gap):
            angle = rng.uniform(0.0, 2.0 * np.pi)
            y[mech.gap[:2]] = (mech.clearance_joint.c + rng.uniform(-2e-6, 2e-6)) * np.array([np.cos(angle),
                                                                                               np.sin(angle)])
            y[mech.gap[2:]] = rng.normal(size=len(mech.gap) - 2) * 1e-4  # the spatial model's tilts (rad)
        y[:n] += rng.normal(size=n) * 1e-8
        y[n:2 * n] += rng.normal(size=n) * 1e-2
        y[2 * n:] = rng.normal(size=4)
        yield y


def modes(system):
    return [FREE, Free(3e-9), Contact(0.05), Contact(2e-3, -1e-9)] if len(system.mech.gap) else [FREE]


@pytest.mark.parametrize("case", CASES)
def test_rhs_and_record_agree_at_random_states(case):
    system = make(case)
    model = system.compiled()
    assert model is not None and model.family_name == "spatial_clearance"
    rng = np.random.default_rng(list(CASES).index(case))
    for y in random_states(system, rng, 3):
        t = rng.uniform(0.0, 1.0)
        tau = np.asarray(system.input_values(t), float)
        for mode in modes(system):
            fmode, imode = system.encode_mode(mode)
            assert system.decode_mode(fmode, imode) == mode
            expected, out = system.rhs(t, y, mode), np.zeros(y.size)
            assert model.rhs(t, y, tau, model.fpar, model.ipar, fmode, imode, out) == 0
            np.testing.assert_allclose(out, expected, rtol=0, atol=RHS * (1.0 + np.abs(expected)).max(),
                                       err_msg=f"{case} {mode}")
            record = np.zeros(model.n_record)
            assert model.record(t, y, tau, model.fpar, model.ipar, fmode, imode, record) == 0
            python, compiled = system.record(t, y, mode), system.decode_record(record)
            assert compiled.keys() == python.keys()
            for key, value in python.items():
                value = np.asarray(value, float)
                scale = 1.0 + np.abs(value).max()
                np.testing.assert_allclose(np.asarray(compiled[key], float), value, rtol=0, atol=1e-9 * scale,
                                           err_msg=f"{case} {mode}: {key}")
            if system.events(mode):
                g = np.zeros(1)
                assert model.events(t, y, tau, model.fpar, model.ipar, fmode, imode, g) == 0
                assert g[0] == pytest.approx(system.events(mode)[0].fn(t, y), rel=0, abs=1e-18)


@pytest.mark.parametrize("case", ["planar clearance in (2,2)", "clearance in (1,1), flexible (2,2)",
                                  "spatial clearance in (2,2)"])
def test_mode_decisions_agree(case):
    """update at the start, after an impact or a separation (real ones and grazes) and at a time event, with the
    bearing moved in and out of its seat and its rate turned both ways: the same mode and kind."""
    system = make(case)
    model, mech, n = system.compiled(), system.mech, system.n
    rng = np.random.default_rng(5)
    c = mech.clearance_joint.c
    for y in random_states(system, rng, 4):
        for offset in (-2e-9, 0.0, 3e-9):
            for rate in (-1e-3, 1e-3):
                z = y.copy()
                direction = rng.normal(size=2)
                direction /= np.hypot(*direction)
                z[mech.gap[:2]] = (c + offset) * direction
                z[mech.gap[2:]] = z[n + mech.gap[2:]] = 0.0  # the spatial model's axes aligned
                z[n + mech.gap[:2]] = -rate * direction  # deltad = rate
                for mode, event in [(None, None), (FREE, "impact"), (Free(1e-9), "impact"),
                                    (Contact(0.02), "separation"), (Contact(0.02, -1e-9), "separation"),
                                    (FREE, None), (Contact(0.02), None)]:
                    (_, new, kind), (_, expected, expected_kind) = (model.update(system, 0.0, z, mode, event),
                                                                    system.update(0.0, z, mode, event))
                    assert (type(new), kind) == (type(expected), expected_kind), (mode, event, offset, rate)
                    for name in ("deltad0", "level"):  # deltad and delta of the contact, to rounding
                        assert getattr(new, name, 0.0) == pytest.approx(getattr(expected, name, 0.0), rel=1e-12,
                                                                        abs=1e-20), (mode, event, offset, rate)


def both(system, y0, t_end, **options):
    return [run(system, y0, t_end, dt_out=t_end / 20, rtol=1e-9, atol=1e-12, engine=engine, **options)
            for engine in ("python", "compiled")]


def test_a_run_with_impacts_and_a_separation_agrees():
    """The bearing of (2,2) released centred: it falls, strikes the journal (4.05 ms), rebounds (10.40 ms) and
    strikes again (12.98 ms): the same events to 1e-9 s and states, works and energies to 1e-8 of their ranges
    on both engines (measured: 2e-11 for q, 8e-9 at most); the accelerations and the contact force, which the
    contact's stiffness makes far more sensitive to the penetration, to 1e-7 (measured: 1.3e-8)."""
    mech = ClearanceRSRRR(clearance=ClearanceParameters(clearance=1e-4, k_contact=1e8))
    system = ClearanceRSRRRSystem(mech, [2.0, 0.0])
    python, compiled = both(system, system.initial_state(psid11=3.0, seated=False), 0.0135)
    assert [kind for _, kind in python.events] == ["impact", "separation", "impact"]
    assert_same_run(python, compiled, ("q_all", "qd_all", "t_f", "delta", "W_friction", "W_dissipated", "E_elastic"),
                    "planar clearance")
    for key in ("qdd", "F_contact"):
        a, b = python[key], compiled[key]
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-7 * np.ptp(a), err_msg=key)


def test_a_flexible_link_run_agrees():
    mech = ClearanceRSRRR(clearance=ClearanceParameters(n_rfe=2, flexible=3, rfem="classical", E=2e9, G=2e9 / 2.6))
    system = ClearanceRSRRRSystem(mech, [2.0, 0.0])
    python, compiled = both(system, system.initial_state(psid11=3.0), 0.002)
    assert_same_run(python, compiled, ("q_all", "qd_all", "t_f", "E_strain", "W_friction", "W_dissipated"),
                    "flexible link")


@pytest.mark.parametrize("model", ["planar", "spatial"])
def test_energy_balance_of_a_compiled_run(model):
    """A clearance in (2,2) and a soft flexible (2,3), 1 ms steps as an FMU takes them (impacts and separations):
    E_kin + E_pot + E_elastic changes by W_drive + W_friction + W_dissipated; the works of friction and damping
    never grow."""
    mech = ClearanceRSRRR(clearance=ClearanceParameters(clearance=1e-4, joint=2, model=model, n_slices=4, n_rfe=1,
                                                         flexible=3, E=2e9, G=2e9 / 2.6))
    system = ClearanceRSRRRSystem(mech, [5.0, 0.0])
    integrator = make_integrator(system, 0.0, system.initial_state(psid11=3.0, seated=False), engine="compiled",
                                 rtol=1e-8, atol=1e-11)
    for k in range(1, 13):
        integrator.advance(k * 1e-3, [k * 1e-3])
    res = integrator.results
    kinds = [kind for _, kind in res.events]
    assert "impact" in kinds and "separation" in kinds
    E = res["E_kin"] + res["E_pot"] + res["E_elastic"]
    W = res["W_drive"] + res["W_friction"] + res["W_dissipated"]
    assert np.abs(E - E[0] - W).max() < 1e-8 * (np.ptp(E) + np.abs(res["W_friction"]).max())
    for name in ("W_friction", "W_dissipated"):
        assert np.all(np.diff(res[name]) <= 1e-15) and res[name][-1] < 0.0, name



SANITIZED = f"""
import sys
from friction_joints.native import library
import {Path(__file__).stem} as tests
assert library() is library(sys.argv[1])
for case in tests.CASES:
    tests.test_rhs_and_record_agree_at_random_states(case)
for case in ("planar clearance in (2,2)", "spatial clearance in (2,2)"):
    tests.test_mode_decisions_agree(case)
"""


def test_kernels_under_sanitizers(sanitized_engine):
    """The kernels and records of every case in both modes and the mode decisions, on the engine built with
    the sanitizers (in a subprocess: a sanitizer's report fails this test)."""
    run_against(sanitized_engine, SANITIZED)
