"""The standard's statistical functions on ferroiter's reductions and scans.

The differences from torch's reductions handled here: ``axis=()`` reduces nothing (torch
reduces everything), integer sums and products default to int64 (unsigned ones to uint64),
``max``/``min`` of nothing raise, and the cumulative functions take
``include_initial``.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import ferroiter as _fi

from ._dtypes import (
    COMPLEX_FLOATING,
    DEFAULT_INT,
    DEFAULT_UINT,
    FLOATING,
    DType,
    as_dtype,
)
from ._helpers import cast, unwrap, wrap

if TYPE_CHECKING:
    from ._array_object import Array

_Axis: TypeAlias = int | Sequence[int] | None


def normalize_axes(axis: _Axis, ndim: int) -> tuple[int, ...]:
    """``axis`` as a tuple of distinct non-negative dims (None: all); IndexError/ValueError."""
    if axis is None:
        return tuple(range(ndim))
    n = builtins.max(ndim, 1)
    if isinstance(axis, int):
        # the common call, without the loop and the repeat check
        if not -n <= axis < n:
            raise IndexError(f"axis {axis} is out of bounds for an array of {ndim} dimensions")
        return (axis % n,)
    axes = tuple(axis)
    out = []
    for ax in axes:
        if not -n <= ax < n:
            raise IndexError(f"axis {ax} is out of bounds for an array of {ndim} dimensions")
        out.append(ax % n)
    if len(set(out)) != len(out):
        raise ValueError("repeated axis")
    return tuple(out)


def _keep(a: _fi.Array, full_shape: tuple[int, ...], axes: tuple[int, ...]) -> _fi.Array:
    """A reduced array reshaped to ``full_shape`` with the reduced ``axes`` kept as size 1."""
    shape = tuple(1 if i in axes else s for i, s in enumerate(full_shape))
    return a.reshape(shape)


def _reduce(
    fn: Callable[..., _fi.Array],
    x: object,
    axis: _Axis,
    keepdims: bool,
    **kwargs: Any,
) -> _fi.Array:
    """``fn`` over ``axis`` with the standard's ``axis``/``keepdims`` meaning."""
    a = unwrap(x)
    return _reduce_axes(fn, a, normalize_axes(axis, a.ndim), keepdims, **kwargs)


def _reduce_axes(
    fn: Callable[..., _fi.Array],
    a: _fi.Array,
    axes: tuple[int, ...],
    keepdims: bool,
    **kwargs: Any,
) -> _fi.Array:
    """``_reduce`` over axes already normalized (``normalize_axes``)."""
    if a.ndim == 0:
        out = fn(a, **kwargs)
        return out
    if not axes:
        return a.clone()
    out = fn(a, list(axes), **kwargs)
    return _keep(out, a.shape, axes) if keepdims else out


def _sum_dtype(dt: DType, dtype: object) -> DType:
    """The standard's dtype of a sum or product: bool and signed integers in the default
    integer, unsigned ones in the default unsigned (by kind: comparing numpy dtypes one by one
    cost more than the reduction of a small array)."""
    if dtype is not None:
        return as_dtype(dtype)
    kind = dt.kind
    if kind in "fc":
        return dt
    if kind in "bi":
        return DEFAULT_INT
    if kind == "u":
        return DEFAULT_UINT
    return dt


def sum(x: Array, /, *, axis: _Axis = None, dtype: object = None, keepdims: bool = False) -> Array:
    a = unwrap(x)
    dt = _sum_dtype(a.dtype, dtype)
    axes = normalize_axes(axis, a.ndim)
    if a.ndim and not axes:
        return wrap(cast(a, dt).clone())
    return wrap(cast(_reduce_axes(_fi.sum, cast(a, dt), axes, keepdims), dt))


def prod(x: Array, /, *, axis: _Axis = None, dtype: object = None, keepdims: bool = False) -> Array:
    a = unwrap(x)
    dt = _sum_dtype(a.dtype, dtype)
    axes = normalize_axes(axis, a.ndim)
    if a.ndim and not axes:
        return wrap(cast(a, dt).clone())
    b = cast(a, dt)
    if len(axes) > 1:
        # torch's prod takes one dim: fold the reduced dims into one first
        keep = [i for i in range(a.ndim) if i not in axes]
        moved = b.permute(keep + list(axes)).reshape(tuple(a.shape[i] for i in keep) + (-1,))
        out = _fi.prod(moved, -1)
        return wrap(cast(_keep(out, a.shape, axes) if keepdims else out, dt))
    if a.ndim == 0:
        return wrap(cast(_fi.prod(b), dt))
    out = _fi.prod(b, axes[0], keepdims)
    return wrap(cast(out, dt))


def mean(x: Array, /, *, axis: _Axis = None, keepdims: bool = False) -> Array:
    a = unwrap(x)
    if a.dtype not in FLOATING:
        raise TypeError(f"mean needs a floating-point array, not {a.dtype}")
    return wrap(_reduce(_fi.mean, a, axis, keepdims))


def _var_like(
    fn: Callable[..., _fi.Array], x: object, axis: _Axis, correction: float, keepdims: bool
) -> _fi.Array:
    a = unwrap(x)
    if a.dtype not in FLOATING:
        raise TypeError(f"var/std need a floating-point array, not {a.dtype}")
    axes = normalize_axes(axis, a.ndim)
    if a.ndim == 0 or not axes:
        # nothing reduced: every "group" is one element
        return _var_like(fn, a.unsqueeze(a.ndim), a.ndim, correction, False)
    # (a NaN or infinity among a group's values makes its variance NaN in the kernel itself)
    return fn(a, list(axes), correction=correction, keepdim=keepdims)


def var(
    x: Array,
    /,
    *,
    axis: _Axis = None,
    correction: int | float = 0.0,
    keepdims: bool = False,
) -> Array:
    return wrap(_var_like(_fi.var, x, axis, correction, keepdims))


def std(
    x: Array,
    /,
    *,
    axis: _Axis = None,
    correction: int | float = 0.0,
    keepdims: bool = False,
) -> Array:
    return wrap(_var_like(_fi.std, x, axis, correction, keepdims))


def _extreme(fn: Callable[..., _fi.Array], x: object, axis: _Axis, keepdims: bool) -> Array:
    a = unwrap(x)
    axes = normalize_axes(axis, a.ndim)
    if builtins.any(a.shape[i] == 0 for i in axes):
        raise ValueError("max/min of an empty axis has no identity")
    if a.dtype in COMPLEX_FLOATING:
        raise TypeError("max/min are not defined for complex arrays")
    return wrap(_reduce_axes(fn, a, axes, keepdims))


def max(x: Array, /, *, axis: _Axis = None, keepdims: bool = False) -> Array:
    return _extreme(_fi.amax, x, axis, keepdims)


def min(x: Array, /, *, axis: _Axis = None, keepdims: bool = False) -> Array:
    return _extreme(_fi.amin, x, axis, keepdims)


def _cumulative(
    fn: Callable[..., _fi.Array],
    initial: int,
    x: object,
    axis: int | None,
    dtype: object,
    include_initial: bool,
) -> Array:
    a = unwrap(x)
    if axis is None:
        if a.ndim > 1:
            raise ValueError("axis is required for arrays of more than one dimension")
        if a.ndim == 0:
            a = a.reshape((1,))
        axis = 0
    ax = normalize_axes(axis, a.ndim)[0]
    dt = _sum_dtype(a.dtype, dtype)
    b = cast(a, dt)
    scanned = fn(b, ax) if b.numel() else b.clone()
    scanned = cast(scanned, dt)
    if not include_initial:
        return wrap(scanned)
    shape = list(a.shape)
    shape[ax] += 1
    out = _fi.full(tuple(shape), initial, dtype=dt)
    key = tuple(slice(1, None) if i == ax else slice(None) for i in range(a.ndim))
    out[key] = scanned
    return wrap(out)


def cumulative_sum(
    x: Array,
    /,
    *,
    axis: int | None = None,
    dtype: object = None,
    include_initial: bool = False,
) -> Array:
    return _cumulative(_fi.cumsum, 0, x, axis, dtype, include_initial)


def cumulative_prod(
    x: Array,
    /,
    *,
    axis: int | None = None,
    dtype: object = None,
    include_initial: bool = False,
) -> Array:
    return _cumulative(_fi.cumprod, 1, x, axis, dtype, include_initial)
