"""The four bristle friction models of seed 003 side by side on one test bed (the kind of comparison of
Liu et al. 2015, seed 003's reference [2]), with the exact event-driven Coulomb model as reference.

One contact: N = 10 N, mu_c = 0.3, mu_s = 0.4, v_s = 1 mm/s, sigma0 = 1e5 1/m, sigma1 = 5 s/m (passive
for slips up to 0.3 m/s, friction.passive_sigma1_limit), sigma2 = 0; elasto-plastic z_ba = 0.7 mu_c /
sigma0. For each of Dahl, LuGre, elasto-plastic and Gonthier:

1. pre-sliding: friction against displacement for x = A sin t, A = 0.2, 0.5, 1 and 3 mu_c / sigma0
   (hysteresis loops; the elasto-plastic law is purely elastic below z_ba);
2. stick-slip: a 1 kg mass on a belt at 0.1 m/s held by a 100 N/m spring, 3 s, against the exact
   stick-slip of lumped.SingleMassFriction (kinetic mu_c N, static mu_s N);
3. the Stribeck curve: steady friction at constant slip speeds 1e-5 to 0.1 m/s;
4. drift: a force 0.5 mu_c N + 0.3 mu_c N sin(2 pi t) below breakaway, 10 s (LuGre creeps, the
   elasto-plastic law with z_ba = 0.9 mu_c / sigma0 does not).

Prints the stick phases, steady friction and drift per model; writes bristle_friction.csv (the stick-slip
runs) and bristle_friction.png (four panels) to the output folder (default out/).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _output import pyplot, write_csv  # noqa: E402

from friction_joints.friction import make_law  # noqa: E402
from friction_joints.lumped import (BristleOscillatorParameters, SingleMassParameters, prescribed_slip,  # noqa: E402
                                    simulate_bristle, simulate_single_mass)

N, MU_C, MU_S, SIGMA0 = 10.0, 0.3, 0.4, 1e5
MODELS = {1: "Dahl", 2: "LuGre", 3: "elasto-plastic", 4: "Gonthier"}
T_END, V_BELT = 3.0, 0.1


def law(model, z_ba_ratio=0.7):
    return make_law(model, sigma0=SIGMA0, sigma1=5.0, sigma2=0.0, mu_c=MU_C, mu_s=MU_S, v_s=1e-3, delta=2.0,
                    z_ba_ratio=z_ba_ratio)


def stick_phases(t, v_r, threshold=1e-2 * V_BELT):
    """[(start, end)] of the intervals with |v_r| below threshold (m/s)."""
    stuck = np.concatenate(([0], (np.abs(v_r) < threshold).astype(int), [0]))
    edges = np.flatnonzero(np.diff(stuck))
    return [(t[a], t[b - 1]) for a, b in zip(edges[::2], edges[1::2]) if b - 1 > a]


def main(out: Path):
    out.mkdir(parents=True, exist_ok=True)
    plt = pyplot()
    fig, axes = (None, None) if plt is None else plt.subplots(2, 2, figsize=(12, 8))
    exact = simulate_single_mass(SingleMassParameters(M=1.0, FT0=MU_C * N, FT0S=MU_S * N, K=100.0, v_belt=V_BELT),
                                 0.0, T_END, dt_out=0.005)
    print("stick-slip, mass on a belt at 0.1 m/s (stick phases: |v - v_belt| < 1 mm/s)")
    print("  exact Coulomb:   " + ", ".join(f"{a:.3f}-{b:.3f}" for a, b in
                                             zip(exact.event_times("stick"), exact.event_times("breakaway"))))
    columns = {"time_s": np.arange(0.0, T_END + 1e-9, 0.005)}
    columns["x_exact_m"] = exact["z"][exact.rows_at(columns["time_s"])]
    speeds = np.logspace(-5, -1, 25)
    for model, name in MODELS.items():
        res = simulate_bristle(BristleOscillatorParameters(law(model), m=1.0, k=100.0), [0.0, V_BELT, N], T_END,
                               dt_out=0.005)
        rows = res.rows_at(columns["time_s"])
        columns[f"x_{name}_m"], columns[f"F_{name}_N"] = res["x"][rows], res["F"][rows]
        print(f"  {name:15s}  " + ", ".join(f"{a:.3f}-{b:.3f}" for a, b in stick_phases(res.t, res["v_r"])))
        steady = [prescribed_slip(law(model), lambda t, v=v: v, 40 * MU_S / (SIGMA0 * v), N,
                                  t_eval=[40 * MU_S / (SIGMA0 * v)])["F"][-1] for v in speeds]
        drift = simulate_bristle(BristleOscillatorParameters(law(model, 0.9), m=1.0, k=1.0),
                                 [lambda t: MU_C * N * (0.5 + 0.3 * np.sin(2 * np.pi * t)), 0.0, N], 10.0, dt_out=5.0)
        print(f"  {'':15s}  steady friction {steady[0]:.3f} N at 1e-5 m/s, {steady[-1]:.3f} N at 0.1 m/s; "
              f"drift {(drift['x'][-1] - drift['x'][1]) / 5 * 1e6:.3g} um per cycle under a sub-breakaway force")
        if plt is None:
            continue
        ax = axes[0, 0]
        for ratio in (0.2, 0.5, 1.0, 3.0):
            a = ratio * MU_C / SIGMA0
            r = prescribed_slip(law(model), lambda t, a=a: a * np.cos(t), 4 * np.pi, N,
                                t_eval=np.linspace(2 * np.pi, 4 * np.pi, 400))
            ax.plot(r["x"] * 1e6, r["F"], color=f"C{model}", lw=1, label=name if ratio == 1.0 else None)
        axes[0, 1].plot(res.t, res["x"] * 1e3, color=f"C{model}", label=name)
        axes[1, 0].semilogx(speeds, steady, "o-", color=f"C{model}", ms=3, label=name)
        axes[1, 1].plot(res.t, res["F"], color=f"C{model}", lw=1, label=name)
    write_csv(out / "bristle_friction.csv", columns)
    if plt is None:
        return
    axes[0, 1].plot(exact.t, exact["z"] * 1e3, "k--", label="exact Coulomb")
    axes[1, 1].plot(exact.t, -exact["f"], "k--", lw=1, label="exact Coulomb")
    titles = [("pre-sliding loops, x = A sin t", "x [um]", "F [N]"), ("stick-slip on the belt", "t [s]", "x [mm]"),
              ("Stribeck curve (steady sliding)", "v [m/s]", "F [N]"), ("friction in stick-slip", "t [s]", "F [N]")]
    for ax, (title, xl, yl) in zip(axes.flat, titles):
        ax.set_title(title)
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "bristle_friction.png", dpi=110)
    print(f"wrote {out / 'bristle_friction.csv'} and {out / 'bristle_friction.png'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("out"))
    main(parser.parse_args().out)
