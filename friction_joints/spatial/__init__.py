"""Spatial open chains with revolute and prismatic joints (seed 002): kinematics and two dynamics
formulations; flexible links by the rigid finite element method (seed 003)."""

from .chain import Chain, Link, dh, fixed, rot_z, trans_z
from .dynamics import energy, lagrange_trace, recursive
from .rfem import Beam, rfem_links

__all__ = ["Chain", "Link", "dh", "fixed", "rot_z", "trans_z", "lagrange_trace", "recursive", "energy", "Beam",
           "rfem_links"]
