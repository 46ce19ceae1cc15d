"""Type stubs for ferroiter's compiled core (the PyO3 module built from src/py/).

Sizes and strides are in elements unless a name says bytes. A ``dtype`` argument takes
anything ``numpy.dtype()`` accepts (plus torch dtypes, by name); ``Array.dtype`` is a
``numpy.dtype``. Checked against the built module with ``python -m mypy.stubtest
ferroiter._ferroiter``.
"""

from collections.abc import Sequence
from types import EllipsisType
from typing import Any, ClassVar, Protocol, SupportsIndex, TypeAlias, final, overload

import numpy as np
from numpy.typing import DTypeLike, NDArray

__all__ = [
    "Array",
    "MemoryFormat",
    "contiguous_format",
    "channels_last",
    "channels_last_3d",
    "preserve_format",
    "from_numpy",
    "empty",
    "zeros",
    "ones",
    "full",
    "arange",
    "empty_strided",
    "empty_like",
    "zeros_like",
    "ones_like",
    "full_like",
    "broadcast_shapes",
    "broadcast_to",
    "broadcast_tensors",
    "result_type",
    "promote_types",
    "can_cast",
]

class _TorchDType(Protocol):
    """Structurally, a ``torch.dtype`` (accepted by its printed name, ``torch.float32``)."""

    @property
    def is_floating_point(self) -> bool: ...
    @property
    def is_complex(self) -> bool: ...
    @property
    def itemsize(self) -> int: ...

# A dtype argument: anything numpy.dtype() accepts, or a torch dtype.
_DTypeArg: TypeAlias = DTypeLike | _TorchDType
# A Python number (or a numpy scalar / number-like with __index__ or __float__).
_Scalar: TypeAlias = bool | int | float | complex | np.generic
# A shape: one size or a sequence of sizes.
_Shape: TypeAlias = SupportsIndex | Sequence[SupportsIndex]
# One entry of a __getitem__ key.
_IndexItem: TypeAlias = SupportsIndex | slice | EllipsisType | None
# What result_type accepts: arrays by their rank, numbers as torch's wrapped scalars.
_Operand: TypeAlias = Array | np.ndarray[Any, Any] | _Scalar
# A dtype as returned: numpy's, or the name "complex32" (which numpy lacks).
_DTypeOut: TypeAlias = np.dtype[Any] | str

@final
class MemoryFormat:
    """How a 4-D/5-D array orders its dims in memory (torch's ``torch.memory_format``)."""

    contiguous_format: ClassVar[MemoryFormat]
    channels_last: ClassVar[MemoryFormat]
    channels_last_3d: ClassVar[MemoryFormat]
    preserve_format: ClassVar[MemoryFormat]

    def __eq__(self, value: object, /) -> bool:
        """Whether both are the same format."""
    def __ne__(self, value: object, /) -> bool:
        """Whether the formats differ."""
    def __hash__(self) -> int:
        """A hash consistent with ``==``."""
    def __int__(self) -> int:
        """The member's position: 0 contiguous, 1 channels_last, 2 channels_last_3d, 3 preserve."""

contiguous_format: MemoryFormat
channels_last: MemoryFormat
channels_last_3d: MemoryFormat
preserve_format: MemoryFormat

@final
class Array:
    """A strided array with torch's layout semantics (sizes and strides in elements)."""

    @property
    def shape(self) -> tuple[int, ...]:
        """The sizes of the dims."""
    @property
    def ndim(self) -> int:
        """The number of dims."""
    @property
    def dtype(self) -> np.dtype[Any]:
        """The element type, as a numpy dtype (bfloat16 needs ml_dtypes)."""
    @property
    def itemsize(self) -> int:
        """Bytes per element."""
    @property
    def strides(self) -> tuple[int, ...]:
        """Byte strides, like numpy's ``ndarray.strides``."""
    @property
    def is_readonly(self) -> bool:
        """Whether writing into the array is refused (e.g. a view of a read-only ndarray)."""
    @property
    def memory_format(self) -> MemoryFormat:
        """The same as ``suggest_memory_format()``."""
    @property
    def T(self) -> Array:
        """All dims reversed (numpy's meaning)."""
    def numel(self) -> int:
        """The number of elements."""
    def __len__(self) -> int:
        """The size of dim 0; a 0-d array raises TypeError."""
    @overload
    def stride(self, dim: None = None) -> tuple[int, ...]:
        """Element strides, like torch: all of them."""
    @overload
    def stride(self, dim: SupportsIndex) -> int:
        """Element stride of one dim (negative dims count from the end)."""
    def storage_offset(self) -> int:
        """Offset of element 0 from the start of the storage, in elements."""
    def data_ptr(self) -> int:
        """Address of element 0."""

    # ---- predicates ----
    def is_contiguous(self, memory_format: MemoryFormat = contiguous_format) -> bool:
        """torch's ``is_contiguous(memory_format=contiguous_format)``; preserve_format raises."""
    def is_non_overlapping_and_dense(self) -> bool:
        """Whether every element of a dense block is addressed exactly once."""
    def suggest_memory_format(self, exact_match: bool = False) -> MemoryFormat:
        """The format the strides look like (torch's heuristic, with the N111 rule)."""

    # ---- views ----
    @overload
    def permute(self, dims: Sequence[SupportsIndex], /) -> Array:
        """A view with dim ``i`` being dim ``dims[i]`` of this array."""
    @overload
    def permute(self, *dims: SupportsIndex) -> Array:
        """A view with dim ``i`` being dim ``dims[i]`` of this array."""
    def transpose(self, dim0: SupportsIndex, dim1: SupportsIndex) -> Array:
        """A view with two dims swapped."""
    @overload
    def expand(self, sizes: Sequence[SupportsIndex], /) -> Array:
        """A broadcast view with stride-0 dims (``-1`` keeps a size)."""
    @overload
    def expand(self, *sizes: SupportsIndex) -> Array:
        """A broadcast view with stride-0 dims (``-1`` keeps a size)."""
    def as_strided(
        self,
        size: Sequence[SupportsIndex],
        stride: Sequence[SupportsIndex],
        storage_offset: SupportsIndex | None = None,
    ) -> Array:
        """Any non-negative layout over the same storage, bounds-checked."""
    def unsqueeze(self, dim: SupportsIndex) -> Array:
        """A view with a new size-1 dim at ``dim``."""
    def squeeze(self, dim: SupportsIndex | Sequence[SupportsIndex] | None = None) -> Array:
        """A view without the given size-1 dims (all of them when ``dim`` is None)."""
    @overload
    def view(self, shape: Sequence[SupportsIndex], /) -> Array:
        """The same memory under a new shape (one ``-1`` inferred); ValueError if impossible."""
    @overload
    def view(self, *shape: SupportsIndex) -> Array:
        """The same memory under a new shape (one ``-1`` inferred); ValueError if impossible."""
    def broadcast_to(self, shape: Sequence[SupportsIndex]) -> Array:
        """``expand`` with numpy's name: a broadcast view of the given shape."""
    def __getitem__(self, key: _IndexItem | tuple[_IndexItem, ...], /) -> Array:
        """A view from ints, slices (any step, negative included), None and ``...``."""

    # ---- interop ----
    def numpy(self) -> NDArray[Any]:
        """A zero-copy numpy view sharing this array's memory."""
    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> NDArray[Any]:
        """numpy's array protocol: a zero-copy view unless a cast or a copy is asked for."""
    def __dlpack__(self, **kwargs: Any) -> Any:
        """A DLPack capsule of this array (the keywords of the DLPack protocol)."""
    def __dlpack_device__(self) -> tuple[int, int]:
        """``(1, 0)``: the CPU."""
    def tolist(self) -> Any:
        """The elements as nested lists of Python numbers (a bare number for a 0-d array)."""
    def item(self) -> bool | int | float | complex:
        """The only element of a one-element array, as a Python number."""

def from_numpy(ndarray: np.ndarray[Any, Any]) -> Array:
    """A zero-copy view of any numpy array (strides must be whole elements)."""

def empty(
    shape: _Shape, dtype: _DTypeArg | None = None, memory_format: MemoryFormat = contiguous_format
) -> Array:
    """A new array with the format's strides (float32, contiguous_format by default)."""

def zeros(
    shape: _Shape, dtype: _DTypeArg | None = None, memory_format: MemoryFormat = contiguous_format
) -> Array:
    """A new array of zeros with the format's strides."""

def ones(
    shape: _Shape, dtype: _DTypeArg | None = None, memory_format: MemoryFormat = contiguous_format
) -> Array:
    """A new array of ones with the format's strides."""

def full(
    shape: _Shape,
    fill_value: _Scalar,
    dtype: _DTypeArg | None = None,
    memory_format: MemoryFormat = contiguous_format,
) -> Array:
    """A new array filled with a value; the dtype defaults to the value's (torch's defaults)."""

def arange(
    start: _Scalar,
    stop: _Scalar | None = None,
    step: _Scalar | None = None,
    dtype: _DTypeArg | None = None,
) -> Array:
    """``start, start+step, …`` below ``stop`` (int64 if every bound is an int, else float32)."""

def empty_strided(
    shape: _Shape, stride: Sequence[SupportsIndex], dtype: _DTypeArg | None = None
) -> Array:
    """A new array with exactly these (non-negative) element strides."""

def empty_like(
    a: Array, dtype: _DTypeArg | None = None, memory_format: MemoryFormat = preserve_format
) -> Array:
    """A new array shaped like ``a``; preserve_format (the default) follows torch's rule."""

def zeros_like(
    a: Array, dtype: _DTypeArg | None = None, memory_format: MemoryFormat = preserve_format
) -> Array:
    """``empty_like`` filled with zeros."""

def ones_like(
    a: Array, dtype: _DTypeArg | None = None, memory_format: MemoryFormat = preserve_format
) -> Array:
    """``empty_like`` filled with ones."""

def full_like(
    a: Array,
    fill_value: _Scalar,
    dtype: _DTypeArg | None = None,
    memory_format: MemoryFormat = preserve_format,
) -> Array:
    """``empty_like`` filled with a value."""

def broadcast_shapes(*shapes: _Shape) -> tuple[int, ...]:
    """The shape the given shapes broadcast to (ValueError with torch's text if they do not)."""

def broadcast_to(a: Array, shape: _Shape) -> Array:
    """A broadcast view of ``a`` with the given shape."""

def broadcast_tensors(*arrays: Array) -> list[Array]:
    """Broadcast views of every array to their common shape."""

def result_type(*operands: _Operand) -> _DTypeOut:
    """torch's result type: dim arrays, then 0-d arrays, then Python scalars, by category."""

def promote_types(type1: _DTypeArg, type2: _DTypeArg) -> _DTypeOut:
    """torch's promotion table (``complex32`` is returned by name: numpy lacks it)."""

def can_cast(from_: _DTypeArg, to: _DTypeArg) -> bool:
    """torch's ``can_cast``: no complex→real, float→integral or non-bool→bool."""
