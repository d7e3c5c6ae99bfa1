"""The command line: python -m friction_joints.fmi.regression (see the package's docstring)."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from .check import Outcome, RunFailed, check_case, record
from .references import ReferenceError, cases
from .run import UnsupportedFMU, model_description


def _outputs(outcomes: list[Outcome], args, title: str):
    """Write the JUnit file and the HTML report that args ask for."""
    if args.junit:
        from .junit import write_junit

        print(f"wrote {write_junit(outcomes, args.junit, title)}", file=sys.stderr)
    if args.report:
        from .html_report import write_report

        print(f"wrote {write_report(outcomes, args.report, title)}", file=sys.stderr)


def _check_folder(args) -> int:
    """The summary lines of a folder of FMUs; the exit status of the worst (130 if cancelled)."""
    from ..cluster import Cancelled
    from .folder import check_folder

    try:
        outcomes = check_folder(args.fmu, args.refdir or args.fmu, args.tube_rtol, args.tube_ttol,
                                args.scheduler, args.workers, plots=bool(args.report))
    except (ValueError, RuntimeError) as exc:  # bad --workers, no dask.distributed
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (Cancelled, KeyboardInterrupt) as exc:
        print(f"regression run {exc or 'cancelled'}", file=sys.stderr)
        return 130
    print("\n".join(o.summary() for o in outcomes))
    _outputs(outcomes, args, args.fmu.name)
    return max(o.status for o in outcomes)


def _check_one(args) -> int:
    """The report of one FMU's case; exit 0 pass, 1 fail, 2 the check could not run."""
    try:
        case = args.case or model_description(args.fmu).coSimulation.modelIdentifier
    except UnsupportedFMU as exc:
        outcome = Outcome(args.fmu.name, "", error=str(exc))
    else:
        outcome = check_case(args.fmu, args.refdir, case, args.tube_rtol, args.tube_ttol)
    if outcome.verdict is None:
        print(f"error: {outcome.error}", file=sys.stderr)
    else:
        print(outcome.report())
    _outputs([outcome], args, args.fmu.name)
    return outcome.status


def _record(args) -> int:
    """Record the case of one FMU, or every case in REFDIR of every FMU in a folder (a case that cannot be
    recorded does not stop the others); exit the worst status."""
    if not args.fmu.is_dir():
        print(f"wrote {record(args.fmu, args.refdir, case=args.case)}")
        return 0
    fmus = sorted(args.fmu.glob("*.fmu"))
    if not fmus:
        raise ReferenceError(f"no FMUs in {args.fmu}")
    status = 0
    for fmu in fmus:
        try:
            model = model_description(fmu).coSimulation.modelIdentifier
        except UnsupportedFMU as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 2
            continue
        for case in cases(args.refdir, model):
            try:
                print(f"wrote {record(fmu, args.refdir, case=case)}")
            except RunFailed as exc:
                print(f"{Outcome(fmu.name, case).label}: FAIL, nothing recorded: {exc}")
                status = max(status, 1)
            except ReferenceError as exc:
                print(f"error: {exc}", file=sys.stderr)
                status = 2
    return status


def parser() -> argparse.ArgumentParser:
    from . import __doc__ as doc

    p = argparse.ArgumentParser(prog="python -m friction_joints.fmi.regression", description=doc.split("\n")[0])
    p.add_argument("fmu", type=Path, help="an FMU, or a folder of FMUs (checked in parallel on Dask)")
    p.add_argument("refdir", type=Path, nargs="?", help="folder of the references (default for a folder of "
                   "FMUs: that folder)")
    p.add_argument("--record", action="store_true", help="write the references from runs of the FMUs")
    p.add_argument("--case", help="a single FMU: the reference case <Model>-<variant> (default: <Model>)")
    p.add_argument("--tube-rtol", type=float, default=1e-3,
                   help="tube width relative to each signal's range (default 1e-3)")
    p.add_argument("--tube-ttol", type=float, default=None,
                   help="time tolerance of the tube in s (default: the StepSize of the .opt)")
    p.add_argument("--junit", type=Path, metavar="FILE", help="write the outcomes as JUnit XML to FILE")
    p.add_argument("--report", type=Path, metavar="DIR", help="write an HTML report with plots into DIR")
    p.add_argument("--scheduler", help="a folder of FMUs: address of a running Dask scheduler "
                   "(default: a local cluster)")
    p.add_argument("--workers", type=int, help="a folder of FMUs: worker processes of the local cluster "
                   "(default: the cores); with --scheduler: wait for this many workers")
    return p


def main(argv=None) -> int:
    p = parser()
    args = p.parse_args(argv)
    folder = args.fmu.is_dir()
    if args.refdir is None and not folder:
        p.error("REFDIR is needed for a single FMU")
    if folder and args.case:
        p.error("--case takes a single FMU")
    if not folder and (args.scheduler or args.workers):
        p.error("--scheduler and --workers apply to a folder of FMUs")
    if args.record and (args.junit or args.report):
        p.error("--junit and --report report a check; --record writes references")
    if args.report and importlib.util.find_spec("matplotlib") is None:
        p.error("--report needs matplotlib for its plots: pip install 'friction_joints[plot]'")
    if not args.tube_rtol >= 0 or (args.tube_ttol is not None and not args.tube_ttol >= 0):
        p.error("--tube-rtol and --tube-ttol must be >= 0")
    try:
        if not args.fmu.exists():
            raise ReferenceError(f"no FMU at {args.fmu}")
        if args.record:
            return _record(args if args.refdir else argparse.Namespace(**{**vars(args), "refdir": args.fmu}))
        return _check_folder(args) if folder else _check_one(args)
    except RunFailed as exc:
        print(f"{args.fmu.name}: FAIL, nothing recorded: {exc}")
        return 1
    except (ReferenceError, UnsupportedFMU) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # FMPy could not run the FMU to record from
        print(f"error: simulating {args.fmu} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
