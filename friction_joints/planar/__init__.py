"""Planar multibody engine: bodies, joints, absolute and minimal-form formulations (seed 000, 004), and
the planar mechanism as a hybrid system: exact stick-slip (``MechanismSystem``), regularised friction
(``RegularisedSystem``), bristle friction (``BristleSystem``) and the absolute form (``AbsoluteSystem``),
with their packing for the C engine (``packing``, ``absolute_packing``)."""

from .absolute import AbsoluteSolution, absolute_dynamics
from .absolute_system import AbsoluteSystem
from .bodies import Body, BodyLoad
from .bristle import BristleSystem, contact_laws
from .inverse import ProgrammedMotion, programmed_motion
from .joints import Joint, PinInSlot, Prismatic, Revolute
from .minimal import MinimalForm, MinimalSolution
from .model import PlanarModel
from .regularised import RegularisedSystem
from .system import MechanismSystem, Mode
from .tree import JointCoordinates

__all__ = [
    "AbsoluteSolution", "absolute_dynamics", "Body", "BodyLoad", "ProgrammedMotion",
    "programmed_motion", "Joint", "PinInSlot", "Prismatic", "Revolute", "MinimalForm",
    "MinimalSolution", "PlanarModel", "JointCoordinates", "MechanismSystem", "Mode", "RegularisedSystem",
    "BristleSystem", "contact_laws", "AbsoluteSystem",
]
