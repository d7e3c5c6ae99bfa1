"""A mass on a moving belt with bristle friction (Dahl, LuGre, elasto-plastic, Gonthier), and the
bristle state driven by a prescribed slip.

    m a = k (x_d - x) - F,   v_r = v - v_belt,   F = F(z, v_r, N)   (friction.bristle frame)

Inputs x_d (m, the spring's far end), v_belt (m/s), F_n = N (N, >= 0). State
y = [x, v, zeta, W_friction] with zeta = sigma0 z (dimensionless, O(mu)): the deflection scaled so
that one absolute tolerance fits every sigma0.

Integration method. The bristle makes the model smooth (no stick events), but stiff: in sliding z
relaxes at the rate sigma0 |v_r| / mu (3e4 1/s at sigma0 = 1e5 1/m, v_r = 0.1 m/s, mu = 0.3) and in
pre-sliding the bristle spring N sigma0 and damper N sigma1 act on m with rates up to N sigma1 / m,
both far above the oscillator's own sqrt(k / m). An explicit method (DOP853) is held to steps of
order 1 / rate by stability, not by accuracy. The model runs in the project's hybrid integrator with
SciPy's LSODA (ODEPACK: Adams while the motion is non-stiff, BDF with a Jacobian once stiffness is
detected, error control and dense output), which follows the slow motion with few steps. Radau
(implicit, L-stable) gives the same results but took about 10x longer in SciPy on the same runs, BDF
4-5x (their Newton iterations and LU solves run in Python; LSODA's in Fortran), DOP853 7x at
sigma1 = 5 s/m and more as sigma0 and sigma1 grow. An exact-in-step
update of z (Dahl and LuGre are linear in z for a frozen v_r) was not chosen: it freezes v_r over a
step, which loses the order of the coupled motion, and does not cover the elasto-plastic alpha(z).
benchmarks/bench_bristle.py measures LSODA, Radau and DOP853 against the exact Coulomb model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from ..errors import FrictionJointsError, check_parameters, require
from ..friction.bristle import BristleLaw
from ..hybrid import run
from ..hybrid.integrator import DrivenSystem


@dataclass(frozen=True)
class BristleOscillatorParameters:
    """law: the bristle friction law; m (kg) > 0; k (N/m) >= 0 the spring to x_d."""

    law: BristleLaw
    m: float = 1.0
    k: float = 1.0

    def __post_init__(self):
        problems = []
        if not isinstance(self.law, BristleLaw):
            problems.append(f"law must be a bristle law (Dahl, LuGre, ElastoPlastic, Gonthier), got {self.law!r}")
        require(problems, "m", self.m, 0.0, low_open=True)
        require(problems, "k", self.k, 0.0)
        check_parameters(problems)


class BristleOscillator(DrivenSystem):
    """The oscillator as a HybridSystem with one mode and no events, integrated by LSODA.
    inputs: three signals x_d (m), v_belt (m/s), F_n (N)."""

    ode_method = "LSODA"

    def __init__(self, params: BristleOscillatorParameters, inputs):
        super().__init__(inputs, 3, "inputs (x_d, v_belt, F_n)")
        self.p = params

    @staticmethod
    def initial_state(x=0.0, v=0.0, z=0.0, sigma0=1.0):
        """y0 from x (m), v (m/s) and the deflection z (m) of a law with stiffness sigma0 (1/m)."""
        return np.array([float(x), float(v), sigma0 * float(z), 0.0])

    def contact(self, t, y):
        """(N, v_r, z, zdot, F) at (t, y): load (N), slip (m/s), deflection (m), its rate (m/s), F (N)."""
        x_d, v_belt, N = self.input_values(t)
        if not N >= 0.0:
            raise FrictionJointsError(f"F_n = {N!r} N at t = {t:.9g} s is outside the allowed range [0, inf)")
        law = self.p.law
        v_r = y[1] - v_belt
        z = y[2] / law.sigma0
        return N, v_r, z, float(law.zdot(z, v_r)), float(law.force(z, v_r, N))

    def acceleration(self, t, y, F):
        """a (m/s^2) = (k (x_d - x) - F) / m."""
        return (self.p.k * (self.input_values(t)[0] - y[0]) - F) / self.p.m

    def rhs(self, t, y, mode):
        N, v_r, z, zd, F = self.contact(t, y)
        return np.array([y[1], self.acceleration(t, y, F), self.p.law.sigma0 * zd, -F * v_r])

    def events(self, mode):
        return []

    def update(self, t, y, mode, event):
        return y, None, None

    def record(self, t, y, mode):
        N, v_r, z, zd, F = self.contact(t, y)
        return dict(x=y[0], v=y[1], a=self.acceleration(t, y, F), z=z, zdot=zd, F=F, N=N, v_r=v_r,
                    W_friction=y[3], E_kin=0.5 * self.p.m * y[1] ** 2,
                    E_spring=0.5 * self.p.k * (self.input_values(t)[0] - y[0]) ** 2)


def simulate_bristle(params: BristleOscillatorParameters, inputs, t_end, x0=0.0, v0=0.0, z0=0.0, *, dt_out=0.01,
                     rtol=1e-8, atol=1e-10):
    """Run the oscillator from (x0, v0, z0) at t = 0 to t_end (s), recording every dt_out (s).
    inputs: x_d, v_belt, F_n (numbers, tables or callables of t). Returns hybrid.Results."""
    system = BristleOscillator(params, inputs)
    y0 = system.initial_state(x0, v0, z0, params.law.sigma0)
    return run(system, y0, t_end, dt_out=dt_out, rtol=rtol, atol=atol, engine="python")


def prescribed_slip(law: BristleLaw, v, t_end, N=1.0, *, t_eval=None, rtol=1e-10, atol=1e-12) -> dict:
    """The contact driven by a prescribed slip velocity v(t) (callable, m/s) under the load N (N; a number
    or a callable of t) from x = z = 0: {t, x, v, z, F} at t_eval (s; default 2001 points on [0, t_end]),
    by LSODA."""
    t_eval = np.linspace(0.0, t_end, 2001) if t_eval is None else np.asarray(t_eval, dtype=float)
    sol = solve_ivp(lambda t, y: [v(t), law.sigma0 * law.zdot(y[1] / law.sigma0, v(t))], (0.0, t_end),
                    [0.0, 0.0], method="LSODA", t_eval=t_eval, rtol=rtol, atol=atol)
    if sol.status < 0:
        raise FrictionJointsError(f"prescribed slip failed at t={sol.t[-1]:.9g}: {sol.message}")
    vs = np.array([v(t) for t in sol.t])
    load = np.array([N(t) for t in sol.t]) if callable(N) else N
    z = sol.y[1] / law.sigma0
    return dict(t=sol.t, x=sol.y[0], v=vs, z=z, F=law.force(z, vs, load))
