"""Throughput of FMU sweeps on Dask and the per-task overheads that set their scaling (not a test).

SliderCrank driven by tau = 4 sin(3 t) N.m (tests/references/SliderCrank_in.csv), --t-end s at a
--h s communication step, a grid of --runs values of mu_rk in [0, 0.15], on a LocalCluster of 1 and
of 2 worker processes (friction_joints.fmi.cluster, one thread each), in one run:
  start-up     the LocalCluster's start and the first run on every worker (cold: FMU transfer,
               extraction, the package's imports at the first instantiation);
  throughput   runs per second of the sweep (friction_joints.fmi.sweep.sweep) once every worker is warm.
Per-task overheads, measured on the 2-worker cluster:
  Dask task      round trip of a no-op task (submit to result), and no-op tasks per second with 200
                 submitted at once (a lower bound of what the scheduler sustains);
  FMU transfer   the FMU's bytes scattered to one worker (client.scatter), and fetched by another
                 worker at its first task that uses them (less a no-op task);
  extraction     FMUFile.local on a worker (once per worker process);
  instantiation  FMU2Slave instantiate, setupExperiment and initialisation: the first in a process
                 (imports the FMU's package) and a later one;
  simulation     a run's wall time on the worker less a later instantiation.
The expected scaling on a cluster follows from them (printed at the end).

Usage: python benchmarks/bench_sweep.py [--runs 24] [--t-end 1.0] [--h 0.01] [--dist dist]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from friction_joints.fmi import cluster
from friction_joints.fmi.master import FMUInstance
from friction_joints.fmi.regression import read_csv
from friction_joints.fmi.sweep import grid, simulate_case, sweep

ROOT = Path(__file__).resolve().parents[1]


def _noop(i=0):
    return i


def _held():
    """The number of FMUs this worker process has extracted."""
    return len(cluster._LOCAL)


def _fetch(fmu):
    """A task that only needs the FMU's bytes on its worker."""
    return len(fmu.data)


def _phases(fmu, params, opt, inputs, outputs):
    """On a fresh worker: extraction, first and later instantiation, and a run's wall time (s)."""
    start = time.perf_counter()
    folder = fmu.local()
    extracted = time.perf_counter()
    instantiations = []
    for _ in range(3):
        t = time.perf_counter()
        FMUInstance(folder, "probe").close()
        instantiations.append(time.perf_counter() - t)
    t = time.perf_counter()
    simulate_case({"fmu": folder}, params, opt, inputs, outputs, False)
    return {"extraction": extracted - start, "first instantiation": instantiations[0],
            "instantiation": min(instantiations[1:]), "run": time.perf_counter() - t}


def roundtrip(client, fn, *args, workers=None) -> float:
    start = time.perf_counter()
    client.submit(fn, *args, workers=workers, pure=False).result()
    return time.perf_counter() - start


def throughput(n_workers, fmu, points, setup):
    """(start-up s, runs per second once warm) of the sweep on a LocalCluster of n_workers."""
    start = time.perf_counter()
    with cluster.connect(workers=n_workers) as client:
        warm = []
        while not warm or not all(client.run(_held).values()):  # until every worker has run the FMU
            warm += sweep(client, simulate_case, {"fmu": fmu}, points[:n_workers], *setup, label="warm-up runs")
        startup = time.perf_counter() - start
        start = time.perf_counter()
        rows = sweep(client, simulate_case, {"fmu": fmu}, points, *setup, label="runs")
        wall = time.perf_counter() - start
    assert all(r.status == "ok" for r in warm + rows), [r.message for r in warm + rows if r.status != "ok"]
    return startup, len(rows) / wall


def overheads(fmu, points, setup):
    """The per-task overheads (s) on a fresh 2-worker LocalCluster."""
    with cluster.connect(workers=2) as client:
        a, b = sorted(client.scheduler_info()["workers"])
        noop = statistics.median(roundtrip(client, _noop, workers=[a]) for _ in range(20))
        start = time.perf_counter()
        client.gather(client.map(_noop, range(200), pure=False))
        rate = 200 / (time.perf_counter() - start)
        start = time.perf_counter()
        shipped = client.scatter(cluster.FMUFile.read(fmu), workers=[a], hash=False)
        scatter = time.perf_counter() - start
        fetch = roundtrip(client, _fetch, shipped, workers=[b]) - noop
        phases = client.submit(_phases, shipped, points[0], *setup[:3], workers=[b], pure=False).result()
    return rate, {"Dask task (no-op round trip)": noop, "FMU transfer: scatter to a worker": scatter,
                  "FMU transfer: fetch by another worker": fetch} | phases


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=24, help="runs of the timed sweep")
    parser.add_argument("--t-end", type=float, default=1.0, help="simulated time per run [s]")
    parser.add_argument("--h", type=float, default=0.01, help="communication step [s]")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="folder of the built FMUs")
    args = parser.parse_args()
    fmu = args.dist / "SliderCrank.fmu"
    inputs = read_csv(ROOT / "tests" / "references" / "SliderCrank_in.csv")
    opt = {"StartTime": 0.0, "StopTime": args.t_end, "StepSize": args.h, "RelTol": 1e-8}
    from fmpy import read_model_description
    outputs = [v.name for v in read_model_description(str(fmu)).modelVariables if v.causality == "output"]
    setup = (opt, inputs, outputs, False)
    points = grid({"mu_rk": [0.15 * i / max(args.runs - 1, 1) for i in range(args.runs)]})
    print(f"SliderCrank, {args.t_end:g} s at a {args.h * 1e3:g} ms step ({fmu.stat().st_size / 1e6:.1f} MB FMU), "
          f"{args.runs} runs per sweep")
    rates = {}
    for n in (1, 2):
        startup, rates[n] = throughput(n, fmu, points, setup)
        print(f"  {n} worker{'s' if n > 1 else ' '}: start-up {startup:5.2f} s (cluster and a cold run per worker), "
              f"then {rates[n]:6.2f} runs/s")
    print(f"  2 workers / 1 worker: {rates[2] / rates[1]:.2f} on {os.cpu_count()} cores; load average over the last "
          f"minute {os.getloadavg()[0]:.2f} (other processes' work takes cores from the workers)")
    rate, cost = overheads(fmu, points, setup)
    print(f"  no-op tasks: {rate:.0f} per second (200 at once, 2 workers)")
    print("  per-task overheads:")
    for name, seconds in cost.items():
        print(f"    {name:40s} {seconds * 1e3:8.1f} ms")
    simulation = cost["run"] - cost["instantiation"]
    per_run = cost["run"] + cost["Dask task (no-op round trip)"]
    print(f"    {'simulation (run less instantiation)':40s} {simulation * 1e3:8.1f} ms")
    cold = cost["FMU transfer: fetch by another worker"] + cost["extraction"] + cost["first instantiation"]
    print(f"  expected on a cluster of W single-threaded workers: about W / {per_run:.3f} s = W x {1 / per_run:.1f} "
          f"runs/s once warm, linear while that stays below the scheduler's task rate (at least {rate:.0f}/s "
          f"measured here: up to W of about {rate * per_run:.0f} at this run length; longer runs scale further), "
          f"after a one-time {cold:.2f} s per worker (transfer, extraction, first instantiation)")


if __name__ == "__main__":
    main()
