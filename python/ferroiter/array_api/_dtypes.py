"""The standard's dtypes (numpy dtype objects) and its type-promotion lattice, in one place.

Every binary function and operator of the namespace asks :func:`binary_result_dtype` for its
result dtype, casts its operands with ferroiter's ``.to()`` and then calls the ferroiter op,
so torch's own rules (0-d arrays promoting like scalars) never apply here.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

DType = np.dtype[Any]

bool = np.dtype("bool")
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
uint16 = np.dtype("uint16")
uint32 = np.dtype("uint32")
uint64 = np.dtype("uint64")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")

SIGNED = (int8, int16, int32, int64)
# torch refuses to promote uint16/uint32/uint64 with other integers; the namespace casts both
# operands to the standard's common dtype first, so the core only ever sees one dtype.
UNSIGNED = (uint8, uint16, uint32, uint64)
INTEGRAL = SIGNED + UNSIGNED
REAL_FLOATING = (float32, float64)
COMPLEX_FLOATING = (complex64, complex128)
FLOATING = REAL_FLOATING + COMPLEX_FLOATING
NUMERIC = INTEGRAL + FLOATING
ALL = (bool,) + NUMERIC

#: The namespace's defaults (``__array_namespace_info__().default_dtypes()``).
DEFAULT_FLOAT = float64
DEFAULT_COMPLEX = complex128
DEFAULT_INT = int64
DEFAULT_INDEX = int64
#: What sums and products of unsigned integers give: the unsigned type of the default
#: integer's width.
DEFAULT_UINT = uint64

_KIND_NAMES = {
    "bool": (bool,),
    "signed integer": SIGNED,
    "unsigned integer": UNSIGNED,
    "integral": INTEGRAL,
    "real floating": REAL_FLOATING,
    "complex floating": COMPLEX_FLOATING,
    "numeric": NUMERIC,
}


def as_dtype(dtype: object) -> DType:
    """A dtype argument as one of the standard's dtype objects (TypeError for any other)."""
    try:
        dt: DType = np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError as exc:
        raise TypeError(f"{dtype!r} is not a dtype of the array API namespace") from exc
    if dt not in ALL:
        raise TypeError(f"{dt} is not a dtype of the array API namespace")
    return dt


def _mixed_integers(signed: DType, unsigned: DType) -> DType:
    """A signed and an unsigned integer: the smallest signed type holding both ranges."""
    for candidate in SIGNED:
        if candidate.itemsize >= signed.itemsize and candidate.itemsize > unsigned.itemsize:
            return candidate
    raise TypeError(f"{signed} and {unsigned} have no common dtype in the array API standard")


def promote(a: DType, b: DType) -> DType:
    """The standard's promotion of two array dtypes (TypeError across kinds it leaves open)."""
    if a == b:
        return a
    if a == bool or b == bool:
        raise TypeError(f"{a} and {b} cannot be promoted together (bool mixes only with bool)")
    if a in INTEGRAL and b in INTEGRAL:
        if (a in SIGNED) == (b in SIGNED):
            return a if a.itemsize >= b.itemsize else b
        return _mixed_integers(a, b) if a in SIGNED else _mixed_integers(b, a)
    if a in FLOATING and b in FLOATING:
        return np.result_type(a, b)
    raise TypeError(f"{a} and {b} cannot be promoted together (integer and floating arrays)")


def scalar_result_dtype(dtype: DType, scalar: object) -> DType:
    """The dtype of an array op with a Python scalar: the array's, where the scalar's kind fits."""
    if isinstance(scalar, builtins.bool):
        if dtype == bool or dtype in NUMERIC:
            return dtype
    elif isinstance(scalar, int):
        if dtype in NUMERIC:
            return dtype
    elif isinstance(scalar, float):
        if dtype in FLOATING:
            return dtype
    elif isinstance(scalar, complex):
        if dtype in COMPLEX_FLOATING:
            return dtype
        if dtype in REAL_FLOATING:
            return complex64 if dtype == float32 else complex128
    else:
        raise TypeError(f"unsupported operand type {type(scalar).__name__}")
    raise TypeError(f"a Python {type(scalar).__name__} cannot combine with a {dtype} array")


def fill_value(value: object, dtype: DType) -> object:
    """A Python scalar as ferroiter's ``full`` takes it for ``dtype``: a uint64 value from 2^63
    up as the int64 of the same bits (the core reads Python ints as int64)."""
    if dtype == uint64 and type(value) is int and value > 2**63 - 1:
        return value - 2**64
    return value


def isdtype(dtype: DType, kind: object) -> builtins.bool:
    """The standard's ``isdtype``: a dtype object, a kind name, or a tuple of them."""
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KIND_NAMES:
            raise ValueError(f"unknown dtype kind {kind!r}")
        return dtype in _KIND_NAMES[kind]
    if isinstance(kind, np.dtype):
        return builtins.bool(dtype == kind)
    raise TypeError(f"kind must be a dtype, a kind name or a tuple of them, not {kind!r}")


def can_cast(from_: DType, to: DType) -> builtins.bool:
    """Whether the standard's promotion of ``from_`` and ``to`` is ``to`` (a safe cast)."""
    if from_ == to:
        return True
    try:
        return promote(from_, to) == to
    except TypeError:
        # across kinds the standard leaves it open: numpy's safe casts (bool -> float64, ...)
        return builtins.bool(np.can_cast(from_, to, "safe"))
