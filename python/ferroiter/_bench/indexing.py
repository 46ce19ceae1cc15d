"""The advanced-indexing rows: boolean masks and integer arrays, read (``a[key]``, a new
array) and written (``a[key] = v``), as scikit-learn and SciPy call them (``x[mask]``,
``xpx.at(x, mask).set(v)``: scipy's ``zscore`` and ``logsumexp`` write NaN or 0 through a
mask). One float32 table of ``s.large // 16`` elements, ``(n, 64)``; a fresh copy of it per
library, so that writes do not meet another library's results. Times in microseconds per
call: the work is not a memory stream (the bytes moved depend on the mask)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import ferroiter as fi

from .libs import torch
from .rows import Case, Row, Sizes, Thunk, count

COLUMNS = 64


def _thunk(x: Any, key: Any, write: object) -> Thunk:
    """``x[key]``, or ``x[key] = write`` when ``write`` is given."""
    if write is None:
        return lambda: x[key]
    return lambda: x.__setitem__(key, write)


def indexing_rows(s: Sizes) -> list[Row]:
    rows_n = s.large // 16 // COLUMNS
    shape = (rows_n, COLUMNS)
    label = f"({rows_n}, {COLUMNS}) float32"

    def case(
        key_of: Callable[[np.random.Generator], Any], write: object = None
    ) -> Callable[[], list[Case]]:
        def setup() -> list[Case]:
            rng = np.random.default_rng(0)
            data = rng.standard_normal(shape).astype(np.float32)
            key = key_of(rng)
            keys = key if isinstance(key, tuple) else (key,)
            thunks: dict[str, Thunk] = {}
            libs: dict[str, Callable[[np.ndarray[Any, Any]], Any]] = {
                "numpy": lambda v: v,
                "ferroiter": fi.from_numpy,
            }
            if torch is not None:
                libs["torch"] = torch.from_numpy
            for name, convert in libs.items():
                x = convert(data.copy())
                parts = tuple(convert(np.ascontiguousarray(part)) for part in keys)
                thunks[name] = _thunk(x, parts if isinstance(key, tuple) else parts[0], write)
            return [Case(0, thunks)]

        return setup

    def random_mask(rng: np.random.Generator) -> np.ndarray[Any, Any]:
        return rng.random(shape) < 0.5

    def column_mask(rng: np.random.Generator) -> np.ndarray[Any, Any]:
        return np.broadcast_to(rng.random((1, COLUMNS)) < 0.1, shape)

    def row_mask(rng: np.random.Generator) -> np.ndarray[Any, Any]:
        return rng.random(rows_n) < 0.5

    def row_indices(rng: np.random.Generator) -> np.ndarray[Any, Any]:
        return rng.integers(0, rows_n, rows_n // 2)

    n = count(rows_n * COLUMNS) if (rows_n * COLUMNS) % 1024 == 0 else str(rows_n * COLUMNS)
    return [
        Row("indexing", f"x[random mask] {label}", case(random_mask)),
        Row("indexing", f"x[random mask] = 0 {label}", case(random_mask, 0.0)),
        Row(
            "indexing",
            f"x[column mask, broadcast] = nan, {n}",
            case(column_mask, float("nan")),
        ),
        Row("indexing", f"x[row mask] {label}", case(row_mask)),
        Row("indexing", f"x[row mask] = 0 {label}", case(row_mask, 0.0)),
        Row("indexing", f"x[{rows_n // 2} row indices] {label}", case(row_indices)),
        Row("indexing", f"x[{rows_n // 2} row indices] = 1 {label}", case(row_indices, 1.0)),
    ]
