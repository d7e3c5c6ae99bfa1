"""Put the Python loader (loader.c) in front of the pythonfmu binary of an FMU, for Linux hosts.

pythonfmu's ``binaries/linux64/<id>.so`` links no libpython and initialises Python with no program
name, so a host without Python in it (a Modelica tool, Simulink, a plain C host) can only load it
with LD_PRELOAD of libpython plus a PYTHONPATH. ``install_loader`` compiles loader.c with the
system C compiler and rewrites the FMU:

    binaries/linux64/<id>.so             the loader
    binaries/linux64/<id>-pythonfmu.so   pythonfmu's binary, unchanged
    binaries/linux64/<id>-python.txt     the interpreter that runs the FMU (the one given here,
                                         normally the environment that built it): executable,
                                         version, libpython, read by the loader

In a host without Python the loader loads that libpython, initialises Python as that executable
(its site-packages with numpy and scipy included, a venv's through its pyvenv.cfg) and forwards every
FMI call to pythonfmu's binary; a Python host (FMPy) keeps its own interpreter. In every host the
loader returns fmi2Error from a call during which the slave logged a failure with fmi2Error status
(pythonfmu alone returns fmi2OK or fmi2Discard there) and passes such messages to the host's logger
even with debug logging off (friction_joints/fmi/slave.py, loader.c's Instance). When the recorded
interpreter is gone the loader takes python3 from PATH; ``FRICTION_JOINTS_PYTHON=<python executable>``
overrides both. See loader.c.
"""

from __future__ import annotations

import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

LOADER_SOURCE = Path(__file__).with_name("loader.c")
OVERRIDE_VARIABLE = "FRICTION_JOINTS_PYTHON"
ORIGINAL_SUFFIX = "-pythonfmu.so"  # pythonfmu's binary, renamed: <id>-pythonfmu.so
RECORD_SUFFIX = "-python.txt"  # the interpreter record: <id>-python.txt

# Run as "<python> -S -c QUERY": the record lines of that interpreter (the same program as QUERY in
# loader.c, which asks python3 from PATH or FRICTION_JOINTS_PYTHON the same question).
QUERY = (
    "import os, sys, sysconfig\n"
    "v = sysconfig.get_config_var\n"
    "d = v('LIBDIR') or ''\n"
    "names = [n for n in (v('INSTSONAME'), v('LDLIBRARY')) if n]\n"
    "lib = next((os.path.join(d, n) for n in names if os.path.exists(os.path.join(d, n))),\n"
    "           names[0] if names else '')\n"
    "print('executable=' + sys.executable)\n"
    "print('version=%d.%d' % sys.version_info[:2])\n"
    "print('libpython=' + lib)\n"
    "print('shared=%d' % bool(v('Py_ENABLE_SHARED')))\n"
)


def c_compiler() -> list[str]:
    """The command of the C compiler: $CC if it names one, else cc, else gcc; RuntimeError if none."""
    cc = shlex.split(os.environ.get("CC", ""))
    if cc and shutil.which(cc[0]):
        return cc
    for name in ("cc", "gcc"):
        path = shutil.which(name)
        if path:
            return [path]
    raise RuntimeError("no C compiler found (cc or gcc, or $CC): the FMU's Python loader (friction_joints/fmi/"
                       "loader.c) cannot be built; install one, e.g. `apt-get install gcc`")


def fmi2_headers() -> Path:
    """The folder of the FMI 2.0 headers that FMPy ships (fmi2Functions.h)."""
    try:
        import fmpy
    except ImportError as exc:
        raise RuntimeError("the FMI 2.0 headers come with FMPy, which is not installed") from exc
    folder = Path(fmpy.__file__).parent / "c-code"
    if not (folder / "fmi2Functions.h").is_file():
        raise RuntimeError(f"FMPy has no FMI 2.0 headers in {folder}")
    return folder


def interpreter_record(python: str = sys.executable) -> dict[str, str]:
    """{executable, version, libpython, shared} of the interpreter ``python``, as the loader reads
    them; RuntimeError if it cannot be embedded (no shared libpython)."""
    proc = subprocess.run([python, "-S", "-c", QUERY], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise RuntimeError(f"{python} cannot be asked about its libpython: {proc.stderr.strip()}")
    record = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    if record.get("shared") != "1":
        raise RuntimeError(f"Python {record.get('version')} at {record.get('executable')} is built without a shared "
                           "libpython (Py_ENABLE_SHARED = 0): a host without Python cannot embed it. Build the FMU "
                           "with a Python configured with --enable-shared.")
    if not record.get("executable") or not record.get("libpython"):
        raise RuntimeError(f"{python} names no executable or libpython: {proc.stdout!r}")
    return record


def compile_loader(out: Path) -> Path:
    """Compile loader.c into the shared library ``out``; RuntimeError without a compiler or on error."""
    command = [*c_compiler(), "-std=c99", "-O2", "-Wall", "-Wextra", "-fPIC", "-shared", "-fvisibility=hidden",
               f"-I{fmi2_headers()}", "-Wl,-z,defs", "-o", str(out), str(LOADER_SOURCE), "-ldl", "-lpthread"]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"compiling the FMU's Python loader failed:\n{shlex.join(command)}\n{proc.stderr}")
    return out


def _record_text(original: str, record: dict[str, str]) -> str:
    return (f"# The Python that runs this FMU in a host without Python of its own, read by the loader <id>.so\n"
            f"# (friction_joints/fmi/loader.c); {OVERRIDE_VARIABLE}=<python executable> overrides it.\n"
            f"original={original}\n"
            + "".join(f"{key}={record[key]}\n" for key in ("executable", "version", "libpython", "shared")))


def _interpolating(xml: bytes) -> bytes:
    """The modelDescription with canInterpolateInputs="true" on its CoSimulation element."""
    root = ET.fromstring(xml)
    root.find("CoSimulation").set("canInterpolateInputs", "true")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")


def install_loader(fmu_path: Path, python: str = sys.executable, interpolates_inputs: bool = False) -> None:
    """Put the Python loader in front of the Linux binary of the FMU at ``fmu_path`` (rewritten in
    place) and record ``python`` as its interpreter. Installing again replaces the loader and the
    record and keeps pythonfmu's binary. interpolates_inputs: the slave uses the input derivatives
    that the loader passes on (``slave.VarSlave.interpolates_inputs``): the modelDescription then
    says canInterpolateInputs="true". RuntimeError when the loader cannot be built: not Linux
    x86_64, no C compiler, no FMI headers, or a Python without a shared libpython."""
    fmu_path = Path(fmu_path)
    if not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "AMD64"):
        raise RuntimeError(f"the FMU's Python loader is built for binaries/linux64 on Linux x86_64 only, "
                           f"not on {sys.platform} {platform.machine()}")
    record = interpreter_record(python)
    with zipfile.ZipFile(fmu_path) as src:
        cs = ET.fromstring(src.read("modelDescription.xml")).find("CoSimulation")
        if cs is None:
            raise RuntimeError(f"{fmu_path.name} is not a co-simulation FMU")
        identifier = cs.get("modelIdentifier")
        folder = "binaries/linux64/"
        binary, original, record_name = (folder + identifier + suffix for suffix in (".so", ORIGINAL_SUFFIX,
                                                                                     RECORD_SUFFIX))
        names = set(src.namelist())
        if binary not in names:
            raise RuntimeError(f"{fmu_path.name} has no {binary}")
        original_bytes = src.read(original if original in names else binary)
        with tempfile.TemporaryDirectory() as tmp:
            loader_bytes = compile_loader(Path(tmp) / "loader.so").read_bytes()
        target = fmu_path.with_name(fmu_path.name + ".loader-tmp")
        try:
            with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
                for item in src.infolist():
                    if item.filename in (original, record_name):
                        continue  # a previous installation's: written anew below
                    if item.filename == "modelDescription.xml" and interpolates_inputs:
                        dst.writestr(item, _interpolating(src.read(item)))
                        continue
                    if item.filename != binary:
                        dst.writestr(item, src.read(item))
                        continue
                    dst.writestr(item, loader_bytes)
                    for name, data in ((original, original_bytes),
                                       (record_name, _record_text(Path(original).name, record).encode())):
                        info = zipfile.ZipInfo(name, date_time=time.localtime()[:6])
                        info.compress_type, info.external_attr = zipfile.ZIP_DEFLATED, item.external_attr
                        dst.writestr(info, data)
            os.replace(target, fmu_path)
        finally:
            target.unlink(missing_ok=True)
