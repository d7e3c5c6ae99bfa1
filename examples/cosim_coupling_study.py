"""Which coupling scheme, at which step: the SteeringSystem and SingleTrackVehicle FMUs co-simulated by
the project's master with each scheme, against their monolithic integration.

For communication steps h of 1, 2, 5, 10, 20 and 50 ms, without and with friction, the driver torque
3 N.m swept 0.2 -> 1 Hz over 5 s at 80 km/h is run (1) by friction_joints.vehicle.monolithic, the
two models integrated as one hybrid system with exact stick-slip and the torque held over each step
as the master holds it, and (2) by the master with Jacobi, Jacobi with linear extrapolation,
Gauss-Seidel (its coupled inputs held, or interpolated linearly over the step from the extrapolated
or already computed values), and implicit coupling (IQN-ILS, rtol 1e-5, atol 1e-8; inputs held at
the values at t + h or interpolated from those at t to those at t + h; with friction a step that runs
out of its 50 iterations goes on from its last iterate, see Coupling.on_no_convergence). Reported per
run: the largest deviation of the steering-wheel angle and of the yaw rate from the reference (over
the reference's largest value), whether the run stays bounded (deviation below 100 %), FMU steps
and state rollbacks per simulated second, and the wall time per simulated second.

Writes coupling_study.csv and coupling_study.png to the output folder.

    python examples/cosim_coupling_study.py [--dist dist] [--out out] [--steps 0.001 0.002 ...]
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _output import pyplot  # noqa: E402

from friction_joints.fmi.coupling import Coupling, CouplingStats  # noqa: E402
from friction_joints.fmi.steering_vehicle import deviation, run_fmpy, study_torque, STUDY_T_END as T_END  # noqa: E402
from friction_joints.vehicle.monolithic import run_monolithic  # noqa: E402

STEPS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05)
CASES = {"no friction": {"friction_scale": 0.0}, "friction": {}}
SCHEMES = {"Jacobi": Coupling(interpolation="hold"),
           "Jacobi, linear extrapolation": Coupling(extrapolation="linear", interpolation="hold"),
           "Gauss-Seidel": Coupling("gauss-seidel", interpolation="hold"),
           "Gauss-Seidel, interpolated": Coupling("gauss-seidel", extrapolation="linear", interpolation="linear"),
           "implicit, IQN-ILS": Coupling("implicit", rtol=1e-5, atol=1e-8, on_no_convergence="accept",
                                         interpolation="hold"),
           "implicit, interpolated": Coupling("implicit", rtol=1e-5, atol=1e-8, on_no_convergence="accept",
                                              interpolation="linear")}
BOUNDED = 1.0  # a run whose deviation stays below this (100 % of the reference's range) is stable
COLUMNS = ("case", "scheme", "h_s", "deviation_delta_sw", "deviation_r", "stable", "fmu_steps_per_s",
           "rollbacks_per_s", "iterations_per_step", "unconverged_steps", "wall_per_s")


tau_sw = study_torque()  # N.m


def one_run(dist, case, scheme, h, reference):
    """A row of the study (dict of COLUMNS) for one case, scheme and step."""
    coupling, stats = SCHEMES[scheme], CouplingStats()
    start = time.perf_counter()
    try:
        run = run_fmpy(dist, tau_sw, T_END, h, steering=CASES[case], coupling=coupling, stats=stats)
        errors = [deviation(run, reference, column) for column in ("delta_sw", "r")]
    except Exception as exc:  # an FMU that fails its step (driven out of range) or a CouplingError
        print(f"      ({exc.__class__.__name__}: {str(exc)[:120]})")
        errors = [np.inf, np.inf]
    wall = time.perf_counter() - start
    steps = int(round(T_END / h))
    iterations = sum(stats.iterations) if stats.iterations else steps
    return dict(case=case, scheme=scheme, h_s=h, deviation_delta_sw=errors[0], deviation_r=errors[1],
                stable=max(errors) < BOUNDED, fmu_steps_per_s=2 * iterations / T_END,
                rollbacks_per_s=stats.rollbacks / T_END, iterations_per_step=iterations / steps,
                unconverged_steps=len(stats.unconverged), wall_per_s=wall / T_END)


def study(dist, steps):
    """Every row of the study, printed as it goes."""
    rows = []
    for case in CASES:
        for h in steps:
            start = time.perf_counter()
            reference = run_monolithic(tau_sw, T_END, h, steering=CASES[case])
            print(f"  {case}, h = {h * 1e3:g} ms (monolithic reference {time.perf_counter() - start:.1f} s)")
            for scheme in SCHEMES:
                row = one_run(dist, case, scheme, h, reference)
                rows.append(row)
                note = (f", {row['iterations_per_step']:.1f} iterations a step" if row["rollbacks_per_s"] else "")
                note += f", {row['unconverged_steps']} steps unconverged" if row["unconverged_steps"] else ""
                state = (f"{100 * row['deviation_delta_sw']:7.2g} % (yaw rate {100 * row['deviation_r']:.2g} %)"
                         if row["stable"] else "   diverges")
                print(f"    {scheme:29s} {state}{note}; {row['wall_per_s']:.2f} s wall per simulated s")
    return rows


def largest_stable(rows, case, scheme):
    """The largest step (s) of the study at which the scheme is stable and stays so at every smaller
    step, or None."""
    largest = None
    for row in sorted((r for r in rows if r["case"] == case and r["scheme"] == scheme), key=lambda r: r["h_s"]):
        if not row["stable"]:
            break
        largest = row["h_s"]
    return largest


def write_rows(path, rows):
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        writer.writerows([f"{row[c]:.6g}" if isinstance(row[c], float) else str(row[c]) for c in COLUMNS]
                         for row in rows)


def plot(plt, rows, path):
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for ax, case in zip(axes[:2], CASES):
        for scheme, marker in zip(SCHEMES, "osdv^P"):
            mine = [r for r in rows if r["case"] == case and r["scheme"] == scheme]
            h = np.array([r["h_s"] for r in mine]) * 1e3
            error = np.array([r["deviation_delta_sw"] if r["stable"] else np.nan for r in mine]) * 100
            ax.loglog(h, error, marker + "-", label=scheme)
            diverged = [x for x, r in zip(h, mine) if not r["stable"]]
            ax.plot(diverged, [100.0] * len(diverged), marker, color=ax.lines[-1].get_color(), mfc="none", ms=10)
        ax.axhline(2.0, color="0.6", ls=":", lw=1)
        ax.set(xlabel="communication step h [ms]", ylabel="steering-wheel angle deviation [%]",
               title=f"{case}: deviation from the monolithic run\n(open markers at 100 %: diverged)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    for scheme, marker in zip(SCHEMES, "osdv^P"):
        mine = [r for r in rows if r["case"] == "friction" and r["scheme"] == scheme]
        axes[2].loglog([r["h_s"] * 1e3 for r in mine], [r["fmu_steps_per_s"] for r in mine], marker + "-", label=scheme)
    axes[2].set(xlabel="communication step h [ms]", ylabel="FMU steps per simulated second",
                title="cost with friction\n(implicit: each iteration steps both FMUs)")
    axes[2].grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(dist: Path, out: Path, steps):
    out.mkdir(parents=True, exist_ok=True)
    print(f"SteeringSystem + SingleTrackVehicle, {T_END:g} s torque sweep, each coupling scheme against the "
          "monolithic integration")
    rows = study(dist, steps)
    print("  largest stable step of the study (stable at every smaller one):")
    for case in CASES:
        for scheme in SCHEMES:
            h = largest_stable(rows, case, scheme)
            print(f"    {case:11s} {scheme:29s} {'none' if h is None else f'{h * 1e3:g} ms'}")
    write_rows(out / "coupling_study.csv", rows)
    plt = pyplot()
    if plt is not None:
        plot(plt, rows, out / "coupling_study.png")
    print(f"  wrote {out / 'coupling_study.csv'}" + ("" if plt is None else f", {out / 'coupling_study.png'}"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=Path("dist"), help="folder of the built FMUs")
    parser.add_argument("--out", type=Path, default=Path("out"), help="output folder")
    parser.add_argument("--steps", type=float, nargs="+", default=STEPS, help="communication steps [s]")
    args = parser.parse_args()
    main(args.dist, args.out, args.steps)
