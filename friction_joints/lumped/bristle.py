"""Lumped models with bristle friction (Dahl, LuGre, elasto-plastic, Gonthier): a mass on a moving
belt, the two stacked blocks of seed 001, and the bristle state driven by a prescribed slip.

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
benchmarks/bench_bristle.py measures LSODA, Radau and DOP853 against the exact Coulomb model. The C
engine has the oscillator as the family "bristle" and the two blocks as "two_mass_bristle"
(lumped.bristle_packing), stiff families that it integrates with its Rosenbrock method RODAS
(``engine="compiled"``; benchmarks/bench_rodas.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine import run
from ..errors import FrictionJointsError, check_parameters, require
from ..friction.bristle import BristleLaw
from ..hybrid.integrator import DrivenSystem


def bristle_contact(law: BristleLaw, zeta, v_r, N):
    """(z (m), zdot (m/s), F (N)) of a contact with scaled deflection zeta = sigma0 z, slip v_r (m/s)
    and load N (N)."""
    z = zeta / law.sigma0
    return z, float(law.zdot(z, v_r)), float(law.force(z, v_r, N))


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


class _OneModeBristleSystem(DrivenSystem):
    """What the lumped models with bristle friction share: one smooth mode and no events, integrated by LSODA
    on the Python engine, by RODAS on the compiled one (a single-mode family of lumped.bristle_packing)."""

    ode_method = "LSODA"
    #: the keys of record's dict, in the order of the C family's record
    RECORD_KEYS: tuple

    def events(self, mode):
        return []

    def update(self, t, y, mode, event):
        return y, None, None

    def encode_mode(self, mode):
        """(fmode float64, imode int64) of the single mode for the compiled kernels."""
        from . import bristle_packing

        return bristle_packing.encode_mode(mode)

    def decode_mode(self, fmode, imode):
        """The mode of the C engine's arrays: the single mode (None, as ``update`` gives it)."""
        return None

    def change_kind(self, mode, new, event, change):
        """The kind of the C engine's mode decision: none (the single mode never changes)."""
        return None

    def decode_record(self, out):
        """The dict of ``record`` from the flat output of the compiled record kernel."""
        return dict(zip(self.RECORD_KEYS, out))


class BristleOscillator(_OneModeBristleSystem):
    """The oscillator as a HybridSystem with one mode and no events, integrated by LSODA on the Python
    engine, by RODAS on the compiled one. inputs: three signals x_d (m), v_belt (m/s), F_n (N)."""

    RECORD_KEYS = ("x", "v", "a", "z", "zdot", "F", "N", "v_r", "W_friction", "E_kin", "E_spring")

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
        v_r = y[1] - v_belt
        return (N, v_r, *bristle_contact(self.p.law, y[2], v_r, N))

    def acceleration(self, t, y, F):
        """a (m/s^2) = (k (x_d - x) - F) / m."""
        return (self.p.k * (self.input_values(t)[0] - y[0]) - F) / self.p.m

    def rhs(self, t, y, mode):
        N, v_r, z, zd, F = self.contact(t, y)
        return np.array([y[1], self.acceleration(t, y, F), self.p.law.sigma0 * zd, -F * v_r])

    def record(self, t, y, mode):
        N, v_r, z, zd, F = self.contact(t, y)
        return dict(x=y[0], v=y[1], a=self.acceleration(t, y, F), z=z, zdot=zd, F=F, N=N, v_r=v_r,
                    W_friction=y[3], E_kin=0.5 * self.p.m * y[1] ** 2,
                    E_spring=0.5 * self.p.k * (self.input_values(t)[0] - y[0]) ** 2)

    def _build_compiled(self):
        """The CompiledModel of this system (the C family "bristle"), None for a subclass that changes the
        equations."""
        if not self._keeps_equations(BristleOscillator, ("rhs", "events", "record", "update", "contact", "acceleration",
                                                         "input_values")):
            return None
        from . import bristle_packing

        return bristle_packing.compile_oscillator(self)


@dataclass(frozen=True)
class TwoMassBristleParameters:
    """Block 1 (M1, kg) on block 2 (M2, kg) on a fixed base (seed 001 Sect. 4) with bristle friction:
    law12 between the blocks under the load N12 (N), law20 between block 2 and the base under N20 (N)."""

    law12: BristleLaw
    law20: BristleLaw
    N12: float
    N20: float
    M1: float = 1.0
    M2: float = 2.0

    def __post_init__(self):
        problems = []
        for name in ("law12", "law20"):
            if not isinstance(getattr(self, name), BristleLaw):
                problems.append(f"{name} must be a bristle law (Dahl, LuGre, ElastoPlastic, Gonthier), got "
                                f"{getattr(self, name)!r}")
        for name in ("N12", "N20"):
            require(problems, name, getattr(self, name), 0.0)
        for name in ("M1", "M2"):
            require(problems, name, getattr(self, name), 0.0, low_open=True)
        check_parameters(problems)


class TwoMassBristle(_OneModeBristleSystem):
    """The two stacked blocks of ``lumped.TwoMassFriction`` with bristle friction: one smooth mode,
    M1 zdd1 = F1 - F12, M2 zdd2 = F2 + F12 - F20 with F12 on v12 = zd1 - zd2 and F20 on v20 = zd2.
    inputs: F1, F2 (N). State y = [z1, z2, zd1, zd2, zeta12, zeta20, W_friction] (zeta = sigma0 z)."""

    RECORD_KEYS = ("z1", "z2", "zd1", "zd2", "z12", "z20", "F12", "F20", "v12", "v20", "W_friction")

    def __init__(self, params: TwoMassBristleParameters, inputs):
        super().__init__(inputs, 2, "inputs (F1, F2)")
        self.p = params

    @staticmethod
    def initial_state(z0=(0.0, 0.0), zd0=(0.0, 0.0)):
        """y0 from the positions (m) and velocities (m/s), bristles undeflected."""
        return np.array([*map(float, z0), *map(float, zd0), 0.0, 0.0, 0.0])

    def contacts(self, y):
        """((z, zdot, F) of contact 12, the same of contact 20, (v12, v20)) at the state y."""
        v = (y[2] - y[3], y[3])
        return (bristle_contact(self.p.law12, y[4], v[0], self.p.N12),
                bristle_contact(self.p.law20, y[5], v[1], self.p.N20), v)

    def rhs(self, t, y, mode):
        c12, c20, v = self.contacts(y)
        F1, F2 = self.input_values(t)
        return np.array([y[2], y[3], (F1 - c12[2]) / self.p.M1, (F2 + c12[2] - c20[2]) / self.p.M2,
                         self.p.law12.sigma0 * c12[1], self.p.law20.sigma0 * c20[1], -c12[2] * v[0] - c20[2] * v[1]])

    def record(self, t, y, mode):
        c12, c20, v = self.contacts(y)
        return dict(z1=y[0], z2=y[1], zd1=y[2], zd2=y[3], z12=c12[0], z20=c20[0], F12=c12[2], F20=c20[2],
                    v12=v[0], v20=v[1], W_friction=y[6])

    def _build_compiled(self):
        """The CompiledModel of this system (the C family "two_mass_bristle"), None for a subclass that changes
        the equations."""
        if not self._keeps_equations(TwoMassBristle, ("rhs", "events", "record", "update", "contacts", "input_values")):
            return None
        from . import bristle_packing

        return bristle_packing.compile_two_mass(self)


def simulate_bristle(params: BristleOscillatorParameters, inputs, t_end, x0=0.0, v0=0.0, z0=0.0, *, dt_out=0.01,
                     rtol=1e-8, atol=1e-10):
    """Run the oscillator from (x0, v0, z0) at t = 0 to t_end (s), recording every dt_out (s).
    inputs: x_d, v_belt, F_n (numbers, tables or callables of t). Returns hybrid.Results."""
    system = BristleOscillator(params, inputs)
    y0 = system.initial_state(x0, v0, z0, params.law.sigma0)
    return run(system, y0, t_end, dt_out=dt_out, rtol=rtol, atol=atol, engine="python")


def simulate_two_mass_bristle(params: TwoMassBristleParameters, inputs, t_end, *, dt_out=0.01, rtol=1e-8, atol=1e-10):
    """Run the two blocks from rest, bristles undeflected, to t_end (s), recording every dt_out (s).
    inputs: F1, F2 (numbers, tables or callables of t). Returns hybrid.Results."""
    system = TwoMassBristle(params, inputs)
    return run(system, system.initial_state(), t_end, dt_out=dt_out, rtol=rtol, atol=atol, engine="python")


def prescribed_slip(law: BristleLaw, v, t_end, N=1.0, *, t_eval=None, rtol=1e-10, atol=1e-12) -> dict:
    """The contact driven by a prescribed slip velocity v(t) (callable, m/s) under the load N (N; a number
    or a callable of t) from x = z = 0: {t, x, v, z, F} at t_eval (s; default 2001 points on [0, t_end]),
    by LSODA."""
    from scipy.integrate import solve_ivp  # here: importing SciPy is most of an FMU's start-up
    t_eval = np.linspace(0.0, t_end, 2001) if t_eval is None else np.asarray(t_eval, dtype=float)
    sol = solve_ivp(lambda t, y: [v(t), law.sigma0 * law.zdot(y[1] / law.sigma0, v(t))], (0.0, t_end),
                    [0.0, 0.0], method="LSODA", t_eval=t_eval, rtol=rtol, atol=atol)
    if sol.status < 0:
        raise FrictionJointsError(f"prescribed slip failed at t={sol.t[-1]:.9g}: {sol.message}")
    vs = np.array([v(t) for t in sol.t])
    load = np.array([N(t) for t in sol.t]) if callable(N) else N
    z = sol.y[1] / law.sigma0
    return dict(t=sol.t, x=sol.y[0], v=vs, z=z, F=law.force(z, vs, load))
