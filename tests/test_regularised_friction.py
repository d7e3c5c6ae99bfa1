"""The regularised-friction mode: it approaches exact stick-slip as v_eps -> 0, but a held joint
creeps, which the exact model never does."""

import numpy as np
import pytest

from friction_joints.friction import Tanh
from friction_joints.mechanisms import dupont_two_mass, regularised, stacked_blocks
from friction_joints.simulation import simulate


def test_regularised_mechanism_replaces_every_law():
    mech = regularised(dupont_two_mass(mu_s=0.5, mu_k=0.3), 1e-3)
    laws = [law for j in mech.model.joints for law in j.friction_laws() if law is not None]
    assert laws == [Tanh(0.3, 1e-3)]
    with pytest.raises(ValueError, match="v_eps"):
        regularised(dupont_two_mass(), 0.0)


def test_held_block_creeps_only_when_regularised():
    """F1 = 2 N < mu12 M1 g: the exact model holds block 1 exactly; the regularised one lets it
    creep at roughly v_eps * artanh(F1 / (mu M1 g))."""
    mech = stacked_blocks(1.0, 2.0, 0.3, 0.3, 0.5, 0.5)
    exact = simulate(mech, [2.0, 0.0], 0.1, [0.0, 0.0], [0.0, 0.0], dt_out=0.05)
    assert np.all(exact["q"] == 0.0)
    v_eps = 1e-2
    smooth = simulate(mech, [2.0, 0.0], 0.1, [0.0, 0.0], [0.0, 0.0], dt_out=0.05, v_eps=v_eps, rtol=1e-8, atol=1e-12)
    creep = smooth["u"][-1, 1] - smooth["u"][-1, 0]
    expected = v_eps * np.arctanh(2.0 / (0.3 * 9.81))
    assert creep == pytest.approx(expected, rel=0.05)


def test_regularised_approaches_exact_as_v_eps_shrinks():
    """Dupont with mu_s = mu_k (one friction level, which a tanh law can represent): the final
    state error falls with v_eps."""
    mech = dupont_two_mass(mu_s=0.3, mu_k=0.3)
    inputs = [lambda t: 7 * np.sin(2.4 * t), lambda t: 50 * np.cos(0.8 * t)]
    exact = simulate(mech, inputs, 3.0, [0.0, 0.0], [0.0, 0.0], dt_out=3.0)["q"][-1, 1]
    errors = [abs(simulate(mech, inputs, 3.0, [0.0, 0.0], [0.0, 0.0], dt_out=3.0, v_eps=v, rtol=1e-8,
                           atol=1e-11)["q"][-1, 1] - exact) for v in (1e-2, 1e-3)]
    assert errors[1] < 0.3 * errors[0]
    assert errors[1] < 1e-2
