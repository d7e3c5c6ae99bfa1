"""Dupont's two-mass stick-slip problem (seed 000 Fig. 4c), simulated with exact stick-slip.

F1 = 7 sin(2.4 t) on m1, F2 = 50 cos(0.8 t) on m2, from rest, 0 to 10 s; m1 = 10, m2 = 30 kg,
mu_s = 0.5, mu_k = 0.3. Prints the stiction intervals and reversal times; writes dupont.csv and
dupont.png to the output folder (default out/).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _output import pyplot, stacked_plot, write_csv  # noqa: E402

from friction_joints.hybrid.signals import Sine  # noqa: E402
from friction_joints.mechanisms import dupont_two_mass  # noqa: E402
from friction_joints.simulation import simulate  # noqa: E402


def main(out: Path):
    out.mkdir(parents=True, exist_ok=True)
    res = simulate(dupont_two_mass(), [Sine(7.0, 2.4), Sine(50.0, 0.8, phase=np.pi / 2)],
                   10.0, [0.0, 0.0], [0.0, 0.0], dt_out=0.01)
    t, stuck = res.t, res["stuck"]
    x, xd, xdd, f_mu = res["q"][:, 1], res["u"][:, 1], res["udot"][:, 1], res["f_mu"][:, 0]
    sticks, breaks = res.event_times("stick"), res.event_times("breakaway")
    print("Dupont two-mass problem (seed 000 Sect. 3), exact stick-slip")
    print("  stiction intervals [s]: " + ", ".join(f"{a:.6f}-{b:.6f}" for a, b in zip(sticks, breaks)))
    print("  reversals (pass-through) [s]: " + ", ".join(f"{v:.6f}" for v in res.event_times("reversal")))
    E = res["E_kin"] + res["E_pot"]
    print(f"  energy balance residual: {np.abs(res['W_drive'] - (E - E[0]) + res['W_friction']).max():.2e} J")
    write_csv(out / "dupont.csv", {"time_s": t, "x_m": x, "xd_m_per_s": xd, "xdd_m_per_s2": xdd,
                                   "f_mu_N": f_mu, "f_n_N": res["f"][:, 0], "stuck": stuck})
    plt = pyplot()
    if plt is None:
        return
    stacked_plot(plt, t, [("x [m]", x), ("xd [m/s]", xd), ("xdd [m/s^2]", xdd), ("friction on m1 [N]", f_mu)],
                 "Dupont two-mass problem (seed 000 Fig. 4c)", out / "dupont.png",
                 xlabel="time [s] (grey: stiction)", stuck=stuck)
    print(f"  wrote {out / 'dupont.csv'} and {out / 'dupont.png'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("out"), help="output folder")
    main(parser.parse_args().out)
