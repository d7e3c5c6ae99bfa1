"""FMU regression tests against references in the FMI cross-check layout, for any FMI 2.0 or 3.0
co-simulation FMU: a verdict per reference case, JUnit XML and an HTML report for CI, a pytest plugin.

    python -m friction_joints.fmi.regression FMU REFDIR [--case CASE] [--tube-rtol R] [--tube-ttol T]
    python -m friction_joints.fmi.regression FOLDER [REFDIR] [--scheduler ADDRESS] [--workers N]
        [--junit FILE] [--report DIR] (with an FMU or a FOLDER)
    python -m friction_joints.fmi.regression --record FMU|FOLDER REFDIR [--case CASE]
    pytest --fmu-refs REFDIR [--fmus FOLDER]   (the plugin: a test item per reference case)

REFDIR holds, for each case <Model> (the FMU's model identifier) or <Model>-<variant>:
  <Case>_ref.opt   "StartTime, 0", "StopTime, 2", "StepSize, 0.01", "RelTol, 1e-8" (one per line), and
                   for a variant the start values it changes, "Start <variable>, <value>";
  <Case>_in.csv    optional input table, a "time" column then one column per input (held by
                   FMPy at the communication points);
  <Case>_ref.csv   the reference: a "time" column from StartTime to StopTime, then one column per
                   variable that is checked.
The check simulates the FMU with FMPy (output_interval = StepSize, tolerance = RelTol) and keeps every
reference signal in a tolerance tube (tube: its width relative to the signal's range, and a time
tolerance, default one step; docs/regression.md compares it with csv-compare's).

Exit status (the worst case of a FOLDER): 0 pass; 1 fail: a signal left its tube, the run stopped before
StopTime, an FMI call returned Discard, Error or Fatal, or the reference has signals the FMU lacks;
2 the check could not run: a missing or malformed reference file, no FMU, an FMU that is not FMI 2.0 or
3.0 co-simulation, or a simulation that FMPy could not start.
A FOLDER of FMUs is checked against every case of each FMU, in parallel on a Dask cluster (a local one
of N worker processes, default the cores, or the one at the scheduler ADDRESS), one line per case.
``--record`` writes <Case>_ref.csv from a run of the FMU instead (of every case in REFDIR for a FOLDER);
a run that fails writes nothing (exit 1).

Modules: references (the layout), tube, run (FMPy), check (one case), folder (Dask), junit, html_report,
plugin (pytest), cli.
"""

from .check import Outcome, RunFailed, Verdict, check, check_case, record
from .cli import main
from .references import (START, ReferenceError, as_float_table, cases, input_table, load_reference, read_csv,
                         read_opt, start_values_of, write_csv)
from .run import Run, UnsupportedFMU, simulate
from .tube import SignalVerdict, tube_check

__all__ = ["START", "Outcome", "ReferenceError", "Run", "RunFailed", "SignalVerdict", "UnsupportedFMU", "Verdict",
           "as_float_table", "cases", "check", "check_case", "input_table", "load_reference", "main", "read_csv",
           "read_opt", "record", "simulate", "start_values_of", "tube_check", "write_csv"]
