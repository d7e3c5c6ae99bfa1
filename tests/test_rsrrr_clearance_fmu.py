"""The RSRRRLinkage FMU with a clearance joint and a flexible link (issue 17 item 4): with the defaults its
reference still passes; with a clearance its outputs equal the library's run on the compiled engine, which runs
the FMU; bad values are FMI errors."""

from pathlib import Path

import numpy as np
import pytest
from fmpy import simulate_fmu
from fmpy.fmi1 import FMICallException

from friction_joints.fmi.regression import main
from friction_joints.engine import make_integrator
from friction_joints.spatial.clearance_rsrrr import ClearanceParameters, ClearanceRSRRR
from friction_joints.spatial.clearance_system import ClearanceRSRRRSystem
from friction_joints.spatial.load import SpeedLoad
from friction_joints.spatial.rsrrr import RSRRRParameters

REFERENCES = Path(__file__).with_name("references")
H, STOP = 1e-3, 0.01


@pytest.fixture
def fmu(fmus):
    return fmus["RSRRRLinkage"]


def test_defaults_pass_the_reference(fmu, capsys):
    """clearance 0 and n_rfe 0 (the defaults): the ideal rigid linkage of today, its reference passes."""
    assert main([str(fmu), str(REFERENCES)]) == 0
    assert "RSRRRLinkage.fmu: PASS" in capsys.readouterr().out


@pytest.mark.parametrize("start, clearance", [
    (dict(clearance=1e-4, k_contact=1e8, clearance_joint=4, e_restitution=0.8),
     ClearanceParameters(clearance=1e-4, k_contact=1e8, joint=3, e_restitution=0.8)),
    (dict(clearance=1e-4, k_contact=1e8, n_rfe=1, flexible_link=4, E=2e9, G=2e9 / 2.6),
     ClearanceParameters(clearance=1e-4, k_contact=1e8, flexible=3, n_rfe=1, E=2e9, G=2e9 / 2.6)),
    (dict(clearance=1e-4), ClearanceParameters(clearance=1e-4, joint=2)),  # k_contact 0: K from the materials
], ids=["planar clearance in (2,3)", "planar clearance in (2,2), flexible (2,3)", "default contact in (2,2)"])
def test_fmu_with_clearance_equals_the_library(fmu, start, clearance):
    """The FMU stepped by FMPy (tau = 2 N.m held, the governed load of its defaults) on the compiled engine, and
    the library's hybrid system advanced on it over the same communication points with the FMU's tolerances
    (rtol 1e-6, atol 1e-8), agree to 1e-8 in every output named."""
    names = ["psi[1]", "psi[3]", "psid[4]", "e_clearance", "F_contact", "E_elastic", "W_dissipated", "W_friction",
             "E_kin"]
    messages = []

    def logger(env, instance, status, category, message):
        messages.append(message.decode())

    res = simulate_fmu(str(fmu), stop_time=STOP, output_interval=H, start_values=dict(start, tau=2.0),
                       output=names, logger=logger, debug_logging=True)
    assert "compiled engine (C)" in messages, messages
    mech = ClearanceRSRRR(RSRRRParameters(), clearance)
    system = ClearanceRSRRRSystem(mech, [2.0, 0.0], SpeedLoad(10.0, 9.0, 5.0))
    integrator = make_integrator(system, 0.0, system.initial_state(np.pi / 2, 0.0), engine="compiled", rtol=1e-6,
                                 atol=1e-8)
    rows = [integrator.record_row(0.0, integrator.state.y, integrator.state.mode)]
    rows += [integrator.advance_to(t) for t in res["time"][1:]]
    keys = dict(zip(names, [("q", 0), ("q", 2), ("qd", 3)]))
    for name in names:
        key, i = keys.get(name, (name, None))
        want = np.array([r[key] if i is None else r[key][i] for r in rows])
        np.testing.assert_allclose(res[name], want, rtol=1e-8, atol=1e-8 * max(np.abs(want).max(), 1e-12),
                                   err_msg=name)
    assert res["F_contact"].max() > 1.0 and res["W_dissipated"][-1] < 0.0


def test_bad_clearance_values_are_fmi_errors_naming_them(fmu):
    messages = []

    def logger(env, instance, status, category, message):
        messages.append(message.decode())

    with pytest.raises(FMICallException):
        simulate_fmu(str(fmu), stop_time=H, output_interval=H, start_values={"clearance_model": 3}, logger=logger)
    assert any("clearance_model = 3 is outside its allowed range [1, 2]" in m for m in messages), messages
    messages.clear()
    with pytest.raises(FMICallException):
        simulate_fmu(str(fmu), stop_time=H, output_interval=H, start_values={"clearance": 1e-4, "stiction": True},
                     logger=logger)
    assert any("stiction" in m for m in messages), messages


def test_contact_stiffness_from_the_joint_material(fmu):
    """k_contact 0: K from E_joint and nu_joint (contact.cylinder_stiffness, Flores et al. 2006, K proportional
    to 1 / sigma, sigma = (1 - nu^2) / E). The journal released centred in joint (2,2) with 0.1 mm clearance
    seats against its bearing; at rest there (t = 10 ms) its penetration is the static one, (F / K)^(2/3), so a
    bearing of aluminium (E_joint 7e10 Pa, nu_joint 0.33) lets it sink deeper than steel's (the defaults) by
    (F_al sigma_al / (F_st sigma_st))^(2/3), to 1e-3."""
    runs = {}
    for E, nu in ((2.1e11, 0.3), (7e10, 0.33)):
        res = simulate_fmu(str(fmu), stop_time=STOP, output_interval=H, output=["e_clearance", "F_contact"],
                           start_values=dict(clearance=1e-4, tau=2.0, E_joint=E, nu_joint=nu))
        runs[E] = (res["e_clearance"][-1] - 1e-4, res["F_contact"][-1], (1.0 - nu**2) / E)
    (steel, f_steel, sigma_steel), (aluminium, f_aluminium, sigma_aluminium) = runs[2.1e11], runs[7e10]
    print(f"penetration at rest: steel {steel:.4g} m, aluminium {aluminium:.4g} m")
    assert 0.0 < steel < aluminium
    np.testing.assert_allclose(aluminium / steel, (f_aluminium * sigma_aluminium / (f_steel * sigma_steel)) ** (2 / 3),
                               rtol=1e-3)


def test_bad_joint_materials_are_fmi_errors_naming_them(fmu):
    messages = []

    def logger(env, instance, status, category, message):
        messages.append(message.decode())

    for start, call, text in ((dict(E_joint=-1.0), "fmi2SetReal", "E_joint = -1.0 is outside its allowed range"),
                              (dict(clearance=1e-4, E_joint=0.0), "fmi2ExitInitializationMode",
                               "E_joint=0.0 is outside the allowed range (0, inf)"),
                              (dict(clearance=1e-4, nu_joint=0.5), "fmi2ExitInitializationMode",
                               "nu_joint=0.5 is outside the allowed range [0, 0.5)")):
        messages.clear()
        with pytest.raises(FMICallException, match=call):
            simulate_fmu(str(fmu), stop_time=H, output_interval=H, start_values=start, logger=logger)
        assert any(text in m for m in messages), (start, messages)
