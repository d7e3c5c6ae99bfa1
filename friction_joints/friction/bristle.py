"""Bristle (dynamic) friction laws with an internal state: Dahl, LuGre, elasto-plastic, Gonthier.

Seed 003 (Augustynek & Urbas) names these models but prints no equations; the frame here is the
issue's, normalised by the load N >= 0 so that the bristle state does not depend on it: with v the slip velocity (m/s; rad/s in a revolute joint, where N is the
friction arm times the reaction) and z the mean bristle deflection (m or rad),

    F = N (sigma0 z + sigma1 zdot) + sigma2 v,        zdot = zdot(z, v)           (frame)

sigma0 (1/m) is the bristle stiffness per unit load, sigma1 (s/m) its damping per unit load, sigma2
(N.s/m) viscous friction. F is the force the contact resists the slip with: the body receives -F.
Every law's zdot keeps |z| <= mu_s / sigma0 (mu_c / sigma0 for Dahl) once there, whatever N.

The Stribeck coefficient, (laws.Stribeck):  mu(v) = mu_c + (mu_s - mu_c) exp(-|v / v_s|^delta).

Behaviour when N changes and at N = 0 (derived from the frame): z does not involve N, so the
deflection, and with it the friction *coefficient* (sigma0 z + sigma1 zdot), is continuous while F
follows N instantly, as a Coulomb force does. The elastic energy N sigma0 z^2 / 2 is not a function
of the state alone: raising N at a held deflection adds Ndot sigma0 z^2 / 2 to it without work, so
the contact can return more energy than it received while N rises (at most
int max(Ndot, 0) mu_s^2 / (2 sigma0) dt, which vanishes as sigma0 grows). At N = 0 only sigma2 v
remains; z keeps evolving by the same zdot (the bristles are not reset by a lift-off), so a contact
reloaded after sliding unloaded carries the deflection it reached.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require
from .laws import Stribeck


def _common_problems(law) -> list:
    problems = []
    require(problems, "sigma0", law.sigma0, 0.0, low_open=True)
    require(problems, "sigma1", law.sigma1, 0.0)
    require(problems, "sigma2", law.sigma2, 0.0)
    require(problems, "mu_c", law.mu_c, 0.0, low_open=True)
    return problems


class BristleLaw:
    """Interface of the bristle laws (vectorised over numpy arrays).

    ``zdot(z, v)``: the bristle rate (m/s); ``force(z, v, N)``: F (N) of the frame above;
    ``mu(v)``: the steady-sliding coefficient; ``z_bound``: mu_s / sigma0 (m), the bound of |z|.
    """

    sigma0: float
    sigma1: float
    sigma2: float
    mu_c: float

    def mu(self, v):
        raise NotImplementedError

    def zdot(self, z, v):
        raise NotImplementedError

    def force(self, z, v, N):
        """F = N (sigma0 z + sigma1 zdot) + sigma2 v (the frame above)."""
        return N * (self.sigma0 * z + self.sigma1 * self.zdot(z, v)) + self.sigma2 * v

    @property
    def z_bound(self) -> float:
        return self.mu_s / self.sigma0


@dataclass(frozen=True)
class Dahl(BristleLaw):
    """Dahl (1976) with exponent 1, in the state form of Canudas de Wit et al. (1995), normalised by N:
    zdot = v (1 - sigma0 z sgn(v) / mu_c). No Stribeck effect and no static level: mu(v) = mu_c."""

    sigma0: float
    mu_c: float
    sigma1: float = 0.0
    sigma2: float = 0.0

    def __post_init__(self):
        check_parameters(_common_problems(self))

    @property
    def mu_s(self) -> float:
        return self.mu_c

    def mu(self, v):
        return np.full(np.shape(v), self.mu_c)

    def zdot(self, z, v):
        return v * (1.0 - self.sigma0 * z * np.sign(v) / self.mu_c)


@dataclass(frozen=True)
class _Stribeck(BristleLaw):
    """Common fields of the laws with a Stribeck curve: 0 < mu_c <= mu_s, v_s > 0, delta > 0."""

    sigma0: float
    mu_c: float
    mu_s: float
    v_s: float
    sigma1: float = 0.0
    sigma2: float = 0.0
    delta: float = 2.0

    def __post_init__(self):
        problems = _common_problems(self)
        mu_c_valid = not any(p.startswith("mu_c") for p in problems)
        require(problems, "mu_s", self.mu_s, self.mu_c if mu_c_valid else 0.0)
        require(problems, "v_s", self.v_s, 0.0, low_open=True)
        require(problems, "delta", self.delta, 0.0, low_open=True)
        self._more_problems(problems)
        check_parameters(problems)
        object.__setattr__(self, "_curve", Stribeck(self.mu_s, self.mu_c, self.v_s, self.delta))

    def _more_problems(self, problems):
        pass

    def mu(self, v):
        return self._curve.coefficient(v)


@dataclass(frozen=True)
class LuGre(_Stribeck):
    """LuGre (Canudas de Wit, Olsson, Astrom, Lischinsky 1995), normalised by N:
    zdot = v - sigma0 |v| z / mu(v)."""

    def zdot(self, z, v):
        return v - self.sigma0 * np.abs(v) * z / self.mu(v)


@dataclass(frozen=True)
class ElastoPlastic(_Stribeck):
    """Elasto-plastic model (Dupont, Armstrong, Hayward 2002), normalised by N:
    zdot = v - alpha(z, v) sigma0 |v| z / mu(v); alpha = 0 for |z| <= z_ba = z_ba_ratio mu_c / sigma0
    (purely elastic: true stiction, no drift), rising as a half sine to 1 at z_ss(v) = mu(v) / sigma0
    when sgn(z) = sgn(v), and 0 when they differ. 0 <= z_ba_ratio < 1."""

    z_ba_ratio: float = 0.7

    def _more_problems(self, problems):
        require(problems, "z_ba_ratio", self.z_ba_ratio, 0.0, 1.0, high_open=True)

    def alpha(self, z, v):
        """alpha(z, v) of Dupont et al. 2002 (the half-sine transition), in [0, 1]."""
        z, v = np.asarray(z, dtype=float), np.asarray(v, dtype=float)
        z_ba = self.z_ba_ratio * self.mu_c / self.sigma0
        z_ss = self.mu(v) / self.sigma0
        middle = 0.5 * np.sin(np.pi * (np.abs(z) - 0.5 * (z_ss + z_ba)) / (z_ss - z_ba)) + 0.5
        a = np.where(np.abs(z) <= z_ba, 0.0, np.where(np.abs(z) >= z_ss, 1.0, middle))
        return np.where(np.sign(z) == np.sign(v), a, 0.0)

    def zdot(self, z, v):
        # |v|, as in Dupont et al.: v (1 - alpha sigma0 z / mu) would drive z away from z_ss for
        # v < 0 (where alpha > 0 needs z < 0) instead of towards it
        return v - self.alpha(z, v) * self.sigma0 * np.abs(v) * z / self.mu(v)


@dataclass(frozen=True)
class Gonthier(_Stribeck):
    """Gonthier, McPhee, Lange, Piedboeuf (2004) bristle model, as reconstructed here (the paper's
    text was not available to us; this is derived from what we know of it, not copied from it):
    the bristle (stiction) coefficient sigma0 z + sigma1 zdot acts near zero slip and blends into the
    dynamic coefficient mu_c sgn(v) as the slip grows,

        F = N [s(v) (sigma0 z + sigma1 zdot) + (1 - s(v)) mu_c sgn(v)] + sigma2 v,
        s(v) = exp(-|v / v_s|^delta),    zdot = v - sigma0 |v| z / mu_s,

    so the bristle saturates at mu_s / sigma0 and steady sliding gives the Stribeck curve
    s mu_s + (1 - s) mu_c = mu(v). (1 - s) sgn(v) is continuous at v = 0."""

    def blend(self, v):
        """s(v) in (0, 1], 1 at v = 0."""
        return np.exp(-((np.abs(v) / self.v_s) ** self.delta))

    def zdot(self, z, v):
        return v - self.sigma0 * np.abs(v) * z / self.mu_s

    def force(self, z, v, N):
        s = self.blend(v)
        bristle = self.sigma0 * z + self.sigma1 * self.zdot(z, v)
        return N * (s * bristle + (1.0 - s) * self.mu_c * np.sign(v)) + self.sigma2 * v


LAWS = {1: Dahl, 2: LuGre, 3: ElastoPlastic, 4: Gonthier}  # the FMUs' Integer parameter ``model``
#: the bristle parameters of a mechanism's law friction_model (1-4, LAWS), one value for every contact without a
#: law of its own, and their start values: the FMUs' (fmi.slave.FrictionModelSlave) and a mechanism file's run's
#: (python -m friction_joints.mechanism --set friction_model=N)
MODEL_PARAMETERS = dict(sigma0=1e4, sigma1=5.0, sigma2=0.0, v_s=3e-3, delta=2.0, z_ba_ratio=0.7)


def law_list_problems(laws: tuple, count: int, each: str) -> list:
    """The problems of ``laws`` as the bristle laws of a model with ``count`` frictional contacts, described
    by ``each`` (e.g. "one per frictional contact"): their number and their types."""
    problems = []
    if len(laws) != count:
        problems.append(f"laws must give {count} bristle laws ({each}), got {len(laws)}")
    return problems + [f"laws[{i}] must be a bristle law (Dahl, LuGre, ElastoPlastic, Gonthier), got {law!r}"
                       for i, law in enumerate(laws) if not isinstance(law, BristleLaw)]


def make_law(model: int, *, sigma0, sigma1, sigma2, mu_c, mu_s, v_s, delta, z_ba_ratio) -> BristleLaw:
    """The law numbered ``model`` (1 Dahl, 2 LuGre, 3 elasto-plastic, 4 Gonthier) from the full
    parameter set; parameters a law does not have are ignored (Dahl: mu_s, v_s, delta, z_ba_ratio)."""
    if model not in LAWS:
        raise ValueError(f"model={model!r} is outside the allowed range [1, 4] (1 Dahl, 2 LuGre, "
                         "3 elasto-plastic, 4 Gonthier)")
    if model == 1:
        return Dahl(sigma0, mu_c, sigma1, sigma2)
    extra = dict(z_ba_ratio=z_ba_ratio) if model == 3 else {}
    return LAWS[model](sigma0, mu_c, mu_s, v_s, sigma1, sigma2, delta, **extra)


def passive_sigma1_limit(law: BristleLaw, v_max: float) -> float:
    """The largest sigma1 (s/m) with dissipation >= 0 for every |z| <= mu_s / sigma0 and |v| <= v_max
    (m/s), for Dahl, LuGre and the elasto-plastic law (inf: every sigma1).

    Derived here (Barabanov & Ortega 2000 treat the same question for LuGre; we did not have their
    text to compare the condition with): D is
    sigma0 a z^2 + sigma1 (v^2 - a v z) with a = sigma0 |v| / mu(v) (alpha a for the elasto-plastic
    law, alpha = 1 where it matters), negative only beyond the steady deflection, r = sigma0 z sgn(v) /
    mu(v) > 1, where sigma1 must stay below mu(v) r^2 / (|v| (r - 1)); over 1 < r <= mu_s / mu(v) this
    is smallest at r = min(2, mu_s / mu(v)). A constant sigma1 with a Stribeck drop (mu_s > mu_c) is
    therefore passive only up to a slip speed: at high speed from a deflection left by stiction, the
    relaxing bristle's damper returns energy."""
    if isinstance(law, Gonthier) or not isinstance(law, BristleLaw):
        raise ValueError(f"law must be Dahl, LuGre or ElastoPlastic, got {type(law).__name__}")
    require_positive = []
    require(require_positive, "v_max", v_max, 0.0, low_open=True)
    check_parameters(require_positive)
    v = np.logspace(-9, 0, 2000) * v_max
    mu = law.mu(v)
    r = np.minimum(2.0, law.mu_s / mu)
    with np.errstate(divide="ignore"):
        bound = np.where(r > 1.0 + 1e-12, mu * r**2 / (v * (r - 1.0)), np.inf)
    return float(bound.min())


def dissipation(law: BristleLaw, z, v):
    """D = (F v - d/dt (sigma0 z^2 / 2) N) / N at N = 1, sigma2 = 0: the power the bristle dissipates
    beyond what it stores (W/N). D >= 0 on |z| <= z_bound is passivity of the map v -> F with storage
    N sigma0 z^2 / 2 at constant N. Not for Gonthier, whose bristle term is blended by s(v)."""
    zd = law.zdot(z, v)
    return (law.force(z, v, 1.0) - law.sigma2 * v) * v - law.sigma0 * z * zd
