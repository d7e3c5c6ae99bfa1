"""Build every FMU of fmu_src/ into dist/, complete its modelDescription and validate it.

    python build_fmu.py [--out DIR] [--only NAME] [--fmi 2|3|both] [--jobs N] [--native]
    python build_fmu.py --mechanism FILE.toml [--name NAME] [--out DIR] [--fmi 2|3|both] [--native]

Each FMU is built as FMI 2.0 co-simulation (pythonfmu) into DIR and as FMI 3.0 co-simulation
(pythonfmu3, the same slave through friction_joints.fmi.fmi3) into DIR/fmi3, unless --fmi says one.

Each FMU carries the friction_joints package in its resources, so a host needs only Python with
numpy and scipy, and the bytecode of the modules an instance imports up to its first step
(``startup_bytecode``). After pythonfmu has built an FMU, its modelDescription.xml gets SI units through
UnitDefinitions (display units deg and rpm), min/max on parameters and inputs, descriptions, a complete
ModelStructure (outputs without direct feedthrough, InitialUnknowns) and the slave's DefaultExperiment;
documentation/index.html gives the equations, the variables and a plot of the default experiment
(run through FMPy with the inputs the slave documents; needs matplotlib). FMPy's validation must
then report no problem. With all FMUs built, DIR also gets the SSP files of the connected pairs
(friction_joints.fmi.ssp): SteeringVehicle.ssp and SpeedControl.ssp.

--native builds the native FMUs instead (friction_joints.fmi.native: the C engine and a C FMI layer, no
Python; binaries for linux64 and, with mingw-w64, win64, and the C sources): FMI 2.0 into DIR/native,
FMI 3.0 into DIR/native/fmi3, each with the modelDescription and documentation of its pythonfmu twin
(built into a temporary folder). A model the native build does not cover yet is skipped with a message
saying why.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import hashlib
import html
import importlib.util
import io
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

from pythonfmu.builder import FmuBuilder  # here, before a run of an FMU in this process can shadow them
from pythonfmu3.builder import FmuBuilder as Fmu3Builder

from friction_joints.fmi.units import DISPLAY, UNITS

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "fmu_src"
TESTED_BINARIES = ("binaries/linux64/", "binaries/x86_64-linux/")  # the platforms (FMI 2.0, 3.0) tests run FMUs on

PLOT = "default_experiment.png"
DRAWING = "mechanism.png"


def shipped_scripts() -> list[Path]:
    """The fmu_src scripts of the shipped FMUs, by name."""
    return sorted(SOURCES.glob("[A-Z]*.py"))


def slave_class(script: Path):
    """The MechanismSlave subclass defined in a fmu_src script."""
    sys.path.insert(0, str(HERE))
    spec = importlib.util.spec_from_file_location(script.stem, script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, script.stem)


def complete_description(xml: bytes, cls) -> bytes:
    """Units, bounds, ModelStructure and DefaultExperiment added to a pythonfmu (FMI 2.0) or pythonfmu3
    (FMI 3.0) modelDescription."""
    root = ET.fromstring(xml)
    fmi3 = root.get("fmiVersion", "").startswith("3")
    spec = {v.name: v for v in cls.variables}
    units = sorted({v.unit for v in cls.variables if v.unit in UNITS} | ({"s"} if fmi3 else set()))  # FMI 3: time
    defs = ET.Element("UnitDefinitions")
    for name in units:
        unit = ET.SubElement(defs, "Unit", name=name)
        ET.SubElement(unit, "BaseUnit", {k: str(e) for k, e in UNITS[name].items()})
        for disp, (base, factor) in DISPLAY.items():
            if base == name:
                ET.SubElement(unit, "DisplayUnit", name=disp, factor=repr(factor))
    children = list(root)
    root.insert(next(i for i, c in enumerate(children) if c.tag in ("LogCategories", "DefaultExperiment",
                                                                        "ModelVariables")), defs)
    old = root.find("DefaultExperiment")
    if old is not None:
        root.remove(old)
    experiment = dict(startTime="0", stopTime=repr(cls.experiment.stop_time), stepSize=repr(cls.experiment.step_size))
    if "rtol" in spec:  # a host passes this to setupExperiment, which sets rtol from it
        experiment["tolerance"] = repr(spec["rtol"].start)
    root.insert(list(root).index(root.find("ModelVariables")), ET.Element("DefaultExperiment", experiment))
    outputs = []
    for index, sv in enumerate(root.find("ModelVariables"), 1):
        if fmi3 and sv.get("causality") == "independent":  # the binding's time (friction_joints.fmi.fmi3)
            sv.set("unit", "s")
            continue
        v = spec[sv.get("name")]
        if not sv.get("description"):
            raise ValueError(f"{cls.__name__}: variable {v.name} has no description")
        typ = sv if fmi3 else sv[0]  # FMI 3: <Float64 name=...>; FMI 2: <ScalarVariable name=...><Real/>
        if v.unit in UNITS:
            typ.set("unit", v.unit)
        if v.display:
            typ.set("displayUnit", v.display)
        if v.causality in ("parameter", "input"):  # the ranges the slave enforces (fmi.slave)
            number = int if v.kind == "Integer" else float
            if v.min is not None:
                typ.set("min", repr(number(v.min)))
            if v.max is not None:
                typ.set("max", repr(number(v.max)))
        if v.causality == "output":
            outputs.append(sv.get("valueReference") if fmi3 else str(index))
    structure = root.find("ModelStructure")
    for child in list(structure):
        structure.remove(child)
    # outputs are computed by doStep: no direct feedthrough from the inputs
    if fmi3:
        for vr in outputs:
            ET.SubElement(structure, "Output", valueReference=vr, dependencies="")
        for vr in outputs:
            ET.SubElement(structure, "InitialUnknown", valueReference=vr)
    else:
        out_node = ET.SubElement(structure, "Outputs")
        init_node = ET.SubElement(structure, "InitialUnknowns")
        for index in outputs:
            ET.SubElement(out_node, "Unknown", index=index, dependencies="")
            ET.SubElement(init_node, "Unknown", index=index)
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")


def input_file(cls) -> str:
    """Name of the documented input table of the default experiment in documentation/."""
    return f"{cls.__name__}_in.csv"


def mechanism_drawing(cls) -> bytes | None:
    """PNG of the mechanism of a mechanism-file FMU in its initial configuration (None for the others)."""
    spec = getattr(cls, "spec", None)
    if spec is None:
        return None
    from friction_joints.mechanisms.drawing import drawing_png

    built = spec.build()
    return few_colours(drawing_png(built.mechanism, built.q0, spec.body_names, spec.joint_names,
                                   f"{cls.__name__} in its initial configuration"), 32)  # (a colour per body)


def few_colours(png: bytes, colours: int) -> bytes:
    """The PNG image in a palette of ``colours`` colours: matplotlib's lines, text and grid drawn as well as in 16
    million, in a third of the bytes (the default experiment's plot in 16: 15 kB, not 45)."""
    from PIL import Image  # (matplotlib's own dependency)

    small = io.BytesIO()
    Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=colours).save(small, format="PNG", optimize=True)
    return small.getvalue()


def documentation(cls, plot: bool, drawing: bool = False) -> str:
    rows = "\n".join(
        f"<tr><td>{html.escape(v.name)}</td><td>{v.causality}</td><td>{html.escape(v.unit)}</td>"
        f"<td>{'' if v.start is None else v.start}</td><td>{html.escape(v.description)}</td></tr>"
        for v in cls.variables)
    e = cls.experiment
    table = (f" The inputs are in <a href='{input_file(cls)}'>{input_file(cls)}</a>: "
             f"<code>fmpy simulate --input-file {input_file(cls)} {cls.__name__}.fmu</code> runs this experiment; "
             "without it the inputs stay at their start values." if e.inputs else "")
    figure = (f"<h2>Default experiment</h2><p>0 to {e.stop_time:g} s, communication step {e.step_size:g} s, "
              f"{html.escape(e.inputs_text)}.{table}</p>"
              + (f"<img src='{PLOT}' alt='default experiment'>" if plot else ""))
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{cls.__name__}</title></head><body>"
            f"<h1>{cls.__name__}</h1><p>{html.escape(cls.description)}</p>"
            + (f"<img src='{DRAWING}' alt='the mechanism in its initial configuration'>" if drawing else "")
            + f"<h2>Equations</h2><p>{cls.equations}</p>{figure}<h2>Variables</h2>"
            f"<table border='1'><tr><th>name</th><th>causality</th><th>unit</th><th>start</th><th>description</th>"
            f"</tr>{rows}</table></body></html>")


SIMULATE = """
import sys
import numpy as np
from fmpy import read_csv, simulate_fmu
fmu, stop, step, inputs, outputs, result = sys.argv[1:]
table = read_csv(inputs) if inputs else None
np.save(result, simulate_fmu(fmu, stop_time=float(stop), output_interval=float(step), input=table,
                             output=outputs.split("|")))
"""


def run_default_experiment(fmu: Path, cls):
    """FMPy's result of the FMU's default experiment with its documented inputs, run in a process of
    its own (the FMU's bundled package then is the only one imported there)."""
    import numpy as np

    from friction_joints.fmi.regression import input_table, write_csv

    e = cls.experiment
    with tempfile.TemporaryDirectory() as tmp:
        table, inputs = input_table(e.stop_time, e.step_size, e.inputs), ""
        if table is not None:
            inputs = str(Path(tmp) / "inputs.csv")
            write_csv(Path(inputs), table)
        result = Path(tmp) / "result.npy"
        subprocess.run([sys.executable, "-c", SIMULATE, str(Path(fmu).resolve()), repr(e.stop_time),
                        repr(e.step_size), inputs, "|".join(e.outputs), str(result)], check=True, cwd=tmp)
        return np.load(result)


def experiment_plot(fmu: Path, cls) -> bytes | None:
    """PNG of the default experiment run through FMPy (inputs as documented), None without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: the documentation gets no plot", file=sys.stderr)
        return None
    import numpy as np

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    e = cls.experiment
    res = run_default_experiment(fmu, cls)
    units = {v.name: v.unit for v in cls.variables}
    fig, axes = plt.subplots(len(e.outputs), 1, sharex=True, figsize=(7, 1.7 * len(e.outputs)))
    for ax, name in zip(np.atleast_1d(axes), e.outputs):
        ax.plot(res["time"], res[name].astype(float))
        ax.set_ylabel(f"{name} ({units[name]})" if units[name] else name, fontsize=8)
        ax.grid(alpha=0.3)
    np.atleast_1d(axes)[-1].set_xlabel("t (s)")
    fig.suptitle(f"{cls.__name__}: {e.inputs_text}", fontsize=9)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    plt.close(fig)
    return few_colours(buffer.getvalue(), 16)  # (one colour of line)


@contextlib.contextmanager
def without_fmu_resources_on_path():
    """sys.path without the resources folders of FMUs that ran in this process (pythonfmu adds them), restored
    after: a spawned builder starts with its parent's sys.path and imports build_fmu, and with it pythonfmu,
    before anything else runs in it; from an FMU's folder it would get the FMU's copy, without binaries."""
    kept = list(sys.path)
    sys.path[:] = [p for p in sys.path if not (Path(p or ".") / "slavemodule.txt").exists()]
    try:
        yield
    finally:
        sys.path[:] = kept


def forget_modules(*names):
    """Remove the modules ``names`` and their submodules from sys.modules."""
    for name in [n for n in sys.modules if n in names or n.split(".")[0] in names]:
        del sys.modules[name]


def source_hash(package: Path, *extra: Path) -> str:
    """12 hex digits of the SHA-256 of the package's files (and of ``extra`` files)."""
    digest = hashlib.sha256()
    files = sorted(p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in [*files, *extra]:
        digest.update(path.name.encode() if path in extra else path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


FMI2_SCRIPT = '''"""FMI 2.0 co-simulation FMU {name}: pythonfmu's entry to the slave class of {model}.py.

pythonfmu 0.7 runs this script again at every instantiation, in the module's globals with locals of
its own, takes the name of the Fmi2Slave subclass it finds among those locals, and instantiates the
module's class of that name. It leaks two strings per class in that subclass's method resolution order
and releases one reference to the globals that it does not own. So a run after the import binds the
name to _Found, the shortest such class, makes nothing else, and gives that reference back.
"""

import ctypes

if "{name}" in globals():  # pythonfmu's run at an instantiation
    {name} = _Found
else:  # the import
    from pythonfmu import Fmi2Slave
    from {model} import {name}

    class _Found(Fmi2Slave):
        """Only named in pythonfmu's run (the module's {name} is the slave class)."""

ctypes.pythonapi.Py_IncRef(ctypes.py_object(globals()))
'''

FMI3_SCRIPT = '''"""FMI 3.0 co-simulation FMU {name}: the slave of {model}.py, bound by friction_joints.fmi.fmi3."""

from pathlib import Path

from pythonfmu3 import Fmi3Slave

try:
    from {bundle}.fmi.bundle import follow_resources

    follow_resources(str(Path(__file__).parent))  # the package may be loaded already, from a folder now gone
    from {bundle}.fmi.fmi3 import Fmi3Binding
    from {model} import {name} as Model
except Exception as error:  # pythonfmu3 0.3.4 crashes its host when this import fails: fail at instantiation
    message = f"the FMU's Python code cannot be imported: {{type(error).__name__}}: {{error}}"

    def fail(self, **kwargs):
        raise ImportError(message)

    Fmi3Binding, Model = type("Fmi3Binding", (), {{"__init__": fail}}), None


class {name}(Fmi3Binding, Fmi3Slave):
    model = Model
'''


def pythonfmu_api(folder: Path) -> Path:
    """A copy of pythonfmu's Python package in ``folder``, without its binaries: the FMI 2 slave API
    that the slaves derive from, which an FMI 3.0 FMU bundles (pythonfmu3 brings only its own)."""
    import pythonfmu

    return Path(shutil.copytree(Path(pythonfmu.__file__).parent, folder / "pythonfmu",
                                ignore=shutil.ignore_patterns("__pycache__", "resources", "tests")))


def documents(fmu: Path, cls) -> dict[str, bytes]:
    """The files of documentation/ for the FMUs of cls: {name in the FMU: content}: index.html, the plot
    of the default experiment (run on ``fmu``, which has no documentation yet), the drawing of a
    mechanism-file FMU and the input table of the default experiment."""
    from friction_joints.fmi.regression import input_table, write_csv

    png = experiment_plot(fmu, cls)
    drawing = mechanism_drawing(cls) if png is not None else None
    files = {"documentation/index.html": documentation(cls, png is not None, drawing is not None).encode()}
    if png is not None:
        files[f"documentation/{PLOT}"] = png
    if drawing is not None:
        files[f"documentation/{DRAWING}"] = drawing
    e = cls.experiment
    inputs = input_table(e.stop_time, e.step_size, e.inputs)
    if inputs is not None:  # the inputs of the default experiment, as FMPy reads them
        with tempfile.TemporaryDirectory() as tmp:
            write_csv(Path(tmp) / input_file(cls), inputs)
            files[f"documentation/{input_file(cls)}"] = (Path(tmp) / input_file(cls)).read_bytes()
    return files


STARTUP_PROBE = """
import importlib.util, py_compile, sys
from pathlib import Path
sys.path.insert(0, {folder!r})
from {module} import {name}
slave = {name}(instance_name="probe", resources={folder!r})
slave.setup_experiment(0.0)
slave.enter_initialization_mode()
slave.exit_initialization_mode()
slave.do_step(0.0, {step!r})
for source in sorted({{getattr(m, "__file__", None) or "" for m in list(sys.modules.values())}}):
    if source.startswith({folder!r}) and source.endswith(".py"):
        pyc = Path(importlib.util.cache_from_source(source)).relative_to({folder!r})
        py_compile.compile(source, cfile=str(Path({out!r}) / pyc), doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
"""


def startup_bytecode(folder: Path, slave: Path, cls) -> dict[str, bytes]:
    """{name in the FMU: content} of the bytecode of the modules in ``folder`` (the FMU's resources) that
    an instance of the slave script imports up to its first step, found by running one in a fresh
    process: .pyc files checked against their source's hash, for the Python version that builds (another
    version compiles the sources as before), without the column tables of tracebacks (-X
    no_debug_ranges: a quarter smaller). pythonfmu imports with bytecode writing off, so without them
    every start-up compiles the package's modules (a third of it)."""
    with tempfile.TemporaryDirectory() as out:
        code = STARTUP_PROBE.format(folder=str(folder), module=slave.stem, name=cls.__name__, out=out,
                                    step=cls.experiment.step_size if cls.experiment else 1e-3)
        done = subprocess.run([sys.executable, "-X", "no_debug_ranges", "-c", code], capture_output=True, text=True,
                              cwd=folder, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
        if done.returncode:
            raise RuntimeError(f"{slave.stem}: the start-up probe failed:\n{done.stderr}")
        return {f"resources/{pyc.relative_to(out).as_posix()}": pyc.read_bytes() for pyc in Path(out).rglob("*.pyc")}


def build(script: Path, out: Path, loader: bool = True, package: Path = HERE / "friction_joints",
          resources=(), fmi_version: int = 2, docs: dict | None = None) -> Path:
    """Build, complete and validate the FMU of a fmu_src script into ``out``; loader: put the Python loader in front of pythonfmu's
    Linux binary (friction_joints.fmi.loader) so that hosts without Python run the FMU as it is;
    package: the friction_joints sources to bundle (default: this project's); resources: files the
    slave reads beside its script (a mechanism file), bundled into resources/ under their names;
    fmi_version: 2 (pythonfmu) or 3 (pythonfmu3: the same slave bound by friction_joints.fmi.fmi3);
    docs: the documentation files (``documents``) when they are made already (another FMI version's).

    Isolation: with h the hash of the package's sources and the slave script, the package goes into
    resources/ as friction_joints_<h>, and the slave script, importing it under that name, as
    resources/<Model>_<h>_slave.py, imported by pythonfmu's entry script <Model>_<h>.py (FMI2_SCRIPT;
    FMI 3.0: the binding's script <Model>_<h>_fmi3.py). An FMU imports only these names, so FMUs built from different sources
    run their own code in one process (pythonfmu imports the slave module by its file name, and
    Python a package once by its name), and a broken bundled copy fails instead of falling back on
    another friction_joints that is importable or already imported. Each model has its own names:
    a host that frees an FMU and deletes its folder can still instantiate another model."""
    from fmpy.validation import validate_fmu

    from friction_joints.fmi.loader import install_loader

    if fmi_version not in (2, 3):
        raise ValueError(f"fmi_version = {fmi_version!r} is outside its allowed values 2 and 3")
    cls = slave_class(script)
    resources = [Path(r) for r in resources]
    h = source_hash(package, script, *resources)
    bundle = f"friction_joints_{h}"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # the C sources (the engine's, the native FMI layer's, the loader's) stay out: the FMU runs the compiled engine
        shutil.copytree(package, tmp / bundle, ignore=shutil.ignore_patterns("__pycache__", "*.c", "*.h"))
        for path in resources:
            shutil.copy(path, tmp / path.name)
        project = [tmp / bundle, *(tmp / r.name for r in resources)]
        slave = tmp / f"{script.stem}_{h}_slave.py"
        slave.write_text(re.sub(r"\bfriction_joints\b", bundle, script.read_text()))
        loaded = set(sys.modules)
        if fmi_version == 2:
            entry = tmp / f"{script.stem}_{h}.py"
            entry.write_text(FMI2_SCRIPT.format(name=script.stem, model=slave.stem))
            raw = FmuBuilder.build_FMU(entry, dest=tmp, project_files=[*project, slave], canGetAndSetFMUstate=True,
                                       canSerializeFMUstate=True, needsExecutionTool=False)
        else:
            entry = tmp / f"{script.stem}_{h}_fmi3.py"
            entry.write_text(FMI3_SCRIPT.format(name=script.stem, model=slave.stem, bundle=bundle))
            raw = Fmu3Builder.build_FMU(entry, dest=tmp, project_files=[*project, slave, pythonfmu_api(tmp)],
                                        canGetAndSetFMUState=True, canSerializeFMUState=True,
                                        canHandleVariableCommunicationStepSize=True, needsExecutionTool=False)
        # the builder imported them from tmp, or found them imported by a same-source FMU that ran in this process:
        # those stay (forgotten, that FMU's entry module would keep its slave class while the modules it imports
        # later came afresh: two copies of the package, whose packers know none of the other's joints)
        forget_modules(*(name for name in (entry.stem, slave.stem, bundle) if name not in loaded))
        bytecode = startup_bytecode(tmp, slave, cls)
        with zipfile.ZipFile(raw) as built:
            if not any(name.startswith("binaries/") for name in built.namelist()):
                # pythonfmu's builder copies its binaries from beside its module: an FMU run in this process
                # before build_fmu was imported puts the FMU's copy of pythonfmu (no binaries) first on sys.path
                builder = FmuBuilder if fmi_version == 2 else Fmu3Builder
                raise RuntimeError(f"pythonfmu's builder at {Path(sys.modules[builder.__module__].__file__).parent} "
                                   "has no binaries: it is the copy inside an FMU that ran in this process, not the "
                                   "installed package; build in a process that has not run an FMU, or import "
                                   "build_fmu first")
        out.mkdir(parents=True, exist_ok=True)
        target = out / raw.name
        with zipfile.ZipFile(raw) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
            for item in src.infolist():
                if item.filename.startswith("binaries/") and not item.filename.startswith(TESTED_BINARIES):
                    continue  # pythonfmu's binaries for platforms no test runs the FMU on
                data = src.read(item)
                if item.filename == "modelDescription.xml":
                    data = complete_description(data, cls)
                item.compress_type = zipfile.ZIP_DEFLATED  # pythonfmu's builder stores its files uncompressed
                dst.writestr(item, data)
            for name, data in bytecode.items():
                dst.writestr(name, data, compresslevel=9)
    with zipfile.ZipFile(target, "a", zipfile.ZIP_DEFLATED) as dst:
        for name, data in (documents(target, cls) if docs is None else docs).items():
            dst.writestr(name, data)
    if loader:
        try:
            install_loader(target, interpolates_inputs=cls.interpolates_inputs)
        except RuntimeError as exc:
            print(f"{target.name}: no loader ({exc}); hosts without Python need LD_PRELOAD and PYTHONPATH "
                  "(README, Hosts)", file=sys.stderr)
    problems = validate_fmu(str(target))
    if problems:
        raise SystemExit(f"{target.name} is not valid:\n  " + "\n  ".join(problems))
    return target


def version_folder(out: Path, version: int) -> Path:
    """Where the FMUs of FMI version 2 or 3 go: ``out``, or ``out/fmi3``."""
    return out / "fmi3" if version == 3 else out


def build_versions(script: Path, out: Path, versions=(2, 3), loader: bool = True, resources=()) -> list[Path]:
    """``build`` of the FMU of a fmu_src script (with its resources) for each FMI version, 2.0 into ``out``
    and 3.0 into ``out/fmi3``: the documentation (its plot runs the default experiment) is made once, for
    the first."""
    paths, docs = [], None
    for version in versions:
        paths.append(build(script, version_folder(out, version), loader, resources=resources, fmi_version=version,
                           docs=docs))
        if docs is None:
            with zipfile.ZipFile(paths[-1]) as built:
                docs = {name: built.read(name) for name in built.namelist() if name.startswith("documentation/")}
    return paths


NATIVE = "native"  # DIR/native: the native FMUs (FMI 2.0), DIR/native/fmi3 (FMI 3.0)


def build_native_versions(script: Path, out: Path, versions=(2, 3)) -> list[Path]:
    """The native FMUs of a fmu_src script (friction_joints.fmi.native) for each FMI version, 2.0 into
    ``out/native`` and 3.0 into ``out/native/fmi3``, from its pythonfmu twins built into a temporary folder,
    validated by FMPy; none, with a message saying why, for a model the native build does not cover."""
    from friction_joints.fmi.native import NotNative, model_table

    cls = slave_class(script)
    try:
        model_table(cls)
    except NotNative as why:
        print(f"{script.stem}: skipped, no native FMU yet: {why}", file=sys.stderr)
        return []
    with tempfile.TemporaryDirectory() as tmp:
        built = build_versions(script, Path(tmp), versions, loader=False)
        return native_of_twins(cls, built, out, f"fmu_src/{script.name}")


def native_of_twins(cls, twins: list[Path], out: Path, script: str) -> list[Path]:
    """The native FMU of the slave class cls from each of its built pythonfmu twins (FMI 2.0 into
    ``out/native``, 3.0 into ``out/native/fmi3``), validated by FMPy; script: what model.c says it is from."""
    from fmpy.validation import validate_fmu

    from friction_joints.fmi.native import build_native

    paths = []
    for twin in twins:
        version = 3 if twin.parent.name == "fmi3" else 2
        path, notes = build_native(cls, twin, version_folder(out / NATIVE, version), script=script)
        for note in notes:
            print(note, file=sys.stderr)
        problems = validate_fmu(str(path))
        if problems:
            raise SystemExit(f"{path} is not valid:\n  " + "\n  ".join(problems))
        paths.append(path)
    return paths


MECHANISM_SCRIPT = '''"""FMU {name}: the mechanism of its file {name}.toml (beside this script in the FMU's resources)."""

from pathlib import Path

from friction_joints.fmi import file_slave


class {name}(file_slave.FileSlave):
    mechanism_file = Path(__file__).with_name("{name}.toml")
'''


@contextlib.contextmanager
def mechanism_script(path: Path, name: str | None = None):
    """(slave script, mechanism file) of the FMU of a mechanism file named ``name`` (default: the file's
    name), written into a temporary folder (the file as <name>.toml beside the script)."""
    from friction_joints.mechanisms.files import read_file

    name = name or read_file(path).name
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise SystemExit(f"--name {name}: the model name must be an identifier (letters, digits, _)")
    with tempfile.TemporaryDirectory() as tmp:
        script, toml = Path(tmp) / f"{name}.py", Path(tmp) / f"{name}.toml"
        shutil.copy(path, toml)
        script.write_text(MECHANISM_SCRIPT.format(name=name))
        try:
            yield script, toml
        finally:
            forget_modules(name)


def build_mechanism(path: Path, out: Path, name: str | None = None, loader: bool = True,
                    fmi_version: int = 2) -> Path:
    """Build the FMU of a mechanism file (friction_joints.fmi.file_slave) into ``out``, named ``name``
    (default: the file's name); arguments as for ``build``."""
    with mechanism_script(path, name) as (script, toml):
        return build(script, out, loader, resources=[toml], fmi_version=fmi_version)


def build_mechanism_native(path: Path, out: Path, name: str | None = None, versions=(2, 3),
                           twins: Path | None = None) -> list[Path]:
    """The native FMUs of a mechanism file (friction_joints.fmi.native_file) for each FMI version, 2.0 into
    ``out/native`` and 3.0 into ``out/native/fmi3``, from its pythonfmu twins built into a temporary folder
    (or into ``twins`` and its fmi3 folder, kept), validated by FMPy; SystemExit saying why for a file that
    has no native FMU."""
    from friction_joints.fmi.native import NotNative, model_table

    with mechanism_script(path, name) as (script, toml), tempfile.TemporaryDirectory() as tmp:
        cls = slave_class(script)
        try:
            model_table(cls)
        except NotNative as why:
            raise SystemExit(f"{path}: no native FMU: {why}") from None
        built = build_versions(script, Path(twins or tmp), versions, loader=twins is not None, resources=[toml])
        return native_of_twins(cls, built, out, Path(path).name)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Build the FMUs of fmu_src/ (or of a mechanism file) into DIR.")
    parser.add_argument("--out", default=str(HERE / "dist"), help="output directory (default dist/)")
    parser.add_argument("--only", help="build only this FMU (e.g. SliderCrank)")
    parser.add_argument("--no-loader", action="store_true",
                        help="leave pythonfmu's binary alone (no loader for hosts without Python)")
    parser.add_argument("--mechanism", type=Path, metavar="FILE.toml",
                        help="build only the FMU of this mechanism file (docs/mechanism-files.md)")
    parser.add_argument("--name", help="with --mechanism: the FMU's model name (default: the file's name)")
    parser.add_argument("--jobs", type=int, metavar="N",
                        help="build N FMUs at a time, each in a process of its own (default: one per CPU)")
    parser.add_argument("--fmi", choices=("2", "3", "both"), default="both",
                        help="FMI version: 2.0 into DIR, 3.0 into DIR/fmi3, or both (the default)")
    parser.add_argument("--native", action="store_true",
                        help="build the native FMUs (C engine and C FMI layer, no Python) into DIR/native and "
                             "DIR/native/fmi3 instead (with --mechanism: the file's); models it does not cover yet "
                             "are skipped with a message")
    args = parser.parse_args(argv)
    if not any((HERE / "friction_joints" / "native").glob("_engine*")):
        raise SystemExit("the C engine is not built in friction_joints/native/, the package the FMUs carry: "
                         "install the project with `pip install -e .` (pip compiles the engine there; a plain "
                         "`pip install .` compiles it into site-packages instead)")
    versions = [2, 3] if args.fmi == "both" else [int(args.fmi)]
    if args.mechanism and args.native:
        try:
            paths = build_mechanism_native(args.mechanism, Path(args.out), args.name, versions)
        except (OSError, ValueError) as exc:
            raise SystemExit(str(exc)) from None
        for path in paths:
            print(f"built and validated {path}")
        return
    if args.mechanism:
        for version in versions:
            try:
                target = build_mechanism(args.mechanism, version_folder(Path(args.out), version), args.name,
                                         loader=not args.no_loader, fmi_version=version)
            except (OSError, ValueError) as exc:
                raise SystemExit(str(exc)) from None
            print(f"built and validated {target}")
        return
    if args.name:
        parser.error("--name needs --mechanism")
    if args.jobs is not None and args.jobs < 1:
        parser.error(f"--jobs {args.jobs}: must be at least 1")
    scripts = shipped_scripts()
    if args.only:
        scripts = [s for s in scripts if s.stem == args.only]
        if not scripts:
            raise SystemExit(f"--only {args.only}: no such FMU in fmu_src/ "
                             f"(have {', '.join(s.stem for s in shipped_scripts())})")
    jobs = min(args.jobs or os.cpu_count() or 1, len(scripts))
    if args.native:
        job, job_args = build_native_versions, (Path(args.out), versions)
    else:
        job, job_args = build_versions, (Path(args.out), versions, not args.no_loader)
    if jobs == 1:
        for script in scripts:
            for path in job(script, *job_args):
                print(f"built and validated {path}")
    else:  # in fresh processes (spawn): the caller may have threads, and fork copies them stopped
        with without_fmu_resources_on_path(), concurrent.futures.ProcessPoolExecutor(
                jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [pool.submit(job, script, *job_args) for script in scripts]
            for future in futures:
                for path in future.result():
                    print(f"built and validated {path}", flush=True)
    if not args.only and 2 in versions and not args.native:
        write_systems(Path(args.out))


def write_systems(out: Path):
    """Write SteeringVehicle.ssp and SpeedControl.ssp of the FMUs in out."""
    from friction_joints.fmi import speed_control, steering_vehicle
    from friction_joints.fmi.ssp import write_ssp

    for system in (steering_vehicle.system(out), speed_control.system(out)):
        write_ssp(out / f"{system.name}.ssp", system)
        print(f"wrote {out / system.name}.ssp")


if __name__ == "__main__":
    main()
