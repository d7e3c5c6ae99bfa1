"""The pythonfmu FMUs of several builds side by side, in one run (not a test).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_fmu_builds.py DIST [DIST ...] [--rounds 3] [--quick]

Each DIST is a folder of FMUs built by build_fmu.py (FMI 2.0 in DIST, FMI 3.0 in DIST/fmi3), e.g. one
from before a change and one from after it. Every FMU of bench_compiled.FMU_CASES is stepped by FMPy at
1 ms in a fresh process, as bench_compiled.py does: in each round, per FMU, the no-op pythonfmu FMU
(pythonfmu's floor) and then each build's FMU. Reported per build, the medians of the rounds: time per
step (us) and its multiple of the no-op FMU's measured just before ("x no-op", the measure that carries
over between loads), start-up (instantiation and initialisation in a fresh process, s), the FMU's size
(MB) and the real-time factor of its FMI 3.0 build.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from bench_compiled import FMU_CASES, _fmu_in_process, build_noop


def measure(path: Path, t_end: float) -> tuple[float, float]:
    """(s per step at 1 ms, start-up s) of the FMU at path, in a fresh process on the compiled engine."""
    wall, t_init = _fmu_in_process(path, t_end, "auto")
    return wall / (t_end / 1e-3), t_init


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dists", nargs="+", help="folders of built FMUs")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="shorter runs")
    args = parser.parse_args()
    noop = build_noop(Path(tempfile.mkdtemp()))
    cases = [(name, min(t_end, 0.5) if args.quick else t_end) for name, t_end, _, _ in FMU_CASES if name != "NoOp"]
    goals = {name: goal for name, _, _, goal in FMU_CASES}
    rows = {}  # (dist, name) -> [(x no-op, us per step, start-up s, FMI 3.0 RTF)] of the rounds
    for round_ in range(args.rounds):
        print(f"round {round_ + 1}", flush=True)
        for name, t_end in cases:
            floor, _ = measure(noop, 2.0)  # next to the FMUs it is compared with: the load moves
            for dist in args.dists:
                per_step, t_init = measure(Path(dist) / f"{name}.fmu", t_end)
                fmi3 = Path(dist) / "fmi3" / f"{name}.fmu"
                rtf3 = 1e-3 / measure(fmi3, t_end)[0] if fmi3.exists() else float("nan")
                rows.setdefault((dist, name), []).append((per_step / floor, per_step * 1e6, t_init, rtf3))
                print(f"  {name:20s} {dist}: {per_step * 1e6:7.1f} us, no-op {floor * 1e6:5.1f} us, x no-op "
                      f"{per_step / floor:5.1f}, start-up {t_init:.2f} s, FMI 3.0 RTF {rtf3:.1f}", flush=True)
    print("\nmedians of the rounds")
    print(f"  {'FMU':20s} {'build':30s} {'us/step':>8s} {'x no-op':>8s} {'start-up s':>10s} {'MB':>5s} "
          f"{'FMI 3.0 RTF':>12s}  goal")
    for name, _ in cases:
        for dist in args.dists:
            x, us, t_init, rtf3 = (statistics.median(column) for column in zip(*rows[(dist, name)]))
            size = (Path(dist) / f"{name}.fmu").stat().st_size / 1e6
            print(f"  {name:20s} {dist[-30:]:30s} {us:8.1f} {x:8.1f} {t_init:10.2f} {size:5.2f} {rtf3:12.1f}  "
                  f"{goals[name]}; start-up < 0.3 s")


if __name__ == "__main__":
    main()
