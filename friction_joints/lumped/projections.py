"""The piecewise-linear projections luz and tar of seed 001 (Sect. 2) and the identities it uses.

luz(x, a) = x + (|x - a| - |x + a|) / 2          (seed 001 Sect. 2; a >= 0: the dead zone [-a, a])
tar(x, a) = x + a sgh(x)                         (the inverse of luz: a jump of 2a at x = 0)
sgh(x) = sgn(x) for x != 0 and the set [-1, 1] at x = 0, so tar(0, a) is the interval [-a, a].

Everything is vectorised over numpy arrays. ``tar`` takes the value s* of sgh at the zeros (the
static friction as a fraction of its limit); ``tar_interval`` returns the set-valued tar as bounds.
"""

from __future__ import annotations

import math

import numpy as np


def luz(x, a):
    """luz(x, a) = x + (|x - a| - |x + a|) / 2 (seed 001 Sect. 2), evaluated as the equal dead zone
    0 on [-a, a], x -+ a outside, so that a stuck state gets exactly zero (the printed formula
    leaves rounding residues such as luz(1e-300, 1) = 1e-300)."""
    if isinstance(x, float) and isinstance(a, float):  # scalars (the models' right-hand sides): no numpy
        return 0.0 if abs(x) <= a else x - math.copysign(a, x)
    x, a = np.asarray(x, float), np.asarray(a, float)
    return np.where(np.abs(x) <= a, 0.0, x - np.sign(x) * a)


def sgh(x, s_star=0.0):
    """sgn(x), with the value s_star in [-1, 1] chosen at x = 0."""
    x = np.asarray(x, float)
    return np.where(x > 0, 1.0, np.where(x < 0, -1.0, s_star))


def tar(x, a, s_star=0.0):
    """tar(x, a) = x + a sgh(x), with sgh(0) = s_star (seed 001 Sect. 2)."""
    return np.asarray(x, float) + np.asarray(a, float) * sgh(x, s_star)


def tar_interval(x, a):
    """The set tar(x, a) as (low, high): a point off zero, [-a, a] at x = 0."""
    x, a = np.asarray(x, float), np.asarray(a, float)
    at_zero = x == 0
    return np.where(at_zero, -a, x + a * np.sign(x)), np.where(at_zero, a, x + a * np.sign(x))


def tar_inverse_series(x, a, b, k):
    """y(x) solving tar(y, b) = k tar(x - y, a) for a, b >= 0, k > 0 (seed 001 Sect. 4 case 4):
    y = x - luz(x, k a - b) / (k + 1) if k a >= b, else y = k luz(x, (b - k a) / k) / (k + 1).
    (Two frictions in series: y is the velocity of a massless block between them.)"""
    x, a, b, k = (np.asarray(v, float) for v in (x, a, b, k))
    return np.where(k * a >= b, x - luz(x, k * a - b) / (k + 1), k * luz(x, (b - k * a) / k) / (k + 1))
