"""The pytest plugin of the FMU regression (entry point pytest11): pytest --fmu-refs DIR --fmus DIR collects
a test item per reference case, fails it with the command's report, and runs the items on pytest-xdist."""

import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from lxml import etree

from friction_joints.fmi.regression import read_csv, write_csv
from test_regression import copy_reference


@pytest.fixture(scope="module")
def cases(fmus, tmp_path_factory):
    """refs/ with SliderCrank (passes), SliderCrank-Late (its reference changed from 0.1 s on: fails) and
    SliderCrank-Bad (an .opt without StopTime: an error), DupontTwoMass whose FMU is not in fmus/ (an error);
    fmus/ with the SliderCrank FMU."""
    root = tmp_path_factory.mktemp("plugin")
    refs, folder = root / "refs", root / "fmus"
    refs.mkdir()
    folder.mkdir()
    shutil.copy(fmus["SliderCrank"], folder)
    copy_reference("SliderCrank", refs, stop=0.2)
    copy_reference("DupontTwoMass", refs, stop=0.1)
    for suffix in ("_in.csv", "_ref.csv", "_ref.opt"):
        for variant in ("Late", "Bad"):
            shutil.copy(refs / f"SliderCrank{suffix}", refs / f"SliderCrank-{variant}{suffix}")
    ref = read_csv(refs / "SliderCrank-Late_ref.csv")
    ref["E_kin"][ref["time"] >= 0.1] += 0.05 * np.ptp(ref["E_kin"])
    write_csv(refs / "SliderCrank-Late_ref.csv", ref)
    (refs / "SliderCrank-Bad_ref.opt").write_text("StartTime, 0\nStepSize, 0.02\nRelTol, 1e-8\n")
    return root


def run_pytest(cwd, *args):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_each_case_is_a_test_item_run_on_xdist_workers_with_the_commands_report(cases, capsys):
    from friction_joints.fmi.regression import main

    proc = run_pytest(cases, "--fmu-refs", "refs", "--fmus", "fmus", "-n", "2", "-v", "--junitxml", "out.xml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert {"gw0", "gw1"} <= set(re.findall(r"^\[(gw\d)\]", proc.stdout, re.M)), proc.stdout  # both workers ran items
    suite = etree.parse(str(cases / "out.xml")).getroot().find("testsuite")
    outcome = {c.get("name"): c for c in suite.iter("testcase")}
    assert sorted(outcome) == ["DupontTwoMass", "SliderCrank", "SliderCrank-Bad", "SliderCrank-Late"]
    assert [child.tag for child in outcome["SliderCrank"]] == ["properties"]  # passed, with its run time
    assert outcome["SliderCrank"].find("properties/property").get("name") == "run_time"
    assert "no FMUs of model DupontTwoMass in fmus" in outcome["DupontTwoMass"].find("error").get("message")
    assert "SliderCrank-Bad_ref.opt lacks StopTime" in outcome["SliderCrank-Bad"].find("error").get("message")
    # the failure message is the command's report of the same case
    assert main([str(cases / "fmus" / "SliderCrank.fmu"), str(cases / "refs"), "--case", "SliderCrank-Late"]) == 1
    report = capsys.readouterr().out.strip()
    assert "  FAIL  E_kin: left its tube at t = " in report
    assert outcome["SliderCrank-Late"].find("failure").text.strip() == report


def test_without_fmu_refs_nothing_is_collected_and_bad_folders_are_usage_errors(cases):
    proc = run_pytest(cases / "refs", "--collect-only", "-q")  # .opt files are no tests by default
    assert proc.returncode == 5 and "no tests collected" in proc.stdout, proc.stdout
    proc = run_pytest(cases, "--fmu-refs", "no_such_folder")
    assert proc.returncode == 4 and "--fmu-refs no_such_folder: no such folder" in proc.stderr, proc.stderr


def test_fmu_record_records_each_case_and_then_the_cases_pass(cases, tmp_path):
    refs = tmp_path / "refs"
    refs.mkdir()
    for f in (cases / "refs").glob("SliderCrank_*"):
        shutil.copy(f, refs)
    (refs / "SliderCrank_ref.csv").unlink()
    proc = run_pytest(tmp_path, "--fmu-refs", "refs", "--fmus", str(cases / "fmus"), "--fmu-record", "-q")
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout + proc.stderr
    assert read_csv(refs / "SliderCrank_ref.csv")["time"][-1] == pytest.approx(0.2)
    proc = run_pytest(tmp_path, "--fmu-refs", "refs", "--fmus", str(cases / "fmus"), "--fmu-tube-rtol", "0", "-q")
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout + proc.stderr
