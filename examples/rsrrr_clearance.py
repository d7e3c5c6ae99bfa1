"""The RSRRR linkage of seed 002 with a radial clearance in joint (2,2) and a flexible coupler (2,3) (seed 003).

Drive torque ramped to 10 N.m over 0.05 s from rest, every link in the vertical yz plane; the bearing of joint
(2,2) starts centred on its journal (clearance 0.1 mm, K = 1e8 N/m^1.5, Flores law e = 0.9), so it drops, strikes
and rattles before it settles. K is a soft contact here, for speed: the default from the steel journal's geometry,
7.8e10 N/m^1.5, keeps the penetration at 3 % of the clearance instead of 65 %, and runs about 7 times longer.
Four runs: the ideal joint, the clearance with friction (journal friction of seed 002 in the other joints, Tanh
contact friction), the clearance without any friction, and the clearance beside a flexible coupler (modified
RFEM, 2 sdes, E = 2 GPa). Prints the contact events, the peak contact force and the energy balance of each run;
writes rsrrr_clearance.png (joint force time courses, the bearing centre's path inside the clearance circle, the
coupler's deflection, friction's effect) to the output folder.

    python examples/rsrrr_clearance.py [--t-end 0.03] [--out out]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _output import pyplot  # noqa: E402

from friction_joints.engine import run  # noqa: E402
from friction_joints.spatial.clearance_rsrrr import ClearanceParameters, ClearanceRSRRR  # noqa: E402
from friction_joints.spatial.clearance_system import ClearanceRSRRRSystem  # noqa: E402
from friction_joints.spatial.rsrrr import RSRRRParameters  # noqa: E402
from friction_joints.spatial.system import paper_drive  # noqa: E402

CLEARANCE = dict(clearance=1e-4, k_contact=1e8, joint=2)
RUNS = {
    "ideal joint": (True, ClearanceParameters()),
    "clearance": (True, ClearanceParameters(**CLEARANCE)),
    "clearance, no friction": (False, ClearanceParameters(**CLEARANCE)),
    "clearance, flexible coupler": (True, ClearanceParameters(**CLEARANCE, flexible=3, n_rfe=2, E=2e9, G=2e9 / 2.6)),
}


def simulate(friction, clearance, t_end):
    mech = ClearanceRSRRR(RSRRRParameters(friction=friction), clearance)
    system = ClearanceRSRRRSystem(mech, [paper_drive(10.0, 0.05), 0.0])
    start = time.perf_counter()
    r = run(system, system.initial_state(seated=False), t_end, dt_out=t_end / 600, rtol=1e-8, atol=1e-11,
            engine="python")
    E = r["E_kin"] + r["E_pot"] + r["E_elastic"]
    residual = np.abs(E - E[0] - (r["W_drive"] + r["W_friction"] + r["W_dissipated"])).max()
    impacts = sum(kind == "impact" for _, kind in r.events)
    print(f"  {time.perf_counter() - start:6.1f} s wall, {impacts} impacts, peak contact force "
          f"{r['F_contact'].max():8.1f} N, W_dissipated {r['W_dissipated'][-1]:.3e} J, energy balance {residual:.1e} J")
    return mech, r


def plot(runs, out):
    plt = pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(2, 2, figsize=(11, 8))
    mech, ideal = runs["ideal joint"]
    j = mech.c.joint
    ax[0, 0].plot(ideal.t * 1e3, np.hypot(ideal["f_O"][:, j, 0], ideal["f_O"][:, j, 1]), "k", label="ideal joint")
    for name in ("clearance", "clearance, flexible coupler"):
        ax[0, 0].plot(runs[name][1].t * 1e3, runs[name][1]["F_contact"], label=name)
    ax[0, 0].set(xlabel="t (ms)", ylabel="radial force in joint (2,2) (N)", yscale="symlog")
    ax[0, 0].legend()
    mech, r = runs["clearance"]
    c = mech.clearance_joint.c
    phi = np.linspace(0.0, 2.0 * np.pi, 200)
    ax[0, 1].plot(c * np.cos(phi) * 1e6, c * np.sin(phi) * 1e6, "k:", label="clearance circle")
    for name in ("clearance", "clearance, no friction"):
        m, r = runs[name]
        ax[0, 1].plot(r["q_all"][:, m.gap[0]] * 1e6, r["q_all"][:, m.gap[1]] * 1e6, label=name)
    ax[0, 1].set(xlabel="x (um)", ylabel="y (um)", aspect="equal", title="bearing centre in the journal axis frame")
    ax[0, 1].legend()
    m, r = runs["clearance, flexible coupler"]
    for k, i in enumerate(m.sde):
        ax[1, 0].plot(r.t * 1e3, r["q_all"][:, i] * 1e3, label=f"sde coordinate {k + 1}")
    ax[1, 0].set(xlabel="t (ms)", ylabel="coupler sde rotations (mrad)")
    ax[1, 0].legend(fontsize="small")
    for name in ("clearance", "clearance, no friction"):
        ax[1, 1].plot(runs[name][1].t * 1e3, runs[name][1]["F_contact"], label=name)
    ax[1, 1].set(xlabel="t (ms)", ylabel="contact force (N)", title="effect of friction")
    ax[1, 1].legend()
    fig.tight_layout()
    fig.savefig(out / "rsrrr_clearance.png", dpi=120)
    print(f"  wrote {out / 'rsrrr_clearance.png'}")


def main(t_end, out):
    out.mkdir(parents=True, exist_ok=True)
    runs = {}
    for name, (friction, clearance) in RUNS.items():
        print(name)
        runs[name] = simulate(friction, clearance, t_end)
    plot(runs, out)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-end", type=float, default=0.03)
    parser.add_argument("--out", type=Path, default=Path("out"))
    args = parser.parse_args()
    main(args.t_end, args.out)
