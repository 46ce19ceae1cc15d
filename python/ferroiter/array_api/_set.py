"""The standard's set functions (each NaN is a distinct value)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ._helpers import from_np, np_view, unwrap, wrap

if TYPE_CHECKING:
    from ._array_object import Array


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _unique(x: object) -> tuple[Any, Any, Any, Any]:
    v = np_view(unwrap(x))
    vals, idx, inv, counts = np.unique(  # TEMP until structops
        v.reshape(-1), return_index=True, return_inverse=True, return_counts=True, equal_nan=False
    )
    return vals, idx, inv.reshape(v.shape), counts


def _i64(v: Any) -> Array:
    return wrap(from_np(v, np.dtype("int64")))


def unique_all(x: Array, /) -> UniqueAllResult:
    vals, idx, inv, counts = _unique(x)
    return UniqueAllResult(wrap(from_np(vals)), _i64(idx), _i64(inv), _i64(counts))


def unique_counts(x: Array, /) -> UniqueCountsResult:
    vals, _, _, counts = _unique(x)
    return UniqueCountsResult(wrap(from_np(vals)), _i64(counts))


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    vals, _, inv, _ = _unique(x)
    return UniqueInverseResult(wrap(from_np(vals)), _i64(inv))


def unique_values(x: Array, /) -> Array:
    return wrap(from_np(_unique(x)[0]))
