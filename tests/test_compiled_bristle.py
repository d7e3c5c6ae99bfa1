"""The compiled kernels of the family "bristle" (native/src/bristle.c over bristle_laws.c, packed by
lumped.bristle_packing) against the Python BristleOscillator and friction.bristle, their reference, on
random states: rhs and record (key by key, RECORD's order) agree to 1e-10 of each quantity's scale for
every law, sliding both ways, at zero slip, and for the elasto-plastic law in each part of alpha(z, v)
(elastic, the half-sine transition, plastic, sgn z != sgn v); a negative or NaN load fails with its
message as the Python model raises. The C assembly (native/src/assembly_bristle.c, the one packer)
packs the law row of fj_bristle_laws.h and refuses what make_law and BristleOscillatorParameters refuse,
with their messages. Whole runs: the compiled engine (RODAS, the family being stiff)
against the Python engine (LSODA) under a varying load, every law."""

import math

import numpy as np
import pytest

from friction_joints.engine import run
from friction_joints.errors import FrictionJointsError
from friction_joints.friction import make_law
from friction_joints.hybrid import Sine
from friction_joints.lumped import BristleOscillator, BristleOscillatorParameters
from friction_joints.lumped.bristle_packing import PARAMETERS, pack, parameters
from friction_joints.native import Assembly, Family, Kernel

TOL = 1e-10  # of each quantity's scale
RECORD = BristleOscillator.RECORD_KEYS
LAW = dict(sigma0=1e5, sigma1=5.0, sigma2=0.2, mu_c=0.3, mu_s=0.4, v_s=1e-3, delta=2.0, z_ba_ratio=0.7)
VARIANTS = {  # law parameters besides LAW's
    "defaults": {},
    "delta 1.5, no damping": dict(delta=1.5, sigma1=0.0, sigma2=0.0),
    "soft bristle": dict(sigma0=1e3, v_s=0.05),
}


def states(law, rng):
    """(x_d, v_belt, N, y) cases: sliding both ways, zero slip, and |z| across z_ba and z_ss."""
    z_ss = law.mu_s / law.sigma0
    for k in range(24):
        v_belt = rng.uniform(-0.3, 0.3)
        v_r = [rng.uniform(-0.5, 0.5), rng.normal(scale=3 * law.v_s if hasattr(law, "v_s") else 1e-3), 0.0][k % 3]
        z = rng.uniform(-1.2, 1.2) * z_ss if k % 4 else np.copysign(1.1 * z_ss, v_r)  # beyond: plastic
        y = np.array([rng.normal(scale=0.05), v_belt + v_r, law.sigma0 * z, rng.uniform(0.0, 2.0)])
        yield rng.normal(scale=0.05), v_belt, rng.uniform(0.0, 20.0), y


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("model", [1, 2, 3, 4])
def test_kernels_agree_with_the_python_model(model, variant):
    law = make_law(model, **{**LAW, **VARIANTS[variant]})
    params = BristleOscillatorParameters(law, m=1.7, k=80.0)
    fpar, ipar = pack(params)
    rhs, record = Kernel(Family("bristle"), "rhs"), Kernel(Family("bristle"), "record")
    rng = np.random.default_rng(model)
    cases = list(states(law, rng))
    got_rhs, want_rhs, got_rec, want_rec = [], [], [], []
    for x_d, v_belt, N, y in cases:
        system = BristleOscillator(params, [x_d, v_belt, N])
        tau = np.array([x_d, v_belt, N])
        dy, out = np.full(4, np.nan), np.full(len(RECORD), np.nan)
        assert rhs(0.0, y, tau, fpar, ipar, [0.0], [0], dy) == 0
        assert record(0.0, y, tau, fpar, ipar, [0.0], [0], out) == 0
        got_rhs.append(dy)
        want_rhs.append(system.rhs(0.0, y, None))
        got_rec.append(out)
        rec = system.record(0.0, y, None)
        want_rec.append([rec[key] for key in RECORD])
    for got, want in ((got_rhs, want_rhs), (got_rec, want_rec)):
        got, want = np.array(got), np.array(want, dtype=float)
        scale = np.max(np.abs(want), axis=0) + 1e-300
        assert np.all(np.abs(got - want) <= TOL * scale), np.max(np.abs(got - want) / scale, axis=0)
    if model == 3:  # every part of alpha(z, v) was reached
        alphas = {float(law.alpha(y[2] / law.sigma0, y[1] - v_belt)) for _, v_belt, _, y in cases}
        assert 0.0 in alphas and 1.0 in alphas and any(0.0 < a < 1.0 for a in alphas)


@pytest.mark.parametrize("load", [-1.0, np.nan])
def test_a_load_outside_its_range_fails(load):
    params = BristleOscillatorParameters(make_law(2, **LAW))
    fpar, ipar = pack(params)
    y, tau = np.array([0.0, 0.1, 0.0, 0.0]), np.array([0.0, 0.0, load])
    family = Family("bristle")
    status = Kernel(family, "rhs")(0.0, y, tau, fpar, ipar, [0.0], [0], np.zeros(4))
    assert status != 0 and "F_n" in family.message(status) and "[0, inf)" in family.message(status)
    if load < 0.0:  # (a NaN input is refused before: a constant input must be finite)
        with pytest.raises(FrictionJointsError, match="F_n"):
            BristleOscillator(params, [0.0, 0.0, load]).rhs(0.0, y, None)


@pytest.mark.parametrize("model", [1, 2, 3, 4])
def test_runs_agree_with_the_python_engine(model):
    """The FMU's default experiment (belt at 0.1 m/s, F_n = 10 (1 + 0.3 sin 3t) N, from rest) over 1 s at
    rtol 1e-10 on both engines, at every 10 ms: x, v, z, F and W_friction to 1e-6 of their ranges (measured: at
    most 3.5e-7, Gonthier's v; 2.4e-8 to 1.7e-7 for the other laws)."""
    law = make_law(model, **LAW)
    system = BristleOscillator(BristleOscillatorParameters(law, m=1.0, k=100.0), [0.0, 0.1, Sine(3.0, 3.0, 0.0, 10.0)])
    y0 = system.initial_state(sigma0=law.sigma0)
    runs = {engine: run(system, y0, 1.0, dt_out=0.01, rtol=1e-10, atol=1e-12, engine=engine)
            for engine in ("python", "compiled")}
    assert type(system).ode_method == "LSODA" and system.compiled().family_name == "bristle"
    for key in ("x", "v", "z", "F", "W_friction"):
        want, got = np.asarray(runs["python"][key], float), np.asarray(runs["compiled"][key], float)
        assert got.shape == want.shape and np.max(np.abs(got - want)) < 1e-6 * np.ptp(want), key


def law_row(law) -> list:
    """The row of a bristle law in fj_bristle_laws.h's order: model, sigma0, sigma1, sigma2, mu_c, mu_s (Dahl: mu_c),
    v_s, delta, z_ba_ratio (the fields a law lacks: 1)."""
    model = {"Dahl": 1, "LuGre": 2, "ElastoPlastic": 3, "Gonthier": 4}[type(law).__name__]
    return [model, law.sigma0, law.sigma1, law.sigma2, law.mu_c, law.mu_c if model == 1 else law.mu_s,
            1.0 if model == 1 else law.v_s, 1.0 if model == 1 else law.delta, law.z_ba_ratio if model == 3 else 1.0]


def documented(params) -> list:
    """fpar of the module docstring of lumped.bristle_packing: [m, k, the law's row]."""
    return [params.m, params.k, *law_row(params.law)]


def python_parameters(values):
    """BristleOscillatorParameters of the FMU's parameter values, as the pythonfmu FMU builds them."""
    law = make_law(int(values["model"]), **{n: values[n] for n in PARAMETERS[3:]})
    return BristleOscillatorParameters(law, m=values["m"], k=values["k"])


@pytest.mark.parametrize("model", [1, 2, 3, 4])
def test_the_c_assembly_packs_and_checks_as_python(model):
    assembly, rng = Assembly("BristleOscillator"), np.random.default_rng(model)
    assert assembly.names == PARAMETERS and (assembly.family, assembly.n_y, assembly.n_tau) == ("bristle", 4, 3)
    for _ in range(20):
        values = {n: float(rng.uniform(0.1, 3.0)) for n in PARAMETERS}
        values.update(model=float(model), mu_s=values["mu_c"] + values["mu_s"], z_ba_ratio=float(rng.uniform(0, 1)))
        params = python_parameters(values)
        fpar, ipar, y0 = assembly(values)
        assert fpar.tolist() == documented(params) and ipar.tolist() == [0] and y0.tolist() == [0.0] * 4
        assert pack(params)[0].tolist() == fpar.tolist() and parameters(params)["model"] == model
    base = dict(model=float(model), m=1.0, k=100.0, **LAW)
    cases = [("model", bad) for bad in (0.0, 5.0)] + [(n, bad) for n in PARAMETERS[1:]
                                                       for bad in (0.0, -1.0, math.nan, math.inf, 1.5)]
    refused = 0
    for name, bad in cases:
        values = dict(base, **{name: bad})
        try:
            python_parameters(values)
            python = None
        except ValueError as error:
            python = str(error)
        if python is None:  # a value the law does not read, or within its range
            assert assembly(values)[0].tolist() == documented(python_parameters(values)), (name, bad)
            continue
        refused += 1
        with pytest.raises(ValueError) as c:
            assembly(values)
        assert str(c.value) == python, (name, bad)
    assert refused >= 20
