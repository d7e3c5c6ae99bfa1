"""Coupling schemes of the co-simulation master (``master.run``): their settings, the Gauss-Seidel
order, input extrapolation and the accelerators of the implicit scheme.

- "jacobi": every FMU steps from t to t + h with the others' outputs at t.
- "gauss-seidel": the FMUs step one after the other (order from the connection graph), each with
  the outputs at t + h of those already stepped.
- "implicit": per step the master saves the FMU states, steps with a guess of the coupled values
  at t + h, compares with the outputs, restores the states and steps again with an accelerated guess
  until every coupled value converges, |x~ - x| <= atol + rtol |x~| (preCICE's convergence measures
  per coupled variable); the accelerator is Aitken's dynamic under-relaxation (Kuettler & Wall
  2008) or the interface quasi-Newton IQN-ILS (Degroote et al. 2009; optionally with the columns
  of earlier steps), both as in preCICE.

The FMUs hold their inputs over a step, so the coupled values are one number per connected output
and step, and a converged implicit step holds the values at t + h over [t, t + h]: its coupling
error is of first order in h, unless the FMUs interpolate their inputs (interpolation "linear").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import FrictionJointsError, check_parameters, require

SCHEMES = ("jacobi", "gauss-seidel", "implicit")
EXTRAPOLATIONS = ("constant", "linear")
ACCELERATIONS = ("aitken", "iqn-ils")
ON_NO_CONVERGENCE = ("error", "accept")
INTERPOLATIONS = ("auto", "hold", "linear")


class CouplingError(FrictionJointsError):
    """An implicit co-simulation step did not converge within its iterations."""


@dataclass(frozen=True)
class Coupling:
    """Settings of the coupling. scheme: one of SCHEMES; extrapolation: in the explicit schemes the
    held input is the connected output at t ("constant") or extrapolated linearly from t - h and t to
    the middle of the step t + h/2 ("linear"); in the implicit scheme the first guess of the values
    at t + h is those at t, or extrapolated to t + h; acceleration (implicit): one of ACCELERATIONS; rtol, atol:
    convergence tolerances per coupled value (1, SI units); max_iterations: iterations per step
    before CouplingError; initial_relaxation: under-relaxation factor of the first iteration of a
    step, in (0, 1]; reuse: earlier steps whose IQN-ILS columns are kept (0: none);
    on_no_convergence: when a step has used max_iterations, "error" raises CouplingError, "accept"
    goes on from its last iterate (as preCICE does) and records the step in CouplingStats.unconverged.
    Stick-slip makes the coupled fixed point discontinuous: a friction mode that flips with the
    iterate can keep the residual above a tight tolerance at every iteration.
    interpolation: "hold" keeps each coupled input constant over a step (at the value the scheme
    gives it); "linear" makes it the line from the coupled value at t to the scheme's value at t + h
    (implicit: the iterate; Gauss-Seidel: an output of an FMU already stepped; explicit: the
    extrapolation, so with extrapolation "constant" the same as holding), set as its first derivative
    by fmi2SetRealInputDerivatives (the FMUs must declare canInterpolateInputs): the coupling error
    becomes of second order in h; "auto" (the default): "linear" where every FMU that takes a coupled
    input can interpolate, else "hold"."""

    scheme: str = "jacobi"
    extrapolation: str = "constant"
    acceleration: str = "iqn-ils"
    rtol: float = 1e-6
    atol: float = 1e-9
    max_iterations: int = 50
    initial_relaxation: float = 0.5
    reuse: int = 0
    on_no_convergence: str = "error"
    interpolation: str = "auto"

    def __post_init__(self):
        problems = [f"{name}={getattr(self, name)!r} is not one of {allowed}"
                    for name, allowed in (("scheme", SCHEMES), ("extrapolation", EXTRAPOLATIONS),
                                          ("acceleration", ACCELERATIONS), ("on_no_convergence", ON_NO_CONVERGENCE),
                                          ("interpolation", INTERPOLATIONS))
                    if getattr(self, name) not in allowed]
        require(problems, "rtol", self.rtol, 0.0, low_open=True)
        require(problems, "atol", self.atol, 0.0, low_open=True)
        require(problems, "initial_relaxation", self.initial_relaxation, 0.0, 1.0, low_open=True)
        for name, low in (("max_iterations", 1), ("reuse", 0)):
            value = getattr(self, name)
            if not (isinstance(value, (int, np.integer)) and value >= low):
                problems.append(f"{name}={value!r} is outside the allowed range: an integer >= {low}")
        check_parameters(problems)


@dataclass
class CouplingStats:
    """What the implicit scheme did: iterations of every step (list of int), the number of state
    rollbacks (restores of all FMUs to the start of a step) and the steps accepted without
    convergence (on_no_convergence="accept"): (when, largest |x~ - x| / tolerance) each."""

    iterations: list = field(default_factory=list)
    rollbacks: int = 0
    unconverged: list = field(default_factory=list)


def gauss_seidel_order(names, connections) -> list:
    """The order in which Gauss-Seidel steps the instances ``names``: an FMU after every FMU it takes
    inputs from (topological order of the connection graph); in a loop, the remaining FMU that takes
    the fewest inputs from the others left goes first (ties: the order of ``names``)."""
    left, order = list(names), []
    while left:
        feeding = {n: sum(c.dst == n and c.src in left and c.src != n for c in connections) for n in left}
        first = min(left, key=lambda n: feeding[n])  # min keeps the first of equal counts
        order.append(first)
        left.remove(first)
    return order


def extrapolate(kind: str, now: np.ndarray, before: np.ndarray | None, ahead: float) -> np.ndarray:
    """The coupled values extrapolated from the outputs at t (``now``) and t - h (``before``, None at
    the first step) to t + ahead h: ``now`` ("constant"), or on the line through both ("linear")."""
    if kind == "constant" or before is None:
        return now
    return now + ahead * (now - before)


class Aitken:
    """Aitken's dynamic under-relaxation x_{k+1} = x_k + omega_k r_k, r_k = x~_k - x_k, with
    omega_k = -omega_{k-1} r_{k-1}.(r_k - r_{k-1}) / |r_k - r_{k-1}|^2 (Kuettler & Wall 2008);
    each step starts from sign(omega) min(omega_0, |omega|) of the last one (as preCICE). Residuals are
    scaled per value by ``scale`` (shape (n,)) so that values of different units weigh alike."""

    def __init__(self, initial_relaxation):
        self.omega0 = self.omega = initial_relaxation

    def start(self, scale):
        self.scale, self.last = scale, None
        self.omega = np.sign(self.omega) * min(self.omega0, abs(self.omega))

    def next(self, x, x_tilde):
        r = (x_tilde - x) / self.scale
        if self.last is not None:
            dr = r - self.last
            denominator = dr @ dr
            if denominator > 0.0:
                self.omega = -self.omega * (self.last @ dr) / denominator
        self.last = r
        return x + self.omega * r * self.scale


class IQNILS:
    """Interface quasi-Newton with an inverse Jacobian from a least-squares model (IQN-ILS,
    Degroote, Bathe & Vierendeels 2009): with V the differences of the residuals r = x~ - x (scaled
    per value by ``scale``, shape (n,)) and W those of the outputs x~ over the iterations of the
    current step and of the last ``reuse`` steps, x_{k+1} = x~_k + W c, c minimising |V c + r_k|
    (least squares, nearly dependent columns cut by the singular values); without columns (the first
    iteration, no reuse) the step is under-relaxed by omega_0."""

    def __init__(self, initial_relaxation, reuse=0):
        self.omega0, self.reuse, self.kept = initial_relaxation, reuse, []
        self.V, self.W = [], []

    def start(self, scale):
        if self.reuse and self.V:  # the columns of the step just finished, unscaled
            self.kept = (self.kept + [(self.V, self.W)])[-self.reuse:]
        self.scale, self.last, self.V, self.W = scale, None, [], []

    def next(self, x, x_tilde):
        r = x_tilde - x
        if self.last is not None:
            r_last, x_tilde_last = self.last
            self.V.append(r - r_last)
            self.W.append(x_tilde - x_tilde_last)
        self.last = (r, x_tilde)
        V = self.V + [v for V, _ in self.kept for v in V]
        if not V:
            return x + self.omega0 * r
        W = self.W + [w for _, W in self.kept for w in W]
        c = np.linalg.lstsq(np.column_stack(V) / self.scale[:, None], -r / self.scale, rcond=1e-12)[0]
        return x_tilde + np.column_stack(W) @ c


def make_accelerator(coupling: Coupling):
    """The accelerator of the implicit scheme (a new one per run: they keep state between steps)."""
    if coupling.acceleration == "aitken":
        return Aitken(coupling.initial_relaxation)
    return IQNILS(coupling.initial_relaxation, coupling.reuse)


def implicit_step(step, x0, coupling: Coupling, accelerator, stats: CouplingStats, names, when: str) -> np.ndarray:
    """Iterate one communication step to convergence. step(x, first): restores the FMUs to the start
    of the step unless ``first``, steps them with the coupled values x (shape (n,)) and returns the
    outputs x~ (shape (n,)); x0: first guess; names: the n coupled values' names and when: the step
    ("t=..., step k"), for the error. Returns the converged outputs x~ (or, when the iterations run
    out and coupling.on_no_convergence is "accept", the last ones); raises CouplingError."""
    x = x0
    for k in range(1, coupling.max_iterations + 1):
        x_tilde = step(x, k == 1)
        stats.rollbacks += k > 1
        residual, tolerance = np.abs(x_tilde - x), coupling.atol + coupling.rtol * np.abs(x_tilde)
        if (residual <= tolerance).all():  # preCICE's convergence measures, per coupled value
            stats.iterations.append(k)
            return x_tilde
        if k == 1:
            accelerator.start(tolerance)
        if k == coupling.max_iterations:
            break
        x = accelerator.next(x, x_tilde)
    stats.iterations.append(coupling.max_iterations)
    if coupling.on_no_convergence == "accept":
        stats.unconverged.append((when, float(np.max(residual / tolerance))))
        return x_tilde
    bad = ", ".join(f"{names[i]}: |x~ - x| = {residual[i]:.3g} > {tolerance[i]:.3g}"
                    for i in np.flatnonzero(residual > tolerance))
    raise CouplingError(f"implicit coupling did not converge at {when} after {coupling.max_iterations} iterations "
                        f"(rtol={coupling.rtol:g}, atol={coupling.atol:g}, acceleration={coupling.acceleration}); "
                        f"not converged: {bad}")
