"""The PI speed controller, alone and as an FMU co-simulated with the SliderCrank FMU."""

import numpy as np
import pytest

from friction_joints.control import PIController
from friction_joints.fmi.master import Connection, FMUInstance, run


def test_pi_integrates_the_held_error_exactly():
    pi = PIController(k_p=2.0, T_i=0.5, tau_max=100.0)
    taus = [pi.step(1.0, 0.25, 0.1) for _ in range(3)]
    # e = 0.75 held; I = 0.075 k; tau = k_p (e + I / T_i)
    np.testing.assert_allclose(taus, [2.0 * (0.75 + 0.075 * k / 0.5) for k in (1, 2, 3)], rtol=1e-15)


def test_pi_saturates_without_winding_up():
    pi = PIController(k_p=1.0, T_i=0.1, tau_max=2.0)
    for _ in range(100):
        assert pi.step(10.0, 0.0, 0.01) == 2.0
    assert pi.integral <= 0.01  # only the first step integrated: afterwards it would deepen the limit
    # the error reverses: the output leaves the limit at once instead of unwinding a large integral
    assert pi.step(0.0, 1.0, 0.01) < 0.0


@pytest.mark.parametrize("name, value", [("k_p", 0.0), ("T_i", -1.0), ("tau_max", np.nan)])
def test_bad_gains_name_the_parameter(name, value):
    gains = {"k_p": 1.0, "T_i": 1.0, "tau_max": 1.0, name: value}
    with pytest.raises(ValueError, match=f"{name}=.*allowed range"):
        PIController(**gains)


def test_controller_fmu_drives_the_crank_fmu(fmus):
    """Set point 0 -> 2 rad/s at 0.3 s: the crank hangs stuck, then breaks away; the torque is the PI
    law of the speeds the master passed one step earlier; the crank's energy balance closes."""
    h, k_p, T_i, tau_max = 0.01, 20.0, 0.12, 80.0
    crank = FMUInstance(fmus["SliderCrank"], "crank")
    controller = FMUInstance(fmus["SpeedController"], "pi", dict(k_p=k_p, T_i=T_i, tau_max=tau_max))
    try:
        res = run({"pi": controller, "crank": crank},
                  [Connection("crank", "u", "pi", "w"), Connection("pi", "tau", "crank", "tau")], h, 0.6,
                  external={("pi", "w_ref"): lambda t: 2.0 if t >= 0.3 - 1e-12 else 0.0},
                  record={"w_ref": ("pi", "w_ref"), "u": ("crank", "u"), "tau": ("pi", "tau"),
                          "stuck": ("crank", "stuck"), "E_kin": ("crank", "E_kin"), "E_pot": ("crank", "E_pot"),
                          "W_drive": ("crank", "W_drive"), "W_friction": ("crank", "W_friction")})
    finally:
        crank.close()
        controller.close()
    t = res["time"]
    assert np.all(res["stuck"][t < 0.3 - 1e-9] == 1.0) and np.all(res["u"][t < 0.3 - 1e-9] == 0.0)
    assert res["stuck"][-1] == 0.0 and res["u"][-1] > 0.5
    e = res["w_ref"][1:] - res["u"][:-1]  # the error held over step k: set point and speed at t_k
    integral = np.cumsum(e) * h
    expected = np.clip(k_p * (e + integral / T_i), -tau_max, tau_max)
    np.testing.assert_allclose(res["tau"][1:], expected, rtol=1e-12, atol=1e-12)
    E = res["E_kin"] + res["E_pot"]
    assert np.abs(res["W_drive"] - (E - E[0]) + res["W_friction"]).max() <= 1e-6 * res["W_drive"].max()
