"""Vehicle steering: a rack-and-pinion steering system with dry friction and freeplay (seed 001's
luz/tar stick-slip per element) and a single-track vehicle model as its co-simulation partner."""

from .single_track import SingleTrackVehicle, VehicleParameters
from .steering import ELEMENTS, SteeringParameters, SteeringSystem
from .steering_bristle import SteeringBristle, element_laws

__all__ = ["ELEMENTS", "SingleTrackVehicle", "SteeringBristle", "SteeringParameters", "SteeringSystem",
           "VehicleParameters", "element_laws"]
