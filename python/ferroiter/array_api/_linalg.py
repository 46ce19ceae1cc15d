"""The main namespace's linear-algebra functions: matmul, tensordot, vecdot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._elementwise import operands
from ._helpers import from_np, np_view, wrap
from ._manipulation import matrix_transpose

if TYPE_CHECKING:
    from ._array_object import Array


def matmul(x1: Array, x2: Array, /) -> Array:
    a, b, _ = operands(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul does not take 0-d arrays")
    return wrap(from_np(np.matmul(np_view(a), np_view(b))))  # TEMP until structops


def tensordot(
    x1: Array, x2: Array, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2
) -> Array:
    a, b, _ = operands(x1, x2)
    out = np.tensordot(np_view(a), np_view(b), axes=axes)  # TEMP until structops
    return wrap(from_np(out))


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    a, b, _ = operands(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("vecdot does not take 0-d arrays")
    if a.shape[axis] != b.shape[axis]:
        raise ValueError("vecdot: the contracted axes differ in size")
    vecdot_np: Any = np.vecdot
    out = vecdot_np(np_view(a), np_view(b), axis=axis)  # TEMP until structops
    return wrap(from_np(out))


__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]
