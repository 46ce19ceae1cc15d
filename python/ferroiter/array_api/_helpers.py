"""Moving between the namespace's wrapper, ferroiter arrays and numpy views (the linalg and
fft extensions compute their decompositions and transforms in numpy)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

import ferroiter as _fi

from ._dtypes import DType

if TYPE_CHECKING:
    from ._array_object import Array


#: The namespace's ``Array`` class: ``_array_object`` (which imports this module) sets it once
#: the class exists, so these helpers need no import at each call.
array_class: type = object


def unwrap(x: object) -> _fi.Array:
    """The ferroiter array inside a namespace array (a plain ferroiter array passes through)."""
    if isinstance(x, array_class):
        return x._a  # type: ignore[attr-defined,no-any-return]
    if isinstance(x, _fi.Array):
        return x
    raise TypeError(f"expected an array, got {type(x).__name__}")


def wrap(a: _fi.Array) -> Array:
    """A ferroiter array as a namespace array (no copy)."""
    return array_class._new(a)  # type: ignore[attr-defined,no-any-return]


def is_array(x: object) -> bool:
    """Whether ``x`` is a namespace array or a ferroiter array."""
    return isinstance(x, (array_class, _fi.Array))


def cast(a: _fi.Array, dtype: DType) -> _fi.Array:
    """``a`` in ``dtype`` (itself when it already has it: ferroiter hands out one numpy dtype
    object per dtype, so identity answers before numpy's slower ``==``)."""
    own = a.dtype
    return a if own is dtype or own == dtype else a.to(dtype)


def np_view(a: _fi.Array) -> np.ndarray[Any, Any]:
    """A numpy view of a ferroiter array (no copy), for the functions computed in numpy."""
    return np.asarray(a)


def from_np(nd: object, dtype: DType | None = None) -> _fi.Array:
    """A numpy result as a ferroiter array (shares the memory of an aligned numpy array)."""
    arr = np.asarray(nd)
    if dtype is not None and arr.dtype != dtype:
        arr = arr.astype(dtype)
    if arr.size == 0:
        return _fi.empty(arr.shape, dtype=arr.dtype)
    if not arr.flags.aligned or not arr.flags.writeable:
        arr = arr.copy()
    return _fi.from_numpy(arr)
