"""The SteeringSystem FMU co-simulated with the SingleTrackVehicle FMU at 80 km/h, by two masters.

1. A driver torque sine sweep (2 N.m, 0.2 -> 2 Hz over 10 s) with and without friction, run by the
   project's master on FMPy: the on-centre loop (steering-wheel torque against angle) and the yaw
   rate against time.
2. The same run with friction by libcosim (libcosimpy, an independent master from PyPI): the largest
   difference from the FMPy run.
3. A parameter study: king-pin friction coefficient against the hysteresis width (loop area over
   angle range) under a slow 0.2 Hz, 5 N.m torque sine.

Writes cosim_steering.csv, cosim_steering.png and kingpin_friction_study.png to the output folder.

    python examples/cosim_steering.py [--dist dist] [--out out] [--h 0.005]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _output import pyplot, write_csv  # noqa: E402

from friction_joints.fmi.steering_vehicle import hysteresis_width, run_fmpy, run_libcosim, sine_sweep  # noqa: E402

KINGPIN_MU = (0.0, 0.025, 0.05, 0.1, 0.2)


def study(dist, h):
    """[(mu_k, hysteresis width N.m)] under tau_sw = 5 sin(0.4 pi t), over the period 2.5-7.5 s."""
    tau = sine_sweep(5.0, 0.2, 0.2, 1.0)
    rows = []
    for mu in KINGPIN_MU:
        r = run_fmpy(dist, tau, 7.5, h, steering={"mu_k": mu})
        period = r["time"] >= 2.5
        rows.append((mu, hysteresis_width(r["tau_sw"][period], r["delta_sw"][period])))
        print(f"    mu_k = {mu:5.3f}: hysteresis width {rows[-1][1]:.3f} N.m")
    return rows


def main(dist: Path, out: Path, h: float):
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
    print("  king-pin friction study (0.2 Hz, 5 N.m):")
    rows = study(dist, h)
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
    fig, ax = plt.subplots(figsize=(6, 4))
    mu, width = np.array(rows).T
    ax.plot(mu, width, "o-")
    ax.set(xlabel="king-pin friction coefficient mu_k", ylabel="hysteresis width (area / angle range) [N.m]",
           title="king-pin friction against hysteresis (0.2 Hz, 5 N.m)")
    fig.tight_layout()
    fig.savefig(out / "kingpin_friction_study.png", dpi=110)
    print(f"  wrote {out / 'cosim_steering.csv'}, {out / 'cosim_steering.png'}, {out / 'kingpin_friction_study.png'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=Path("dist"), help="folder of the built FMUs")
    parser.add_argument("--out", type=Path, default=Path("out"), help="output folder")
    parser.add_argument("--h", type=float, default=0.005, help="communication step [s]")
    args = parser.parse_args()
    main(args.dist, args.out, args.h)
