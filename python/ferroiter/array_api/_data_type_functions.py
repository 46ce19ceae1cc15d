"""The standard's data type functions: astype, can_cast, finfo, iinfo, isdtype, result_type."""

from __future__ import annotations

import builtins
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

import numpy as np

from . import _dtypes
from ._dtypes import DType, as_dtype
from ._helpers import is_array, unwrap, wrap

if TYPE_CHECKING:
    from ._array_object import Array

_Scalar: TypeAlias = bool | int | float | complex


def astype(
    x: Array, dtype: object, /, *, copy: builtins.bool = True, device: object = None
) -> Array:
    if device is not None and device != "cpu":
        raise ValueError(f"unsupported device {device!r}")
    a = unwrap(x)
    dt = as_dtype(dtype)
    if dt == a.dtype:
        return wrap(a.clone() if copy else a)
    if a.dtype in _dtypes.COMPLEX_FLOATING and dt not in _dtypes.COMPLEX_FLOATING:
        raise TypeError("astype cannot cast a complex array to a real dtype")
    return wrap(a.to(dt))


def _dtype_of(x: object) -> DType:
    if is_array(x):
        return unwrap(x).dtype
    return as_dtype(x)


def can_cast(from_: object, to: object, /) -> builtins.bool:
    return _dtypes.can_cast(_dtype_of(from_), as_dtype(to))


def isdtype(dtype: object, kind: object) -> builtins.bool:
    return _dtypes.isdtype(as_dtype(dtype), kind)


def result_type(*arrays_and_dtypes: object) -> DType:
    """The standard's promotion of arrays, dtypes and (2024.12) Python scalars."""
    dtypes = [_dtype_of(x) for x in arrays_and_dtypes if not _is_scalar(x)]
    scalars = [x for x in arrays_and_dtypes if _is_scalar(x)]
    if not dtypes:
        raise ValueError("result_type needs at least one array or dtype")
    dt = dtypes[0]
    for other in dtypes[1:]:
        dt = _dtypes.promote(dt, other)
    for s in scalars:
        dt = _dtypes.scalar_result_dtype(dt, s)
    return dt


def _is_scalar(x: object) -> builtins.bool:
    return isinstance(x, (builtins.bool, int, float, complex))


@dataclass(frozen=True)
class finfo_object:
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: DType


@dataclass(frozen=True)
class iinfo_object:
    bits: int
    max: int
    min: int
    dtype: DType


def finfo(type: object, /) -> finfo_object:
    dt = _dtype_of(type)
    if dt not in _dtypes.FLOATING:
        raise ValueError(f"finfo needs a floating dtype, not {dt}")
    return _finfo(dt)


@functools.cache
def _finfo(dt: DType) -> finfo_object:
    """``finfo`` of one of the four floating dtypes, made once (a frozen value)."""
    info = np.finfo(dt)
    return finfo_object(
        bits=int(info.bits),
        eps=float(info.eps),
        max=float(info.max),
        min=float(info.min),
        smallest_normal=float(info.smallest_normal),
        dtype=np.dtype(info.dtype),
    )


def iinfo(type: object, /) -> iinfo_object:
    dt = _dtype_of(type)
    if dt not in _dtypes.INTEGRAL:
        raise ValueError(f"iinfo needs an integer dtype, not {dt}")
    info = np.iinfo(dt)
    return iinfo_object(bits=int(info.bits), max=int(info.max), min=int(info.min), dtype=dt)
