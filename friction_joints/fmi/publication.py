"""The outputs of a slave as entries of the engine's record: what its ``publish`` computes, found once.

An FMU's ``publish`` maps the record dict (``system.decode_record`` of the engine's record row) to its
outputs. Where every Real output is one entry of the row and every Boolean output is true where one of
a run of entries is not zero (the models' ``stuck`` flags), the outputs can be read from the row
directly: the pythonfmu slaves do that at every step (``Publication``), the native FMUs' model tables
write the same indices into C (``fmi.native``).
"""

from __future__ import annotations

import operator

import numpy as np


class NotFromRecord(ValueError):
    """An output that is not one entry (or, a Boolean, a run of entries) of the record: publish computes it."""


def record_indices(variables, publish, decode, n_record: int) -> dict:
    """{output name: (its first index in the record row, count)} of the output Vars among ``variables``;
    publish: record dict -> {name: value}, decode: row (n_record,) -> record dict. Found by publishing
    a row of distinct values in [1, 2) (a Real output is one of them: count 1) and, for the Boolean outputs, rows
    with entries zeroed (the run of entries that is false where all of them are zero and true where any
    one is not: count its length; ``_run``). (None, 1) for a Real output that publish gives as 0 from
    any row (of a feature the model does not have). NotFromRecord for any other output."""
    row = _spread(n_record, 1.0, 2.0)
    published = publish(decode(row.copy()))
    negated = publish(decode(-row))
    indices = {}
    for v in variables:
        if v.causality != "output":
            continue
        if v.kind == "Real" and published[v.name] == 0.0 == negated[v.name]:
            indices[v.name] = (None, 1)
            continue
        if v.kind == "Boolean":
            start, count = _run(lambda zero: publish(decode(_zeroed(row, zero)))[v.name], n_record)
            found = [] if start is None else [start]
        else:
            count, found = 1, [i for i in range(n_record) if published[v.name] == row[i]]
        if len(found) != 1:
            raise NotFromRecord(f"its output {v.name} is not one entry of the record (publish computes it)"
                                if v.kind == "Real" else
                                f"its output {v.name} is not true where one of a run of the record's entries is")
        indices[v.name] = (found[0], count)
    return indices


def _spread(n: int, low: float, high: float, step: float = 0.6180339887498949) -> np.ndarray:
    """n distinct values in [low, high): the multiples of an irrational step modulo 1, scaled (in [1, 2) no
    entry is the sum of two others; a product or ratio that rounds to one is caught by Publication's check on
    a second row). Not numpy.random, whose import costs an FMU's start-up."""
    return low + (high - low) * ((np.arange(1, n + 1) * step) % 1.0)


def _zeroed(row, entries):
    probe = row.copy()
    probe[list(entries)] = 0.0
    return probe


def _run(true, n: int) -> tuple:
    """(start, count) of the run of entries [start, start + count) where true(zeroed entries) is any() of,
    found by bisection: zeroing [0, k) makes it false from k = start + count on, zeroing [k, n) from
    k = start down; then checked: false with the run zeroed, true with any one entry of it kept.
    (None, 0) if it is not such a function of one run."""
    if true(range(n)) or not true(()):
        return None, 0
    low, high = 0, n  # true with [0, low) zeroed, false with [0, high) zeroed
    while high - low > 1:
        low, high = (mid, high) if true(range(mid := (low + high) // 2)) else (low, mid)
    stop = high
    low, high = 0, n  # false with [low, n) zeroed, true with [high, n) zeroed
    while high - low > 1:
        low, high = (low, mid) if true(range(mid := (low + high) // 2, n)) else (mid, high)
    start = low
    run = range(start, stop)
    if start >= stop or true(run) or not all(true(set(run) - {j}) for j in run):
        return None, 0
    return start, stop - start


class Publication:
    """publish of a slave read from the record row: ``publication(row)`` (n_record,) gives the outputs
    that can change, {name: float or bool}, as ``publish(decode(row))`` gives them (those it gives as 0
    from any row are left out: they never change). Arguments as ``record_indices``; NotFromRecord if an
    output is not read from the row."""

    def __init__(self, variables, publish, decode, n_record: int):
        indices = record_indices(variables, publish, decode, n_record)
        kinds = {v.name: v.kind for v in variables}
        reals = [(name, i) for name, (i, _) in indices.items() if kinds[name] != "Boolean" and i is not None]
        self.names = tuple(name for name, _ in reals)
        self.index = tuple(i for _, i in reals)
        self._pick = operator.itemgetter(*self.index) if len(self.index) > 1 else lambda entries: [
            entries[i] for i in self.index]  # entries -> the Real outputs' values, in the order of names
        self.booleans = tuple((name, i, i + count) for name, (i, count) in indices.items() if kinds[name] == "Boolean")
        probe = _spread(n_record, -2.0, 2.0, 0.7548776662466927)  # another row: publish agrees on it too,
        probe[::3] = 0.0  # Boolean outputs false and true among them
        want = publish(decode(probe.copy()))
        wrong = [name for name, value in self(probe).items() if value != want[name]]
        if wrong:
            raise NotFromRecord(f"its outputs {', '.join(wrong)} are not entries of the record (publish computes them)")

    def __call__(self, row: np.ndarray) -> dict:
        return self.update({}, row)

    def update(self, out: dict, row: np.ndarray) -> dict:
        """``out`` updated with the outputs of the record row (n_record,), as ``publication(row)`` gives them."""
        entries = memoryview(row)  # its entries as Python floats, picked without a copy of the row
        out.update(zip(self.names, self._pick(entries)))
        for name, start, stop in self.booleans:
            out[name] = any(entries[start:stop])  # NaN is true, as bool(NaN)
        return out
