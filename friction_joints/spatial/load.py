"""A speed-dependent resistance on the driving link of the RSRRR linkage (``system.RSRRRSystem``'s load,
packed for the C engine by ``packing``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import check_parameters, require


@dataclass(frozen=True)
class SpeedLoad:
    """Resistance torque of a governed brake on the driving link (N.m): max(0, t_0 + c (psid11 - psid_0)),
    zero below psid_0 - t_0 / c and equal to t_0 at psid_0. t_0 (N.m), psid_0 (rad/s), c (N.m.s/rad)."""

    t_0: float = 10.0
    psid_0: float = 9.0
    c: float = 5.0

    def __post_init__(self):
        problems = []
        require(problems, "t_0", self.t_0, 0.0)
        require(problems, "psid_0", self.psid_0)
        require(problems, "c", self.c, 0.0, low_open=True)
        check_parameters(problems)

    def __call__(self, psid):
        return max(0.0, self.t_0 + self.c * (psid - self.psid_0))
