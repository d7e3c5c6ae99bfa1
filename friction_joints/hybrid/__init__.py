"""The Python reference integrator, below every model: one event-driven hybrid integrator with exact
stick-slip modes (``integrator``), the input signals (``signals``), the stiction logic the models share
(``stiction``) and Newmark's method (``newmark``). The models' systems live with the models
(``planar.MechanismSystem``, ``lumped``, ...); ``engine.run`` runs a system on the chosen engine."""

from .integrator import Event, HybridIntegrator, HybridSystem, IntegratorState, Results
from .signals import Constant, FunctionSignal, Held, PiecewiseConstant, PiecewiseLinear, Signal, Sine, as_signal

__all__ = ["Event", "HybridIntegrator", "HybridSystem", "IntegratorState", "Results", "Constant", "FunctionSignal",
           "Held", "Sine", "PiecewiseConstant", "PiecewiseLinear", "Signal", "as_signal"]
