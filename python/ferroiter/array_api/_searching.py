"""The standard's searching functions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

import ferroiter as _fi

from ._dtypes import COMPLEX_FLOATING, DEFAULT_INDEX
from ._dtypes import bool as bool_dtype
from ._elementwise import operands
from ._helpers import cast, unwrap, wrap
from ._statistical import normalize_axes

if TYPE_CHECKING:
    from ._array_object import Array

_Scalar: TypeAlias = bool | int | float | complex


def _arg(fn_name: str, x: object, axis: int | None, keepdims: bool) -> Array:
    a = unwrap(x)
    if a.numel() == 0:
        raise ValueError(f"{fn_name} of an empty array")
    fn = _fi.argmax if fn_name == "argmax" else _fi.argmin
    if axis is None:
        out = fn(a.reshape((-1,)), 0)
        return wrap(out.reshape((1,) * a.ndim) if keepdims else out)
    ax = normalize_axes(axis, a.ndim)[0]
    if a.ndim == 0:
        return wrap(_fi.zeros((), dtype=DEFAULT_INDEX))
    return wrap(fn(a, ax, keepdims))


def argmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    return _arg("argmax", x, axis, keepdims)


def argmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    return _arg("argmin", x, axis, keepdims)


def count_nonzero(
    x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False
) -> Array:
    a = unwrap(x)
    axes = normalize_axes(axis, a.ndim)
    nz = _fi.ne(a, _fi.zeros((), dtype=a.dtype)) if a.dtype != bool_dtype else a
    if a.ndim == 0 or not axes:
        return wrap(cast(nz, DEFAULT_INDEX))
    out = _fi.sum(nz, list(axes), keepdims)
    return wrap(cast(out, DEFAULT_INDEX))


def nonzero(x: Array, /) -> tuple[Array, ...]:
    a = unwrap(x)
    if a.ndim == 0:
        raise ValueError("nonzero of a 0-d array")
    out = _fi.nonzero(a, as_tuple=True)
    assert isinstance(out, tuple)
    return tuple(wrap(i) for i in out)


def searchsorted(
    x1: Array,
    x2: Array | int | float,
    /,
    *,
    side: Literal["left", "right"] = "left",
    sorter: Array | None = None,
) -> Array:
    a = unwrap(x1)
    if a.dtype in COMPLEX_FLOATING:
        raise TypeError("searchsorted needs real arrays")
    a, v, _ = operands(a, x2)  # the common dtype; a scalar x2 as a 0-d array
    s = None if sorter is None else cast(unwrap(sorter), DEFAULT_INDEX)
    return wrap(_fi.searchsorted(a, v, side=side, sorter=s))


def where(condition: Array, x1: Array | _Scalar, x2: Array | _Scalar, /) -> Array:
    c = unwrap(condition)
    if c.dtype != bool_dtype:
        raise TypeError("where needs a boolean condition")
    a, b, _ = operands(x1, x2)
    return wrap(_fi.where(c, a, b))
