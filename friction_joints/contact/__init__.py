"""Contact in joints with clearance: contact force laws with hysteresis damping, the planar and the spatial
revolute clearance joint (seed 003), its contact modes and located events, and free journals in a bearing (planar
and spatial) run by the hybrid integrator."""

from .journal import FreeJournal
from .laws import ContactLaw, Flores, LankaraniNikravesh, cylinder_stiffness
from .modes import FREE, Contact, Free, contact_events, contact_update
from .planar import PlanarClearance, PlanarContact
from .spatial import SpatialClearance, SpatialContact
from .spatial_journal import SpatialJournal

__all__ = ["ContactLaw", "LankaraniNikravesh", "Flores", "cylinder_stiffness", "PlanarClearance", "PlanarContact",
           "SpatialClearance", "SpatialContact", "FreeJournal", "SpatialJournal", "Contact", "Free", "FREE",
           "contact_events", "contact_update"]
