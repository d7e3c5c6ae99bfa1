"""The units of the FMUs' variables: SI base-unit exponents (modelDescription UnitDefinitions) and
the display units offered for them."""

import math

UNITS = {
    "m": dict(m=1), "m/s": dict(m=1, s=-1), "m/s2": dict(m=1, s=-2), "kg": dict(kg=1),
    "kg.m2": dict(kg=1, m=2), "N": dict(kg=1, m=1, s=-2), "N.m": dict(kg=1, m=2, s=-2),
    "J": dict(kg=1, m=2, s=-2), "s": dict(s=1), "N.s/m": dict(kg=1, s=-1), "N/m": dict(kg=1, s=-2),
    "N.m.s/rad": dict(kg=1, m=2, s=-1, rad=-1), "rad": dict(rad=1), "rad/s": dict(rad=1, s=-1),
    "rad/s2": dict(rad=1, s=-2), "1/s": dict(s=-1), "N/rad": dict(kg=1, m=1, s=-2, rad=-1),
    "N.m/rad": dict(kg=1, m=2, s=-2, rad=-1), "1/m": dict(m=-1), "s/m": dict(s=1, m=-1), "1/rad": dict(rad=-1),
    "s/rad": dict(s=1, rad=-1),
    "Pa": dict(kg=1, m=-1, s=-2),
}
DISPLAY = {"deg": ("rad", 180.0 / math.pi), "rpm": ("rad/s", 60.0 / (2.0 * math.pi))}
