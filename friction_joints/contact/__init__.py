"""Contact in joints with clearance: contact force laws with hysteresis damping, the planar and the spatial
revolute clearance joint (seed 003), and a free journal in a bearing run by the hybrid integrator."""

from .journal import FREE, Contact, FreeJournal
from .laws import ContactLaw, Flores, LankaraniNikravesh, cylinder_stiffness
from .planar import PlanarClearance, PlanarContact
from .spatial import SpatialClearance, SpatialContact

__all__ = ["ContactLaw", "LankaraniNikravesh", "Flores", "cylinder_stiffness", "PlanarClearance", "PlanarContact",
           "SpatialClearance", "SpatialContact", "FreeJournal", "Contact", "FREE"]
