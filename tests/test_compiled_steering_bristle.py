"""The compiled family "steering_bristle" (native/src/steering_bristle.c over steering.c's mechanics and
bristle_laws.c, packed by vehicle.steering_bristle_packing through the C assembly SteeringBristle) against
vehicle.SteeringBristle, its reference: rhs and record (key by key, same types) at random states agree to 1e-10
of each entry for every law, with slips at rest, near the Stribeck velocity and sliding, deflections
in pre-sliding, at the steady ones and beyond the static bound, inside and outside the freeplay, and with the
rack at its end stops (pushing on either, released beyond it, on its edge). The C assembly packs a law row per
element and refuses what SteeringParameters and element_laws refuse, with their messages; elements with
different laws are packed row by row. Whole runs: the compiled engine (RODAS) against the Python engine (LSODA)
at rtol 1e-11 (Gonthier's 1e-12), every law, and the energy balance of the compiled run with the rack on its end
stops."""

import ctypes
import math

import numpy as np
import pytest
from test_compiled_steering import TOL, call, random_states

from friction_joints.engine import run
from friction_joints.friction import make_law
from friction_joints.hybrid import Sine
from friction_joints.native import Assembly
from friction_joints.vehicle import (ELEMENTS, SteeringBristle, SteeringParameters, SteeringSystem, element_laws,
                                     steering_packing)
from friction_joints.vehicle import steering_bristle_packing as packing

LAWS = {1: "Dahl", 2: "LuGre", 3: "elasto-plastic", 4: "Gonthier"}
BRISTLE = dict(sigma0=[1e3, 1e5, 1e4, 2e4], sigma1=[0.5, 5.0, 2.0, 0.0], sigma2=[0.01, 20.0, 0.1, 0.0],
               v_s=[3e-3, 1e-3, 0.01, 0.02])  # per element: pinion, rack (per m), king-pins


def assert_close(got, want, what):
    """Each entry within TOL of its own size (the kernels follow the Python's arithmetic: measured equal)."""
    got, want = np.asarray(got, float), np.asarray(want, float)
    bad = np.abs(got - want) > TOL * np.abs(want)
    assert not bad.any(), f"{what}: entries {np.flatnonzero(bad)} differ\n{got}\n{want}"


def make_system(model, **params):
    p = SteeringParameters(**params)
    inputs = [Sine(2.0, 3.0, 0.2, 0.5), Sine(15.0, 2.0, offset=-3.0), Sine(-10.0, 2.0, 0.4), 3500.0,
              Sine(800.0, 1.5, offset=3400.0)]
    return SteeringBristle(p, element_laws(p, model, **BRISTLE, delta=1.5 if model == 4 else 2.0), inputs)


def bristle_states(system, rng):
    """(t, y): test_compiled_steering's states (within the travel, in and out of the freeplay, at the end stops)
    with, per element, a slip at rest, near v_s or sliding (the rack beyond its travel: its state's) and a
    deflection zeta = sigma0 z in pre-sliding, at the steady sliding value mu(v) sgn v, or beyond the static
    bound (the elasto-plastic alpha's three parts)."""
    for k, (t, y) in enumerate(random_states(SteeringSystem(system.p, [0.0] * 5), rng)):
        zeta = np.empty(len(ELEMENTS))
        for e, law in enumerate(system.laws):
            v_s = getattr(law, "v_s", 1e-3)
            v = [0.0, rng.normal(scale=2 * v_s), rng.uniform(-0.3, 0.3) * (0.01 if e == 1 else 1.0)][(k + e) % 3]
            if e == 1 and abs(y[2]) > system.p.rack_travel:  # the rack's rate of the end-stop state: pushing or not
                v = y[7]
            y[6 + e] = v
            zeta[e] = [rng.uniform(-1.0, 1.0) * law.mu_c, float(law.mu(v)) * np.sign(v),
                       1.1 * law.mu_s * np.sign(rng.normal())][(k + 2 * e) % 3]
        yield t, np.concatenate((y, zeta))


@pytest.mark.parametrize("params", [{}, dict(b=5e-4, static_factor=1.6, friction_scale=2.0), dict(mu_k=0.0)],
                         ids=["default", "worn", "no-kingpin-friction"])
@pytest.mark.parametrize("model", LAWS)
def test_kernels_agree_with_the_python_model(model, params):
    system = make_system(model, **params)
    compiled = system.compiled()
    assert compiled.family_name == "steering_bristle" and compiled.family.lib is not None
    stops, alphas = set(), set()
    for t, y in bristle_states(system, np.random.default_rng(model)):
        where = f"{LAWS[model]}, t={t:.6g}, y={np.array2string(y, precision=4)}"
        stops.add(system.stop_contact(y))
        status, dy = call(compiled.rhs, system, t, y, None, len(y))
        assert status == 0, where
        assert_close(dy, system.rhs(t, y, None), f"rhs ({where})")
        status, out = call(compiled.record, system, t, y, None, compiled.n_record)
        assert status == 0, where
        got, want = system.decode_record(out), system.record(t, y, None)
        assert set(got) == set(want), where
        for key, ref in want.items():
            assert type(got[key]) is type(ref) and np.shape(got[key]) == np.shape(ref), f"record {key} ({where})"
            if key in ("stuck", "in_freeplay"):
                assert np.array_equal(got[key], ref), f"record {key} ({where})"
            else:
                assert_close(got[key], ref, f"record {key} ({where})")
        if model == 3:
            alphas |= {float(law.alpha(y[14 + e] / law.sigma0, y[6 + e])) for e, law in enumerate(system.laws)}
    assert {0, 1, -1} <= stops and stops & {2, -2}, stops  # within the travel, on both stops, released
    if model == 3:  # every part of alpha(z, v): elastic, the half-sine transition, plastic
        assert 0.0 in alphas and 1.0 in alphas and any(0.0 < a < 1.0 for a in alphas), alphas


def test_the_comparison_can_fail():
    """A rack law with sigma1 1e-6 larger gives a right-hand side beyond the tolerance: the agreement is not
    vacuous."""
    system = make_system(2)
    fpar = system.compiled().fpar.copy()
    fpar[packing.N_STEERING + packing.LAW_SIZE + 2] *= 1.0 + 1e-6  # element 1 (the rack), its sigma1
    t, y = next(bristle_states(system, np.random.default_rng(0)))
    y[7], y[15] = 0.002, 0.5  # the rack slipping, its bristle deflected
    _, dy = call(system.compiled().rhs, system, t, y, None, len(y), fpar=fpar)
    with pytest.raises(AssertionError):
        assert_close(dy, system.rhs(t, y, None), "perturbed rack sigma1")


def documented(system) -> list:
    """fpar of the module docstring of steering_bristle_packing: the steering family's, then per element the row
    model, sigma0, sigma1, sigma2, mu_c, mu_s (Dahl: mu_c), v_s, delta, z_ba_ratio (the fields a law lacks: 1)."""
    rows = []
    for law in system.laws:
        model = {"Dahl": 1, "LuGre": 2, "ElastoPlastic": 3, "Gonthier": 4}[type(law).__name__]
        rows += [model, law.sigma0, law.sigma1, law.sigma2, law.mu_c, law.mu_c if model == 1 else law.mu_s,
                 1.0 if model == 1 else law.v_s, 1.0 if model == 1 else law.delta,
                 law.z_ba_ratio if model == 3 else 1.0]
    return steering_packing.pack(system)[0].tolist() + rows


@pytest.mark.parametrize("model", LAWS)
def test_the_c_assembly_packs_and_checks_as_python(model):
    assembly = Assembly("SteeringBristle")
    assert assembly.names == packing.PARAMETERS and (assembly.family, assembly.n_y, assembly.n_tau) == (
        "steering_bristle", 18, 5)
    assert assembly.names[:len(Assembly("SteeringSystem").names)] == Assembly("SteeringSystem").names
    system = make_system(model, static_factor=1.4)
    assert system.compiled().fpar.tolist() == documented(system)  # four different laws, row by row
    mixed = SteeringBristle(system.p, [make_law(m, sigma0=1e4, sigma1=1.0, sigma2=0.1, mu_c=1.0, mu_s=1.4, v_s=1e-3,
                                                delta=2.0, z_ba_ratio=0.5) for m in (model, 1, 3, 4)], [0.0] * 5)
    assert mixed.compiled().fpar.tolist() == documented(mixed)  # a law per element
    base = {name: getattr(SteeringParameters(), name) for name in steering_packing.PARAMETERS}
    base.update(delta_sw_start=0.3, friction_model=float(model), sigma0=1e4, sigma1=5.0, sigma2=0.0, v_s=3e-3,
                delta=2.0, z_ba_ratio=0.7)
    fpar, ipar, y0 = assembly(base)
    exact = SteeringBristle(SteeringParameters(), element_laws(SteeringParameters(), model, sigma0=1e4, sigma1=5.0,
                                                              v_s=3e-3, delta=2.0, z_ba_ratio=0.7), [0.0] * 5)
    assert fpar.tolist() == documented(exact) and ipar.tolist() == [1, 1, 1, 1]
    assert y0.tolist() == exact.initial_state(0.3).tolist()
    cases = [(n, bad) for n in packing.BRISTLE for bad in (0.0, -1.0, math.nan, math.inf, 1.5)]
    cases += [("static_factor", 0.5), ("J_p", 0.0)]
    refused = 0
    for name, bad in cases:
        values = dict(base, **{name: bad})
        try:
            p = SteeringParameters(**{n: values[n] for n in steering_packing.PARAMETERS})
            element_laws(p, int(values["friction_model"]), **{n: values[n] for n in packing.BRISTLE})
            python = None
        except ValueError as error:
            python = str(error)
        if python is None:  # a value the law does not read, or within its range
            assembly(values)
            continue
        refused += 1
        with pytest.raises(ValueError) as c:
            assembly(values)
        assert str(c.value) == python, (name, bad)
    assert refused >= 10
    for bad in (0.0, 5.0):  # (make_law's message names its argument model)
        with pytest.raises(ValueError, match=rf"^friction_model={bad:.0f} is outside the allowed range \[1, 4\]"):
            assembly(dict(base, friction_model=bad))


def inputs():
    """test_steering_bristle's inputs (driver and aligning moments in N.m, wheel loads 3.5 and 3.8 kN)."""
    return [Sine(3.0, np.pi), Sine(-20.0, np.pi), Sine(-25.0, np.pi), 3500.0, 3800.0]


#: rtol of the runs on both engines: LSODA's error on Gonthier's law (whose blend (1 - s(v)) mu_c sgn v bends sharply
#: at v = 0) stays above 1e-7 of the range down to rtol 1e-11 (measured against the compiled run at 1e-12: 4e-6
#: at 1e-10, 4e-7 at 1e-11), RODAS's is 6e-8 at 1e-10
RUN_RTOL = {1: 1e-11, 2: 1e-11, 3: 1e-11, 4: 1e-12}


@pytest.mark.parametrize("model", LAWS)
def test_runs_agree_with_the_python_engine(model):
    """test_steering_bristle's run (sigma0 1e4, sigma1 5, sigma2 per element; stick-slip of every element) over
    1 s at RUN_RTOL on both engines, RODAS against LSODA: q, qd, the frictions, z and W_friction within 1e-7 of
    their ranges at every 5 ms (measured: 6e-10 for Dahl, LuGre and the elasto-plastic law, 4e-8 for Gonthier)."""
    p = SteeringParameters()
    system = SteeringBristle(p, element_laws(p, model, sigma0=1e4, sigma1=5.0, sigma2=[0.01, 20.0, 0.1, 0.1]),
                             inputs())
    rtol = RUN_RTOL[model]
    runs = {engine: run(system, system.initial_state(), 1.0, dt_out=0.005, rtol=rtol, atol=rtol / 100,
                        engine=engine) for engine in ("python", "compiled")}
    family = system.compiled().family  # a stiff family: its integrator is RODAS (LSODA on the Python engine)
    assert family.c.integrator == ctypes.addressof(ctypes.c_char.in_dll(family.lib, "fj_rodas"))
    worst = {}
    for key in ("q", "qd", "friction", "z", "W_friction"):
        want, got = np.asarray(runs["python"][key], float), np.asarray(runs["compiled"][key], float)
        assert got.shape == want.shape, key
        worst[key] = np.max(np.abs(got - want).max(axis=0) / np.ptp(want, axis=0))
    print(f"{LAWS[model]}: max |compiled - python| / range", {k: f"{v:.1e}" for k, v in worst.items()})
    assert max(worst.values()) < 1e-7, worst


@pytest.mark.parametrize("model", LAWS)
def test_energy_balance_of_the_compiled_run_on_the_end_stops(model):
    """A rack travel of 0.3 mm, so that the rack hits both end stops (integrated over, no events): on the compiled
    engine E_kin + E_spring - its start = W_driver + W_aligning + W_friction + W_damping within 1e-7 of the
    driver's work; the stops pushed and friction took energy out."""
    p = SteeringParameters(rack_travel=3e-4)
    system = SteeringBristle(p, element_laws(p, model, sigma0=1e4, sigma1=5.0, sigma2=[0.01, 20.0, 0.1, 0.1]),
                             inputs())
    r = run(system, system.initial_state(), 2.0, dt_out=0.005, rtol=1e-10, atol=1e-12, engine="compiled")
    E = r["E_kin"] + r["E_spring"]
    W = r["W_driver"] + r["W_aligning"] + r["W_friction"] + r["W_damping"]
    scale = np.abs(r["W_driver"]).max()
    print(f"{LAWS[model]}: energy balance max |error| {np.abs(E - E[0] - W).max():.2e} J of W_driver up to "
          f"{scale:.3f} J")
    assert (r["F_stop"] < 0).any() and (r["F_stop"] > 0).any()
    assert np.abs(E - E[0] - W).max() < 1e-7 * scale
    assert r["W_friction"][-1] < -0.05 * scale
