"""Friction laws: immutable value objects with one interface (see :class:`FrictionLaw`), and the
bristle laws with an internal state (see :class:`BristleLaw`)."""

from .bristle import (LAWS, BristleLaw, Dahl, ElastoPlastic, Gonthier, LuGre, dissipation, law_list_problems,
                      make_law, passive_sigma1_limit)
from .laws import Coulomb, Exponential, FrictionLaw, Stribeck, Tanh

__all__ = ["FrictionLaw", "Coulomb", "Stribeck", "Exponential", "Tanh", "BristleLaw", "Dahl", "LuGre", "ElastoPlastic",
           "Gonthier", "LAWS", "make_law", "dissipation", "law_list_problems",
           "passive_sigma1_limit"]
