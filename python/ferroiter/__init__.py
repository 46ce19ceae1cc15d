"""ferroiter: PyTorch's CPU TensorIterator rebuilt as a compiled Rust core.

Arrays carry explicit memory formats and follow torch's layout rules exactly: contiguity
predicates (including the ambiguous NC11/N1HW cases), broadcasting, type promotion and the
strides of new arrays. Sizes and strides are in elements unless a name says bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as _np

from . import _ferroiter  # noqa: F401  (the extension module, as ferroiter._ferroiter)
from ._ferroiter import (
    Array,
    MemoryFormat,
    TensorIterator,
    TensorIteratorConfig,
    abs,
    add,
    arange,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    broadcast_shapes,
    broadcast_tensors,
    broadcast_to,
    can_cast,
    ceil,
    channels_last,
    channels_last_3d,
    clamp,
    contiguous_format,
    cos,
    div,
    empty,
    empty_like,
    empty_strided,
    eq,
    exp,
    floor,
    floor_divide,
    from_numpy,
    full,
    full_like,
    ge,
    get_grain_size,
    get_num_threads,
    gt,
    le,
    log,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    maximum,
    minimum,
    mul,
    ne,
    neg,
    ones,
    ones_like,
    pow,
    preserve_format,
    promote_types,
    remainder,
    result_type,
    round,
    set_grain_size,
    set_num_threads,
    sigmoid,
    sign,
    sin,
    sqrt,
    sub,
    tanh,
    where,
    zeros,
    zeros_like,
)

if TYPE_CHECKING:
    from ._ferroiter import _DTypeArg

__all__ = [
    "add",
    "sub",
    "mul",
    "div",
    "floor_divide",
    "remainder",
    "pow",
    "maximum",
    "minimum",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "neg",
    "abs",
    "exp",
    "log",
    "sqrt",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "floor",
    "ceil",
    "round",
    "sign",
    "where",
    "clamp",
    "set_num_threads",
    "get_num_threads",
    "set_grain_size",
    "get_grain_size",
    "Array",
    "GRAIN_SIZE",
    "MemoryFormat",
    "TensorIterator",
    "TensorIteratorConfig",
    "arange",
    "asarray",
    "broadcast_shapes",
    "broadcast_tensors",
    "broadcast_to",
    "can_cast",
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "empty",
    "empty_like",
    "empty_strided",
    "from_dlpack",
    "from_numpy",
    "full",
    "full_like",
    "ones",
    "ones_like",
    "preserve_format",
    "promote_types",
    "result_type",
    "zeros",
    "zeros_like",
]

#: Elements below which torch (and ferroiter) run a loop on one thread.
GRAIN_SIZE: int = _ferroiter.GRAIN_SIZE

# Python numbers default like torch's: float -> float32, complex -> complex64.
_DEFAULT_FOR_NUMPY = {_np.dtype("float64"): "float32", _np.dtype("complex128"): "complex64"}


def _dtype_name(dtype: _DTypeArg) -> str:
    """A dtype argument as numpy's name (via a 0-element array, so every spelling works)."""
    return str(empty((0,), dtype=dtype).dtype)


def asarray(obj: object, dtype: _DTypeArg | None = None) -> Array:
    """An Array from an Array, a numpy array, a DLPack producer, nested lists or a scalar.

    Shares memory where it can (numpy arrays, DLPack producers, Arrays of the wanted dtype);
    nested lists and Python scalars take torch's default dtypes (float32 for floats, int64 for
    ints, complex64 for complex numbers).
    """
    if isinstance(obj, Array):
        if dtype is None or _dtype_name(dtype) == str(obj.dtype):
            return obj
        return from_numpy(_np.asarray(obj.numpy(), dtype=obj.dtype).astype(_dtype_name(dtype)))
    if isinstance(obj, _np.ndarray):
        nd = obj
    elif hasattr(obj, "__dlpack__") and not isinstance(obj, (list, tuple)):
        nd = _np.from_dlpack(obj)
    else:
        nd = _np.asarray(obj)
        if dtype is None and nd.dtype in _DEFAULT_FOR_NUMPY:
            nd = nd.astype(_DEFAULT_FOR_NUMPY[nd.dtype])
    if dtype is not None and str(nd.dtype) != _dtype_name(dtype):
        nd = nd.astype(_dtype_name(dtype))
    if not nd.flags.aligned:
        nd = nd.copy()
    if nd.size == 0 and nd is not obj:
        # a new empty array gets contiguous strides, as torch.tensor's (numpy reports zeros)
        return empty(nd.shape, dtype=nd.dtype)
    return from_numpy(nd)


def from_dlpack(obj: object) -> Array:
    """Zero-copy view of any DLPack producer (torch, numpy, jax) living on the CPU."""
    return from_numpy(_np.from_dlpack(obj))  # type: ignore[arg-type]  # numpy checks at run time
