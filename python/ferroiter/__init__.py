"""ferroiter: PyTorch's CPU TensorIterator rebuilt as a compiled Rust core.

Arrays carry explicit memory formats and follow torch's layout rules exactly: contiguity
predicates (including the ambiguous NC11/N1HW cases), broadcasting, type promotion and the
strides of new arrays. Sizes and strides are in elements unless a name says bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as _np

from . import _config, _ferroiter
from ._ferroiter import *  # noqa: F403  (every public name of the extension; its op table included)
from ._ferroiter import Array, empty, from_dlpack, from_numpy
from ._kernels import LOOP2D as LOOP2D
from ._kernels import kernel as kernel
from ._kernels import loop_kernel as loop_kernel
from ._kernels import register as register
from ._kernels import user_ops as user_ops

#: The package's version: the Rust crate's (Cargo.toml), compiled into the extension.
__version__: str = _ferroiter.__version__

if TYPE_CHECKING:
    from ._ferroiter import _DTypeArg

#: The public API: everything the extension exports (generated from its op table and
#: registrations), plus what this file defines.
__all__ = sorted(
    {name for name in dir(_ferroiter) if not name.startswith("_")}
    | {"asarray", "show_config", "LOOP2D", "kernel", "loop_kernel", "register", "user_ops"}
)

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
        dl = from_dlpack(obj)
        if dtype is None or _dtype_name(dtype) == str(dl.dtype):
            return dl
        nd = _np.asarray(dl.numpy())
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


def show_config() -> None:
    """Prints the version, the build, the SIMD level found at run time, the thread count and
    where it came from, and the cache of freed large buffers (``FERROITER_CACHE``)."""
    _config.show_config()
