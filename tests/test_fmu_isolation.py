"""Each FMU runs only its own bundled code (issue 13, item 2), checked in fresh processes."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import build_fmu

SCRIPT = Path(__file__).with_name("fmu_isolation.py")


def run(*args):
    proc = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def offset_build(build_once):
    """SliderCrank built from a copy of the sources whose E_kin output is offset by +1000 J (once per session)."""
    def build(tmp):
        package = tmp / "friction_joints"
        shutil.copytree(Path(build_fmu.HERE) / "friction_joints", package,
                        ignore=shutil.ignore_patterns("__pycache__"))
        crank = package / "fmi" / "crank.py"
        text = crank.read_text()
        assert text.count('"E_kin": rec["E_kin"]') == 1
        crank.write_text(text.replace('"E_kin": rec["E_kin"]', '"E_kin": rec["E_kin"] + 1000.0'))
        build_fmu.build(build_fmu.SOURCES / "SliderCrank.py", tmp / "dist", loader=True, package=package)
    return build_once("offset_build", build) / "dist" / "SliderCrank.fmu"


def test_bundles_are_named_by_their_sources(fmus, offset_build):
    def bundles(path):
        with zipfile.ZipFile(path) as z:
            return {n.split("/")[1] for n in z.namelist() if n.startswith("resources/friction_joints")}
    a, b = bundles(fmus["SliderCrank"]), bundles(offset_build)
    assert len(a) == len(b) == 1 and a != b, (a, b)


@pytest.mark.parametrize("first", ["A", "B"])
def test_two_builds_of_one_model_run_their_own_code_in_one_process(fmus, offset_build, first):
    run("two_builds", fmus["SliderCrank"], offset_build, first)


def test_a_broken_bundled_copy_fails_at_instantiation(fmus, offset_build, tmp_path):
    broken = tmp_path / "SliderCrank.fmu"
    with zipfile.ZipFile(offset_build) as src, zipfile.ZipFile(broken, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename.endswith("/stepping.py") and item.filename.startswith("resources/friction_joints"):
                data = b"raise ImportError('broken bundled copy')\n"
            dst.writestr(item, data)
    run("broken", fmus["SliderCrank"], broken)


def test_another_thread_keeps_the_project_package_while_an_fmu_loads_its_engine(fmus):
    """The bundle stands for friction_joints only for the thread that loads the engine's cache (a
    sweep's Dask worker pickles results on another thread meanwhile)."""
    run("threads", fmus["SliderCrank"])


def test_a_later_instance_imports_the_bundled_modules_after_the_first_folder_was_deleted(fmus):
    """The first instance (bristle friction) leaves the compiled engine unimported and its folder is
    deleted; the second, from its own folder, imports the engine from there."""
    run("deleted_folder", fmus["SliderCrank"])


BUILD_AFTER_A_RUN = """
import sys
from fmpy import simulate_fmu
simulate_fmu(sys.argv[1], stop_time=0.01)  # puts the FMU's copy of pythonfmu first on sys.path
import build_fmu
build_fmu.main(["--only", "SliderCrank", "--no-loader", "--fmi", "2", "--out", sys.argv[2]])
"""


def test_a_build_after_an_fmu_ran_in_the_process_fails_clearly_instead_of_losing_the_binaries(fmus, tmp_path):
    """pythonfmu's builder copies the binaries from beside its module; imported after an FMU ran in the
    process, it is the FMU's copy, which has none: the build fails with a message saying so instead of
    writing an FMU that no host can run (build_fmu imports the builder when it is imported itself)."""
    proc = subprocess.run([sys.executable, "-c", BUILD_AFTER_A_RUN, str(fmus["SliderCrank"]), str(tmp_path)],
                          capture_output=True, text=True, timeout=600, cwd=Path(build_fmu.HERE))
    assert proc.returncode != 0 and "has no binaries: it is the copy inside an FMU" in proc.stderr, proc.stderr
    assert not list(tmp_path.glob("*.fmu"))


def test_a_build_in_the_process_leaves_an_fmu_that_ran_there_its_modules(fmus3, tmp_path):
    """A build imports the bundle and slave modules of a same-source FMU that ran in the process under their
    names: it leaves them as they were (forgetting them made the FMI 3.0 entry module's slave class and the
    modules imported afresh two copies of the package, and LuGre ran on the Python engine: its planar
    packer knew none of the other copy's joints)."""
    run("build_between", fmus3["SliderCrank"], tmp_path)
