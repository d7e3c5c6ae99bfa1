"""The spatial RSRRR linkage of seed 002 with and without friction in its revolute joints.

Drive torque ramped to t_dr,0 = 10 N.m over t_st = 2 s, governed-brake resistance balancing it at
psid_0 = 9 rad/s (Fig. 10 as we read it), from rest with every link in the vertical yz plane.
Prints the driving speed after start-up, the loop closure error, the energy balance and the
iterations of the reaction-friction coupling; writes rsrrr.csv, rsrrr_motion.png (Fig. 11 analogue)
and rsrrr_reactions.png (Fig. 12 analogue) to the output folder (default out/).

    python examples/rsrrr_linkage.py [--t-end 10] [--out out] [--stiction]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _output import pyplot, write_csv  # noqa: E402

from friction_joints.engine import run  # noqa: E402
from friction_joints.spatial.rsrrr import JOINTS, RSRRR, RSRRRParameters  # noqa: E402
from friction_joints.spatial.system import RSRRRSystem, paper_drive, paper_load  # noqa: E402


def simulate(friction, t_end, stiction=False):
    system = RSRRRSystem(RSRRR(RSRRRParameters(friction=friction)), [paper_drive(), 0.0], paper_load(),
                         stiction=stiction)
    start = time.perf_counter()
    r = run(system, system.initial_state(), t_end, dt_out=0.01, rtol=1e-8, atol=1e-10)
    return r, time.perf_counter() - start


def summary(name, r, wall, t_end):
    late = r["qd"][r.t > min(2.5, t_end / 2)][:, 0]
    E = r["E_kin"] + r["E_pot"]
    residual = np.abs(E - E[0] - (r["W_drive"] + r["W_friction"])).max()
    print(f"  {name}: {wall:.1f} s wall for {t_end:g} s")
    print(f"    driving speed after {min(2.5, t_end / 2):g} s: mean {late.mean():.3f} rad/s, "
          f"range {late.min():.3f}..{late.max():.3f}")
    print(f"    loop closure error: max {r['closure'].max():.2e} m; energy balance residual {residual:.2e} J")
    print(f"    net drive work {r['W_drive'][-1]:.2f} J (of which resistance {r['W_res'][-1]:.2f} J), "
          f"friction {r['W_friction'][-1]:.3f} J")
    if len(r.events):
        print("    events: " + ", ".join(f"{k} at {t:.4f} s" for t, k in r.events))


def main(out: Path, t_end: float, stiction: bool):
    out.mkdir(parents=True, exist_ok=True)
    print("RSRRR spatial linkage (seed 002), cut at its spherical joint, recursive dynamics + Baumgarte")
    ideal, wall_ideal = simulate(False, t_end)
    summary("ideal joints", ideal, wall_ideal, t_end)
    rough, wall_rough = simulate(True, t_end, stiction)
    summary("friction in the joints" + (" (with exact stiction)" if stiction else " (eq. 7)"), rough, wall_rough, t_end)
    it = rough["iterations"]
    print(f"    reaction-friction coupling to 1e-12 N.m: {it.mean():.1f} iterations on average, {it.max()} at most")
    t = rough.t
    columns = {"time_s": t}
    for label, r in (("ideal", ideal), ("friction", rough)):
        rows = r.rows_at(t)
        for k, joint in enumerate(JOINTS):
            columns[f"psi{joint}_{label}_rad"] = r["q"][rows, k]
            columns[f"psid{joint}_{label}_rad_per_s"] = r["qd"][rows, k]
    for k, joint in enumerate(JOINTS):
        columns[f"f_O{joint}_N"] = np.linalg.norm(rough["f_O"][:, k], axis=1)
        columns[f"n_O_radial{joint}_N_m"] = np.linalg.norm(rough["n_O"][:, k, :2], axis=1)
        columns[f"t_f{joint}_N_m"] = rough["t_f"][:, k]
    write_csv(out / "rsrrr.csv", columns)
    plt = pyplot()
    if plt is None:
        return
    fig, axes = plt.subplots(4, 2, sharex=True, figsize=(10, 9))
    for k, joint in enumerate(JOINTS):
        for label, r, style in (("ideal", ideal, "--"), ("friction", rough, "-")):
            axes[k, 0].plot(r.t, np.unwrap(r["q"][:, k]), style, label=label)
            axes[k, 1].plot(r.t, r["qd"][:, k], style, label=label)
        axes[k, 0].set_ylabel(f"psi{joint} [rad]")
        axes[k, 1].set_ylabel(f"psid{joint} [rad/s]")
    axes[0, 0].legend()
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    fig.suptitle("RSRRR joint coordinates and velocities (seed 002 Fig. 11 analogue)")
    fig.tight_layout()
    fig.savefig(out / "rsrrr_motion.png", dpi=110)
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(8, 8))
    for k, joint in enumerate(JOINTS):
        axes[0].plot(t, columns[f"f_O{joint}_N"], label=f"joint {joint}")
        axes[1].plot(t, columns[f"n_O_radial{joint}_N_m"], label=f"joint {joint}")
        axes[2].plot(t, columns[f"t_f{joint}_N_m"], label=f"joint {joint}")
    for ax, label in zip(axes, ("|f_O| [N]", "|n_O,xy| [N.m]", "friction torque t_f [N.m]")):
        ax.set_ylabel(label)
    axes[0].legend(ncol=4)
    axes[-1].set_xlabel("time [s]")
    fig.suptitle("Joint reaction forces and torques with friction (seed 002 Fig. 12 analogue)")
    fig.tight_layout()
    fig.savefig(out / "rsrrr_reactions.png", dpi=110)
    print(f"  wrote {out / 'rsrrr.csv'}, {out / 'rsrrr_motion.png'}, {out / 'rsrrr_reactions.png'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-end", type=float, default=10.0, help="simulated time [s] (> 0)")
    parser.add_argument("--out", type=Path, default=Path("out"), help="output folder")
    parser.add_argument("--stiction", action="store_true", help="exact static friction at rest (beyond the paper)")
    args = parser.parse_args()
    if not args.t_end > 0:
        parser.error(f"--t-end must be positive, got {args.t_end}")
    main(args.out, args.t_end, args.stiction)
