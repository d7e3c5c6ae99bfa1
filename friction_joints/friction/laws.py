"""Friction laws mapping a slip velocity and a normal load to a friction force.

Every law is a frozen dataclass validated on construction, with one interface:

- ``coefficient(v)``: kinetic coefficient mu(v) >= 0 at slip velocity v (m/s or rad/s);
- ``kinetic(v, load)``: friction force -sgn(v) mu(v) load (seed 000 eq. 2.4), opposing v;
- ``static_limit(load)``: the largest holding force mu_s load during stiction.

``load`` is the non-negative normal load (N for a sliding joint; N.m, i.e. the friction arm times
the resultant reaction, for a revolute joint). All methods are vectorised over numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require


class FrictionLaw:
    """Interface of the friction laws. Subclasses define ``mu_s`` and ``coefficient``."""

    mu_s: float

    def coefficient(self, v):
        """Kinetic friction coefficient mu(v) >= 0 (dimensionless) at slip velocity v."""
        raise NotImplementedError

    def kinetic(self, v, load):
        """Kinetic friction force -sgn(v) mu(v) load, same units as load."""
        v = np.asarray(v, dtype=float)
        return -np.sign(v) * self.coefficient(v) * np.asarray(load, dtype=float)

    def static_limit(self, load):
        """Largest magnitude of the holding (static) friction force, mu_s load."""
        return self.mu_s * np.asarray(load, dtype=float)

    @property
    def bound(self) -> float:
        """Upper bound of mu(v) over all v (used for the uniqueness test of the coupled equations)."""
        return self.mu_s


@dataclass(frozen=True)
class Coulomb(FrictionLaw):
    """Coulomb friction with distinct static and kinetic coefficients, 0 <= mu_k <= mu_s."""

    mu_s: float
    mu_k: float

    def __post_init__(self):
        problems = []
        require(problems, "mu_s", self.mu_s, 0.0)
        require(problems, "mu_k", self.mu_k, 0.0, self.mu_s if self.mu_s >= 0 else None)
        check_parameters(problems)

    def coefficient(self, v):
        return np.full(np.shape(v), self.mu_k)


@dataclass(frozen=True)
class Stribeck(FrictionLaw):
    """Kinetic coefficient decaying from mu_s to mu_k: mu(v) = mu_k + (mu_s - mu_k) exp(-(|v|/v_s)^delta).

    v_s > 0 is the Stribeck velocity (m/s or rad/s), delta > 0 the shape exponent (2 is Gaussian).
    """

    mu_s: float
    mu_k: float
    v_s: float
    delta: float = 2.0

    def __post_init__(self):
        problems = []
        require(problems, "mu_s", self.mu_s, 0.0)
        require(problems, "mu_k", self.mu_k, 0.0, self.mu_s if self.mu_s >= 0 else None)
        require(problems, "v_s", self.v_s, 0.0, low_open=True)
        require(problems, "delta", self.delta, 0.0, low_open=True)
        check_parameters(problems)

    def coefficient(self, v):
        decay = np.exp(-((np.abs(v) / self.v_s) ** self.delta))
        return self.mu_k + (self.mu_s - self.mu_k) * decay


@dataclass(frozen=True)
class Exponential(FrictionLaw):
    """Kinetic friction characteristic of seed 002 eq. (7): mu(v) = mu_0 (1 - exp(-k |v| / v_k)).

    With k = 3 the coefficient reaches 1 - e^-3 = 0.95 mu_0 at |v| = v_k. The characteristic is zero
    at v = 0 (the paper has no static friction); ``mu_s`` (default mu_0) is the static level used when
    the hybrid integrator models stiction exactly.
    """

    mu_0: float
    k: float = 3.0
    v_k: float = 0.01
    mu_s: float | None = None

    def __post_init__(self):
        if self.mu_s is None:
            object.__setattr__(self, "mu_s", self.mu_0)
        problems = []
        require(problems, "mu_0", self.mu_0, 0.0)
        require(problems, "k", self.k, 0.0, low_open=True)
        require(problems, "v_k", self.v_k, 0.0, low_open=True)
        require(problems, "mu_s", self.mu_s, self.mu_0 if self.mu_0 >= 0 else 0.0)
        check_parameters(problems)

    def coefficient(self, v):
        # seed 002 eq. (7); the sign there is carried by kinetic() here
        return self.mu_0 * (1.0 - np.exp(-self.k * np.abs(v) / self.v_k))


@dataclass(frozen=True)
class Tanh(FrictionLaw):
    """Regularised Coulomb friction, kinetic(v, N) = -tanh(v / v_eps) mu_k N. For comparison only.

    A stuck joint under this law creeps: it has no stiction mode. ``mu_s`` defaults to mu_k.
    """

    mu_k: float
    v_eps: float
    mu_s: float | None = None

    def __post_init__(self):
        if self.mu_s is None:
            object.__setattr__(self, "mu_s", self.mu_k)
        problems = []
        require(problems, "mu_k", self.mu_k, 0.0)
        require(problems, "v_eps", self.v_eps, 0.0, low_open=True)
        require(problems, "mu_s", self.mu_s, self.mu_k if self.mu_k >= 0 else 0.0)
        check_parameters(problems)

    def coefficient(self, v):
        return self.mu_k * np.tanh(np.abs(v) / self.v_eps)
