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

import ferroiter as _fi

from ._complex_special import fix_nonfinite
from ._dtypes import (
    COMPLEX_FLOATING,
    INTEGRAL,
    DType,
    complex64,
    fill_value,
    float32,
    float64,
    promote,
    scalar_result_dtype,
)
from ._dtypes import bool as bool_dtype
from ._helpers import cast, is_array, unwrap, wrap

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
        return cast(a, dt), _fi.full((), fill_value(x2, dt), dtype=dt), dt  # type: ignore[arg-type]
    if is_array(x2):
        b = unwrap(x2)
        dt = scalar_result_dtype(b.dtype, x1)
        return _fi.full((), fill_value(x1, dt), dtype=dt), cast(b, dt), dt  # type: ignore[arg-type]
    raise TypeError("at least one argument must be an array")


def _fi_fn(name: str) -> Callable[..., _fi.Array] | None:
    fn: Callable[..., _fi.Array] | None = getattr(_fi, name, None)
    return fn


def _unary(name: str, x: object) -> Array:
    """ferroiter's ``name`` on ``x``."""
    fn = _fi_fn(name)
    if fn is None:
        raise NotImplementedError(name)
    return wrap(fn(unwrap(x)))


def _binary(name: str, x1: object, x2: object) -> Array:
    """ferroiter's ``name`` on the operands promoted by the standard's rules."""
    a, b, _ = operands(x1, x2)
    fn = _fi_fn(name)
    if fn is None:
        raise NotImplementedError(name)
    return wrap(fn(a, b))


# -- arithmetic ---------------------------------------------------------------------------------
def add(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("add", x1, x2)


def subtract(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("sub", x1, x2)


def multiply(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("mul", x1, x2)


def divide(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("div", x1, x2)


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
    return _binary("pow", x1, x2)


def maximum(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("maximum", x1, x2)


def minimum(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("minimum", x1, x2)


def atan2(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("atan2", x1, x2)


def hypot(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("hypot", x1, x2)


def copysign(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("copysign", x1, x2)


def nextafter(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("nextafter", x1, x2)


def logaddexp(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("logaddexp", x1, x2)


# -- comparison and logic -------------------------------------------------------------------------
def equal(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("eq", x1, x2)


def not_equal(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("ne", x1, x2)


def less(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("lt", x1, x2)


def less_equal(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("le", x1, x2)


def greater(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("gt", x1, x2)


def greater_equal(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("ge", x1, x2)


def logical_and(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("logical_and", x1, x2)


def logical_or(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("logical_or", x1, x2)


def logical_xor(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("logical_xor", x1, x2)


def logical_not(x: Array, /) -> Array:
    return _unary("logical_not", x)


def bitwise_and(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("bitwise_and", x1, x2)


def bitwise_or(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("bitwise_or", x1, x2)


def bitwise_xor(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("bitwise_xor", x1, x2)


def bitwise_invert(x: Array, /) -> Array:
    return _unary("bitwise_not", x)


def bitwise_left_shift(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("bitwise_left_shift", x1, x2)


def bitwise_right_shift(x1: _Operand, x2: _Operand, /) -> Array:
    return _binary("bitwise_right_shift", x1, x2)


# -- unary ----------------------------------------------------------------------------------------
def abs(x: Array, /) -> Array:
    return _unary("abs", x)


def negative(x: Array, /) -> Array:
    return _unary("neg", x)


def positive(x: Array, /) -> Array:
    return wrap(unwrap(x).clone())


def exp(x: Array, /) -> Array:
    return _unary("exp", x)


def expm1(x: Array, /) -> Array:
    a = unwrap(x)
    out = _unary("expm1", a)._a
    if a.dtype in COMPLEX_FLOATING:
        # expm1(+-0 + 0j) is +0 + 0j (adding +0 turns a -0 real part into +0)
        out = _fi.where(_fi.eq(a, 0), _fi.add(a, 0), out)
    return wrap(fix_nonfinite("expm1", a, out))


def log(x: Array, /) -> Array:
    return _unary("log", x)


def log1p(x: Array, /) -> Array:
    return _unary("log1p", x)


def log2(x: Array, /) -> Array:
    return _unary("log2", x)


def log10(x: Array, /) -> Array:
    return _unary("log10", x)


def sqrt(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(fix_nonfinite("sqrt", a, _unary("sqrt", a)._a))


def square(x: Array, /) -> Array:
    return _unary("square", x)


def sin(x: Array, /) -> Array:
    return _unary("sin", x)


def cos(x: Array, /) -> Array:
    return _unary("cos", x)


def tan(x: Array, /) -> Array:
    return _unary("tan", x)


def asin(x: Array, /) -> Array:
    return _unary("asin", x)


def acos(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(fix_nonfinite("acos", a, _unary("acos", a)._a))


def atan(x: Array, /) -> Array:
    return _unary("atan", x)


def sinh(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(fix_nonfinite("sinh", a, _unary("sinh", a)._a))


def cosh(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(fix_nonfinite("cosh", a, _unary("cosh", a)._a))


def tanh(x: Array, /) -> Array:
    a = unwrap(x)
    out = _unary("tanh", a)._a
    if a.dtype in COMPLEX_FLOATING:
        # tanh(NaN + 0j) is NaN + 0j; tanh(+-inf + yj) is +-1 + 0j with y's sign on the zero
        out = fix_nonfinite("tanh", a, out)
    return wrap(out)


def asinh(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(fix_nonfinite("asinh", a, _unary("asinh", a)._a))


def acosh(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(fix_nonfinite("acosh", a, _unary("acosh", a)._a))


def atanh(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(fix_nonfinite("atanh", a, _unary("atanh", a)._a))


def floor(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(a.clone()) if a.dtype in INTEGRAL else _unary("floor", a)


def ceil(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(a.clone()) if a.dtype in INTEGRAL else _unary("ceil", a)


def trunc(x: Array, /) -> Array:
    a = unwrap(x)
    return wrap(a.clone()) if a.dtype in INTEGRAL else _unary("trunc", a)


def round(x: Array, /) -> Array:
    a = unwrap(x)
    if a.dtype in COMPLEX_FLOATING:
        # the standard rounds the real and imaginary parts each (torch's round takes no complex)
        return wrap(_complex_from(_fi.round(_fi.real(a)), _fi.round(_fi.imag(a)), a.dtype))
    return wrap(a.clone()) if a.dtype in INTEGRAL else _unary("round", a)


def _complex_from(re: _fi.Array, im: _fi.Array, dtype: DType) -> _fi.Array:
    """The complex array of ``dtype`` with real parts ``re`` and imaginary parts ``im``
    (written through the real/imaginary views: no ``0 * inf`` of a multiplication by 1j)."""
    out = _fi.empty(tuple(re.shape), dtype=dtype)
    _fi.real(out)[...] = re
    _fi.imag(out)[...] = im
    return out


def sign(x: Array, /) -> Array:
    a = unwrap(x)
    if a.dtype in COMPLEX_FLOATING:
        # the standard's complex sign: x / |x| (each part divided by the magnitude), 0 at 0,
        # NaN + NaN j where a part is NaN
        mag = _fi.abs(a)
        re = _fi.div(_fi.real(a), mag)
        im = _fi.div(_fi.imag(a), mag)
        zero = _fi.eq(mag, 0)
        re = _fi.where(zero, 0.0, re)
        im = _fi.where(zero, 0.0, im)
        nan_part = _fi.ne(a, a)
        re = _fi.where(nan_part, float("nan"), re)
        im = _fi.where(nan_part, float("nan"), im)
        return wrap(_complex_from(re, im, a.dtype))
    out = _unary("sign", a)
    if a.dtype in (float32, float64):
        # the standard's sign(NaN) is NaN (torch's kernel gives 0)
        return wrap(_fi.where(_fi.ne(a, a), a, out._a))
    return out


def signbit(x: Array, /) -> Array:
    return _unary("signbit", x)


def reciprocal(x: Array, /) -> Array:
    return _unary("reciprocal", x)


def isnan(x: Array, /) -> Array:
    return _unary("isnan", x)


def isinf(x: Array, /) -> Array:
    return _unary("isinf", x)


def isfinite(x: Array, /) -> Array:
    return _unary("isfinite", x)


def real(x: Array, /) -> Array:
    return _unary("real", x)


def imag(x: Array, /) -> Array:
    return _unary("imag", x)


def conj(x: Array, /) -> Array:
    return _unary("conj", x)


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
    return _fi.full((), fill_value(value, dtype), dtype=dtype)  # type: ignore[arg-type]


_ = (bool_dtype, builtins, complex64, float32, float64)
