"""Minimal form against the absolute-coordinate formulation at the same accuracy, on the Python and
the compiled engine (not a test; prints a table and ratios).

Seed 000 Example 1 (offset slider-crank, tau = 60 N.m) and Example 2 (slider-crank with the massless
slider, tau = 40 N.m, above the largest gravity moment, so that the crank never stops: with
directions sgn(sd) a stopped joint chatters), with friction, from rest at theta1 = 0, over --t-end s.
Both forms are integrated by DOP853 as ODEs with the friction directions sgn(sd) and no events, so
that the comparison is of the formulations alone:

  minimal   RegularisedSystem of the Coulomb mechanism: the single mode of MechanismSystem with
            directions sgn(sd), y = [q (k1), u (k), W_drive, W_friction], seed 000 eqs 5.1-5.5
  absolute  planar.absolute_system.AbsoluteSystem, y = [x (n), xd (n)], seed 000 eq. 2.9

through HybridIntegrator (Python engine: SciPy's DOP853 calling the Python rhs) and
CompiledIntegrator (the C engine: its DOP853 and kernels), at rtol 1e-6, 1e-8, 1e-10, atol = rtol / 100.

error  |theta1(t_end) - reference|, the reference being the compiled minimal form at rtol 1e-13;
       its distance to the compiled absolute form at rtol 1e-13 is printed (errors near it mean nothing)
wall   seconds of the integration (compiled: the best of --repeat runs after a warm-up run)
rhs    right-hand-side calls
drift  max |Phi(x(t_end))|: for the minimal form its closing constraints (q is integrated from
       qdot = D2 u, so the loop drifts too), for the absolute form all m constraints
ratio  absolute/minimal wall time (and rhs calls) at EQUAL ERROR: log wall of the absolute form
       interpolated linearly in log error at each error of the minimal form (inside the absolute
       form's range of errors); and, less sensitive to the scatter of single errors (the sgn(sd)
       switches make the error an irregular function of rtol), from a least-squares line of log
       wall against log error of each form, at the ends and middle of the errors both forms reach;
       at equal rtol for comparison. More rtols (--rtols 1e-6 1e-7 ... 1e-11) steady the fit.

Run with OPENBLAS_NUM_THREADS=1 (the Python engine's small solves otherwise pay for BLAS threads):

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_formulations.py [--t-end 10] [--examples 1 2]
        [--engines python compiled] [--rtols 1e-6 1e-8 1e-10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from friction_joints.engine import make_integrator
from friction_joints.mechanisms import offset_slider_crank, slider_crank
from friction_joints.planar import RegularisedSystem
from friction_joints.planar.absolute_system import AbsoluteSystem

EXAMPLES = {"1": ("Example 1 (offset slider-crank)", offset_slider_crank, 60.0),
            "2": ("Example 2 (slider-crank, massless slider)", slider_crank, 40.0)}
REFERENCE_RTOL = 1e-13


class _Counted:
    """The system's rhs counted (the Python engine calls system.rhs once per evaluation)."""

    def __init__(self, system):
        self.system, self.calls = system, 0
        rhs = system.rhs

        def counted(t, y, mode):
            self.calls += 1
            return rhs(t, y, mode)
        system.rhs = counted  # an instance attribute: only the Python engine runs this system

    def restore(self):
        del self.system.rhs


def integrate(system, y0, t_end, rtol, engine):
    """(y(t_end), wall time, rhs calls) of one run."""
    counter = _Counted(system) if engine == "python" else None
    try:
        integ = make_integrator(system, 0.0, y0, engine=engine, rtol=rtol, atol=rtol * 1e-2)
        start = time.perf_counter()
        integ.advance(t_end)
        wall = time.perf_counter() - start
    finally:
        if counter is not None:
            counter.restore()
    calls = counter.calls if counter is not None else integ.rhs_calls
    return integ.state.y, wall, calls


def forms(mech, tau):
    """{name: (system, y0, theta1 of y, position drift of y)} of the two forms from rest at theta1 = 0."""
    q0 = mech.assemble([0.0])
    minimal, absolute = RegularisedSystem(mech, [tau]), AbsoluteSystem(mech, [tau])
    n, k1 = mech.model.n, mech.minimal.k1
    return {
        "minimal": (minimal, minimal.initial_state(q0, [0.0]), lambda y: y[0],
                    lambda y: float(np.abs(mech.minimal.closure(y[:k1])).max(initial=0.0))),
        "absolute": (absolute, absolute.initial_state(q0, [0.0]), lambda y: y[2],  # x[2] = theta_1
                     lambda y: float(np.abs(mech.model.constraints(y[:n])[0]).max())),
    }


def equal_error_ratio(rows_min, rows_abs, column):
    """[(error, ratio)] of column (wall or calls) absolute/minimal at the errors of the minimal form,
    interpolated in log-log; None where the error lies outside the absolute form's range."""
    e_abs = np.log([r["error"] for r in rows_abs])
    v_abs = np.log([r[column] for r in rows_abs])
    order = np.argsort(e_abs)
    e_abs, v_abs = e_abs[order], v_abs[order]
    out = []
    for r in rows_min:
        e = np.log(r["error"])
        inside = e_abs[0] <= e <= e_abs[-1]
        out.append((r["error"], float(np.exp(np.interp(e, e_abs, v_abs))) / r[column] if inside else None))
    return out


def equal_error_fit(rows_min, rows_abs, column):
    """[(error, ratio)] of column absolute/minimal from a line log column = a + b log error fitted to
    each form, at the smallest, the geometric middle and the largest error both forms reach."""
    fits = [np.polyfit(np.log([r["error"] for r in rows]), np.log([r[column] for r in rows]), 1)
            for rows in (rows_min, rows_abs)]
    low = max(min(r["error"] for r in rows) for rows in (rows_min, rows_abs))
    high = min(max(r["error"] for r in rows) for rows in (rows_min, rows_abs))
    if low > high:
        return []
    errors = (low, np.sqrt(low * high), high)
    return [(e, float(np.exp(np.polyval(fits[1], np.log(e)) - np.polyval(fits[0], np.log(e))))) for e in errors]


def bench_example(key, args):
    title, factory, tau = EXAMPLES[key]
    mech = factory()
    cases = forms(mech, tau)
    refs = {name: theta(integrate(system, y0, args.t_end, REFERENCE_RTOL, "compiled")[0])
            for name, (system, y0, theta, _) in cases.items()}
    ref = refs["minimal"]
    print(f"\n{title}, tau = {tau:g} N.m from rest, {args.t_end:g} s, friction directions sgn(sd), no events")
    print(f"  reference theta1(t_end) = {ref:.12f} rad (compiled minimal form at rtol {REFERENCE_RTOL:.0e}; "
          f"the absolute form there differs by {abs(refs['absolute'] - ref):.1e})")
    print(f"  {'engine':9s} {'form':9s} {'rtol':>6s} {'error [rad]':>12s} {'wall [s]':>9s} {'rhs calls':>9s} "
          f"{'us/call':>8s} {'drift':>8s}")
    table = {}
    for engine in args.engines:
        for name, (system, y0, theta, drift) in cases.items():
            if engine == "compiled":
                integrate(system, y0, min(args.t_end, 0.1), 1e-6, engine)  # warm-up: kernels loaded, caches filled
            for rtol in args.rtols:
                repeat = args.repeat if engine == "compiled" else 1
                runs = [integrate(system, y0, args.t_end, rtol, engine) for _ in range(repeat)]
                y, wall, calls = min(runs, key=lambda r: r[1])
                row = dict(error=abs(theta(y) - ref), wall=wall, calls=calls, drift=drift(y))
                table[engine, name, rtol] = row
                print(f"  {engine:9s} {name:9s} {rtol:6.0e} {row['error']:12.3e} {wall:9.3f} {calls:9d} "
                      f"{1e6 * wall / calls:8.1f} {row['drift']:8.1e}")
    for engine in args.engines:
        rows_min = [table[engine, "minimal", r] for r in args.rtols]
        rows_abs = [table[engine, "absolute", r] for r in args.rtols]
        print(f"  {engine} engine, absolute/minimal:")
        print("    at equal rtol:   wall " + ", ".join(
            f"{r:.0e}: {a['wall'] / m['wall']:.2f}" for r, m, a in zip(args.rtols, rows_min, rows_abs))
              + ";  rhs calls " + ", ".join(
            f"{r:.0e}: {a['calls'] / m['calls']:.2f}" for r, m, a in zip(args.rtols, rows_min, rows_abs)))
        for column, label in (("wall", "wall"), ("calls", "rhs calls")):
            ratios = equal_error_ratio(rows_min, rows_abs, column)
            print(f"    at equal error:  {label} " + ", ".join(
                f"{e:.1e}: " + ("outside" if q is None else f"{q:.2f}") for e, q in ratios))
        for column, label in (("wall", "wall"), ("calls", "rhs calls")):
            ratios = equal_error_fit(rows_min, rows_abs, column)
            print(f"    log-log fit:     {label} " + (", ".join(f"{e:.1e}: {q:.2f}" for e, q in ratios)
                                                     or "no common range of errors"))
    if len(args.engines) == 2:
        print("  compiled engine speed-up over the Python engine at equal rtol: " + ", ".join(
            f"{name} {r:.0e}: {table['python', name, r]['wall'] / table['compiled', name, r]['wall']:.0f}x"
            for name in cases for r in args.rtols))
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-end", type=float, default=10.0, help="simulated time (s)")
    parser.add_argument("--examples", nargs="+", default=["1", "2"], choices=sorted(EXAMPLES))
    parser.add_argument("--engines", nargs="+", default=["python", "compiled"], choices=["python", "compiled"])
    parser.add_argument("--rtols", nargs="+", type=float, default=[1e-6, 1e-8, 1e-10])
    parser.add_argument("--repeat", type=int, default=3, help="compiled runs per row (the best is kept)")
    args = parser.parse_args()
    for key in args.examples:
        bench_example(key, args)


if __name__ == "__main__":
    main()
