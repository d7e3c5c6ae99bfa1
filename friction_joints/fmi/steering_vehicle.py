"""The steering FMU and the vehicle FMU connected, run by two different masters.

``run_fmpy`` uses the project's Jacobi master on FMPy (``friction_joints.fmi.master``); ``run_libcosim``
uses libcosim, the Open Simulation Platform's C++ co-simulation library, through libcosimpy (an
independent master from PyPI). Both exchange the same signals after every communication step:

    steering.delta_left/right  ->  vehicle.delta_left/right
    vehicle.M_z_left/right, F_z_left/right  ->  steering inputs of the same names

and hold the driver torque tau_sw(t) over each step. Results: a structured array with 'time' and
the columns of ``RECORD`` (sampled at every communication point).

With an explicit coupling (Jacobi, libcosim's; each model sees the other's outputs of the previous
point) the step must resolve the wheels' fast modes: with the default parameters and no friction,
h = 10 ms is unstable (the steering wheel runs away within seconds) and h = 5 ms is stable; dry
friction damps the coupling and widens that margin. ``run_fmpy`` also takes the implicit scheme of
``friction_joints.fmi.coupling``, stable at 10 and 20 ms; ``friction_joints.vehicle.monolithic`` is
the frictionless reference.
"""

from __future__ import annotations

from collections.abc import Mapping
import tempfile
from pathlib import Path

import numpy as np

from .master import Connection, FMUInstance, run
from .ssp import System, for_libcosim

LINKS = (("steering", "delta_left", "vehicle", "delta_left"), ("steering", "delta_right", "vehicle", "delta_right"),
         ("vehicle", "M_z_left", "steering", "M_z_left"), ("vehicle", "M_z_right", "steering", "M_z_right"),
         ("vehicle", "F_z_left", "steering", "F_z_left"), ("vehicle", "F_z_right", "steering", "F_z_right"))
RECORD = {"tau_sw": ("steering", "tau_sw"), "delta_sw": ("steering", "delta_sw"),
          "delta_left": ("steering", "delta_left"), "T_column": ("steering", "T_column"),
          "T_f_kingpin_left": ("steering", "T_f_kingpin_left"), "W_friction": ("steering", "W_friction"),
          "r": ("vehicle", "r"), "a_y": ("vehicle", "a_y"), "M_z_left": ("vehicle", "M_z_left")}


FMUS = {"steering": "SteeringSystem.fmu", "vehicle": "SingleTrackVehicle.fmu"}
INPUTS = {"tau_sw": ("steering", "tau_sw")}  # the system's input: the driver torque (N.m)


def fmu_paths(dist) -> dict:
    """{"steering": path, "vehicle": path}; dist: a folder with the two FMUs, or such a mapping."""
    if isinstance(dist, Mapping):
        return {key: Path(dist[key]) for key in FMUS}
    return {key: Path(dist) / name for key, name in FMUS.items()}


def system(dist, h=0.005, t_end=10.0) -> System:
    """The two FMUs connected, as written to SteeringVehicle.ssp; dist: see fmu_paths; h: the default
    step (s), stable with the explicit coupling (see the module docstring); t_end: the default stop
    time (s), the length of the default ``sine_sweep``."""
    return System("SteeringVehicle", fmu_paths(dist), list(LINKS), dict(INPUTS), step=h, stop_time=t_end)


def sine_sweep(amplitude=3.0, f0=0.2, f1=2.0, duration=10.0):
    """tau_sw(t) = amplitude sin(2 pi (f0 t + (f1 - f0) t^2 / (2 duration))) (N.m, Hz, s)."""
    def tau(t):
        return amplitude * np.sin(2.0 * np.pi * (f0 * t + (f1 - f0) * t**2 / (2.0 * duration)))
    return tau


STUDY_T_END = 5.0  # s, the coupling study's run


def study_torque():
    """The coupling study's driver torque (issue 14): 3 N.m swept from 0.2 to 1 Hz over STUDY_T_END."""
    return sine_sweep(3.0, 0.2, 1.0, STUDY_T_END)


def run_fmpy(dist, tau_sw, t_end, h, steering=None, vehicle=None, progress=None, coupling=None, stats=None):
    """Co-simulate with friction_joints.fmi.master; dist: see fmu_paths; steering, vehicle:
    {parameter: value} start values; coupling, stats: see master.run (default Jacobi)."""
    paths = fmu_paths(dist)
    instances = {"steering": FMUInstance(paths["steering"], "steering", steering),
                 "vehicle": FMUInstance(paths["vehicle"], "vehicle", vehicle)}
    try:
        return run(instances, [Connection(*link) for link in LINKS], h, t_end,
                   external={("steering", "tau_sw"): tau_sw}, record=RECORD, progress=progress,
                   coupling=coupling, stats=stats)
    finally:
        for inst in instances.values():
            inst.close()


def run_libcosim(dist, tau_sw, t_end, h, steering=None, vehicle=None, ssp=None):
    """Co-simulate with libcosim (libcosimpy); same arguments and result as ``run_fmpy`` but from the
    first communication point t = h on (libcosim's observer has no values before the first step);
    ssp: a SteeringVehicle.ssp to take the FMUs and their connections from instead (dist unused)."""
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimSlave import CosimLocalSlave

    log_output_level(CosimLogLevel.WARNING)
    with tempfile.TemporaryDirectory(prefix="libcosim_") as folder:
        if ssp is None:
            execution = CosimExecution.from_step_size(int(round(h * 1e9)))  # nanoseconds
            index = {name: execution.add_local_slave(CosimLocalSlave(str(path), name))
                     for name, path in fmu_paths(dist).items()}
        else:
            execution = CosimExecution.from_ssp_file(str(for_libcosim(ssp, folder)), int(round(h * 1e9)))
            index = {name: execution.slave_index_from_instance_name(name) for name in FMUS}
        return _run_libcosim(execution, index, ssp is None, tau_sw, t_end, h, steering, vehicle)


def _run_libcosim(execution, index, connect, tau_sw, t_end, h, steering, vehicle):
    """run_libcosim on an execution with the slaves index {name: slave index}; connect: add LINKS."""
    from libcosimpy.CosimManipulator import CosimManipulator
    from libcosimpy.CosimObserver import CosimObserver

    steps = int(round(t_end / h))
    refs = {name: {v.name.decode(): v.reference for v in execution.slave_variables(i)} for name, i in index.items()}
    for name, values in (("steering", steering), ("vehicle", vehicle)):
        for var, value in (values or {}).items():
            execution.real_initial_value(index[name], refs[name][var], float(value))
    for src, out, dst, inp in LINKS if connect else ():
        execution.connect_real_variables(index[src], refs[src][out], index[dst], refs[dst][inp])
    manipulator, observer = CosimManipulator.create_override(), CosimObserver.create_last_value()
    execution.add_manipulator(manipulator)
    execution.add_observer(observer)
    tau_ref = refs["steering"]["tau_sw"]

    def sample(t):
        return (t, *(observer.last_real_values(index[i], [refs[i][v]])[0] for i, v in RECORD.values()))

    rows = []
    for k in range(steps):
        manipulator.slave_real_values(index["steering"], [tau_ref], [float(tau_sw(k * h))])
        execution.step()
        rows.append(sample((k + 1) * h))
    return np.array(rows, dtype=[("time", float)] + [(c, float) for c in RECORD])


def deviation(run, reference, column="delta_sw") -> float:
    """Largest difference of a co-simulation run from a reference (``vehicle.monolithic``) at the same
    communication points, over the reference's largest magnitude (1); inf if the run left the floats."""
    difference = np.abs(run[column] - reference[column]).max()
    return float(difference / np.abs(reference[column]).max()) if np.isfinite(difference) else np.inf


def hysteresis_width(tau, delta):
    """Equivalent torque width (N.m) of a steering loop over whole periods: the loop area, i.e. the
    energy dissipated per period, over the angle range, |sum tau d(delta)| / (max delta - min delta).
    A loop of width w between two parallel branches gives w; Coulomb friction T reflected to the
    steering wheel and slipping throughout gives 2 T."""
    tau, delta = np.asarray(tau, float), np.asarray(delta, float)
    area = abs(np.sum(0.5 * (tau[1:] + tau[:-1]) * np.diff(delta)))
    return area / np.ptp(delta)


def loop_width_case(fmus, steering, h=0.005):
    """A sweep task (friction_joints.fmi.sweep): the hysteresis width (N.m) of the on-centre loop
    under tau_sw = 5 sin(0.4 pi t) N.m at 80 km/h over the period 2.5-7.5 s, steering: the
    SteeringSystem's start values; fmus: see fmu_paths. Returns ({"hysteresis_width": w}, None)."""
    r = run_fmpy(fmus, sine_sweep(5.0, 0.2, 0.2, 1.0), 7.5, h, steering=steering)
    period = r["time"] >= 2.5
    return {"hysteresis_width": hysteresis_width(r["tau_sw"][period], r["delta_sw"][period])}, None
