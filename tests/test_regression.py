"""The FMU regression command (python -m friction_joints.fmi.regression) and its tolerance tubes."""

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description
from lxml import etree
from numpy.lib import recfunctions

from friction_joints.fmi import regression
from friction_joints.fmi.regression import main, read_csv, read_opt, tube_check, write_csv

REFERENCES = Path(__file__).with_name("references")
JUNIT_SCHEMA = etree.XMLSchema(etree.parse(str(Path(__file__).with_name("junit.xsd"))))


def copy_reference(model, dest, stop=None):
    """The reference of model copied into dest, cut at StopTime = stop (s)."""
    for f in REFERENCES.glob(f"{model}_*"):
        shutil.copy(f, dest)
    if stop is not None:
        opt = read_opt(dest / f"{model}_ref.opt") | {"StopTime": stop}
        (dest / f"{model}_ref.opt").write_text("".join(f"{k}, {v}\n" for k, v in opt.items()))
        ref = read_csv(dest / f"{model}_ref.csv")
        write_csv(dest / f"{model}_ref.csv", ref[ref["time"] <= stop + 1e-9])


def slider_crank_reference(dest, stop=None, nan_from=None):
    """The SliderCrank reference copied into dest, cut at StopTime = stop (s), its input NaN from
    nan_from (s) on."""
    copy_reference("SliderCrank", dest, stop)
    if nan_from is not None:
        inputs = read_csv(dest / "SliderCrank_in.csv")
        inputs["tau"][inputs["time"] >= nan_from - 1e-9] = np.nan
        write_csv(dest / "SliderCrank_in.csv", inputs)
    return dest


@pytest.fixture(params=["FMI 2.0", "FMI 3.0"])
def fmus_of_each_version(request, fmus, fmus3):
    """The FMUs of one FMI version: the FMI 3.0 ones must pass the same references."""
    return fmus if request.param == "FMI 2.0" else fmus3


@pytest.mark.parametrize("model", ["DupontTwoMass", "SliderCrank", "OffsetSliderCrank", "SpeedController",
                                   "SingleMassFriction", "TwoMassFriction", "RSRRRLinkage", "SteeringSystem",
                                   "SingleTrackVehicle", "BristleOscillator"])
def test_every_fmu_passes_its_reference(fmus_of_each_version, model, capsys):
    assert main([str(fmus_of_each_version[model]), str(REFERENCES)]) == 0
    assert f"{model}.fmu: PASS" in capsys.readouterr().out


@pytest.mark.parametrize("case", ["BristleOscillator-ElastoPlastic", "SliderCrank-LuGre", "SteeringSystem-LuGre",
                                  "RSRRRLinkage-LuGre"])
def test_every_variant_case_passes_its_reference(fmus_of_each_version, case, capsys):
    """Bristle friction (issue 16): each variant is found by regression.cases and passes with its start values."""
    model = case.partition("-")[0]
    assert case in regression.cases(REFERENCES, model)
    assert main([str(fmus_of_each_version[model]), str(REFERENCES), "--case", case]) == 0
    assert f"{model}.fmu [{case}]: PASS" in capsys.readouterr().out


def test_a_variant_case_sets_its_start_values(fmus, tmp_path, capsys):
    """SteeringSystem-LuGre's .opt sets the Integer friction_model = 2 (an int for FMPy); without that line
    the same case runs the exact model, whose result leaves the LuGre reference's tube."""
    opt = read_opt(REFERENCES / "SteeringSystem-LuGre_ref.opt")
    assert regression.start_values_of(opt) == {"friction_model": 2}
    assert type(regression.start_values_of(opt)["friction_model"]) is int
    for f in REFERENCES.glob("SteeringSystem-LuGre_*"):
        shutil.copy(f, tmp_path)
    exact = {k: v for k, v in opt.items() if not k.startswith(regression.START)}
    (tmp_path / "SteeringSystem-LuGre_ref.opt").write_text("".join(f"{k}, {v}\n" for k, v in exact.items()))
    assert main([str(fmus["SteeringSystem"]), str(tmp_path), "--case", "SteeringSystem-LuGre"]) == 1
    assert "FAIL  stuck_rack: left its tube" in capsys.readouterr().out


def test_a_changed_result_fails_and_the_report_names_the_signal(fmus, tmp_path, capsys):
    for f in REFERENCES.glob("SliderCrank_*"):
        shutil.copy(f, tmp_path)
    ref = read_csv(tmp_path / "SliderCrank_ref.csv")
    late = ref["time"] >= 0.5
    ref["W_friction"][late] += 0.05 * np.ptp(ref["W_friction"])  # an offset of 5 % of the range from t = 0.5 s
    write_csv(tmp_path / "SliderCrank_ref.csv", ref)
    assert main([str(fmus["SliderCrank"]), str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "ok    u" in out
    failed = [line for line in out.splitlines() if line.startswith("  FAIL")]
    assert len(failed) == 1 and "W_friction: left its tube at t = " in failed[0]
    t_fail = float(failed[0].split("t = ")[1].split(" s")[0])
    assert 0.5 <= t_fail <= 0.5 + 0.02 + 1e-9  # within the time tolerance (one step) of the change


@pytest.fixture
def slider_crank_fmu(fmus):
    return fmus["SliderCrank"]


@pytest.fixture(scope="module")
def pythonfmu_statuses_fmu(slider_crank_without_loader):
    """SliderCrank built without the loader: pythonfmu's statuses, a failed doStep returns Discard
    (which FMPy's simulate_fmu takes as a silent stop) where the loader returns Error (which FMPy raises)."""
    return slider_crank_without_loader


@pytest.fixture(scope="module")
def slider_crank_fmi3_fmu(fmus3):
    return fmus3["SliderCrank"]


@pytest.mark.parametrize("build, nan_from, failed_call", [
    ("slider_crank_fmu", 0.02, r"fmi2\w+ returned (Discard|Error)"),  # Error where the FMU's loader returns it
    ("slider_crank_fmu", 0.3, r"fmi2\w+ returned (Discard|Error)"),
    ("slider_crank_fmi3_fmu", 0.3, r"fmi3SetFloat64 returned Error"),
    ("pythonfmu_statuses_fmu", 0.3, "fmi2DoStep returned Discard")])
def test_a_run_that_stops_early_fails_and_the_report_says_why(request, tmp_path, capsys, build, nan_from,
                                                              failed_call):
    fmu = request.getfixturevalue(build)
    capsys.readouterr()  # what a build printed
    slider_crank_reference(tmp_path, nan_from=nan_from)  # a 1 s reference whose input is NaN from nan_from on
    assert main([str(fmu), str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("SliderCrank.fmu: FAIL\n")
    assert f"  FAIL  the run stopped at t = {nan_from:g} s, before StopTime = 1 s\n" in out
    assert re.search(rf"^  FAIL  {failed_call} at t = {nan_from:g} s$", out, re.M)
    assert re.search(r"^  log   \[Error\] .*nan", out, re.M)  # the FMU's message
    assert "  ok    u\n" in out  # the signals are checked up to where the run stopped


def test_a_reference_signal_the_fmu_lacks_fails(fmus, tmp_path, capsys):
    slider_crank_reference(tmp_path, stop=0.2)
    ref = read_csv(tmp_path / "SliderCrank_ref.csv")
    write_csv(tmp_path / "SliderCrank_ref.csv", recfunctions.append_fields(ref, "no_such_output", ref["u"],
                                                                           usemask=False))
    assert main([str(fmus["SliderCrank"]), str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if "FAIL" in line] == [
        "SliderCrank.fmu: FAIL", "  FAIL  no_such_output: the FMU has no such variable"]
    assert "  ok    u\n" in out


def test_record_of_a_failing_run_writes_nothing(fmus, tmp_path, capsys):
    slider_crank_reference(tmp_path, nan_from=0.02)
    (tmp_path / "SliderCrank_ref.csv").unlink()
    assert main(["--record", str(fmus["SliderCrank"]), str(tmp_path)]) == 1
    assert "FAIL, nothing recorded: the run stopped at t = 0.02 s" in capsys.readouterr().out
    assert not (tmp_path / "SliderCrank_ref.csv").exists()


def test_missing_or_malformed_references_are_errors(fmus, tmp_path, capsys):
    assert main([str(fmus["SliderCrank"]), str(tmp_path)]) == 2
    assert "missing" in capsys.readouterr().err
    for f in REFERENCES.glob("SliderCrank_*.csv"):
        shutil.copy(f, tmp_path)
    (tmp_path / "SliderCrank_ref.opt").write_text("StartTime, 0\nStopTime, -1\nStepSize, 0.01\nRelTol, 1e-6\n")
    assert main([str(fmus["SliderCrank"]), str(tmp_path)]) == 2
    assert "StopTime > StartTime" in capsys.readouterr().err
    (tmp_path / "SliderCrank_ref.opt").write_text("StartTime, 0\nStopTime, 0.5\nStepSize, 0.02\nRelTol, 1e-8\n")
    assert main([str(fmus["SliderCrank"]), str(tmp_path)]) == 2  # a reference that goes on after StopTime
    assert "SliderCrank_ref.csv goes on to t = 1 s, after StopTime = 0.5 s" in capsys.readouterr().err
    assert main([str(tmp_path / "none.fmu"), str(tmp_path)]) == 2


def test_record_then_check_round_trips(fmus, tmp_path):
    for f in REFERENCES.glob("SliderCrank_*.opt"):
        shutil.copy(f, tmp_path)
    shutil.copy(REFERENCES / "SliderCrank_in.csv", tmp_path)
    assert main(["--record", str(fmus["SliderCrank"]), str(tmp_path)]) == 0
    outputs = [v for v in read_model_description(str(fmus["SliderCrank"])).modelVariables if v.causality == "output"]
    assert len(read_csv(tmp_path / "SliderCrank_ref.csv").dtype.names) == 1 + len(outputs)
    assert main([str(fmus["SliderCrank"]), str(tmp_path), "--tube-rtol", "0"]) == 0


def test_record_of_a_folder_writes_every_case_of_every_fmu(fmus, tmp_path, capsys):
    folder, refs = tmp_path / "fmus", tmp_path / "refs"
    folder.mkdir()
    refs.mkdir()
    shutil.copy(fmus["SliderCrank"], folder)
    shutil.copy(fmus["DupontTwoMass"], folder)  # without a case in refs: an error that does not stop the others
    for case, stop in (("SliderCrank", 0.2), ("SliderCrank-LuGre", 0.1)):
        copy_reference(case, refs, stop=stop)
        (refs / f"{case}_ref.csv").unlink()
    assert main(["--record", str(folder), str(refs)]) == 2
    out, err = capsys.readouterr()
    assert out.splitlines() == [f"wrote {refs / 'SliderCrank_ref.csv'}", f"wrote {refs / 'SliderCrank-LuGre_ref.csv'}"]
    assert err == f"error: missing {refs / 'DupontTwoMass_ref.opt'}\n"
    for case, stop in (("SliderCrank", 0.2), ("SliderCrank-LuGre", 0.1)):
        assert read_csv(refs / f"{case}_ref.csv")["time"][-1] == pytest.approx(stop)
        assert main([str(folder / "SliderCrank.fmu"), str(refs), "--case", case, "--tube-rtol", "0"]) == 0
    copy_reference("SliderCrank-LuGre", tmp_path, stop=0.1)  # the reference recorded before, in its own tube
    recorded, before = read_csv(refs / "SliderCrank-LuGre_ref.csv"), read_csv(tmp_path / "SliderCrank-LuGre_ref.csv")
    assert all(regression.tube_check(n, recorded["time"], recorded[n], before["time"], before[n], 1e-3, 0.0).passed
               for n in before.dtype.names[1:])


@pytest.mark.slow  # a Dask cluster, four cases and their plots: 28-35 s on a loaded 2-core machine
def test_a_folder_of_fmus_runs_on_a_cluster_with_a_line_per_fmu_and_the_worst_exit(fmus, dask_scheduler,
                                                                                  tmp_path, capsys):
    for model in ("SliderCrank", "DupontTwoMass", "SingleMassFriction"):
        shutil.copy(fmus[model], tmp_path)
    copy_reference("SliderCrank", tmp_path, stop=0.2)
    copy_reference("SliderCrank-LuGre", tmp_path, stop=0.1)  # a variant case: a line of its own
    copy_reference("DupontTwoMass", tmp_path, stop=0.3)
    ref = read_csv(tmp_path / "DupontTwoMass_ref.csv")
    ref["E_kin"][ref["time"] >= 0.1] += 0.05 * np.ptp(ref["E_kin"])  # a changed result: DupontTwoMass fails
    write_csv(tmp_path / "DupontTwoMass_ref.csv", ref)
    # SingleMassFriction has no reference: the check cannot run
    out = tmp_path / "out"
    assert main([str(tmp_path), "--scheduler", dask_scheduler, "--workers", "2", "--junit", str(out / "junit.xml"),
                 "--report", str(out / "report")]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("DupontTwoMass.fmu: FAIL: E_kin: left its tube at t = ")
    assert lines[1] == f"SingleMassFriction.fmu: ERROR: missing {tmp_path / 'SingleMassFriction_ref.opt'}"
    assert lines[2:] == ["SliderCrank.fmu: PASS", "SliderCrank.fmu [SliderCrank-LuGre]: PASS"]
    # the JUnit file: a testcase per case, the failure's message the line's reason
    junit = etree.parse(str(out / "junit.xml"))
    JUNIT_SCHEMA.assertValid(junit)
    testcases = {(c.get("classname"), c.get("name")): c for c in junit.iter("testcase")}
    assert list(testcases) == [("DupontTwoMass", "DupontTwoMass"), ("SingleMassFriction", "SingleMassFriction"),
                               ("SliderCrank", "SliderCrank"), ("SliderCrank", "SliderCrank-LuGre")]
    assert lines[0] == f"DupontTwoMass.fmu: FAIL: {testcases['DupontTwoMass', 'DupontTwoMass'][0].get('message')}"
    assert testcases["SingleMassFriction", "SingleMassFriction"][0].tag == "error"
    assert all(float(c.get("time")) > 0 for key, c in testcases.items() if key[0] != "SingleMassFriction")
    # the report: a row per case and a plot per signal of each case that ran
    index = (out / "report" / "index.html").read_text()
    assert index.count("<tr>") == 1 + 4 and index.count('class="FAIL">FAIL') == 1
    plots = sorted(len(list(page.with_suffix("").glob("*.png"))) for page in (out / "report" / "cases").glob("*.html"))
    signals = [len(read_csv(tmp_path / f"{case}_ref.csv").dtype.names) - 1
               for case in ("DupontTwoMass", "SliderCrank", "SliderCrank-LuGre")]
    assert plots == sorted([0, *signals])  # SingleMassFriction did not run
    assert all(png.read_bytes().startswith(b"\x89PNG") for png in (out / "report" / "cases").glob("*/*.png"))
    # the folder's line says what the FMU's own check reports first
    assert main([str(tmp_path / "DupontTwoMass.fmu"), str(tmp_path)]) == 1
    first_failure = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("  FAIL  "))
    assert lines[0].startswith(f"DupontTwoMass.fmu: FAIL: {first_failure[8:]}")
    (tmp_path / "SingleMassFriction.fmu").unlink()
    assert main([str(tmp_path), "--scheduler", dask_scheduler]) == 1  # the worst is now a failure


class TestTube:
    t = np.linspace(0.0, 1.0, 101)

    def step(self, at):
        return (self.t >= at).astype(float)

    def test_an_event_shifted_within_the_time_tolerance_passes(self):
        assert tube_check("s", self.t, self.step(0.51), self.t, self.step(0.5), 1e-3, 0.011).passed

    def test_an_event_shifted_beyond_it_fails_where_it_moved(self):
        v = tube_check("s", self.t, self.step(0.55), self.t, self.step(0.5), 1e-3, 0.011)
        assert not v.passed and v.first_violation == pytest.approx(0.51) and v.violations == 4

    def test_amplitude_error_is_measured_against_the_range(self):
        ref = np.sin(2 * np.pi * self.t)
        assert tube_check("y", self.t, ref + 1.5e-3, self.t, ref, 1e-3, 0.0).passed
        v = tube_check("y", self.t, ref + 2.5e-3, self.t, ref, 1e-3, 0.0)
        assert not v.passed and v.max_excursion == pytest.approx(1.25, rel=1e-6)  # tube width 2e-3

    def test_one_tube_width_off_fails_and_just_inside_passes(self):
        ref = 3.0 + np.sin(2 * np.pi * self.t)
        width = regression.tube.tube_width(ref, 1e-3)
        for sign in (1, -1):
            assert tube_check("y", self.t, ref + sign * (1 - 1e-6) * width, self.t, ref, 1e-3, 0.01).passed
            v = tube_check("y", self.t, ref + sign * (1 + 1e-6) * width, self.t, ref, 1e-3, 0.0)
            assert not v.passed and v.violations == len(self.t) and v.first_violation == 0.0

    def test_a_constant_signal_has_a_tube_relative_to_its_value_as_in_csv_compare(self):
        ref = np.full_like(self.t, -4.0)
        assert tube_check("c", self.t, ref + 3.9e-3, self.t, ref, 1e-3, 0.0).passed
        assert not tube_check("c", self.t, ref + 4.1e-3, self.t, ref, 1e-3, 0.0).passed
        assert not tube_check("z", self.t, np.full_like(self.t, 1e-11), self.t, 0 * self.t, 1e-3, 0.0).passed

    def test_an_infinite_value_fails(self):
        y = np.sin(self.t)
        bad = y.copy()
        bad[7] = np.inf
        v = tube_check("y", self.t, bad, self.t, y, 1e-3, 0.0)
        assert not v.passed and v.max_excursion == np.inf and v.t_max_excursion == pytest.approx(0.07)
        assert "largest excursion a NaN or infinite value at t = 0.07 s" in v.message()

    def test_nan_only_where_the_reference_is_nan(self):
        ref = np.where(self.t < 0.3, np.nan, 1.0)
        assert tube_check("f", self.t, ref.copy(), self.t, ref, 1e-3, 0.0).passed
        bad = ref.copy()
        bad[50] = np.nan
        v = tube_check("f", self.t, bad, self.t, ref, 1e-3, 0.0)
        assert not v.passed and v.first_violation == pytest.approx(0.5)


def test_module_docstring_names_the_layout():
    assert "_ref.opt" in regression.__doc__ and "_in.csv" in regression.__doc__


@pytest.mark.parametrize("change, message", [
    (lambda d: (d / "C_ref.csv").write_text('"x","time"\n0,0\n'), "the first column must be 'time', got 'x'"),
    (lambda d: (d / "C_ref.csv").write_text('"time","x","x"\n0,1,2\n1,1,2\n'), "empty or repeated column names"),
    (lambda d: (d / "C_ref.csv").write_text('"time","x"\n0,1\n1,one\n'), "not a table of numbers below the header"),
    (lambda d: (d / "C_ref.csv").write_text('"time","x"\n'), "no rows below the header"),
    (lambda d: (d / "C_ref.csv").write_text('"time","x"\n0,1,2\n1,1,2\n'), "2 named columns, 3 data columns"),
    (lambda d: (d / "C_ref.csv").write_text('"time","x"\n0,1\n1,2\n0.5,3\n'), "not finite and non-decreasing"),
    (lambda d: (d / "C_ref.csv").write_text('"time"\n0\n1\n'), "no signal to check, only 'time'"),
    (lambda d: (d / "C_ref.csv").write_text('"time","x"\n0,1\n0.5,2\n'), "covers t = 0 to 0.5 s, not StartTime = 0 "
                                                                        "to StopTime = 1 s"),
    (lambda d: (d / "C_ref.opt").write_text("StartTime, 0\nStopTime, 1\nStepSize: 0.1\nRelTol, 1e-6\n"),
     "line 3: expected '<key>, <number>', got 'StepSize: 0.1'"),
    (lambda d: (d / "C_in.csv").write_text('"t","u"\n0,1\n'), "C_in.csv: the first column must be 'time'"),
])
def test_a_wrong_reference_layout_is_an_error_that_says_what_is_wrong(tmp_path, change, message):
    (tmp_path / "C_ref.opt").write_text("StartTime, 0\nStopTime, 1\nStepSize, 0.5\nRelTol, 1e-6\n")
    (tmp_path / "C_ref.csv").write_text('"time","x"\n0,1\n0.5,2\n1,3\n')
    regression.load_reference(tmp_path, "C")  # the layout before the change is right
    change(tmp_path)
    with pytest.raises(regression.ReferenceError, match=re.escape(message)):
        regression.load_reference(tmp_path, "C")
