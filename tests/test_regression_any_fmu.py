"""The FMU regression on FMUs this project does not ship: a first-order lag made here with pythonfmu
(FMI 2.0) and pythonfmu3 (FMI 3.0), checked against its exact solution, and a model-exchange-only FMU."""

import re
import zipfile

import numpy as np
import pytest
from lxml import etree

from friction_joints.fmi.regression import input_table, main, read_csv, write_csv

SLAVE = {2: """
import math
from pythonfmu import Fmi2Causality as Causality, Fmi2Slave as Slave, Fmi2Variability as Variability, Real


class Lag(Slave):
    \"\"\"A first-order lag T y' = u - y, stepped exactly for an input held over each step.\"\"\"
    author = "tests"
    description = "first-order lag"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.u, self.y, self.T = 0.0, 0.0, 0.5
        self.register_variable(Real("u", causality=Causality.input))
        self.register_variable(Real("y", causality=Causality.output))
        self.register_variable(Real("T", causality=Causality.parameter, variability=Variability.tunable))

    def do_step(self, current_time, step_size):
        self.y = self.u + (self.y - self.u) * math.exp(-step_size / self.T)
        return True
""", 3: """
import math
from pythonfmu3 import Fmi3Causality as Causality, Fmi3Slave, Fmi3Variability as Variability, Float64


class Lag(Fmi3Slave):
    \"\"\"A first-order lag T y' = u - y, stepped exactly for an input held over each step.\"\"\"
    author = "tests"
    description = "first-order lag"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.time, self.u, self.y, self.T = 0.0, 0.0, 0.0, 0.5
        self.register_variable(Float64("time", causality=Causality.independent, variability=Variability.continuous))
        self.register_variable(Float64("u", causality=Causality.input))
        self.register_variable(Float64("y", causality=Causality.output))
        self.register_variable(Float64("T", causality=Causality.parameter, variability=Variability.tunable))

    def do_step(self, current_time, step_size):
        self.y = self.u + (self.y - self.u) * math.exp(-step_size / self.T)
        self.time = current_time + step_size
        return True
"""}


@pytest.fixture(scope="module", params=[2, 3], ids=["FMI 2.0", "FMI 3.0"])
def lag(request, tmp_path_factory):
    """The Lag FMU of one FMI version, built here."""
    from build_fmu import Fmu3Builder, FmuBuilder  # pythonfmu's builders, imported before any FMU runs

    folder = tmp_path_factory.mktemp(f"lag{request.param}")
    script = folder / f"lag_fmi{request.param}.py"  # a module name of its own: both FMUs run in this process
    script.write_text(SLAVE[request.param])
    return (FmuBuilder if request.param == 2 else Fmu3Builder).build_FMU(script, dest=folder / "fmu")


def lag_case(refdir, case, T, start_T=None):
    """The case: a unit step into the lag from t = 0, 1 s at 0.01 s, its reference the exact y = 1 - exp(-t / T)
    (the FMU's own T unless start_T)."""
    t = np.round(np.arange(0.0, 1.0 + 1e-9, 0.01), 12)
    write_csv(refdir / f"{case}_in.csv", input_table(1.0, 0.01, {"u": lambda t: 1.0}))
    write_csv(refdir / f"{case}_ref.csv", np.array([(ti, 1 - np.exp(-ti / T)) for ti in t],
                                                   dtype=[("time", float), ("y", float)]))
    start = "" if start_T is None else f"Start T, {start_T}\n"
    (refdir / f"{case}_ref.opt").write_text(f"StartTime, 0\nStopTime, 1\nStepSize, 0.01\nRelTol, 1e-6\n{start}")


def test_a_foreign_fmu_passes_its_exact_solution_and_fails_a_changed_parameter(lag, tmp_path, capsys):
    lag_case(tmp_path, "Lag", T=0.5)
    lag_case(tmp_path, "Lag-Slow", T=0.8, start_T=0.8)
    lag_case(tmp_path, "Lag-Wrong", T=0.8)  # the reference of T = 0.8, the FMU's T = 0.5
    assert main([str(lag), str(tmp_path)]) == 0
    assert main([str(lag), str(tmp_path), "--case", "Lag-Slow"]) == 0
    assert capsys.readouterr().out == "Lag.fmu: PASS\n  ok    y\nLag.fmu [Lag-Slow]: PASS\n  ok    y\n"
    assert main([str(lag), str(tmp_path), "--case", "Lag-Wrong", "--junit", str(tmp_path / "junit.xml")]) == 1
    assert "  FAIL  y: left its tube at t = 0.02 s" in capsys.readouterr().out  # 0.01 s: within the time tolerance
    failure = etree.parse(str(tmp_path / "junit.xml")).find(".//testcase[@name='Lag-Wrong']/failure")
    assert failure.get("message").startswith("y: left its tube at t = 0.02 s")


def test_a_foreign_fmu_records_and_then_passes_bit_for_bit(lag, tmp_path):
    lag_case(tmp_path, "Lag-Slow", T=0.8, start_T=0.8)
    exact = read_csv(tmp_path / "Lag-Slow_ref.csv")
    (tmp_path / "Lag-Slow_ref.csv").unlink()
    assert main(["--record", str(lag), str(tmp_path), "--case", "Lag-Slow"]) == 0
    recorded = read_csv(tmp_path / "Lag-Slow_ref.csv")
    assert recorded.dtype.names == ("time", "y")
    np.testing.assert_allclose(recorded["y"], exact["y"], rtol=1e-12, atol=1e-15)
    assert main([str(lag), str(tmp_path), "--case", "Lag-Slow", "--tube-rtol", "0"]) == 0


def test_a_model_exchange_fmu_is_an_error_that_says_so(lag, tmp_path, capsys):
    """Only co-simulation runs: an FMU whose modelDescription offers model exchange only cannot be checked."""
    lag_case(tmp_path, "Lag", T=0.5)
    with zipfile.ZipFile(lag) as source, zipfile.ZipFile(tmp_path / "Lag.fmu", "w") as copy:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "modelDescription.xml":
                root = etree.fromstring(data)
                cs = root.find("CoSimulation")
                cs.addnext(etree.Element("ModelExchange", modelIdentifier=cs.get("modelIdentifier")))
                root.remove(cs)
                data = etree.tostring(root)
            copy.writestr(item, data)
    assert main([str(tmp_path / "Lag.fmu"), str(tmp_path), "--junit", str(tmp_path / "junit.xml")]) == 2
    assert re.search(r"^error: Lag.fmu is FMI [23].0 model exchange only; the check runs FMI 2.0 and 3.0 "
                     r"co-simulation FMUs$", capsys.readouterr().err, re.M)
    error = etree.parse(str(tmp_path / "junit.xml")).find(".//testcase/error")
    assert "model exchange only; the check runs FMI 2.0 and 3.0 co-simulation FMUs" in error.get("message")
