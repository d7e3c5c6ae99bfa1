"""Planar multibody engine: bodies, joints, absolute and minimal-form formulations (seed 000, 004), and
the planar mechanism as a hybrid system: exact stick-slip (``MechanismSystem``), regularised friction
(``RegularisedSystem``), bristle friction (``BristleSystem``) and the absolute form (``AbsoluteSystem``),
with their packing for the C engine (``packing``, ``absolute_packing``).

The names below are imported from their modules on first use (PEP 562): a model that needs one
part, an FMU say, loads that part only."""

import importlib

_MODULE_OF = {  # public name: its module
    "AbsoluteSolution": "absolute", "absolute_dynamics": "absolute", "AbsoluteSystem": "absolute_system",
    "Body": "bodies", "BodyLoad": "bodies", "BristleSystem": "bristle", "contact_laws": "bristle",
    "ProgrammedMotion": "inverse", "programmed_motion": "inverse", "Joint": "joints", "PinInSlot": "joints",
    "Prismatic": "joints", "Revolute": "joints", "MinimalForm": "minimal", "MinimalSolution": "minimal",
    "PlanarModel": "model", "RegularisedSystem": "regularised", "MechanismSystem": "system", "Mode": "system",
    "JointCoordinates": "tree",
}

__all__ = list(_MODULE_OF)


def __getattr__(name):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(f".{module}", __name__), name)
    return value


def __dir__():
    return sorted({*globals(), *__all__})
