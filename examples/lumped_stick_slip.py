"""The compact luz/tar stick-slip models of seed 001: a stick-slip oscillator and two stacked blocks.

1. Single mass on a belt moving at 0.5 m/s, held by a spring (K = 10 N/m), static / kinetic
   friction 3 / 2 N (seed 001 Sect. 2 with a moving surface): the classic stick-slip limit cycle.
2. Block 1 (1 kg) on block 2 (2 kg) on a fixed base (seed 001 Sect. 4), frictions as the planar
   engine's stacked blocks (mu 0.3/0.2 and 0.5/0.4 with the weights), F1 = 4 sin(2 t) N,
   F2 = 18 sin(1.3 t) N from rest: all four velocity cases occur (both slip, block 1 stuck on
   block 2, block 2 stuck on the base, total stiction).

Prints the stick phases and the time spent in each velocity case; writes lumped_oscillator.csv /
.png and lumped_two_mass.csv / .png to the output folder (default out/).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _output import pyplot, shade_stiction, stacked_plot, write_csv  # noqa: E402

from friction_joints.hybrid.signals import Sine  # noqa: E402
from friction_joints.lumped import (SingleMassParameters, TwoMassParameters, simulate_single_mass,  # noqa: E402
                                    simulate_two_mass)

G = 9.81
CASES = ("both slip", "1 stuck on 2", "2 stuck on base", "total stiction")


def oscillator(out: Path, plt):
    p = SingleMassParameters(M=1.0, FT0=2.0, FT0S=3.0, K=10.0, v_belt=0.5)
    res = simulate_single_mass(p, 0.0, 10.0, dt_out=0.01)
    sticks, breaks = res.event_times("stick"), res.event_times("breakaway")
    print("1. stick-slip oscillator (mass on a belt at 0.5 m/s, spring 10 N/m, friction 3 / 2 N)")
    print("   stick phases [s]: " + ", ".join(f"{a:.4f}-{b:.4f}" for a, b in zip(sticks, breaks)))
    write_csv(out / "lumped_oscillator.csv", {"time_s": res.t, "z_m": res["z"], "zd_m_per_s": res["zd"],
                                              "friction_N": res["f"], "stuck": res["stuck"]})
    if plt is not None:
        stacked_plot(plt, res.t, [("z [m]", res["z"]), ("zd [m/s]", res["zd"]), ("friction [N]", res["f"])],
                     "Stick-slip oscillator (seed 001 Sect. 2 model, grey: stuck to the belt)",
                     out / "lumped_oscillator.png", stuck=res["stuck"])


def two_mass(out: Path, plt):
    p = TwoMassParameters(M1=1.0, M2=2.0, FT012=0.2 * G, FT012S=0.3 * G, FT020=0.4 * 3 * G, FT020S=0.5 * 3 * G)
    res = simulate_two_mass(p, [Sine(4.0, 2.0), Sine(18.0, 1.3)], 10.0, dt_out=0.01)
    s = res["stuck"]
    case = np.select([~s[:, 0] & ~s[:, 1], s[:, 0] & ~s[:, 1], ~s[:, 0] & s[:, 1]], [0, 1, 2], 3)
    dt = np.diff(res.t, append=res.t[-1])
    print("2. two stacked blocks (seed 001 Sect. 4), F1 = 4 sin(2 t) N, F2 = 18 sin(1.3 t) N")
    for k, name in enumerate(CASES):
        print(f"   {name:16s} {dt[case == k].sum():6.2f} s")
    print("   events: " + ", ".join(f"{t:.4f} {kind}" for t, kind in res.events))
    write_csv(out / "lumped_two_mass.csv", {"time_s": res.t, "z1_m": res["z"][:, 0], "z2_m": res["z"][:, 1],
                                            "zd1_m_per_s": res["zd"][:, 0], "zd2_m_per_s": res["zd"][:, 1],
                                            "f12_N": res["f"][:, 0], "f20_N": res["f"][:, 1],
                                            "stuck12": s[:, 0], "stuck20": s[:, 1], "case": case})
    if plt is None:
        return
    fig, axes = plt.subplots(4, 1, sharex=True, figsize=(8, 9))
    colours = ("white", "#c6dbef", "#fdd0a2", "0.75")
    for ax in axes:
        for k in (1, 2, 3):
            shade_stiction(ax, res.t, case == k, colours[k], CASES[k])
    axes[0].plot(res.t, res["z"][:, 0], label="z1")
    axes[0].plot(res.t, res["z"][:, 1], label="z2")
    axes[0].set_ylabel("position [m]")
    axes[1].plot(res.t, res["zd"][:, 0], label="zd1")
    axes[1].plot(res.t, res["zd"][:, 1], label="zd2")
    axes[1].set_ylabel("velocity [m/s]")
    axes[2].plot(res.t, res["f"][:, 0], label="f12 on block 1")
    axes[2].plot(res.t, res["f"][:, 1], label="f20 on block 2")
    axes[2].set_ylabel("friction [N]")
    axes[3].plot(res.t, 4 * np.sin(2 * res.t), label="F1")
    axes[3].plot(res.t, 18 * np.sin(1.3 * res.t), label="F2")
    axes[3].set_ylabel("force [N]")
    axes[3].set_xlabel("time [s]")
    for ax in axes:
        ax.legend(loc="upper right", fontsize=7)
    fig.suptitle("Two stacked blocks (seed 001 Sect. 4): blue 1 stuck on 2, orange 2 stuck on base, grey both")
    fig.tight_layout()
    fig.savefig(out / "lumped_two_mass.png", dpi=120)


def main(out: Path):
    out.mkdir(parents=True, exist_ok=True)
    plt = pyplot()
    oscillator(out, plt)
    two_mass(out, plt)
    print(f"wrote lumped_oscillator.csv/.png and lumped_two_mass.csv/.png to {out}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("out"))
    main(parser.parse_args().out)
