"""The compiled engine: the models as arrays, numba kernels and a compiled DOP853 with dense output
and event location that keeps its state across communication steps. The Python engine
(``friction_joints.hybrid`` and the model classes) is its reference; tests compare the two."""

from . import cache

cache.install()
