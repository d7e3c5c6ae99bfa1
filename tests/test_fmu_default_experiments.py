"""Every FMU runs its default experiment to the stop time in FMPy, with its inputs at their start
values and with the input table it ships in documentation/ (issue 13, item 5)."""

import zipfile

import numpy as np
import pytest
from fmpy import read_csv, read_model_description, simulate_fmu

import build_fmu

MODELS = sorted(s.stem for s in build_fmu.SOURCES.glob("[A-Z]*.py"))


@pytest.mark.parametrize("model", MODELS)
def test_default_experiment_runs_to_its_stop_time(fmus, model, tmp_path):
    fmu = fmus[model]
    cls = build_fmu.slave_class(build_fmu.SOURCES / f"{model}.py")
    stop = read_model_description(str(fmu)).defaultExperiment.stopTime
    at_start = simulate_fmu(str(fmu))  # what `fmpy simulate` does: inputs at their start values
    assert at_start["time"][-1] == pytest.approx(float(stop))
    with zipfile.ZipFile(fmu) as z:
        z.extract(f"documentation/{model}_in.csv", tmp_path)
    inputs = read_csv(str(tmp_path / "documentation" / f"{model}_in.csv"))
    assert list(inputs.dtype.names[1:]) == list(cls.experiment.inputs)
    driven = simulate_fmu(str(fmu), input=inputs, output=list(cls.experiment.outputs))
    assert driven["time"][-1] == pytest.approx(float(stop))
    moving = [n for n in cls.experiment.outputs if np.ptp(driven[n].astype(float)) > 0]
    assert moving, f"{model}: every plotted output is flat under the documented inputs"
