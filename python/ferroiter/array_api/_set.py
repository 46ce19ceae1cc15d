"""The standard's set functions (each NaN is a distinct value)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

import ferroiter as _fi

from ._dtypes import COMPLEX_FLOATING
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


def _unique(x: object) -> tuple[_fi.Array, _fi.Array, _fi.Array]:
    """The sorted distinct values of the flattened ``x``, the inverse (shaped like ``x``) and
    the counts."""
    a = unwrap(x)
    if a.dtype in COMPLEX_FLOATING:
        return _unique_complex(a)
    out = _fi.unique(a.reshape((-1,)), True, True, True)
    assert isinstance(out, tuple)
    vals, inv, counts = out
    return vals, inv.reshape(a.shape), counts


def _unique_complex(a: _fi.Array) -> tuple[_fi.Array, _fi.Array, _fi.Array]:
    """numpy's unique for complex arrays, which torch's unique does not take (the standard
    asks for every dtype)."""
    vals, inv, counts = np.unique(  # TEMP until complex unique
        np_view(a).reshape(-1), return_inverse=True, return_counts=True, equal_nan=False
    )
    i64 = np.dtype("int64")
    return from_np(vals), from_np(inv, i64).reshape(a.shape), from_np(counts, i64)


def _first_indices(inv: _fi.Array, counts: _fi.Array) -> _fi.Array:
    """Where each distinct value first occurs: a stable argsort of the inverse groups the
    positions by value, in input order, and each group starts at the running count."""
    order = _fi.argsort(inv.reshape((-1,)), stable=True)
    starts = _fi.sub(_fi.cumsum(counts, 0), counts)
    return _fi.index_select(order, 0, starts)


def unique_all(x: Array, /) -> UniqueAllResult:
    vals, inv, counts = _unique(x)
    return UniqueAllResult(wrap(vals), wrap(_first_indices(inv, counts)), wrap(inv), wrap(counts))


def unique_counts(x: Array, /) -> UniqueCountsResult:
    vals, _, counts = _unique(x)
    return UniqueCountsResult(wrap(vals), wrap(counts))


def unique_inverse(x: Array, /) -> UniqueInverseResult:
    vals, inv, _ = _unique(x)
    return UniqueInverseResult(wrap(vals), wrap(inv))


def unique_values(x: Array, /) -> Array:
    a = unwrap(x)
    if a.dtype in COMPLEX_FLOATING:
        return wrap(_unique_complex(a)[0])
    out = _fi.unique(a.reshape((-1,)))
    assert not isinstance(out, tuple)
    return wrap(out)
