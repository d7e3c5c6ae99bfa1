"""The SteeringSystem FMU co-simulated with the SingleTrackVehicle FMU at 80 km/h, by two masters.

1. A driver torque sine sweep (2 N.m, 0.2 -> 2 Hz over 10 s) with and without friction, run by the
   project's master on FMPy: the on-centre loop (steering-wheel torque against angle) and the yaw
   rate against time.
2. The same run with friction by libcosim (libcosimpy, an independent master from PyPI): the largest
   difference from the FMPy run.
3. Two parameter studies of the hysteresis width (loop area over angle range) under a slow 0.2 Hz,
   5 N.m torque sine, run through the sweep on Dask (friction_joints.fmi.sweep, one task per run):
   the king-pin friction coefficient mu_k alone, and mu_k x the gear freeplay b (a heat map).

Writes cosim_steering.csv, cosim_steering.png, kingpin_friction_study.png (both studies) and
kingpin_freeplay_study.csv (the sweep's rows of mu_k x b) to the output folder.

    python examples/cosim_steering.py [--dist dist] [--out out] [--h 0.005] [--scheduler ADDRESS] [--workers N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _output import pyplot, write_csv  # noqa: E402

from friction_joints.fmi import cluster  # noqa: E402
from friction_joints.fmi.steering_vehicle import (fmu_paths, loop_width_case, run_fmpy, run_libcosim,  # noqa: E402
                                                  sine_sweep)
from friction_joints.fmi.sweep import grid, sweep, write_results  # noqa: E402

KINGPIN_MU = (0.0, 0.025, 0.05, 0.1, 0.2)
FREEPLAY_B = (0.0, 0.25e-3, 0.5e-3, 1e-3)  # m, half of the rack-pinion freeplay at the rack


def studies(dist, h, scheduler=None, workers=None):
    """The two parameter studies under tau_sw = 5 sin(0.4 pi t) (hysteresis width over the period
    2.5-7.5 s, friction_joints.fmi.steering_vehicle.loop_width_case), run through the sweep on Dask
    (a local cluster of `workers` processes, or the one at the `scheduler` address): king-pin mu_k
    alone, and mu_k x freeplay b. Returns the two lists of sweep rows."""
    fmus = fmu_paths(dist)
    with cluster.connect(scheduler, workers) as client:
        kingpin = sweep(client, loop_width_case, fmus, grid({"mu_k": KINGPIN_MU}), h, label="king-pin runs")
        both = sweep(client, loop_width_case, fmus, grid({"mu_k": KINGPIN_MU, "b": FREEPLAY_B}), h,
                     label="mu_k x b runs")
    for row in kingpin + both:
        if row.status != "ok":
            print(f"    {row.params}: {row.message}")
    return kingpin, both


def width(row):
    """The hysteresis width of a sweep row (N.m), NaN if its run failed."""
    return row.values.get("hysteresis_width", np.nan)


def main(dist: Path, out: Path, h: float, scheduler=None, workers=None):
    out.mkdir(parents=True, exist_ok=True)
    tau = sine_sweep(2.0, 0.2, 2.0, 10.0)
    print(f"Steering FMU + vehicle FMU at 80 km/h, communication step {h * 1e3:g} ms")
    runs = {}
    for label, params in (("friction", {}), ("no friction", {"friction_scale": 0.0})):
        start = time.perf_counter()
        runs[label] = run_fmpy(dist, tau, 10.0, h, steering=params)
        wall = time.perf_counter() - start
        print(f"  FMPy master, {label:11s}: {wall:5.1f} s wall (real-time factor {10.0 / wall:.2f}); peak "
              f"steering-wheel angle {np.degrees(np.abs(runs[label]['delta_sw']).max()):.1f} deg, peak yaw rate "
              f"{np.abs(runs[label]['r']).max():.3f} rad/s")
    start = time.perf_counter()
    cosim = run_libcosim(dist, tau, 10.0, h)
    wall = time.perf_counter() - start
    ref = runs["friction"][1:]
    diff = max(np.abs(cosim[c] - ref[c]).max() / max(np.abs(ref[c]).max(), 1e-12) for c in ("delta_sw", "r"))
    print(f"  libcosim master, friction : {wall:5.1f} s wall; largest relative difference from FMPy's run "
          f"(delta_sw, r): {diff:.1e}")
    print("  parameter studies on Dask (0.2 Hz, 5 N.m):")
    start = time.perf_counter()
    kingpin, both = studies(dist, h, scheduler, workers)
    print(f"    {len(kingpin) + len(both)} runs in {time.perf_counter() - start:.1f} s wall")
    for row in kingpin:
        print(f"    mu_k = {row.params['mu_k']:5.3f}: hysteresis width {width(row):.3f} N.m")
    table = np.array([width(row) for row in both]).reshape(len(KINGPIN_MU), len(FREEPLAY_B))
    write_results(out / "kingpin_freeplay_study.csv", both, ["mu_k", "b"], ["hysteresis_width"])
    r, n = runs["friction"], runs["no friction"]
    write_csv(out / "cosim_steering.csv", {"time_s": r["time"], "tau_sw_N_m": r["tau_sw"],
                                           "delta_sw_friction_rad": r["delta_sw"], "r_friction_rad_per_s": r["r"],
                                           "delta_sw_no_friction_rad": n["delta_sw"], "r_no_friction_rad_per_s": n["r"]})
    plt = pyplot()
    if plt is None:
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for label, style in (("no friction", "--"), ("friction", "-")):
        slow = runs[label]["time"] <= 4.0  # 0.2-0.9 Hz: the on-centre loop before the hands-free resonance
        axes[0].plot(np.degrees(runs[label]["delta_sw"][slow]), runs[label]["tau_sw"][slow], style, lw=0.8, label=label)
        axes[1].plot(runs[label]["time"], runs[label]["r"], style, lw=0.8, label=label)
    axes[0].set(xlabel="steering-wheel angle [deg]", ylabel="steering-wheel torque [N.m]",
                title="on-centre loop (first 4 s of the sweep, 0.2-0.9 Hz)")
    axes[1].set(xlabel="time [s]", ylabel="yaw rate [rad/s]", title="yaw rate, 80 km/h")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(out / "cosim_steering.png", dpi=110)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    axes[0].plot([row.params["mu_k"] for row in kingpin], [width(row) for row in kingpin], "o-")
    axes[0].set(xlabel="king-pin friction coefficient mu_k", ylabel="hysteresis width (area / angle range) [N.m]",
                title="king-pin friction against hysteresis (0.2 Hz, 5 N.m)")
    image = axes[1].imshow(table, origin="lower", aspect="auto", cmap="viridis")
    axes[1].set_xticks(range(len(FREEPLAY_B)), [f"{b * 1e3:g}" for b in FREEPLAY_B])
    axes[1].set_yticks(range(len(KINGPIN_MU)), [f"{mu:g}" for mu in KINGPIN_MU])
    for (i, j), w in np.ndenumerate(table):
        axes[1].text(j, i, f"{w:.2f}", ha="center", va="center", color="w" if w < np.nanmean(table) else "k")
    axes[1].set(xlabel="gear freeplay b (half, at the rack) [mm]", ylabel="king-pin friction coefficient mu_k",
                title="hysteresis width [N.m]: mu_k x freeplay")
    fig.colorbar(image, ax=axes[1], label="N.m")
    fig.tight_layout()
    fig.savefig(out / "kingpin_friction_study.png", dpi=110)
    print(f"  wrote {out / 'cosim_steering.csv'}, {out / 'kingpin_freeplay_study.csv'}, {out / 'cosim_steering.png'}, "
          f"{out / 'kingpin_friction_study.png'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=Path("dist"), help="folder of the built FMUs")
    parser.add_argument("--out", type=Path, default=Path("out"), help="output folder")
    parser.add_argument("--h", type=float, default=0.005, help="communication step [s]")
    parser.add_argument("--scheduler", help="address of a Dask scheduler for the studies (default: a local cluster)")
    parser.add_argument("--workers", type=int, help="worker processes of the local cluster (default: the cores)")
    args = parser.parse_args()
    main(args.dist, args.out, args.h, args.scheduler, args.workers)
