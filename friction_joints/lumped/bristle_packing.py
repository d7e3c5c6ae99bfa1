"""The packing of the C engine's family "bristle" (``native/src/bristle.c``): the oscillator with bristle
friction of ``lumped.bristle.BristleOscillator``, and a driver that steps it with the engine's stiff
integrator RODAS (``native.rodas``) at a fixed communication step, the inputs held over each step as an
FMU's are.

Arrays (``pack``): fpar = [m, k, law (``pack_law``)], ipar = [0] (unused). Law row (fj_bristle_laws.h):
model (friction.bristle.LAWS), sigma0, sigma1, sigma2, mu_c, mu_s (Dahl: mu_c), v_s, delta, z_ba_ratio
(the fields a law lacks are 1, never read). Inputs x_d, v_belt, F_n; state [x, v, zeta, W_friction]
(BristleOscillator's). Record: ``RECORD``.
"""

from __future__ import annotations

import numpy as np

from ..friction.bristle import LAWS, BristleLaw, ElastoPlastic
from ..native import Family
from ..native.rodas import REACHED_END, Rodas, held

RECORD = ("x", "v", "a", "z", "zdot", "F", "N", "v_r", "W_friction", "E_kin", "E_spring")


def pack_law(law: BristleLaw) -> list[float]:
    """The row of a bristle law (module docstring)."""
    model = next(number for number, kind in LAWS.items() if type(law) is kind)
    return [float(model), law.sigma0, law.sigma1, law.sigma2, law.mu_c, law.mu_s, getattr(law, "v_s", 1.0),
            getattr(law, "delta", 1.0), law.z_ba_ratio if isinstance(law, ElastoPlastic) else 1.0]


def pack(params) -> tuple[np.ndarray, np.ndarray]:
    """(fpar, ipar) of BristleOscillatorParameters."""
    return np.array([params.m, params.k, *pack_law(params.law)]), np.zeros(1, dtype=np.int64)


class CompiledBristleOscillator:
    """The oscillator (BristleOscillatorParameters) stepped in C by RODAS from the state y0 (n = 4, the
    Python model's) at time t0: ``step(inputs, dt)`` holds the inputs (x_d, v_belt, F_n) over [t, t + dt]
    and returns the record at t + dt as a dict (RECORD)."""

    def __init__(self, params, y0, t0=0.0, *, rtol=1e-8, atol=1e-10):
        fpar, ipar = pack(params)
        self.rodas = Rodas(Family("bristle"), fpar, ipar, 4, 3, len(RECORD), rtol=rtol, atol=atol)
        self.y, self.t = np.array(y0, dtype=float), float(t0)
        self.forms, self.grid = held([0.0, 0.0, 0.0]), np.zeros(1)

    def step(self, inputs, dt) -> dict:
        t_end = self.t + dt
        self.forms[:, 1] = inputs
        self.grid[0] = t_end
        status = self.rodas.advance(self.t, self.y, t_end, self.forms, self.grid)
        if status != REACHED_END:
            raise RuntimeError(f"the bristle oscillator failed at t={self.rodas.t:.9g}: {self.rodas.failure(status)}")
        self.t = t_end
        return dict(zip(RECORD, self.rodas.records[0]))
