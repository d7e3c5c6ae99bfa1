"""The luz/tar projections of seed 001 Sect. 2 and the identities the paper builds its models on."""

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

from friction_joints.lumped import luz, tar, tar_interval, tar_inverse_series

reals = st.floats(-1e3, 1e3, allow_nan=False)
nonneg = st.floats(0.0, 1e3, allow_nan=False)
positive = st.floats(1e-3, 1e3, allow_nan=False)
fractions = st.floats(-1.0, 1.0)


def close(a, b, scale=1.0):
    return abs(a - b) <= 1e-9 * (1.0 + abs(scale))


@given(reals, nonneg)
def test_luz_is_the_printed_formula_with_an_exact_dead_zone(x, a):
    assert close(luz(x, a), x + (abs(x - a) - abs(x + a)) / 2, abs(x) + a)  # seed 001 Sect. 2
    if abs(x) <= a:
        assert luz(x, a) == 0.0  # exactly: a stuck state has exactly zero acceleration
    assert close(x - luz(x, a), np.clip(x, -a, a), x)  # F - luz(F, F0): static friction saturated at F0


@given(reals, nonneg, fractions)
def test_tar_inverts_luz(y, a, s):
    assert close(luz(tar(y, a, s), a), y, abs(y) + a)


@given(reals, nonneg, positive, fractions)
def test_scaling(x, a, k, s):
    """k tar(x, a) = tar(k x, k a) for k > 0 (seed 001 Sect. 2). In floating point only while k x keeps
    the sign of x: a subnormal x (5e-324) times k = 0.5 rounds to 0, where tar jumps to s* a."""
    assume((k * x != 0.0) == (x != 0.0))
    assert close(k * tar(x, a, s), tar(k * x, k * a, s), k * (abs(x) + a))


@given(reals, nonneg, nonneg, positive, positive, fractions)
def test_substitutive_parameters(x, a1, a2, k1, k2, s):
    """k1 tar(x, a1) + k2 tar(x, a2) = (k1 + k2) tar(x, (k1 a1 + k2 a2) / (k1 + k2)), with one s* for
    both at x = 0 (seed 001 Sect. 2: several frictions on one mass)."""
    lhs = k1 * tar(x, a1, s) + k2 * tar(x, a2, s)
    rhs = (k1 + k2) * tar(x, (k1 * a1 + k2 * a2) / (k1 + k2), s)
    assert close(lhs, rhs, (k1 + k2) * (abs(x) + a1 + a2))


@given(reals, nonneg, nonneg, positive)
def test_inversion_theorem_for_two_frictions_in_series(x, a, b, k):
    """y(x) of seed 001 Sect. 4 case 4 satisfies the set equation tar(y, b) = k tar(x - y, a): the
    two sets (points off zero, intervals at zero) intersect. Both branches k a >= b and k a < b."""
    y = float(tar_inverse_series(x, a, b, k))
    lo1, hi1 = tar_interval(y, b)
    lo2, hi2 = tar_interval(x - y, a)
    tol = 1e-9 * (1.0 + abs(x) + k * a + b)
    assert max(lo1, k * lo2) <= min(hi1, k * hi2) + tol


@given(reals, nonneg, nonneg, positive)
def test_inversion_is_unique_among_candidates(x, a, b, k):
    """No other y on a fine grid solves the set equation except within the solution's resolution:
    the theorem picks the (unique) solution, not just one of several."""
    y0 = float(tar_inverse_series(x, a, b, k))
    grid = np.linspace(-abs(x) - 1.0, abs(x) + 1.0, 401)
    tol = 1e-9 * (1.0 + abs(x) + k * a + b)
    lo1, hi1 = tar_interval(grid, b)
    lo2, hi2 = tar_interval(x - grid, a)
    ok = np.maximum(lo1, k * lo2) <= np.minimum(hi1, k * hi2) + tol
    spacing = grid[1] - grid[0]
    assert np.all(np.abs(grid[ok] - y0) <= spacing)


def test_vectorised():
    x = np.array([-3.0, -1.0, 0.0, 0.5, 2.0])
    np.testing.assert_array_equal(luz(x, 1.0), [-2.0, 0.0, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(tar(x, 1.0), [-4.0, -2.0, 0.0, 1.5, 3.0])
