"""The regression run's outputs for CI: JUnit XML (checked against a schema of the format CI servers
read) and the static HTML report (opened in headless Chromium), from outcomes made here without FMUs."""

import numpy as np
import pytest
from lxml import etree

from friction_joints.fmi.regression import Outcome, Run, Verdict, tube_check
from friction_joints.fmi.regression.html_report import write_report
from friction_joints.fmi.regression.junit import write_junit
from headless_browser import rendered_report
from test_regression import JUNIT_SCHEMA

T = np.linspace(0.0, 1.0, 51)


def outcome(case, offset=0.0, nan_at=None, stop=None, lacking=(), log=()):
    """An outcome of the signals x = sin(2 pi t) and v = cos(2 pi t) (reference) against a result with x offset
    by `offset` tube widths from t = 0.5 s, NaN at nan_at (s), cut at stop (s); tube rtol 1e-3, ttol 0."""
    ref = np.array([(t, np.sin(2 * np.pi * t), np.cos(2 * np.pi * t)) for t in T],
                   dtype=[("time", float), ("x", float), ("v", float)])
    result = ref.copy() if stop is None else ref[T <= stop].copy()
    width = 1e-3 * np.ptp(ref["x"])
    result["x"][result["time"] >= 0.5] += offset * width
    if nan_at is not None:
        result["x"][np.isclose(result["time"], nan_at)] = np.nan
    failures = [] if stop is None else [f"the run stopped at t = {stop:g} s, before StopTime = 1 s"]
    signals = [tube_check(n, result["time"], result[n], ref["time"], ref[n], 1e-3, 0.0) for n in ("x", "v")]
    return Outcome(f"{case.partition('-')[0]}.fmu", case,
                   Verdict(Run(result, failures, list(log)), list(lacking), signals, ref, 1e-3, 0.0, 0.25))


@pytest.fixture
def outcomes():
    return [outcome("Passing"), outcome("Off-by3", offset=3.0), outcome("Nan", nan_at=0.3),
            outcome("Short", stop=0.6, log=["[Error] step failed: \x01 the FMU's message"]),
            outcome("Lacks", lacking=["no_such_output"]),
            Outcome("Broken.fmu", "Broken", error="missing refs/Broken_ref.opt")]


def test_junit_has_a_testcase_per_case_and_passes_the_schema(outcomes, tmp_path):
    tree = etree.parse(str(write_junit(outcomes, tmp_path / "out" / "junit.xml", "dist")))
    JUNIT_SCHEMA.assertValid(tree)
    suite = tree.getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("6", "4", "1")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert list(cases) == ["Passing", "Off-by3", "Nan", "Short", "Lacks", "Broken"]
    assert cases["Off-by3"].get("classname") == "Off" and cases["Off-by3"].get("time") == "0.250"
    assert cases["Passing"].find("failure") is None and cases["Passing"].find("error") is None
    message = cases["Off-by3"].find("failure").get("message")
    assert message.startswith("x: left its tube at t = 0.5 s, 26 samples outside, largest excursion 3 tube widths "
                              "at t = 0.")  # 3 widths from the reference: 2 outside the tube
    assert cases["Nan"].find("failure").get("message").startswith(
        "x: left its tube at t = 0.3 s, 1 samples outside, largest excursion a NaN or infinite value at t = 0.3 s")
    assert cases["Short"].find("failure").get("message") == "the run stopped at t = 0.6 s, before StopTime = 1 s"
    assert "step failed: ? the FMU's message" in cases["Short"].find("failure").text  # no control character
    assert cases["Lacks"].find("failure").get("message") == "no_such_output: the FMU has no such variable"
    assert cases["Broken"].find("error").get("message") == "missing refs/Broken_ref.opt"


def test_the_schema_rejects_what_ci_servers_do_not_read(outcomes, tmp_path):
    """The schema can fail: a testcase without its name, a time that is not a number, a failure without a type."""
    tree = etree.parse(str(write_junit(outcomes, tmp_path / "junit.xml")))
    for element, attribute, value in (("testcase", "name", None), ("testcase", "time", "0,25 s"),
                                      ("failure", "type", None)):
        broken = etree.fromstring(etree.tostring(tree))
        node = broken.find(f".//{element}")
        if value is None:
            del node.attrib[attribute]
        else:
            node.set(attribute, value)
        assert not JUNIT_SCHEMA.validate(broken), (element, attribute)


def test_a_signal_one_tube_width_off_fails_and_one_just_inside_passes():
    assert outcome("In", offset=1.0 - 1e-6).status == 0
    off = outcome("Off", offset=1.0 + 1e-6)
    assert off.status == 1 and off.verdict.signals[0].violations == 26
    assert off.verdict.signals[0].max_excursion == pytest.approx(1.0 + 1e-6, rel=1e-6)


def test_the_report_renders_in_a_browser_with_a_plot_of_every_signal(outcomes, tmp_path, browser):
    index = write_report(outcomes, tmp_path / "report", "dist")
    pages = rendered_report(browser, index)
    summary = pages.pop(index)
    rows = [row for row in summary["text"].splitlines() if row]
    assert rows[0] == "dist" and rows[1].startswith("6 cases: 1 pass, 4 fail, 1 error; ")
    statuses = [row.split("\t")[2] for row in rows[3:]]
    assert statuses == ["FAIL"] * 4 + ["ERROR", "PASS"]  # failures first
    assert "Off-by3\tOff.fmu\tFAIL\tx (3)\t0.25\tx: left its tube at t = 0.5 s" in summary["text"]
    assert len(pages) == 6  # a page per case
    by_title = {page["title"]: page for page in pages.values()}
    assert len(by_title["Passing.fmu"]["images"]) == 2  # a plot per checked signal
    assert "x: left its tube at t = 0.5 s" in by_title["Off.fmu [Off-by3]"]["text"]
    assert "missing refs/Broken_ref.opt" in by_title["Broken.fmu"]["text"] and not by_title["Broken.fmu"]["images"]
    assert "step failed" in by_title["Short.fmu"]["text"]  # the FMU's log


def test_a_broken_image_is_noticed(outcomes, tmp_path, browser):
    """The browser check can fail: an image deleted after the report was written does not load."""
    index = write_report(outcomes[:1], tmp_path / "report")
    next(index.parent.glob("cases/*/0.png")).unlink()
    with pytest.raises(AssertionError, match="'loaded': False"):
        rendered_report(browser, index)
