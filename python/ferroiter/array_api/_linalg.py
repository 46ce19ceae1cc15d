"""The main namespace's linear-algebra functions: matmul, tensordot, vecdot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import ferroiter as _fi

from ._dtypes import FLOATING, int64
from ._dtypes import bool as bool_dtype
from ._elementwise import operands
from ._helpers import cast, wrap
from ._manipulation import matrix_transpose

if TYPE_CHECKING:
    from ._array_object import Array


def _any_product(out: _fi.Array) -> _fi.Array:
    """A bool product from its int64 count of true terms: torch's matmul has no bool kernel, and
    a sum of ANDs is non-zero exactly when their OR is true."""
    return _fi.ne(out, 0)


def matmul(x1: Array, x2: Array, /) -> Array:
    a, b, dt = operands(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul does not take 0-d arrays")
    if dt == bool_dtype:
        return wrap(_any_product(_fi.matmul(cast(a, int64), cast(b, int64))))
    return wrap(_fi.matmul(a, b))


def tensordot(
    x1: Array, x2: Array, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2
) -> Array:
    a, b, dt = operands(x1, x2)
    if dt == bool_dtype:
        return wrap(_any_product(_fi.tensordot(cast(a, int64), cast(b, int64), axes)))
    return wrap(_fi.tensordot(a, b, axes))


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    a, b, dt = operands(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("vecdot does not take 0-d arrays")
    if a.shape[axis] != b.shape[axis]:
        raise ValueError("vecdot: the contracted axes differ in size")
    if dt not in FLOATING:
        # torch's linalg.vecdot takes only floating and complex arrays: for integers (no
        # conjugate) it is the sum of the products, wrapped back to dt (modular, like numpy)
        prod = _fi.mul(a, b)
        return wrap(cast(_fi.sum(prod, [axis % prod.ndim]), dt))
    return wrap(_fi.vecdot(a, b, dim=axis))


__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]
