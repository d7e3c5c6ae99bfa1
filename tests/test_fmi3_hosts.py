"""The FMI 3.0 FMUs in a plain C host (tests/c_host/fmi3_host.c) through their loader
(friction_joints/fmi/loader_fmi3.c): an empty environment, the experiment passed on, failures as
fmi3Error from the call where they happen, and a clear message when no Python can be found."""

import shutil
import subprocess
import zipfile
from pathlib import Path

import fmpy
import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu
from valgrind import valgrind_errors

HOST_SOURCE = Path(__file__).with_name("c_host") / "fmi3_host.c"
NAMES = ["x", "xd", "f_mu", "time", "rtol"]  # recorded outputs of DupontTwoMass (time and rtol: the experiment)
F1, H, STEPS = 40.0, 0.01, 8  # held force on m1 (N, beyond the static limit), step (s), steps


@pytest.fixture(scope="module")
def c_host(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    exe = tmp_path_factory.mktemp("c_host") / "fmi3_host"
    headers = Path(fmpy.__file__).parent / "c-code"
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", f"-I{headers}", "-o", str(exe), str(HOST_SOURCE), "-ldl"],
                   check=True, capture_output=True, text=True)
    return exe


@pytest.fixture(scope="module")
def dupont(fmus3, tmp_path_factory):
    """(extracted folder, {name: value reference}, model description) of the FMI 3.0 DupontTwoMass FMU."""
    folder = tmp_path_factory.mktemp("dupont3")
    with zipfile.ZipFile(fmus3["DupontTwoMass"]) as z:
        z.extractall(folder)
    md = read_model_description(str(folder / "modelDescription.xml"))
    return folder, {v.name: v.valueReference for v in md.modelVariables}, md


def run_host(c_host, dupont, options=(), f1=F1, env=None, wrapper=()):
    """The C host on DupontTwoMass with F1 held, STEPS steps of H, recording NAMES; options may name
    variables as NAME=VALUE for -p/-a."""
    folder, vr, md = dupont
    named = [re_vr(o, vr) for o in options]
    binary = folder / "binaries" / "x86_64-linux" / "DupontTwoMass.so"
    return subprocess.run([*wrapper, str(c_host), *named, str(binary), str(folder / "resources") + "/", md.guid,
                           str(vr["F1"]), repr(f1), repr(H), str(STEPS), *(str(vr[n]) for n in NAMES)],
                          capture_output=True, text=True, timeout=600, env=env or {})


def re_vr(option, vr):
    """'rtol=0.5' -> '<vr of rtol>=0.5'; other options unchanged."""
    name, sep, value = option.partition("=")
    return f"{vr[name]}={value}" if sep and name in vr else option


def test_c_host_runs_the_fmu_in_an_empty_environment_from_the_host_start_time(c_host, dupont, fmus3):
    """Twice in an empty environment, started at t = 1 s with tolerance 1e-10 (tighter than the FMU's
    default, so taken): clean exits, time and rtol as the host asked (the loader passes
    fmi3EnterInitializationMode's arguments on), and the numbers of FMPy (in-process, its own Python)
    on the same experiment."""
    for run in range(2):
        proc = run_host(c_host, dupont, ["-t", "1.0", "-r", "1e-10"])
        assert proc.returncode == 0, f"run {run}: " + proc.stdout + proc.stderr
    host = np.loadtxt(proc.stdout.splitlines())
    assert host.shape == (STEPS, 1 + len(NAMES))
    np.testing.assert_allclose(host[:, 0], 1.0 + H * np.arange(1, STEPS + 1), rtol=1e-14)
    np.testing.assert_array_equal(host[:, 1 + NAMES.index("time")], host[:, 0])
    assert set(host[:, 1 + NAMES.index("rtol")]) == {1e-10}
    ref = simulate_fmu(str(fmus3["DupontTwoMass"]), start_time=1.0, stop_time=1.0 + STEPS * H, output_interval=H,
                       relative_tolerance=1e-10, start_values={"F1": F1}, output=NAMES)
    for i, name in enumerate(NAMES):
        np.testing.assert_array_equal(host[:, 1 + i], ref[name][1:], err_msg=name)
    assert host[-1, 1 + NAMES.index("xd")] > 0  # beyond the static limit: m1 slides


@pytest.mark.parametrize("options, f1, call, message", [
    (["-p", "mu_k=0.8"], F1, "fmi3ExitInitializationMode", "mu_k"),
    (["-p", "rtol=0.5"], F1, "fmi3SetFloat64", "setFloat64: rtol = 0.5 is outside its allowed range [1e-14, 0.01]"),
    (["-a", "m1=5"], F1, "fmi3SetFloat64", "m1 = 5.0 refused after exitInitializationMode"),
    ([], float("nan"), "fmi3SetFloat64", "F1 = nan is outside its allowed range"),
    (["-r", "-1"], F1, "fmi3EnterInitializationMode", "tolerance = -1.0 is outside its allowed range [0, inf)"),
    (["-t", "2", "-s", "1"], F1, "fmi3EnterInitializationMode", "stopTime = 1.0 is outside its allowed range"),
    # 2^28 + 0 (F1's value reference): what the slave takes for F1's derivative, refused by the binding
    (["-a", f"{2**28}=1"], F1, "fmi3SetFloat64", f"setFloat64: no variable has the value reference {2**28}"),
])
def test_c_host_gets_fmi3_error_from_the_failing_call(c_host, dupont, options, f1, call, message):
    proc = run_host(c_host, dupont, options, f1)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{call} returned status 3" in proc.stdout, proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("[status 3]")]
    assert any(message in line for line in errors), proc.stderr


def test_no_usable_python_is_a_null_instance_with_a_message(c_host, dupont):
    proc = run_host(c_host, dupont, env={"FRICTION_JOINTS_PYTHON": "/nonexistent/python3"})
    assert proc.returncode == 1 and "fmi3InstantiateCoSimulation failed" in proc.stdout
    assert "FRICTION_JOINTS_PYTHON=/nonexistent/python3 names no usable Python" in proc.stderr


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_c_host_error_path_under_valgrind(c_host, dupont):
    """The FMI 3.0 loader under valgrind: instantiation with logging off, the experiment passed on, a
    parameter set after initialisation (fmi3Error through the relay, the message passing the filter),
    the instance freed and the host's exit, with no invalid access. The Python engine runs the model
    (see test_fmu_loader.py). (About 40 s.)"""
    proc = run_host(c_host, dupont, ["-q", "-t", "1.0", "-r", "1e-6", "-a", "m1=5"],
                    env={"FRICTION_JOINTS_ENGINE": "python"}, wrapper=(shutil.which("valgrind"), "--error-limit=no"))
    assert proc.returncode == 1, proc.stdout + proc.stderr[-3000:]
    assert proc.stdout == "fmi3SetFloat64 returned status 3\n", proc.stdout + proc.stderr[-3000:]
    assert "[status 3][logStatusError] setFloat64: m1 = 5.0 refused" in proc.stderr, proc.stderr[-3000:]
    assert "ERROR SUMMARY" in proc.stderr, proc.stderr[-3000:]
    assert valgrind_errors(proc.stderr) == [], "\n\n".join(valgrind_errors(proc.stderr))
