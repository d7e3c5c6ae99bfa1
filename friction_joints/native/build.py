"""Compile the C engine (``native/src``) into a shared library with the system C compiler.

``pip install`` builds the library the package uses through setup.py; this module builds others: the
tests' builds with sanitizers, a single family's sources while it is written, and (later) the
binaries of the native FMUs.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

SOURCE_DIR = Path(__file__).resolve().parent / "src"
#: flags of every build: C99, warnings on, no contraction into fused multiply-adds (the same results
#: from every compiler that honours it)
CFLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-ffp-contract=off"]


def sources() -> list[Path]:
    """Every C source of the engine."""
    return sorted(SOURCE_DIR.glob("*.c"))


def c_compiler() -> list[str]:
    """$CC if it names a compiler on PATH, else cc, else gcc; RuntimeError if none is found."""
    import os

    cc = shlex.split(os.environ.get("CC", ""))
    if cc and shutil.which(cc[0]):
        return cc
    for name in ("cc", "gcc"):
        if shutil.which(name):
            return [name]
    raise RuntimeError("no C compiler found (cc or gcc, or $CC): install one, e.g. `apt-get install gcc`")


def compile_library(out, srcs=None, extra_flags=(), compiler=None) -> Path:
    """Compile srcs (default: every source) into the shared library ``out`` and return its path.
    extra_flags: more compiler flags (e.g. sanitizers); compiler: the command (default c_compiler()).
    RuntimeError with the compiler's output if it fails."""
    out = Path(out)
    srcs = sources() if srcs is None else [Path(s) for s in srcs]
    command = [*(compiler or c_compiler()), *CFLAGS, "-fPIC", "-shared", *extra_flags,
               "-I", str(SOURCE_DIR), *map(str, srcs), "-o", str(out), "-lm"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"compiling the C engine failed ({shlex.join(command)}):\n{done.stderr}")
    return out
