"""Shared fixtures: the seed mechanisms, the built FMUs and a runner of low-level FMU checks."""

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import build_fmu

from friction_joints.mechanisms import dupont_two_mass, offset_slider_crank, slider_crank

# one OpenBLAS thread a process (pytest-xdist's workers and the tests' subprocesses start with it): the
# workers already take every core, and OpenBLAS's threads slow the small solves here down (the Python
# engine's Yoke run of test_decide_planar: 37 s with two threads, 12 s with one, on an idle machine)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

MECHANISMS = {
    "DupontTwoMass": dupont_two_mass,
    "OffsetSliderCrank": offset_slider_crank,
    "SliderCrank": slider_crank,
}


@pytest.hookimpl(tryfirst=True)  # before the orders asked for on the command line (--ff, --nf)
def pytest_collection_modifyitems(items):
    """The tests marked slow first (in their order), then the others: with pytest-xdist's --dist worksteal
    (make test) the workers start with the long tests and even out at the end with short ones, where a
    long test started last would keep one worker busy while the others wait."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(params=list(MECHANISMS))
def mechanism_factory(request):
    return MECHANISMS[request.param]


def session_folder(tmp_path_factory) -> Path:
    """The base folder of the test session, which its pytest-xdist workers share."""
    root = tmp_path_factory.getbasetemp()
    return root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root  # the workers' base folders are in it


def built_once(tmp_path_factory, name, build) -> Path:
    """The folder that build(folder) fills with FMUs, built once per test session: the pytest-xdist
    workers of a session share it (the first one builds under a file lock, the others wait for it and
    use the same files; each build starts from an empty folder, so a retry after a failed build fails
    alike, not on what the failed one left). Tests must not change it."""
    root = session_folder(tmp_path_factory)
    folder, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock, contextlib.ExitStack() as unlock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        unlock.callback(fcntl.flock, lock, fcntl.LOCK_UN)
        if not done.exists():
            if folder.exists():  # what a failed build left
                shutil.rmtree(folder)
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


def build_fmu_main(*args):
    """build(folder) for ``built_once``: ``build_fmu.py ARGS --out folder`` (SystemExit if FMPy's
    validation finds a problem)."""
    return lambda folder: build_fmu.main([*args, "--out", str(folder)])


@pytest.fixture(scope="session")
def build_once(tmp_path_factory):
    """build_once(name, build) -> folder: ``built_once`` for a test module's own FMUs."""
    return lambda name, build: built_once(tmp_path_factory, name, build)


@pytest.fixture(scope="session")
def fmus(tmp_path_factory):
    """{model identifier: path} of every FMI 2.0 FMU, built by build_fmu.py (which validates them)."""
    return {p.stem: p for p in built_once(tmp_path_factory, "dist", build_fmu_main()).glob("*.fmu")}


@pytest.fixture(scope="session")
def fmus3(tmp_path_factory):
    """{model identifier: path} of every FMI 3.0 FMU, built with the FMI 2.0 ones (dist/fmi3)."""
    return {p.stem: p for p in (built_once(tmp_path_factory, "dist", build_fmu_main()) / "fmi3").glob("*.fmu")}


@pytest.fixture(scope="session")
def native_folder(tmp_path_factory, fmus):
    """The folder of build_fmu.py --native for every model of fmu_src (native/, native/fmi3/) with their
    pythonfmu twins as shipped (twins/, twins/fmi3/: the session's build of build_fmu.py, ``fmus``), built
    once per session. A shipped model that the native build does not cover fails it (NotNative, saying why):
    every test of the native FMUs fails then, none is skipped."""
    dist = next(iter(fmus.values())).parent

    def build(folder):
        (folder / "twins").symlink_to(dist, target_is_directory=True)
        for script in build_fmu.shipped_scripts():
            build_fmu.native_of_twins(build_fmu.slave_class(script), [dist / f"{script.stem}.fmu",
                                                                      dist / "fmi3" / f"{script.stem}.fmu"],
                                      folder, f"fmu_src/{script.name}")
    return built_once(tmp_path_factory, "native_fmus", build)


@pytest.fixture(scope="session")
def mechanism_fmu(tmp_path_factory):
    """mechanism_fmu(path) -> the FMI 2.0 FMU of the mechanism file at path with its loader
    (build_fmu.build_mechanism, as build_fmu.py --mechanism makes it), built once per session."""
    def fmu(path):
        folder = built_once(tmp_path_factory, f"mechanism_{Path(path).stem}",
                            lambda folder: build_fmu.build_mechanism(Path(path), folder))
        return next(folder.glob("*.fmu"))
    return fmu


@pytest.fixture(scope="session")
def slider_crank_without_loader(tmp_path_factory):
    """The SliderCrank FMU as pythonfmu makes it (build_fmu.py --no-loader): pythonfmu's own binary."""
    folder = built_once(tmp_path_factory, "no_loader", build_fmu_main("--only", "SliderCrank", "--no-loader",
                                                                       "--fmi", "2"))
    return folder / "SliderCrank.fmu"


@pytest.fixture(scope="session")
def win64(tmp_path_factory):
    """({FMI version: the plain C host cross-compiled with mingw-w64}, the environment of its runs under wine64),
    made once per session and shared by the workers: the hosts and the WINEPREFIX (wineboot makes it). Skips
    without wine64 or mingw-w64."""
    from test_native_fmus import INSTALL_WINE, MINGW, WINE, compile_host

    if WINE is None or MINGW is None:
        pytest.skip(INSTALL_WINE)

    def env(folder):
        return {"WINEDEBUG": "-all", "WINEPREFIX": str(folder / "wineprefix"), "HOME": str(folder),
                "PATH": os.environ.get("PATH", "")}

    def build(folder):
        for v in (2, 3):
            compile_host(v, folder / f"fmi{v}_host.exe", (MINGW,), ("-D__USE_MINGW_ANSI_STDIO=1",))
        subprocess.run([WINE, "wineboot", "--init"], env=env(folder), check=True, capture_output=True, timeout=600)
    folder = built_once(tmp_path_factory, "win64", build)
    return {v: folder / f"fmi{v}_host.exe" for v in (2, 3)}, env(folder)


@pytest.fixture(scope="session")
def frictionless_reference(tmp_path_factory):
    """reference(h) -> the monolithic run (friction_joints.vehicle.monolithic.run_monolithic) of the
    steering system and the vehicle without friction, under the study torque held over steps of h (s), to
    the study's end: computed once per session (``built_once``) for the co-simulations compared with it."""
    import numpy as np

    from friction_joints.fmi.steering_vehicle import STUDY_T_END, study_torque
    from friction_joints.vehicle.monolithic import run_monolithic

    def reference(h):
        def build(folder):
            np.save(folder / "run.npy", run_monolithic(study_torque(), STUDY_T_END, h, steering={"friction_scale": 0.0}))
        return np.load(built_once(tmp_path_factory, f"frictionless_reference_{h}", build) / "run.npy")
    return reference


@pytest.fixture(scope="session")
def run_isolated():
    """run(check, *fmus, wrapper=(), python=(sys.executable,), env=None, script="fmu_low_level.py"): a
    check of the script (fmu_low_level.py or fmu_conformance.py) in its own process, through to the
    process exit (where the pythonfmu binary has a use-after-free, see friction_joints/fmi/exit_guard.py);
    asserts exit 0."""
    def run(check, *fmu_paths, wrapper=(), python=(sys.executable,), env=None, script="fmu_low_level.py"):
        proc = subprocess.run([*wrapper, *python, str(Path(__file__).with_name(script)), check,
                               *map(str, fmu_paths)], capture_output=True, text=True, timeout=600, env=env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc
    return run


@pytest.fixture(scope="session")
def dask_scheduler(tmp_path_factory):
    """The address of a Dask cluster on localhost that this fixture starts: `dask scheduler` and two
    `dask worker` processes (one thread each), in folders of their own; stopped at the end."""
    import json
    import time

    folder = tmp_path_factory.mktemp("dask")
    scheduler_file = folder / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    procs = [subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", str(scheduler_file)], cwd=folder,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        deadline, address = time.monotonic() + 60, None
        while address is None and time.monotonic() < deadline:  # the file appears before its text is written
            assert procs[0].poll() is None, "dask scheduler exited"
            try:
                address = json.loads(scheduler_file.read_text())["address"]
            except (FileNotFoundError, json.JSONDecodeError):
                time.sleep(0.2)
        assert address is not None, "dask scheduler wrote no address within 60 s"
        for i in range(2):
            work = folder / f"worker{i}"
            work.mkdir()
            procs.append(subprocess.Popen([*dask, "worker", address, "--nthreads", "1", "--no-dashboard",
                                           "--local-directory", str(work)], cwd=work,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        yield address
    finally:
        import psutil  # a dependency of dask.distributed

        children = [c for p in procs if p.poll() is None for c in psutil.Process(p.pid).children(recursive=True)]
        for proc in reversed(procs):  # the workers first (their nannies stop their worker processes)
            proc.terminate()
        for proc in reversed(procs):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        _, alive = psutil.wait_procs(children, timeout=30)
        for child in alive:
            child.kill()
        assert not alive, f"worker processes left running after their nannies stopped: {alive}"


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium (tests/headless_browser.py); the test is skipped where Chromium is not installed."""
    from headless_browser import Browser, chromium

    executable = chromium()
    if executable is None:
        pytest.skip("no Chromium to open the HTML report in (Debian: apt-get install chromium)")
    browser = Browser(executable)
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def object_cache(tmp_path_factory):
    """The folder of the session's compiled C objects (tests/native_build.py's ``cached_library``): the
    builds of the engine with the same flags, in any worker, compile each source once."""
    folder = session_folder(tmp_path_factory) / "objects"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def sanitized_engine(tmp_path_factory, object_cache):
    """The whole C engine built once per session with ``native_build.sanitizers()`` (the address and
    undefined-behaviour sanitizers where this toolchain runs them in Python) at -O0, which compiles in
    a quarter of -O2's time and checks the same; the workers share it. Skips where it cannot be built."""
    from native_build import sanitized_library, sanitizers

    folder = built_once(tmp_path_factory, "sanitized_engine",
                        lambda folder: sanitized_library(folder, (*sanitizers(), "-O0"), objects=object_cache))
    return folder / "engine.so"
