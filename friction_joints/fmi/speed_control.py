"""The demo pair of examples/cosim_speed_control.py: the SpeedController FMU (PI with torque limit)
drives the SliderCrank FMU; the set point w_ref (rad/s) of the controller is the system's input.

    crank.u (rad/s)  ->  controller.w        controller.tau (N.m)  ->  crank.tau
"""

from __future__ import annotations

from pathlib import Path

from .ssp import System

FMUS = {"controller": "SpeedController.fmu", "crank": "SliderCrank.fmu"}
LINKS = (("crank", "u", "controller", "w"), ("controller", "tau", "crank", "tau"))
INPUTS = {"w_ref": ("controller", "w_ref")}
PARAMETERS = {"controller": {"k_p": 20.0, "T_i": 0.12, "tau_max": 80.0}}  # N.m.s/rad, s, N.m


def system(dist, h=0.01, t_end=6.0) -> System:
    """The pair as written to SpeedControl.ssp; dist: the folder of the FMUs; h, t_end: the default
    step and stop time (s)."""
    return System("SpeedControl", {name: Path(dist) / fmu for name, fmu in FMUS.items()}, list(LINKS),
                  dict(INPUTS), {k: dict(v) for k, v in PARAMETERS.items()}, step=h, stop_time=t_end)
