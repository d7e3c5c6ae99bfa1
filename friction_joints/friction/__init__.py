"""Friction laws: immutable value objects with one interface (see :class:`FrictionLaw`)."""

from .laws import Coulomb, Exponential, FrictionLaw, Stribeck, Tanh

__all__ = ["FrictionLaw", "Coulomb", "Stribeck", "Exponential", "Tanh"]
