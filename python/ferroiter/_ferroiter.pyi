"""Type stubs for ferroiter's compiled core (the PyO3 module built from src/py/).

Sizes and strides are in elements unless a name says bytes. A ``dtype`` argument takes
anything ``numpy.dtype()`` accepts (plus torch dtypes, by name); ``Array.dtype`` is a
``numpy.dtype``. Checked against the built module by ``scripts/test.sh`` with
``python -m mypy.stubtest ferroiter._ferroiter --allowlist scripts/stubtest-allowlist.txt``.
"""

from collections.abc import Callable, Iterator, Sequence
from types import EllipsisType, ModuleType
from typing import (
    Any,
    ClassVar,
    Final,
    Literal,
    Protocol,
    Self,
    SupportsIndex,
    TypeAlias,
    final,
    overload,
)

import numpy as np
from numpy.typing import DTypeLike, NDArray

class _TorchDType(Protocol):
    """Structurally, a ``torch.dtype`` (accepted by its printed name, ``torch.float32``)."""

    @property
    def is_floating_point(self) -> bool: ...
    @property
    def is_complex(self) -> bool: ...
    @property
    def itemsize(self) -> int: ...

# builtins under other names, for the Array methods named bool(), int() and float()
_bool: TypeAlias = bool
_int: TypeAlias = int
_float: TypeAlias = float
# A dtype argument: anything numpy.dtype() accepts, or a torch dtype.
_DTypeArg: TypeAlias = DTypeLike | _TorchDType
# A Python number (or a numpy scalar / number-like with __index__ or __float__).
_Scalar: TypeAlias = bool | int | float | complex | np.generic
# A shape: one size or a sequence of sizes.
_Shape: TypeAlias = SupportsIndex | Sequence[SupportsIndex]
# One entry of a __getitem__ key.
_IndexItem: TypeAlias = SupportsIndex | slice | EllipsisType | None
# A __getitem__/__setitem__ key: basic entries, or index arrays, lists and masks among them.
_Key: TypeAlias = (
    _IndexItem
    | Array
    | np.ndarray[Any, Any]
    | list[Any]
    | tuple[_IndexItem | Array | np.ndarray[Any, Any] | list[Any], ...]
)
# An array operand: an Array, or a numpy array (viewed, not copied).
_ArrayIn: TypeAlias = Array | np.ndarray[Any, Any]
# Any operand of an elementwise op: arrays, or numbers as torch's wrapped scalars.
_Operand: TypeAlias = Array | np.ndarray[Any, Any] | _Scalar
# A dtype as returned: numpy's, or the name "complex32" (which numpy lacks).
_DTypeOut: TypeAlias = np.dtype[Any] | str
# TensorIterator.fast_setup's values.
_FastSetup: TypeAlias = Literal["contiguous", "channels_last", "non_overlapping_dense"]

#: Elements below which torch (and ferroiter) run a loop on one thread (32768).
GRAIN_SIZE: Final[int]

@final
class MemoryFormat:
    """How a 4-D/5-D array orders its dims in memory (torch's ``torch.memory_format``)."""

    contiguous_format: ClassVar[MemoryFormat]
    channels_last: ClassVar[MemoryFormat]
    channels_last_3d: ClassVar[MemoryFormat]
    preserve_format: ClassVar[MemoryFormat]
    nChw8c: ClassVar[MemoryFormat]
    nChw16c: ClassVar[MemoryFormat]
    nCdhw8c: ClassVar[MemoryFormat]
    nCdhw16c: ClassVar[MemoryFormat]

    def __eq__(self, value: object, /) -> bool:
        """Whether both are the same format."""
    def __ne__(self, value: object, /) -> bool:
        """Whether the formats differ."""
    def __hash__(self) -> int:
        """A hash consistent with ``==``."""
    def __int__(self) -> int:
        """The member's position: 0 contiguous, 1 channels_last, 2 channels_last_3d, 3 preserve,
        4-7 the blocked nChw8c, nChw16c, nCdhw8c, nCdhw16c."""

contiguous_format: MemoryFormat
channels_last: MemoryFormat
channels_last_3d: MemoryFormat
preserve_format: MemoryFormat
#: oneDNN's blocked formats: channels in blocks of 8 or 16, innermost, the last block padded
#: with zeros (4-D nChw8c/nChw16c, 5-D nCdhw8c/nCdhw16c).
nChw8c: MemoryFormat
nChw16c: MemoryFormat
nCdhw8c: MemoryFormat
nCdhw16c: MemoryFormat

@final
class Array:
    """A strided array with torch's layout semantics (sizes and strides in elements)."""

    @property
    def shape(self) -> tuple[_int, ...]:
        """The sizes of the dims."""
    @property
    def ndim(self) -> _int:
        """The number of dims."""
    @property
    def dtype(self) -> np.dtype[Any]:
        """The element type, as a numpy dtype (bfloat16 needs ml_dtypes)."""
    @property
    def itemsize(self) -> _int:
        """Bytes per element."""
    @property
    def strides(self) -> tuple[_int, ...]:
        """Byte strides, like numpy's ``ndarray.strides``."""
    @property
    def is_readonly(self) -> _bool:
        """Whether writing into the array is refused (e.g. a view of a read-only ndarray)."""
    @property
    def memory_format(self) -> MemoryFormat:
        """The same as ``suggest_memory_format()``."""
    @property
    def T(self) -> Array:
        """All dims reversed; warns as torch does on arrays that are not 1-D or 2-D."""
    @property
    def mT(self) -> Array:
        """The last two dims swapped (a batch of matrices transposed); needs 2 dims or more."""
    @property
    def nbytes(self) -> _int:
        """Bytes the elements take: ``numel() * itemsize``."""
    @property
    def device(self) -> str:
        """Always ``"cpu"``."""
    @overload
    def size(self, dim: None = None) -> tuple[_int, ...]:
        """torch's ``size()``: the shape."""
    @overload
    def size(self, dim: SupportsIndex) -> _int:
        """The size of one dim (negative dims count from the end)."""
    def dim(self) -> _int:
        """torch's ``dim()``: the number of dims."""
    def numel(self) -> _int:
        """The number of elements."""
    def __len__(self) -> _int:
        """The size of dim 0; a 0-d array raises TypeError."""
    @overload
    def stride(self, dim: None = None) -> tuple[_int, ...]:
        """Element strides, like torch: all of them."""
    @overload
    def stride(self, dim: SupportsIndex) -> _int:
        """Element stride of one dim (negative dims count from the end)."""
    def storage_offset(self) -> _int:
        """Offset of element 0 from the start of the storage, in elements."""
    def data_ptr(self) -> _int:
        """Address of element 0."""

    # ---- predicates ----
    def is_contiguous(self, memory_format: MemoryFormat = contiguous_format) -> _bool:
        """torch's ``is_contiguous(memory_format=contiguous_format)``; preserve_format raises."""
    def is_non_overlapping_and_dense(self) -> _bool:
        """Whether every element of a dense block is addressed exactly once."""
    def suggest_memory_format(self, exact_match: _bool = False) -> MemoryFormat:
        """The format the strides look like (torch's heuristic, with the N111 rule); a blocked
        array's own format (a strided array never gets a blocked one)."""
    def blocked_view(self) -> Array:
        """A blocked array's storage as a strided ``(N, ceil(C/b), (D,) H, W, b)`` view."""

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
    def __getitem__(self, key: _Key, /) -> Array:
        """A view from ints, slices (any step, negative included), None and ``...``; a
        gathered copy when the key holds integer index arrays, lists or boolean masks."""
    def __setitem__(self, key: _Key, value: _Operand | Sequence[Any], /) -> None:
        """Writes ``value`` (broadcast, converted) into the selection, through ``copy_``;
        index arrays and masks scatter."""
    def __iter__(self) -> Iterator[Array]:
        """The views along dim 0; a 0-d array raises TypeError."""
    def __format__(self, format_spec: str, /) -> str:
        """A 0-d array formats its value (``format(x, ".2f")``); others take only ``""``."""
    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling: the elements with dtype, shape and (dense) strides."""
    def __copy__(self) -> Array:
        """A copy in the same layout order (``clone()``)."""
    def __deepcopy__(self, memo: Any, /) -> Array:
        """A copy in the same layout order (``clone()``)."""
    def flatten(self, start_dim: SupportsIndex = 0, end_dim: SupportsIndex = -1) -> Array:
        """torch's ``flatten``: dims ``start_dim..=end_dim`` merged (a view when possible)."""
    def ravel(self) -> Array:
        """torch's ``ravel``: a 1-D view of a contiguous array, else a contiguous copy."""
    def astype(self, dtype: _DTypeArg, copy: _bool = True) -> Array:
        """numpy's ``astype``: a converted copy (``self`` if ``copy=False`` and same dtype)."""
    def float(self) -> Array:
        """``to(float32)``."""
    def double(self) -> Array:
        """``to(float64)``."""
    def half(self) -> Array:
        """``to(float16)``."""
    def bfloat16(self) -> Array:
        """``to(bfloat16)``."""
    def int(self) -> Array:
        """``to(int32)``."""
    def long(self) -> Array:
        """``to(int64)``."""
    def short(self) -> Array:
        """``to(int16)``."""
    def char(self) -> Array:
        """``to(int8)``."""
    def byte(self) -> Array:
        """``to(uint8)``."""
    def bool(self) -> Array:
        """``to(bool)``."""
    def cfloat(self) -> Array:
        """``to(complex64)``."""
    def cdouble(self) -> Array:
        """``to(complex128)``."""
    def copy(self, order: Literal["C", "K"] = "C") -> Array:
        """numpy's ``copy``: C-contiguous (``order="K"`` keeps the layout order)."""
    def cpu(self) -> Array:
        """``self``: ferroiter arrays live on the CPU."""

    # ---- interop ----
    def numpy(self) -> NDArray[Any]:
        """A zero-copy numpy view sharing this array's memory."""
    def __array__(self, dtype: DTypeLike | None = None, copy: _bool | None = None) -> NDArray[Any]:
        """numpy's array protocol: a zero-copy view unless a cast or a copy is asked for."""
    def __dlpack__(self, **kwargs: Any) -> Any:
        """A DLPack capsule (``stream``, ``max_version``, ``dl_device``, ``copy``): versioned
        when ``max_version >= (1, 0)``, flagged read-only for read-only arrays."""
    def __dlpack_device__(self) -> tuple[_int, _int]:
        """``(1, 0)``: the CPU."""
    def __array_namespace__(self, *, api_version: str | None = None) -> ModuleType:
        """The Array API namespace, ``ferroiter.array_api`` (ValueError for other versions)."""
    # (Python 3.12 shows the buffer slots as these methods; on 3.11 they exist only as slots)
    def __buffer__(self, flags: _int, /) -> memoryview:
        """The buffer protocol: any strides, read-only kept; no bfloat16."""
    def __release_buffer__(self, buffer: memoryview, /) -> None:
        """Ends a buffer view."""
    @property
    def __array_interface__(self) -> dict[str, Any]:
        """numpy's array interface, version 3 (no bfloat16: numpy then uses ``__array__``)."""
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, /, *inputs: Any, **kwargs: Any) -> Any:
        """numpy ufuncs: ferroiter's kernel where it has the op, numpy's result elsewhere."""
    def __array_function__(
        self, func: Any, types: Any, args: tuple[Any, ...], kwargs: dict[str, Any], /
    ) -> Any:
        """numpy functions: ferroiter's where it has them, numpy's on zero-copy views elsewhere."""
    def tolist(self) -> Any:
        """The elements as nested lists of Python numbers (a bare number for a 0-d array)."""
    def item(self) -> _bool | _int | _float | complex:
        """The only element of a one-element array, as a Python number."""

    # ---- reductions and scans (deterministic: the same bits at any thread count) ----
    def sum(
        self,
        dim: _int | Sequence[_int] | None = None,
        keepdim: _bool = False,
        *,
        dtype: _DTypeArg | None = None,
    ) -> Array:
        """Sum over ``dim`` (None: all); bool and integers give int64."""
    def prod(
        self, dim: _int | None = None, keepdim: _bool = False, *, dtype: _DTypeArg | None = None
    ) -> Array:
        """Product over ``dim`` (None: all); bool and integers give int64."""
    def mean(
        self,
        dim: _int | Sequence[_int] | None = None,
        keepdim: _bool = False,
        *,
        dtype: _DTypeArg | None = None,
    ) -> Array:
        """Mean (floating and complex dtypes only): ``sum / n``."""
    def amax(self, dim: _int | Sequence[_int] | None = None, keepdim: _bool = False) -> Array:
        """Largest element (NaN propagates)."""
    def amin(self, dim: _int | Sequence[_int] | None = None, keepdim: _bool = False) -> Array:
        """Smallest element (NaN propagates)."""
    def argmax(self, dim: _int | None = None, keepdim: _bool = False) -> Array:
        """Index of the first largest element (NaN counts as largest); dim None: flattened."""
    def argmin(self, dim: _int | None = None, keepdim: _bool = False) -> Array:
        """Index of the first smallest element (NaN counts as smallest)."""
    def all(self, dim: _int | Sequence[_int] | None = None, keepdim: _bool = False) -> Array:
        """Whether every element is non-zero (uint8 for uint8 input, else bool)."""
    def any(self, dim: _int | Sequence[_int] | None = None, keepdim: _bool = False) -> Array:
        """Whether some element is non-zero (uint8 for uint8 input, else bool)."""
    def count_nonzero(self, dim: _int | Sequence[_int] | None = None) -> Array:
        """Number of non-zero elements (int64)."""
    def var(
        self,
        dim: _int | Sequence[_int] | None = None,
        unbiased: _bool | None = None,
        keepdim: _bool = False,
        *,
        correction: _float | None = None,
    ) -> Array:
        """Variance with ``correction`` (default 1); complex inputs give real results."""
    def std(
        self,
        dim: _int | Sequence[_int] | None = None,
        unbiased: _bool | None = None,
        keepdim: _bool = False,
        *,
        correction: _float | None = None,
    ) -> Array:
        """Standard deviation with ``correction`` (default 1)."""
    def cumsum(self, dim: _int, *, dtype: _DTypeArg | None = None) -> Array:
        """Running sum along ``dim`` (float32 accumulates in float64; integers give int64)."""
    def cumprod(self, dim: _int, *, dtype: _DTypeArg | None = None) -> Array:
        """Running product along ``dim``."""

    def matmul(self, other: _ArrayIn) -> Array:
        """``self @ other`` (torch's matmul)."""

    # ---- sorting, searching, sets ----
    def sort(
        self, dim: _int = -1, descending: _bool = False, *, stable: _bool = False
    ) -> SortResult:
        """``(values, indices)`` sorted along ``dim`` (NaN last ascending, ties in order)."""
    def argsort(self, dim: _int = -1, descending: _bool = False, *, stable: _bool = False) -> Array:
        """The int64 indices that sort ``self`` along ``dim``."""
    def nonzero(self, *, as_tuple: _bool = False) -> Array | tuple[Array, ...]:
        """Indices of the non-zero elements: ``(n, ndim)`` int64, or one array per dim."""
    def unique(
        self,
        sorted: _bool = True,
        return_inverse: _bool = False,
        return_counts: _bool = False,
        dim: _int | None = None,
    ) -> Array | tuple[Array, ...]:
        """The distinct values (or slices along ``dim``), ascending; NaN each its own."""

    # ---- copies ----
    def contiguous(self, memory_format: MemoryFormat = contiguous_format) -> Array:
        """``self`` when already contiguous in ``memory_format``, else a copy laid out so."""
    def clone(self, memory_format: MemoryFormat = preserve_format) -> Array:
        """A copy (preserve_format keeps dense strides, densifies others in the same order)."""
    def to(
        self,
        *args: _DTypeArg | str | Array,
        dtype: _DTypeArg | None = None,
        memory_format: MemoryFormat = preserve_format,
        copy: _bool = False,
        device: Any = None,
        non_blocking: _bool = False,
    ) -> Array:
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)``: ``self`` when
        nothing changes (unless ``copy``), else a converted copy. Only ``"cpu"`` is a device."""
    def copy_(self, src: _Operand) -> Array:
        """Writes ``src`` (broadcast, converted to this dtype) into ``self``; returns ``self``."""
    @overload
    def reshape(self, shape: Sequence[SupportsIndex], /) -> Array:
        """A view when the strides allow (one ``-1`` inferred), else a contiguous copy."""
    @overload
    def reshape(self, *shape: SupportsIndex) -> Array:
        """A view when the strides allow (one ``-1`` inferred), else a contiguous copy."""

    # ---- structural methods (src/py/manipulation.rs) ----

    @overload
    def flip(self, dims: Sequence[SupportsIndex], /) -> Array:
        """A copy with the given dims reversed (preserve_format strides)."""
    @overload
    def flip(self, *dims: SupportsIndex) -> Array:
        """A copy with the given dims reversed (preserve_format strides)."""
    def roll(
        self, shifts: _int | Sequence[_int], dims: _int | Sequence[_int] | None = None
    ) -> Array:
        """A contiguous copy rotated by ``shifts`` along ``dims`` (none: as if flattened)."""
    @overload
    def repeat(self, sizes: Sequence[SupportsIndex], /) -> Array:
        """A contiguous copy tiled ``sizes[d]`` times along each dim (leading ones add dims)."""
    @overload
    def repeat(self, *sizes: SupportsIndex) -> Array:
        """A contiguous copy tiled ``sizes[d]`` times along each dim (leading ones add dims)."""
    @overload
    def tile(self, dims: Sequence[SupportsIndex], /) -> Array:
        """``repeat`` with ``dims`` padded by leading ones to this array's rank."""
    @overload
    def tile(self, *dims: SupportsIndex) -> Array:
        """``repeat`` with ``dims`` padded by leading ones to this array's rank."""
    def repeat_interleave(self, repeats: _int | Array, dim: _int | None = None) -> Array:
        """Each slice along ``dim`` repeated (no dim: flattened first)."""
    def unbind(self, dim: _int = 0) -> list[Array]:
        """The views along ``dim``, one per index."""
    def movedim(self, source: _int | Sequence[_int], destination: _int | Sequence[_int]) -> Array:
        """A view with the ``source`` dims moved to ``destination``."""
    def index_select(self, dim: _int, index: _ArrayIn) -> Array:
        """The slices at ``index`` (int32/int64, 0-d or 1-D) along ``dim``, contiguous."""
    def take(self, index: _ArrayIn) -> Array:
        """Elements at the (int64) flat positions ``index``, shaped like ``index``."""
    def take_along_dim(self, indices: _ArrayIn, dim: _int | None = None) -> Array:
        """``indices`` picks one element per position along ``dim`` (broadcasting the rest)."""
    def diff(
        self,
        n: _int = 1,
        dim: _int = -1,
        prepend: _ArrayIn | None = None,
        append: _ArrayIn | None = None,
    ) -> Array:
        """The ``n``-th forward difference along ``dim``."""
    def tril(self, diagonal: _int = 0) -> Array:
        """A contiguous copy with the elements above the diagonal zeroed."""
    def triu(self, diagonal: _int = 0) -> Array:
        """A contiguous copy with the elements below the diagonal zeroed."""

    # ---- operators: Python numbers take part as torch's wrapped numbers ----

    def __add__(self, other: _Operand, /) -> Array: ...
    def __radd__(self, other: _Operand, /) -> Array: ...
    def __iadd__(self, other: _Operand, /) -> Array: ...
    def __sub__(self, other: _Operand, /) -> Array: ...
    def __rsub__(self, other: _Operand, /) -> Array: ...
    def __isub__(self, other: _Operand, /) -> Array: ...
    def __mul__(self, other: _Operand, /) -> Array: ...
    def __rmul__(self, other: _Operand, /) -> Array: ...
    def __imul__(self, other: _Operand, /) -> Array: ...
    def __truediv__(self, other: _Operand, /) -> Array: ...
    def __rtruediv__(self, other: _Operand, /) -> Array:
        """``number / a`` is torch's ``a.reciprocal() * number``."""
    def __itruediv__(self, other: _Operand, /) -> Array: ...
    def __floordiv__(self, other: _Operand, /) -> Array: ...
    def __rfloordiv__(self, other: _Operand, /) -> Array: ...
    def __ifloordiv__(self, other: _Operand, /) -> Array: ...
    def __mod__(self, other: _Operand, /) -> Array: ...
    def __rmod__(self, other: _Operand, /) -> Array: ...
    def __imod__(self, other: _Operand, /) -> Array: ...
    def __matmul__(self, other: _ArrayIn, /) -> Array: ...
    def __rmatmul__(self, other: _ArrayIn, /) -> Array: ...
    def __pow__(self, other: _Operand, modulo: None = None, /) -> Array:
        """``a ** b``; a three-argument ``pow`` raises TypeError."""
    def __rpow__(self, other: _Operand, modulo: None = None, /) -> Array: ...
    # `a **= b` takes no modulus (the slot is binary), which mypy flags against __pow__
    def __ipow__(self, other: _Operand, /) -> Array: ...  # type: ignore[misc]
    def __and__(self, other: _Operand, /) -> Array: ...
    def __rand__(self, other: _Operand, /) -> Array: ...
    def __iand__(self, other: _Operand, /) -> Array: ...
    def __or__(self, other: _Operand, /) -> Array: ...
    def __ror__(self, other: _Operand, /) -> Array: ...
    def __ior__(self, other: _Operand, /) -> Array: ...
    def __xor__(self, other: _Operand, /) -> Array: ...
    def __rxor__(self, other: _Operand, /) -> Array: ...
    def __ixor__(self, other: _Operand, /) -> Array: ...
    def __eq__(self, other: _Operand, /) -> Array:  # type: ignore[override]
        """Elementwise ``==`` (a bool Array, not a bool)."""
    def __ne__(self, other: _Operand, /) -> Array:  # type: ignore[override]
        """Elementwise ``!=`` (a bool Array, not a bool)."""
    #: Unhashable: ``==`` is elementwise.
    __hash__: ClassVar[None]  # type: ignore[assignment]
    def __lt__(self, other: _Operand, /) -> Array: ...
    def __le__(self, other: _Operand, /) -> Array: ...
    def __gt__(self, other: _Operand, /) -> Array: ...
    def __ge__(self, other: _Operand, /) -> Array: ...
    def __neg__(self) -> Array: ...
    def __pos__(self) -> Array:
        """``self`` itself."""
    def __abs__(self) -> Array: ...
    def abs(self) -> Array:
        """Elementwise absolute value (``abs(a)``)."""
    # one method per function of the op table (torch's Tensor methods)
    def neg(self) -> Array: ...
    def exp(self) -> Array: ...
    def expm1(self) -> Array: ...
    def log(self) -> Array: ...
    def log1p(self) -> Array: ...
    def sqrt(self) -> Array: ...
    def sin(self) -> Array: ...
    def cos(self) -> Array: ...
    def tanh(self) -> Array: ...
    def sigmoid(self) -> Array: ...
    def reciprocal(self) -> Array: ...
    def floor(self) -> Array: ...
    def ceil(self) -> Array: ...
    def round(self) -> Array: ...
    def sign(self) -> Array: ...
    def bitwise_not(self) -> Array: ...
    def logical_not(self) -> Array: ...
    def acos(self) -> Array: ...
    def asin(self) -> Array: ...
    def atan(self) -> Array: ...
    def acosh(self) -> Array: ...
    def asinh(self) -> Array: ...
    def atanh(self) -> Array: ...
    def tan(self) -> Array: ...
    def sinh(self) -> Array: ...
    def cosh(self) -> Array: ...
    def log2(self) -> Array: ...
    def log10(self) -> Array: ...
    def trunc(self) -> Array: ...
    def square(self) -> Array: ...
    def isnan(self) -> Array: ...
    def isinf(self) -> Array: ...
    def isfinite(self) -> Array: ...
    def signbit(self) -> Array: ...
    def add(self, other: _Operand, *, alpha: _Scalar | None = None) -> Array: ...
    def sub(self, other: _Operand, *, alpha: _Scalar | None = None) -> Array: ...
    def mul(self, other: _Operand) -> Array: ...
    def div(self, other: _Operand) -> Array: ...
    def floor_divide(self, other: _Operand) -> Array: ...
    def remainder(self, other: _Operand) -> Array: ...
    def pow(self, other: _Operand) -> Array: ...
    def maximum(self, other: _Operand) -> Array: ...
    def minimum(self, other: _Operand) -> Array: ...
    def bitwise_and(self, other: _Operand) -> Array: ...
    def bitwise_or(self, other: _Operand) -> Array: ...
    def bitwise_xor(self, other: _Operand) -> Array: ...
    def logical_and(self, other: _Operand) -> Array: ...
    def logical_or(self, other: _Operand) -> Array: ...
    def logical_xor(self, other: _Operand) -> Array: ...
    def eq(self, other: _Operand) -> Array: ...
    def ne(self, other: _Operand) -> Array: ...
    def lt(self, other: _Operand) -> Array: ...
    def le(self, other: _Operand) -> Array: ...
    def gt(self, other: _Operand) -> Array: ...
    def ge(self, other: _Operand) -> Array: ...
    def atan2(self, other: _Operand) -> Array: ...
    def hypot(self, other: _Operand) -> Array: ...
    def copysign(self, other: _Operand) -> Array: ...
    def nextafter(self, other: _Operand) -> Array: ...
    def logaddexp(self, other: _Operand) -> Array: ...
    def fmod(self, other: _Operand) -> Array: ...
    def bitwise_left_shift(self, other: _Operand) -> Array: ...
    def bitwise_right_shift(self, other: _Operand) -> Array: ...
    def positive(self) -> Array:
        """``self`` itself (bool arrays are refused)."""
    def conj(self) -> Array:
        """The complex conjugate (a new array); a real array itself."""
    @property
    def real(self) -> Array:
        """The real parts (a view); a real array itself."""
    @property
    def imag(self) -> Array:
        """The imaginary parts (a view; complex dtypes only)."""
    def __invert__(self) -> Array:
        """Bitwise not; TypeError unless the dtype is integral or bool (torch's rule)."""
    def __bool__(self) -> _bool:
        """Truth of a one-element array; ValueError for any other size."""
    def __index__(self) -> _int:
        """A one-element integral array as an index."""
    def __int__(self) -> _int:
        """The only element as an int."""
    def __float__(self) -> _float:
        """The only element as a float."""

def from_dlpack(obj: Any) -> Array:
    """A zero-copy Array of a CPU DLPack producer (torch, numpy, jax, ...) or capsule; a
    read-only versioned capsule gives a read-only Array."""

def _rebuild_array(
    data: bytes, dtype: str, shape: Sequence[int], strides: Sequence[int], offset: int
) -> Array:
    """Unpickling: an Array over a copy of ``data`` with this layout."""

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

# ---- elementwise functions: operands are Arrays, numpy arrays or Python numbers; with
# ``out=`` the result is written into ``out`` (which must already have the broadcast shape:
# ferroiter does not resize) and ``out`` itself is returned ----

def add(
    a: _Operand,
    b: _Operand,
    *,
    alpha: _Scalar | None = None,
    out: Array | None = None,
) -> Array:
    """``a + alpha * b`` (one rounding for floats); ``alpha`` defaults to 1."""

def sub(
    a: _Operand,
    b: _Operand,
    *,
    alpha: _Scalar | None = None,
    out: Array | None = None,
) -> Array:
    """``a - alpha * b``; ``alpha`` defaults to 1."""

def mul(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a * b``."""

def div(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a / b`` (true division: integers promote to float)."""

def floor_divide(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a // b``, rounding towards minus infinity."""

def remainder(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a % b`` with the sign of ``b`` (Python's rule)."""

def pow(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a ** b``."""

def maximum(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """Elementwise maximum (NaN propagates)."""

def minimum(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """Elementwise minimum (NaN propagates)."""

def eq(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a == b`` as a bool array."""

def ne(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a != b`` as a bool array."""

def lt(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a < b`` as a bool array."""

def le(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a <= b`` as a bool array."""

def gt(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a > b`` as a bool array."""

def ge(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a >= b`` as a bool array."""

def logical_and(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """Truth of ``a and b``, elementwise (bool by default)."""

def logical_or(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """Truth of ``a or b``, elementwise."""

def logical_xor(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """Truth of ``bool(a) != bool(b)``, elementwise."""

def bitwise_and(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a & b`` (integral and bool dtypes)."""

def bitwise_or(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a | b`` (integral and bool dtypes)."""

def bitwise_xor(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a ^ b`` (integral and bool dtypes)."""

def atan2(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """The angle of the point ``(b, a)``: ``atan(a / b)`` in the right quadrant."""

def hypot(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``sqrt(a**2 + b**2)`` without overflow (float dtypes)."""

def copysign(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``|a|`` with the sign of ``b`` (integers promote to float)."""

def nextafter(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """The next float after ``a`` towards ``b`` (float dtypes)."""

def logaddexp(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``log(exp(a) + exp(b))`` without overflow."""

def fmod(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """C's remainder: the sign of ``a``."""

def bitwise_left_shift(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a << b`` (integer dtypes; shifts by the bit width or more give 0)."""

def bitwise_right_shift(a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a >> b`` (integer dtypes; shifts by the bit width or more give the sign fill)."""

# Unary functions take an array (Array or numpy array), not a Python number.

def neg(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """``-a``."""

def abs(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """``|a|``."""

def exp(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """``e ** a`` (integers promote to float)."""

def expm1(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """``e ** a - 1``, accurate near 0 (integers promote to float)."""

def log(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Natural logarithm (integers promote to float)."""

def log1p(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """``log(1 + a)``, accurate near 0 (integers promote to float)."""

def sqrt(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Square root (integers promote to float)."""

def sin(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Sine (integers promote to float)."""

def cos(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Cosine (integers promote to float)."""

def tanh(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Hyperbolic tangent (integers promote to float)."""

def sigmoid(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """``1 / (1 + e ** -a)`` (integers promote to float)."""

def reciprocal(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """``1 / a`` (integers promote to float)."""

def floor(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Round down."""

def ceil(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Round up."""

def round(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Round half to even."""

def sign(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """-1, 0 or 1 by the sign of each element."""

def bitwise_not(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """``~a`` (integral and bool dtypes)."""

def logical_not(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Truth of ``not a``, elementwise."""

def acos(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Inverse cosine (integers promote to float)."""

def asin(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Inverse sine (integers promote to float)."""

def atan(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Inverse tangent (integers promote to float)."""

def acosh(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Inverse hyperbolic cosine (integers promote to float)."""

def asinh(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Inverse hyperbolic sine (integers promote to float)."""

def atanh(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Inverse hyperbolic tangent (integers promote to float)."""

def tan(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Tangent (integers promote to float)."""

def sinh(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Hyperbolic sine (integers promote to float)."""

def cosh(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Hyperbolic cosine (integers promote to float)."""

def log2(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Base-2 logarithm (integers promote to float)."""

def log10(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Base-10 logarithm (integers promote to float)."""

def trunc(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Round towards zero."""

def square(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """``a * a`` (torch's ``pow(a, 2)``: bool promotes to int64)."""

def isnan(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Whether each element is NaN (a bool array)."""

def isinf(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Whether each element is infinite (a bool array)."""

def isfinite(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Whether each element is finite (a bool array)."""

def signbit(a: _ArrayIn, *, out: Array | None = None) -> Array:
    """Whether each element's sign bit is set (a bool array; -0.0 counts)."""

def positive(a: _ArrayIn) -> Array:
    """``a`` itself (bool arrays are refused, as torch's ``+``)."""

def real(a: _ArrayIn) -> Array:
    """The real parts of a complex array as a view; a real array itself."""

def imag(a: _ArrayIn) -> Array:
    """The imaginary parts of a complex array as a view (complex dtypes only)."""

def conj(a: _ArrayIn) -> Array:
    """The complex conjugate (a new array); a real array itself."""

def where(condition: _ArrayIn, a: _Operand, b: _Operand, *, out: Array | None = None) -> Array:
    """``a`` where ``condition`` holds, else ``b`` (all three broadcast together)."""

def clamp(
    a: _ArrayIn,
    min: _Operand | None = None,
    max: _Operand | None = None,
    *,
    out: Array | None = None,
) -> Array:
    """``a`` limited to ``[min, max]``; bounds may be numbers or arrays, either may be None."""

# ---- threads ----

def set_num_threads(n: int) -> None:
    """Threads of ferroiter's own pool for parallel loops (ValueError below 1)."""

def get_num_threads() -> int:
    """Threads a parallel loop uses, the calling one included: ``set_num_threads``, else
    ``FERROITER_NUM_THREADS``, else ``OMP_NUM_THREADS``, else the cores this process may run on
    (its CPU affinity)."""

def set_grain_size(n: int) -> None:
    """Elements below which a loop runs on one thread, for every following loop."""

def get_grain_size() -> int:
    """The grain size in force (``GRAIN_SIZE`` unless set)."""

# ---- the iterator ----

@final
class TensorIteratorConfig:
    """torch's ``TensorIteratorConfig``: add outputs first, then inputs, set flags, ``build()``.

    Every method changes the config in place and returns it, so calls may chain. Flags take
    ``True`` when called without an argument.
    """

    def __init__(self) -> None: ...
    def add_output(self, output: _ArrayIn | None = None) -> Self:
        """Adds an output; None asks the build to allocate it. Outputs come before inputs."""
    def add_input(self, input: _Operand) -> Self:
        """Adds an input; a Python number takes part as a wrapped scalar."""
    def add_const_input(self, input: _Operand) -> Self:
        """Adds an input the kernel only reads."""
    def declare_static_dtype(self, dtype: _DTypeArg) -> Self:
        """Every operand has this dtype; skips type promotion."""
    def declare_static_shape(self, shape: Sequence[int]) -> Self:
        """The iteration shape is this one; skips broadcasting."""
    def resize_outputs(self, value: bool = True) -> Self: ...
    def check_mem_overlap(self, value: bool = True) -> Self: ...
    def check_all_same_dtype(self, value: bool = True) -> Self: ...
    def promote_inputs_to_common_dtype(self, value: bool = True) -> Self: ...
    def cast_common_dtype_to_outputs(self, value: bool = True) -> Self: ...
    def enforce_safe_casting_to_output(self, value: bool = True) -> Self: ...
    def promote_integer_inputs_to_float(self, value: bool = True) -> Self: ...
    def is_reduction(self, value: bool = True) -> Self: ...
    def enforce_linear_iteration(self, value: bool = True) -> Self: ...
    def build(self) -> TensorIterator:
        """Runs torch's build phases; raises as torch would (ValueError, TypeError)."""

@final
class TensorIterator:
    """A built iteration plan (dim 0 is the fastest dim; strides in bytes).

    Made by ``TensorIteratorConfig.build()`` or one of torch's presets below.
    """

    @property
    def shape(self) -> tuple[int, ...]:
        """The iteration shape after reordering and coalescing, fastest dim first."""
    @property
    def perm(self) -> list[int]:
        """The permutation chosen by the stride sort (torch's convention)."""
    @property
    def ndim(self) -> int:
        """The number of dims of ``shape``."""
    @property
    def numel(self) -> int:
        """The number of elements iterated over."""
    @property
    def ntensors(self) -> int:
        """Outputs plus inputs."""
    @property
    def noutputs(self) -> int:
        """The number of outputs (they come first)."""
    @property
    def fast_setup(self) -> _FastSetup | None:
        """Which fast setup the build took, or None when it sorted strides."""
    @property
    def common_dtype(self) -> np.dtype[Any] | None:
        """The computation dtype, when the config asked for one."""
    def strides(self, i: int) -> tuple[int, ...]:
        """Operand ``i``'s byte strides, fastest dim first."""
    def dtype(self, i: int) -> np.dtype[Any]:
        """Operand ``i``'s dtype inside the kernel."""
    def output(self, i: int) -> Array:
        """Output ``i``: the given array, or the one the build allocated."""
    def loops(
        self, begin: int = 0, end: int | None = None
    ) -> list[tuple[list[int], tuple[int, int]]]:
        """The ``(offsets, (size0, size1))`` 2-D steps of a serial walk over ``[begin, end)``."""
    def explain(self, num_threads: int | None = None, grain_size: int = 32768) -> str:
        """A readable trace of every build phase, the inner loop and the split among threads.

        ``num_threads`` defaults to ``get_num_threads()``.
        """

    # ---- torch's presets (``out`` None: allocated by the build) ----
    @staticmethod
    def binary_op(out: _ArrayIn | None, a: _Operand, b: _Operand) -> TensorIterator:
        """torch's ``TensorIterator::binary_op``."""
    @staticmethod
    def binary_float_op(out: _ArrayIn | None, a: _Operand, b: _Operand) -> TensorIterator:
        """``binary_op`` promoting integer inputs to float."""
    @staticmethod
    def comparison_op(out: _ArrayIn | None, a: _Operand, b: _Operand) -> TensorIterator:
        """torch's ``comparison_op`` (a bool output unless one is given)."""
    @staticmethod
    def unary_op(out: _ArrayIn | None, a: _ArrayIn) -> TensorIterator:
        """torch's ``unary_op``."""
    @staticmethod
    def unary_float_op(out: _ArrayIn | None, a: _ArrayIn) -> TensorIterator:
        """``unary_op`` promoting integer inputs to float."""
    @staticmethod
    def nullary_op(out: _ArrayIn) -> TensorIterator:
        """torch's ``nullary_op``: one output, no input."""
    @staticmethod
    def reduce_op(out: _ArrayIn, a: _ArrayIn) -> TensorIterator:
        """torch's ``reduce_op``: ``out`` has size 1 in the reduced dims."""
    @staticmethod
    def copy_op(dst: _ArrayIn, src: _ArrayIn) -> TensorIterator:
        """The iterator of ``dst.copy_(src)``: with the same dtype its walk may move the bytes
        itself (direct tiles, a permuting copy), as ``explain()`` shows."""

# ---- reductions and scans: torch's signatures and dtype rules; results are contiguous and
# bit-identical at any thread count and grain size; ``out=`` is resized as torch does (with
# its warning) ----

def sum(
    input: Array,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: _DTypeArg | None = None,
    out: Array | None = None,
) -> Array:
    """Sum over ``dim`` (None or (): all dims); bool and integers give int64."""

def prod(
    input: Array,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    dtype: _DTypeArg | None = None,
    out: Array | None = None,
) -> Array:
    """Product over ``dim`` (None: all); bool and integers give int64."""

def mean(
    input: Array,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: _DTypeArg | None = None,
    out: Array | None = None,
) -> Array:
    """Mean (floating and complex dtypes only): ``sum / n``."""

def amax(
    input: Array,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    out: Array | None = None,
) -> Array:
    """Largest element (NaN propagates)."""

def amin(
    input: Array,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    out: Array | None = None,
) -> Array:
    """Smallest element (NaN propagates)."""

def argmax(
    input: Array, dim: int | None = None, keepdim: bool = False, *, out: Array | None = None
) -> Array:
    """Index of the first largest element (NaN counts as largest)."""

def argmin(
    input: Array, dim: int | None = None, keepdim: bool = False, *, out: Array | None = None
) -> Array:
    """Index of the first smallest element (NaN counts as smallest)."""

def all(
    input: Array,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    out: Array | None = None,
) -> Array:
    """Whether every element is non-zero."""

def any(
    input: Array,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    out: Array | None = None,
) -> Array:
    """Whether some element is non-zero."""

def count_nonzero(input: Array, dim: int | Sequence[int] | None = None) -> Array:
    """Number of non-zero elements (int64)."""

def var(
    input: Array,
    dim: int | Sequence[int] | None = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
    out: Array | None = None,
) -> Array:
    """Variance with ``correction`` (default 1)."""

def std(
    input: Array,
    dim: int | Sequence[int] | None = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: float | None = None,
    out: Array | None = None,
) -> Array:
    """Standard deviation with ``correction`` (default 1)."""

def cumsum(
    input: Array, dim: int, *, dtype: _DTypeArg | None = None, out: Array | None = None
) -> Array:
    """Running sum along ``dim``."""

def cumprod(
    input: Array, dim: int, *, dtype: _DTypeArg | None = None, out: Array | None = None
) -> Array:
    """Running product along ``dim``."""

# ---- structural functions (src/py/manipulation.rs): torch's names, signatures and layouts ----

def cat(tensors: Sequence[_ArrayIn], dim: int = 0) -> Array:
    """Arrays joined along ``dim``: dtypes promote, 1-D empty inputs are skipped (torch's legacy
    rule), the memory format is the one the inputs agree on (else contiguous)."""

def stack(tensors: Sequence[_ArrayIn], dim: int = 0) -> Array:
    """Equal-shaped arrays joined along a new ``dim``."""

def flip(input: _ArrayIn, dims: int | Sequence[int]) -> Array:
    """A copy with ``dims`` reversed (preserve_format strides)."""

def roll(
    input: _ArrayIn, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None
) -> Array:
    """A contiguous copy rotated by ``shifts`` along ``dims`` (none: as if flattened)."""

def tile(input: _ArrayIn, dims: int | Sequence[int]) -> Array:
    """A contiguous copy repeated ``dims[d]`` times along each dim."""

def repeat_interleave(input: _ArrayIn, repeats: int | Array, dim: int | None = None) -> Array:
    """Each slice along ``dim`` repeated ``repeats`` times (one count, or an int array of them)."""

def unbind(input: _ArrayIn, dim: int = 0) -> list[Array]:
    """The views along ``dim``, one per index."""

def movedim(
    input: _ArrayIn, source: int | Sequence[int], destination: int | Sequence[int]
) -> Array:
    """A view with the ``source`` dims moved to ``destination``, the rest in order."""

def index_select(input: _ArrayIn, dim: int, index: _ArrayIn) -> Array:
    """The slices at ``index`` (int32/int64, 0-d or 1-D) along ``dim``, contiguous."""

def take(input: _ArrayIn, index: _ArrayIn) -> Array:
    """Elements of ``input`` read as flat at the int64 positions ``index`` (negative from the
    end), shaped like ``index``."""

def take_along_dim(input: _ArrayIn, indices: _ArrayIn, dim: int | None = None) -> Array:
    """``indices`` (int64) picks one element per position along ``dim``; the other dims
    broadcast. No dim: both flattened."""

def diff(
    input: _ArrayIn,
    n: int = 1,
    dim: int = -1,
    prepend: _ArrayIn | None = None,
    append: _ArrayIn | None = None,
) -> Array:
    """The ``n``-th forward difference along ``dim`` (``logical_xor`` for bool)."""

def eye(n: int, m: int | None = None, *, dtype: _DTypeArg | None = None) -> Array:
    """An ``n×m`` array with ones on the diagonal (float32 by default)."""

def linspace(
    start: _Scalar | Array, end: _Scalar | Array, steps: int, *, dtype: _DTypeArg | None = None
) -> Array:
    """``steps`` evenly spaced values with torch's exact bits (float32, or complex64 for complex
    ends, by default)."""

@overload
def meshgrid(tensors: Sequence[_ArrayIn], /, *, indexing: str = "ij") -> list[Array]: ...
@overload
def meshgrid(*tensors: _ArrayIn, indexing: str = "ij") -> list[Array]: ...
def tril(input: _ArrayIn, diagonal: int = 0) -> Array:
    """A contiguous copy with the elements above the ``diagonal``-th diagonal zeroed."""

def triu(input: _ArrayIn, diagonal: int = 0) -> Array:
    """A contiguous copy with the elements below the ``diagonal``-th diagonal zeroed."""

def _op_table() -> list[dict[str, Any]]:
    """The op table's rows (name, arity, preset, kernel, alpha, operators), for the tests."""

def _set_streamed_from(bytes: int | None) -> int | None:
    """Streams every flat copy's and elementwise loop's output of at least ``bytes`` bytes
    (None: the cache rule again); the previous setting. A test hook."""

def _panic_in_loop(message: str, chunks: int) -> None:
    """Panics inside the core (in a loop's last chunk; outside loops for 0 chunks): a test hook."""

# ---- the Array API namespace's one-step calls (src/py/standard.rs) ----

def _standard_binary_op(name: str) -> int:
    """The index of a binary function of the op table, by its name."""

def _standard_unary_op(name: str) -> int:
    """The index of a unary function of the op table, by its name."""

def _standard_binary(
    op: int, x1: object, x2: object, slow: Callable[[Any, Any], Any], cls: type
) -> Any:
    """The namespace's ``x1 op x2`` in one step where its promotion is the identity, else
    ``slow(x1, x2)``."""

def _standard_unary(
    op: int, x: object, slow: Callable[[Any], Any], cls: type, real_only: bool
) -> Any:
    """The namespace's ``op(x)`` in one step for its arrays (real ones when ``real_only``),
    else ``slow(x)``."""

# ---- configuration (src/py/config.rs) ----

__version__: Final[str]

def _simd_level() -> str:
    """The widest SIMD level this CPU offers: avx512f, avx2, sse2, neon or scalar."""

def _num_threads_source() -> str:
    """Where the thread count came from: an environment variable, the cores, or set_num_threads."""

def _build_info() -> dict[str, Any]:
    """How the extension was built and what it found here (for ``show_config``)."""

def empty_cache() -> None:
    """Returns the freed large buffers ferroiter keeps for reuse to the system.

    ``FERROITER_CACHE=0`` in the environment turns that cache off.
    """

# ---- sorting, searching, sets ----

@final
class SortResult:
    """``sort``'s ``(values, indices)`` pair, unpackable as a tuple."""

    @property
    def values(self) -> Array: ...
    @property
    def indices(self) -> Array: ...
    def __len__(self) -> int: ...
    def __getitem__(self, key: int, /) -> Array: ...
    def __iter__(self) -> Iterator[Array]: ...

def sort(
    input: _ArrayIn, dim: int = -1, descending: bool = False, *, stable: bool = False
) -> SortResult:
    """``(values, indices)`` sorted along ``dim`` (NaN last ascending, first descending)."""

def argsort(
    input: _ArrayIn, dim: int = -1, descending: bool = False, *, stable: bool = False
) -> Array:
    """The int64 indices that sort ``input`` along ``dim`` (ties in input order)."""

def searchsorted(
    sorted_sequence: _ArrayIn,
    values: _ArrayIn | _Scalar,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: _ArrayIn | None = None,
) -> Array:
    """Where each value goes in the innermost dim of ``sorted_sequence`` (int64 or int32)."""

def nonzero(input: _ArrayIn, *, as_tuple: bool = False) -> Array | tuple[Array, ...]:
    """Indices of the non-zero elements: ``(n, ndim)`` int64 (strides ``(1, n)``), or one
    array per dim."""

def unique(
    input: _ArrayIn,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Array | tuple[Array, ...]:
    """The distinct values (or slices along ``dim``) ascending, with the inverse and counts
    when asked for; each NaN is distinct."""

# ---- linear algebra ----

def matmul(input: _ArrayIn, other: _ArrayIn, *, out: Array | None = None) -> Array:
    """torch's matmul: dot, mv, mm, or batched with the batch dims broadcast (1-D operands
    promoted to a row or a column and dropped from the result)."""

def tensordot(
    a: _ArrayIn,
    b: _ArrayIn,
    dims: int | tuple[Sequence[int], Sequence[int]] | list[Sequence[int]] = 2,
) -> Array:
    """Contracts ``dims`` (the last ``n`` of ``a`` with the first ``n`` of ``b``, or two
    lists of dims) and returns ``a``'s free dims then ``b``'s."""

def vecdot(x: _ArrayIn, y: _ArrayIn, *, dim: int = -1) -> Array:
    """``sum(conj(x) * y, dim)`` after broadcasting (torch's ``linalg.vecdot``)."""

# ---- users' kernels (src/py/user_kernels.rs; made by ferroiter.loop_kernel, kernel, register) ----

_Out: TypeAlias = Array | tuple[Array | None, ...] | None

@final
class Kernel:
    """A compiled loop in torch's 2-D convention with the dtypes it was written for."""

    @property
    def signature(self) -> str:
        """The declared dtypes, ``"float32(float32, float32)"``."""
    @property
    def name(self) -> str: ...
    @property
    def address(self) -> int:
        """The machine address of the loop."""
    @property
    def owner(self) -> Any:
        """The object that owns the loop's code (kept alive with the kernel)."""
    @property
    def nin(self) -> int: ...
    @property
    def nout(self) -> int: ...
    def __call__(self, *inputs: _Operand, out: _Out = None, dtype: _DTypeArg | None = None) -> Any:
        """``ferroiter.map(self, *inputs, out=out, dtype=dtype)``."""

@final
class UserOp:
    """Kernels for several dtypes under one name, dispatched on the operands' dtypes."""

    @property
    def name(self) -> str: ...
    @property
    def kernels(self) -> list[Kernel]:
        """The kernels, in the order dispatch tries them."""
    @property
    def signatures(self) -> list[str]: ...
    def __call__(
        self, *inputs: _Operand, out: _Out = None, dtype: _DTypeArg | None = None
    ) -> Any: ...

def map(
    kernel: Kernel | UserOp, *inputs: _Operand, out: _Out = None, dtype: _DTypeArg | None = None
) -> Any:
    """Runs a user's kernel elementwise over the operands, as an elementwise op would: they
    broadcast, outputs are allocated in their layout (``out=`` resized by torch's rules), the
    loop runs on 2-D blocks in parallel with the GIL released. One output is returned as an
    Array, several as a tuple. ``dtype=`` converts the inputs to that dtype first."""

def _kernel_from_address(address: int, signature: str, name: str, owner: object) -> Kernel:
    """A Kernel from a loop's machine address (see ``ferroiter.loop_kernel``)."""

def _user_op(name: str, kernels: list[Kernel]) -> UserOp:
    """A UserOp of these kernels (see ``ferroiter.register``)."""

def _parse_signature(text: str) -> tuple[list[str], list[str]]:
    """A kernel signature's output and input dtype names."""
