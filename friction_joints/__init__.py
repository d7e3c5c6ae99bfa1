"""friction-joints: mechanisms with reaction-dependent dry friction in their joints.

Where the public names live: ``friction`` (friction laws, bristle laws) and ``errors``; ``hybrid`` (the
Python reference integrator and the input signals: HybridIntegrator, Sine, PiecewiseConstant, ...); the
models ``planar`` (MechanismSystem, RegularisedSystem, BristleSystem, AbsoluteSystem), ``lumped``,
``spatial``, ``vehicle`` and ``contact``, each with its packing for the C engine (``native``); ``engine``
(make_integrator, run) and ``simulation`` (simulate); ``mechanisms`` (the seed systems with the papers'
data); ``stepping`` and ``fmi``. The core (errors, friction, hybrid) imports none of the others and no two
parts import each other (tests/test_layering.py). Nothing is imported here: a module loads what it needs.
"""

__version__ = "0.1.0"
