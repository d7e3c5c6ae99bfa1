"""Co-simulation of two FMUs: a PI speed controller drives the friction-affected slider-crank.

    python examples/cosim_speed_control.py [--dist dist] [--out out] [--t-end 6] [--h 0.01]

The SliderCrank FMU (seed 000 Example 2: friction in the three revolutes and the slider guide,
exact stick-slip) starts at rest in its hanging equilibrium. The SpeedController FMU (PI with
torque limit) gets the set point w_ref and the measured crank speed u and returns the drive
torque tau. The set point steps 0 -> 2 rad/s at 0.5 s and back to 0 at 4 s: the crank breaks
away, runs at speed through its friction, then is braked and held, with stick phases whenever
the friction can carry the difference between drive and gravity. Both FMUs are connected by the
fixed-step master of friction_joints.fmi.master (Jacobi, step h). Writes cosim_speed_control.csv and
.png to --out and prints a summary. --dist dist/native runs the native FMUs of both (python build_fmu.py
--native): the same results, with no Python inside the FMUs.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from friction_joints.fmi.master import Connection, FMUInstance, run
from friction_joints.fmi.speed_control import FMUS, LINKS, PARAMETERS
from friction_joints.fmi.regression import write_csv

ROOT = Path(__file__).resolve().parents[1]


def set_point(t):
    return 2.0 if 0.5 <= t < 4.0 else 0.0


def intervals(times, flags):
    """[(start, end)] of the runs where flags is true."""
    out, start = [], None
    for t, f in zip(times, flags):
        if f and start is None:
            start = t
        elif not f and start is not None:
            out.append((start, t))
            start = None
    if start is not None:
        out.append((start, times[-1]))
    return out


def simulate(dist, t_end, h, progress=None):
    instances = {name: FMUInstance(Path(dist) / fmu, name, PARAMETERS.get(name)) for name, fmu in FMUS.items()}
    try:
        return run(instances, [Connection(*link) for link in LINKS], h, t_end, external={("controller", "w_ref"): set_point},
                   record={"w_ref": ("controller", "w_ref"), "u": ("crank", "u"), "q1": ("crank", "q[1]"),
                           "tau": ("controller", "tau"), "f_O": ("crank", "f[1]"), "f_mu_O": ("crank", "f_mu[1]"),
                           "stuck": ("crank", "stuck"), "E_kin": ("crank", "E_kin"), "E_pot": ("crank", "E_pot"),
                           "W_drive": ("crank", "W_drive"), "W_friction": ("crank", "W_friction")},
                   progress=progress)
    finally:
        for inst in instances.values():
            inst.close()


def plot(res, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = res["time"]
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(9, 8))
    axes[0].plot(t, res["w_ref"], "k--", label="set point w_ref")
    axes[0].plot(t, res["u"], label="crank speed u")
    axes[0].set_ylabel("rad/s")
    axes[1].plot(t, res["tau"], label="drive torque tau (controller)")
    axes[1].set_ylabel("N.m")
    axes[2].plot(t, res["W_friction"], label="friction work W_friction")
    axes[2].plot(t, res["W_drive"], label="drive work W_drive")
    axes[2].set_ylabel("J")
    axes[2].set_xlabel("t (s)")
    for a, b in intervals(t, res["stuck"] > 0.5):
        for ax in axes:
            ax.axvspan(a, b, color="0.85", lw=0)
    axes[0].set_title("SpeedController FMU driving the SliderCrank FMU (grey: stick phases)")
    for ax in axes:
        ax.legend(loc="best", fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dist", default=str(ROOT / "dist"), help="folder of the built FMUs (python build_fmu.py)")
    parser.add_argument("--out", default=str(ROOT / "out"))
    parser.add_argument("--t-end", type=float, default=6.0, help="s")
    parser.add_argument("--h", type=float, default=0.01, help="communication step, s")
    args = parser.parse_args(argv)
    missing = [m for m in ("SliderCrank", "SpeedController") if not (Path(args.dist) / f"{m}.fmu").exists()]
    if missing:
        sys.exit(f"no {', '.join(missing)}.fmu in {args.dist}: run python build_fmu.py first")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    wall = time.perf_counter()
    every = max(1, int(round(1.0 / args.h)))

    def progress(t):
        if int(round(t / args.h)) % every == 0:
            print(f"  t = {t:5.2f} s of {args.t_end:g} s  ({time.perf_counter() - wall:5.1f} s wall)", flush=True)

    res = simulate(args.dist, args.t_end, args.h, progress)
    wall = time.perf_counter() - wall
    write_csv(out / "cosim_speed_control.csv", res)
    plot(res, out / "cosim_speed_control.png")
    t, stuck = res["time"], res["stuck"] > 0.5
    running = (t >= 2.0) & (t < 4.0)
    E = res["E_kin"] + res["E_pot"]
    balance = res["W_drive"] - (E - E[0]) + res["W_friction"]
    print(f"co-simulated {args.t_end:g} s at h = {args.h:g} s in {wall:.1f} s wall "
          f"({wall / len(t) * 1e3:.1f} ms per step)")
    print(f"speed over 2-4 s (set point 2 rad/s): mean {res['u'][running].mean():.3f} rad/s, "
          f"min {res['u'][running].min():.3f}, max {res['u'][running].max():.3f}")
    print("stick phases: " + (", ".join(f"{a:.2f}-{b:.2f} s" for a, b in intervals(t, stuck)) or "none"))
    print(f"drive work {res['W_drive'][-1]:.2f} J, friction work {res['W_friction'][-1]:.2f} J, "
          f"energy balance residual {np.abs(balance).max():.2e} J")
    print(f"wrote {out / 'cosim_speed_control.csv'} and {out / 'cosim_speed_control.png'}")


if __name__ == "__main__":
    main()
