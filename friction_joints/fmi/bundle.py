"""The package an FMU carries, kept importable after the folder it was first imported from is gone.

Each FMU bundles this package under a name of its own (``friction_joints_<hash>``, build_fmu.py) in
its resources folder, and Python imports a package once per process. The modules an instance does not
use are imported later, when another instance needs them (the compiled engine after a run with bristle
friction, say), from the package's ``__path__``: the resources folder of the first instance. Hosts
delete that folder when they free the instance (FMPy's ``simulate_fmu`` does), and the later import
fails ("No module named friction_joints_<hash>.<module>"). ``follow_resources`` points the search
paths of the bundled package and its imported subpackages at the newest instance's resources folder
whenever the old ones are gone. The modules already imported keep working: their code is loaded.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

ROOT = __name__.split(".")[0]  # the name this package is imported under: the bundle's, in an FMU


def follow_resources(resources: str | None) -> int:
    """Point the bundled package's subpackage search paths that no longer exist at
    ``<resources>/<package>/...`` (the instance's own copy); returns how many were moved. Nothing to do
    outside an FMU (no bundled copy in ``resources``) or while the old folders exist."""
    if not resources or not (Path(resources) / ROOT).is_dir():
        return 0
    moved = 0
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__path__", None)
        if path is None or not (name == ROOT or name.startswith(ROOT + ".")):
            continue
        if any(os.path.isdir(entry) for entry in path):
            continue
        path[:] = [str(Path(resources).joinpath(*name.split(".")))]
        moved += 1
    if moved:
        importlib.invalidate_caches()
    return moved


def drop_repeated_path(resources: str | None) -> int:
    """Remove the repeated entries of ``resources`` from sys.path, keeping its first: pythonfmu puts the
    resources folder at the front of sys.path at every instantiation. Returns how many were removed."""
    if not resources or sys.path.count(resources) < 2:
        return 0
    first = sys.path.index(resources)
    kept = sys.path[:first + 1] + [entry for entry in sys.path[first + 1:] if entry != resources]
    removed = len(sys.path) - len(kept)
    sys.path[:] = kept
    return removed
