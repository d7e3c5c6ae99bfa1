"""The catalogue: each seed mechanism as a ready model with the paper's data as defaults."""

from .base import Mechanism, regularised
from .dupont import dupont_two_mass
from .slider_crank import offset_slider_crank, slider_crank
from .stacked_blocks import stacked_blocks

__all__ = ["Mechanism", "regularised", "dupont_two_mass", "offset_slider_crank", "slider_crank", "stacked_blocks"]
