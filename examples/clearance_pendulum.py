"""A pendulum hanging from a revolute joint with clearance (seed 003's planar model), with and without friction
at the contact, against the ideal pendulum.

Body: 1 kg, J_G = 1e-3 kg.m^2, its journal 0.1 m above the centre of mass; steel journal R_J = 9.8 mm in a
bearing R_B = 10 mm (c = 0.2 mm), Flores contact law with c_e = 0.5, friction Tanh mu_k = 0.1, v_eps = 1 mm/s
(or none). Released at rest at 1 rad with the journal against the top of the bearing, so the journal first
falls across the clearance, strikes, and then rolls and bounces along the wall as the pendulum swings.

Prints the impacts and the energy balance of each run; writes clearance_pendulum.csv and clearance_pendulum.png
(journal centre path inside the clearance circle, contact force, angle against the ideal pendulum, and the
energy terms) to the output folder (default out/).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

sys.path.insert(0, str(Path(__file__).parent))
from _output import pyplot, write_csv  # noqa: E402

from friction_joints.contact import Flores, FreeJournal, PlanarClearance, cylinder_stiffness  # noqa: E402
from friction_joints.friction import Tanh  # noqa: E402
from friction_joints.hybrid.integrator import HybridIntegrator  # noqa: E402
from friction_joints.planar.joints import rotation  # noqa: E402

M, J_G, L, G, PHI0, T_END = 1.0, 1e-3, 0.1, 9.81, 1.0, 0.6
R_J, R_B = 9.8e-3, 10e-3
LAW = Flores(0.5, cylinder_stiffness(R_J, R_B, 207e9, 207e9))


def simulate(friction, times):
    system = FreeJournal(PlanarClearance(R_J, R_B, LAW, friction), M, J_G, g=(0.0, -G), a=(0.0, L))
    r_J = np.array([0.0, R_B - R_J])  # against the top of the bearing
    y0 = system.initial_state(r_J - rotation(PHI0) @ [0.0, L], (0.0, 0.0), phi=PHI0)
    return HybridIntegrator(system, 0.0, y0, rtol=1e-8, atol=1e-12).advance(T_END, times)


def main(out: Path):
    out.mkdir(parents=True, exist_ok=True)
    times = np.linspace(0.0, T_END, 3001)[1:]
    ideal = solve_ivp(lambda t, y: [y[1], -M * G * L / (J_G + M * L**2) * np.sin(y[0])], (0.0, T_END),
                      [PHI0, 0.0], t_eval=times, rtol=1e-12, atol=1e-14).y[0]
    runs = {"frictionless": simulate(None, times), "mu = 0.1": simulate(Tanh(mu_k=0.1, v_eps=1e-3), times)}
    columns = {"t [s]": times, "phi ideal [rad]": ideal}
    for name, res in runs.items():
        rows = res.rows_at(times)
        E = res["E_kin"] + res["E_pot"] + res["E_el"] - res["W_d"]
        impacts = [t for t, k in res.events if k == "impact"]
        print(f"{name}: {len(impacts)} impacts (first at {impacts[0] * 1e3:.2f} ms), largest contact force "
              f"{res['F_n'].max():.0f} N, dissipated {-res['W_d'][-1]:.4f} J, energy balance error "
              f"{np.abs(E - E[0]).max():.1e} J, largest angle error {np.abs(res['phi'][rows] - ideal).max():.2e} rad")
        for key, unit in (("phi", "rad"), ("F_n", "N")):
            columns[f"{key} {name} [{unit}]"] = res[key][rows]
    write_csv(out / "clearance_pendulum.csv", columns)
    plt = pyplot()
    if plt is None:
        return
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    circle = np.linspace(0.0, 2 * np.pi, 200)
    c = (R_B - R_J) * 1e3
    axes[0, 0].plot(c * np.cos(circle), c * np.sin(circle), "k", lw=0.8, label="clearance circle")
    for name, res in runs.items():
        r_J = res["r_J"] * 1e3
        axes[0, 0].plot(r_J[:, 0], r_J[:, 1], lw=0.8, label=name)
        axes[0, 1].plot(res.t, res["F_n"], lw=0.8, label=name)
        axes[1, 0].plot(res.t, res["phi"], lw=0.8, label=name)
        axes[1, 1].plot(res.t, -res["W_d"], lw=0.8, label=f"dissipated, {name}")
        axes[1, 1].plot(res.t, res["E_el"], lw=0.8, label=f"contact elastic, {name}")
    axes[1, 0].plot(times, ideal, "k--", lw=0.8, label="ideal joint")
    axes[0, 0].set(aspect="equal", xlabel="x [mm]", ylabel="y [mm]", title="journal centre in the bearing")
    axes[0, 1].set(xlabel="time [s]", ylabel="F_n [N]", title="contact force")
    axes[1, 0].set(xlabel="time [s]", ylabel="phi [rad]", title="pendulum angle")
    axes[1, 1].set(xlabel="time [s]", ylabel="energy [J]", title="contact energy terms")
    for ax in axes.flat:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "clearance_pendulum.png", dpi=120)
    print(f"wrote {out / 'clearance_pendulum.png'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("out"))
    main(parser.parse_args().out)
