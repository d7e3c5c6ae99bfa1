"""The compiled kernels of the steering system (friction_joints.vehicle.steering_packing) and of the
single-track vehicle (friction_joints.vehicle.single_track_packing) against the Python models (SteeringSystem,
SingleTrackVehicle, their reference) on random states: rhs, events (in the order of
``system.events(mode)``) and record (through decode_record, key by key, same types and dtypes) agree
to 1e-10 of each quantity's scale. The steering is checked in all 81 modes of its friction elements (each
of the four stuck or slipping either way), each state with every position at the rack's end stops
(Mode.stop: within the travel, on the left or right stop, released from either) in turn, inside and
outside the rack-pinion freeplay (the dead zone of luz, and its edges), with the rack within its travel,
beyond it pushing on a stop or leaving it faster than the stop relaxes, and on its edge, with elements
inactive (no friction: no events), without freeplay and with an undamped stop; the vehicle with and
without tyre relaxation.

The kernels are those of the installed C engine (native/src/steering.c, vehicle.c) that
``system.compiled()`` calls; they also run once from a build with sanitizers (tests/native_build.py)."""

import itertools

import numpy as np
import pytest

from friction_joints.hybrid import Sine
from friction_joints.native import library
from friction_joints.vehicle import (SingleTrackVehicle, SteeringParameters, SteeringSystem, VehicleParameters,
                                     steering_packing)
from friction_joints.vehicle.steering import Mode

from native_build import run_kernels

TOL = 1e-10  # of each quantity's scale
STATES = 8  # random states per configuration within the rack's travel
STOP_STATES = 8  # and beyond, on or near it, at either end stop
STOP_POSITIONS = (0, 1, -1, 2, -2)  # Mode.stop: within the travel, on the left / right stop, released from it

CONFIGS = {
    "default": dict(),
    "worn": dict(b=5e-4, static_factor=1.6, friction_scale=2.0),  # a wide freeplay, strong stiction
    "no-freeplay": dict(b=0.0),
    "no-kingpin-friction": dict(mu_k=0.0),  # the king-pins never stick: no events for them
    "frictionless": dict(friction_scale=0.0),  # no element active: no events but the end stops'
    "undamped-stops": dict(c_stop=0.0, rack_travel=0.05),  # the stops' release where their spring relaxes
}
DIRECTIONS = list(itertools.product((1, -1, 0), repeat=4))
MODES = [Mode(d) for d in DIRECTIONS]


def modes_for_state(k):
    """The 81 friction modes, each with a position at the end stops, in turn over the modes and states k."""
    return [Mode(d, STOP_POSITIONS[(i + k) % len(STOP_POSITIONS)]) for i, d in enumerate(DIRECTIONS)]


def make_system(kw):
    inputs = [Sine(2.0, 3.0, 0.2, 0.5), Sine(15.0, 2.0, offset=-3.0), Sine(-10.0, 2.0, 0.4), 3500.0,
              Sine(800.0, 1.5, offset=3400.0)]
    return SteeringSystem(SteeringParameters(**kw), inputs)


def random_states(system, rng, stops=True):
    """(t, y): angles of a few degrees, the rack gap r_p th_p - x inside the freeplay, outside it, and on
    its edges; some rates exactly zero (stuck elements at rest); with ``stops`` then STOP_STATES with the
    rack at either end beyond its travel (up to 0.3 mm) pressing on (up to 0.3 m/s) or leaving at 0.5 to
    1 m/s (so that k_stop pen + c_stop pend takes either sign there), exactly on its edge, and within it
    (up to 0.1 mm)."""
    p = system.p
    for k in range(STATES + (STOP_STATES if stops else 0)):
        if k >= STATES:
            # in pairs (left, right): pushing, released, on the edge, within the travel
            side, kind = (1, -1)[k % 2], (k - STATES) // 2
            pen = (rng.uniform(1e-5, 3e-4), rng.uniform(1e-5, 3e-4), 0.0, rng.uniform(-1e-4, 0.0))[kind]
            y = system.initial_state(side * (p.rack_travel + pen) / p.r_p)
            y[5:10] = rng.normal(size=5) * np.array([10.0, 10.0, 0.1, 1.0, 1.0])
            y[2] = side * (p.rack_travel + pen)
            if kind == 0:  # pressing on
                y[7] = side * rng.uniform(0.0, 0.3)
            elif kind == 1:  # leaving faster than k_stop pen / c_stop (below 0.3 m/s by default): released
                y[7] = -side * rng.uniform(0.5, 1.0)
            y[10:] = rng.normal(size=4)
            yield rng.uniform(0.0, 5.0), y
            continue
        y = system.initial_state(rng.normal() * 0.3)
        y[:5] += rng.normal(size=5) * np.array([0.02, 0.02, 1e-4, 0.01, 0.01])
        gap = (0.5, 3.0, 1.0, -1.0)[k % 4] * p.b if k < 4 else rng.uniform(-3.0, 3.0) * max(p.b, 1e-5)
        y[2] = p.r_p * y[1] - gap
        if k < 4 and k >= 2:  # exactly on an edge: th_p = 0 and x = -gap give r_p th_p - x = gap exactly
            y[1], y[2] = 0.0, -gap
        y[5:10] = rng.normal(size=5) * np.array([1.0, 1.0, 0.01, 0.1, 0.1])
        if k % 2 == 0:
            y[5 + rng.integers(1, 5, size=2)] = 0.0
        y[10:] = rng.normal(size=4)
        yield rng.uniform(0.0, 5.0), y


def call(kernel, system, t, y, mode, size, fpar=None):
    model = system.compiled()
    fmode, imode = system.encode_mode(mode)
    out = np.full(size, np.nan)
    status = kernel(t, np.ascontiguousarray(y, float), np.ascontiguousarray(system.input_values(t), float),
                    model.fpar if fpar is None else fpar, model.ipar, fmode, imode, out)
    return status, out


def assert_close(got, want, what, floor=1.0):
    want = np.asarray(want, float)
    scale = max(np.abs(want).max(initial=0.0), floor)
    err = np.abs(np.asarray(got, float) - want).max(initial=0.0)
    assert err <= TOL * scale, f"{what}: error {err:.3g} beyond {TOL:g} x scale {scale:.3g}\n{got}\n{want}"


def check_mode(system, t, y, mode, where, exact=()):
    """rhs, events and record of the kernels against the Python model at (t, y, mode); the keys in
    ``exact`` must be equal."""
    model = system.compiled()
    where = f"{where}, mode {mode}, t={t:.6g}, y={np.array2string(np.asarray(y), precision=4)}"
    status, dy = call(model.rhs, system, t, y, mode, len(y))
    assert status == 0, f"rhs status {status} ({where})"
    assert_close(dy, system.rhs(t, y, mode), f"rhs ({where})")

    evs = system.events(mode)
    status, g = call(model.events, system, t, y, mode, len(evs) + 1)
    assert status == 0, f"events status {status} ({where})"
    for k, ev in enumerate(evs):
        assert_close(g[k], ev.fn(t, y), f"event {k} '{ev.name}' ({where})")
    assert np.isnan(g[len(evs)]), f"the kernel wrote more event functions than the {len(evs)} of the mode ({where})"

    status, out = call(model.record, system, t, y, mode, model.n_record)
    assert status == 0, f"record status {status} ({where})"
    got, want = system.decode_record(out), system.record(t, y, mode)
    assert list(got) == list(want), f"record keys ({where})"
    for key, ref in want.items():
        if isinstance(ref, np.ndarray):
            assert isinstance(got[key], np.ndarray) and got[key].shape == ref.shape, f"record {key} shape ({where})"
            assert got[key].dtype == ref.dtype, f"record {key} dtype {got[key].dtype} for {ref.dtype} ({where})"
        else:
            assert type(got[key]) is type(ref), f"record {key}: {type(got[key])} for {type(ref)} ({where})"
        if key in exact:
            assert np.array_equal(got[key], ref), f"record {key}: {got[key]} for {ref} ({where})"
        else:
            assert_close(got[key], ref, f"record {key} ({where})")


@pytest.fixture(scope="module")
def systems():
    return {name: make_system(kw) for name, kw in CONFIGS.items()}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_steering_kernels_agree_with_the_python_model(systems, name):
    system = systems[name]
    assert system.compiled() is not None
    rng = np.random.default_rng(sum(map(ord, name)))
    freeplay, stops = set(), set()
    for k, (t, y) in enumerate(random_states(system, rng)):
        freeplay.add(bool(abs(system.p.r_p * y[1] - y[2]) < system.p.b))
        stops.add(system.stop_contact(y))
        for mode in modes_for_state(k):
            check_mode(system, t, y, mode, name, exact=("stuck", "in_freeplay"))
    if system.p.b > 0:
        assert freeplay == {True, False}  # both sides of the dead zone were checked
    # states within the travel, pushing on both stops and, but for the undamped stop, released from one
    assert {0, 1, -1} <= stops and (stops & {2, -2} or system.p.c_stop == 0.0), stops


def test_freeplay_edges_and_mesh_force(systems):
    """On the edge of the freeplay (|r_p th_p - x| = b exactly) the mesh force is zero (luz's closed dead
    zone) and in_freeplay is False (the record's strict test), in the kernels as in Python; just outside,
    the mesh force is k_g (gap -+ b)."""
    system = systems["worn"]
    b, k_g = system.p.b, system.p.k_g
    for gap, mesh in ((b, 0.0), (-b, 0.0), (0.5 * b, 0.0), (1.5 * b, k_g * 0.5 * b), (-2.0 * b, -k_g * b)):
        y = system.initial_state()
        y[1], y[2] = 0.0, -gap
        status, out = call(system.compiled().record, system, 0.0, y, MODES[0], system.compiled().n_record)
        rec, ref = system.decode_record(out), system.record(0.0, y, MODES[0])
        assert status == 0 and rec["F_g"] == pytest.approx(mesh, rel=1e-12, abs=0.0) and ref["F_g"] == rec["F_g"]
        assert rec["in_freeplay"] == ref["in_freeplay"] == (abs(gap) < b)


def test_the_comparison_can_fail(systems):
    """A kernel given a king-pin friction 1e-6 larger differs from the Python model beyond the tolerance
    in a mode where the king-pins slip, and one given a stop damping 1e-6 larger on the stop: the
    agreement above is not vacuous."""
    system = systems["default"]
    fpar = system.compiled().fpar.copy()
    fpar[steering_packing.F_KINGPIN] *= 1.0 + 1e-6
    y = system.initial_state(0.1)
    y[5:10] = [0.5, 0.45, 0.0033, 0.02, 0.02]
    _, dy = call(system.compiled().rhs, system, 0.4, y, MODES[0], len(y), fpar=fpar)
    with pytest.raises(AssertionError):
        assert_close(dy, system.rhs(0.4, y, MODES[0]), "perturbed king-pin friction")
    # nor on the end stop: a stop damping 1e-6 larger, the rack pressing on the left stop
    fpar = system.compiled().fpar.copy()
    fpar[steering_packing.PARAMETERS.index("c_stop")] *= 1.0 + 1e-6
    y = system.initial_state((system.p.rack_travel + 1e-4) / system.p.r_p)
    y[7] = 0.2
    on_stop = Mode(MODES[0].directions, 1)
    _, dy = call(system.compiled().rhs, system, 0.4, y, on_stop, len(y), fpar=fpar)
    with pytest.raises(AssertionError):
        assert_close(dy, system.rhs(0.4, y, on_stop), "perturbed stop damping")


def test_compiled_is_built_once_and_none_for_subclasses(systems):
    system = systems["default"]
    model = system.compiled()
    assert system.compiled() is model and model.family_name == "steering" and model.family.lib is library()
    assert model.n_record == steering_packing.RECORD_SIZE
    assert model.fpar.dtype == np.float64 and model.ipar.dtype == np.int64
    assert list(systems["no-kingpin-friction"].compiled().ipar) == [1, 1, 0, 0]
    fmode, imode = system.encode_mode(Mode((1, 0, -1, 0)))
    assert fmode.dtype == np.float64 and imode.dtype == np.int64 and list(imode) == [1, 0, -1, 0, 0]
    assert list(system.encode_mode(Mode((1, 0, -1, 0), -2))[1]) == [1, 0, -1, 0, -2]

    class Assisted(SteeringSystem):
        def forces(self, t, y):
            return super().forces(t, y)

    assert Assisted(SteeringParameters(), [0.0] * 5).compiled() is None


# --- the single-track vehicle --------------------------------------------------------------------------
@pytest.mark.parametrize("sigma", [0.0, 0.5])
def test_vehicle_kernels_agree_with_the_python_model(sigma):
    system = SingleTrackVehicle(VehicleParameters(sigma=sigma), [Sine(0.02, 2.0), Sine(0.025, 2.0, 0.1)])
    assert system.compiled() is not None
    rng = np.random.default_rng(5)
    for _ in range(STATES):
        y = rng.normal(size=5) * np.array([0.5, 0.2, 1.0, 3000.0, 3000.0])
        check_mode(system, rng.uniform(0.0, 5.0), y, "smooth", f"vehicle sigma={sigma}")


def test_vehicle_compiled_is_none_for_subclasses():
    class Other(SingleTrackVehicle):
        def tyre_forces(self, t, y):
            return super().tyre_forces(t, y)

    assert Other(VehicleParameters(), [0.0, 0.0]).compiled() is None
    model = SingleTrackVehicle(VehicleParameters(), [0.0, 0.0]).compiled()
    assert model.family_name == "vehicle" and model.family.lib is library() and model.n_record == 10


# --- both families -----------------------------------------------------------------------------------
def test_messages_and_scratch(systems):
    """The kernels cannot fail (nor can the Python models): every status is unknown to the vehicle, and to
    the steering but for its mode decision's two (test_decide_steering); they need no scratch."""
    for system in (systems["default"], SingleTrackVehicle(VehicleParameters(sigma=0.5), [0.0, 0.0])):
        model = system.compiled()
        for status in (0, 3, -1) if model.family_name == "steering" else (0, 1, 2, -1):
            assert model.message(status) == "unknown status"
        assert model.family.work_size(model.fpar, model.ipar) == (0, 0)


def test_kernels_under_sanitizers(sanitized_engine, systems):
    """Every kernel of both families (the steering in modes with stuck and slipping elements, inside and
    outside the freeplay, at each position of the end stops; the vehicle with and without relaxation), once,
    from the engine built with the sanitizers (conftest's ``sanitized_engine``: a sanitizer's report fails
    this test); the steering's mode_events and decide too, after each event of each case's mode and at the
    start (run_kernels)."""
    rng = np.random.default_rng(3)
    cases = [(systems["worn"], t, y, modes_for_state(k)[(10 * k) % len(DIRECTIONS)])
             for k, (t, y) in enumerate(random_states(systems["worn"], rng))]
    modes = [mode for _, _, _, mode in cases]
    assert systems["worn"].compiled().family.decides_modes
    assert any(0 in m.directions for m in modes) and any(0 not in m.directions for m in modes)
    assert {m.stop for m in modes} == set(STOP_POSITIONS)
    for sigma in (0.0, 0.5):
        vehicle_system = SingleTrackVehicle(VehicleParameters(sigma=sigma), [Sine(0.02, 2.0), 0.01])
        cases.append((vehicle_system, 0.3, rng.normal(size=5) * [0.5, 0.2, 1.0, 3000.0, 3000.0], "smooth"))
    run_kernels(sanitized_engine, cases)
