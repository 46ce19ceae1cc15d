"""The standard's array object: a thin wrapper around a ``ferroiter.Array``.

A wrapper, because the standard's array object and torch's disagree: ``size`` is an element
count here and a method there, 0-d arrays promote like any array here and like scalars there,
``T`` exists only for 2-D arrays here. The wrapper holds the ferroiter array in ``_a``; every
operator calls the namespace's function, which runs on ferroiter's own ops.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np

import ferroiter as _fi

from . import _elementwise as _ew
from . import _helpers
from ._dtypes import FLOATING, INTEGRAL, DType
from ._dtypes import bool as bool_dtype
from ._helpers import unwrap

CPU_DEVICE = "cpu"
#: The module this class belongs to (``__array_namespace__`` returns it).
_NAMESPACE = __name__.rpartition(".")[0]

_Scalar: TypeAlias = bool | int | float | complex
_Other: TypeAlias = "Array | _fi.Array | _Scalar"


def _unwrap_key(key: object) -> Any:
    """An indexing key with the namespace arrays in it replaced by their ferroiter arrays."""
    if isinstance(key, tuple):
        return tuple(_unwrap_key(k) for k in key)
    if isinstance(key, Array):
        return key._a
    return key


def _check_index_key(key: object, ndim: int) -> None:
    """The standard's limits on a key that ferroiter (torch) would accept more widely."""
    items = key if isinstance(key, tuple) else (key,)
    if sum(1 for k in items if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    for k in items:
        if isinstance(k, (list, np.ndarray)):
            raise IndexError("lists and numpy arrays are not valid array API indices")
        if isinstance(k, float):
            raise IndexError("only integers, slices, ellipsis, None and arrays are valid indices")


#: The in-place operators that can write into ``self`` directly: the namespace's function and
#: ferroiter's kernel with ``out=``, for the operands of ``_writes_in_place``.
_IN_PLACE_KERNELS: dict[Callable[..., Any], Callable[..., Any]] = {
    _ew.add: _fi.add,
    _ew.subtract: _fi.sub,
    _ew.multiply: _fi.mul,
    _ew.divide: _fi.div,
}
_NUMERIC = FLOATING + INTEGRAL


def _writes_in_place(a: _fi.Array, kernel: Callable[..., Any], other: object) -> bool:
    """Whether ``a op= other`` keeps ``a``'s dtype and shape under the standard's rules, so that
    ``op`` can write into ``a``: ``other`` a namespace array of ``a``'s dtype whose shape
    broadcasts to ``a``'s, or a Python int or float for a floating ``a`` (complex too for a
    complex one); division only for floating ``a``. Everything else takes the general path."""
    dtype = a.dtype
    floating = dtype in FLOATING
    if not floating and (kernel is _fi.div or dtype not in _NUMERIC):
        return False
    if isinstance(other, Array):
        o = other._a
        if o.dtype != dtype:
            return False
        shape, oshape = a.shape, o.shape
        return len(oshape) <= len(shape) and all(
            n in (m, 1) for n, m in zip(reversed(oshape), reversed(shape), strict=False)
        )
    kind = type(other)
    if kind is int:
        return floating and -(2**63) <= other < 2**63  # type: ignore[operator]
    return floating and (kind is float or (kind is complex and dtype.kind == "c"))


class Array:
    """An array of the Array API namespace (``ferroiter.array_api``)."""

    __slots__ = ("_a",)
    _a: _fi.Array

    def __init__(self) -> None:
        raise TypeError("create arrays with ferroiter.array_api.asarray and its creation functions")

    @classmethod
    def _new(cls, a: _fi.Array) -> Array:
        obj = object.__new__(cls)
        obj._a = a
        return obj

    # -- attributes --------------------------------------------------------------------------
    @property
    def dtype(self) -> DType:
        """The array's dtype (a numpy dtype object)."""
        return self._a.dtype

    @property
    def device(self) -> str:
        """The array's device: always ``"cpu"``."""
        return CPU_DEVICE

    @property
    def shape(self) -> tuple[int, ...]:
        """The array's shape."""
        return self._a.shape

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._a.ndim

    @property
    def size(self) -> int:
        """The number of elements (a property, unlike torch's ``size()`` method)."""
        return self._a.numel()

    @property
    def T(self) -> Array:
        """The transpose of a 2-D array (the standard allows ``T`` only there)."""
        if self.ndim != 2:
            raise ValueError("x.T requires a 2-D array; use permute_dims or x.mT")
        return Array._new(self._a.permute(1, 0))

    @property
    def mT(self) -> Array:
        """The transpose of the last two dimensions."""
        if self.ndim < 2:
            raise ValueError("x.mT requires an array of at least two dimensions")
        return Array._new(self._a.mT)

    def to_device(self, device: object, /, *, stream: object = None) -> Array:
        """The array on ``device``: only ``"cpu"`` exists, so the array itself."""
        if stream is not None:
            raise ValueError("the cpu device takes no stream")
        if device != CPU_DEVICE:
            raise ValueError(f"unsupported device {device!r}")
        return self

    def __array_namespace__(self, /, *, api_version: str | None = None) -> types.ModuleType:
        """The ``ferroiter.array_api`` module."""
        if api_version is not None:
            from . import _check_api_version

            _check_api_version(api_version)
        return sys.modules[_NAMESPACE]

    # -- interchange ---------------------------------------------------------------------------
    def __dlpack__(
        self,
        /,
        *,
        stream: object = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """A DLPack capsule of the array's memory."""
        kwargs: dict[str, Any] = {}
        if stream is not None:
            kwargs["stream"] = stream
        if max_version is not None:
            kwargs["max_version"] = max_version
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        if copy is not None:
            kwargs["copy"] = copy
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        """(kDLCPU, 0)."""
        return self._a.__dlpack_device__()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray[Any, Any]:
        """A numpy view (or copy) of the array, so ``numpy.asarray(x)`` works."""
        return self._a.__array__(dtype, copy)

    def __repr__(self) -> str:
        return f"ferroiter.array_api.Array({self._a.tolist()!r}, dtype={self.dtype})"

    def __str__(self) -> str:
        return str(self._a)

    # -- conversions to Python scalars -----------------------------------------------------------
    def _scalar(self) -> bool | int | float | complex:
        if self.size != 1:
            raise TypeError("only arrays with one element convert to Python scalars")
        return self._a.item()

    def __bool__(self) -> bool:
        return bool(self._scalar())

    def __int__(self) -> int:
        value = self._scalar()
        if isinstance(value, complex):
            raise TypeError("cannot convert a complex array to int")
        return int(value)

    def __float__(self) -> float:
        value = self._scalar()
        if isinstance(value, complex):
            raise TypeError("cannot convert a complex array to float")
        return float(value)

    def __complex__(self) -> complex:
        return complex(self._scalar())

    def __index__(self) -> int:
        if self.dtype not in INTEGRAL:
            raise TypeError(f"only integer arrays can be used as an index, not {self.dtype}")
        return self.__int__()

    # -- indexing ------------------------------------------------------------------------------
    def _zero_d_mask(self, key: object) -> tuple[_fi.Array, _fi.Array] | None:
        """For a 0-d boolean mask (which ferroiter rejects): a leading unit dim and a 1-d mask."""
        k = key._a if isinstance(key, Array) else key
        if isinstance(k, _fi.Array) and k.ndim == 0 and k.dtype == bool_dtype:
            return self._a.unsqueeze(0), k.reshape((1,))
        return None

    def _empty_mask(self, key: object) -> bool:
        """Whether ``key`` is a boolean mask with no elements that fits the leading dims (the
        standard selects nothing; torch wants the mask's sizes to match)."""
        k = key._a if isinstance(key, Array) else key
        return (
            isinstance(k, _fi.Array)
            and k.dtype == bool_dtype
            and k.numel() == 0
            and k.ndim <= self.ndim
            and all(ks in (xs, 0) for xs, ks in zip(self.shape, k.shape, strict=False))
        )

    def __getitem__(self, key: Any, /) -> Array:
        _check_index_key(key, self.ndim)
        if self._empty_mask(key):
            rest = self.shape[unwrap(key).ndim :]
            return Array._new(_fi.empty((0, *rest), dtype=self.dtype))
        zero_d = self._zero_d_mask(key)
        if zero_d is not None:
            return Array._new(zero_d[0][zero_d[1]])
        return Array._new(self._a[_unwrap_key(key)])

    def __setitem__(self, key: Any, value: _Other, /) -> None:
        if type(key) is tuple and all(type(k) is int for k in key):
            # element writes (scikit-learn fills diagonals one `a[i, i] = v` at a time): a
            # key of ints needs none of the checks below, and the core converts the value
            self._a[key] = value._a if isinstance(value, Array) else value
            return
        _check_index_key(key, self.ndim)
        if self._empty_mask(key):
            return
        zero_d = self._zero_d_mask(key)
        if zero_d is not None:
            Array._new(zero_d[0])[Array._new(zero_d[1])] = value
            return
        if isinstance(value, (Array, _fi.Array)):
            src = unwrap(value)
            if src.dtype != self.dtype:
                src = src.to(self.dtype)
            self._a[_unwrap_key(key)] = src
        else:
            self._a[_unwrap_key(key)] = value

    # -- operators -----------------------------------------------------------------------------
    def _inplace(self, fn: Callable[[Any, Any], Array], other: _Other) -> Array:
        """``self op= other``: the standard forbids in-place results of another dtype or shape."""
        kernel = _IN_PLACE_KERNELS.get(fn)
        if kernel is not None and _writes_in_place(self._a, kernel, other):
            # the result is `self`'s dtype and shape: computed into `self`, without the
            # result's allocation and copy (a distance matrix's `d += row` in scikit-learn)
            if not isinstance(other, Array):
                kernel(self._a, other, out=self._a)
                return self
            try:
                kernel(self._a, other._a, out=self._a)
                return self
            except ValueError as e:
                # an operand that partly overlaps `self`, refused before anything is written
                # (torch's overlap check): the general path computes it first
                if not str(e).startswith("unsupported operation"):
                    raise
        result = fn(self, other)
        if result.dtype != self.dtype:
            raise TypeError(
                f"in-place operation would change the dtype from {self.dtype} to {result.dtype}"
            )
        if result.shape != self.shape:
            raise ValueError(
                f"in-place operation would change the shape from {self.shape} to {result.shape}"
            )
        self._a.copy_(result._a)
        return self

    __add__ = _ew.add

    __radd__ = _ew.reflected(_ew.add)

    def __iadd__(self, other: _Other, /) -> Array:
        return self._inplace(_ew.add, other)

    __sub__ = _ew.subtract

    __rsub__ = _ew.reflected(_ew.subtract)

    def __isub__(self, other: _Other, /) -> Array:
        return self._inplace(_ew.subtract, other)

    __mul__ = _ew.multiply

    __rmul__ = _ew.reflected(_ew.multiply)

    def __imul__(self, other: _Other, /) -> Array:
        return self._inplace(_ew.multiply, other)

    __truediv__ = _ew.divide

    __rtruediv__ = _ew.reflected(_ew.divide)

    def __itruediv__(self, other: _Other, /) -> Array:
        return self._inplace(_ew.divide, other)

    __floordiv__ = _ew.floor_divide

    __rfloordiv__ = _ew.reflected(_ew.floor_divide)

    def __ifloordiv__(self, other: _Other, /) -> Array:
        return self._inplace(_ew.floor_divide, other)

    __mod__ = _ew.remainder

    __rmod__ = _ew.reflected(_ew.remainder)

    def __imod__(self, other: _Other, /) -> Array:
        return self._inplace(_ew.remainder, other)

    __pow__ = _ew.pow

    __rpow__ = _ew.reflected(_ew.pow)

    def __ipow__(self, other: _Other, /) -> Array:
        return self._inplace(_ew.pow, other)

    def __matmul__(self, other: Array, /) -> Array:
        from ._linalg import matmul

        return matmul(self, other)

    def __rmatmul__(self, other: Array, /) -> Array:
        from ._linalg import matmul

        return matmul(other, self)

    def __imatmul__(self, other: Array, /) -> Array:
        from ._linalg import matmul

        return self._inplace(matmul, other)

    __and__ = _ew.bitwise_and

    __rand__ = _ew.reflected(_ew.bitwise_and)

    def __iand__(self, other: _Other, /) -> Array:
        return self._inplace(_ew.bitwise_and, other)

    __or__ = _ew.bitwise_or

    __ror__ = _ew.reflected(_ew.bitwise_or)

    def __ior__(self, other: _Other, /) -> Array:
        return self._inplace(_ew.bitwise_or, other)

    __xor__ = _ew.bitwise_xor

    __rxor__ = _ew.reflected(_ew.bitwise_xor)

    def __ixor__(self, other: _Other, /) -> Array:
        return self._inplace(_ew.bitwise_xor, other)

    __lshift__ = _ew.bitwise_left_shift

    __rlshift__ = _ew.reflected(_ew.bitwise_left_shift)

    def __ilshift__(self, other: _Other, /) -> Array:
        return self._inplace(_ew.bitwise_left_shift, other)

    __rshift__ = _ew.bitwise_right_shift

    __rrshift__ = _ew.reflected(_ew.bitwise_right_shift)

    def __irshift__(self, other: _Other, /) -> Array:
        return self._inplace(_ew.bitwise_right_shift, other)

    __eq__ = _ew.equal  # type: ignore[assignment]

    __ne__ = _ew.not_equal  # type: ignore[assignment]

    __lt__ = _ew.less

    __le__ = _ew.less_equal

    __gt__ = _ew.greater

    __ge__ = _ew.greater_equal

    __neg__ = _ew.negative

    __pos__ = _ew.positive

    __abs__ = _ew.abs

    __invert__ = _ew.bitwise_invert

    __hash__ = None  # type: ignore[assignment]


# the namespace's helpers and one-step calls recognise and build arrays of this class
_helpers.array_class = Array

__all__ = ["Array", "CPU_DEVICE", "bool_dtype"]
