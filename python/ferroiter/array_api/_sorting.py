"""The standard's sorting functions (stable by default)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import ferroiter as _fi

from ._dtypes import COMPLEX_FLOATING, DEFAULT_INDEX
from ._helpers import unwrap, wrap

if TYPE_CHECKING:
    from ._array_object import Array


def argsort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    a = unwrap(x)
    if a.dtype in COMPLEX_FLOATING:
        raise TypeError("argsort needs a real array")
    if a.ndim == 0:
        return wrap(_fi.zeros((), dtype=DEFAULT_INDEX))
    # always stable: a descending stable sort keeps equal values in their input order, as the
    # standard asks for stable=True (and allows for stable=False)
    return wrap(_fi.argsort(a, axis, descending, stable=True))


def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    a = unwrap(x)
    if a.dtype in COMPLEX_FLOATING:
        raise TypeError("sort needs a real array")
    if a.ndim == 0:
        return wrap(a.clone())
    return wrap(_fi.sort(a, axis, descending, stable=True).values)
