"""Builds of the C engine with sanitizers, and Python snippets run against such a build in a subprocess
(a sanitizer's abort then fails the test that ran it instead of ending pytest).

    path = sanitized_library(tmp_path)                         # every engine source, UNDEFINED
    path = sanitized_library(tmp_path, sanitizers(), [SOURCE_DIR / "box_qp.c"])
    path = sanitized_library(tmp_path, flags, objects=object_cache)   # its objects shared in the session
    path = cached_library(out, srcs, flags, object_cache)      # compile_library through the objects' cache
    stdout = run_against(path, CODE, stdin=json.dumps(data))   # CODE gets the path as sys.argv[1]
    run_kernels(path, [(system, t, y, mode), ...])             # each kernel of each case once

UNDEFINED is the undefined-behaviour sanitizer, ADDRESS the address sanitizer; ``sanitizers()`` is
both where the toolchain can run an address-sanitized library inside Python, else UNDEFINED. A test
asking for flags the compiler cannot build with (or without any C compiler) is skipped, saying why.

In the subprocess the library is the engine's default one (FRICTION_JOINTS_ENGINE_LIBRARY: the
compiled models and integrator run on it; build it from every source for that), and the tests'
modules and this checkout's package are importable. A library built with ADDRESS runs with the sanitizer's runtime preloaded (it
must come first in the process) and without leak detection (it would report the interpreter's own).
"""

from __future__ import annotations

import concurrent.futures
import functools
import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from friction_joints.native import LIBRARY_VARIABLE
from friction_joints.native.build import CFLAGS, SOURCE_DIR, c_compiler, compile_library, sources

UNDEFINED = ("-fsanitize=undefined", "-fno-sanitize-recover=all")  # abort at the first report
ADDRESS = ("-fsanitize=address", "-fno-omit-frame-pointer")
TESTS_DIR = Path(__file__).resolve().parent
ASAN_SYMBOL = b"__asan_init"  # what every address-sanitized library calls when it is loaded
PROBE = "int fj_probe(int i) { return i + 1; }\n"


def sanitizers() -> tuple[str, ...]:
    """ADDRESS + UNDEFINED where the compiler builds with them and this Python runs such a library (its
    runtime preloaded), else UNDEFINED."""
    return ADDRESS + UNDEFINED if _why_not(ADDRESS + UNDEFINED) is None else UNDEFINED


def sanitized_library(tmp_path, flags=UNDEFINED, srcs=None, name=None, objects=None) -> Path:
    """srcs (default: every source of the engine) compiled with the extra ``flags`` into a library in
    the folder tmp_path (named ``name``, default after its sources), through the objects' cache ``objects``
    if given (``cached_library``); its path. Skips the test where the toolchain cannot build or run it."""
    reason = _why_not(flags)
    if reason is not None:
        pytest.skip(reason)
    # named after its sources, every source of the engine as "engine" (their stems: too long a file name)
    engine, srcs = set(sources()), None if srcs is None else [Path(s) for s in srcs]
    whole = srcs is None or engine <= set(srcs)
    name = name or "-".join([*(["engine"] if whole else []),
                             *(s.stem for s in srcs or () if not (whole and s in engine))])
    return cached_library(Path(tmp_path) / f"{name}.so", srcs, flags, objects)


def cached_library(out, srcs=None, flags=(), objects=None) -> Path:
    """compile_library(out, srcs, extra_flags=flags), with each source compiled on its own into the folder
    ``objects`` (conftest's ``object_cache``: the builds of a session, in any pytest-xdist worker, share the
    object of a source compiled with the same compiler and flags), then linked; without ``objects``,
    compile_library itself. RuntimeError with the compiler's output if it fails."""
    if objects is None:
        return compile_library(out, srcs, extra_flags=flags)
    compiler, flags = tuple(c_compiler()), tuple(flags)
    srcs = sources() if srcs is None else [Path(s) for s in srcs]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:  # the compilers run in processes
        paths = list(pool.map(lambda src: _cached_object(src, compiler, flags, Path(objects)), srcs))
    command = [*compiler, *CFLAGS, "-fPIC", "-shared", *flags, *map(str, paths), "-o", str(out), "-lm"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"linking {Path(out).name} failed ({shlex.join(command)}):\n{done.stderr}")
    return Path(out)


def _cached_object(src: Path, compiler: tuple, flags: tuple, objects: Path) -> Path:
    """The object of the C file src in the folder objects, compiled first if it is not there: named after a
    digest of the compiler, the flags, the file and the headers it may include (the engine's and those of its
    folder); written under a name of its own and renamed, so that workers compiling it at once do no harm."""
    digest = hashlib.sha256(repr((compiler, CFLAGS, flags)).encode())
    for path in [src, *sorted({*SOURCE_DIR.glob("*.h"), *src.parent.glob("*.h")})]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    target = objects / f"{src.stem}-{digest.hexdigest()[:24]}.o"
    if not target.exists():
        fd, part = tempfile.mkstemp(suffix=".o", dir=objects)
        os.close(fd)
        command = [*compiler, *CFLAGS, "-fPIC", *flags, "-I", str(SOURCE_DIR), "-c", str(src), "-o", part]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            os.unlink(part)
            raise RuntimeError(f"compiling the C engine failed ({shlex.join(command)}):\n{done.stderr}")
        os.replace(part, target)
    return target


def run_against(library_path, code, stdin="", args=(), timeout=300) -> str:
    """Run the Python ``code`` in a subprocess as ``python -c code library_path *args`` on the library
    (module docstring); its stdout. AssertionError with the end of its stderr if it fails."""
    library_path = Path(library_path).resolve()
    env = dict(os.environ, **{LIBRARY_VARIABLE: str(library_path)})
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(TESTS_DIR), str(TESTS_DIR.parent),
                                                      os.environ.get("PYTHONPATH"))))
    env["UBSAN_OPTIONS"] = ":".join(filter(None, (os.environ.get("UBSAN_OPTIONS"), "print_stacktrace=1")))
    if ASAN_SYMBOL in library_path.read_bytes():
        env["LD_PRELOAD"] = " ".join(filter(None, (_asan_runtime(), os.environ.get("LD_PRELOAD"))))
        env["ASAN_OPTIONS"] = ":".join(filter(None, (os.environ.get("ASAN_OPTIONS"), "detect_leaks=0")))
    done = subprocess.run([sys.executable, "-c", code, str(library_path), *map(str, args)], input=stdin, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (f"the snippet against {library_path.name} failed (exit status "
                                  f"{done.returncode}):\n{done.stderr[-4000:]}")
    return done.stdout


KERNEL_CALLS = """
import json, sys
import numpy as np
from friction_joints.native import Family, Kernel, Workspace, library
lib, calls = library(sys.argv[1]), json.load(sys.stdin)
for family, which, t, y, tau, fpar, ipar, fmode, imode, n_out in calls:
    fam, y, tau = Family(family, lib), np.array(y, float), np.array(tau, float)
    fpar, ipar = np.array(fpar, float), np.array(ipar, np.int64)
    if which in ("rhs", "events", "record"):
        out = np.full(n_out, np.nan)
        status = Kernel(fam, which)(t, y, tau, fpar, ipar, np.array(fmode, float), np.array(imode, np.int64), out)
        assert status == 0 and not np.isnan(out).any(), (family, which, status, out)
    else:  # the mode decisions: n_out is decide's event argument
        ws = Workspace(fam, fpar, ipar)
        ws.set_mode(*((None, None) if fmode is None else (np.array(fmode, float), np.array(imode, np.int64))))
        layout = fam.mode_layout(fpar, ipar)
        if fmode is not None:
            ws.mode_events(layout.max_events)
        status = ws.decide(t, y, tau, n_out, layout)[0]
        assert status == 0, (family, which, n_out, status)
    fam.message(status)
print(len(calls), "kernel calls")
"""


def run_kernels(library_path, cases):
    """Each kernel (rhs, events, record) of each case (system, t, y, mode) once, from the library
    (``run_against``): each returns 0 and writes all its outputs (the mode's events, the record). Where
    the family decides its modes in C, also its mode_events and decide after each event of the mode, at
    a time event and at the start."""
    calls = []
    for system, t, y, mode in cases:
        model = system.compiled()
        fmode, imode = system.encode_mode(mode)
        n_events = len(system.events(mode))
        common = (model.family_name, float(t), list(map(float, y)), list(map(float, system.input_values(t))),
                  model.fpar.tolist(), model.ipar.tolist())

        def call(which, fmode, imode, n_out):
            calls.append((common[0], which, *common[1:], fmode, imode, n_out))
        for which, n_out in (("rhs", len(y)), ("events", n_events), ("record", model.n_record)):
            call(which, fmode.tolist(), imode.tolist(), n_out)
        if model.family.decides_modes:
            for event in range(-1, n_events):
                call("decide", fmode.tolist(), imode.tolist(), event)
            call("decide", None, None, -2)
    stdout = run_against(library_path, KERNEL_CALLS, stdin=json.dumps(calls))
    assert stdout.split() == [str(len(calls)), "kernel", "calls"], stdout


@functools.cache
def _asan_runtime(compiler=None) -> str | None:
    """The address sanitizer's runtime library of the compiler (default c_compiler()) to preload, or None."""
    done = subprocess.run([*(compiler or c_compiler()), "-print-file-name=libasan.so"], capture_output=True,
                          text=True)
    path = done.stdout.strip()
    return path if done.returncode == 0 and os.path.isabs(path) and os.path.exists(path) else None


def _why_not(flags) -> str | None:
    """Why a library built with flags cannot run in a test here (no compiler, flags it rejects, no
    address sanitizer runtime to preload or one that fails in Python), or None."""
    try:
        compiler = tuple(c_compiler())
    except RuntimeError as error:
        return str(error)
    return _unsupported(compiler, tuple(flags))


@functools.cache
def _unsupported(compiler: tuple[str, ...], flags: tuple[str, ...]) -> str | None:
    """_why_not for the compiler: a probe built and, with the address sanitizer, run."""
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / "probe.c"
        probe.write_text(PROBE)
        try:
            path = compile_library(probe.with_suffix(".so"), [probe], extra_flags=flags, compiler=list(compiler))
        except RuntimeError as error:
            return f"the C compiler cannot build with {' '.join(flags)}: {error}"
        if ASAN_SYMBOL not in path.read_bytes():
            return None
        if _asan_runtime(compiler) is None:
            return "the C compiler has no address sanitizer runtime (libasan.so) to preload into Python"
        try:
            run_against(path, "import ctypes, sys; assert ctypes.CDLL(sys.argv[1]).fj_probe(1) == 2", timeout=60)
        except AssertionError as error:
            return f"Python cannot run a library built with the address sanitizer (its runtime preloaded): {error}"
    return None
