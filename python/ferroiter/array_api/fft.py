"""The standard's ``fft`` extension (2024.12): ``xp.fft``.

The transforms compute in ``numpy.fft`` (pocketfft) on a zero-copy numpy view of the ferroiter
array, ferroiter having no FFT of its own; the results come back as ferroiter arrays in the
standard's dtypes: complex transforms keep the input's precision (a real input becomes the
complex dtype of its precision), ``rfft``/``ihfft`` give the complex dtype matching the real
input, ``irfft``/``hfft`` the real dtype matching the complex input. ``fftfreq``,
``rfftfreq``, ``fftshift`` and ``ifftshift`` run on ferroiter's own ops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

import ferroiter as _fi

from ._creation import check_device
from ._dtypes import (
    COMPLEX_FLOATING,
    DEFAULT_FLOAT,
    REAL_FLOATING,
    DType,
    as_dtype,
    complex64,
    complex128,
    float32,
)
from ._helpers import cast, from_np, np_view, unwrap, wrap
from ._statistical import normalize_axes
from .linalg import real_dtype_of

if TYPE_CHECKING:
    from ._array_object import Array

_Norm = Literal["backward", "ortho", "forward"]
_NORMS = ("backward", "ortho", "forward")


def _complex_dtype_of(dt: DType) -> DType:
    if dt in COMPLEX_FLOATING:
        return dt
    return complex64 if dt == float32 else complex128


def _check_norm(norm: str) -> None:
    if norm not in _NORMS:
        raise ValueError(f"norm must be one of {_NORMS}, not {norm!r}")


def _complex_in(x: object) -> _fi.Array:
    """``x`` as a complex array of its precision (integers: complex128)."""
    a = unwrap(x)
    if a.dtype in COMPLEX_FLOATING:
        return a
    return cast(a, complex64 if a.dtype == float32 else complex128)


def _real_in(x: object, name: str) -> _fi.Array:
    a = unwrap(x)
    if a.dtype in COMPLEX_FLOATING:
        raise TypeError(f"{name} needs a real floating-point array, not {a.dtype}")
    return a if a.dtype in REAL_FLOATING else cast(a, DEFAULT_FLOAT)


def _one_axis(
    np_fn: Callable[..., Any],
    a: _fi.Array,
    out_dtype: DType,
    n: int | None,
    axis: int,
    norm: str,
) -> Array:
    _check_norm(norm)
    if a.ndim == 0:
        raise ValueError("the FFT needs an array of at least one dimension")
    normalize_axes(axis, a.ndim)
    if n is not None and n < 1:
        raise ValueError(f"invalid number of points {n}")
    out = np_fn(np_view(a), n=n, axis=axis, norm=norm)
    return wrap(from_np(out, out_dtype))


def _many_axes(
    np_fn: Callable[..., Any],
    a: _fi.Array,
    out_dtype: DType,
    s: Sequence[int] | None,
    axes: Sequence[int] | None,
    norm: str,
) -> Array:
    _check_norm(norm)
    if s is not None and axes is None:
        raise ValueError("s needs axes")
    if axes is not None:
        normalize_axes(tuple(axes), a.ndim)
        if s is not None and len(s) != len(axes):
            raise ValueError("s and axes must have the same length")
    if s is not None:
        # the standard's -1 keeps an axis's own size
        s = [a.shape[ax] if n == -1 else n for n, ax in zip(s, axes or (), strict=True)]
    out = np_fn(np_view(a), s=s, axes=axes, norm=norm)
    return wrap(from_np(out, out_dtype))


def fft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: _Norm = "backward") -> Array:
    a = _complex_in(x)
    return _one_axis(np.fft.fft, a, a.dtype, n, axis, norm)


def ifft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: _Norm = "backward") -> Array:
    a = _complex_in(x)
    return _one_axis(np.fft.ifft, a, a.dtype, n, axis, norm)


def fftn(
    x: Array,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: _Norm = "backward",
) -> Array:
    a = _complex_in(x)
    return _many_axes(np.fft.fftn, a, a.dtype, s, axes, norm)


def ifftn(
    x: Array,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: _Norm = "backward",
) -> Array:
    a = _complex_in(x)
    return _many_axes(np.fft.ifftn, a, a.dtype, s, axes, norm)


def rfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: _Norm = "backward") -> Array:
    a = _real_in(x, "rfft")
    return _one_axis(np.fft.rfft, a, _complex_dtype_of(a.dtype), n, axis, norm)


def irfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: _Norm = "backward") -> Array:
    a = _complex_in(x)
    return _one_axis(np.fft.irfft, a, real_dtype_of(a.dtype), n, axis, norm)


def rfftn(
    x: Array,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: _Norm = "backward",
) -> Array:
    a = _real_in(x, "rfftn")
    return _many_axes(np.fft.rfftn, a, _complex_dtype_of(a.dtype), s, axes, norm)


def irfftn(
    x: Array,
    /,
    *,
    s: Sequence[int] | None = None,
    axes: Sequence[int] | None = None,
    norm: _Norm = "backward",
) -> Array:
    a = _complex_in(x)
    return _many_axes(np.fft.irfftn, a, real_dtype_of(a.dtype), s, axes, norm)


def hfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: _Norm = "backward") -> Array:
    a = _complex_in(x)
    return _one_axis(np.fft.hfft, a, real_dtype_of(a.dtype), n, axis, norm)


def ihfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: _Norm = "backward") -> Array:
    a = _real_in(x, "ihfft")
    return _one_axis(np.fft.ihfft, a, _complex_dtype_of(a.dtype), n, axis, norm)


def _freq_dtype(dtype: object) -> DType:
    dt = DEFAULT_FLOAT if dtype is None else as_dtype(dtype)
    if dt not in REAL_FLOATING:
        raise TypeError(f"the sample frequencies need a real floating-point dtype, not {dt}")
    return dt


def fftfreq(n: int, /, *, d: float = 1.0, dtype: object = None, device: object = None) -> Array:
    """``[0, 1, ..., -(n // 2), ..., -1] / (d * n)``: the positive then the negative half."""
    check_device(device)
    dt = _freq_dtype(dtype)
    if n < 1:
        raise ValueError(f"fftfreq needs n >= 1, got {n}")
    k = _fi.arange(n, dtype=DEFAULT_FLOAT)
    # the indices from (n + 1) // 2 on stand for the negative frequencies k - n
    k = _fi.where(_fi.ge(k, (n + 1) // 2), _fi.sub(k, float(n)), k)
    return wrap(cast(_fi.div(k, float(d) * n), dt))


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: object = None, device: object = None) -> Array:
    """``[0, 1, ..., n // 2] / (d * n)``: the non-negative frequencies of ``rfft``."""
    check_device(device)
    dt = _freq_dtype(dtype)
    if n < 1:
        raise ValueError(f"rfftfreq needs n >= 1, got {n}")
    k = _fi.arange(n // 2 + 1, dtype=DEFAULT_FLOAT)
    return wrap(cast(_fi.div(k, float(d) * n), dt))


def _shift(x: object, axes: int | Sequence[int] | None, inverse: bool) -> Array:
    a = unwrap(x)
    dims = normalize_axes(axes, a.ndim)
    if not dims:
        return wrap(a.clone())
    shifts = [-(a.shape[ax] // 2) if inverse else a.shape[ax] // 2 for ax in dims]
    return wrap(_fi.roll(a, shifts, list(dims)))


def fftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """The zero frequency moved to the middle: each axis rolled by half its size."""
    return _shift(x, axes, inverse=False)


def ifftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """``fftshift``'s inverse: each axis rolled back by half its size."""
    return _shift(x, axes, inverse=True)


__all__ = [
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]  # fmt: skip
