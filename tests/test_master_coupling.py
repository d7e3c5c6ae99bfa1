"""Coupling schemes of the co-simulation master (friction_joints.fmi.coupling): the accelerators on
fixed-point problems with known solutions, the Gauss-Seidel order, bad settings; then the
SteeringSystem and SingleTrackVehicle FMUs without friction against their monolithic integration
(friction_joints.vehicle.monolithic) at 10 and 20 ms."""

import numpy as np
import pytest

from friction_joints.fmi.coupling import (IQNILS, Aitken, Coupling, CouplingError, CouplingStats, extrapolate,
                                          gauss_seidel_order, implicit_step)
from friction_joints.fmi.master import Connection


def linear_map(n=6, seed=3, spectral_radius=1.5):
    """x -> A x + b with A of the given spectral radius (above 1: plain fixed-point iteration
    diverges) and eigenvalues negative (an oscillating iteration, like a stiff explicit coupling);
    returns (map, fixed point)."""
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.normal(size=(n, n)))[0]
    A = Q @ np.diag(-np.linspace(0.1, spectral_radius, n)) @ Q.T
    b = rng.normal(size=n) * np.array([1e-2, 1e-2, 50.0, 50.0, 3500.0, 3500.0])[:n]  # mixed units
    return (lambda x, first: A @ x + b), np.linalg.solve(np.eye(n) - A, b)


@pytest.mark.parametrize("acceleration", ["aitken", "iqn-ils"])
def test_accelerators_find_the_fixed_point_of_a_divergent_map(acceleration):
    step, exact = linear_map()
    coupling = Coupling("implicit", acceleration=acceleration, rtol=1e-10, atol=1e-12, max_iterations=200)
    accelerator = {"aitken": Aitken, "iqn-ils": IQNILS}[acceleration](coupling.initial_relaxation)
    stats = CouplingStats()
    x = implicit_step(step, np.zeros(6), coupling, accelerator, stats, [f"x{i}" for i in range(6)], "t=0")
    np.testing.assert_allclose(x, exact, rtol=1e-8, atol=1e-10)
    assert stats.rollbacks == stats.iterations[0] - 1
    if acceleration == "iqn-ils":  # a linear map in n = 6 unknowns: at most n + 2 evaluations
        assert stats.iterations[0] <= 8, stats.iterations


def test_a_step_that_does_not_converge_names_time_step_iterations_and_values():
    step, _ = linear_map(n=2, spectral_radius=1.5)
    coupling = Coupling("implicit", acceleration="aitken", max_iterations=2)
    with pytest.raises(CouplingError) as info:
        implicit_step(step, np.zeros(2), coupling, Aitken(0.5), CouplingStats(), ["a.y", "b.z"], "t=0.3 s (step 4)")
    message = str(info.value)
    for text in ("t=0.3 s (step 4)", "2 iterations", "a.y: |x~ - x| = ", "b.z: |x~ - x| = "):
        assert text in message, message


@pytest.mark.parametrize("settings, parameter", [
    (dict(scheme="newton"), "scheme='newton'"), (dict(extrapolation="cubic"), "extrapolation='cubic'"),
    (dict(acceleration="anderson"), "acceleration='anderson'"), (dict(rtol=0.0), "rtol=0.0"),
    (dict(atol=-1e-9), "atol=-1e-09"), (dict(max_iterations=0), "max_iterations=0"),
    (dict(max_iterations=2.5), "max_iterations=2.5"), (dict(initial_relaxation=1.5), "initial_relaxation=1.5")])
def test_bad_settings_name_the_parameter_and_its_range(settings, parameter):
    with pytest.raises(ValueError, match="allowed range|is not one of") as info:
        Coupling(**settings)
    assert parameter in str(info.value)


def test_gauss_seidel_order_follows_the_connection_graph():
    chain = [Connection("a", "y", "b", "u"), Connection("b", "y", "c", "u")]
    assert gauss_seidel_order(["c", "b", "a"], chain) == ["a", "b", "c"]
    loop = [Connection("s", "d1", "v", "d1"), Connection("s", "d2", "v", "d2"),
            Connection("v", "m1", "s", "m1"), Connection("v", "m2", "s", "m2"), Connection("v", "f", "s", "f")]
    assert gauss_seidel_order(["s", "v"], loop) == ["v", "s"]  # v takes 2 inputs from s, s takes 3 from v


def test_linear_extrapolation_reaches_the_middle_of_the_step():
    now, before = np.array([1.0, -2.0]), np.array([0.5, -1.0])
    np.testing.assert_array_equal(extrapolate("linear", now, before), [1.25, -2.5])
    np.testing.assert_array_equal(extrapolate("linear", now, None), now)
    np.testing.assert_array_equal(extrapolate("constant", now, before), now)
