"""Parameter sweeps on Dask (python -m friction_joints.sweep): rows against direct FMPy runs."""

import csv
import hashlib
from pathlib import Path

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu

from friction_joints.fmi import cluster
from friction_joints.fmi.regression import read_csv, read_opt
from friction_joints.fmi.sweep import main

REFERENCES = Path(__file__).with_name("references")
STOP, STEP = 0.4, 0.02


def read_rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def direct_run(fmu, params):
    """The run a user would make with FMPy alone: default tolerance, the reference's input table."""
    return simulate_fmu(str(fmu), stop_time=STOP, output_interval=STEP, start_values=params,
                        input=read_csv(REFERENCES / "SliderCrank_in.csv"))


def test_a_sweep_on_a_cluster_equals_direct_fmpy_runs_and_a_bad_mass_is_an_error_row(fmus, dask_scheduler,
                                                                                     tmp_path):
    fmu = fmus["SliderCrank"]
    results, series = tmp_path / "results.csv", tmp_path / "series"
    status = main([str(fmu), "--stop-time", str(STOP), "--step", str(STEP), "--input",  # mu_rk <= mu_rs = 0.15
                   str(REFERENCES / "SliderCrank_in.csv"), "--grid", "mu_rk=0:0.15:3", "--grid", "m1=2.5,-1",
                   "--scheduler", dask_scheduler, "--workers", "2", "--output", str(results), "--series", str(series)])
    assert status == 1  # some runs failed
    rows = read_rows(results)
    outputs = [v.name for v in read_model_description(str(fmu)).modelVariables if v.causality == "output"]
    assert [(float(r["mu_rk"]), float(r["m1"])) for r in rows] == [
        (mu, m1) for mu in (0.0, 0.075, 0.15) for m1 in (2.5, -1.0)]
    for i, row in enumerate(rows):
        assert row["run"] == str(i)
        assert float(row["wall_time"]) > 0
        if float(row["m1"]) < 0:
            assert row["status"] == "error"
            assert "fmi2SetReal returned Error" in row["message"]
            assert "m1 = -1.0 is outside its allowed range [0.0, inf)" in row["message"]
            assert all(row[f"{n}.{s}"] == "" for n in outputs for s in ("final", "min", "max"))
            assert not (series / str(i)).exists()
            continue
        assert row["status"] == "ok" and row["message"] == ""
        ref = direct_run(fmu, {"mu_rk": float(row["mu_rk"]), "m1": float(row["m1"])})
        for name in outputs:
            y = ref[name].astype(float)
            for stat, value in (("final", y[-1]), ("min", y.min()), ("max", y.max())):
                np.testing.assert_allclose(float(row[f"{name}.{stat}"]), value, rtol=1e-12, atol=1e-12,
                                           err_msg=f"run {i}: {name}.{stat}")
        written = read_csv(series / str(i) / "SliderCrank_ref.csv")
        np.testing.assert_array_equal(written["time"], ref["time"])
        for name in outputs:
            np.testing.assert_allclose(written[name], ref[name].astype(float), rtol=1e-12, atol=1e-12,
                                       err_msg=f"run {i}: series of {name}")
        opt = read_opt(series / str(i) / "SliderCrank_ref.opt")
        assert opt == {"StartTime": 0.0, "StopTime": STOP, "StepSize": STEP, "RelTol": 1e-8}
        assert (series / str(i) / "SliderCrank_in.csv").exists()
    # the FMU went to the workers as bytes: the workers that ran it hold its extracted copy by digest
    from dask.distributed import Client

    digest = hashlib.sha256(fmu.read_bytes()).hexdigest()
    with Client(dask_scheduler) as client:
        held = client.run(lambda: list(cluster._LOCAL))
    assert len(held) == 2 and any(digest in digests for digests in held.values()), held


def test_a_local_cluster_runs_the_sweep_when_no_scheduler_is_given(fmus, tmp_path):
    fmu = fmus["SingleMassFriction"]
    results = tmp_path / "results.csv"
    assert main([str(fmu), "--stop-time", "0.5", "--step", "0.05", "--grid", "zd_start=0.5,2", "--workers", "1",
                 "--output", str(results)]) == 0
    rows = read_rows(results)
    assert [r["status"] for r in rows] == ["ok", "ok"]
    for row in rows:
        ref = simulate_fmu(str(fmu), stop_time=0.5, output_interval=0.05,
                           start_values={"zd_start": float(row["zd_start"])})
        for out in ref.dtype.names[1:]:
            np.testing.assert_allclose(float(row[f"{out}.final"]), float(ref[out][-1]), rtol=1e-12, atol=1e-12,
                                       err_msg=f"zd_start = {row['zd_start']}: {out}.final")
    assert float(rows[0]["z.final"]) < float(rows[1]["z.final"])  # a faster start slides farther


@pytest.mark.parametrize("grid, message", [
    (["no_such=1,2"], "the FMU has no parameter 'no_such'; its parameters: m1, a1, J1"),
    (["mu_rk"], "expected NAME=v1,v2,... or NAME=start:stop:count"),
    (["mu_rk=0:1"], "expected NAME=v1,v2,... or NAME=start:stop:count"),
    (["mu_rk=0:1:2.5"], "count an integer >= 1"),
    (["mu_rk=0.1,x"], "(numbers; count an integer >= 1)"),
    (["mu_rk=0.1", "mu_rk=0.2"], "mu_rk is given twice"),
])
def test_a_bad_grid_is_an_error_naming_it(fmus, tmp_path, capsys, grid, message):
    argv = [str(fmus["SliderCrank"]), "--stop-time", "1", "--step", "0.1", "--output", str(tmp_path / "r.csv")]
    assert main(argv + [a for g in grid for a in ("--grid", g)]) == 2
    err = capsys.readouterr().err
    assert message in err and grid[-1] in err
    assert not (tmp_path / "r.csv").exists()


def test_bad_times_and_inputs_are_errors(fmus, tmp_path, capsys):
    fmu = str(fmus["SliderCrank"])
    out = ["--output", str(tmp_path / "r.csv"), "--grid", "mu_rk=0.1"]
    assert main([fmu, "--stop-time", "1", "--step", "0", *out]) == 2
    assert "0 < --step <= --stop-time" in capsys.readouterr().err
    table = tmp_path / "in.csv"
    table.write_text('"time","torque"\n0,1\n1,1\n')
    assert main([fmu, "--stop-time", "1", "--step", "0.1", "--input", str(table), *out]) == 2
    assert "['torque'] are no inputs of the FMU; its inputs: tau" in capsys.readouterr().err
    assert main([str(tmp_path / "none.fmu"), "--stop-time", "1", "--step", "0.1", *out]) == 2
    assert "no FMU at" in capsys.readouterr().err


def test_ctrl_c_cancels_the_sweep_and_stops_the_local_cluster(fmus, tmp_path):
    """SIGINT to the whole process group, as a terminal's Ctrl-C sends it: exit 130, no traceback,
    no results, and no process of the local cluster left."""
    import os
    import signal
    import subprocess
    import sys

    import psutil

    results = tmp_path / "results.csv"
    # the sweep as a terminal's foreground process runs it, with Python's SIGINT handler: this test's
    # process may have been started with SIGINT ignored (in the background of a non-interactive
    # shell), and a Python started with SIGINT ignored keeps ignoring it
    foreground = ("import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                  "runpy.run_module('friction_joints.sweep', run_name='__main__', alter_sys=True)")
    proc = subprocess.Popen([sys.executable, "-c", foreground, str(fmus["SliderCrank"]), "--stop-time",
                             "2", "--step", "0.01", "--grid", "mu_rk=0:0.1:40", "--workers", "2", "--output",
                             str(results)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        seen = b""
        while b" 1/40 runs" not in seen:  # the first run finished
            chunk = os.read(proc.stderr.fileno(), 256)
            assert chunk, f"the sweep ended early: {seen.decode()}"
            seen += chunk
        workers = psutil.Process(proc.pid).children(recursive=True)
        assert workers
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    err = err.decode()
    assert proc.returncode == 130, err
    assert "sweep cancelled after" in err and "of 40 tasks; nothing written" in err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert not results.exists()
    _, alive = psutil.wait_procs(workers, timeout=10)
    assert not alive


def test_a_task_of_two_fmus_runs_through_the_sweep_as_in_one_process(fmus, dask_scheduler):
    """The steering study's task (steering and vehicle FMUs co-simulated per run, both shipped)."""
    from dask.distributed import Client

    from friction_joints.fmi.steering_vehicle import loop_width_case
    from friction_joints.fmi.sweep import grid, sweep

    paths = {"steering": fmus["SteeringSystem"], "vehicle": fmus["SingleTrackVehicle"]}
    points = grid({"mu_k": [0.0, 0.1], "b": [1e-3]})
    with Client(dask_scheduler) as client:
        rows = sweep(client, loop_width_case, paths, points, 0.005)
    assert [r.params for r in rows] == [{"mu_k": 0.0, "b": 1e-3}, {"mu_k": 0.1, "b": 1e-3}]
    for row in rows:
        assert row.status == "ok", row.message
        direct = loop_width_case(paths, row.params, 0.005)[0]["hysteresis_width"]
        np.testing.assert_allclose(row.values["hysteresis_width"], direct, rtol=1e-12, err_msg=str(row.params))
    assert rows[1].values["hysteresis_width"] > rows[0].values["hysteresis_width"] + 0.3  # king-pin friction


def exit_at_one(fmus, params):
    """A sweep task whose worker process dies at x = 1 (as on a crash inside an FMU), 2 s after it
    starts: a dying worker also loses the results it still holds for the client, which Dask then
    recomputes, and with allowed-failures 0 fails (seen once on a loaded machine); the pause lets
    the client fetch the run before it."""
    import os
    import time

    if params["x"] == 1:
        time.sleep(2.0)
        os._exit(3)
    return {"x2": params["x"] ** 2}, None


def test_a_run_whose_worker_dies_is_an_error_row_and_the_others_complete():
    import dask

    from friction_joints.fmi.sweep import grid, sweep

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), cluster.connect(workers=1) as client:
        rows = sweep(client, exit_at_one, {}, grid({"x": [0, 1, 2]}))
    assert [r.status for r in rows] == ["ok", "error", "ok"]
    assert "KilledWorker" in rows[1].message
    assert [rows[0].values, rows[2].values] == [{"x2": 0.0}, {"x2": 4.0}]


def test_a_worker_extracts_a_shipped_fmu_in_its_own_directory(fmus, dask_scheduler):
    """On a worker an FMU is extracted once, inside the worker's local directory, which Dask deletes
    with the worker (a terminated worker runs no exit handler: its folders were left in the temporary
    directory); outside a worker in a temporary folder."""
    from dask.distributed import Client, get_worker

    shipped = cluster.FMUFile.read(fmus["SliderCrank"])
    with Client(dask_scheduler) as client:
        where = client.submit(lambda f: (str(f.local()), str(f.local()), get_worker().local_directory),
                              shipped, pure=False).result()
    first, again, directory = map(Path, where)
    assert first == again
    assert first.parent == directory
    assert (first / "modelDescription.xml").is_file()
