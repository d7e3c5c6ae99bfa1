"""The compiled family "two_mass_bristle" (native/src/two_mass_bristle.c over bristle_laws.c, packed by
lumped.bristle_packing.pack_two_mass) against the Python TwoMassBristle, its reference: the two stacked blocks
of seed 001 Sect. 4 with bristle friction in both contacts. On random states (each contact sliding both ways,
at zero slip, its deflection up to and beyond the steady one) rhs and record agree to 1e-10 of each quantity's
scale for every pair of laws; seed 001's forcing (F1 = 6 sin 2t, F2 = 20 cos 1.3t, stick-slip between the
blocks) runs alike on both engines (RODAS and LSODA at rtol 1e-10); and the compiled run's energy balances:
the work of F1 and F2 is the blocks' kinetic energy less the friction's work W_friction."""

import numpy as np
import pytest

from friction_joints.engine import run
from friction_joints.friction import make_law
from friction_joints.hybrid import Sine
from friction_joints.lumped import TwoMassBristle, TwoMassBristleParameters
from friction_joints.lumped.bristle_packing import pack_two_mass
from friction_joints.native import Family, Kernel

from test_compiled_bristle import law_row

G = 9.81
M1, M2 = 1.0, 2.0
N12, N20 = M1 * G, (M1 + M2) * G  # the loads of the weights
FORCES = [Sine(6.0, 2.0), Sine(20.0, 1.3, np.pi / 2)]  # seed 001 Sect. 4: F1 = 6 sin 2t, F2 = 20 cos 1.3t
PAIRS = [(1, 2), (2, 2), (3, 4), (4, 1)]  # (law12, law20) models: each law in each contact


def laws(model12, model20, sigma0=1e5):
    """law12 (mu 0.2 / 0.3) and law20 (mu 0.4 / 0.5), each damped critically on its block (sigma1)."""
    return [make_law(model, sigma0=sigma0, sigma1=2.0 * np.sqrt(sigma0 * m / load), sigma2=0.1, mu_c=mu_c, mu_s=mu_s,
                     v_s=1e-3, delta=2.0, z_ba_ratio=0.7)
            for model, mu_c, mu_s, m, load in ((model12, 0.2, 0.3, M1, N12), (model20, 0.4, 0.5, M2, N20))]


def system(pair, forces=FORCES):
    return TwoMassBristle(TwoMassBristleParameters(*laws(*pair), N12, N20, M1, M2), forces)


def states(params, rng):
    """(F1, F2, y) cases: slips v12 and v20 sliding both ways and zero, deflections across z_ss and beyond."""
    for k in range(24):
        v12, v20 = ([rng.uniform(-0.5, 0.5), rng.normal(scale=3e-3), 0.0][(k + j) % 3] for j in (0, 1))
        zeta = [rng.uniform(-1.2, 1.2) * law.mu_s for law in (params.law12, params.law20)]  # zeta = sigma0 z
        y = np.array([rng.normal(scale=0.1), rng.normal(scale=0.1), v12 + v20, v20, *zeta, rng.uniform(0.0, 2.0)])
        yield rng.normal(scale=10.0), rng.normal(scale=10.0), y


def test_the_packing_is_the_documented_layout():
    params = system((3, 1)).p
    fpar, ipar = pack_two_mass(params)
    assert fpar.tolist() == [M1, M2, N12, N20, *law_row(params.law12), *law_row(params.law20)] and ipar.tolist() == [0]


@pytest.mark.parametrize("pair", PAIRS)
def test_kernels_agree_with_the_python_model(pair):
    model = system(pair)
    compiled = model.compiled()
    assert compiled.family_name == "two_mass_bristle"
    family = Family("two_mass_bristle")
    rhs, record = Kernel(family, "rhs"), Kernel(family, "record")
    got, want = [], []
    for F1, F2, y in states(model.p, np.random.default_rng(sum(pair))):
        reference = TwoMassBristle(model.p, [F1, F2])
        dy, out = np.full(7, np.nan), np.full(len(model.RECORD_KEYS), np.nan)
        tau = np.array([F1, F2])
        assert rhs(0.0, y, tau, compiled.fpar, compiled.ipar, [0.0], [0], dy) == 0
        assert record(0.0, y, tau, compiled.fpar, compiled.ipar, [0.0], [0], out) == 0
        rec = reference.record(0.0, y, None)
        got.append([*dy, *out])
        want.append([*reference.rhs(0.0, y, None), *(rec[key] for key in model.RECORD_KEYS)])
    got, want = np.array(got), np.array(want, dtype=float)
    scale = np.max(np.abs(want), axis=0) + 1e-300
    assert np.all(np.abs(got - want) <= 1e-10 * scale), np.max(np.abs(got - want) / scale, axis=0)


@pytest.mark.parametrize("pair", PAIRS)
def test_runs_agree_with_the_python_engine(pair):
    """1 s of seed 001's forcing from rest at rtol 1e-10, every 10 ms: the blocks' positions, velocities and
    W_friction to 1e-8 of their ranges, the stiff bristles' z and F to 1e-6 (measured: at most 2.4e-9 and
    2.9e-7); the upper block sticks on the lower one for part of the run."""
    model = system(pair)
    y0 = model.initial_state()
    runs = {engine: run(model, y0, 1.0, dt_out=0.01, rtol=1e-10, atol=1e-12, engine=engine)
            for engine in ("python", "compiled")}
    assert np.mean(np.abs(runs["compiled"]["v12"]) < 1e-3) > 0.2  # stuck between the blocks
    for keys, tol in ((("z1", "z2", "zd1", "zd2", "W_friction"), 1e-8), (("z12", "z20", "F12", "F20"), 1e-6)):
        for key in keys:
            want, got = np.asarray(runs["python"][key], float), np.asarray(runs["compiled"][key], float)
            assert got.shape == want.shape and np.max(np.abs(got - want)) < tol * np.ptp(want), key


def test_the_compiled_run_balances_its_energy():
    """Over 2 s at rtol 1e-10: the work of F1 and F2 (trapezoidal over 0.2 ms records) equals the kinetic energy
    less W_friction (the friction's work on the blocks, the bristles' stored energy included) to 1e-6 of the
    input work (measured 2.6e-8, the quadrature's); a sign or factor wrong in either power breaks it by O(1)."""
    model = system((2, 2))
    res = run(model, model.initial_state(), 2.0, dt_out=2e-4, rtol=1e-10, atol=1e-12, engine="compiled")
    t = res.t
    power = FORCES[0](t) * res["zd1"] + FORCES[1](t) * res["zd2"]
    work_in = np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(t))])
    kinetic = 0.5 * M1 * res["zd1"] ** 2 + 0.5 * M2 * res["zd2"] ** 2
    assert np.max(np.abs(res["W_friction"])) > 0.1 * np.max(np.abs(work_in))  # the friction does work
    assert np.max(np.abs(work_in - kinetic + res["W_friction"])) < 1e-6 * np.max(np.abs(work_in))
