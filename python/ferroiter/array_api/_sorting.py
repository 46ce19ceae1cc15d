"""The standard's sorting functions (stable by default)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._dtypes import COMPLEX_FLOATING
from ._helpers import from_np, np_view, unwrap, wrap

if TYPE_CHECKING:
    from ._array_object import Array


def _argsort_np(v: np.ndarray[Any, Any], axis: int, descending: bool) -> np.ndarray[Any, Any]:
    if not descending:
        return np.argsort(v, axis=axis, kind="stable")
    # stable descending: sort the reversed array, then map the indices back
    n = v.shape[axis]
    rev = np.flip(np.argsort(np.flip(v, axis=axis), axis=axis, kind="stable"), axis=axis)
    return n - 1 - rev  # type: ignore[no-any-return]


def argsort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    a = unwrap(x)
    if a.dtype in COMPLEX_FLOATING:
        raise TypeError("argsort needs a real array")
    v = np_view(a)
    if v.ndim == 0:
        return wrap(from_np(np.zeros((), dtype=np.int64)))
    return wrap(
        from_np(_argsort_np(v, axis, descending), np.dtype("int64"))
    )  # TEMP until structops


def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    a = unwrap(x)
    if a.dtype in COMPLEX_FLOATING:
        raise TypeError("sort needs a real array")
    v = np_view(a)
    if v.ndim == 0:
        return wrap(a.clone())
    out = np.sort(v, axis=axis, kind="stable")  # TEMP until structops
    if descending:
        out = np.flip(out, axis=axis)
    return wrap(from_np(np.ascontiguousarray(out)))
