"""Shared output helpers of the examples: CSV writing and a headless matplotlib import."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np


def write_csv(path: Path, columns: dict):
    """Write equal-length columns (name with unit -> 1-D array) to a CSV file."""
    names = list(columns)
    data = np.column_stack([np.asarray(columns[n], dtype=float) for n in names])
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        w.writerows([[f"{v:.10g}" for v in row] for row in data])


def pyplot():
    """matplotlib.pyplot with the Agg backend, or None if matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        print("  (matplotlib not installed: no plot; install the 'plot' extra)")
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def shade_stiction(ax, t, stuck, color="0.85", label=None):
    """Bands (grey by default) over the stick phases; ``label`` goes on the first band."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], stuck.astype(int), [0]))))
    for k, (a, b) in enumerate(zip(edges[::2], edges[1::2])):
        ax.axvspan(t[a], t[b - 1], color=color, lw=0, label=label if k == 0 else None)


def stacked_plot(plt, t, panels, title, path, xlabel="time [s]", stuck=None):
    """One panel per (ylabel, y) over time t, stick phases shaded if ``stuck`` is given; saved to path."""
    fig, axes = plt.subplots(len(panels), 1, sharex=True, figsize=(7, 2 * len(panels) + 1))
    for ax, (label, y) in zip(axes, panels):
        if stuck is not None:
            shade_stiction(ax, t, stuck)
        ax.plot(t, y)
        ax.set_ylabel(label)
    axes[-1].set_xlabel(xlabel)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
