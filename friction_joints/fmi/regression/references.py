"""The reference layout (FMI cross-check): reading and writing <Case>_ref.opt, _in.csv and _ref.csv."""

from __future__ import annotations

from pathlib import Path

import numpy as np

OPT_KEYS = ("StartTime", "StopTime", "StepSize", "RelTol")
START = "Start "  # the prefix of a start value's key in an .opt


class ReferenceError(Exception):
    """A missing or malformed reference file (the check cannot run: exit status 2)."""


def read_opt(path: Path) -> dict:
    """{key: value} of an .opt; ReferenceError naming the file and the line or key that is wrong."""
    path = Path(path)
    if not path.exists():
        raise ReferenceError(f"missing {path}")
    opt = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            key, comma, value = line.partition(",")
            try:
                opt[key.strip()] = float(value)
            except ValueError:
                raise ReferenceError(f"{path}, line {number}: expected '<key>, <number>', got {line!r}") from None
            if not comma:
                raise ReferenceError(f"{path}, line {number}: expected '<key>, <number>', got {line!r}")
    missing = [k for k in OPT_KEYS if k not in opt]
    if missing:
        raise ReferenceError(f"{path} lacks {', '.join(missing)}")
    if not (opt["StopTime"] > opt["StartTime"] and opt["StepSize"] > 0 and 0 < opt["RelTol"] < 1):
        raise ReferenceError(f"{path}: need StopTime > StartTime, StepSize > 0 and 0 < RelTol < 1, got {opt}")
    return opt


def read_csv(path: Path) -> np.ndarray:
    """A CSV with a header row (quoted or bare names, the first one 'time') as a structured array;
    ReferenceError naming the file and what is wrong with its layout."""
    path = Path(path)
    if not path.exists():
        raise ReferenceError(f"missing {path}")
    header, *rows = path.read_text().splitlines() or [""]
    names = [n.strip().strip('"') for n in header.split(",")]
    rows = [row for row in rows if row.strip()]
    if names[0] != "time":
        raise ReferenceError(f"{path}: the first column must be 'time', got {names[0]!r}")
    if len(set(names)) < len(names) or "" in names:
        raise ReferenceError(f"{path}: empty or repeated column names in {names}")
    if not rows:
        raise ReferenceError(f"{path}: no rows below the header")
    try:
        data = np.loadtxt(rows, delimiter=",", ndmin=2)
    except ValueError as exc:
        raise ReferenceError(f"{path}: not a table of numbers below the header: {exc}") from None
    if data.shape[1] != len(names):
        raise ReferenceError(f"{path}: {len(names)} named columns, {data.shape[1]} data columns")
    if not np.all(np.isfinite(data[:, 0])) or np.any(np.diff(data[:, 0]) < 0):
        raise ReferenceError(f"{path}: the time column is not finite and non-decreasing")
    return np.array([tuple(row) for row in data], dtype=[(n, float) for n in names])


def write_csv(path: Path, table: np.ndarray):
    names = table.dtype.names
    with Path(path).open("w") as f:
        f.write(",".join(f'"{n}"' for n in names) + "\n")
        for row in table:
            f.write(",".join(repr(float(v)) for v in row) + "\n")


def as_float_table(result: np.ndarray, names) -> np.ndarray:
    """The columns names of a result (Booleans as 0/1) as a structured array of floats."""
    return np.array([tuple(float(v) for v in row) for row in result[list(names)]], dtype=[(n, float) for n in names])


def start_values_of(opt: dict) -> dict:
    """{variable: value} of the "Start <variable>" lines of an .opt (whole numbers as int, which an Integer
    variable needs)."""
    return {key[len(START):]: int(value) if value.is_integer() else value for key, value in opt.items()
            if key.startswith(START)}


def cases(refdir, model) -> list[str]:
    """The reference cases of <Model> in refdir: the model itself, then its variants <Model>-<variant>."""
    return [model] + sorted(p.name[:-len("_ref.opt")] for p in Path(refdir).glob(f"{model}-*_ref.opt"))


def input_table(stop_time: float, step_size: float, inputs: dict):
    """Inputs {name: function of t} sampled at 0, step_size, ..., stop_time (s) as the structured
    array FMPy's simulate_fmu takes and <Model>_in.csv holds; None without inputs."""
    if not inputs:
        return None
    t = np.round(np.arange(0.0, stop_time + step_size / 2, step_size), 12)
    return np.array([(ti, *(float(fn(ti)) for fn in inputs.values())) for ti in t],
                    dtype=[("time", float)] + [(n, float) for n in inputs])


def before(t: float, stop: float) -> bool:
    """Whether time t is short of stop by more than rounding."""
    return t < stop and not np.isclose(t, stop)


def read_experiment(refdir, case) -> tuple[dict, np.ndarray | None]:
    """The .opt of case in refdir and its input table (None without <case>_in.csv)."""
    in_path = Path(refdir) / f"{case}_in.csv"
    return read_opt(Path(refdir) / f"{case}_ref.opt"), read_csv(in_path) if in_path.exists() else None


def load_reference(refdir, case) -> tuple[dict, np.ndarray | None, np.ndarray]:
    """(opt, input table or None, reference) of case in refdir."""
    opt, inputs = read_experiment(refdir, case)
    ref = read_csv(Path(refdir) / f"{case}_ref.csv")
    if len(ref.dtype.names) < 2:
        raise ReferenceError(f"{case}_ref.csv has no signal to check, only 'time'")
    if before(opt["StopTime"], ref["time"][-1]):
        raise ReferenceError(f"{case}_ref.csv goes on to t = {ref['time'][-1]:.6g} s, after StopTime = "
                             f"{opt['StopTime']:.6g} s")
    if before(ref["time"][-1], opt["StopTime"]) or before(opt["StartTime"], ref["time"][0]):
        raise ReferenceError(f"{case}_ref.csv covers t = {ref['time'][0]:.6g} to {ref['time'][-1]:.6g} s, not "
                             f"StartTime = {opt['StartTime']:.6g} to StopTime = {opt['StopTime']:.6g} s")
    return opt, inputs, ref
