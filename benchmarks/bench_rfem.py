"""Flexible links by the rigid finite element method: cost per right-hand side against the rigid link
(not a test).

Two settings, each with the rigid link (n = 0) and flexible links of n = 2, 5, 10 sdes, modified
(3 coordinates per sde) and classical (6) approaches, recursive formulation:
  pendulum  one link on a revolute joint: (A, e) and qdd = A^-1 e;
  RSRRR     the seed 002 loop with its crank (chain 1) flexible: the cut form of seed 002 eq. (2),
            ``CutJointLoop.solve``, without friction.
Reported: coordinates, microseconds per right-hand side and the ratio to the rigid link, in one run.

Usage: python benchmarks/bench_rfem.py
"""

from __future__ import annotations

import time

import numpy as np

from friction_joints.spatial import Chain, recursive
from friction_joints.spatial.loop import CutJointLoop
from friction_joints.spatial.rfem import Beam, rfem_links
from friction_joints.spatial.rsrrr import RSRRR


def best_of(fn, repeat=5, number=20):
    fn()
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def main():
    mech = RSRRR()
    p, rigid = mech.p, mech.loop
    beam = Beam.circular(L=p.l[0], d=p.d, rho=p.density, E=2.1e11, G=8.1e10)
    q_r = mech.initial_position()
    rng = np.random.default_rng(0)
    cases = [(0, "modified")] + [(n, a) for a in ("modified", "classical") for n in (2, 5, 10)]
    print("approach   n  coords  pendulum [us]  ratio  RSRRR coords  RSRRR [us]  ratio")
    base = {}
    for n, approach in cases:
        chain = Chain(rfem_links(beam, n, approach), gravity=rigid.chains[0].gravity)
        q, qd = 1e-3 * rng.normal(size=chain.n), rng.normal(size=chain.n)

        def pendulum():
            A, e = recursive(chain, q, qd)
            return np.linalg.solve(A, e)

        loop = CutJointLoop(chain, rigid.chains[1], rigid.r_S[0], rigid.r_S[1])
        ql = np.concatenate((q_r[:1], np.zeros(chain.n - 1), q_r[1:]))
        qdl = loop.dependent_velocities(ql, np.concatenate(([2.0], np.zeros(chain.n - 1))))
        tau = np.zeros(loop.n)
        t_p, t_l = best_of(pendulum), best_of(lambda: loop.solve(ql, qdl, tau))
        if n == 0:
            base = {"p": t_p, "l": t_l}
        print(f"{'rigid' if n == 0 else approach:9s} {n:2d}  {chain.n:6d}  {t_p * 1e6:13.0f}  {t_p / base['p']:5.1f}"
              f"  {loop.n:12d}  {t_l * 1e6:10.0f}  {t_l / base['l']:5.1f}")


if __name__ == "__main__":
    main()
