"""The native FMUs: a model as the C engine (``native/src``) and the C FMI layer (``native/fmi``), with
no Python in it, for the hosts that have none (Simulink, Dymola, OMSimulator, HIL rigs).

A native FMU is the twin of a pythonfmu FMU of the same fmu_src slave: its modelDescription is the
twin's (the same variables, value references, units, bounds, descriptions, DefaultExperiment,
documentation) with the native build's capabilities (needsExecutionTool false, canInterpolateInputs,
the FMU state) and sources; its binaries (linux64 with gcc, win64 with mingw-w64) contain the engine
and ``fmi2Functions.c`` or ``fmi3Functions.c`` over one model interface (``native/fmi/fj_fmu_model.h``),
whose table (``model.c``) is written here from the slave's ``Var`` rows:

    parameters -> the C assembly's parameters (native/src/assembly*.c, by name; rtol the tolerance;
                  unused: the bristle laws' of a model whose assembly refuses them); a model may have two more
                  assemblies, each taking the parameters of the one before and its own: that of its bristle
                  friction (BRISTLE_ASSEMBLIES, where friction_model > 0; a mechanism file's written into its
                  model.c) and that of its clearance joint and flexible link (CLEARANCE_ASSEMBLIES, where
                  clearance > 0 or n_rfe > 0; also the inputs at the start), which model.c names (fj_fmu_model.h)
    inputs     -> tau (in the order of the slave's ``inputs``)
    record     -> outputs (found by running the slave's ``publish`` on a record of distinct values;
                  unused, always 0: those of a feature the assemblies refuse; the clearance assembly's own,
                  0 with the others)

A model is native when the engine has an assembly of its parameters and its family decides its modes
in C; ``model_table`` raises ``NotNative`` saying why another is not. A model the engine does not run
(DISCRETE: the SpeedController's discrete PI) is a C file beside the FMI layer with its assembly and its
update (``fj_fmu_model.h``), its parameters, inputs and state (= its outputs) in the order of its Var rows.

    path = build_native(cls, twin_fmu, out_folder)   # cls: the fmu_src slave class; twin: its built FMU
"""

from __future__ import annotations

import concurrent.futures
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

import numpy as np

from .. import native
from ..hybrid.signals import Held
from ..mechanisms.expressions import c_double
from ..mechanisms.files import MechanismFile
from ..native.build import CFLAGS, c_compiler
from ..planar import MechanismSystem
from .publication import NotFromRecord, record_indices
from .slave import FrictionModelSlave, SystemSlave

FMI_DIR = Path(native.__file__).resolve().parent / "fmi"
ENGINE_DIR = Path(native.__file__).resolve().parent / "src"
RTOL, UNUSED = -1, -2  # fj_fmu_model.h FJ_FMU_RTOL, FJ_FMU_UNUSED
CAUSALITY = {"parameter": "FJ_FMU_PARAMETER", "input": "FJ_FMU_INPUT", "output": "FJ_FMU_OUTPUT"}
TYPE = {"Real": "FJ_FMU_REAL", "Integer": "FJ_FMU_INTEGER", "Boolean": "FJ_FMU_BOOLEAN"}
INERTIA_UNITS = ("kg", "kg.m2")  # MechanismSlave.exit_initialization_mode: at least one of them > 0
MINGW = "x86_64-w64-mingw32-gcc"
#: the binaries of a planar mechanism's FMU within 300 kB: no inlining of the functions not declared inline (the
#: same arithmetic; no slower in bench_native.py); on linux64 also the sections nothing uses dropped, and no
#: unwind tables (C code that nothing unwinds: the FMI functions return a status, and FMI callbacks must not throw)
SMALLER = ("-fno-inline-functions",)
#: the files that run once per instance (the assemblies, the planar packer, the FMI layer, model.c's table) or for a
#: few hundred instructions a step (fj_fmu.c: 0.1 % of a step), compiled for size: 3-8 kB less of an FMU, 0.1 % more
#: instructions a step (SliderCrank and RSRRRLinkage in the C host under callgrind; the same results)
ONCE = ("assembly*.c", "planar_assemble.c", "planar_mechanism.c", "planar_pack.c", "model.c", "fj_fmu.c",
        "fmi2Functions.c", "fmi3Functions.c")
FOR_SIZE = ("-Os",)
#: the bristle laws' parameters (FrictionModelSlave), used only with friction_model > 0, which the C assembly of a
#: model takes only where it has a bristle assembly (BRISTLE_ASSEMBLIES)
BRISTLE = ("sigma0", "sigma1", "sigma2", "v_s", "delta", "z_ba_ratio")
#: the C assembly of a model's system with bristle friction (friction_model > 0), by the model's assembly: its
#: parameters are the model's, then the bristle laws' (fj_fmu_model.h)
BRISTLE_ASSEMBLIES = {"SteeringSystem": "SteeringBristle", "SliderCrank": "SliderCrankBristle",
                      "OffsetSliderCrank": "OffsetSliderCrankBristle", "RSRRRLinkage": "RSRRRBristle"}
#: the C assembly of a model's system with a clearance joint or a flexible link (seed 003; clearance > 0 or n_rfe >
#: 0), by the model's assembly: its parameters are the bristle assembly's, then its own, then the inputs at the start
#: (fj_fmu_model.h); its record begins with the model's (clearance_packing.record_layout)
CLEARANCE_ASSEMBLIES = {"RSRRRLinkage": "RSRRRClearance"}
#: the parameter values of a system with a clearance joint and a flexible link, by which the clearance assembly is
#: checked against its twin's compiled system (defaults elsewhere)
CLEARANCE_CHECK = {"clearance": 1e-4}


@dataclass(frozen=True)
class Platform:
    """A platform the native FMUs are built for: its folders in binaries/ (FMI 2.0, FMI 3.0), the suffix
    of its shared library, the compiler and the flags of the library."""

    name: str
    fmi2: str
    fmi3: str
    suffix: str
    compiler: tuple
    flags: tuple

    def folder(self, fmi_version: int) -> str:
        return self.fmi2 if fmi_version == 2 else self.fmi3


def platforms() -> tuple[dict, dict]:
    """({name: Platform} that this machine builds, {name: why not} of the others): linux64 with the system C
    compiler, win64 with mingw-w64 (Debian: apt-get install gcc-mingw-w64-x86-64)."""
    found, missing = {}, {}
    try:
        cc = tuple(c_compiler())
        found["linux64"] = Platform("linux64", "linux64", "x86_64-linux", ".so", cc,
                                    ("-fPIC", "-shared", "-fvisibility=hidden", "-Wl,--no-undefined", "-s",
                                     *SMALLER, "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections",
                                     "-fno-asynchronous-unwind-tables"))
    except RuntimeError as error:
        missing["linux64"] = str(error)
    if shutil.which(MINGW):
        found["win64"] = Platform("win64", "win64", "x86_64-windows", ".dll", (MINGW,),
                                  ("-shared", "-static-libgcc", "-s", *SMALLER))
    else:
        missing["win64"] = f"no {MINGW} (Debian: apt-get install gcc-mingw-w64-x86-64)"
    return found, missing


#: the models the engine does not run: {model: its C file in native/fmi (fj_assembly_<model> and
#: fj_update_<model>, fj_fmu_model.h)}
DISCRETE = {"SpeedController": "speed_controller.c"}


class NotNative(Exception):
    """Why a model has no native FMU (yet)."""


# ======================================================================================================
# The model's table (model.c)
# ======================================================================================================

@dataclass(frozen=True)
class ModelTable:
    """What model.c says of a slave class: its assembly, the assembly of its bristle friction (or None) and,
    per variable (in value-reference order), its Var, index (the assembly's parameter, RTOL, tau or the
    record) and count (1; a Boolean output: the run of the record's entries it is true for where one is not
    zero)."""

    name: str
    assembly: native.Assembly
    variables: tuple  # ((Var, index, count), ...): count, of an output, the record's entries it joins
    bristle: native.Assembly | None = None
    clearance: native.Assembly | None = None


@dataclass(frozen=True)
class DiscreteAssembly:
    """The assembly of a model of DISCRETE (the attributes model_source and source_files read): no family; its
    parameters ``names`` and ``n_tau`` inputs those of its slave, in the order of its Var rows; ``file`` its C file."""

    model: str
    file: str
    names: tuple
    n_tau: int
    family = None


def _discrete_table(cls) -> ModelTable:
    """The table of a model of DISCRETE: each variable's index its place among those of its causality (the C
    file's layout; fj_fmu_new checks the parameters' names against its assembly's)."""
    counts, rows = {"parameter": 0, "input": 0, "output": 0}, []
    for v in cls.variables:
        rows.append((v, counts[v.causality], 1))
        counts[v.causality] += 1
    names = tuple(v.name for v in cls.variables if v.causality == "parameter")
    return ModelTable(cls.__name__, DiscreteAssembly(cls.__name__, DISCRETE[cls.__name__], names, counts["input"]),
                      tuple(rows))


def model_table(cls) -> ModelTable:
    """The table of the native FMU of the fmu_src slave class ``cls`` (or of a mechanism file's FileSlave
    class: its assembly written by native_file); NotNative if it has none."""
    name = cls.__name__
    if name in DISCRETE:
        return _discrete_table(cls)
    if isinstance(getattr(cls, "spec", None), MechanismFile):
        from .native_file import FileAssembly

        assembly = FileAssembly(cls.spec, name)
    else:
        try:
            assembly = native.Assembly(name)
        except ValueError:
            raise NotNative("the C engine has no assembly of its parameters (native/src/assembly*.c: the models "
                            "whose packed arrays are a function of their parameters)") from None
    if not native.Family(assembly.family).decides_modes:
        raise NotNative(f"the C engine's family {assembly.family} does not decide its modes in C yet")
    slave = object.__new__(cls)  # build and publish use only their arguments (no FMU instance here)
    defaults = {v.name: v.start if v.start is not None else 0.0 for v in cls.variables}
    inputs = tuple(getattr(cls, "inputs", ()))
    if len(inputs) != assembly.n_tau:
        raise NotNative(f"its inputs {inputs} are not the {assembly.n_tau} of its assembly")
    system, y0_python = _system(cls, slave, defaults, inputs)
    if not _assembled_as_compiled(assembly, defaults, system, y0_python):
        raise NotNative(f"its system's compiled form is not its C assembly's ({assembly.family})")
    outputs = _record_indices(cls, slave, system, assembly.n_record)
    bristle = _bristle_assembly(cls, slave, defaults, inputs, assembly, outputs)
    clearance = _clearance_assembly(cls, slave, defaults, inputs, assembly, bristle or assembly, outputs)
    names = (clearance or bristle or assembly).names
    spec = getattr(cls, "spec", None)
    joint_laws = set(spec.law_values()) if isinstance(spec, MechanismFile) else set()  # (a file's joints' own)
    rows = []
    for v in cls.variables:
        if v.causality == "parameter":
            if v.name == "rtol":
                index = RTOL
            elif v.name in names:
                index = names.index(v.name)
            elif (v.name in BRISTLE or v.name in joint_laws) and "friction_model" in assembly.names:
                index = UNUSED  # the assembly refuses a bristle law: these never act
            else:
                raise NotNative(f"its parameter {v.name} is not one of the C assembly's ({', '.join(assembly.names)})")
        elif v.causality == "input":
            index = inputs.index(v.name)
        else:
            index, count = outputs[v.name]
        rows.append((v, index, count if v.causality == "output" else 1))
    missing = set(names) - {v.name for v in cls.variables}
    if missing:
        raise NotNative(f"the C assembly's parameters {sorted(missing)} are not its variables")
    return ModelTable(name, assembly, tuple(rows), bristle, clearance)


def _bristle_assembly(cls, slave, defaults, inputs, assembly, outputs):
    """The C assembly of the model's bristle friction (BRISTLE_ASSEMBLIES), None if it has none; NotNative
    where it does not fit fj_fmu_model.h: its parameters must begin with the assembly's, its inputs be the
    same, the system the slave builds with friction_model 2 be its compiled form, and every output read the
    same record entries. A mechanism file's is its FileAssembly's (written into model.c beside it)."""
    if getattr(assembly, "source", ""):
        bristle = assembly.bristle
    else:
        bristle = native.Assembly(BRISTLE_ASSEMBLIES[assembly.model]) if assembly.model in BRISTLE_ASSEMBLIES else None
    if bristle is None:
        return None
    values = dict(defaults, friction_model=2)
    system, y0_python = _system(cls, slave, values, inputs)
    if (bristle.names[:len(assembly.names)] != assembly.names or bristle.n_tau != assembly.n_tau
            or not _assembled_as_compiled(bristle, values, system, y0_python)
            or _record_indices(cls, slave, system, bristle.n_record) != outputs):
        raise NotNative(f"its bristle system's compiled form is not its C assembly's ({bristle.family}) or does not "
                        f"extend {assembly.model}'s")
    return bristle


def _clearance_assembly(cls, slave, defaults, inputs, assembly, before, outputs):
    """The C assembly of the model's clearance joint and flexible link (CLEARANCE_ASSEMBLIES), None if it has none;
    NotNative where it does not fit fj_fmu_model.h: its parameters must begin with those of ``before`` (the bristle
    assembly's, else the model's) and end with the inputs, its inputs be the same, the system the slave builds with
    CLEARANCE_CHECK be its compiled form, and every output of the model's record read the same entries. ``outputs``
    gets the indices of the outputs only its record has (0 with the other assemblies, as in the twin)."""
    if getattr(assembly, "source", "") or assembly.model not in CLEARANCE_ASSEMBLIES:
        return None
    from ..spatial import clearance_packing

    clearance = native.Assembly(CLEARANCE_ASSEMBLIES[assembly.model])
    values = dict(defaults, **CLEARANCE_CHECK)
    system, y0_python = _system(cls, slave, values, inputs)
    compiled = system.compiled()
    found = _record_indices(cls, slave, system, compiled.n_record)
    fpar, ipar, y0 = clearance_packing.trim(*clearance(values))
    if not (clearance.names[:len(before.names)] == before.names and clearance.names[-len(inputs):] == inputs
            and clearance.n_tau == assembly.n_tau and compiled.family_name == clearance.family
            and np.array_equal(compiled.fpar, fpar) and np.array_equal(compiled.ipar, ipar)
            and np.allclose(y0_python, y0, rtol=1e-12, atol=1e-12)
            and all(found[name] == index for name, index in outputs.items() if index[0] != UNUSED)):
        raise NotNative(f"its clearance system's compiled form is not its C assembly's ({clearance.family}) or does "
                        f"not extend {assembly.model}'s")
    outputs.update({name: index for name, index in found.items() if outputs[name][0] == UNUSED})
    return clearance


def _assembled_as_compiled(assembly, values, system, y0_python) -> bool:
    """Whether the C assembly of the parameter values packs the system's compiled form: its family, fpar,
    ipar and record size, and y0 within 1e-12 (a planar mechanism's q is projected onto its closing
    constraints by Newton's method in C and in numpy: the same iteration, their sin and cos may differ in
    the last bit)."""
    model = system.compiled()
    fpar, ipar, y0 = assembly(values)
    return (model is not None and model.family_name == assembly.family and np.array_equal(model.fpar, fpar)
            and np.array_equal(model.ipar, ipar) and np.allclose(y0_python, y0, rtol=1e-12, atol=1e-12)
            and model.n_record == assembly.n_record)


def _system(cls, slave, values, inputs):
    """(the hybrid system, its initial state) that the slave builds of the parameter values: a MechanismSlave's
    build gives a planar mechanism and its q0, u0 (MechanismStepper's system; a FrictionModelSlave's with
    friction_model > 0 its BristleSystem), a SystemSlave's the function of its inputs that makes the system and
    the initial state's."""
    held = [Held(values[n]) for n in inputs]
    if issubclass(cls, SystemSlave):
        make_system, y0_of, _ = slave.build(values)
    elif issubclass(cls, FrictionModelSlave) and values["friction_model"] > 0:
        make_system, y0_of = cls.bristle_system(slave.build(values), int(values["friction_model"]), values)
    else:
        mechanism, q0, u0, _ = slave.build(values)
        system = MechanismSystem(mechanism, held)
        return system, system.initial_state(q0, u0)
    system = make_system(held)
    return system, y0_of(system)


def _record_indices(cls, slave, system, n_record) -> dict:
    """{output name: (its index in the record or UNUSED, count)} (``publication.record_indices``); NotNative
    for an output that is not read from the record."""
    try:
        indices = record_indices(cls.variables, slave.publish, system.decode_record, n_record)
    except NotFromRecord as error:
        raise NotNative(str(error)) from None
    return {name: (UNUSED if index is None else index, count) for name, (index, count) in indices.items()}


def model_source(table: ModelTable, token: str, script: str) -> str:
    """model.c of the table: the model of fj_fmu_model.h, and the lookups of its family and its assembly
    (fj_family_find, fj_assembly_find): the engine's, or a mechanism file's written into model.c (its source)."""
    family, model = table.assembly.family, table.assembly.model
    written = getattr(table.assembly, "source", "")
    found = "&" + (FILE_ASSEMBLY if written else f"fj_assembly_{model}")
    update = f"fj_update_{model}" if family is None else "NULL"
    bristle = table.bristle
    friction_model_vr = [v.name for v, _, _ in table.variables].index("friction_model") if bristle else -1
    families, assemblies = ({family: f"&fj_family_{family}"} if family else {}), {model: found}
    for extra in (bristle, table.clearance):
        if extra:
            families[extra.family] = f"&fj_family_{extra.family}"
            assemblies[extra.model] = "&" + (FILE_BRISTLE_ASSEMBLY if written and extra is bristle
                                             else f"fj_assembly_{extra.model}")
    names = [v.name for v, _, _ in table.variables]
    clearance = (f"{json.dumps(table.clearance.model)}, {names.index('clearance')}, {names.index('n_rfe')}, "
                 "fj_clearance_sizes" if table.clearance else "NULL, -1, -1, NULL")

    def lookup(table_of):  # the body of a lookup by name
        if not table_of:  # (none: the engine does not run this model)
            return "    (void)name;\n    return NULL;\n"
        return "".join(f"    if (name != NULL && strcmp(name, {json.dumps(key)}) == 0) return {value};\n"
                       for key, value in table_of.items()) + "    return NULL;\n"
    lines = []
    for vr, (v, index, count) in enumerate(table.variables):
        start = v.start if v.start is not None else 0.0
        bounds = [v.min, v.max] if v.causality != "output" else [None, None]
        lines.append(f"    /* {vr} */ {{{json.dumps(v.name)}, {CAUSALITY[v.causality]}, {TYPE[v.kind]}, "
                     f"{c_double(float(start))}, {int(bounds[0] is not None)}, {int(bounds[1] is not None)}, "
                     f"{c_double(bounds[0] or 0.0)}, {c_double(bounds[1] or 0.0)}, {index}, "
                     f"{int(v.causality == 'parameter' and v.unit in INERTIA_UNITS)}, {count}}},")
    return (f"/* model.c: the model of the native FMU {table.name} (fj_fmu_model.h), written by build_fmu.py --native\n"
            f" * from {script} (its Var rows, in value-reference order); index: the C assembly's parameter\n"
            f" * ({table.assembly.model}, " + (f"family {family}" if family else f"{table.assembly.file}, no family")
            + f"; {RTOL}: rtol, {UNUSED}: unused), the input's\n"
            f" * place in tau, the output's in the record. */\n"
            "#include <stddef.h>\n#include <string.h>\n\n"
            '#include "fj_assembly.h"\n#include "fj_fmu_model.h"\n#include "fj_kernel.h"\n\n'
            + (written + "\n" if written else "")
            + "static const fj_fmu_variable VARIABLES[] = {\n"
            "    /* name, causality, type, start, has_min, has_max, min, max, index, inertia, count */\n"
            + "\n".join(lines) + "\n};\n\n"
            f"const fj_fmu_model fj_fmu_the_model = {{{json.dumps(table.name)}, {json.dumps(token)}, "
            f"{json.dumps(table.assembly.model)}, {len(table.variables)}, VARIABLES, "
            f"{json.dumps(bristle.model) if bristle else 'NULL'}, {friction_model_vr}, {update}, {clearance}}};\n\n"
            f"/* The engine's family by name (families.c's, for this FMU's families: the binary holds no other). */\n"
            f"const fj_family *fj_family_find(const char *name) {{\n{lookup(families)}}}\n\n"
            f"/* The assembly by name (assemblies.c's, for this FMU's assemblies). */\n"
            f"const fj_assembly *fj_assembly_find(const char *name) {{\n{lookup(assemblies)}}}\n")


# ======================================================================================================
# Sources and binaries
# ======================================================================================================

#: what every native FMU runs: the instance, the integrators, the families' helpers, the parameter checks
ENGINE_CORE = ("hybrid.c", "rk_driver.c", "method_dop853.c", "method_rk45.c", "stepping.c", "fj_kernel.c", "assembly.c")
#: the lookups by name of every family and assembly, which model.c replaces by its own
LOOKUPS = ("families.c", "assemblies.c")
#: the engine's headers model.c includes, and the functions a mechanism file's assembly in it calls
MODEL_INCLUDES = ("fj_assembly.h", "fj_kernel.h", "planar_internal.h")
FILE_SYMBOLS = ("fj_planar_assemble", "fj_file_report", "fj_file_value")
FILE_ASSEMBLY = "FILE_ASSEMBLY"  # the name of a file's assembly in model.c (its model may be a shipped one)
FILE_BRISTLE_ASSEMBLY = "FILE_BRISTLE_ASSEMBLY"  # and of its bristle assembly
#: the functions a file's bristle assembly calls (its checks of the law rows)
FILE_BRISTLE_SYMBOLS = ("fj_file_own_law", "fj_bristle_law")


@functools.cache
def engine_sources(family: str, uses: tuple) -> tuple[Path, ...]:
    """The engine's C files the model of ``family`` needs: ENGINE_CORE, the family's own (``<family>.c``),
    the files that define the symbols model.c ``uses`` (``assembly_symbols``) and every file that defines a
    symbol they use (``_engine_symbols``; without nm: every file). LOOKUPS are left out: the FMU's model.c
    finds its one family and assembly (so the binary holds no other)."""
    files = sorted(p for p in ENGINE_DIR.glob("*.c") if p.name not in LOOKUPS)
    symbols = _engine_symbols()
    if symbols is None:
        return tuple(files)
    defined, undefined = symbols
    lookups = {"fj_family_find", "fj_assembly_find"}
    needed, todo = set(), [*ENGINE_CORE, *([f"{family}.c"] if family else []), *(defined[s] for s in uses)]
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo.extend(defined[s] for s in undefined[name] if s in defined and s not in lookups)
    return tuple(p for p in files if p.name in needed)


@functools.cache
def _engine_symbols():
    """({symbol: the engine's C file that defines it}, {file: the symbols it uses but does not define}) of
    the engine's files but LOOKUPS (``_symbols``, the files at once); None without nm."""
    if shutil.which("nm") is None:
        return None
    files = sorted(p for p in ENGINE_DIR.glob("*.c") if p.name not in LOOKUPS)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        found = dict(zip((p.name for p in files), pool.map(_symbols, files)))
    defined = {name: file for file, pairs in found.items() for kind, name in pairs if kind in "TDRB"}
    undefined = {file: {name for kind, name in pairs if kind == "U"} for file, pairs in found.items()}
    return defined, undefined


def _symbols(path: Path) -> list:
    """[(kind, name)] of the symbols of the C file's object, as nm lists them (U: undefined)."""
    with tempfile.TemporaryDirectory() as tmp:
        obj = Path(tmp) / (path.stem + ".o")
        subprocess.run([*c_compiler(), "-std=c99", "-O0", "-c", "-I", str(ENGINE_DIR), "-I", str(FMI_DIR), str(path),
                        "-o", str(obj)], check=True, capture_output=True)  # (only its symbols matter)
        symbols = subprocess.run([shutil.which("nm"), str(obj)], check=True, capture_output=True, text=True).stdout
    return [tuple(line.split()[-2:]) for line in symbols.split("\n") if len(line.split()) >= 2]


def assembly_symbols(assembly) -> tuple:
    """The engine's symbols that model.c uses: the engine's assembly, or those a file's assembly calls, or
    those the C file of a model of DISCRETE calls (with nm; without it, none: engine_sources takes every file)."""
    if assembly.family is None:
        if shutil.which("nm") is None:
            return ()
        own = {name for kind, name in _symbols(FMI_DIR / assembly.file) if kind != "U"}
        return tuple(sorted(name for kind, name in _symbols(FMI_DIR / assembly.file)
                            if kind == "U" and name.startswith("fj_") and name not in own))
    return FILE_SYMBOLS if getattr(assembly, "source", "") else (f"fj_assembly_{assembly.model}",)


def fmi_headers(fmi_version: int) -> list[Path]:
    """The FMI version's headers (native/fmi, copied from FMPy, BSD-licensed, their licence headers kept), which the
    binaries are compiled with and the FMU does not carry: the importer compiles its sources with its own (the
    standards' FMU distribution: the sources directory holds all that is needed but these three headers)."""
    names = ("Functions", "FunctionTypes", "TypesPlatform") if fmi_version == 2 else ("Functions", "FunctionTypes",
                                                                                        "PlatformTypes")
    return [FMI_DIR / f"fmi{fmi_version}{n}.h" for n in names]


def source_files(fmi_version: int, family: str | None, uses: tuple, model_file: str | None = None) -> list[Path]:
    """The C sources and headers of a native FMU but model.c and the FMI headers (fmi_headers): the engine's that
    the model needs and the headers they and model.c include, the FMU core's and the FMI version's functions;
    model_file: the C file of a model of DISCRETE."""
    layer = ["fj_fmu.c", "fj_fmu.h", "fj_fmu_model.h", f"fmi{fmi_version}Functions.c", *([model_file] if model_file else [])]
    sources = engine_sources(family, uses)
    included, todo = set(), [*sources, FMI_DIR / "fj_fmu.c", *(ENGINE_DIR / n for n in MODEL_INCLUDES)]
    while todo:  # the engine's headers, followed through their own includes (model.c: fj_assembly.h, fj_kernel.h)
        for name in re.findall(r'^#include "([^"]+)"', todo.pop().read_text(), re.MULTILINE):
            if (ENGINE_DIR / name).exists() and name not in included:
                included.add(name)
                todo.append(ENGINE_DIR / name)
    return sorted([*sources, *(ENGINE_DIR / n for n in included)]) + [FMI_DIR / n for n in layer]


def without_comments(text: str) -> str:
    """C source text without its comments but its first (the file's header: what it is), each comment replaced by
    its line breaks (the lines keep their numbers); string and character literals kept as they are. A native FMU's
    sources so are 30-40 kB smaller (of 300); the commented sources are the package's (native/src, native/fmi)."""
    out, i, head = [], 0, len(text) - len(text.lstrip())
    literal = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.DOTALL)
    for match in literal.finditer(text):
        token = match.group()
        out.append(text[i:match.start()])
        if token[0] in "\"'" or match.start() == head:
            out.append(token)
        else:
            out.append("\n" * token.count("\n"))
        i = match.end()
    out.append(text[i:])
    return "\n".join(line.rstrip() for line in "".join(out).split("\n"))


def compile_binary(sources: Path, platform: Platform, out: Path, name: str, include: Path) -> str:
    """The C files of the folder ``sources`` compiled for the platform into out/<name><suffix>, with the headers of
    ``sources``, then of ``include`` (the FMI headers); the compiler's warnings ("" when clean). Each file is
    compiled on its own (as one command line would; ONCE's for size), the files missing from this process's
    objects at once (``_OBJECTS``: FMUs share most of the engine's), then linked. RuntimeError with the
    compiler's output if it fails."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / (name + platform.suffix)
    files = sorted(sources.glob("*.c"))
    folders = (sources, include)
    keys = [_object_key(path, folders, platform) for path in files]
    missing = {key: path for key, path in zip(keys, files) if key not in _OBJECTS}
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:  # the compilers run in processes
        _OBJECTS.update(zip(missing, pool.map(lambda path: _compiled(path, folders, platform), missing.values())))
    objects = out / f".{name}.objects"
    objects.mkdir(exist_ok=True)
    paths = []
    for key, path in zip(keys, files):
        paths.append(objects / (path.stem + ".o"))
        paths[-1].write_bytes(_OBJECTS[key][0])
    command = [*platform.compiler, *CFLAGS, *platform.flags, *map(str, paths), "-o", str(target), "-lm"]
    done = subprocess.run(command, capture_output=True, text=True)
    shutil.rmtree(objects)
    if done.returncode != 0:
        raise RuntimeError(f"linking {name} for {platform.name} failed ({' '.join(command)}):\n{done.stderr}")
    return "".join(_OBJECTS[key][1] for key in keys) + done.stderr


#: (object file, compiler warnings) of the C files this process compiled, by ``_object_key``
_OBJECTS: dict = {}


def _flags(path: Path, platform: Platform) -> tuple:
    """The compiler's flags of the C file at path for the platform (ONCE's for size)."""
    once = any(path.match(pattern) for pattern in ONCE)
    return (*CFLAGS, *platform.flags, *(FOR_SIZE if once else ()))


def _object_key(path: Path, folders: tuple, platform: Platform) -> str:
    """What the object of the C file at path depends on: the platform's compiler and the file's flags, the file
    and the headers of ``folders`` it includes (the first that has it; followed through their own includes)."""
    digest = hashlib.sha256(repr((platform.compiler, _flags(path, platform), path.name)).encode())
    seen, todo = set(), [path]
    while todo:
        text = todo.pop().read_bytes()
        digest.update(text)
        for header in sorted(set(re.findall(rb'^#include "([^"]+)"', text, re.MULTILINE)) - seen):
            seen.add(header)
            found = [folder / header.decode() for folder in folders if (folder / header.decode()).exists()]
            todo.extend(found[:1])
    return digest.hexdigest()


def _compiled(path: Path, folders: tuple, platform: Platform) -> tuple[bytes, str]:
    """(the object file, the compiler's warnings) of the C file at path, compiled for the platform with the headers
    of ``folders`` (in their order)."""
    includes = [arg for folder in folders for arg in ("-I", str(folder))]
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / (path.stem + ".o")
        command = [*platform.compiler, *_flags(path, platform), "-c", *includes, str(path), "-o", str(target)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"compiling {path.name} for {platform.name} failed ({' '.join(command)}):\n{done.stderr}")
        return target.read_bytes(), done.stderr


def _token(name: str, fmi_version: int, files) -> str:
    digest = hashlib.sha256(f"{name}/{fmi_version}".encode())
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return "{" + str(uuid.uuid5(uuid.NAMESPACE_URL, "friction-joints:" + digest.hexdigest())) + "}"


# ======================================================================================================
# modelDescription and FMU
# ======================================================================================================

def native_description(twin: bytes, name: str, token: str, sources: list[str], interpolates: bool = True) -> bytes:
    """The twin's modelDescription with the native build's token, capabilities and (FMI 2.0) sources;
    interpolates: the model uses its inputs' derivatives (canInterpolateInputs, as its twin's slave)."""
    root = ET.fromstring(twin)
    fmi3 = root.get("fmiVersion", "").startswith("3")
    root.set("instantiationToken" if fmi3 else "guid", token)
    root.set("generationTool", "friction-joints native FMU (C engine and C FMI layer)")
    old = root.find("CoSimulation")
    cs = ET.Element("CoSimulation")
    cs.tail = old.tail
    if fmi3:
        attributes = dict(modelIdentifier=name, needsExecutionTool="false", canBeInstantiatedOnlyOncePerProcess="false",
                          canGetAndSetFMUState="true", canSerializeFMUState="true",
                          canHandleVariableCommunicationStepSize="true", hasEventMode="false")
    else:
        attributes = dict(modelIdentifier=name, needsExecutionTool="false", canHandleVariableCommunicationStepSize="true",
                          canInterpolateInputs=str(bool(interpolates)).lower(), maxOutputDerivativeOrder="0",
                          canBeInstantiatedOnlyOncePerProcess="false", canNotUseMemoryManagementFunctions="true",
                          canGetAndSetFMUstate="true", canSerializeFMUstate="true")
    for key, value in attributes.items():
        cs.set(key, value)
    if not fmi3:
        files = ET.SubElement(cs, "SourceFiles")
        for source in sources:
            ET.SubElement(files, "File", name=source)
    root.insert(list(root).index(old), cs)
    root.remove(old)
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")


def build_description(name: str, sources: list[str]) -> bytes:
    """sources/buildDescription.xml of an FMI 3.0 native FMU."""
    root = ET.Element("fmiBuildDescription", fmiVersion="3.0")
    config = ET.SubElement(root, "BuildConfiguration", modelIdentifier=name,
                           description="the C engine and the FMI layer, C99 and libm only")
    files = ET.SubElement(config, "SourceFileSet", language="C99")
    for source in sources:
        ET.SubElement(files, "SourceFile", name=source)
    ET.SubElement(config, "Library", name="m", description="the C library's mathematics (libm)")
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")


def build_native(cls, twin: Path, out: Path, script: str = "", targets=None) -> tuple[Path, list[str]]:
    """The native FMU of the fmu_src slave class cls into out/<Model>.fmu, of the FMI version of its built
    pythonfmu twin (whose modelDescription and documentation it takes); targets: the platform names
    (default: every one this machine builds). Returns its path and the notes of what was left out (a
    platform without its compiler). NotNative if the model has no native FMU; RuntimeError if a
    compiler fails or warns."""
    table = model_table(cls)
    with zipfile.ZipFile(twin) as z:
        twin_xml = z.read("modelDescription.xml")
        docs = {n: z.read(n) for n in z.namelist() if n.startswith("documentation/")}
    fmi_version = 3 if ET.fromstring(twin_xml).get("fmiVersion", "").startswith("3") else 2
    found, missing = platforms()
    targets = list(found) if targets is None else list(targets)
    notes = [f"{cls.__name__}: no {name} binary: {why}" for name, why in missing.items() if name in targets or
             targets == list(found)]
    uses = assembly_symbols(table.assembly)
    written = getattr(table.assembly, "source", "")
    if table.bristle:  # its family and assembly too (a file's: written into model.c)
        uses += (f"fj_family_{table.bristle.family}",
                 *(FILE_BRISTLE_SYMBOLS if written else (f"fj_assembly_{table.bristle.model}",)))
    if table.clearance:
        uses += (f"fj_family_{table.clearance.family}", f"fj_assembly_{table.clearance.model}")
    files = source_files(fmi_version, table.assembly.family, uses, getattr(table.assembly, "file", None))
    with tempfile.TemporaryDirectory() as tmp:
        src, include = Path(tmp) / "sources", Path(tmp) / "include"
        src.mkdir()
        include.mkdir()
        for path in files:  # (the binaries are compiled from the sources the FMU carries)
            (src / path.name).write_text(without_comments(path.read_text()))
        for path in fmi_headers(fmi_version):
            shutil.copy(path, include / path.name)
        token = _token(table.name, fmi_version, files)
        (src / "model.c").write_text(model_source(table, token, script or f"fmu_src/{table.name}.py"))
        c_files = sorted(p.name for p in src.glob("*.c"))
        binaries = Path(tmp) / "binaries"
        for name in targets:
            if name not in found:
                continue
            platform = found[name]
            warnings = compile_binary(src, platform, binaries / platform.folder(fmi_version), table.name, include)
            if warnings.strip():
                raise RuntimeError(f"compiling {table.name} for {name} warns (-Wall -Wextra must be clean):\n{warnings}")
        if fmi_version == 3:
            (src / "buildDescription.xml").write_bytes(build_description(table.name, c_files))
        out.mkdir(parents=True, exist_ok=True)
        target = out / f"{table.name}.fmu"
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as fmu:
            fmu.writestr("modelDescription.xml", native_description(twin_xml, table.name, token, c_files,
                                                                    cls.interpolates_inputs))
            for path in sorted(binaries.rglob("*")):
                if path.is_file():
                    fmu.write(path, path.relative_to(tmp).as_posix())
            for path in sorted(src.iterdir()):
                fmu.write(path, f"sources/{path.name}")
            for name, data in docs.items():
                fmu.writestr(name, data)
    return target, notes
