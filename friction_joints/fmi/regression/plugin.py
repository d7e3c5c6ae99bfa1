"""The pytest plugin (entry point pytest11): ``pytest --fmu-refs REFDIR [--fmus FOLDER]`` collects a test
item per reference case in REFDIR (<Case>_ref.opt), run against the FMU in FOLDER (default REFDIR) whose
model identifier the case names. An item fails with the report of the command line, is an error where
the check cannot run (a malformed reference, no such FMU), and runs on pytest-xdist's workers like any test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

OPT = "_ref.opt"
FMUS = pytest.StashKey[dict]()  # {model identifier: [FMU files]} of the session's FMU folder


def pytest_addoption(parser):
    group = parser.getgroup("fmu-regression", "FMU regression cases (friction_joints.fmi.regression)")
    group.addoption("--fmu-refs", metavar="DIR", type=Path,
                    help="collect a test per reference case <Case>_ref.opt in DIR")
    group.addoption("--fmus", metavar="DIR", type=Path, help="folder of the FMUs of the cases (default: --fmu-refs)")
    group.addoption("--fmu-tube-rtol", type=float, default=1e-3, metavar="R",
                    help="tube width relative to each signal's range (default 1e-3)")
    group.addoption("--fmu-tube-ttol", type=float, default=None, metavar="T",
                    help="time tolerance of the tube in s (default: the StepSize of the case)")
    group.addoption("--fmu-record", action="store_true", help="record each case's reference instead of checking it")


def pytest_configure(config):
    refs = config.getoption("fmu_refs")
    if refs is None:
        return
    for option, folder in (("--fmu-refs", refs), ("--fmus", config.getoption("fmus"))):
        if folder is not None and not folder.is_dir():
            raise pytest.UsageError(f"{option} {folder}: no such folder")
    if not config.getoption("fmu_tube_rtol") >= 0 or not (config.getoption("fmu_tube_ttol") or 0) >= 0:
        raise pytest.UsageError("--fmu-tube-rtol and --fmu-tube-ttol must be >= 0")
    refs = refs.resolve()
    if not any(refs.is_relative_to(Path(arg.split("::")[0]).resolve()) for arg in config.args):
        config.args.append(str(refs))  # collected also where the arguments do not reach it


def pytest_collect_file(file_path: Path, parent):
    refs = parent.config.getoption("fmu_refs")
    if refs is not None and file_path.name.endswith(OPT) and file_path.parent == refs.resolve():
        return CaseFile.from_parent(parent, path=file_path)
    return None


class CaseFile(pytest.File):
    """A <Case>_ref.opt: one item, the case."""

    def collect(self):
        yield FMUCase.from_parent(self, name=self.path.name[:-len(OPT)])


def fmus_by_model(folder: Path) -> dict[str, list[Path]]:
    """{model identifier: [FMU files]} of the readable FMUs in folder."""
    from .run import UnsupportedFMU, model_description

    found = {}
    for fmu in sorted(folder.glob("*.fmu")):
        try:
            found.setdefault(model_description(fmu).coSimulation.modelIdentifier, []).append(fmu)
        except UnsupportedFMU:
            continue  # a case that needs it is an error that says so
    return found


class FMUCase(pytest.Item):
    """A reference case <Model> or <Model>-<variant>, run against <Model>'s FMU."""

    def setup(self):
        from .references import ReferenceError, load_reference, read_experiment

        config = self.config
        folder = config.getoption("fmus") or config.getoption("fmu_refs")
        if FMUS not in config.stash:
            config.stash[FMUS] = fmus_by_model(folder)
        model = self.name.partition("-")[0]
        found = config.stash[FMUS].get(model, [])
        if len(found) != 1:
            pytest.fail(f"{self.name}: {len(found) or 'no'} FMUs of model {model} in {folder}"
                        + (f": {', '.join(f.name for f in found)}" if found else ""), pytrace=False)
        self.fmu = found[0]
        try:
            self.reference = (read_experiment if config.getoption("fmu_record") else load_reference)(
                self.path.parent, self.name)
        except ReferenceError as exc:
            pytest.fail(str(exc), pytrace=False)

    def runtest(self):
        from .check import Outcome, RunFailed, check_case, record

        config = self.config
        if config.getoption("fmu_record"):
            try:
                record(self.fmu, self.path.parent, case=self.name)
            except RunFailed as exc:
                pytest.fail(f"{self.name}: nothing recorded: {exc}", pytrace=False)
            return
        outcome: Outcome = check_case(self.fmu, self.path.parent, self.name, config.getoption("fmu_tube_rtol"),
                                      config.getoption("fmu_tube_ttol"), self.reference)
        if outcome.verdict is not None:
            self.user_properties.append(("run_time", f"{outcome.verdict.seconds:.3f}"))
        if outcome.status:
            pytest.fail(outcome.report(), pytrace=False)

    def reportinfo(self):
        return self.path, None, f"FMU case {self.name}"
