"""Event-driven exact friction against regularised (tanh) friction at equal accuracy (not a test).

Dupont's problem (seed 000 Fig. 4c) with mu_s = mu_k = 0.3, so that a tanh law with one friction
level describes the same physics; the reference is the exact model at rtol 1e-12. Reported: the
error of the final position x1(10 s), the largest error of the reversal times (zero crossings of
xd nearest to each reference reversal, interpolated on the 10 ms output grid for the regularised
runs), the creep of x1 over the first
stiction interval of the reference (zero for the exact model), wall time and its ratio to the
exact run of comparable accuracy.

Usage: python benchmarks/bench_stick_slip.py
"""

from __future__ import annotations

import time

import numpy as np

from friction_joints.mechanisms import dupont_two_mass
from friction_joints.simulation import simulate

INPUTS = [lambda t: 7 * np.sin(2.4 * t), lambda t: 50 * np.cos(0.8 * t)]
T_END = 10.0


def zero_crossings(t, v):
    """Times where v changes sign between nonzero samples (linear interpolation)."""
    nz = np.flatnonzero(v != 0)
    out = []
    for a, b in zip(nz[:-1], nz[1:]):
        if np.sign(v[a]) != np.sign(v[b]) and b == a + 1:
            out.append(t[a] - v[a] * (t[b] - t[a]) / (v[b] - v[a]))
    return np.array(out)


def run(rtol, v_eps=None):
    mech = dupont_two_mass(mu_s=0.3, mu_k=0.3)
    t0 = time.perf_counter()
    res = simulate(mech, INPUTS, T_END, [0.0, 0.0], [0.0, 0.0], dt_out=1e-2, rtol=rtol, atol=rtol * 1e-2,
                   v_eps=v_eps)
    return time.perf_counter() - t0, res


def main():
    _, ref = run(1e-12)
    reversals = ref.event_times("reversal")
    sticks, breaks = ref.event_times("stick"), ref.event_times("breakaway")
    window = (sticks[1], breaks[1])
    print(f"Dupont, mu = 0.3, {T_END:g} s; reference reversals {np.round(reversals, 4)}, "
          f"stiction {window[0]:.4f}-{window[1]:.4f} s")
    print(f"  {'model':24s} {'x1 error [m]':>13s} {'reversal err [s]':>17s} {'creep [m]':>10s} {'wall [s]':>9s}")
    walls = {}
    for label, rtol, v_eps in (("exact, rtol 1e-6", 1e-6, None), ("exact, rtol 1e-9", 1e-9, None),
                               ("tanh, v_eps 1e-2", 1e-8, 1e-2), ("tanh, v_eps 1e-3", 1e-8, 1e-3),
                               ("tanh, v_eps 1e-4", 1e-8, 1e-4)):
        wall, res = run(rtol, v_eps)
        walls[label] = wall
        x1, t = res["q"][:, 1], res.t
        found = res.event_times("reversal") if v_eps is None else zero_crossings(t, res["u"][:, 1])
        rev_err = max(np.abs(found - r).min() for r in reversals) if len(found) else np.inf
        inside = (t >= window[0]) & (t <= window[1])
        creep = np.ptp(x1[inside])
        print(f"  {label:24s} {abs(x1[-1] - ref['q'][-1, 1]):13.3e} {rev_err:17.3e} {creep:10.2e} {wall:9.2f}")
    print("  wall-time ratio regularised/exact(1e-6): " +
          ", ".join(f"{k.split(', ')[1]}: {w / walls['exact, rtol 1e-6']:.1f}" for k, w in walls.items() if "tanh" in k))


if __name__ == "__main__":
    main()
