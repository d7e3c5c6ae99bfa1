"""The compiled kernels of the family "bristle" (native/src/bristle.c over bristle_laws.c, packed by
lumped.bristle_packing) against the Python BristleOscillator and friction.bristle, their reference, on
random states: rhs and record (key by key, RECORD's order) agree to 1e-10 of each quantity's scale for
every law, sliding both ways, at zero slip, and for the elasto-plastic law in each part of alpha(z, v)
(elastic, the half-sine transition, plastic, sgn z != sgn v); a negative or NaN load fails with its
message as the Python model raises."""

import numpy as np
import pytest

from friction_joints.errors import FrictionJointsError
from friction_joints.friction import make_law
from friction_joints.lumped import BristleOscillator, BristleOscillatorParameters
from friction_joints.lumped.bristle_packing import RECORD, pack
from friction_joints.native import Family, Kernel

TOL = 1e-10  # of each quantity's scale
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
