"""The standard's set functions (each NaN is a distinct value)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

import ferroiter as _fi

from ._dtypes import COMPLEX_FLOATING
from ._helpers import unwrap, wrap

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
    """The set functions for complex arrays, which torch's unique does not take: a stable
    sort in numpy's order for complex values, then a new value wherever a sorted element
    differs from the one before (NaN differs from everything: each NaN is its own value)."""
    flat = a.reshape((-1,))
    n = flat.numel()
    i64 = np.dtype("int64")
    if n == 0:
        empty = _fi.empty((0,), dtype=i64)
        return flat.clone(), _fi.empty(a.shape, dtype=i64), empty
    re, im = _fi.real(flat), _fi.imag(flat)
    # stable sorts from the last key to the first: imaginary part, real part, then the NaN
    # class (none, imaginary NaN, real NaN, both), numpy's order for complex values
    order = _fi.argsort(im, stable=True)
    for key in (re, _fi.add(_fi.mul(_fi.isnan(re).to(i64), 2), _fi.isnan(im).to(i64))):
        order = _fi.index_select(order, 0, _fi.argsort(key[order], stable=True))
    ordered = _fi.index_select(flat, 0, order)
    starts_new = _fi.ne(ordered[1:], ordered[:-1])
    is_start = _fi.cat([_fi.ones((1,), dtype=np.dtype("bool")), starts_new], 0)
    group = _fi.sub(_fi.cumsum(is_start, 0), 1)  # the value number of each sorted element
    starts = _fi.nonzero(is_start, as_tuple=True)[0]
    ends = _fi.cat([starts[1:], _fi.full((1,), n, dtype=i64)], 0)
    # the inverse of the sorting permutation puts each element's value number back in place
    inverse = _fi.index_select(group, 0, _fi.argsort(order, stable=True))
    values = _fi.index_select(ordered, 0, starts)
    return values, inverse.reshape(a.shape), _fi.sub(ends, starts)


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
