"""Coupling schemes of the co-simulation master (friction_joints.fmi.coupling): the accelerators on
fixed-point problems with known solutions, the Gauss-Seidel order, bad settings; then the
SteeringSystem and SingleTrackVehicle FMUs without friction against their monolithic integration
(friction_joints.vehicle.monolithic) at 10 and 20 ms."""

import numpy as np
import pytest

from friction_joints.fmi.coupling import (Aitken, Coupling, CouplingError, CouplingStats, extrapolate,
                                          gauss_seidel_order, implicit_step, make_accelerator)
from friction_joints.fmi.master import Connection, FMUInstance, run
from friction_joints.fmi.steering_vehicle import LINKS, deviation, fmu_paths, run_fmpy, study_torque
from friction_joints.fmi.steering_vehicle import STUDY_T_END as T_END
from friction_joints.vehicle.monolithic import run_monolithic


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
    stats = CouplingStats()
    names = [f"x{i}" for i in range(6)]
    x = implicit_step(step, np.zeros(6), coupling, make_accelerator(coupling), stats, names, "t=0")
    np.testing.assert_allclose(x, exact, rtol=1e-8, atol=1e-10)
    assert stats.rollbacks == stats.iterations[0] - 1
    if acceleration == "iqn-ils":  # a linear map in n = 6 unknowns: at most n + 2 evaluations
        assert stats.iterations[0] <= 8, stats.iterations


def test_iqn_ils_reusing_columns_of_earlier_steps_needs_fewer_iterations():
    """Steps of the same linear map: with the columns of the steps before, the quasi-Newton model is
    already complete at the first iteration of a step."""
    step, exact = linear_map()
    iterations = {}
    for reuse in (0, 2):
        coupling = Coupling("implicit", rtol=1e-10, atol=1e-12, reuse=reuse)
        accelerator, stats = make_accelerator(coupling), CouplingStats()
        for k in range(4):
            x = implicit_step(step, np.zeros(6), coupling, accelerator, stats, [f"x{i}" for i in range(6)], f"step {k}")
            np.testing.assert_allclose(x, exact, rtol=1e-8, atol=1e-10)
        iterations[reuse] = stats.iterations
    assert sum(iterations[2][1:]) < sum(iterations[0][1:]), iterations


def test_a_step_that_does_not_converge_names_time_step_iterations_and_values():
    step, _ = linear_map(n=2, spectral_radius=1.5)
    coupling = Coupling("implicit", acceleration="aitken", max_iterations=2)
    with pytest.raises(CouplingError) as info:
        implicit_step(step, np.zeros(2), coupling, Aitken(0.5), CouplingStats(), ["a.y", "b.z"], "t=0.3 s (step 4)")
    message = str(info.value)
    for text in ("t=0.3 s (step 4)", "2 iterations", "a.y: |x~ - x| = ", "b.z: |x~ - x| = "):
        assert text in message, message


def test_accept_goes_on_from_the_last_iterate_and_records_the_step():
    """on_no_convergence="accept": the step returns the outputs of its last iteration, counted in the
    iterations, and the stats name the step and how far it was from converging."""
    step, exact = linear_map(n=2, spectral_radius=1.5)
    stats, seen = CouplingStats(), []

    def recording(x, first):
        seen.append(step(x, first))
        return seen[-1]
    x = implicit_step(recording, np.zeros(2), Coupling("implicit", max_iterations=3, on_no_convergence="accept"),
                      Aitken(0.5), stats, ["a.y", "b.z"], "t=0.3 s (step 4)")
    np.testing.assert_array_equal(x, seen[-1])
    assert len(seen) == 3 and stats.iterations == [3] and stats.rollbacks == 2
    assert [when for when, _ in stats.unconverged] == ["t=0.3 s (step 4)"]
    assert stats.unconverged[0][1] > 1.0  # the residual is still above its tolerance
    assert not np.allclose(x, exact)


@pytest.mark.parametrize("settings, parameter", [
    (dict(scheme="newton"), "scheme='newton'"), (dict(extrapolation="cubic"), "extrapolation='cubic'"),
    (dict(acceleration="anderson"), "acceleration='anderson'"), (dict(rtol=0.0), "rtol=0.0"),
    (dict(atol=-1e-9), "atol=-1e-09"), (dict(max_iterations=0), "max_iterations=0"),
    (dict(max_iterations=2.5), "max_iterations=2.5"), (dict(reuse=-1), "reuse=-1"),
    (dict(initial_relaxation=1.5), "initial_relaxation=1.5"),
    (dict(on_no_convergence="ignore"), "on_no_convergence='ignore'")])
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


def test_linear_extrapolation_follows_the_line_through_the_last_two_points():
    now, before = np.array([1.0, -2.0]), np.array([0.5, -1.0])
    np.testing.assert_array_equal(extrapolate("linear", now, before, 0.5), [1.25, -2.5])
    np.testing.assert_array_equal(extrapolate("linear", now, before, 1.0), [1.5, -3.0])
    np.testing.assert_array_equal(extrapolate("linear", now, None, 0.5), now)
    np.testing.assert_array_equal(extrapolate("constant", now, before, 0.5), now)


# --- the steering system and the vehicle, without friction ----------------------------------------------

FRICTIONLESS = {"friction_scale": 0.0}
tau_sw = study_torque()


@pytest.fixture(scope="module")
def references(frictionless_reference):
    """{h: the monolithic run with tau_sw held over steps of h} (conftest's ``frictionless_reference``)."""
    return {h: frictionless_reference(h) for h in (0.005, 0.01, 0.02)}


IMPLICIT = Coupling("implicit", rtol=1e-5, atol=1e-8, interpolation="hold")  # held inputs: first order


def cosim(fmus, h, coupling, stats=None):
    return run_fmpy(fmus["SteeringSystem"].parent, tau_sw, T_END, h, steering=FRICTIONLESS, coupling=coupling,
                    stats=stats)


@pytest.fixture(scope="module")
def implicit(fmus):
    """implicit(h) -> (run, stats): the co-simulation with IMPLICIT at the step h, run once in this module
    (several tests compare with it)."""
    runs = {}

    def run_at(h):
        if h not in runs:
            stats = CouplingStats()
            runs[h] = cosim(fmus, h, IMPLICIT, stats), stats
        return runs[h]
    return run_at


def test_jacobi_runs_away_at_10_ms_where_implicit_stays_within_2_percent(fmus, references, implicit):
    """Issue 14: the explicit coupling at 10 ms diverges silently; the implicit one (IQN-ILS)
    follows the monolithic integration, with a few iterations per step."""
    jacobi = cosim(fmus, 0.01, Coupling())
    assert deviation(jacobi, references[0.01]) > 1.0  # the steering wheel has run away
    implicit_run, stats = implicit(0.01)
    for column in ("delta_sw", "r"):
        assert deviation(implicit_run, references[0.01], column) < 0.02, column
    assert len(stats.iterations) == round(T_END / 0.01)
    assert stats.rollbacks == sum(stats.iterations) - len(stats.iterations)
    assert max(stats.iterations) < IMPLICIT.max_iterations


def test_implicit_at_20_ms_stays_bounded_with_a_first_order_coupling_error(references, implicit):
    """The FMUs hold their inputs over a step, so the converged coupled values (those at t + h held
    over [t, t + h]) carry an error of order h: doubling h doubles it (about 3 % at 20 ms), and
    nothing runs away. Interpolated inputs: tests/test_input_interpolation.py."""
    errors = {h: deviation(implicit(h)[0], references[h]) for h in (0.01, 0.02)}
    assert 1.5 < errors[0.02] / errors[0.01] < 2.5, errors


def test_gauss_seidel_and_linear_extrapolation_beat_jacobi_at_equal_step(fmus, references):
    jacobi = deviation(cosim(fmus, 0.005, Coupling()), references[0.005])
    for coupling in (Coupling("gauss-seidel", interpolation="hold"),
                     Coupling(extrapolation="linear", interpolation="hold")):
        assert deviation(cosim(fmus, 0.005, coupling), references[0.005]) < 0.6 * jacobi, coupling


def test_aitken_and_iqn_ils_reach_the_same_coupled_solution(fmus, references, implicit):
    """The accelerator changes the iterations, not the result: the two runs differ by less than a
    tenth of their error from the monolithic reference (Aitken needs about 3 times the iterations)."""
    runs, stats = {}, {"aitken": CouplingStats()}
    runs["aitken"] = cosim(fmus, 0.005, Coupling("implicit", acceleration="aitken", rtol=1e-5, atol=1e-8,
                                                 interpolation="hold"), stats["aitken"])
    assert IMPLICIT == Coupling("implicit", acceleration="iqn-ils", rtol=1e-5, atol=1e-8, interpolation="hold")
    runs["iqn-ils"], stats["iqn-ils"] = implicit(0.005)
    assert deviation(runs["aitken"], runs["iqn-ils"]) < 0.1 * deviation(runs["iqn-ils"], references[0.005])
    assert np.mean(stats["iqn-ils"].iterations) < np.mean(stats["aitken"].iterations)


def test_a_linear_first_guess_saves_iterations_not_accuracy(fmus, references, implicit):
    stats = {"linear": CouplingStats()}
    runs = {"linear": cosim(fmus, 0.02, Coupling("implicit", extrapolation="linear", rtol=1e-5, atol=1e-8,
                                                 interpolation="hold"), stats["linear"])}
    assert IMPLICIT == Coupling("implicit", extrapolation="constant", rtol=1e-5, atol=1e-8, interpolation="hold")
    runs["constant"], stats["constant"] = implicit(0.02)
    assert np.mean(stats["linear"].iterations) < np.mean(stats["constant"].iterations)
    assert deviation(runs["linear"], runs["constant"]) < 0.1 * deviation(runs["constant"], references[0.02])


def test_iqn_ils_reuse_halves_the_iterations_with_the_same_solution(fmus, references, implicit):
    stats = {2: CouplingStats()}
    runs = {2: cosim(fmus, 0.01, Coupling("implicit", rtol=1e-5, atol=1e-8, reuse=2, interpolation="hold"), stats[2])}
    assert IMPLICIT == Coupling("implicit", rtol=1e-5, atol=1e-8, reuse=0, interpolation="hold")
    runs[0], stats[0] = implicit(0.01)
    assert np.mean(stats[2].iterations) < 0.6 * np.mean(stats[0].iterations)
    assert deviation(runs[2], runs[0]) < 0.1 * deviation(runs[0], references[0.01])


@pytest.mark.parametrize("coupling", [IMPLICIT, Coupling()], ids=["implicit", "jacobi"])
def test_implicit_coupled_values_satisfy_the_connection_equations(fmus, coupling):
    """At every communication point the input each FMU held over the last step equals the output it
    is connected to, to the tolerance; Jacobi's inputs lag one step behind (the check must fail)."""
    paths = fmu_paths(fmus["SteeringSystem"].parent)
    instances = {name: FMUInstance(paths[name], name, FRICTIONLESS if name == "steering" else None)
                 for name in paths}
    record = {f"{src}.{out}": (src, out) for src, out, _, _ in LINKS}
    record.update({f"{dst}.{inp}": (dst, inp) for _, _, dst, inp in LINKS})
    try:
        r = run(instances, [Connection(*link) for link in LINKS], 0.01, 1.0, external={("steering", "tau_sw"): tau_sw},
                record=record, coupling=coupling)
    finally:
        for inst in instances.values():
            inst.close()
    satisfied = []
    for src, out, dst, inp in LINKS:
        output, held = r[f"{src}.{out}"][1:], r[f"{dst}.{inp}"][1:]
        satisfied.append(np.all(np.abs(held - output) <= IMPLICIT.atol + IMPLICIT.rtol * np.abs(output)))
    assert all(satisfied) == (coupling.scheme == "implicit"), satisfied


def test_a_step_that_does_not_converge_stops_the_run_with_the_error(fmus):
    message = r"t=\S+ s \(step \d+ of 250, h=0.02 s\) after 2 iterations.*vehicle\.M_z_left: \|x~ - x\| = "
    with pytest.raises(CouplingError, match=message):
        cosim(fmus, 0.02, Coupling("implicit", rtol=1e-5, atol=1e-8, max_iterations=2, interpolation="hold"))


def test_with_friction_the_explicit_coupling_converges_to_the_monolithic_run_at_first_order(fmus):
    """With stick-slip in the steering (exact, both in the FMU and in the monolithic hybrid system),
    the Jacobi co-simulation approaches the monolithic run as h shrinks, its error halving with h:
    both integrate the same equations, with the same friction."""
    t_end, errors = 1.5, {}
    for h in (0.002, 0.004):
        reference = run_monolithic(tau_sw, t_end, h)
        assert reference["W_friction"][-1] < -0.01  # friction has dissipated energy (J)
        errors[h] = deviation(run_fmpy(fmus["SteeringSystem"].parent, tau_sw, t_end, h), reference)
    assert errors[0.002] < 0.03, errors
    assert 1.6 < errors[0.004] / errors[0.002] < 2.4, errors
