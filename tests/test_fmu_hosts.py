"""Where the FMUs run: a plain C host, a Python without friction_joints, several FMUs and
re-instantiation in one process, and a clean host exit."""

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu

import fmpy

HOST_SOURCE = Path(__file__).with_name("c_host") / "fmi2_host.c"
SITE_PACKAGES = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})


def libpython():
    """Path of the shared libpython of this interpreter, or None (a static build)."""
    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        return None
    path = Path(sysconfig.get_config_var("LIBDIR")) / sysconfig.get_config_var("INSTSONAME")
    return path if path.exists() else None


def c_host_environment():
    """What a plain C host gives an FMU: nothing (an empty environment); the FMUs' loader finds the
    Python they were built with (friction_joints.fmi.loader)."""
    return {}


@pytest.fixture(scope="module")
def c_host(tmp_path_factory):
    if shutil.which("gcc") is None or libpython() is None:
        pytest.skip("needs gcc and a shared libpython")
    exe = tmp_path_factory.mktemp("c_host") / "fmi2_host"
    headers = Path(fmpy.__file__).parent / "c-code"
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", f"-I{headers}", "-o", str(exe), str(HOST_SOURCE), "-ldl"],
                   check=True, capture_output=True, text=True)
    return exe


def run_c_host(c_host, fmu, folder, names, wrapper=(), env=None):
    """Run the C host on the SliderCrank-like FMU with tau = 3 N.m held, 6 steps of 50 ms; env: more
    environment variables."""
    md = read_model_description(str(fmu))
    with zipfile.ZipFile(fmu) as z:
        z.extractall(folder)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    binary = folder / "binaries" / "linux64" / f"{md.coSimulation.modelIdentifier}.so"
    wrapper = [shutil.which(wrapper[0]), *wrapper[1:]] if wrapper else []
    return subprocess.run([*wrapper, str(c_host), str(binary), (folder / "resources").as_uri(), md.guid,
                           str(vr["tau"]), "3.0", "0.05", "6", *(str(vr[n]) for n in names)],
                          capture_output=True, text=True, timeout=900, env={**c_host_environment(), **(env or {})})


def test_c_host_runs_the_slider_crank_like_fmpy(fmus, c_host, tmp_path):
    """The C host (dlopen, no Python in it, an empty environment) and FMPy step the same FMU as
    build_fmu.py makes it (with its loader) with the same held torque: identical outputs at every
    communication point, and a clean exit every time."""
    path = fmus["SliderCrank"]
    names = ["q[1]", "u", "f[1]", "W_drive", "W_friction"]
    for run in range(4):
        proc = run_c_host(c_host, path, tmp_path / f"run{run}", names)
        assert proc.returncode == 0, f"run {run}: " + proc.stdout + proc.stderr
    host = np.loadtxt(proc.stdout.splitlines())
    ref = simulate_fmu(str(path), stop_time=0.3, output_interval=0.05, start_values={"tau": 3.0}, output=names)
    assert host.shape == (6, 1 + len(names))
    np.testing.assert_allclose(host[:, 0], ref["time"][1:], rtol=1e-12)
    for i, n in enumerate(names):
        np.testing.assert_allclose(host[:, 1 + i], ref[n][1:], rtol=1e-10, atol=1e-12, err_msg=n)
    assert host[-1, 2] > 0


def test_runs_in_a_python_without_friction_joints(fmus, run_isolated):
    """python -S with only the site-packages on the path: the project's own installation (an
    editable .pth entry) is invisible, so the FMU must use the package in its resources."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(SITE_PACKAGES))
    run_isolated("standalone", fmus["SliderCrank"], python=(sys.executable, "-S"), env=env)


def test_two_fmus_in_one_process_and_reinstantiation(fmus, run_isolated):
    run_isolated("two_models", fmus["SliderCrank"], fmus["DupontTwoMass"])


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_host_exit_has_no_invalid_access_in_the_fmu_binary(fmus, run_isolated):
    """Without the exit guard, valgrind reports an invalid read in the binary's
    finalizePythonInterpreter at every host exit (and the host aborts now and then). The compiled engine
    runs the model: the Python engine would import SciPy, which takes most of the time under valgrind
    (SciPy at the exit: test_fmu_loader.py's valgrind runs of the Python engine)."""
    proc = run_isolated("nan_input", fmus["SliderCrank"], wrapper=("valgrind", "--error-limit=no"))
    assert "pass" in proc.stdout and "compiled engine (C)" in proc.stdout, proc.stdout
    assert "finalizePythonInterpreter" not in proc.stderr, proc.stderr[-3000:]
