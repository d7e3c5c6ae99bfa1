"""Spatial open chains with revolute joints (seed 002): kinematics and two dynamics formulations."""

from .chain import Chain, Link, dh, fixed, rot_z
from .dynamics import energy, lagrange_trace, recursive

__all__ = ["Chain", "Link", "dh", "fixed", "rot_z", "lagrange_trace", "recursive", "energy"]
