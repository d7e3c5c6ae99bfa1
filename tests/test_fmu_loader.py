"""The Python loader in front of pythonfmu's Linux binary (friction_joints/fmi/loader_*.c, installed by
friction_joints.fmi.loader.install_loader): a host without Python runs the FMU in an empty
environment (no LD_PRELOAD, no PYTHONPATH), the interpreter can be overridden, a missing one is
reported through the host's logger, and FMPy (a host with its own Python) still runs the FMU."""

import ast
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu
from fmpy.validation import validate_fmu

import fmpy

import friction_joints.fmi.loader as loader_module
from friction_joints.fmi.loader import ORIGINAL_SUFFIX, OVERRIDE_VARIABLE, RECORD_SUFFIX, install_loader
from valgrind import valgrind_errors

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("gcc") is None,
                                reason="the loader is built for Linux, with gcc")

HOST_SOURCE = Path(__file__).with_name("c_host") / "fmi2_host.c"
HEADERS = Path(fmpy.__file__).parent / "c-code"
NAMES = ["q[1]", "u", "f[1]", "W_drive", "W_friction"]  # outputs compared with FMPy
TAU, STEP, N_STEPS = 3.0, 0.05, 6

# Several threads load an FMU binary each (the same file or copies in other folders), instantiate it
# at the same moment and step it: the loader's one-time initialisation from concurrent first calls,
# a second loader in a process whose Python the first one started, and the GIL released for all.
THREADED_HOST = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "fmi2Functions.h"

static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
    (void)env;
    fprintf(stderr, "[%s][status %d][%s] %s\n", instance, (int)status, category, message);
}

typedef struct { const char *binary, *resources, *guid; fmi2ValueReference tau, out; fmi2Real value; int ok; } Job;
static pthread_barrier_t barrier;

#define CALL(type, name, args) do { type *f_ = (type *)dlsym(lib, name); \
    if (!f_ || f_ args != fmi2OK) { fprintf(stderr, "%s failed\n", name); return NULL; } } while (0)

static void *run(void *arg)
{
    Job *job = arg;
    fmi2Real tau = 3.0;
    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    pthread_barrier_wait(&barrier);
    void *lib = dlopen(job->binary, RTLD_NOW | RTLD_LOCAL);
    if (!lib) { fprintf(stderr, "dlopen failed: %s\n", dlerror()); return NULL; }
    fmi2InstantiateTYPE *instantiate = (fmi2InstantiateTYPE *)dlsym(lib, "fmi2Instantiate");
    fmi2Component c = instantiate("thread", fmi2CoSimulation, job->guid, job->resources, &callbacks,
                                  fmi2False, fmi2False);
    if (!c) { fprintf(stderr, "fmi2Instantiate failed\n"); return NULL; }
    CALL(fmi2SetupExperimentTYPE, "fmi2SetupExperiment", (c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
    CALL(fmi2EnterInitializationModeTYPE, "fmi2EnterInitializationMode", (c));
    CALL(fmi2ExitInitializationModeTYPE, "fmi2ExitInitializationMode", (c));
    for (int k = 0; k < 6; k++) {
        CALL(fmi2SetRealTYPE, "fmi2SetReal", (c, &job->tau, 1, &tau));
        CALL(fmi2DoStepTYPE, "fmi2DoStep", (c, k * 0.05, 0.05, fmi2True));
    }
    CALL(fmi2GetRealTYPE, "fmi2GetReal", (c, &job->out, 1, &job->value));
    CALL(fmi2TerminateTYPE, "fmi2Terminate", (c));
    ((fmi2FreeInstanceTYPE *)dlsym(lib, "fmi2FreeInstance"))(c);
    job->ok = 1;
    return NULL;
}

int main(int argc, char **argv)  /* GUID TAU_VR OUT_VR (BINARY RESOURCE_URI)... */
{
    int n = (argc - 4) / 2, ok = 1;
    Job *jobs = calloc((size_t)n, sizeof *jobs);
    pthread_t *threads = calloc((size_t)n, sizeof *threads);
    pthread_barrier_init(&barrier, NULL, (unsigned)n);
    for (int i = 0; i < n; i++) {
        jobs[i] = (Job){argv[4 + 2 * i], argv[5 + 2 * i], argv[1], (fmi2ValueReference)atoi(argv[2]),
                        (fmi2ValueReference)atoi(argv[3]), 0.0, 0};
        pthread_create(&threads[i], NULL, run, &jobs[i]);
    }
    for (int i = 0; i < n; i++) {
        pthread_join(threads[i], NULL);
        printf("%.17g\n", jobs[i].value);
        ok = ok && jobs[i].ok;
    }
    return ok ? 0 : 1;
}
"""


@pytest.fixture(scope="module")
def built(slider_crank_without_loader):
    """The SliderCrank FMU as build_fmu.py makes it (pythonfmu's binary, no loader)."""
    return slider_crank_without_loader


@pytest.fixture(scope="module")
def loader_fmu(built, tmp_path_factory):
    path = tmp_path_factory.mktemp("with_loader") / built.name
    shutil.copy(built, path)
    install_loader(path)
    return path


@pytest.fixture(scope="module")
def reference(built):
    """FMPy's run of the FMU without the loader: rows (t, outputs...) after every step."""
    res = simulate_fmu(str(built), stop_time=STEP * N_STEPS, output_interval=STEP,
                       start_values={"tau": TAU}, output=NAMES)
    return np.column_stack([res["time"][1:]] + [res[n][1:] for n in NAMES])


def _compile(source: Path, exe: Path, *libs):
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", f"-I{HEADERS}", "-o", str(exe), str(source), "-ldl", *libs],
                   check=True, capture_output=True, text=True)
    return exe


@pytest.fixture(scope="module")
def c_host(tmp_path_factory):
    return _compile(HOST_SOURCE, tmp_path_factory.mktemp("c_host") / "fmi2_host")


@pytest.fixture(scope="module")
def unpacked(loader_fmu, tmp_path_factory):
    """(folder, modelDescription) of the loader-equipped FMU extracted once."""
    folder = tmp_path_factory.mktemp("unpacked")
    with zipfile.ZipFile(loader_fmu) as z:
        z.extractall(folder)
    return folder, read_model_description(str(loader_fmu))


def run_host(c_host, unpacked, env=(), wrapper=(), binaries=None, names=NAMES, options=(), tau=TAU, step=STEP):
    """The C host on the unpacked FMU (tau = 3 N.m held, 6 steps of 50 ms) under `env -i`: only the
    variables in env are set. binaries: another folder holding the FMU's binaries/linux64 files;
    options: the host's options (see fmi2_host.c), with variable names for value references."""
    folder, md = unpacked
    vr = {v.name: v.valueReference for v in md.modelVariables}
    options = [option.format(**{f"vr_{name}": ref for name, ref in vr.items() if name.isidentifier()})
               for option in options]
    binary = (binaries or folder / "binaries" / "linux64") / f"{md.coSimulation.modelIdentifier}.so"
    return subprocess.run(["env", "-i", *(f"{k}={v}" for k, v in dict(env).items()), *wrapper, str(c_host), *options,
                           str(binary), (folder / "resources").as_uri(), md.guid, str(vr["tau"]), str(tau), str(step),
                           str(N_STEPS), *(str(vr[n]) for n in names)],
                          capture_output=True, text=True, timeout=900)


def binaries_with_record(unpacked, tmp_path, **changes):
    """A copy of the FMU's binaries/linux64 files in tmp_path whose interpreter record has the given
    keys replaced (the FMU's resources stay where they are)."""
    folder, md = unpacked
    target = tmp_path / "linux64"
    shutil.copytree(folder / "binaries" / "linux64", target)
    record = target / (md.coSimulation.modelIdentifier + RECORD_SUFFIX)
    lines = [f"{line.split('=', 1)[0]}={changes[line.split('=', 1)[0]]}" if line.split("=", 1)[0] in changes else line
             for line in record.read_text().splitlines()]
    record.write_text("\n".join(lines) + "\n")
    return target


GONE = dict(executable="/nonexistent/venv/bin/python", libpython="/nonexistent/lib/libpython3.11.so.1.0")


def assert_like_fmpy(proc, reference):
    assert proc.returncode == 0, proc.stdout + proc.stderr
    host = np.loadtxt(proc.stdout.splitlines(), ndmin=2)
    assert host.shape == reference.shape, proc.stdout
    np.testing.assert_allclose(host[:, 0], reference[:, 0], rtol=1e-12)
    np.testing.assert_allclose(host[:, 1:], reference[:, 1:], rtol=1e-10, atol=1e-12)


def test_install_puts_the_loader_before_the_unchanged_pythonfmu_binary(built, loader_fmu, tmp_path):
    md = read_model_description(str(built))
    folder = f"binaries/linux64/{md.coSimulation.modelIdentifier}"
    with zipfile.ZipFile(built) as a, zipfile.ZipFile(loader_fmu) as b:
        pythonfmu_binary = a.read(folder + ".so")
        assert b.read(folder + ORIGINAL_SUFFIX) == pythonfmu_binary
        assert b.read(folder + ".so") != pythonfmu_binary
        record = dict(line.split("=", 1) for line in b.read(folder + RECORD_SUFFIX).decode().splitlines()
                      if "=" in line and not line.startswith("#"))
        untouched = {i.filename for i in a.infolist()}
        assert untouched - {folder + ".so"} <= set(b.namelist())
    assert record["executable"] == sys.executable and record["shared"] == "1"
    assert record["version"] == "%d.%d" % sys.version_info[:2] and Path(record["libpython"]).is_file()
    assert validate_fmu(str(loader_fmu)) == []
    again = tmp_path / loader_fmu.name  # installing twice keeps pythonfmu's binary, not the first loader
    shutil.copy(loader_fmu, again)
    install_loader(again)
    with zipfile.ZipFile(again) as z:
        assert z.read(folder + ORIGINAL_SUFFIX) == pythonfmu_binary
        assert sorted(z.namelist()) == sorted(zipfile.ZipFile(loader_fmu).namelist())


def test_loader_c_asks_the_query_that_loader_py_records():
    """loader_python.c asks python3 from PATH or the override the question whose answer loader.py records."""
    source = (Path(loader_module.__file__).parent / "loader_python.c").read_text()
    literal = source.split("static const char QUERY[] =", 1)[1].split(";\n", 1)[0]
    assert ast.literal_eval("(" + literal + ")") == loader_module.QUERY


def test_install_refuses_clearly(built, tmp_path, monkeypatch):
    """No C compiler, or a Python without a shared libpython: RuntimeError, the FMU untouched."""
    fmu = tmp_path / built.name
    shutil.copy(built, fmu)
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match="no C compiler"):
        install_loader(fmu)
    static = tmp_path / "python3"  # answers like a Python built without --enable-shared
    static.write_text("#!/bin/sh\necho executable=$0; echo version=3.11; echo libpython=libpython3.11.a; "
                      "echo shared=0\n")
    static.chmod(0o755)
    with pytest.raises(RuntimeError, match="without a shared libpython"):
        install_loader(fmu, python=str(static))
    assert fmu.read_bytes() == built.read_bytes()


def test_c_host_runs_the_fmu_in_an_empty_environment(c_host, unpacked, reference):
    """No LD_PRELOAD, no PYTHONPATH, no variable at all: the loader finds the recorded interpreter.
    Outputs as FMPy's, and a clean exit every time."""
    for run in range(5):
        proc = run_host(c_host, unpacked)
        assert_like_fmpy(proc, reference)
        assert "[status 3]" not in proc.stderr and "python3 from PATH" not in proc.stderr, f"run {run}: {proc.stderr}"


def test_host_that_preloads_libpython_gets_it_initialised_as_the_recorded_interpreter(c_host, unpacked, reference):
    """The former workaround without its PYTHONPATH: the process has a libpython that nobody has
    initialised; the loader initialises that one (no second libpython) and numpy is found."""
    record = dict(line.split("=", 1) for line in (unpacked[0] / "binaries" / "linux64" / f"SliderCrank{RECORD_SUFFIX}")
                  .read_text().splitlines() if "=" in line and not line.startswith("#"))
    assert_like_fmpy(run_host(c_host, unpacked, env={"LD_PRELOAD": record["libpython"]}), reference)


def test_threads_and_two_loaders_in_one_process(unpacked, tmp_path):
    folder, md = unpacked
    source = tmp_path / "fmi2_threads.c"
    source.write_text(THREADED_HOST)
    exe = _compile(source, tmp_path / "fmi2_threads", "-lpthread")
    copy = tmp_path / "copy"  # a second, separately loaded loader (and pythonfmu binary) in the same process
    shutil.copytree(folder / "binaries", copy / "binaries")
    vr = {v.name: v.valueReference for v in md.modelVariables}
    jobs = []
    for binaries in (folder, folder, copy, copy):
        jobs += [str(binaries / "binaries" / "linux64" / "SliderCrank.so"), (folder / "resources").as_uri()]
    proc = subprocess.run(["env", "-i", str(exe), md.guid, str(vr["tau"]), str(vr["u"]), *jobs],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    values = [float(x) for x in proc.stdout.split()]
    assert len(values) == 4 and len(set(values)) == 1 and values[0] > 0, values


UNCOMPILED = {"FRICTION_JOINTS_ENGINE": "python"}  # no engine to load: these runs fail before any step

# (host options, tau, step, the call that fails, its logged message): a host without Python, with
# debug logging off (-q); "{vr_x}" is the value reference of x
C_HOST_FAILURES = [
    (["-p", "{vr_rtol}=0.5"], TAU, STEP, "fmi2SetReal",
     "setReal: rtol = 0.5 is outside its allowed range [1e-14, 0.01]"),
    (["-p", "{vr_a1}=0"], TAU, STEP, "fmi2ExitInitializationMode",
     "exitInitializationMode: initialization failed: a1=0.0 is outside the allowed range (0, inf)"),
    ([], "nan", STEP, "fmi2SetReal", "setReal: tau = nan is outside its allowed range (-inf, inf)"),
    (["-a", "{vr_m1}=2"], TAU, STEP, "fmi2SetReal", "setReal: m1 = 2.0 refused after exitInitializationMode: m1 is a "
     "parameter (variability fixed, allowed range [0.0, inf)), settable only before; it stays 2.5"),
    (["-s", "-1"], TAU, STEP, "fmi2SetupExperiment",
     "setupExperiment: stopTime = -1.0 is outside its allowed range [0.0, inf): it is before startTime = 0.0"),
    ([], TAU, 0.0, "fmi2DoStep", "doStep at t=0.0: communicationStepSize = 0.0 is outside its allowed range (0, inf)"),
    # 2^28 + 0 (tau's value reference): how the loader tags tau's derivative; a host's is refused, not read as one
    (["-a", f"{2**28}=1"], TAU, STEP, "fmi2SetReal", f"setReal: no variable has the value reference {2**28}"),
]


@pytest.mark.parametrize("options, tau, step, function, message", C_HOST_FAILURES,
                         ids=["parameter range", "parameters at exit", "NaN input", "parameter after init",
                              "stop before start", "zero step", "reserved reference"])
def test_c_host_gets_fmi2_error_from_the_failing_call(c_host, unpacked, options, tau, step, function, message):
    """The C host in an empty environment with debug logging off: the failing call returns
    fmi2Error (3) and its message reaches the host's logger all the same (no other message does,
    such as the Python engine's warning); the host frees the instance and exits normally."""
    proc = run_host(c_host, unpacked, options=["-q", *options], tau=tau, step=step, env=UNCOMPILED)
    assert proc.returncode == 1 and proc.stdout == f"{function} returned status 3\n", proc.stdout + proc.stderr
    logged = [line for line in proc.stderr.splitlines() if line.startswith("[c_host]")]
    assert logged == [f"[c_host][status 3][logStatusError] {message}"], proc.stderr


def test_without_the_loader_failures_are_discards(built, run_isolated):
    """An FMU built with --no-loader keeps pythonfmu's statuses, as fmi.slave's docstring says: the
    failing call returns fmi2OK with its message logged, every later doStep fmi2Discard."""
    run_isolated("errors_without_loader", built)


def test_override_picks_the_python(c_host, unpacked, reference, tmp_path):
    """FRICTION_JOINTS_PYTHON replaces a recorded interpreter that is gone, and when it names no
    usable Python that is an error, even though the recorded one would do."""
    gone = binaries_with_record(unpacked, tmp_path, **GONE)
    proc = run_host(c_host, unpacked, env={OVERRIDE_VARIABLE: sys.executable, "PATH": "/nonexistent"}, binaries=gone)
    assert_like_fmpy(proc, reference)
    assert "python3 from PATH" not in proc.stderr, proc.stderr

    proc = run_host(c_host, unpacked, env={OVERRIDE_VARIABLE: "/nonexistent/python3"})
    assert proc.returncode == 1 and "fmi2Instantiate failed" in proc.stdout, proc.stdout + proc.stderr
    assert f"{OVERRIDE_VARIABLE}=/nonexistent/python3 names no usable Python" in proc.stderr, proc.stderr


def test_missing_interpreter_is_reported_through_the_logger(c_host, unpacked, tmp_path):
    """The recorded interpreter is gone and there is no python3 on PATH: fmi2Instantiate returns NULL
    after an error message that names what is missing and the override; the host exits normally."""
    gone = binaries_with_record(unpacked, tmp_path, **GONE)
    proc = run_host(c_host, unpacked, env={"PATH": "/nonexistent"}, binaries=gone)
    assert proc.returncode == 1 and proc.stdout.strip() == "fmi2Instantiate failed", proc.stdout + proc.stderr
    message = proc.stderr.strip()
    assert message.startswith("[c_host][status 3][logStatusError] no Python to run this FMU"), message
    for part in (GONE["executable"], "no python3 on PATH (/nonexistent)", OVERRIDE_VARIABLE):
        assert part in message, message


def test_missing_interpreter_falls_back_to_python3_on_path(c_host, unpacked, reference, tmp_path):
    gone = binaries_with_record(unpacked, tmp_path, **GONE)
    bin_dir = str(Path(sys.executable).parent)  # this environment's python3 (with numpy and scipy)
    proc = run_host(c_host, unpacked, env={"PATH": bin_dir}, binaries=gone)
    assert_like_fmpy(proc, reference)
    assert "[status 1][logStatusWarning]" in proc.stderr and f"python3 from PATH, {bin_dir}/python3" in proc.stderr, \
        proc.stderr


def test_python_without_shared_libpython_is_named_as_such(c_host, unpacked, tmp_path):
    """A Python built without --enable-shared cannot be embedded. (A stand-in answers the loader's
    query the way such a Python does: shared=0.)"""
    static = tmp_path / "python3"
    static.write_text('#!/bin/sh\necho "executable=$0"; echo version=3.11; echo libpython=libpython3.11.a; '
                      'echo shared=0\n')
    static.chmod(0o755)
    proc = run_host(c_host, unpacked, env={OVERRIDE_VARIABLE: static})
    assert proc.returncode == 1 and "fmi2Instantiate failed" in proc.stdout, proc.stdout + proc.stderr
    assert "without a shared libpython" in proc.stderr and "cannot be embedded" in proc.stderr, proc.stderr


def test_fmpy_runs_the_fmu_with_its_own_python(loader_fmu, reference, run_isolated):
    """A Python host: the loader finds Python initialised and forwards to pythonfmu's binary (a
    second initialisation from a ctypes call, which holds no GIL, would abort the process).
    Low-level checks in fresh processes cover FMPy's unloading of the library at every
    freeInstance and loading it again."""
    res = simulate_fmu(str(loader_fmu), stop_time=STEP * N_STEPS, output_interval=STEP, start_values={"tau": TAU},
                       output=NAMES)
    np.testing.assert_array_equal(np.column_stack([res["time"][1:]] + [res[n][1:] for n in NAMES]), reference)
    for check in ("state_round_trip", "nan_input"):
        assert "pass" in run_isolated(check, loader_fmu).stdout
    script = ("import sys, tempfile\nfrom fmu_low_level import open_fmu, close, _drive\n"
              "values = []\nwith tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:\n"
              "    for tmp, extract in ((a, True), (a, False), (b, True)):\n"
              "        fmu, vr = open_fmu(sys.argv[1], tmp, 'again', extract)\n"
              "        _drive(fmu, vr, {'tau': 3.0})\n"
              "        values.append(fmu.getReal([vr['u']]))\n"
              "        close(fmu)\n"
              "assert values[0] == values[1] == values[2] and values[0][0] > 0, values\nprint('pass')\n")
    proc = subprocess.run([sys.executable, "-c", script, str(loader_fmu)], capture_output=True, text=True,
                          timeout=600, cwd=Path(__file__).parent)
    assert proc.returncode == 0 and "pass" in proc.stdout, proc.stdout + proc.stderr


def is_exit_guard(name: str) -> bool:
    """Whether an FMU member is the exit guard of its bundled package (resources/friction_joints_<hash>/)."""
    return name.startswith("resources/friction_joints") and name.endswith("/fmi/exit_guard.py")


def inert_exit_guard(fmu: Path, target: Path) -> Path:
    """A copy of fmu whose friction_joints.fmi.exit_guard does nothing."""
    inert = b"\n\ndef guard_library_exit(resources, model_identifier):\n    return False\n\n\n" \
            b"def pin_scipy_uarray():\n    return False\n"
    with zipfile.ZipFile(fmu) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item)
            dst.writestr(item, data + inert if is_exit_guard(item.filename) else data)
    return target


def test_exit_guard_is_not_needed_with_the_loader(c_host, loader_fmu, reference, tmp_path):
    """Without the loader an inert fmi.exit_guard makes about one C-host exit in three crash; with it
    the loader never finalises Python and releases pythonfmu's static state before its destructors."""
    fmu = inert_exit_guard(loader_fmu, tmp_path / loader_fmu.name)
    folder = tmp_path / "unpacked"
    with zipfile.ZipFile(fmu) as z:
        z.extractall(folder)
    for run in range(10):
        assert_like_fmpy(run_host(c_host, (folder, read_model_description(str(fmu)))), reference)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
@pytest.mark.parametrize("guard", ["exit guard", "inert exit guard"])
def test_c_host_under_valgrind(c_host, loader_fmu, tmp_path, guard):
    """No invalid access in the FMU's binaries or Python, up to and through the host's exit, with or
    without fmi.exit_guard (without the SciPy _uarray pin of fmi.exit_guard, valgrind shows an invalid
    read in Py_FinalizeEx, and the host crashes now and then). The C engine runs the model, so its
    kernels and integrator run under valgrind too. (About 40 s.)"""
    fmu = loader_fmu if guard == "exit guard" else inert_exit_guard(loader_fmu, tmp_path / loader_fmu.name)
    folder = tmp_path / "unpacked"
    with zipfile.ZipFile(fmu) as z:
        z.extractall(folder)
    proc = run_host(c_host, (folder, read_model_description(str(fmu))),
                    wrapper=(shutil.which("valgrind"), "--error-limit=no"), names=["u"])
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == N_STEPS, proc.stdout + proc.stderr[-3000:]
    assert "ERROR SUMMARY" in proc.stderr, proc.stderr[-3000:]
    assert valgrind_errors(proc.stderr) == [], "\n\n".join(valgrind_errors(proc.stderr))


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_c_host_error_path_under_valgrind(c_host, unpacked):
    """A parameter set after initialisation: fmi2Error through the loader's logger relay, then the
    host frees the instance and exits, with no invalid access. (About 30 s.)"""
    proc = run_host(c_host, unpacked, env=UNCOMPILED, wrapper=(shutil.which("valgrind"), "--error-limit=no"),
                    names=["u"], options=["-q", "-a", "{vr_m1}=2"])
    assert proc.returncode == 1 and proc.stdout == "fmi2SetReal returned status 3\n", proc.stdout + proc.stderr[-3000:]
    assert "[c_host][status 3][logStatusError] setReal: m1 = 2.0 refused" in proc.stderr, proc.stderr[-3000:]
    assert "ERROR SUMMARY" in proc.stderr, proc.stderr[-3000:]
    assert valgrind_errors(proc.stderr) == [], "\n\n".join(valgrind_errors(proc.stderr))


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_fmpy_under_valgrind_without_exit_guard(loader_fmu, tmp_path, run_isolated):
    """FMPy's process exit with the loader and an inert fmi.exit_guard: no invalid access (without the
    loader, valgrind then reports one in pythonfmu's finalizePythonInterpreter)."""
    fmu = inert_exit_guard(loader_fmu, tmp_path / loader_fmu.name)
    proc = run_isolated("nan_input", fmu, wrapper=(shutil.which("valgrind"), "--error-limit=no"),
                        env=dict(os.environ, FRICTION_JOINTS_ENGINE="python"))
    assert "pass" in proc.stdout and "ERROR SUMMARY" in proc.stderr, proc.stdout + proc.stderr[-3000:]
    assert valgrind_errors(proc.stderr) == [], "\n\n".join(valgrind_errors(proc.stderr))
