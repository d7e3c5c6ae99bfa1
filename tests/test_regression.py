"""The FMU regression command (python -m friction_joints.regression) and its tolerance tubes."""

import shutil
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description

from friction_joints import regression
from friction_joints.regression import main, read_csv, tube_check, write_csv

REFERENCES = Path(__file__).with_name("references")


@pytest.mark.parametrize("model", ["DupontTwoMass", "SliderCrank", "OffsetSliderCrank", "SpeedController",
                                   "SingleMassFriction", "TwoMassFriction", "RSRRRLinkage", "SteeringSystem",
                                   "SingleTrackVehicle"])
def test_every_fmu_passes_its_reference(fmus, model, capsys):
    assert main([str(fmus[model]), str(REFERENCES)]) == 0
    assert f"{model}.fmu: PASS" in capsys.readouterr().out


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


def test_missing_or_malformed_references_are_errors(fmus, tmp_path, capsys):
    assert main([str(fmus["SliderCrank"]), str(tmp_path)]) == 2
    assert "missing" in capsys.readouterr().err
    for f in REFERENCES.glob("SliderCrank_*.csv"):
        shutil.copy(f, tmp_path)
    (tmp_path / "SliderCrank_ref.opt").write_text("StartTime, 0\nStopTime, -1\nStepSize, 0.01\nRelTol, 1e-6\n")
    assert main([str(fmus["SliderCrank"]), str(tmp_path)]) == 2
    assert "StopTime > StartTime" in capsys.readouterr().err
    assert main([str(tmp_path / "none.fmu"), str(tmp_path)]) == 2


def test_record_then_check_round_trips(fmus, tmp_path):
    for f in REFERENCES.glob("SliderCrank_*.opt"):
        shutil.copy(f, tmp_path)
    shutil.copy(REFERENCES / "SliderCrank_in.csv", tmp_path)
    assert main(["--record", str(fmus["SliderCrank"]), str(tmp_path)]) == 0
    outputs = [v for v in read_model_description(str(fmus["SliderCrank"])).modelVariables if v.causality == "output"]
    assert len(read_csv(tmp_path / "SliderCrank_ref.csv").dtype.names) == 1 + len(outputs)
    assert main([str(fmus["SliderCrank"]), str(tmp_path), "--tube-rtol", "0"]) == 0


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
        assert not v.passed and v.max_excess == pytest.approx(0.5e-3, rel=1e-6)

    def test_nan_only_where_the_reference_is_nan(self):
        ref = np.where(self.t < 0.3, np.nan, 1.0)
        assert tube_check("f", self.t, ref.copy(), self.t, ref, 1e-3, 0.0).passed
        bad = ref.copy()
        bad[50] = np.nan
        v = tube_check("f", self.t, bad, self.t, ref, 1e-3, 0.0)
        assert not v.passed and v.first_violation == pytest.approx(0.5)


def test_module_docstring_names_the_layout():
    assert "_ref.opt" in regression.__doc__ and "_in.csv" in regression.__doc__
