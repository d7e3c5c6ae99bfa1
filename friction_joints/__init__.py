"""friction-joints: mechanisms with reaction-dependent dry friction in their joints.

Layers: ``friction`` (laws), ``planar`` (absolute and minimal-form engine), ``mechanisms``
(the seed systems with the papers' data).
"""

__version__ = "0.1.0"
