"""The RSRRR linkage with a clearance joint and a flexible link in C: the assembly "RSRRRClearance"
(native/src/assembly_clearance.c) against the twin's Python model (spatial.clearance_packing.pack of the
ClearanceRSRRRSystem that fmu_src/RSRRRLinkage.py builds, bit for bit; ClearanceRSRRRSystem.initial_state to
rounding; the twin's messages), and the native RSRRRLinkage FMU that runs it where clearance > 0 or n_rfe > 0:
step for step the twin's engine, its state restored, its failures the twin's."""

import zipfile

import numpy as np
import pytest

import build_fmu
from friction_joints import native
from friction_joints.fmi.native import _system
from friction_joints.hybrid.signals import Held
from friction_joints.spatial import clearance_packing
from friction_joints.stepping import Stepper
from native_build import run_against

SLAVE = build_fmu.slave_class(build_fmu.SOURCES / "RSRRRLinkage.py")
DEFAULTS = {v.name: v.start if v.start is not None else 0.0 for v in SLAVE.variables}
INITIAL_STATE = 1e-13  # m, rad, and their rates: the loops closed by Newton in C and in numpy agree to rounding


def twin(values):
    """(the ClearanceRSRRRSystem the twin builds of the values, its start(system) function)."""
    make, start, _ = object.__new__(SLAVE).build(values)
    return make([Held(values["tau"]), Held(values["tau_res"])]), start


def cases(rng, count):
    """count parameter sets of the FMU with a clearance and/or a flexible link, at random."""
    for _ in range(count):
        clearance, n_rfe = (rng.uniform(2e-5, 3e-4), 0) if rng.integers(3) == 0 else (
            (0.0, rng.integers(1, 5)) if rng.integers(2) else (rng.uniform(2e-5, 3e-4), rng.integers(1, 4)))
        yield dict(DEFAULTS, clearance=clearance, n_rfe=int(n_rfe), clearance_joint=int(rng.integers(1, 5)),
                   clearance_model=int(rng.integers(1, 3)), flexible_link=int(rng.integers(1, 5)),
                   rfem=int(rng.integers(1, 3)), k_contact=float(rng.choice([0.0, rng.uniform(1e9, 1e10)])),
                   E_joint=rng.uniform(1e11, 3e11), nu_joint=rng.uniform(0.0, 0.45), e_restitution=rng.uniform(0.3, 1),
                   E=rng.uniform(1e11, 3e11), G=rng.uniform(5e10, 1e11), friction=bool(rng.integers(2)),
                   mu_scale=rng.uniform(0, 2), load_c=float(rng.choice([0.0, 5.0])), y0=rng.uniform(0.09, 0.11),
                   baumgarte=rng.uniform(5, 20), psi1_start=rng.uniform(1.2, 2.0), psid1_start=rng.uniform(-1, 1),
                   tau=rng.uniform(-3, 3), tau_res=rng.uniform(0, 1))


def test_the_assembly_packs_and_starts_as_the_twins_clearance_system():
    """Over random parameter sets: fpar and ipar are clearance_packing.pack's bit for bit, y0 the twin's
    initial_state (the bearing seated under the inputs at the start) to rounding, and where the twin's start fails
    (its seating Newton diverges, the coupling has no solution) the assembly fails too, with the cause."""
    asm, started, failed = native.Assembly("RSRRRClearance"), 0, 0
    for values in cases(np.random.default_rng(29), 40):
        system, start = twin(values)
        fpar, ipar = clearance_packing.pack(system)
        try:
            y0_python = start(system)
        except Exception:
            with pytest.raises(ValueError, match="^psi1_start=.*: no initial state with the clearance joint seated"):
                asm(values)
            failed += 1
            continue
        c_fpar, c_ipar, y0 = clearance_packing.trim(*asm(values))
        assert np.array_equal(c_fpar, fpar) and np.array_equal(c_ipar, ipar), values
        assert np.abs(y0 - y0_python).max() <= INITIAL_STATE, values
        started += 1
    assert started >= 25 and failed >= 1  # both kinds happen


@pytest.mark.parametrize("bad, message", [
    ({"clearance": 1e-4, "E_joint": 0.0}, "E_joint=0.0 is outside the allowed range (0, inf)"),
    ({"clearance": 1e-4, "nu_joint": 0.5}, "nu_joint=0.5 is outside the allowed range [0, 0.5)"),
    ({"n_rfe": 2, "E": -1.0, "G": 0.0}, "E=-1.0 is outside the allowed range (0, inf); G=0.0 is outside the allowed "
                                        "range (0, inf)"),
    ({"clearance": 1e-4, "stiction": True}, "stiction = True and friction_model = 0 must be false and 0 with a "
                                            "clearance or a flexible link (one smooth mode, the journal friction of "
                                            "eqs 4-7)"),
    ({"n_rfe": 2, "friction_model": 2}, "stiction = False and friction_model = 2 must be false and 0 with a "
                                        "clearance or a flexible link (one smooth mode, the journal friction of eqs "
                                        "4-7)")])
def test_the_assembly_refuses_what_the_twin_refuses_with_its_message(bad, message):
    values = dict(DEFAULTS, **bad)
    with pytest.raises(ValueError) as python:
        twin(values)
    assert str(python.value) == message
    with pytest.raises(ValueError) as c:
        native.Assembly("RSRRRClearance")(values)
    assert str(c.value) == message


def test_the_assembly_under_sanitizers(sanitized_engine):
    """The assembly's comparisons on the engine built with the sanitizers (in a subprocess: a report fails it)."""
    run_against(sanitized_engine, """
import sys
import numpy as np
from friction_joints.native import library
import test_native_clearance as tests
assert library() is library(sys.argv[1])
tests.test_the_assembly_refuses_what_the_twin_refuses_with_its_message({"clearance": 1e-4, "E_joint": 0.0},
    "E_joint=0.0 is outside the allowed range (0, inf)")
asm = tests.native.Assembly("RSRRRClearance")
for values in tests.cases(np.random.default_rng(3), 6):
    try:
        asm(values)
    except ValueError:
        pass
""")


# ======================================================================================================
# The native FMU
# ======================================================================================================

@pytest.fixture(scope="module")
def fmu_folder(build_once, tmp_path_factory):
    """The native RSRRRLinkage FMU (FMI 2.0), built from its twin, extracted."""
    def build(folder):
        build_fmu.main(["--only", "RSRRRLinkage", "--fmi", "2", "--out", str(folder)])
        build_fmu.main(["--only", "RSRRRLinkage", "--fmi", "2", "--native", "--out", str(folder)])
    built = build_once("native_clearance", build)
    folder = tmp_path_factory.mktemp("RSRRRLinkage")
    with zipfile.ZipFile(built / "native" / "RSRRRLinkage.fmu") as z:
        z.extractall(folder)
    return folder


#: runs: the FMU's parameters, the steps of 10 ms (the default experiment, tau ramped from rest), the contact
#: changes expected within them (separations and impacts: F_contact 0 and back)
RUNS = {"planar clearance": ({"clearance": 1e-4}, 30, 0),
        "spatial clearance": ({"clearance": 1e-4, "clearance_model": 2}, 90, 2),
        "flexible link": ({"n_rfe": 2, "rfem": 2}, 30, 0)}


@pytest.mark.parametrize("run", list(RUNS))
def test_the_native_fmu_steps_as_its_twins_engine(fmu_folder, run):
    """The native FMU with a clearance or a flexible link, on its default experiment: every output at every step bit
    for bit that of stepping.Stepper on the compiled engine (the twin's doStep) from the C assembly's initial state,
    which is the twin's to rounding (its loop closed in numpy). The twin FMU itself is not compared to 1e-9 of the
    ranges: the stiff contact makes the runs from the two starts, 4e-16 apart, differ by up to 1e-4 of a range (its
    error control takes other RODAS steps), on the same engine."""
    from test_native_fmus import Instance, drive, outputs_of

    values, steps, changes = RUNS[run]
    inst = Instance(fmu_folder, run.replace(" ", "_"))
    inst.start(**values)
    assert any("the C engine's family spatial_clearance" in m for _, _, m in inst.messages), inst.messages
    e, names, slave = SLAVE.experiment, outputs_of(inst.md), object.__new__(SLAVE)
    full = dict(DEFAULTS, **values)
    system, y0_python = _system(SLAVE, slave, full, tuple(SLAVE.inputs))
    _, _, y0 = clearance_packing.trim(*native.Assembly("RSRRRClearance")(full))
    assert np.abs(y0 - y0_python).max() <= INITIAL_STATE
    stepper = Stepper(lambda inputs: system, lambda _: y0, [0.0, 0.0], full["rtol"], engine="compiled")
    h, contact = e.step_size, []
    for k in range(steps):
        stepper.step_record(k * h, h, [e.inputs[n](k * h) for n in SLAVE.inputs])
        expected = slave.publish(stepper.outputs)
        got = dict(zip(names, drive(inst, e.inputs, names, k, k + 1, h)[0]))
        assert got == {n: float(expected[n]) for n in names}, f"t = {(k + 1) * h}"
        contact.append(got["F_contact"] > 0.0)
    assert np.count_nonzero(np.diff(contact)) >= changes
    assert inst.errors() == []
    inst.free()


def test_a_clearance_runs_state_restores_bit_identically_and_bad_parameters_fail_as_in_the_twin(fmu_folder):
    """A serialized state of the spatial clearance run (after its first separation) restored into a fresh instance and
    into one that ran the rigid linkage continues bit-identically; E_joint = 0 and a bristle law with a clearance fail
    the initialisation with the twin's messages."""
    from fmpy.fmi1 import FMICallException
    from test_native_fmus import Instance, drive, outputs_of

    values = RUNS["spatial clearance"][0]
    e, h = SLAVE.experiment, SLAVE.experiment.step_size
    first, rigid = Instance(fmu_folder, "first"), Instance(fmu_folder, "rigid")
    names = outputs_of(first.md)
    first.start(**values)
    rigid.start()
    drive(first, e.inputs, names, 0, 75, h)
    drive(rigid, e.inputs, names, 0, 75, h)
    data = first.serialize(first.get_state())
    expected = drive(first, e.inputs, names, 75, 95, h)
    second = Instance(fmu_folder, "second")
    for inst in (second, rigid):
        inst.set_state(inst.deserialize(data))
        assert np.array_equal(drive(inst, e.inputs, names, 75, 95, h), expected)
    for inst in (first, second, rigid):
        assert inst.errors() == []
        inst.free()
    for bad, message in (({"clearance": 1e-4, "E_joint": 0.0}, "E_joint=0.0 is outside the allowed range (0, inf)"),
                         ({"clearance": 1e-4, "friction_model": 2}, "stiction = False and friction_model = 2 must be "
                          "false and 0 with a clearance or a flexible link (one smooth mode, the journal friction of "
                          "eqs 4-7)")):
        inst = Instance(fmu_folder, "bad")
        with pytest.raises(FMICallException):
            inst.start(**bad)
        assert inst.errors()[-1].endswith(f"initialization failed: {message}"), inst.errors()
        inst.free()
