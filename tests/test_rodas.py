"""The C engine's stiff integrator RODAS (native/src/rodas.c, Hairer & Wanner's Rosenbrock method of
order 4(3)) on test problems built here in C (tests/c_rodas/problems.c): Van der Pol at mu = 1000 and
Robertson's kinetics against SciPy's Radau at rtol 1e-10, the order 4 on a stiff linear system at
fixed steps, the dense output, the time of an event, steps far beyond the explicit stability limit
with the evaluations the method needs and no more; then the bristle oscillator (family "bristle",
every bristle law) against the Python model; and the whole under the address and undefined-behaviour
sanitizers."""

import json
from ctypes import byref

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.linalg import expm
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (FMU2Slave, calloc, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                       fmi2CallbackFunctions, fmi2CallbackLoggerTYPE, free)
from fmpy.logging import addLoggerProxy
from scipy.optimize import brentq

from friction_joints.friction import make_law
from friction_joints.hybrid import Constant, Sine
from friction_joints.lumped import BristleOscillator, BristleOscillatorParameters
from friction_joints.engine import make_integrator
from friction_joints.engine import run as run_python
from friction_joints.lumped.bristle_packing import pack
from friction_joints.mechanisms import slider_crank
from friction_joints.native import STATUS_KERNEL_FAILED, Family, Instance, InstanceError, library
from friction_joints.fmi.native import FMI_DIR
from friction_joints.native.build import compile_library, sources
from friction_joints.native.rodas import (EVENT, KERNEL_FAILED, MATRIX_SINGULAR, NOT_QUIET, REACHED_END,
                                         STEP_TOO_SMALL, Rodas, held)
from friction_joints.planar import BristleSystem

from native_build import TESTS_DIR, cached_library, run_against, sanitized_library, sanitizers

SOURCES = [*sources(), TESTS_DIR / "c_rodas" / "problems.c"]  # the engine (the bristle family's assembly) and them
MU = 1000.0  # Van der Pol's
# a damped oscillator (eigenvalues -1 +- 2i) driving a stiff state (eigenvalue -1e4)
STIFF_LINEAR = np.array([[-1.0, 2.0, 0.0], [-2.0, -1.0, 0.0], [1.0, 1.0, -1e4]])


@pytest.fixture(scope="module")
def problems(tmp_path_factory, object_cache):
    """The library of the test problems with the integrator."""
    return library(cached_library(tmp_path_factory.mktemp("rodas") / "problems.so", SOURCES, objects=object_cache))


def solver(lib, name, n, fpar=(0.0,), n_tau=0, **options) -> Rodas:
    """RODAS over the test problem ``name`` (n states; its event not watched unless directions say)."""
    options = {"rtol": 1e-8, "atol": 1e-10, **options}
    return Rodas(Family(name, lib), np.array(fpar, float), np.zeros(1, np.int64), n, n_tau, n, **options)


def linear(lib, A, level=0.0, **options) -> Rodas:
    n = len(A)
    return solver(lib, "rodas_linear", n, [*np.ravel(A), *np.zeros(n), level], **options)


def run(rodas, y0, t_end, grid=(), forms=None):
    """(status, y at the end, records) of one call from t = 0."""
    y = np.array(y0, float)
    status = rodas.advance(0.0, y, t_end, held([]) if forms is None else forms, grid)
    return status, y, rodas.records.copy()


def normalised(y, ref, rtol, atol):
    """The largest |y - ref| / (atol + rtol |ref|)."""
    return float(np.max(np.abs(y - ref) / (atol + rtol * np.abs(ref))))


@pytest.fixture(scope="module")
def van_der_pol_reference():
    """Radau at rtol 1e-10 with the exact Jacobian: (grid (s), states (n, 2)) over two periods."""
    grid = np.linspace(10.0, 3000.0, 300)
    sol = solve_ivp(lambda t, y: [y[1], MU * (1 - y[0] ** 2) * y[1] - y[0]], (0.0, 3000.0), [2.0, 0.0],
                    method="Radau", rtol=1e-10, atol=1e-12, t_eval=grid,
                    jac=lambda t, y: [[0.0, 1.0], [-2 * MU * y[0] * y[1] - 1.0, MU * (1 - y[0] ** 2)]])
    return grid, sol.y.T


@pytest.mark.parametrize("rtol", [1e-6, 1e-8])
def test_van_der_pol_agrees_with_radau(problems, van_der_pol_reference, rtol):
    """Within 10 tolerances on the slow branches away from their folds (|y1| < 0.003; nearer the folds
    and in the jumps a shift of the jump's time dominates the difference), the end included."""
    grid, ref = van_der_pol_reference
    status, y, rows = run(solver(problems, "rodas_vdp", 2, [MU], rtol=rtol, atol=rtol), [2.0, 0.0], 3000.0, grid)
    assert status == REACHED_END and len(rows) == grid.size
    slow = np.abs(ref[:, 1]) < 0.003
    assert slow.sum() > 250 and slow[-1]
    assert normalised(rows[slow], ref[slow], rtol, rtol) < 10.0


def test_robertson_agrees_with_radau_with_steps_far_beyond_explicit_stability(problems):
    grid = np.logspace(-5, 5, 101)
    rodas = solver(problems, "rodas_robertson", 3, rtol=1e-8, atol=1e-14)
    status, y, rows = run(rodas, [1.0, 0.0, 0.0], 1e5, grid)
    assert status == REACHED_END

    def f(t, y):
        return [-0.04 * y[0] + 1e4 * y[1] * y[2], 0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] ** 2, 3e7 * y[1] ** 2]

    def jac(t, y):
        return [[-0.04, 1e4 * y[2], 1e4 * y[1]], [0.04, -1e4 * y[2] - 6e7 * y[1], -1e4 * y[1]], [0.0, 6e7 * y[1], 0.0]]
    ref = solve_ivp(f, (0.0, 1e5), [1.0, 0.0, 0.0], method="Radau", rtol=1e-10, atol=1e-16, t_eval=grid, jac=jac)
    assert normalised(rows, ref.y.T, 1e-8, 1e-14) < 10.0
    counters = rodas.counters()
    # the largest decay rate at the end bounds an explicit method's step (DOP853's stability interval
    # on the negative axis is about 6 / rate): RODAS's mean step is ten thousand times longer
    rate = np.max(np.abs(np.linalg.eigvals(jac(0.0, y))))
    assert 1e5 / counters["steps"] > 1e4 * 6.0 / rate
    # one Jacobian per step, reused by its rejections: n + 1 right-hand sides (f, J; f_t is zero without
    # inputs) per step and 5 per attempt
    assert counters["jacobians"] == counters["steps"]
    n = 3
    assert counters["rhs_calls"] == (n + 1) * counters["jacobians"] + 5 * (counters["steps"] + counters["rejected"])


def test_order_four_on_a_stiff_linear_system(problems):
    """Fixed steps h (tolerances so loose that the error test always passes, max_step = h): the error
    at t = 1 falls as h^4 although h |lambda| reaches 1000."""
    y0, exact = [1.0, 0.0, 0.0], expm(STIFF_LINEAR) @ [1.0, 0.0, 0.0]
    steps, errors = [0.1, 0.05, 0.025, 0.0125], []
    for h in steps:
        rodas = linear(problems, STIFF_LINEAR, rtol=1e3, atol=1e3, max_step=h)
        rodas.h = h
        status, y, _ = run(rodas, y0, 1.0)
        assert status == REACHED_END and rodas.counters()["steps"] == round(1.0 / h)
        errors.append(np.max(np.abs(y - exact)))
    slope = np.polyfit(np.log(steps), np.log(errors), 1)[0]
    assert 3.8 < slope < 4.3, (slope, errors)


def test_dense_output(problems):
    """Between the steps: of third order (its error falls as h^4 at fixed steps h), and within the
    tolerance over an adaptive run."""
    grid = np.linspace(0.001, 1.0, 997)  # no step ends but t = 1
    exact = np.array([expm(STIFF_LINEAR * t) @ [1.0, 0.0, 0.0] for t in grid])
    steps, errors = [0.1, 0.05, 0.025], []
    for h in steps:
        rodas = linear(problems, STIFF_LINEAR, rtol=1e3, atol=1e3, max_step=h)
        rodas.h = h
        status, _, rows = run(rodas, [1.0, 0.0, 0.0], 1.0, grid)
        errors.append(np.max(np.abs(rows[:, :2] - exact[:, :2])))
    slope = np.polyfit(np.log(steps), np.log(errors), 1)[0]
    assert 3.5 < slope < 4.5, (slope, errors)
    status, _, rows = run(linear(problems, STIFF_LINEAR, rtol=1e-8, atol=1e-10), [1.0, 0.0, 0.0], 1.0, grid)
    assert normalised(rows, exact, 1e-8, 1e-10) < 10.0


def test_the_time_of_an_event(problems):
    """The first two falling zeros of y0 of the stiff linear system (the rising one between them is not
    watched), each to 1e-10 s."""
    y0 = np.array([1.0, 0.0, 0.0])

    def g(t):
        return (expm(STIFF_LINEAR * t) @ y0)[0]
    ts = np.linspace(0.0, 5.0, 5001)
    values = np.array([g(t) for t in ts])
    falling = np.flatnonzero((values[:-1] > 0) & (values[1:] <= 0))
    roots = [brentq(g, ts[i], ts[i + 1], xtol=1e-15) for i in falling[:2]]
    rodas = linear(problems, STIFF_LINEAR, level=0.0, rtol=1e-10, atol=1e-12, directions=[-1])
    y = y0.copy()
    assert rodas.advance(0.0, y, 5.0, held([])) == EVENT and rodas.counters()["event"] == 0
    assert abs(rodas.t - roots[0]) < 1e-10 and abs(y[0]) < 1e-10
    y = expm(STIFF_LINEAR * 1.0) @ y0  # past the first
    assert rodas.advance(1.0, y, 5.0, held([])) == EVENT
    assert abs(rodas.t - roots[1]) < 1e-10


def test_inputs_drive_the_right_hand_side(problems):
    """y' = A y + b u(t) with u = 2 + 0.5 sin(3 t) given as an input's form: against Radau (f_t by
    differences of the input)."""
    A, b = STIFF_LINEAR, np.array([0.0, 1.0, 5.0])
    rodas = solver(problems, "rodas_linear", 3, [*A.ravel(), *b, 0.0], n_tau=1, rtol=1e-9,
                   atol=1e-11)
    grid = np.linspace(0.05, 2.0, 40)
    status, _, rows = run(rodas, [1.0, 0.0, 0.0], 2.0, grid, forms=[[1.0, 2.0, 0.5, 3.0, 0.0]])
    ref = solve_ivp(lambda t, y: A @ y + b * (2.0 + 0.5 * np.sin(3.0 * t)), (0.0, 2.0), [1.0, 0.0, 0.0],
                    method="Radau", rtol=1e-12, atol=1e-14, t_eval=grid, jac=lambda t, y: A)
    assert status == REACHED_END and normalised(rows, ref.y.T, 1e-9, 1e-11) < 10.0
    counters = rodas.counters()  # f, J and f_t (the input moves): n + 2 per step, 5 per attempt
    assert counters["rhs_calls"] == 5 * counters["jacobians"] + 5 * (counters["steps"] + counters["rejected"])


def test_df_dt_under_held_inputs_is_zero_without_a_difference():
    """The oscillator under inputs held over the call (ramps of slope 0) takes df/dt = 0 without a right-hand
    side: its run is bit-identical to the one whose ramp of x_d = 0.02 m has the slope 1e-300 m/s (an input
    that moves, so that df/dt is differenced: exactly zero, the change below x_d's last bit), with one
    right-hand side less per Jacobian."""
    params, _, y0 = bristle_system(2)
    runs = []
    for slope in (0.0, 1e-300):
        rodas = Rodas(Family("bristle"), *pack(params), 4, 3, len(BristleOscillator.RECORD_KEYS), rtol=1e-8, atol=1e-10)
        forms = held([0.02, 0.1, 10.0])
        forms[0, 2] = slope
        runs.append((run(rodas, y0, 0.3, np.linspace(0.01, 0.3, 30), forms), rodas.counters()))
    (held_run, held_counters), (moving_run, moving_counters) = runs
    assert held_run[0] == REACHED_END and np.array_equal(held_run[1], moving_run[1])
    assert np.array_equal(held_run[2], moving_run[2]) and np.ptp(held_run[2][:, 1]) > 0.05
    assert held_counters["steps"] == moving_counters["steps"] > 10
    assert moving_counters["rhs_calls"] - held_counters["rhs_calls"] == held_counters["jacobians"]


def test_failures_have_their_status_and_message(problems):
    """A matrix I/(h gamma) - J singular at five step sizes in a row (J = diag(4, 8, .., 64) at y = 0,
    where the differences are exact, from h = 1), a right-hand side that is never finite, an event
    function not quiet at the start, a kernel that fails (a negative load of the bristle family)."""
    singular = linear(problems, np.diag([4.0, 8.0, 16.0, 32.0, 64.0]))
    singular.h = 1.0
    assert run(singular, np.zeros(5), 10.0)[0] == MATRIX_SINGULAR and singular.t == 0.0
    assert "repeatedly singular" in singular.failure(MATRIX_SINGULAR)
    not_finite = linear(problems, [[np.nan]])
    assert run(not_finite, [1.0], 1.0)[0] == STEP_TOO_SMALL
    assert "step size" in not_finite.failure(STEP_TOO_SMALL)
    near = linear(problems, [[-1.0]], level=1.0 - 1e-9, directions=[-1])
    y = np.array([1.0])
    assert near.advance(0.0, y, 1.0, held([]), quiet=1e-6) == NOT_QUIET and near.counters()["rhs_calls"] == 0
    params, _, y0 = bristle_system(2)
    rodas = Rodas(Family("bristle", problems), *pack(params), 4, 3, len(BristleOscillator.RECORD_KEYS), rtol=1e-8, atol=1e-10)
    assert run(rodas, y0, 1.0, forms=held([0.0, 0.1, -1.0]))[0] == KERNEL_FAILED
    assert "F_n is outside the allowed range [0, inf)" in rodas.failure(KERNEL_FAILED)


def singular_instance(problems, last=64e6):
    """An instance (fj.h) of the stiff test family rodas_linear_stiff started at y = 0: y' = A y with A =
    diag(4, 8, 16, 32, last / 1e6) 1e6 1/s, whose matrix I/(h gamma) - J is singular at RODAS's first step
    (1e-6 s: 1/(h gamma) = 4e6 1/s) and its halvings while A's entries follow them (J's differences are exact
    at y = 0)."""
    A = np.diag([4e6, 8e6, 16e6, 32e6, last])
    instance = Instance(Family("rodas_linear_stiff", problems), [*A.ravel(), *np.zeros(5), 0.0], np.zeros(1, np.int64),
                        5, 0, 5, rtol=1e-8, atol=1e-10)
    instance.start(0.0, np.zeros(5))
    return instance


def test_a_singular_matrix_fails_the_step_of_an_instance_with_its_message(problems):
    """Through the instance's step (the stiff path of fj_instance_step): the matrix singular at five step sizes
    in a row fails the step with FJ_STATUS_KERNEL_FAILED and a message naming the cause and the time; singular
    at four (A's last entry not 64e6 1/s), the fifth step size succeeds (y = 0 stays)."""
    with pytest.raises(InstanceError) as failure:
        singular_instance(problems).step(1e-3)
    assert failure.value.status == STATUS_KERNEL_FAILED
    assert str(failure.value) == ("integration failed at t=0: the matrix I/(h gamma) - J of the Rosenbrock stages "
                                  "is repeatedly singular")
    four = singular_instance(problems, last=65e6)
    four.step(1e-3)
    assert four.t == 1e-3 and np.array_equal(four.y, np.zeros(5))


def test_a_singular_matrix_fails_the_dostep_of_a_native_fmu_with_its_message(tmp_path):
    """A native FMU of that instance (c_rodas/singular_fmu.c: the model table, its assembly and lookups as
    build_fmu.py --native writes them, over the engine, the FMI 2.0 layer and the test family): fmi2DoStep
    returns fmi2Error and logs the instance's message with the FMI function and the time."""
    binary = tmp_path / "binaries" / "linux64" / "Singular.so"
    binary.parent.mkdir(parents=True)
    srcs = [p for p in sources() if p.name not in ("families.c", "assemblies.c")]  # model.c's lookups instead
    compile_library(binary, [*srcs, FMI_DIR / "fj_fmu.c", FMI_DIR / "fmi2Functions.c", TESTS_DIR / "c_rodas" /
                             "problems.c", TESTS_DIR / "c_rodas" / "singular_fmu.c"], extra_flags=["-I", str(FMI_DIR)])
    messages = []
    callbacks = fmi2CallbackFunctions()
    callbacks.logger = fmi2CallbackLoggerTYPE(lambda env, instance, status, category, message:
                                              messages.append((status, category.decode(), message.decode())))
    callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    addLoggerProxy(byref(callbacks))
    fmu = FMU2Slave(guid="{singular-rosenbrock-matrix}", unzipDirectory=str(tmp_path), modelIdentifier="Singular",
                    instanceName="singular")
    fmu.instantiate(callbacks=callbacks, loggingOn=True)
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    with pytest.raises(FMICallException) as failure:
        fmu.doStep(0.0, 1e-3)
    assert failure.value.status == 3  # fmi2Error
    errors = [m for status, category, m in messages if status == 3 and category == "logStatusError"]
    assert errors == ["fmi2DoStep at t=0.0: integration failed at t=0: the matrix I/(h gamma) - J of the Rosenbrock "
                      "stages is repeatedly singular"], messages
    fmu.freeInstance()


def bristle_system(model):
    """The oscillator of the FMU's default experiment with the law ``model`` (1..4)."""
    law = make_law(model, sigma0=1e5, sigma1=5.0, sigma2=0.0, mu_c=0.3, mu_s=0.4, v_s=1e-3, delta=2.0,
                   z_ba_ratio=0.7)
    params = BristleOscillatorParameters(law, m=1.0, k=100.0)
    system = BristleOscillator(params, [0.0, 0.1, Sine(3.0, 3.0, 0.0, 10.0)])
    return params, system, system.initial_state(0.0, 0.0, 0.0, law.sigma0)


def test_lugre_oscillator_agrees_with_the_python_model():
    """The family "bristle" with LuGre at rtol 1e-8 through sliding and sticking against the Python
    model's right-hand side solved by Radau at rtol 1e-10: x, v, zeta = sigma0 z and W_friction to
    1e-5 of their ranges, and 50 times closer than at rtol 1e-6 (the error follows the tolerance)."""
    params, system, y0 = bristle_system(2)
    t_end, grid = 0.6, np.linspace(0.01, 0.6, 60)
    ref = solve_ivp(lambda t, y: system.rhs(t, y, None), (0.0, t_end), y0, method="Radau", rtol=1e-10,
                    atol=1e-12, t_eval=grid).y.T
    fpar, ipar = pack(params)
    errors = {}
    for rtol in (1e-6, 1e-8):
        rodas = Rodas(Family("bristle"), fpar, ipar, 4, 3, len(BristleOscillator.RECORD_KEYS), rtol=rtol, atol=rtol * 1e-2)
        status, _, rows = run(rodas, y0, t_end, grid, forms=system.input_forms(0.0, t_end))
        assert status == REACHED_END
        states = np.c_[rows[:, 0], rows[:, 1], rows[:, 3] * params.law.sigma0, rows[:, 8]]
        errors[rtol] = np.max(np.abs(states - ref), axis=0) / np.ptp(ref, axis=0)
    assert np.all(errors[1e-8] < 1e-5), errors
    assert np.all(errors[1e-8] * 50 < errors[1e-6]), errors
    slip = np.abs(ref[:, 1] - 0.1)
    assert slip.max() > 0.05 and slip.min() < 1e-3  # the mass slid and stuck


def family_states(family, rng):
    """(system, the indices of its work integrals in the Python model's state, [(y, tau)] at random states) of
    a model of each family RODAS integrates: the oscillator (y = [x, v, zeta, W_friction]), the slider-crank
    with LuGre in its joints (y = [q, u, zeta, W_drive, W_friction]) and the steering system with LuGre in its
    elements (y = [coordinates (5), rates (5), W (4), zeta (4)]), the RSRRR linkage with LuGre journal surfaces
    (y = [q (4), qd (4), W (3), zeta (11)]) and with a clearance and a flexible link (y = [q (n), qd (n), W (4)])."""
    if family == "bristle":
        _, system, _ = bristle_system(2)
        return system, [3], [([rng.normal(scale=0.01), rng.normal(scale=0.1), rng.uniform(-0.4, 0.4),
                               rng.normal()], [0.0, 0.1, 10.0]) for _ in range(8)]
    if family == "planar_bristle":
        from test_compiled_planar_bristle import bristle_state, laws_of
        mech = slider_crank()
        system = BristleSystem(mech, laws_of(mech, 2), [0.0] * mech.model.n_drives)
        states = [bristle_state(system, mech, rng, pre_sliding=i % 2 == 1) for i in range(8)]
        return system, [len(states[0][0]) - 2, len(states[0][0]) - 1], states
    if family == "spatial_bristle":
        from test_compiled_spatial_bristle import TAU, make_system, random_states as bristle_random_states
        system = make_system(2)
        return system, [8, 9, 10], [(y, TAU) for _, y in bristle_random_states(system, rng, 8)]
    if family == "spatial_clearance":
        from test_compiled_clearance import make, random_states
        system = make("clearance and flexible link in (2,2)")
        return system, list(range(2 * system.n, 2 * system.n + 4)), [(y, [2.0, 0.3])
                                                                     for y in random_states(system, rng, 8)]
    from test_compiled_steering_bristle import bristle_states, make_system
    system = make_system(2)
    return system, [10, 11, 12, 13], [(y, system.input_values(t)) for t, y in bristle_states(system, rng)]


@pytest.mark.parametrize("family", ["bristle", "planar_bristle", "steering_bristle", "spatial_bristle",
                                    "spatial_clearance"])
def test_the_integrals_a_family_declares_are_read_by_no_right_hand_side(family):
    """The states a family declares integrals (fj_family.integrals, whose Jacobian columns RODAS sets to zero
    without a difference) are the work integrals of the Python model's state, and the family's right-hand side
    is bit-identical with them changed at random states: the columns are exactly zero."""
    rng = np.random.default_rng(3)
    system, integrals, states = family_states(family, rng)
    cm = system.compiled()
    assert cm.family_name == family and cm.family.c.integrator
    for y, tau in states:
        y, tau = np.array(y, float), np.ascontiguousarray(tau, float)
        system.inputs = [Constant(value) for value in tau]
        _, mode, _ = cm.update(system, 0.0, y, None, None)
        ws = cm.workspace(system, mode)
        assert list(ws.integrals()) == integrals
        dy = np.full(len(y), np.nan)
        assert ws.call("rhs", 0.0, y, tau, dy) == 0 and np.all(np.isfinite(dy))
        for j in integrals:
            changed, dy_changed = y.copy(), np.full(len(y), np.nan)
            changed[j] += 1e3 * (1.0 + abs(y[j]))
            assert ws.call("rhs", 0.0, changed, tau, dy_changed) == 0 and np.array_equal(dy_changed, dy), j


def stepped(system, y0, engine, steps, h=1e-3, **options):
    """The records of ``system`` advanced from (0, y0) in ``steps`` communication steps of h (s) on the engine
    (the inputs held over each, an FMU's way), and the integrator."""
    integrator = make_integrator(system, 0.0, y0, engine=engine, **options)
    return [integrator.advance_to((k + 1) * h) for k in range(steps)], integrator


@pytest.mark.parametrize("model", [1, 2, 3, 4])
def test_every_bristle_law_follows_the_python_model_at_fixed_inputs(model):
    """The oscillator on the compiled engine (an instance of fj.h, whose step integrates the stiff family
    with RODAS) stepped at 1 ms against the Python engine (LSODA) from rest, belt at 0.1 m/s, F_n = 10 N:
    the record (x, v, z, F, W_friction) over 1 s; every step is RODAS's, n right-hand sides a step (f,
    the Jacobian's columns but W_friction's; df/dt is zero under the held inputs) and 5 an attempt (DOP853's
    would be 12 a step)."""
    params, _, y0 = bristle_system(model)
    system = BristleOscillator(params, [0.0, 0.1, 10.0])
    ref = run_python(system, y0, 1.0, dt_out=0.01, rtol=1e-11, atol=1e-13, engine="python")
    rows, integrator = stepped(system, y0, "compiled", 1000, rtol=1e-10, atol=1e-12)
    for key in ("x", "v", "z", "F", "W_friction"):
        got = np.array([row[key] for row in rows[9::10]])
        want = np.asarray(ref[key])[1:]
        assert np.max(np.abs(got - want)) < 1e-5 * np.ptp(want), key
    rhs_calls, steps, _ = integrator.instance.counters
    assert steps >= 1000 and (rhs_calls - 4 * steps) % 5 == 0 and rhs_calls >= 9 * steps


def test_a_saved_state_of_the_stiff_path_continues_bit_identically():
    """get_state / set_state on the RODAS path (the carried step size restored): a fresh integrator from a
    state saved after 0.2 s continues bit-identically under a sinusoidal load."""
    params, _, y0 = bristle_system(2)
    system = BristleOscillator(params, [0.0, 0.1, Sine(3.0, 3.0, 0.0, 10.0)])
    _, integrator = stepped(system, y0, "compiled", 200, rtol=1e-8, atol=1e-10)
    saved = integrator.get_state()
    first = [integrator.advance_to(0.2 + (k + 1) * 1e-3) for k in range(200)]
    fresh = make_integrator(system, 0.0, y0, engine="compiled", rtol=1e-8, atol=1e-10)
    fresh.set_state(saved)
    again = [fresh.advance_to(0.2 + (k + 1) * 1e-3) for k in range(200)]
    assert [row["F"] for row in again] == [row["F"] for row in first] and np.ptp([row["F"] for row in first]) > 0


def sanitizer_runs(lib) -> dict:
    """Short runs of every problem and bristle law on the library lib, with events, grids and inputs:
    {name: [status, the final state, the rows]}."""
    runs = {}
    for name, rodas, y0, t_end, grid, forms in [
            ("vdp", solver(lib, "rodas_vdp", 2, [MU], directions=[0]), [2.0, 0.0], 1000.0, [10.0, 500.0], None),
            ("robertson", solver(lib, "rodas_robertson", 3, atol=1e-14), [1.0, 0.0, 0.0], 100.0, [1e-3, 1.0], None),
            ("event", linear(lib, STIFF_LINEAR, directions=[-1]), [1.0, 0.0, 0.0], 5.0, [0.1, 0.5, 1.0], None),
            ("input", solver(lib, "rodas_linear", 3, [*STIFF_LINEAR.ravel(), 0.0, 1.0, 5.0, 0.0], n_tau=1),
             [1.0, 0.0, 0.0], 2.0, [1.0, 2.0], [[1.0, 2.0, 0.5, 3.0, 0.0]])]:
        status, y, rows = run(rodas, y0, t_end, grid, forms)
        runs[name] = [status, y.tolist(), rows.tolist()]
    for model in (1, 2, 3, 4):
        params, system, y0 = bristle_system(model)
        fpar, ipar = pack(params)
        rodas = Rodas(Family("bristle", lib), fpar, ipar, 4, 3, len(BristleOscillator.RECORD_KEYS), rtol=1e-8, atol=1e-10)
        status, y, rows = run(rodas, y0, 0.5, [0.1, 0.5], system.input_forms(0.0, 0.5))
        runs[f"bristle {model}"] = [status, y.tolist(), rows.tolist()]
    return runs


SANITIZED = """
import json, sys
from friction_joints.native import library
from test_rodas import sanitizer_runs
print(json.dumps(sanitizer_runs(library(sys.argv[1]))))
"""


def test_runs_clean_under_sanitizers(tmp_path, problems, object_cache):
    """Every problem and law on a build with the address and undefined-behaviour sanitizers (where
    Python can run the former) at -O0 (as conftest's sanitized_engine: it compiles in a quarter of -O2's
    time and checks the same) gives the plain build's results."""
    path = sanitized_library(tmp_path, (*sanitizers(), "-O0"), SOURCES, objects=object_cache)
    sanitized = json.loads(run_against(path, SANITIZED))
    plain = sanitizer_runs(problems)
    assert sanitized.keys() == plain.keys()
    for name, (status, y, rows) in plain.items():
        assert sanitized[name][0] == status and status in (REACHED_END, EVENT), name
        np.testing.assert_allclose(sanitized[name][1], y, rtol=1e-12, atol=1e-300, err_msg=name)
        np.testing.assert_allclose(np.array(sanitized[name][2]), rows, rtol=1e-12, atol=1e-300, err_msg=name)
