"""The choice of engine (friction_joints.engine): "auto" runs the C engine where it can and, where it
cannot, warns why before it runs the Python engine; "compiled" refuses with the same reason."""

import warnings

import numpy as np
import pytest

from friction_joints.engine import EngineFallbackWarning, why_not_compiled
from friction_joints.hybrid import Sine
from friction_joints.hybrid.signals import FunctionSignal
from friction_joints.lumped import SingleMassFriction, SingleMassParameters
from friction_joints.simulation import simulate
from friction_joints.mechanisms import slider_crank


def test_a_python_function_input_runs_on_python_with_a_warning_and_a_sine_on_c_without():
    """The same run with tau = 4 sin 3t as a lambda (Python engine, a warning naming the input and the
    remedy) and as a Sine (C engine, no warning): the same stiction intervals to 1e-9 s."""
    mech = slider_crank()
    q0 = mech.assemble([0.0])
    with pytest.warns(EngineFallbackWarning, match=r"input 0 of MechanismSystem is a Python function of time.*Sine"):
        python = simulate(mech, [lambda t: 4.0 * np.sin(3.0 * t)], 1.5, q0, [0.0], dt_out=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("error", EngineFallbackWarning)
        compiled = simulate(mech, [Sine(4.0, 3.0)], 1.5, q0, [0.0], dt_out=0.01)
    assert len(python.events) >= 2  # it sticks and breaks away
    assert [k for _, k in compiled.events] == [k for _, k in python.events]
    np.testing.assert_allclose(compiled.event_times(), python.event_times(), rtol=0, atol=1e-9)


def test_engine_compiled_refuses_a_python_function_input_with_the_reason():
    system = SingleMassFriction(SingleMassParameters(), [FunctionSignal(lambda t: 0.0)])
    reason = why_not_compiled(system)
    assert reason is not None and "input 0 of SingleMassFriction" in reason
    assert why_not_compiled(SingleMassFriction(SingleMassParameters(), [Sine(1.0, 1.0)])) is None
    from friction_joints.engine import make_integrator

    with pytest.raises(ValueError, match="engine='compiled' cannot run this system: input 0 of SingleMassFriction"):
        make_integrator(system, 0.0, system.initial_state(0.0, 0.0), engine="compiled")


def test_a_compiled_run_reads_its_series_column_by_column_as_row_by_row():
    """Results of the compiled engine keep flat records (RecordRow) and read a planar system's series from
    them column by column: every key equals the per-row dicts stacked, dtype and shape included, and a
    record copies and pickles as its dict."""
    import copy
    import pickle

    from friction_joints.hybrid.integrator import RecordRow

    mech = slider_crank()
    res = simulate(mech, [Sine(4.0, 3.0)], 1.5, mech.assemble([0.0]), [0.0], dt_out=0.01, engine="compiled")
    assert all(type(r) is RecordRow for r in res.rows) and len(res.events) >= 2
    for key in res.rows[0]:
        by_rows = np.array([dict(r)[key] for r in res.rows])
        by_columns = res[key]
        assert by_columns.dtype == by_rows.dtype and by_columns.shape == by_rows.shape, key
        np.testing.assert_array_equal(by_columns, by_rows, err_msg=key)
    with pytest.raises(KeyError):
        res["no such key"]
    row = res.rows[-1]
    for twin in (copy.deepcopy(row), pickle.loads(pickle.dumps(row))):
        assert type(twin) is dict and twin.keys() == dict(row).keys()
        np.testing.assert_array_equal(twin["q"], row["q"])
