"""The Zeno guard of both engines (hybrid.integrator.HybridIntegrator._at_event; native/src/hybrid.c's
at_event): more than MAX_EVENTS_AT_ONE_TIME events at one time is chattering, an error naming it.

The model that chatters: the single mass of seed 001 Sect. 2 with its static level below its kinetic one
(F_T0S < F_T0K, which SingleMassParameters and the C assembly reject as ill-posed; built here from a plain
namespace and arrays packed by hand for the shipped kernels of the family "lumped"). Slipping forward against
a constant force F with F_T0S < F < F_T0K, the mass stops at t = M v0 / (F_T0K - F); there it cannot stick
(F > F_T0S: it breaks away in F's direction) and cannot slip (F < F_T0K: the kinetic friction turns it back
at once), so the slip's stop fires again and again at that instant. The same mass with F_T0S >= F sticks
there (the guard does not fire falsely).

The other guard, a mode that does not settle within MAX_EVENTS_AT_ONE_TIME decisions at one state
(HybridIntegrator._settle, hybrid.c's settle), has no test: no model found reaches it. The shipped decisions
keep a friction that a pass set slipping at zero speed slipping in the next pass (the ``update`` of the
lumped models, the steering system and MechanismSystem after a change), so the set of slipping contacts
only grows from pass to pass, and the lumped models' and the steering system's decisions settle within one
pass per contact; the guard bounds the loop should a decision cycle.
"""

import re
from types import SimpleNamespace

import numpy as np
import pytest

from friction_joints import native
from friction_joints.errors import FrictionJointsError
from friction_joints.hybrid.integrator import MAX_EVENTS_AT_ONE_TIME, HybridIntegrator
from friction_joints.lumped import SingleMassFriction
from friction_joints.lumped import packing
from friction_joints.native.instance import CompiledIntegrator
from friction_joints.native.model import CompiledModel

M, FT0, F, V0 = 1.0, 2.0, 1.5, 1.0  # kg, N (kinetic level), N (the constant force), m/s (forward slip)
T_STOP = M * V0 / (FT0 - F)  # s: the slip's stop, 2 s
ZENO = r"(\d+) events at t=(\S+): chattering \(Zeno\) detected"
ENGINES = {"python": HybridIntegrator, "compiled": CompiledIntegrator}


def single_mass(FT0S):
    """The single mass of the module docstring with static level FT0S (N), without the parameters' checks,
    and its compiled form from the same values (fpar in lumped.packing's layout, ipar kind SINGLE_MASS)."""
    p = SimpleNamespace(M=M, C=0.0, FT0=FT0, FT0S=FT0S, K=0.0, v_belt=0.0)
    system = SingleMassFriction(p, [F])
    fpar = np.array([p.M, p.C, p.FT0, p.FT0S, p.K, p.v_belt])
    ipar = np.array([packing.SINGLE_MASS, 0, 0], dtype=np.int64)
    system._compiled_model = CompiledModel("lumped", fpar, ipar, packing.record_size(packing.SINGLE_MASS))
    return system


@pytest.mark.parametrize("engine", ENGINES)
def test_a_static_level_below_the_kinetic_one_chatters_at_the_stop_and_raises(engine):
    system = single_mass(FT0S=1.0)
    integrator = ENGINES[engine](system, 0.0, system.initial_state(0.0, V0))
    with pytest.raises(FrictionJointsError, match=ZENO) as error:
        integrator.advance(3.0)
    count, t = re.search(ZENO, str(error.value)).groups()
    assert int(count) == MAX_EVENTS_AT_ONE_TIME + 1
    assert float(t) == pytest.approx(T_STOP, abs=1e-9)
    stops = integrator.results.event_times("slip_zero")
    assert len(stops) == MAX_EVENTS_AT_ONE_TIME  # logged before the one that raised
    np.testing.assert_allclose(stops, T_STOP, rtol=0, atol=1e-9)


def test_the_engines_raise_at_the_same_time_with_the_same_message():
    messages = {}
    for engine, integrator in ENGINES.items():
        system = single_mass(FT0S=1.0)
        with pytest.raises(FrictionJointsError) as error:
            integrator(system, 0.0, system.initial_state(0.0, V0)).advance(3.0)
        messages[engine] = str(error.value)
    times = {engine: float(re.search(ZENO, message).group(2)) for engine, message in messages.items()}
    assert times["compiled"] == pytest.approx(times["python"], abs=1e-9)
    assert re.sub(ZENO, "", messages["compiled"]) == re.sub(ZENO, "", messages["python"]) == ""


def test_the_c_instance_stops_with_the_zeno_status_in_a_co_simulation_step():
    model = single_mass(FT0S=1.0).compiled()
    instance = native.Instance(model.family, model.fpar, model.ipar, 4, 1, model.n_record, rtol=1e-10, atol=1e-12)
    instance.start(0.0, [0.0, V0, 0.0, 0.0])
    instance.set_inputs([F])
    with pytest.raises(native.InstanceError, match=ZENO) as error:
        instance.step(3.0)  # one call: the events and decisions at the stop all in C
    assert error.value.status == native.STATUS_ZENO
    assert instance.t == pytest.approx(T_STOP, abs=1e-9)
    assert instance.counters[2] == native.MAX_EVENTS_AT_ONE_TIME + 1 == MAX_EVENTS_AT_ONE_TIME + 1  # events


@pytest.mark.parametrize("engine", ENGINES)
def test_a_static_level_above_the_force_sticks_at_the_stop(engine):
    system = single_mass(FT0S=FT0)
    res = ENGINES[engine](system, 0.0, system.initial_state(0.0, V0)).advance(3.0)
    assert [kind for _, kind in res.events] == ["slip", "stick"]  # the start, then the stop: it sticks there
    assert res.event_times("stick")[0] == pytest.approx(T_STOP, abs=1e-9)
    assert res["stuck"][-1] and res["zd"][-1] == 0.0
