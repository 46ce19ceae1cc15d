"""The standard's creation functions, with the namespace's default dtypes (int64, float64,
complex128) rather than torch's float32."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

import ferroiter as _fi

from ._dtypes import (
    COMPLEX_FLOATING,
    DEFAULT_COMPLEX,
    DEFAULT_FLOAT,
    DEFAULT_INT,
    DType,
    as_dtype,
)
from ._dtypes import bool as bool_dtype
from ._dtypes import (
    fill_value as _fill_value,
)
from ._helpers import cast, from_np, is_array, unwrap, wrap

if TYPE_CHECKING:
    from ._array_object import Array

_Scalar: TypeAlias = bool | int | float | complex
_Shape: TypeAlias = int | Sequence[int]


def check_device(device: object) -> None:
    """Only the ``"cpu"`` device exists (``None`` means it)."""
    if device is not None and device != "cpu":
        raise ValueError(f"unsupported device {device!r}")


def _shape(shape: _Shape) -> tuple[int, ...]:
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(s) for s in shape)


def _dtype_or(dtype: object, default: DType) -> DType:
    return default if dtype is None else as_dtype(dtype)


def scalar_dtype(value: object) -> DType:
    """The namespace's default dtype for a Python scalar's kind."""
    if isinstance(value, builtins.bool):
        return bool_dtype
    if isinstance(value, int):
        return DEFAULT_INT
    if isinstance(value, float):
        return DEFAULT_FLOAT
    if isinstance(value, complex):
        return DEFAULT_COMPLEX
    raise TypeError(f"expected a Python scalar, got {type(value).__name__}")


def _nested_default_dtype(obj: object) -> DType | None:
    """The default dtype of nested sequences of Python scalars (None when arrays are inside)."""
    kinds: set[type] = set()
    stack: list[object] = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, (builtins.bool, int, float, complex)):
            kinds.add(bool if isinstance(item, builtins.bool) else type(item))
        else:
            return None
    if complex in kinds:
        return DEFAULT_COMPLEX
    if float in kinds:
        return DEFAULT_FLOAT
    if int in kinds:
        return DEFAULT_INT
    if bool in kinds:
        return bool_dtype
    return DEFAULT_FLOAT


def asarray(
    obj: Any,
    /,
    *,
    dtype: object = None,
    device: object = None,
    copy: builtins.bool | None = None,
) -> Array:
    """An array from an array, a DLPack/buffer producer, nested sequences or a Python scalar."""
    check_device(device)
    want = None if dtype is None else as_dtype(dtype)
    if is_array(obj):
        a = unwrap(obj)
        if want is not None and want != a.dtype:
            if copy is False:
                raise ValueError("asarray(copy=False) cannot change the dtype without a copy")
            return wrap(a.to(want))
        return wrap(a.clone() if copy else a)
    if isinstance(obj, (builtins.bool, int, float, complex)):
        dt = want if want is not None else scalar_dtype(obj)
        if copy is False:
            raise ValueError("asarray(copy=False) cannot make an array from a Python scalar")
        return wrap(_fi.full((), _fill_value(obj, dt), dtype=dt))  # type: ignore[arg-type]
    if isinstance(obj, (list, tuple)):
        if copy is False:
            raise ValueError("asarray(copy=False) cannot make an array from a sequence")
        seq_dt = want if want is not None else _nested_default_dtype(obj)
        nd = np.array(obj, dtype=seq_dt) if seq_dt is not None else np.array(obj)
        if nd.dtype == object:
            raise OverflowError("a Python int does not fit the array's dtype")
        return wrap(from_np(nd))
    if hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
        a = _fi.from_dlpack(obj)
        return asarray(a, dtype=want, copy=copy)
    nd = np.asarray(obj) if copy is not True else np.array(obj, copy=True)
    if want is not None and nd.dtype != want:
        if copy is False:
            raise ValueError("asarray(copy=False) cannot change the dtype without a copy")
        nd = nd.astype(want)
    return wrap(from_np(nd))


def empty(shape: _Shape, *, dtype: object = None, device: object = None) -> Array:
    check_device(device)
    return wrap(_fi.empty(_shape(shape), dtype=_dtype_or(dtype, DEFAULT_FLOAT)))


def zeros(shape: _Shape, *, dtype: object = None, device: object = None) -> Array:
    check_device(device)
    return wrap(_fi.zeros(_shape(shape), dtype=_dtype_or(dtype, DEFAULT_FLOAT)))


def ones(shape: _Shape, *, dtype: object = None, device: object = None) -> Array:
    check_device(device)
    return wrap(_fi.ones(_shape(shape), dtype=_dtype_or(dtype, DEFAULT_FLOAT)))


def full(
    shape: _Shape, fill_value: _Scalar, *, dtype: object = None, device: object = None
) -> Array:
    check_device(device)
    dt = scalar_dtype(fill_value) if dtype is None else as_dtype(dtype)
    value = _fill_value(fill_value, dt)
    return wrap(_fi.full(_shape(shape), value, dtype=dt))  # type: ignore[arg-type]


def empty_like(x: Array, /, *, dtype: object = None, device: object = None) -> Array:
    check_device(device)
    a = unwrap(x)
    return wrap(_fi.empty(a.shape, dtype=_dtype_or(dtype, a.dtype)))


def zeros_like(x: Array, /, *, dtype: object = None, device: object = None) -> Array:
    check_device(device)
    a = unwrap(x)
    return wrap(_fi.zeros(a.shape, dtype=_dtype_or(dtype, a.dtype)))


def ones_like(x: Array, /, *, dtype: object = None, device: object = None) -> Array:
    check_device(device)
    a = unwrap(x)
    return wrap(_fi.ones(a.shape, dtype=_dtype_or(dtype, a.dtype)))


def full_like(
    x: Array, /, fill_value: _Scalar, *, dtype: object = None, device: object = None
) -> Array:
    check_device(device)
    a = unwrap(x)
    dt = _dtype_or(dtype, a.dtype)
    return wrap(_fi.full(a.shape, _fill_value(fill_value, dt), dtype=dt))  # type: ignore[arg-type]


def arange(
    start: int | float,
    /,
    stop: int | float | None = None,
    step: int | float = 1,
    *,
    dtype: object = None,
    device: object = None,
) -> Array:
    """``start, start+step, ...`` below ``stop``: ``ceil((stop-start)/step)`` elements."""
    check_device(device)
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("arange: step must be nonzero")
    all_int = builtins.all(
        isinstance(v, int) and not isinstance(v, builtins.bool) for v in (start, stop, step)
    )
    dt = _dtype_or(dtype, DEFAULT_INT if all_int else DEFAULT_FLOAT)
    n = builtins.max(0, math.ceil((stop - start) / step))
    if n == 0:
        return wrap(_fi.empty((0,), dtype=dt))
    idx = _fi.arange(0, n, dtype=DEFAULT_INT if all_int else DEFAULT_FLOAT)
    out = _fi.add(_fi.mul(idx, step), start)
    return wrap(cast(out, dt))


def eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    *,
    k: int = 0,
    dtype: object = None,
    device: object = None,
) -> Array:
    check_device(device)
    dt = _dtype_or(dtype, DEFAULT_FLOAT)
    m = n_rows if n_cols is None else n_cols
    if k == 0:
        return wrap(_fi.eye(n_rows, m, dtype=dt))
    # torch's eye has no diagonal offset: the k-th diagonal is what triu(k) and tril(k) share
    ones = _fi.ones((n_rows, m), dtype=dt)
    k = _diagonal_in_range(k, n_rows, m)
    return wrap(_fi.tril(_fi.triu(ones, k), k))


def linspace(
    start: int | float | complex,
    stop: int | float | complex,
    /,
    num: int,
    *,
    dtype: object = None,
    device: object = None,
    endpoint: builtins.bool = True,
) -> Array:
    check_device(device)
    is_complex = isinstance(start, complex) or isinstance(stop, complex)
    dt = _dtype_or(dtype, DEFAULT_COMPLEX if is_complex else DEFAULT_FLOAT)
    if is_complex and dt not in COMPLEX_FLOATING:
        # complex ends with a real dtype: the standard leaves it open; numpy drops the
        # imaginary parts (torch's linspace refuses), so the real parts are the ends
        start, stop = complex(start).real, complex(stop).real
    elif not isinstance(start, complex) and not isinstance(stop, complex):
        start, stop = float(start), float(stop)  # ints past int64 are still real numbers
    if endpoint:
        return wrap(_fi.linspace(start, stop, num, dtype=dt))
    # without the endpoint: num of the num + 1 points, so the step is (stop - start) / num
    return wrap(_fi.linspace(start, stop, num + 1, dtype=dt)[:num])


def meshgrid(*arrays: Array, indexing: str = "xy") -> list[Array]:
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing must be 'xy' or 'ij'")
    arrs = [unwrap(a) for a in arrays]
    if not arrs:
        return []  # torch's meshgrid wants at least one array
    if len({a.dtype for a in arrs}) > 1:
        raise TypeError("meshgrid: all arrays must have the same dtype")
    # torch's grids are broadcast views; contiguous copies are safe to write in place
    return [wrap(g.contiguous()) for g in _fi.meshgrid(*arrs, indexing=indexing)]


def _diagonal_in_range(k: int, rows: int, cols: int) -> int:
    """``k`` clamped to ``[-rows, cols]``, which keeps every diagonal's meaning: the native
    tril/triu overflow on offsets near the int64 limits, and Python ints may pass them."""
    return max(-rows, min(k, cols))


def tril(x: Array, /, *, k: int = 0) -> Array:
    a = unwrap(x)
    return wrap(_fi.tril(a, _diagonal_in_range(k, *a.shape[-2:]) if a.ndim >= 2 else k))


def triu(x: Array, /, *, k: int = 0) -> Array:
    a = unwrap(x)
    return wrap(_fi.triu(a, _diagonal_in_range(k, *a.shape[-2:]) if a.ndim >= 2 else k))


def from_dlpack(x: object, /, *, device: object = None, copy: builtins.bool | None = None) -> Array:
    check_device(device)
    a = _fi.from_dlpack(x)
    return wrap(a.clone() if copy else a)
