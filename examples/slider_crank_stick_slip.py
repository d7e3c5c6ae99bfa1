"""Stick-slip of the slider-crank of seed 000 Example 2 (Fig. 8), and Example 1 with and without
friction (Fig. 6).

Example 2: from rest in the hanging equilibrium (gravity +x), driven by tau = 4 sin(3 t) N.m for
10 s. Amplitude and frequency are chosen so that both scenarios of seed 000 Sect. 5 occur: at
u = 0 the drive and gravity either overcome the static friction (the motion reverses and passes
straight through) or not (stiction until the drive breaks it). The O-joint reaction is
indeterminate during stiction (Sect. 5) and is plotted with breaks there.

Example 1: the offset slider-crank from rest at q1 = 0 under a constant tau = 60 N.m (enough to
lift the links against gravity, which needs about 50 N.m at q1 = 0), 2 s, with and without friction.

Writes slider_crank.csv/png and offset_slider_crank.csv/png to the output folder (default out/).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _output import pyplot, stacked_plot, write_csv  # noqa: E402

from friction_joints.hybrid.signals import Sine  # noqa: E402
from friction_joints.mechanisms import offset_slider_crank, slider_crank  # noqa: E402
from friction_joints.simulation import simulate  # noqa: E402


def example2(out: Path, plt):
    mech = slider_crank()
    res = simulate(mech, [Sine(4.0, 3.0)], 10.0, mech.assemble([0.0]), [0.0], dt_out=0.01)
    t, stuck, u = res.t, res["stuck"], res["u"][:, 0]
    f_O = np.hypot(res["f"][:, 0], res["f"][:, 1])  # NaN during stiction
    sticks, breaks = res.event_times("stick"), res.event_times("breakaway")
    E = res["E_kin"] + res["E_pot"]
    print("Slider-crank (seed 000 Example 2), tau = 4 sin(3t) N.m from the hanging equilibrium")
    print("  stiction intervals [s]: " + ", ".join(f"{a:.4f}-{b:.4f}" for a, b in zip(sticks, breaks)))
    print("  reversals at u = 0 [s]: " + ", ".join(f"{v:.4f}" for v in res.event_times("reversal")))
    kinematic = [t for t, k in res.events if k.startswith("reversal:")]
    print("  friction reversals at joint B while the crank moves [s]: " + ", ".join(f"{v:.4f}" for v in kinematic))
    print(f"  friction work {res['W_friction'][-1]:.4f} J, energy balance residual "
          f"{np.abs(res['W_drive'] - (E - E[0]) + res['W_friction']).max():.2e} J")
    write_csv(out / "slider_crank.csv", {"time_s": t, "tau_Nm": res["tau"][:, 0], "th1_rad": res["q"][:, 0],
                                         "u_rad_per_s": u, "f_O_N": f_O, "W_friction_J": res["W_friction"],
                                         "stuck": stuck})
    if plt is None:
        return
    stacked_plot(plt, t, [("tau [N.m]", res["tau"][:, 0]), ("u = dth1/dt [rad/s]", u), ("|f_O| [N]", f_O)],
                 "Slider-crank of seed 000 Example 2: stick-slip", out / "slider_crank.png",
                 xlabel="time [s] (grey: stiction; the reaction is indeterminate there)", stuck=stuck)


def example1(out: Path, plt):
    runs = {}
    for friction in (True, False):
        mech = offset_slider_crank(friction=friction)
        runs[friction] = simulate(mech, [60.0], 2.0, mech.assemble([0.0]), [0.0], dt_out=0.01)
    t = runs[True].t

    def on_t(r, y):  # the runs record extra rows at their events: compare on one time base
        return np.interp(t, r.t, y)

    q1 = {k: on_t(r, r["q"][:, 0]) for k, r in runs.items()}
    print("Offset slider-crank (seed 000 Example 1), tau = 60 N.m from rest at q1 = 0")
    print(f"  crank angle at 2 s: {q1[True][-1]:.4f} rad with friction, {q1[False][-1]:.4f} rad without "
          f"({100 * (1 - q1[True][-1] / q1[False][-1]):.1f}% less)")
    write_csv(out / "offset_slider_crank.csv", {
        "time_s": t, "q1_friction_rad": q1[True], "q1_no_friction_rad": q1[False],
        "u_friction_rad_per_s": runs[True]["u"][:, 0], "u_no_friction_rad_per_s": on_t(runs[False], runs[False]["u"][:, 0]),
        "x3_friction_m": runs[True]["q"][:, 2], "x3_no_friction_m": on_t(runs[False], runs[False]["q"][:, 2])})
    if plt is None:
        return
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(7, 7))
    for ax, key, label in zip(axes, ("q1", "u", "x3"), ("q1 [rad]", "u [rad/s]", "slider x3 [m]")):
        for friction, style in ((True, "-"), (False, "--")):
            r = runs[friction]
            y = {"q1": r["q"][:, 0], "u": r["u"][:, 0], "x3": r["q"][:, 2]}[key]
            ax.plot(r.t, y, style, label="mu" if friction else "mu = 0")
        ax.set_ylabel(label)
    axes[0].legend()
    axes[-1].set_xlabel("time [s]")
    fig.suptitle("Offset slider-crank of seed 000 Example 1 (Fig. 6)")
    fig.tight_layout()
    fig.savefig(out / "offset_slider_crank.png", dpi=120)


def main(out: Path):
    out.mkdir(parents=True, exist_ok=True)
    plt = pyplot()
    example2(out, plt)
    example1(out, plt)
    print(f"  wrote slider_crank.csv/png and offset_slider_crank.csv/png in {out}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("out"), help="output folder")
    main(parser.parse_args().out)
