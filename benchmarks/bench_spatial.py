"""Open spatial chains: the trace formulation of seed 002 eq. (2) against the recursive one (not a test).

Random revolute chains of 1 to 6 links; reported: microseconds per evaluation of (A, e) and the
ratio trace / recursive, measured in one run.

Usage: python benchmarks/bench_spatial.py
"""

from __future__ import annotations

import time

import numpy as np

from friction_joints.spatial import Chain, Link, dh, lagrange_trace, recursive


def chain_of(n, rng):
    return Chain([Link(m=1.0, c=tuple(0.2 * rng.normal(size=3)), I_c=0.1 * np.eye(3), A=dh(*rng.normal(size=3)))
                  for _ in range(n)])


def per_call(fn, *args, repeat=5, number=50):
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn(*args)
        best = min(best, (time.perf_counter() - start) / number)
    return best


def main():
    rng = np.random.default_rng(0)
    print("links  trace [us]  recursive [us]  ratio")
    for n in range(1, 7):
        chain = chain_of(n, rng)
        q, qd = rng.normal(size=n), rng.normal(size=n)
        t_trace, t_rec = per_call(lagrange_trace, chain, q, qd), per_call(recursive, chain, q, qd)
        print(f"{n:5d}  {t_trace * 1e6:10.0f}  {t_rec * 1e6:14.0f}  {t_trace / t_rec:5.1f}")


if __name__ == "__main__":
    main()
