"""The main namespace's linear-algebra functions: matmul, tensordot, vecdot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

import ferroiter as _fi

from ._dtypes import FLOATING
from ._dtypes import bool as bool_dtype
from ._elementwise import operands
from ._helpers import from_np, np_view, wrap
from ._manipulation import matrix_transpose

if TYPE_CHECKING:
    from ._array_object import Array


def matmul(x1: Array, x2: Array, /) -> Array:
    a, b, dt = operands(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul does not take 0-d arrays")
    if dt == bool_dtype:
        # torch's matmul has no bool kernel; the standard leaves bool open, numpy gives one
        return wrap(from_np(np.matmul(np_view(a), np_view(b))))  # TEMP until bool matmul
    return wrap(_fi.matmul(a, b))


def tensordot(
    x1: Array, x2: Array, /, *, axes: int | tuple[Sequence[int], Sequence[int]] = 2
) -> Array:
    a, b, dt = operands(x1, x2)
    if dt == bool_dtype:
        # no bool kernel in torch's tensordot either (see matmul)
        out = np.tensordot(np_view(a), np_view(b), axes=axes)  # TEMP until bool matmul
        return wrap(from_np(out))
    return wrap(_fi.tensordot(a, b, axes))


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    a, b, dt = operands(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("vecdot does not take 0-d arrays")
    if a.shape[axis] != b.shape[axis]:
        raise ValueError("vecdot: the contracted axes differ in size")
    if dt not in FLOATING:
        # torch's linalg.vecdot takes only floating and complex arrays; the standard asks for
        # every numeric dtype, so integers stay on numpy
        vecdot_np: Any = np.vecdot
        out = vecdot_np(np_view(a), np_view(b), axis=axis)  # TEMP until integer vecdot
        return wrap(from_np(out))
    return wrap(_fi.vecdot(a, b, dim=axis))


__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]
