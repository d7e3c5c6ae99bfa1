"""Running FMU tasks on a Dask cluster (dask.distributed): the engine of sweeps and regression runs.

``connect`` gives a Client: of a LocalCluster of worker processes with one thread each (pythonfmu
FMUs run in their host's interpreter, so one FMU at a time per process), or of an existing cluster
at a scheduler address. ``ship`` sends an FMU file to the cluster as bytes (no shared file system
assumed); on a worker ``FMUFile.local`` extracts it once per process and returns that folder
(once: extracting costs more than most runs).
``run_tasks`` submits one task per call, shows a progress bar on stderr and, on Ctrl-C, cancels
what is left and raises ``Cancelled``.

Workers need Python with this package installed (the same version as the client) with its
``sweep`` extra, i.e. numpy, scipy, FMPy and dask.distributed.
"""

from __future__ import annotations

import atexit
import hashlib
import io
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

_LOCAL: dict[str, Path] = {}  # digest -> this process's extracted copy of a shipped FMU


class Cancelled(Exception):
    """Ctrl-C stopped a run of tasks: ``done`` of ``total`` had finished."""

    def __init__(self, done: int, total: int):
        super().__init__(f"cancelled after {done} of {total} tasks")
        self.done, self.total = done, total


@dataclass(frozen=True)
class FMUFile:
    """An FMU's file name, the SHA-256 of its content and the content."""
    name: str
    digest: str
    data: bytes

    @classmethod
    def read(cls, path) -> FMUFile:
        data = Path(path).read_bytes()
        return cls(Path(path).name, hashlib.sha256(data).hexdigest(), data)

    def local(self) -> Path:
        """The FMU extracted in this process (at the first call), a folder that FMPy takes in place of
        the FMU file: on a Dask worker in the worker's own directory, which Dask deletes with the
        worker (a worker process is terminated, so it runs no exit handler); elsewhere in a temporary
        folder deleted at exit."""
        if self.digest not in _LOCAL:
            worker = _worker_directory()
            folder = Path(tempfile.mkdtemp(prefix=f"{Path(self.name).stem}_", dir=worker))
            if worker is None:
                atexit.register(shutil.rmtree, folder, True)
            with zipfile.ZipFile(io.BytesIO(self.data)) as archive:
                archive.extractall(folder)
            _LOCAL[self.digest] = folder
        return _LOCAL[self.digest]


def _worker_directory() -> str | None:
    """The local directory of the Dask worker this runs on, or None outside a worker."""
    try:
        from distributed import get_worker
        return get_worker().local_directory
    except (ImportError, ValueError):
        return None


@contextmanager
def connect(scheduler: str | None = None, workers: int | None = None):
    """A dask.distributed Client. Without scheduler: a LocalCluster of ``workers`` processes
    (default: the number of cores) with one thread each, closed on exit. With a scheduler address
    (e.g. tcp://10.0.0.5:8786): that cluster, after waiting for ``workers`` workers if given."""
    try:
        import dask
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:
        raise RuntimeError("running on a Dask cluster needs dask.distributed: pip install "
                           "'friction_joints[sweep]'") from exc
    if workers is not None and workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    if scheduler is None:
        # one task at a time on a worker: a run that kills its worker process fails no run queued behind it
        with _sigint_ignored(), dask.config.set({"distributed.scheduler.worker-saturation": 1.0}):
            # SIGINT ignored is inherited by the worker processes: Ctrl-C in a terminal reaches the client only
            cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                                   dashboard_address="127.0.0.1:0",  # a free local port (dashboard with bokeh)
                                   # the workers' logs but the critical: a failure of a task is its exception,
                                   # and a Ctrl-C that closes the scheduler under a worker's heartbeat logs an
                                   # error with a traceback that says nothing to the user
                                   silence_logs=logging.CRITICAL)
        with cluster, Client(cluster) as client:
            yield client
    else:
        try:
            client = Client(scheduler, timeout="30s")
        except OSError as exc:
            raise RuntimeError(f"no Dask scheduler reached at {scheduler}: {exc}") from None
        with client:
            if workers is not None:
                try:
                    client.wait_for_workers(workers, timeout=120)
                except TimeoutError:
                    raise RuntimeError(f"the scheduler at {scheduler} has fewer than {workers} workers after "
                                       "120 s") from None
            yield client


@contextmanager
def _sigint_ignored():
    """SIGINT ignored inside (in the main thread; elsewhere signals cannot be set and nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def ship(client, paths: dict) -> dict:
    """{key: future of the FMUFile} for the FMU files paths {key: path}, scattered to the cluster."""
    return {key: client.scatter(FMUFile.read(path), hash=False) for key, path in paths.items()}


class Progress:
    """A text progress bar on a stream: ``[#####-----] 5/10 runs``."""

    def __init__(self, total: int, label: str, stream=None, width: int = 30):
        self.total, self.label, self.width, self.done = total, label, width, 0
        self.stream = sys.stderr if stream is None else stream
        self._draw()

    def advance(self):
        self.done += 1
        self._draw()
        if self.done == self.total:
            self.stream.write("\n")

    def _draw(self):
        filled = self.width * self.done // max(self.total, 1)
        self.stream.write(f"\r[{'#' * filled}{'-' * (self.width - filled)}] {self.done}/{self.total} {self.label}")
        self.stream.flush()


def run_tasks(client, fn, calls, label: str = "tasks", stream=None) -> list:
    """fn(*args) for every args in calls, one task each; the results in the order of calls, with the
    exception instead where a task raised (or its worker died). Ctrl-C cancels the tasks left and
    raises Cancelled."""
    from dask.distributed import as_completed

    futures = [client.submit(fn, *args, pure=False) for args in calls]
    order = {f.key: i for i, f in enumerate(futures)}
    results = [None] * len(futures)
    bar = Progress(len(futures), label, stream)
    try:
        for future in as_completed(futures):
            results[order[future.key]] = future.exception() if future.status == "error" else future.result()
            future.release()
            bar.advance()
    except KeyboardInterrupt:
        client.cancel(futures, force=True)
        bar.stream.write("\n")
        raise Cancelled(bar.done, len(futures)) from None
    return results
