"""Property tests of the friction laws: they oppose slip, respect their bound and scale with load."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from friction_joints.friction import Coulomb, Exponential, Stribeck, Tanh

coef = st.floats(0.0, 2.0)
positive = st.floats(1e-4, 10.0)
velocity = st.floats(-100.0, 100.0, allow_nan=False)
load = st.floats(0.0, 1e4)


@st.composite
def laws(draw):
    mu_k = draw(coef)
    mu_s = mu_k + draw(st.floats(0.0, 1.0))
    kind = draw(st.sampled_from(["coulomb", "stribeck", "exponential", "tanh"]))
    if kind == "coulomb":
        return Coulomb(mu_s, mu_k)
    if kind == "stribeck":
        return Stribeck(mu_s, mu_k, draw(positive), draw(st.floats(0.5, 3.0)))
    if kind == "exponential":
        return Exponential(mu_k, draw(st.floats(0.5, 5.0)), draw(positive), mu_s)
    return Tanh(mu_k, draw(positive), mu_s)


@settings(max_examples=300, deadline=None)
@given(laws(), velocity, load)
def test_friction_opposes_slip_and_respects_its_bound(law, v, n):
    f = float(law.kinetic(v, n))
    assert f * v <= 0.0
    assert abs(f) <= float(law.static_limit(n)) * (1 + 1e-12)
    assert 0.0 <= float(law.coefficient(v)) <= law.bound * (1 + 1e-12)


@settings(max_examples=200, deadline=None)
@given(laws(), velocity, load, st.floats(0.0, 100.0))
def test_friction_scales_with_load(law, v, n, c):
    assert np.isclose(law.kinetic(v, c * n), c * law.kinetic(v, n), rtol=1e-12, atol=1e-12)
    assert np.isclose(law.static_limit(c * n), c * law.static_limit(n), rtol=1e-12, atol=1e-12)


def test_laws_are_vectorised():
    v = np.array([-2.0, 0.0, 3.0])
    for law in (Coulomb(0.5, 0.3), Stribeck(0.5, 0.3, 0.1), Exponential(0.2), Tanh(0.3, 0.01)):
        out = law.kinetic(v, np.array([1.0, 2.0, 3.0]))
        assert out.shape == (3,) and out[1] == 0.0 and out[0] > 0.0 and out[2] < 0.0


def test_exponential_characteristic_reaches_95_percent_at_psidot_k():
    law = Exponential(mu_0=0.2, k=3.0, v_k=0.01)  # seed 002 eq. (7)
    assert law.coefficient(0.01) == pytest.approx(0.2 * (1 - np.exp(-3)))
    assert law.coefficient(0.01) / 0.2 == pytest.approx(0.9502, abs=1e-4)
    assert law.coefficient(0.0) == 0.0 and law.mu_s == 0.2


def test_stribeck_decays_from_static_to_kinetic():
    law = Stribeck(0.5, 0.3, 0.1)
    assert law.coefficient(0.0) == pytest.approx(0.5)
    assert law.coefficient(10.0) == pytest.approx(0.3)
    assert law.coefficient(0.05) > law.coefficient(0.2)


@pytest.mark.parametrize("make, name", [
    (lambda: Coulomb(0.3, 0.5), "mu_k"),
    (lambda: Coulomb(-0.1, 0.0), "mu_s"),
    (lambda: Stribeck(0.5, 0.3, 0.0), "v_s"),
    (lambda: Exponential(0.2, v_k=-1.0), "v_k"),
    (lambda: Tanh(0.3, 0.0), "v_eps"),
    (lambda: Coulomb(float("nan"), 0.0), "mu_s"),
])
def test_bad_parameters_name_the_parameter_and_range(make, name):
    with pytest.raises(ValueError, match=name) as info:
        make()
    assert "allowed range" in str(info.value)


def test_laws_are_immutable():
    law = Coulomb(0.5, 0.3)
    with pytest.raises(AttributeError):
        law.mu_s = 1.0
