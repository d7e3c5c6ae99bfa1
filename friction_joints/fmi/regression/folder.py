"""A folder of FMUs checked against every reference case of each, in parallel on a Dask cluster."""

from __future__ import annotations

from pathlib import Path

from .check import Outcome, check_case
from .references import ReferenceError, cases, load_reference
from .run import UnsupportedFMU, model_description


def _check_shipped(fmu, reference, tube_rtol, tube_ttol, case, plots) -> Outcome:
    """A Dask task: the outcome of case for the shipped FMU (a cluster.FMUFile) against reference, with the
    plots of its signals if asked for (and the worker has matplotlib; else the client makes them)."""
    outcome = check_case(fmu.local(), None, case, tube_rtol, tube_ttol, reference)
    outcome.fmu = fmu.name
    if plots and outcome.verdict is not None:
        try:
            from .html_report import plot_png

            outcome.plots = [plot_png(outcome, signal) for signal in outcome.verdict.signals]
        except ImportError:
            pass
    return outcome


def check_folder(folder, refdir, tube_rtol=1e-3, tube_ttol=None, scheduler=None, workers=None,
                 plots=False) -> list[Outcome]:
    """The outcome of every FMU in folder against each of its reference cases in refdir, sorted by file and
    case, the checks (and with plots, the plots of the HTML report) run in parallel on a Dask cluster (see
    cluster.connect for scheduler and workers)."""
    from .. import cluster

    fmus = sorted(Path(folder).glob("*.fmu"))
    if not fmus:
        raise ReferenceError(f"no FMUs in {folder}")
    outcomes, references = {}, {}
    for fmu in fmus:
        try:
            model = model_description(fmu).coSimulation.modelIdentifier
        except UnsupportedFMU as exc:
            outcomes[fmu, ""] = Outcome(fmu.name, "", error=str(exc))
            continue
        for case in cases(refdir, model):
            try:
                references[fmu, case] = load_reference(refdir, case)
            except ReferenceError as exc:
                outcomes[fmu, case] = Outcome(fmu.name, case, error=str(exc))
    if references:
        with cluster.connect(scheduler, workers) as client:
            shipped = cluster.ship(client, {fmu: fmu for fmu, _ in references})
            results = cluster.run_tasks(client, _check_shipped, [(shipped[fmu], references[fmu, case], tube_rtol,
                                                                  tube_ttol, case, plots) for fmu, case in references],
                                        "FMU cases")
        for (fmu, case), result in zip(references, results):
            outcomes[fmu, case] = result if isinstance(result, Outcome) else Outcome(
                fmu.name, case, error=f"its task failed: {type(result).__name__}: {result}")
    return [outcomes[key] for key in sorted(outcomes)]
