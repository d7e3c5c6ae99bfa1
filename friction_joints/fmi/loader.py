"""Put the Python loader in front of the pythonfmu binary of an FMU, for Linux hosts.

pythonfmu's ``binaries/linux64/<id>.so`` (FMI 2.0) and pythonfmu3's ``binaries/x86_64-linux/<id>.so``
(FMI 3.0) link no libpython and initialise Python with no program name, so a host without Python in
it (a Modelica tool, Simulink, a plain C host) can only load them with LD_PRELOAD of libpython plus a
PYTHONPATH. ``install_loader`` compiles the loader (loader_python.c with loader_fmi2.c or
loader_fmi3.c, for the FMU's FMI version) with the system C compiler and rewrites the FMU:

    binaries/<platform>/<id>.so             the loader
    binaries/<platform>/<id>-pythonfmu.so   pythonfmu's binary, unchanged
    binaries/<platform>/<id>-python.txt     the interpreter that runs the FMU (the one given here,
                                         normally the environment that built it): executable,
                                         version, libpython, read by the loader

In a host without Python the loader loads that libpython, initialises Python as that executable
(its site-packages with numpy and scipy included, a venv's through its pyvenv.cfg) and forwards every
FMI call to pythonfmu's binary; a Python host (FMPy) keeps its own interpreter. In every host the
loader returns fmi2Error (fmi3Error) from a call during which the slave logged a failure with error
status (pythonfmu alone returns OK or Discard there) and passes such messages to the host's logger
even with debug logging off (friction_joints/fmi/slave.py, the Instance of loader_fmi2.c and
loader_fmi3.c). When the recorded interpreter is gone the loader takes python3 from PATH;
``FRICTION_JOINTS_PYTHON=<python executable>`` overrides both. See loader_python.c.
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

LOADER_SOURCES = {version: [Path(__file__).with_name(name)
                            for name in ("loader_python.c", "loader_resources.c", f"loader_fmi{version}.c")]
                  for version in (2, 3)}  # FMI version: the loader's C files
PLATFORM_FOLDER = {2: "binaries/linux64/", 3: "binaries/x86_64-linux/"}
OVERRIDE_VARIABLE = "FRICTION_JOINTS_PYTHON"
ORIGINAL_SUFFIX = "-pythonfmu.so"  # pythonfmu's binary, renamed: <id>-pythonfmu.so
RECORD_SUFFIX = "-python.txt"  # the interpreter record: <id>-python.txt

# Run as "<python> -S -c QUERY": the record lines of that interpreter (the same program as QUERY in
# loader_python.c, which asks python3 from PATH or FRICTION_JOINTS_PYTHON the same question).
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
                       "loader_python.c) cannot be built; install one, e.g. `apt-get install gcc`")


def fmi_headers(version: int = 2) -> Path:
    """The folder of the FMI 2.0 or 3.0 headers that FMPy ships (fmi2Functions.h, fmi3Functions.h)."""
    try:
        import fmpy
    except ImportError as exc:
        raise RuntimeError(f"the FMI {version}.0 headers come with FMPy, which is not installed") from exc
    folder = Path(fmpy.__file__).parent / "c-code"
    if not (folder / f"fmi{version}Functions.h").is_file():
        raise RuntimeError(f"FMPy has no FMI {version}.0 headers in {folder}")
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


def compile_loader(out: Path, token: str, version: int = 2) -> Path:
    """Compile the loader of FMI version 2 or 3 into the shared library ``out``, for the FMU whose GUID
    (FMI 3.0: instantiationToken) is ``token``; RuntimeError without a compiler or on error, ValueError
    for a token that is not printable ASCII."""
    if not token or not all(" " <= c <= "~" for c in token):
        raise ValueError(f"token = {token!r}: the GUID must be printable ASCII and not empty")
    literal = '"' + token.replace("\\", "\\\\").replace('"', '\\"') + '"'
    command = [*c_compiler(), "-std=c99", "-O2", "-Wall", "-Wextra", "-fPIC", "-shared", "-fvisibility=hidden",
               f"-DFMU_TOKEN={literal}", f"-I{fmi_headers(version)}", "-Wl,-z,defs", "-o", str(out),
               *map(str, LOADER_SOURCES[version]), "-ldl", "-lpthread"]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"compiling the FMU's Python loader failed:\n{shlex.join(command)}\n{proc.stderr}")
    return out


def _record_text(original: str, record: dict[str, str]) -> str:
    return (f"# The Python that runs this FMU in a host without Python of its own, read by the loader <id>.so\n"
            f"# (friction_joints/fmi/loader_python.c); {OVERRIDE_VARIABLE}=<python executable> overrides it.\n"
            f"original={original}\n"
            + "".join(f"{key}={record[key]}\n" for key in ("executable", "version", "libpython", "shared")))


def _interpolating(xml: bytes) -> bytes:
    """The modelDescription with canInterpolateInputs="true" on its CoSimulation element."""
    root = ET.fromstring(xml)
    root.find("CoSimulation").set("canInterpolateInputs", "true")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")


def install_loader(fmu_path: Path, python: str = sys.executable, interpolates_inputs: bool = False) -> None:
    """Put the Python loader in front of the Linux binary of the FMU (FMI 2.0 or 3.0) at ``fmu_path``
    (rewritten in place) and record ``python`` as its interpreter. Installing again replaces the loader
    and the record and keeps pythonfmu's binary. interpolates_inputs: the slave uses the input
    derivatives that the loader passes on (``slave.VarSlave.interpolates_inputs``): the
    modelDescription then says canInterpolateInputs="true" (FMI 2.0 only: FMI 3.0 co-simulation has
    no input derivatives). RuntimeError when the loader cannot be built: not Linux
    x86_64, no C compiler, no FMI headers, or a Python without a shared libpython."""
    fmu_path = Path(fmu_path)
    if not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "AMD64"):
        raise RuntimeError(f"the FMU's Python loader is built for Linux x86_64 only, "
                           f"not on {sys.platform} {platform.machine()}")
    record = interpreter_record(python)
    with zipfile.ZipFile(fmu_path) as src:
        description = ET.fromstring(src.read("modelDescription.xml"))
        version = 3 if description.get("fmiVersion", "").startswith("3") else 2
        cs = description.find("CoSimulation")
        if cs is None:
            raise RuntimeError(f"{fmu_path.name} is not a co-simulation FMU")
        identifier = cs.get("modelIdentifier")
        folder = PLATFORM_FOLDER[version]
        binary, original, record_name = (folder + identifier + suffix for suffix in (".so", ORIGINAL_SUFFIX,
                                                                                     RECORD_SUFFIX))
        names = set(src.namelist())
        if binary not in names:
            raise RuntimeError(f"{fmu_path.name} has no {binary}")
        original_bytes = src.read(original if original in names else binary)
        with tempfile.TemporaryDirectory() as tmp:
            token = description.get("instantiationToken" if version == 3 else "guid", "")
            loader_bytes = compile_loader(Path(tmp) / "loader.so", token, version).read_bytes()
        target = fmu_path.with_name(fmu_path.name + ".loader-tmp")
        try:
            with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
                for item in src.infolist():
                    if item.filename in (original, record_name):
                        continue  # a previous installation's: written anew below
                    if item.filename == "modelDescription.xml" and interpolates_inputs and version == 2:
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
