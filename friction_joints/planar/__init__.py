"""Planar multibody engine: bodies, joints, absolute and minimal-form formulations (seed 000, 004)."""

from .absolute import AbsoluteSolution, absolute_dynamics
from .bodies import Body, BodyLoad
from .inverse import ProgrammedMotion, programmed_motion
from .joints import Joint, PinInSlot, Prismatic, Revolute
from .minimal import MinimalForm, MinimalSolution
from .model import PlanarModel
from .tree import JointCoordinates

__all__ = [
    "AbsoluteSolution", "absolute_dynamics", "Body", "BodyLoad", "ProgrammedMotion",
    "programmed_motion", "Joint", "PinInSlot", "Prismatic", "Revolute", "MinimalForm",
    "MinimalSolution", "PlanarModel", "JointCoordinates",
]
