"""Exact stick-slip on the Dupont problem (seed 000 Fig. 4c): event times against the independent
closed-form reference, the friction law in slip, the static bound in stiction, energy balance."""

import numpy as np
import pytest

from dupont_reference import MU_K, MU_S, dupont_events
from friction_joints.mechanisms import dupont_two_mass
from friction_joints.simulation import simulate


@pytest.fixture(scope="module")
def run():
    mech = dupont_two_mass()
    return simulate(mech, [lambda t: 7 * np.sin(2.4 * t), lambda t: 50 * np.cos(0.8 * t)], 10.0,
                    [0.0, 0.0], [0.0, 0.0], dt_out=0.02)


def test_event_times_match_the_independent_reference(run):
    ref = dupont_events(10.0)
    got = [(t, k) for t, k in run.events]
    assert [k for _, k in got] == [k for _, k in ref]
    np.testing.assert_allclose([t for t, _ in got], [t for t, _ in ref], atol=1e-6)
    # the paper reads stiction 0-0.5, 4.1-4.4, 8.0-8.3 s and reversals near 1.7, 3.7, 5.7, 7.1, 9.5 s;
    # its 3.7 s is a misreading of its figure: the reference and the engine agree on 3.18 s
    assert any(abs(t - 3.182) < 1e-3 and k == "reversal" for t, k in got)


def test_friction_law_in_slip_and_static_bound_in_stiction(run):
    stuck, f_n, f_mu, xd = run["stuck"], run["f"][:, 0], run["f_mu"][:, 0], run["u"][:, 1]
    assert np.all(xd[stuck] == 0.0), "a stuck mass must not creep"
    assert np.all(np.abs(f_mu[stuck]) <= MU_S * np.abs(f_n[stuck]) * (1 + 1e-9) + 1e-12)
    slip = ~stuck & (np.abs(xd) > 1e-9)
    np.testing.assert_allclose(f_mu[slip], -np.sign(xd[slip]) * MU_K * np.abs(f_n[slip]), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.abs(f_n), 10 * np.abs(50 * np.cos(0.8 * run.t)) / 40, rtol=1e-9, atol=1e-9)
    # during stiction the holding force balances F1 (eq. 3.5)
    np.testing.assert_allclose(f_mu[stuck], -run["tau"][stuck, 0], atol=1e-9)


def test_energy_balance_closes(run):
    E = run["E_kin"] + run["E_pot"]
    largest = max(np.abs(E).max(), np.abs(run["W_drive"]).max())
    residual = run["W_drive"] - (E - E[0]) - (-run["W_friction"])
    assert np.abs(residual).max() <= 1e-6 * largest
    assert np.all(np.diff(run["W_friction"]) <= 1e-12), "friction never adds energy"
