"""Flexible links by the rigid finite element method: cost per right-hand side against the rigid link
(not a test).

Two settings, each with the rigid link (n = 0) and flexible links of n = 2, 5, 10 sdes, modified
(3 coordinates per sde) and classical (6) approaches, recursive formulation:
  pendulum  one link on a revolute joint: (A, e) and qdd = A^-1 e;
  RSRRR     the seed 002 loop with its crank (chain 1) flexible: the cut form of seed 002 eq. (2),
            ``CutJointLoop.solve``, without friction.
Reported: coordinates, microseconds per right-hand side (best of rounds timed round-robin) and the
ratio to the rigid link, in one run.

The RSRRRLinkage FMUs with a flexible link (four sdes, modified and classical), pythonfmu and native side by side in
FMPy at 1 ms, are timed by ``bench_rsrrr_clearance.py --fmu ... --native ...``.

Usage: python benchmarks/bench_rfem.py
"""

from __future__ import annotations

import time

import numpy as np

from friction_joints.spatial import Chain, recursive
from friction_joints.spatial.loop import CutJointLoop
from friction_joints.spatial.rfem import Beam, rfem_links
from friction_joints.spatial.rsrrr import RSRRR


def interleaved_best(fns, rounds=7, number=10):
    """Best wall time per call (s) of each function, timed round-robin so that a load change on a shared
    machine touches every case alike."""
    best = [np.inf] * len(fns)
    for fn in fns:
        fn()  # warm-up
    for _ in range(rounds):
        for k, fn in enumerate(fns):
            start = time.perf_counter()
            for _ in range(number):
                fn()
            best[k] = min(best[k], (time.perf_counter() - start) / number)
    return best


def cases(mech):
    """[(label, n, coordinates of the link, pendulum rhs, loop size, loop rhs)] for every case."""
    p, rigid = mech.p, mech.loop
    beam = Beam.circular(L=p.l[0], d=p.d, rho=p.density, E=2.1e11, G=8.1e10)
    q_r = mech.initial_position()
    rng = np.random.default_rng(0)
    out = []
    for n, approach in [(0, "modified")] + [(n, a) for a in ("modified", "classical") for n in (2, 5, 10)]:
        chain = Chain(rfem_links(beam, n, approach), gravity=rigid.chains[0].gravity)
        q, qd = 1e-3 * rng.normal(size=chain.n), rng.normal(size=chain.n)
        loop = CutJointLoop(chain, rigid.chains[1], rigid.r_S[0], rigid.r_S[1])
        ql = np.concatenate((q_r[:1], np.zeros(chain.n - 1), q_r[1:]))
        qdl = loop.dependent_velocities(ql, np.concatenate(([2.0], np.zeros(chain.n - 1))))

        def pendulum(chain=chain, q=q, qd=qd):
            A, e = recursive(chain, q, qd)
            return np.linalg.solve(A, e)

        def closed(loop=loop, q=ql, qd=qdl, tau=np.zeros(loop.n)):
            return loop.solve(q, qd, tau)

        out.append(("rigid" if n == 0 else approach, n, chain.n, pendulum, loop.n, closed))
    return out


def main():
    rows = cases(RSRRR())
    times = interleaved_best([r[3] for r in rows] + [r[5] for r in rows])
    t_p, t_l = times[:len(rows)], times[len(rows):]
    print("approach   n  coords  pendulum [us]  ratio  RSRRR coords  RSRRR [us]  ratio")
    for k, (label, n, coords, _, loop_n, _) in enumerate(rows):
        print(f"{label:9s} {n:2d}  {coords:6d}  {t_p[k] * 1e6:13.0f}  {t_p[k] / t_p[0]:5.1f}"
              f"  {loop_n:12d}  {t_l[k] * 1e6:10.0f}  {t_l[k] / t_l[0]:5.1f}")


if __name__ == "__main__":
    main()
