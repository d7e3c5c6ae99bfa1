"""The C engine's instance API (native/src/fj.h) through its binding: saved states continue bit-identically,
instances in threads do not share anything, bad arguments are refused with a message naming the cause and
leave the instance as it was."""

import ctypes
import threading

import numpy as np
import pytest

from friction_joints import native
from friction_joints.vehicle.single_track import SingleTrackVehicle, VehicleParameters

N_Y, N_TAU = 5, 2  # the single-track vehicle with relaxed tyres: v_y, r, psi, F_yf, F_yr; two steer angles


def vehicle_instance(**options):
    """A started instance of the single-track vehicle (relaxation length 0.5 m)."""
    model = SingleTrackVehicle(VehicleParameters(sigma=0.5), [0.0, 0.0]).compiled()
    inst = native.Instance(model.family, model.fpar, model.ipar, N_Y, N_TAU, model.n_record,
                           **{"rtol": 1e-10, "atol": 1e-12, **options})
    inst.start(0.0, np.zeros(N_Y))
    return inst


def drive(inst, t0, t_end, h=1e-3):
    """Steps of h from t0 to t_end with a steering ramp given as values and derivatives; the outputs (n, n_record)."""
    rows = []
    for t in np.arange(t0, t_end - h / 2, h):
        inst.set_inputs([0.02 * np.sin(3 * t)] * N_TAU, [0.06 * np.cos(3 * t)] * N_TAU)
        inst.step(t + h)
        out = np.empty(inst.n_record)
        inst.outputs(out)
        rows.append(out)
    return np.array(rows)


def test_a_saved_state_continues_bit_identically_in_a_fresh_instance():
    inst = vehicle_instance()
    drive(inst, 0.0, 0.3)
    saved = inst.get_state()
    first = drive(inst, 0.3, 0.6)
    fresh = vehicle_instance()
    fresh.set_state(saved)
    assert abs(fresh.t - 0.3) < 1e-12
    np.testing.assert_array_equal(drive(fresh, 0.3, 0.6), first)
    assert np.ptp(first[:, 0]) > 0  # the vehicle moved: the comparison compares something


def test_instances_in_threads_give_the_results_of_one_thread():
    alone = drive(vehicle_instance(), 0.0, 0.2)
    results = [None] * 4

    def work(i):
        results[i] = drive(vehicle_instance(), 0.0, 0.2)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for result in results:
        np.testing.assert_array_equal(result, alone)


def test_bad_arguments_are_refused_with_their_cause():
    model = SingleTrackVehicle(VehicleParameters(sigma=0.5), [0.0, 0.0]).compiled()
    with pytest.raises(native.InstanceError, match="rtol"):
        native.Instance(native.Family("vehicle"), model.fpar, model.ipar, N_Y, N_TAU, model.n_record, rtol=2.0,
                        atol=1e-10)
    unstarted = native.Instance(native.Family("vehicle"), model.fpar, model.ipar, N_Y, N_TAU, model.n_record,
                                rtol=1e-8, atol=1e-10)
    with pytest.raises(native.InstanceError, match="not been started"):
        unstarted.step(1.0)
    inst = vehicle_instance()
    drive(inst, 0.0, 0.1)
    saved = inst.get_state()
    with pytest.raises(native.InstanceError, match="input 1 is not finite"):
        inst.set_inputs([0.01, np.nan])
    with pytest.raises(native.InstanceError, match="derivative of input 0"):
        inst.set_inputs([0.01, 0.01], [np.inf, 0.0])
    with pytest.raises(native.InstanceError, match="backwards"):
        inst.step(0.05)
    with pytest.raises(native.InstanceError, match="not one of this model"):
        inst.set_state(np.where(np.arange(saved.size) == 1, 99.0, saved))
    with pytest.raises(native.InstanceError, match="not finite"):
        inst.set_state(np.where(np.arange(saved.size) == saved.size - 1, np.nan, saved))
    np.testing.assert_array_equal(inst.get_state(), saved)  # nothing was lost
    reference = vehicle_instance()
    drive(reference, 0.0, 0.1)
    np.testing.assert_array_equal(drive(inst, 0.1, 0.2), drive(reference, 0.1, 0.2))


def test_an_unknown_family_is_named():
    lib = native.library()
    error = ctypes.create_string_buffer(128)
    handle = lib.fj_instance_new(b"nonsense", None, 0, None, 0, 1, 0, 0, None, error, len(error))
    assert not handle and b"unknown family" in error.value


STEPPING = """
import math, sys
from friction_joints.stepping import MechanismStepper
from friction_joints.mechanisms import slider_crank
mech = slider_crank()
stepper = MechanismStepper(mech, mech.assemble([0.0]), [0.0], [0.0], engine="compiled")
loaded = {name for name in sys.modules if name.startswith("scipy")}
t, kinds = 0.0, set()
for k in range(3000):
    stepper.step(t, 1e-3, [4.0 * math.sin(3.0 * t)])
    kinds |= {kind for _, kind in stepper.integrator.results.events}
    t += 1e-3
new = sorted(name for name in sys.modules if name.startswith("scipy") and name not in loaded)
print(type(stepper.integrator).__module__, "stick" in kinds, new, "scipy.optimize" in sys.modules,
      "scipy.integrate" in sys.modules)
"""


def test_co_simulation_steps_import_no_scipy():
    """Steps with stick-slip events (decided in C) import nothing of scipy: scipy.optimize (the Python
    engine's Gauss principle) and scipy.integrate (its integrator) are never loaded."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", STEPPING], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["friction_joints.native.instance", "True", "[]", "False", "False"], done.stdout
