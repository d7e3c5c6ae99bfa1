"""Speed of the planar engine, reported as ratios measured in one run (not a test).

1. One evaluation of the dynamics (xdd, f, f_mu at a state) by the minimal form against the
   absolute-coordinate formulation, Example 1 with friction.
2. Wall time per simulated second of each seed example with exact stick-slip.
"""

from __future__ import annotations

import time

import numpy as np

from friction_joints.mechanisms import dupont_two_mass, offset_slider_crank, slider_crank
from friction_joints.planar import absolute_dynamics
from friction_joints.simulation import simulate


def per_call(fn, n=300):
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def main():
    mech = offset_slider_crank()
    q = mech.assemble([0.4])
    sol = mech.minimal.evaluate(q, [3.0], [10.0], mech.partition)
    t_min = per_call(lambda: mech.minimal.evaluate(q, [3.0], [10.0], mech.partition))
    t_abs = per_call(lambda: absolute_dynamics(mech.model, sol.x, sol.xd, [10.0]))
    print("Example 1, one dynamics evaluation with friction:")
    print(f"  minimal form {1e6 * t_min:8.1f} us, absolute formulation {1e6 * t_abs:8.1f} us, "
          f"ratio absolute/minimal = {t_abs / t_min:.2f}")
    print("Wall time per simulated second (exact stick-slip, rtol 1e-10):")
    cases = {
        "Dupont (Fig. 4c)": (dupont_two_mass(), [lambda t: 7 * np.sin(2.4 * t), lambda t: 50 * np.cos(0.8 * t)],
                             [0.0, 0.0], [0.0, 0.0], 10.0),
        "Example 1, tau = 60 N.m": (offset_slider_crank(), [60.0], None, [0.0], 2.0),
        "Example 2, tau = 4 sin 3t": (slider_crank(), [lambda t: 4 * np.sin(3 * t)], None, [0.0], 10.0),
    }
    for name, (m, inputs, q0, u0, t_end) in cases.items():
        q0 = m.assemble([0.0]) if q0 is None else q0
        t0 = time.perf_counter()
        res = simulate(m, inputs, t_end, q0, u0, dt_out=0.1)
        wall = time.perf_counter() - t0
        print(f"  {name:28s} {wall / t_end:7.3f} s per simulated s ({len(res.events)} events)")


if __name__ == "__main__":
    main()
