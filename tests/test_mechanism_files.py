"""Mechanism files (friction_joints.mechanisms.files): the seed mechanisms written as files are the
mechanisms of the Python factories, every catalogue file assembles, runs and draws, and each kind of
malformed file is refused with a message that names its key and line."""

import math
import re
from pathlib import Path

import numpy as np
import pytest

from friction_joints import mechanism as command
from friction_joints.mechanisms import dupont_two_mass, offset_slider_crank, slider_crank
from friction_joints.mechanisms.expressions import evaluate
from friction_joints.hybrid import Sine
from friction_joints.mechanisms.files import read_file, read_text
from friction_joints.planar import contact_laws
from friction_joints.simulation import simulate

CATALOGUE = Path(__file__).resolve().parents[1] / "examples" / "mechanisms"
SEEDS = {"DupontTwoMass": dupont_two_mass, "OffsetSliderCrank": offset_slider_crank, "SliderCrank": slider_crank}
FILES = sorted(p.stem for p in CATALOGUE.glob("*.toml"))


def test_the_catalogue_has_the_seeds_and_the_new_mechanisms():
    assert set(FILES) == {*SEEDS, "FourBar", "Ackermann", "QuickReturn"}


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_seed_file_gives_the_factory_dynamics_at_random_states(name):
    """Minimal form (seed 000 eq. 5.4) of the file's mechanism and of the factory's at random
    assembled states, velocities and drives: the same udot, reactions and friction."""
    mine, ref = read_file(CATALOGUE / f"{name}.toml").build().mechanism, SEEDS[name]()
    assert mine.q_names == ref.q_names and mine.partition == ref.partition
    rng = np.random.default_rng(7)
    for _ in range(20):
        q_u = rng.uniform(-math.pi, math.pi, len(ref.partition))
        u = rng.uniform(-3, 3, len(ref.partition))
        tau = rng.uniform(-20, 20, ref.model.n_drives)
        q = ref.assemble(q_u)
        np.testing.assert_allclose(mine.assemble(q_u), q, atol=1e-12, err_msg=f"{name}: assembled q")
        a = mine.minimal.evaluate(q, u, tau, ref.partition)
        b = ref.minimal.evaluate(q, u, tau, ref.partition)
        for key in ("udot", "f", "f_mu", "sd"):
            np.testing.assert_allclose(getattr(a, key), getattr(b, key), rtol=1e-12, atol=1e-12,
                                       err_msg=f"{name}: {key} at q={q}, u={u}, tau={tau}")


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_seed_file_runs_as_the_factory(name):
    """The file's experiment (inputs held over each step) run from the file's initial state and
    from the factory's: the same events and states."""
    spec = read_file(CATALOGUE / f"{name}.toml")
    built, ref = spec.build(), SEEDS[name]()
    stop, step = 0.5, spec.experiment["step_size"]
    inputs = {n: command.held(fn, stop, step) for n, fn in spec.experiment_inputs().items()}
    mine = command.simulate(spec, built, inputs, stop, step)
    q0 = ref.assemble(built.q0[list(ref.partition)])
    theirs = simulate(ref, [inputs[d.name] for d in spec.drives], stop, q0, built.u0, dt_out=step, rtol=1e-8)
    assert [k for _, k in mine.events] == [k for _, k in theirs.events]
    np.testing.assert_allclose([t for t, _ in mine.events], [t for t, _ in theirs.events], atol=1e-12)
    for key in ("q", "u", "f", "f_mu"):
        np.testing.assert_allclose(mine[key], theirs[key], rtol=1e-10, atol=1e-10, err_msg=f"{name}: {key}")


@pytest.mark.parametrize("name", FILES)
def test_catalogue_file_assembles_runs_and_draws(name, tmp_path):
    """python -m friction_joints.mechanism FILE --simulate: exit 0, the closing constraints met at
    the start, the drawing and the results written; the energy balance of the run closes."""
    spec = read_file(CATALOGUE / f"{name}.toml")
    built = spec.build()
    assert built.residual < 1e-10
    assert spec.data.get("dof") == built.mechanism.minimal.k
    assert command.main([str(CATALOGUE / f"{name}.toml"), "--out", str(tmp_path), "--simulate", "--stop-time", "0.5"]) == 0
    for suffix in ("_drawing.png", "_simulation.png", "_simulation.csv"):
        assert (tmp_path / f"{name}{suffix}").stat().st_size > 0
    res = np.genfromtxt(tmp_path / f"{name}_simulation.csv", delimiter=",", names=True)
    balance = res["E_kin"] + res["E_pot"] - res["W_drive"] - res["W_friction"]
    scale = max(np.abs(res["W_drive"]).max(), np.abs(res["E_kin"]).max(), 1.0)
    assert np.abs(balance - balance[0]).max() < 1e-6 * scale, name
    assert np.all(np.diff(res["W_friction"]) <= 1e-12), f"{name}: friction added energy"


def test_simulate_takes_its_inputs_from_a_csv(tmp_path):
    """--simulate INPUTS.csv: the drives interpolated linearly in the CSV's table."""
    inputs = tmp_path / "in.csv"
    inputs.write_text('"time","tau","unused"\n0.0,0.0,9\n0.4,2.0,9\n')
    assert command.main([str(CATALOGUE / "SliderCrank.toml"), "--out", str(tmp_path), "--simulate", str(inputs),
                         "--stop-time", "0.4", "--step", "0.1"]) == 0
    res = np.genfromtxt(tmp_path / "SliderCrank_simulation.csv", delimiter=",", names=True)
    np.testing.assert_allclose(res["tau"], 5.0 * res["time"], atol=1e-12)
    inputs.write_text('"time","torque"\n0.0,0.0\n')
    assert command.main([str(CATALOGUE / "SliderCrank.toml"), "--out", str(tmp_path), "--simulate", str(inputs)]) == 1


def test_simulate_with_bristle_friction_writes_the_deflections(tmp_path):
    """--set friction_model=3 with sigma0 and an own law's parameter: FourBar's bristle system runs (O LuGre and C
    Dahl of their own, A and B elasto-plastic); the CSV has z[k] of each joint, whose deflection stays in its
    law's bound sigma0 |z| <= mu_s (Dahl: mu_c, which it reaches) and reaches the sliding level mu_c / sigma0
    within 10% (the run slides both ways); the energy balance closes. Bad values: exit 1 with the law's message,
    a name that is no parameter exit 2."""
    file = str(CATALOGUE / "FourBar.toml")
    run = [file, "--out", str(tmp_path), "--simulate", "--stop-time", "3"]
    assert command.main([*run, "--set", "friction_model=3", "--set", "sigma0=2e4", "--set", "O.bristle.sigma1=0.3"]) == 0
    res = np.genfromtxt(tmp_path / "FourBar_simulation.csv", delimiter=",", names=True)
    mu_s, mu_c = 0.2, 0.15
    for k, sigma0, bound in ((1, 2e4, mu_s), (2, 2e4, mu_s), (3, 5e3, mu_c), (4, 2e4, mu_s)):
        deflection = sigma0 * np.abs(res[f"z{k}"])
        assert 0.9 * mu_c <= deflection.max() <= bound * (1 + 1e-9), (k, deflection.max())
    assert not res["stuck"].any()
    balance = res["E_kin"] + res["E_pot"] - res["W_drive"] - res["W_friction"]
    assert np.abs(balance - balance[0]).max() < 1e-6 * max(np.abs(res["W_drive"]).max(), 1.0)
    assert command.main([*run, "--set", "friction_model=5"]) == 1
    assert command.main([*run, "--set", "friction_model=2", "--set", "C.bristle.sigma0=0"]) == 1
    with pytest.raises(SystemExit) as exit_status:
        command.main([*run, "--set", "A.bristle.sigma0=1"])
    assert exit_status.value.code == 2


def test_summary_names_bodies_joints_coordinates_and_residual():
    spec = read_file(CATALOGUE / "QuickReturn.toml")
    text = command.summary(spec, spec.build())
    for word in ("crank", "lever", "link", "ram", "pin-in-slot", "k = k1 - m2 = 4 - 3 = 1", "th_c", "x_ram",
                 "assembly residual"):
        assert word in text


# --- malformed files: one test per kind of error --------------------------------------------------
BASE = (CATALOGUE / "SliderCrank.toml").read_text()


def refused(text, *fragments):
    """The message of the ValueError that reading ``text`` raises; asserts it holds every fragment."""
    with pytest.raises(ValueError) as info:
        read_text(text, "bad.toml")
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


def line_of(text, pattern, occurrence=0):
    """1-based line of the occurrence-th line matching ``pattern``."""
    return [i for i, line in enumerate(text.splitlines(), 1) if re.search(pattern, line)][occurrence]


def test_joint_refers_to_a_missing_body():
    text = BASE.replace('body_j = "rod"', 'body_j = "crank2"')
    refused(text, 'joints[2].body_j = "crank2"', f"(line {line_of(text, 'crank2')})",
            'no body "crank2" (bodies: ground, crank, rod, slider)')


def test_mechanism_that_cannot_be_assembled():
    # a rod shorter than the crank cannot reach the slider's axis with the crank vertical
    text = BASE.replace("a2 = {value = 0.4,", "a2 = {value = 0.1,").replace(
        'th1_start = {value = 0.0,', 'th1_start = {value = 1.5707963267948966,')
    refused(text, "initial.q", "cannot be assembled", "th1 held")


def test_massless_body_that_the_joints_leave_free():
    # crank, rod and slider all without mass: nothing resists the crank's acceleration
    text = BASE.replace("m1 = {value = 2.5,", "m1 = {value = 0.0,").replace("m2 = {value = 4.0,", "m2 = {value = 0.0,")
    refused(text, "bodies", "equations of motion cannot be solved at the initial state", "not positive definite")


def test_degrees_of_freedom_that_do_not_match():
    text = BASE.replace("dof = 1", "dof = 2")
    refused(text, "dof = 2", f"(line {line_of(text, '^dof')})", "3 joint coordinates - 2 closing constraints = 1")
    text = BASE.replace('independent = ["th1"]', 'independent = ["th1", "x3"]')
    refused(text, "independent", "1 distinct coordinates", "1 degree of freedom")


def test_friction_coefficient_out_of_range():
    text = BASE.replace('mu_ts = {value = 0.3,', 'mu_ts = {value = 0.1,', 1)  # kinetic 0.2 > static 0.1
    refused(text, "joints[3].friction", f"(line {line_of(text, 'mu_s = .mu_ts')})", "mu_k=0.2",
            "allowed range [0, 0.1]")
    text = BASE.replace('friction = {law = "coulomb", mu_s = "mu_rs", mu_k = "mu_rk"}',
                        'friction = {law = "coulomb", mu_s = -0.1, mu_k = 0.0}', 1)
    refused(text, "joints[0].friction", "mu_s=-0.1")


def test_parameter_value_outside_its_declared_range():
    text = BASE.replace("m1 = {value = 2.5,", "m1 = {value = -2.5,")
    refused(text, "parameters.m1.value = -2.5", f"(line {line_of(text, '^m1 =')})", "[0.0, inf]")


def test_expression_naming_an_unknown_parameter():
    text = BASE.replace('p_i = ["-a2", 0.0]', 'p_i = ["-b2", 0.0]')
    refused(text, 'joints[1].p_i[0] = "-b2"', "'b2', which is not a parameter")


def test_unknown_key_and_unknown_joint_type():
    text = BASE.replace("coordinate = \"th2\"", "coordinat = \"th2\"")
    refused(text, "joints[1].coordinat", "unknown key")
    refused(BASE.replace('type = "prismatic"', 'type = "slider"'), 'joints[3].type = "slider"', "revolute, prismatic, pin-in-slot")


def test_names_of_bodies_and_joints_must_be_distinct_identifiers():
    text = BASE.replace('name = "B"', 'name = "A"')
    refused(text, 'joints[2].name = "A"', f"(line {line_of(text, 'name = .A.', 1)})", "differ from the other joints' names")
    refused(BASE.replace('name = "rod"', 'name = "ground"'), 'bodies[1].name = "ground"')


def test_toml_syntax_error_names_its_line():
    text = BASE.replace('name = "O"', 'name = "O')
    refused(text, "bad.toml: not valid TOML", f"line {line_of(text, 'name = .O$')}")


def test_joint_coordinate_that_places_no_body():
    text = BASE.replace('coordinate = "th1"\n', "")  # the crank is placed by nothing
    refused(text, "joints[1].coordinate", "its body_j 'crank' is placed by no joint coordinate",
            "no joint coordinate places the bodies crank")


def test_every_problem_is_reported_at_once():
    text = BASE.replace('body_j = "rod"', 'body_j = "crank2"').replace('p_i = ["-a2", 0.0]', 'p_i = ["-b2", 0.0]')
    message = refused(text, "2 problems", "crank2", "b2")
    assert message.startswith("bad.toml:")


def test_experiment_inputs_refer_to_drives():
    spec = read_text(BASE.replace('inputs = {tau = "4 * sin(3 * t)"}', 'inputs = {torque = "4"}'), "bad.toml")
    with pytest.raises(ValueError, match=r"experiment.inputs.torque .*no drive 'torque' \(drives: tau\)"):
        spec.experiment_inputs()


def test_expressions_are_arithmetic_only():
    assert evaluate("-a * cos(pi) + 2**3 / 4 + step(t - 1)", {"a": 2.0, "t": 1.0}) == 2.0 + 2.0 + 1.0
    for bad, fragment in (("__import__('os')", "not allowed"), ("a.real", "not allowed"), ("sqrt(-1)", "undefined"),
                          ("1 / 0", "cannot be evaluated"), ("x", "not a parameter")):
        with pytest.raises(ValueError, match=fragment):
            evaluate(bad, {"a": 1.0})


def test_choice_of_independent_coordinate_does_not_change_the_motion():
    """FourBar run from one configuration with the crank angle, the rocker angle or the automatic
    choice as independent coordinate (seed 000 eq. 5.1): the same motion and stick-slip events."""
    text = (CATALOGUE / "FourBar.toml").read_text()
    q0 = read_text(text, "x.toml").build().q0  # on the loop: every partition starts from it
    text = re.sub(r"^q = .*$", "q = {" + ", ".join(f"{n} = {float(v)!r}" for n, v in zip(("th1", "th2", "th3"), q0)) + "}",
                  text, flags=re.M)
    runs = []
    for independent in ('["th1"]', '["th3"]', '"auto"'):
        spec = read_text(re.sub(r"^independent = .*$", f"independent = {independent}", text, flags=re.M), "x.toml")
        built = spec.build()
        inputs = {n: command.held(fn, 2.0, 0.01) for n, fn in spec.experiment_inputs().items()}
        runs.append((independent, built.mechanism.partition, command.simulate(spec, built, inputs, 2.0, 0.01)))
    assert runs[1][1] == (2,)
    (_, _, ref), *others = runs
    for independent, _, res in others:
        assert [k for _, k in res.events] == [k for _, k in ref.events], independent
        np.testing.assert_allclose([t for t, _ in res.events], [t for t, _ in ref.events], atol=1e-9, err_msg=independent)
        np.testing.assert_allclose(res["q"], ref["q"], atol=1e-9, err_msg=independent)


def test_the_fmu_parameters_are_reserved_names():
    """A file's parameter may not take the name of a parameter every file FMU has."""
    from friction_joints.fmi.slave import FrictionModelSlave
    from friction_joints.mechanisms.files import FMU_PARAMETERS

    assert FMU_PARAMETERS == {"rtol"} | {v.name for v in FrictionModelSlave.BRISTLE_PARAMETERS}


# --- the joints' own bristle laws ----------------------------------------------------------------
def test_joints_with_their_own_bristle_laws_run_alike_on_both_engines():
    """FourBar's crank bearing O has a LuGre law and its rocker bearing C a Dahl law of their own (the file's
    ``bristle`` keys), A and B the file-wide elasto-plastic law: RODAS (compiled) and LSODA (Python), both at
    rtol 1e-10, within 1e-8 of each quantity's range at every 5 ms, and every contact sliding at the end holds
    the steady deflection of its own law, sigma0 |z| = mu_c."""
    spec = read_file(CATALOGUE / "FourBar.toml")
    built = spec.build()
    own = spec.bristle_laws(built.mechanism)
    assert [type(law).__name__ if law else None for law in own] == ["LuGre", None, "Dahl", None]
    assert (own[0].sigma0, own[0].sigma1, own[0].v_s, own[2].sigma0) == (2e4, 0.5, 1e-3, 5e3)
    laws = contact_laws(built.mechanism, 3, sigma0=1e4, sigma1=0.2, v_s=1e-3, own=own)
    assert [type(law).__name__ for law in laws] == ["LuGre", "ElastoPlastic", "Dahl", "ElastoPlastic"]
    runs = {engine: simulate(built.mechanism, [Sine(1.0, 2.0)], 0.5, built.q0, built.u0, bristle=laws, dt_out=0.005,
                             rtol=1e-10, atol=1e-12, engine=engine) for engine in ("python", "compiled")}
    for key in ("q", "u", "z", "f", "f_mu", "W_drive", "W_friction"):
        want, got = np.asarray(runs["python"][key], float), np.asarray(runs["compiled"][key], float)
        error = np.max(np.abs(got - want)) / np.ptp(want)
        print(f"{key}: max |C - Python| {error:.1e} of its range")
        assert got.shape == want.shape and error < 1e-8, key
    end = runs["compiled"]
    sliding = np.abs(end["sd"][-1]) > 100 * 1e-3
    assert sliding.all()
    np.testing.assert_allclose([law.sigma0 * abs(z) for law, z in zip(laws, end["z"][-1])], 0.15, rtol=1e-6)


def test_joint_law_values_are_parameters_of_the_laws():
    """A value by its parameter name (joint.key.parameter, as the FMU names it) takes the place of the file's."""
    spec = read_file(CATALOGUE / "FourBar.toml")
    assert spec.law_values()["O.bristle.sigma0"] == 2e4 and spec.law_values()["C.bristle.sigma2"] == 0.0
    assert spec.joint_laws[0].parameters == ("O.bristle.sigma0", "O.bristle.v_s", "O.bristle.sigma1",
                                             "O.bristle.sigma2", "O.bristle.delta")
    mechanism = spec.build().mechanism
    laws = spec.bristle_laws(mechanism, {"O.bristle.sigma0": 3e4, "C.bristle.sigma1": 0.0})
    assert (laws[0].sigma0, laws[0].sigma1, laws[2].sigma1) == (3e4, 0.5, 0.0)
    with pytest.raises(ValueError, match=r"joints\[2\]\.bristle \(line \d+\): joint C's dahl law: "
                                         r"C\.bristle\.sigma0=-1\.0 is outside the allowed range \(0, inf\)"):
        spec.bristle_laws(mechanism, {"C.bristle.sigma0": -1.0})


FOURBAR = (CATALOGUE / "FourBar.toml").read_text()
LUGRE = 'bristle = {law = "lugre", sigma0 = 2e4, sigma1 = 0.5, v_s = 1e-3}'


def test_a_bad_joint_law_is_refused_naming_the_joint_and_parameter():
    assert LUGRE in FOURBAR
    line = line_of(FOURBAR, "^bristle = .*lugre")
    refused(FOURBAR.replace(LUGRE, LUGRE.replace('"lugre"', '"lugree"')), 'joints[0].bristle.law = "lugree"',
            f"(line {line})", "joint O", "dahl, lugre, elasto-plastic, gonthier")
    refused(FOURBAR.replace(LUGRE, LUGRE.replace("sigma0 = 2e4", "sigma0 = -2e4")), f"joints[0].bristle (line {line})",
            "joint O's lugre law: O.bristle.sigma0=-20000.0 is outside the allowed range (0, inf)")
    refused(FOURBAR.replace(LUGRE, LUGRE.replace(", v_s = 1e-3", "")), "joints[0].bristle.v_s", "is missing",
            "joint O's lugre law needs sigma0, v_s")
    refused(FOURBAR.replace(LUGRE, LUGRE.replace("v_s = 1e-3", "v_s = 1e-3, mu_s = 0.3")), "joints[0].bristle.mu_s",
            "joint O: unknown parameter of the lugre law", "mu_c and mu_s come from its friction law")
    refused(FOURBAR.replace(LUGRE, LUGRE.replace("v_s = 1e-3", 'v_s = "vs"')), 'joints[0].bristle.v_s = "vs"',
            "joint O: must be a number (the start value of the parameter O.bristle.v_s)")
    refused(FOURBAR.replace(LUGRE, LUGRE.replace("bristle", "bristle_t")), "joints[0].bristle_t", "unknown key")
    no_friction = FOURBAR.replace('friction = {law = "coulomb", mu_s = "mu_s", mu_k = "mu_k"}\n' + "# with", "# with")
    refused(no_friction, "joints[0].bristle", "joint O has no friction law: its bristle law takes mu_c and mu_s from it")
    refused(FOURBAR.replace("mu_k = {value = 0.15,", "mu_k = {value = 0.0,"), "2 problems",
            "joint O's lugre law: mu_c=0.0 is outside the allowed range (0, inf)",
            "joint C's dahl law: mu_c=0.0 is outside the allowed range (0, inf)",
            "mu_c and mu_s: the kinetic and static coefficients of its friction law")


def test_a_pin_in_a_slot_and_a_guide_have_laws_of_their_own_per_contact():
    """QuickReturn with bristle_t and bristle_r in its pin-in-slot joint A and bristle in its guide: each law at
    its contact (the free coordinates' order), sliding laws per m and the pin's per rad, and its FMU's
    parameters named and in units after them."""
    from friction_joints.fmi.file_slave import joint_law_variables

    text = (CATALOGUE / "QuickReturn.toml").read_text()
    friction_r = 'friction_r = {law = "coulomb", mu_s = "mu_s", mu_k = "mu_k"}\n'
    assert friction_r in text
    text = text.replace(friction_r, friction_r + 'bristle_t = {law = "dahl", sigma0 = 1e3}\n'
                        'bristle_r = {law = "gonthier", sigma0 = 2e4, v_s = 2e-3}\n')
    text = re.sub(r'(type = "prismatic"\n(?:.*\n)*?friction = .*\n)', r'\1bristle = {law = "elasto-plastic", sigma0 = 3e3, '
                  r'v_s = 1e-3, z_ba_ratio = 0.5}\n', text, count=1)
    spec = read_text(text, "QuickReturn.toml")
    assert [(law.joint_name, law.key, law.slot, law.slip) for law in spec.joint_laws] == [
        ("guide", "bristle", 0, "m"), ("A", "bristle_t", 0, "m"), ("A", "bristle_r", 1, "rad")]
    mechanism = spec.build().mechanism
    laws = spec.bristle_laws(mechanism)
    contacts = [(name, slot) for name, joint in zip(spec.joint_names, mechanism.model.joints)
                for slot, law in enumerate(joint.friction_laws()) if law is not None]
    own = {contact: type(law).__name__ for contact, law in zip(contacts, laws) if law is not None}
    assert own == {("guide", 0): "ElastoPlastic", ("A", 0): "Dahl", ("A", 1): "Gonthier"}
    units = {v.name: v.unit for v in joint_law_variables(spec)}
    assert (units["guide.bristle.sigma0"], units["A.bristle_t.sigma2"], units["A.bristle_r.sigma1"],
            units["A.bristle_r.v_s"], units["guide.bristle.z_ba_ratio"]) == ("1/m", "N.s/m", "s/rad", "rad/s", "1")
