"""The standard's elementwise functions, on ferroiter's ops with the standard's promotion.

Binary functions take two arrays, or an array and a Python scalar (2024.12), promote them with
the standard's lattice (``_dtypes.promote``), cast the operands with ``.to()`` and call the
ferroiter op. Where torch's kernel gives another special-case value than the standard, the
function below fixes that value.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

import ferroiter as _fi

from ._dtypes import (
    COMPLEX_FLOATING,
    INTEGRAL,
    DType,
    complex64,
    float32,
    float64,
    promote,
    scalar_result_dtype,
)
from ._dtypes import bool as bool_dtype
from ._helpers import cast, from_np, is_array, np_view, unwrap, wrap

if TYPE_CHECKING:
    from ._array_object import Array

_Scalar: TypeAlias = bool | int | float | complex
_Operand: TypeAlias = "Array | _fi.Array | _Scalar"
_NpFn = Callable[..., Any]


def operands(x1: object, x2: object) -> tuple[_fi.Array, _fi.Array, DType]:
    """Both operands as ferroiter arrays of their common dtype (the standard's promotion)."""
    if is_array(x1) and is_array(x2):
        a, b = unwrap(x1), unwrap(x2)
        dt = promote(a.dtype, b.dtype)
        return cast(a, dt), cast(b, dt), dt
    if is_array(x1):
        a = unwrap(x1)
        dt = scalar_result_dtype(a.dtype, x2)
        return cast(a, dt), _fi.full((), x2, dtype=dt), dt  # type: ignore[arg-type]
    if is_array(x2):
        b = unwrap(x2)
        dt = scalar_result_dtype(b.dtype, x1)
        return _fi.full((), x1, dtype=dt), cast(b, dt), dt  # type: ignore[arg-type]
    raise TypeError("at least one argument must be an array")


def _fi_fn(name: str) -> Callable[..., _fi.Array] | None:
    fn: Callable[..., _fi.Array] | None = getattr(_fi, name, None)
    return fn


def _unary(name: str, np_fn: _NpFn | None, x: object) -> Array:
    """ferroiter's ``name`` on ``x``; numpy's ``np_fn`` on a view while ferroiter lacks it."""
    a = unwrap(x)
    fn = _fi_fn(name)
    if fn is not None:
        try:
            return wrap(fn(a))
        except (TypeError, RuntimeError, ValueError):
            if np_fn is None or a.dtype not in COMPLEX_FLOATING:
                raise
    if np_fn is None:
        raise NotImplementedError(name)
    with np.errstate(all="ignore"):
        return wrap(from_np(np_fn(np_view(a))))  # TEMP until elemops


def _fix_nonfinite_complex(a: _fi.Array, out: _fi.Array, np_fn: _NpFn) -> _fi.Array:
    """``out`` with its elements of non-finite complex ``a`` replaced by ``np_fn``'s C99
    special values (ferroiter's complex kernels give NaN there); the few such elements only."""
    if a.dtype not in COMPLEX_FLOATING or a.numel() == 0:
        return out
    flat_a = a.reshape((-1,))
    d = _fi.sub(flat_a, flat_a)
    bad = _fi.ne(d, d)  # a part is infinite or NaN
    if not _fi.any(bad).item():
        return out
    out = out.contiguous()
    with np.errstate(all="ignore"):
        fixed = np.asarray(np_fn(np.asarray(flat_a[bad])), dtype=out.dtype)  # TEMP until elemops
    out.view((-1,))[bad] = from_np(np.ascontiguousarray(fixed))
    return out


def _complex_expm1(z: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """expm1 at non-finite complex values: exp(z) - 1 on the real part (C99's exp values)."""
    e = np.exp(z)
    out = np.empty_like(z)
    out.real = e.real - 1
    out.imag = e.imag
    # +inf with an infinite or NaN imaginary part: inf + NaN j
    pinf = (z.real == np.inf) & ~np.isfinite(z.imag)
    out.real[pinf] = np.inf
    out.imag[pinf] = np.nan
    return out


def _binary(name: str, np_fn: _NpFn | None, x1: object, x2: object) -> Array:
    """ferroiter's ``name`` on the promoted operands (numpy's ``np_fn`` until ferroiter has it)."""
    a, b, dt = operands(x1, x2)
    fn = _fi_fn(name)
    if fn is not None:
        try:
            return wrap(fn(a, b))
        except (TypeError, RuntimeError, ValueError):
            if np_fn is None or dt not in COMPLEX_FLOATING:
                raise
    if np_fn is None:
        raise NotImplementedError(name)
    with np.errstate(all="ignore"):
        return wrap(from_np(np_fn(np_view(a), np_view(b))))  # TEMP until elemops


# -- arithmetic ---------------------------------------------------------------------------------
def add(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("add", np.add, x1, x2)


def subtract(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("sub", np.subtract, x1, x2)


def multiply(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("mul", np.multiply, x1, x2)


def divide(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("div", np.divide, x1, x2)


def _is_inf(a: _fi.Array) -> _fi.Array:
    return _fi.eq(_fi.abs(a), float("inf"))


def floor_divide(x1: _Operand, x2: _Operand, /) -> Array:
    a, b, dt = operands(x1, x2)
    out = _fi.floor_divide(a, b)
    if dt in (float32, float64):
        # one infinite operand: the standard's floor(x1 / x2) (+-inf, or +-0), where torch's
        # kernel gives NaN or -1
        one_inf = _fi.ne(_is_inf(a), _is_inf(b))
        out = _fi.where(one_inf, _fi.floor(_fi.div(a, b)), out)
    return wrap(out)


def remainder(x1: _Operand, x2: _Operand, /) -> Array:
    a, b, dt = operands(x1, x2)
    out = _fi.remainder(a, b)
    if dt in (float32, float64):
        # a zero result takes the divisor's sign (the standard's +-0 cases)
        signed_zero = _fi.where(_fi.lt(b, 0), _fi.full((), -0.0, dtype=dt), 0.0)
        out = _fi.where(_fi.eq(out, 0), signed_zero, out)
    return wrap(out)


def pow(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("pow", np.power, x1, x2)


def maximum(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("maximum", np.maximum, x1, x2)


def minimum(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("minimum", np.minimum, x1, x2)


def atan2(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("atan2", None, x1, x2)


def hypot(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("hypot", None, x1, x2)


def copysign(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("copysign", None, x1, x2)


def nextafter(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("nextafter", None, x1, x2)


def logaddexp(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("logaddexp", None, x1, x2)


# -- comparison and logic -------------------------------------------------------------------------
def equal(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("eq", np.equal, x1, x2)


def not_equal(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("ne", np.not_equal, x1, x2)


def less(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("lt", np.less, x1, x2)


def less_equal(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("le", np.less_equal, x1, x2)


def greater(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("gt", np.greater, x1, x2)


def greater_equal(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("ge", np.greater_equal, x1, x2)


def logical_and(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("logical_and", None, x1, x2)


def logical_or(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("logical_or", None, x1, x2)


def logical_xor(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("logical_xor", None, x1, x2)


def logical_not(x: Array, /) -> Array:
    return _unary("logical_not", None, x)


def bitwise_and(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("bitwise_and", None, x1, x2)


def bitwise_or(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("bitwise_or", None, x1, x2)


def bitwise_xor(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("bitwise_xor", None, x1, x2)


def bitwise_invert(x: Array, /) -> Array:
    return _unary("bitwise_not", None, x)


def bitwise_left_shift(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("bitwise_left_shift", None, x1, x2)


def bitwise_right_shift(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("bitwise_right_shift", None, x1, x2)


# -- unary ----------------------------------------------------------------------------------------
def abs(x: Array, /) -> Array:
    return _unary("abs", np.abs, x)


def negative(x: Array, /) -> Array:
    return _unary("neg", np.negative, x)


def positive(x: Array, /) -> Array:
    return wrap(unwrap(x).clone())


def exp(x: Array, /) -> Array:
    return _unary("exp", np.exp, x)


def expm1(x: Array, /) -> Array:
    a = unwrap(x)
    out = _unary("expm1", np.expm1, a)._a
    if a.dtype in COMPLEX_FLOATING:
        # expm1(+-0 + 0j) is +0 + 0j (adding +0 turns a -0 real part into +0)
        out = _fi.where(_fi.eq(a, 0), _fi.add(a, 0), out)
    return wrap(_fix_nonfinite_complex(a, out, _complex_expm1))


def log(x: Array, /) -> Array:
    return _unary("log", np.log, x)


def log1p(x: Array, /) -> Array:
    return _unary("log1p", np.log1p, x)


def log2(x: Array, /) -> Array:
    return _unary("log2", None, x)


def log10(x: Array, /) -> Array:
    return _unary("log10", None, x)


def sqrt(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(_fix_nonfinite_complex(a, _unary("sqrt", np.sqrt, a)._a, np.sqrt))


def square(x: Array, /) -> Array:
    return _unary("square", None, x)


def sin(x: Array, /) -> Array:
    return _unary("sin", np.sin, x)


def cos(x: Array, /) -> Array:
    return _unary("cos", np.cos, x)


def tan(x: Array, /) -> Array:
    return _unary("tan", None, x)


def asin(x: Array, /) -> Array:
    return _unary("asin", None, x)


def acos(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(_fix_nonfinite_complex(a, _unary("acos", None, a)._a, np.arccos))


def atan(x: Array, /) -> Array:
    return _unary("atan", None, x)


def sinh(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(_fix_nonfinite_complex(a, _unary("sinh", None, a)._a, np.sinh))


def cosh(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(_fix_nonfinite_complex(a, _unary("cosh", None, a)._a, np.cosh))


def tanh(x: Array, /) -> Array:
    a = unwrap(x)
    out = _unary("tanh", np.tanh, a)._a
    if a.dtype in COMPLEX_FLOATING:
        # tanh(NaN + 0j) is NaN + 0j: a NaN real part with a zero imaginary part
        out = _fix_nonfinite_complex(a, out, np.tanh)
    return wrap(out)


def asinh(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(_fix_nonfinite_complex(a, _unary("asinh", None, a)._a, np.arcsinh))


def acosh(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(_fix_nonfinite_complex(a, _unary("acosh", None, a)._a, np.arccosh))


def atanh(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(_fix_nonfinite_complex(a, _unary("atanh", None, a)._a, np.arctanh))


def floor(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(a.clone()) if a.dtype in INTEGRAL else _unary("floor", np.floor, a)


def ceil(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(a.clone()) if a.dtype in INTEGRAL else _unary("ceil", np.ceil, a)


def trunc(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(a.clone()) if a.dtype in INTEGRAL else _unary("trunc", np.trunc, a)


def round(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(a.clone()) if a.dtype in INTEGRAL else _unary("round", np.round, a)


def sign(x: Array, /) -> Array:
    a = unwrap(x)
    if a.dtype in COMPLEX_FLOATING:
        # the standard's complex sign: x / |x|, and 0 at 0
        return _unary("sgn", lambda v: np.where(v == 0, 0, v / np.abs(v)), a)  # TEMP until elemops
    out = _unary("sign", np.sign, a)
    if a.dtype in (float32, float64):
        # the standard's sign(NaN) is NaN (torch's kernel gives 0)
        return wrap(_fi.where(_fi.ne(a, a), a, out._a))
    return out


def signbit(x: Array, /) -> Array:
    return _unary("signbit", None, x)


def reciprocal(x: Array, /) -> Array:
    return _unary("reciprocal", np.reciprocal, x)


def isnan(x: Array, /) -> Array:
    return _unary("isnan", None, x)


def isinf(x: Array, /) -> Array:
    return _unary("isinf", None, x)


def isfinite(x: Array, /) -> Array:
    return _unary("isfinite", None, x)


def real(x: Array, /) -> Array:
    return _unary("real", None, x)


def imag(x: Array, /) -> Array:
    return _unary("imag", None, x)


def conj(x: Array, /) -> Array:
    return _unary("conj", None, x)


def clip(
    x: Array,
    /,
    min: _Operand | None = None,
    max: _Operand | None = None,
) -> Array:
    """``x`` limited to ``[min, max]``; the result keeps ``x``'s dtype."""
    a = unwrap(x)
    lo: Any = unwrap(min) if is_array(min) else min
    hi: Any = unwrap(max) if is_array(max) else max
    if lo is None and hi is None:
        return wrap(a.clone())
    if isinstance(lo, _fi.Array):
        lo = cast(lo, a.dtype)
    if isinstance(hi, _fi.Array):
        hi = cast(hi, a.dtype)
    out = a
    if lo is not None:
        out = unwrap(maximum(out, lo if isinstance(lo, _fi.Array) else _scalar_in(a.dtype, lo)))
    if hi is not None:
        out = unwrap(minimum(out, hi if isinstance(hi, _fi.Array) else _scalar_in(a.dtype, hi)))
    if out is a:
        out = a.clone()
    return wrap(cast(out, a.dtype))


def _scalar_in(dtype: DType, value: _Scalar) -> _fi.Array:
    return _fi.full((), value, dtype=dtype)


_ = (bool_dtype, builtins, complex64, float32, float64)
