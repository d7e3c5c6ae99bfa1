"""The compact two-mass luz/tar model against the planar-engine model of the same blocks (not a test).

Block 1 (1 kg) on block 2 (2 kg) on the ground, friction levels of the planar engine's stacked
blocks (normal forces from the weights), F1 = 6 sin(2 t) N, F2 = 20 cos(1.3 t) N, 10 s from rest,
rtol 1e-10, exact stick-slip in both. Reported: wall time per simulated second, their ratio, the
number of events and the largest position difference at the 10 ms output points.

Usage: python benchmarks/bench_lumped.py
"""

from __future__ import annotations

import time

import numpy as np

from friction_joints.lumped import TwoMassParameters, simulate_two_mass
from friction_joints.mechanisms.stacked_blocks import stacked_blocks
from friction_joints.simulation import simulate

T_END, G = 10.0, 9.81
FORCES = [lambda t: 6 * np.sin(2 * t), lambda t: 20 * np.cos(1.3 * t)]


def main():
    params = TwoMassParameters(M1=1.0, M2=2.0, FT012=0.2 * G, FT012S=0.3 * G, FT020=0.4 * 3 * G, FT020S=0.5 * 3 * G)
    start = time.perf_counter()
    lumped = simulate_two_mass(params, FORCES, T_END, dt_out=0.01)
    wall_lumped = time.perf_counter() - start
    start = time.perf_counter()
    planar = simulate(stacked_blocks(), FORCES, T_END, [0.0, 0.0], [0.0, 0.0], dt_out=0.01)
    wall_planar = time.perf_counter() - start
    grid = np.arange(0.01, T_END + 1e-9, 0.01)
    a = lumped["z"][lumped.rows_at(grid)]
    b = planar["q"][planar.rows_at(grid)][:, ::-1]
    print(f"two stacked blocks, {T_END:g} s, {len(lumped.events)} events (planar: {len(planar.events)})")
    print(f"  luz/tar model  {wall_lumped / T_END * 1e3:8.1f} ms per simulated s")
    print(f"  planar engine  {wall_planar / T_END * 1e3:8.1f} ms per simulated s")
    print(f"  ratio planar / luz-tar: {wall_planar / wall_lumped:.1f}; max |z difference| {np.abs(a - b).max():.2e} m")


if __name__ == "__main__":
    main()
