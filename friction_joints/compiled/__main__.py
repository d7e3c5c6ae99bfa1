"""Compile the compiled engine into numba's on-disk cache (or find that it is there), in parallel.

    python -m friction_joints.compiled [--jobs N]

Each kernel module and the integrator compile in a process of their own, N at a time (default: the
cores), the largest first: a cold compile then takes about as long as the largest module (planar)
instead of the sum of all. Later imports, in any process, load the cache. numba compiles for the CPU
that NUMBA_CPU_NAME names (default: this one); the FMUs carry the cache for the generic CPU
(``NUMBA_CPU_NAME=generic``, as build_fmu.py and the test suite run it).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from .registry import MODULES

PACKAGE = __package__  # friction_joints.compiled, or its copy in an FMU's bundle
FIRST = ("planar", "spatial")  # the largest (a minute each on a cold cache): started first
NEEDS = {"absolute": "planar"}  # a module that imports another kernel module compiles after it
IMPORT_AND_TIME = "import importlib, sys, time; t = time.perf_counter(); importlib.import_module(sys.argv[1]); " \
                  "print(time.perf_counter() - t)"


def _compile(name) -> float:
    """Seconds the import of PACKAGE.name took in a fresh process (compiling it or loading its cache)."""
    proc = subprocess.run([sys.executable, "-c", IMPORT_AND_TIME, f"{PACKAGE}.{name}"], capture_output=True,
                          text=True)
    if proc.returncode:
        raise RuntimeError(f"compiling {PACKAGE}.{name} failed:\n{proc.stderr}")
    return float(proc.stdout.split()[-1])


def compile_engine(jobs: int | None = None) -> dict:
    """{module: seconds} of compiling (or loading) each part of the engine, ``jobs`` at a time."""
    names = FIRST + tuple(name for name in MODULES + ("dop853",) if name not in FIRST)
    futures = {}

    def after_its_needs(name):
        if name in NEEDS:
            futures[NEEDS[name]].result()
        return _compile(name)

    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        for name in names:  # in order: a module is submitted after the one it needs
            futures[name] = pool.submit(after_its_needs, name)
        return {name: future.result() for name, future in futures.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=None, help="processes at a time (default: the cores)")
    args = parser.parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        parser.error(f"--jobs {args.jobs} is outside its allowed range [1, inf)")
    start = time.perf_counter()
    seconds = compile_engine(args.jobs)
    parts = ", ".join(f"{name} {s:.1f} s" for name, s in seconds.items())
    print(f"compiled engine ready in {time.perf_counter() - start:.1f} s "
          f"(CPU {os.environ.get('NUMBA_CPU_NAME', 'host')}; {parts})")


if __name__ == "__main__":
    main()
