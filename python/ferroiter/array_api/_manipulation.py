"""The standard's manipulation and indexing functions (views where ferroiter gives views)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias

import ferroiter as _fi

from ._dtypes import DEFAULT_INDEX, INTEGRAL, promote
from ._helpers import cast, unwrap, wrap
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
    ndim = arrs[0].ndim
    if any(a.ndim != ndim for a in arrs):
        # torch's cat skips 1-D empty inputs whatever the others' rank; the standard does not
        raise ValueError("concat needs arrays with the same number of dimensions")
    return wrap(_fi.cat(arrs, axis))


def stack(arrays: tuple[Array, ...] | list[Array], /, *, axis: int = 0) -> Array:
    arrs = _common(arrays)
    return wrap(_fi.stack(arrs, axis))


def expand_dims(x: Array, /, axis: int = 0) -> Array:
    a = unwrap(x)
    if not -a.ndim - 1 <= axis <= a.ndim:
        raise IndexError(f"axis {axis} is out of bounds for {a.ndim + 1} dimensions")
    return wrap(a.unsqueeze(axis % (a.ndim + 1)))


def flip(x: Array, /, *, axis: _Axis = None) -> Array:
    a = unwrap(x)
    axes = normalize_axes(axis, a.ndim)
    return wrap(_fi.flip(a, list(axes)))


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
    reps = repeats if isinstance(repeats, int) else cast(unwrap(repeats), DEFAULT_INDEX)
    if axis is None:
        a, axis = a.reshape((-1,)), 0
    return wrap(_fi.repeat_interleave(a, reps, normalize_axes(axis, a.ndim)[0]))


def roll(
    x: Array, /, shift: int | tuple[int, ...], *, axis: int | tuple[int, ...] | None = None
) -> Array:
    a = unwrap(x)
    if axis is None:
        return wrap(_fi.roll(a, shift))
    axes = list(axis) if isinstance(axis, tuple) else [axis]
    shifts = list(shift) if isinstance(shift, tuple) else [shift] * len(axes)
    if not axes:
        return wrap(a.clone())  # torch's roll wants at least one shift
    return wrap(_fi.roll(a, shifts, axes))


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
    return wrap(_fi.tile(a, list(repetitions)))


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
    return wrap(_fi.index_select(a, ax, _from_end(idx, a.shape[ax])))


def take_along_axis(x: Array, indices: Array, /, *, axis: int = -1) -> Array:
    a = unwrap(x)
    idx = unwrap(indices)
    if idx.dtype not in INTEGRAL:
        raise TypeError("take_along_axis needs integer indices")
    if idx.ndim != a.ndim:
        raise ValueError("take_along_axis needs indices with as many dimensions as x")
    ax = normalize_axes(axis, a.ndim)[0]
    return wrap(_fi.take_along_dim(a, _from_end(idx, a.shape[ax]), ax))


def _from_end(idx: _fi.Array, size: int) -> _fi.Array:
    """int64 indices with the negative ones counted from the end (torch's kernels want them
    in ``[0, size)``; the standard counts ``-1`` as the last element)."""
    idx = cast(idx, DEFAULT_INDEX)
    return _fi.where(_fi.lt(idx, 0), _fi.add(idx, size), idx)
