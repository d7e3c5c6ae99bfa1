"""FMUs of mechanism files (build_fmu.py --mechanism): every catalogue file builds into a valid FMU
(FMPy's validation runs in the build) that runs its default experiment; the seed files give the
outputs of the shipped DupontTwoMass, OffsetSliderCrank and SliderCrank FMUs; the outputs satisfy
the absolute-coordinate equations (seed 000 eq. 2.9) in slip and close the energy balance."""

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu
from fmpy.fmi1 import FMICallException

from friction_joints import mechanism as command
from friction_joints.fmi.regression import input_table
from friction_joints.mechanisms.files import read_file
from friction_joints.planar import contact_laws
from friction_joints.simulation import simulate

pytestmark = pytest.mark.slow

CATALOGUE = Path(__file__).resolve().parents[1] / "examples" / "mechanisms"
SEEDS = ("DupontTwoMass", "OffsetSliderCrank", "SliderCrank")
FILES = sorted(p.stem for p in CATALOGUE.glob("*.toml"))
#: output of the shipped DupontTwoMass FMU -> output of the file's FMU (q = [y2, x1])
DUPONT = {"x": "q[2]", "xd": "qd[2]", "xdd": "qdd[2]", "y": "q[1]", "yd": "qd[1]", "f_n": "f[1]",
          "f_mu": "f_mu[1]", "stuck": "stuck", "E_kin": "E_kin", "W_drive": "W_drive", "W_friction": "W_friction"}


@pytest.fixture(scope="module")
def built(mechanism_fmu, fmus):
    """{'files': {name: FMU of the catalogue file}, 'shipped': {name: FMU of fmu_src}}, built once."""
    files = {name: mechanism_fmu(CATALOGUE / f"{name}.toml") for name in FILES}
    assert all(path.stem == read_file(CATALOGUE / f"{name}.toml").name for name, path in files.items())
    return {"files": files, "shipped": {name: fmus[name] for name in SEEDS}}


def run(fmu, spec, stop_time=None, start_values=None):
    """FMPy's run of the file's default experiment (inputs sampled at each step and held over it)
    and the inputs {name: function of t}."""
    e = spec.experiment
    stop, step = stop_time or e["stop_time"], e["step_size"]
    inputs = spec.experiment_inputs()
    return simulate_fmu(str(fmu), stop_time=stop, output_interval=step, input=input_table(stop, step, inputs),
                        start_values=start_values or {}), inputs


@pytest.mark.parametrize("name", SEEDS)
def test_seed_file_fmu_gives_the_outputs_of_the_shipped_fmu(built, name):
    spec = read_file(CATALOGUE / f"{name}.toml")
    mine, _ = run(built["files"][name], spec)
    theirs, _ = run(built["shipped"][name], spec)
    pairs = DUPONT if name == "DupontTwoMass" else {n: n for n in theirs.dtype.names if n != "time"}
    np.testing.assert_array_equal(mine["time"], theirs["time"])
    worst = max(float(np.max(np.abs(mine[b].astype(float) - theirs[a].astype(float)))) for a, b in pairs.items())
    print(f"{name}: largest output difference from the shipped FMU {worst:.3g}")
    for a, b in pairs.items():
        np.testing.assert_allclose(mine[b].astype(float), theirs[a].astype(float), rtol=0, atol=1e-9,
                                   err_msg=f"{name}: file FMU's {b} against the shipped FMU's {a}")


def test_file_fmu_parameters_reach_the_model(built):
    """A parameter set in the file's FMU acts as the same parameter of the shipped FMU."""
    spec = read_file(CATALOGUE / "SliderCrank.toml")
    mine, _ = run(built["files"]["SliderCrank"], spec, 1.0, {"m2": 5.5, "mu_rk": 0.12, "th1_start": 0.3})
    theirs, _ = run(built["shipped"]["SliderCrank"], spec, 1.0,
                    {"m2": 5.5, "J2": 5.5 * 0.4**2 / 3, "mu_rk": 0.12, "q1_start": 0.3})
    for n in ("q[1]", "u", "f[1]", "f_mu[4]", "W_friction"):
        np.testing.assert_allclose(mine[n], theirs[n], rtol=0, atol=1e-9, err_msg=n)


def test_file_fmu_runs_bristle_friction_as_the_shipped_fmu(built):
    """friction_model = 2 (LuGre in every joint, planar.BristleSystem): the file's FMU and the shipped
    SliderCrank give the same run, and it differs from the exact model's."""
    spec = read_file(CATALOGUE / "SliderCrank.toml")
    bristle = {"friction_model": 2, "sigma0": 1e3, "sigma1": 1.0}
    mine, _ = run(built["files"]["SliderCrank"], spec, 0.5, bristle)
    theirs, _ = run(built["shipped"]["SliderCrank"], spec, 0.5, bristle)
    exact, _ = run(built["files"]["SliderCrank"], spec, 0.5)
    for n in ("q[1]", "u", "f[1]", "f_mu[1]", "f_mu[4]", "W_friction"):
        np.testing.assert_allclose(mine[n], theirs[n], rtol=0, atol=1e-9, err_msg=n)
    assert not mine["stuck"].any() and exact["stuck"].any()  # bristles have no stick mode
    assert np.abs(mine["q[1]"] - exact["q[1]"]).max() > 1e-4


def test_file_fmu_runs_the_joints_own_bristle_laws(built):
    """FourBar's FMU has a parameter per parameter of its joints' own laws, named and described after the
    joint, in the units of its slip; with friction_model 3 its outputs are the compiled run of the file's
    laws for O and C and the file-wide elasto-plastic law for A and B fed the same held inputs (within
    1e-9 of each output's range), a tuned O.bristle.sigma0 reaches the model, the joints' laws change the
    run (beyond 1e-3 of its range), and a value the law refuses is an fmi2Error naming it."""
    spec = read_file(CATALOGUE / "FourBar.toml")
    fmu = built["files"]["FourBar"]
    variables = {v.name: v for v in read_model_description(str(fmu)).modelVariables}
    for law in spec.joint_laws:
        for name, value in law.values.items():
            v = variables[law.parameter(name)]
            assert v.causality == "parameter" and float(v.start) == value, v.name
            assert v.description.startswith(f"joint {law.joint_name}'s {law.law} law"), v.description
    units = {n: variables[n].unit for n in ("O.bristle.sigma0", "O.bristle.sigma1", "O.bristle.v_s", "C.bristle.sigma2")}
    assert units == {"O.bristle.sigma0": "1/rad", "O.bristle.sigma1": "s/rad", "O.bristle.v_s": "rad/s",
                     "C.bristle.sigma2": "N.m.s/rad"}
    stop, step = 0.3, spec.experiment["step_size"]
    bristle = {"friction_model": 3, "sigma0": 1e4, "sigma1": 0.2, "v_s": 1e-3, "rtol": 1e-10}
    built_file = spec.build()
    mechanism = built_file.mechanism
    held = [command.held(fn, stop, step) for fn in spec.experiment_inputs().values()]

    def library(values, own=True):
        laws = contact_laws(mechanism, 3, sigma0=1e4, sigma1=0.2, v_s=1e-3,
                            own=spec.bristle_laws(mechanism, values) if own else None)
        return simulate(mechanism, held, stop, built_file.q0, built_file.u0, bristle=laws, dt_out=step, rtol=1e-10,
                        atol=1e-12, engine="compiled")

    outputs = {"u": lambda r: r["u"][:, 0], "f_mu[1]": lambda r: r["f_mu"][:, 0], "f_mu[3]": lambda r: r["f_mu"][:, 2],
               "W_friction": lambda r: r["W_friction"]}
    file_wide = library({}, own=False)
    for tuned in ({}, {"O.bristle.sigma0": 4e4, "C.bristle.sigma1": 0.0}):
        res, _ = run(fmu, spec, stop, {**bristle, **tuned})
        want = library(tuned)
        for name, of in outputs.items():
            scale = np.ptp(of(want))
            np.testing.assert_allclose(res[name], of(want), rtol=0, atol=1e-9 * scale, err_msg=f"{name} {tuned}")
        assert max(np.abs(of(want) - of(file_wide)).max() / np.ptp(of(want)) for of in outputs.values()) > 1e-3
    messages = []
    with pytest.raises(FMICallException, match="fmi2ExitInitializationMode"):
        simulate_fmu(str(fmu), stop_time=0.1, output_interval=step, start_values={**bristle, "O.bristle.delta": 0.0},
                     logger=lambda env, instance, status, category, message: messages.append(message.decode()))
    assert any("joint O's lugre law: O.bristle.delta=0.0 is outside the allowed range (0, inf)" in m
               for m in messages), messages


@pytest.mark.parametrize("name", FILES)
def test_file_fmu_has_the_variables_and_documentation_of_its_file(built, name):
    spec = read_file(CATALOGUE / f"{name}.toml")
    md = read_model_description(str(built["files"][name]))
    variables = {v.name: v for v in md.modelVariables}
    assert md.coSimulation.modelIdentifier == name
    for d in spec.drives:
        assert variables[d.name].causality == "input" and variables[d.name].unit == d.unit
    for p in spec.parameters:
        v = variables[p.name]
        assert v.causality == "parameter" and float(v.start) == p.value and (v.unit or "") == (p.unit if p.unit != "1" else "")
    mech = spec.build().mechanism
    outputs = {v.name for v in md.modelVariables if v.causality == "output"}
    m, l, k1 = mech.model.m, mech.model.l, mech.minimal.k1
    for i, q_name in enumerate(mech.q_names, 1):
        assert {f"q[{i}]", f"qd[{i}]", f"qdd[{i}]"} <= outputs and q_name in variables[f"q[{i}]"].description
    assert {f"f[{j}]" for j in range(1, m + 1)} | {f"f_mu[{c}]" for c in range(1, l + 1)} <= outputs
    assert {"stuck", "E_kin", "E_pot", "W_drive", "W_friction"} <= outputs
    assert {n for n in outputs if n.startswith("stuck_")} == {
        f"stuck_{name}" for name, j in zip(spec.joint_names, mech.model.joints) if any(j.friction_laws())}
    with zipfile.ZipFile(built["files"][name]) as z:
        names = set(z.namelist())
        assert {"documentation/index.html", "documentation/mechanism.png", "documentation/default_experiment.png"} <= names
        assert any(n.startswith("resources/") and n.endswith(f"{name}.toml") for n in names)
    assert k1 == len(mech.q_names)


def absolute_residual(model, coords, q, qd, qdd, tau, f, f_mu):
    """The two rows of seed 000 eq. 2.9 at one output row: M xdd - h - C^T f - C_mu^T f_mu (n,) and
    C xdd - xi (m,), with x = g(q), xd = D1 qd, xdd = D1 qdd + D1dot qd (eq. 4.2)."""
    x = coords.g(q)
    _, _, C, _, _ = model.constraints(x)
    D1, _ = coords.velocity_maps(C)
    xd = D1 @ qd
    _, _, C, Cmu, xi = model.constraints(x, xd)
    _, D1dot_qd = coords.velocity_maps(C, xi)
    xdd = D1 @ qdd + D1dot_qd
    return model.M @ xdd - model.h(tau) - C.T @ f - Cmu.T @ f_mu, C @ xdd - xi


@pytest.mark.parametrize("name", FILES)
def test_file_fmu_outputs_satisfy_eq_2_9_and_the_energy_balance(built, name):
    """From the FMU's outputs alone: the absolute-form equations of motion (seed 000 eq. 2.9) hold
    in slip to 1e-8, E_kin + E_pot - W_drive - W_friction stays constant and friction never adds energy."""
    spec = read_file(CATALOGUE / f"{name}.toml")
    res, inputs = run(built["files"][name], spec)
    mech = spec.build().mechanism
    model, coords = mech.model, mech.minimal.coords
    k1, m, l = coords.k1, model.m, model.l

    def stack(key, n):
        return np.column_stack([res[f"{key}[{i}]"] for i in range(1, n + 1)])

    q, qd, qdd, f, f_mu = stack("q", k1), stack("qd", k1), stack("qdd", k1), stack("f", m), stack("f_mu", l)
    t = res["time"]
    worst, rows = 0.0, 0
    for r in range(1, len(t)):
        if res["stuck"][r]:
            continue
        # the input FMPy held over the step that ended at this row
        tau = [inputs[d.name](t[r - 1]) if d.name in inputs else 0.0 for d in spec.drives]
        r1, r2 = absolute_residual(model, coords, q[r], qd[r], qdd[r], tau, f[r], f_mu[r])
        worst, rows = max(worst, np.abs(r1).max(), np.abs(r2).max()), rows + 1
    print(f"{name}: eq. 2.9 residual {worst:.3g} over {rows} rows in slip")
    assert rows > len(t) // 4, f"{name}: too few rows in slip to test"
    assert worst < 1e-8, f"{name}: eq. 2.9 residual {worst:.3g}"
    balance = res["E_kin"] + res["E_pot"] - res["W_drive"] - res["W_friction"]
    scale = max(np.abs(res["W_drive"]).max(), np.abs(res["E_kin"]).max(), 1.0)
    drift = np.abs(balance - balance[0]).max()
    print(f"{name}: energy balance error {drift:.3g} J (scale {scale:.3g} J)")
    assert drift < 1e-6 * scale
    assert np.all(np.diff(res["W_friction"]) <= 1e-12)


def test_file_fmu_refuses_bad_parameters_with_their_key(built, run_isolated):
    """fmi2Error with a message naming the parameter or the file's key: a value outside the range the
    file declares (fmi2SetReal), a friction coefficient above its static one (the law's range) and a
    link too long for the loop to close (fmi2ExitInitializationMode), in a fresh process
    (fmu_low_level.bad_parameters)."""
    files = built["files"]
    cases = [[str(files["SliderCrank"]), "m1", -1.0, "fmi2SetReal", ["m1 = -1.0", "allowed range [0.0, inf)"]],
             [str(files["SliderCrank"]), "mu_tk", 0.5, "fmi2ExitInitializationMode",
              ["joints[3].friction", "mu_k=0.5", "allowed range [0, 0.3]"]],
             [str(files["OffsetSliderCrank"]), "a3", 0.8, "fmi2ExitInitializationMode",
              ["initial.q.th2", "asin(1.1428"]]]
    run_isolated("bad_parameters", json.dumps(cases))
