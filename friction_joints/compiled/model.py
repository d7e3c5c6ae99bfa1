"""The compiled form of a hybrid system: its kernels and its model arrays."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CompiledModel:
    """rhs, events, record: numba kernels with the signature ``signatures.KERNEL``; fpar (float64),
    ipar (int64): the model as arrays; n_record: length of the record vector; errors: message of
    each status code a kernel may return (code -> text)."""

    rhs: object
    events: object
    record: object
    fpar: np.ndarray
    ipar: np.ndarray
    n_record: int
    errors: dict
