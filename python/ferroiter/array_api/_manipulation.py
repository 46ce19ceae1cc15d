"""The standard's manipulation and indexing functions (views where ferroiter gives views)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias

import numpy as np

import ferroiter as _fi

from ._dtypes import INTEGRAL, promote
from ._helpers import cast, from_np, np_view, unwrap, wrap
from ._statistical import normalize_axes

if TYPE_CHECKING:
    from ._array_object import Array

_Axis: TypeAlias = int | Sequence[int] | None


def _common(arrays: Sequence[object]) -> list[_fi.Array]:
    """The arrays cast to their common dtype (the standard's promotion)."""
    arrs = [unwrap(x) for x in arrays]
    if not arrs:
        raise ValueError("need at least one array")
    dt = arrs[0].dtype
    for a in arrs[1:]:
        dt = promote(dt, a.dtype)
    return [cast(a, dt) for a in arrs]


def broadcast_arrays(*arrays: Array) -> list[Array]:
    return [wrap(a) for a in _fi.broadcast_tensors(*[unwrap(x) for x in arrays])]


def broadcast_to(x: Array, /, shape: tuple[int, ...]) -> Array:
    return wrap(_fi.broadcast_to(unwrap(x), tuple(shape)))


def concat(arrays: tuple[Array, ...] | list[Array], /, *, axis: int | None = 0) -> Array:
    arrs = _common(arrays)
    if axis is None:
        arrs = [a.reshape((-1,)) for a in arrs]
        axis = 0
    views = [np_view(a) for a in arrs]
    return wrap(from_np(np.concatenate(views, axis=axis)))  # TEMP until structops


def stack(arrays: tuple[Array, ...] | list[Array], /, *, axis: int = 0) -> Array:
    arrs = _common(arrays)
    return wrap(from_np(np.stack([np_view(a) for a in arrs], axis=axis)))  # TEMP until structops


def expand_dims(x: Array, /, axis: int = 0) -> Array:
    a = unwrap(x)
    if not -a.ndim - 1 <= axis <= a.ndim:
        raise IndexError(f"axis {axis} is out of bounds for {a.ndim + 1} dimensions")
    return wrap(a.unsqueeze(axis % (a.ndim + 1)))


def flip(x: Array, /, *, axis: _Axis = None) -> Array:
    a = unwrap(x)
    axes = normalize_axes(axis, a.ndim)
    return wrap(from_np(np.flip(np_view(a), axis=axes).copy()))  # TEMP until structops


def moveaxis(
    x: Array, source: int | tuple[int, ...], destination: int | tuple[int, ...], /
) -> Array:
    a = unwrap(x)
    src = normalize_axes(source, a.ndim)
    dst = normalize_axes(destination, a.ndim)
    if len(src) != len(dst):
        raise ValueError("source and destination need the same number of axes")
    order = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return wrap(a.permute(order))


def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    a = unwrap(x)
    if len(axes) != a.ndim:
        raise ValueError("axes must name every dimension once")
    return wrap(a.permute(list(axes)))


def matrix_transpose(x: Array, /) -> Array:
    a = unwrap(x)
    if a.ndim < 2:
        raise ValueError("matrix_transpose needs at least two dimensions")
    return wrap(a.mT)


def reshape(x: Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Array:
    a = unwrap(x)
    shape = tuple(shape)
    if copy is True:
        return wrap(a.clone().reshape(shape))
    if copy is False:
        try:
            return wrap(a.view(shape))
        except Exception as exc:
            raise ValueError("reshape(copy=False) needs a view, and none exists") from exc
    return wrap(a.reshape(shape))


def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    a = unwrap(x)
    reps = np_view(unwrap(repeats)) if not isinstance(repeats, int) else repeats
    out = np.repeat(np_view(a), reps, axis=axis)  # TEMP until structops
    return wrap(from_np(out))


def roll(
    x: Array, /, shift: int | tuple[int, ...], *, axis: int | tuple[int, ...] | None = None
) -> Array:
    a = unwrap(x)
    return wrap(from_np(np.roll(np_view(a), shift, axis=axis)))  # TEMP until structops


def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    a = unwrap(x)
    axes = normalize_axes(axis, a.ndim)
    for ax in axes:
        if a.shape[ax] != 1:
            raise ValueError(f"cannot squeeze axis {ax} of size {a.shape[ax]}")
    shape = tuple(s for i, s in enumerate(a.shape) if i not in axes)
    return wrap(a.view(shape) if axes else a.view(a.shape))


def tile(x: Array, repetitions: tuple[int, ...], /) -> Array:
    a = unwrap(x)
    return wrap(from_np(np.tile(np_view(a), repetitions)))  # TEMP until structops


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    a = unwrap(x)
    ax = normalize_axes(axis, a.ndim)[0]
    key = [slice(None)] * a.ndim
    out = []
    for i in range(a.shape[ax]):
        key[ax] = slice(i, i + 1)
        out.append(wrap(a[tuple(key)].squeeze(ax)))
    return tuple(out)


def take(x: Array, indices: Array, /, *, axis: int | None = None) -> Array:
    a = unwrap(x)
    idx = unwrap(indices)
    if idx.dtype not in INTEGRAL:
        raise TypeError("take needs integer indices")
    if axis is None:
        if a.ndim != 1:
            raise ValueError("take needs axis for arrays of more than one dimension")
        axis = 0
    ax = normalize_axes(axis, a.ndim)[0]
    out = np.take(np_view(a), np_view(idx), axis=ax)  # TEMP until structops
    return wrap(from_np(out))


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    a = unwrap(x)
    idx = unwrap(indices)
    out = np.take_along_axis(np_view(a), np_view(idx), axis=axis)  # TEMP until structops
    return wrap(from_np(out))
