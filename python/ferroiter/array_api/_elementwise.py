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
from ferroiter import _ferroiter as _core

from . import _helpers
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


def _binary_function(name: str, op: str) -> Callable[[_Operand, _Operand], Array]:
    """The standard's ``name``: ferroiter's ``op`` in one call into the core where the
    standard's promotion leaves the operands as they are (``_standard_binary``), else on the
    operands promoted and cast here (``_binary``)."""
    index = _core._standard_binary_op(op)
    one_step = _core._standard_binary

    def promoted(x1: object, x2: object) -> Array:
        return _binary(op, x1, x2)

    def function(x1: _Operand, x2: _Operand, /) -> Array:
        return one_step(index, x1, x2, promoted, _helpers.array_class)  # type: ignore[no-any-return]

    function.__name__ = function.__qualname__ = name
    return function


def reflected(function: Callable[[_Operand, _Operand], Array]) -> Callable[[Any, Any], Array]:
    """``function`` with its operands swapped: the reflected operator (``__radd__``)."""

    def swapped(x2: Any, x1: Any, /) -> Array:
        return function(x1, x2)

    swapped.__name__ = swapped.__qualname__ = f"reflected_{function.__name__}"
    return swapped


def _unary_function(
    name: str, op: str, complex_values: Callable[[Any], Array] | None = None
) -> Callable[[Array], Array]:
    """The standard's ``name``: ferroiter's ``op`` in one call into the core. A function whose
    complex special values the standard fixes (``complex_values``) takes complex arrays there."""
    index = _core._standard_unary_op(op)
    one_step = _core._standard_unary

    def plain(x: object) -> Array:
        return _unary(op, x)

    slow = complex_values or plain
    real_only = complex_values is not None

    def function(x: Array, /) -> Array:
        return one_step(index, x, slow, _helpers.array_class, real_only)  # type: ignore[no-any-return]

    function.__name__ = function.__qualname__ = name
    return function


def _with_complex_values(name: str) -> Callable[[Any], Array]:
    """ferroiter's ``name`` with the standard's values at non-finite complex inputs."""

    def fixed(x: Any) -> Array:
        a = unwrap(x)
        return wrap(fix_nonfinite(name, a, _unary(name, a)._a))

    return fixed


# -- arithmetic ---------------------------------------------------------------------------------
add = _binary_function("add", "add")
subtract = _binary_function("subtract", "sub")
multiply = _binary_function("multiply", "mul")
divide = _binary_function("divide", "div")


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


pow = _binary_function("pow", "pow")
maximum = _binary_function("maximum", "maximum")
minimum = _binary_function("minimum", "minimum")
atan2 = _binary_function("atan2", "atan2")
hypot = _binary_function("hypot", "hypot")
copysign = _binary_function("copysign", "copysign")
nextafter = _binary_function("nextafter", "nextafter")
logaddexp = _binary_function("logaddexp", "logaddexp")


# -- comparison and logic -------------------------------------------------------------------------
equal = _binary_function("equal", "eq")
not_equal = _binary_function("not_equal", "ne")
less = _binary_function("less", "lt")
less_equal = _binary_function("less_equal", "le")
greater = _binary_function("greater", "gt")
greater_equal = _binary_function("greater_equal", "ge")
logical_and = _binary_function("logical_and", "logical_and")
logical_or = _binary_function("logical_or", "logical_or")
logical_xor = _binary_function("logical_xor", "logical_xor")
logical_not = _unary_function("logical_not", "logical_not")
bitwise_and = _binary_function("bitwise_and", "bitwise_and")
bitwise_or = _binary_function("bitwise_or", "bitwise_or")
bitwise_xor = _binary_function("bitwise_xor", "bitwise_xor")
bitwise_invert = _unary_function("bitwise_invert", "bitwise_not")
bitwise_left_shift = _binary_function("bitwise_left_shift", "bitwise_left_shift")
bitwise_right_shift = _binary_function("bitwise_right_shift", "bitwise_right_shift")


# -- unary ----------------------------------------------------------------------------------------
abs = _unary_function("abs", "abs")
negative = _unary_function("negative", "neg")


def positive(x: Array, /) -> Array:
    return wrap(unwrap(x).clone())


exp = _unary_function("exp", "exp")


def _expm1_values(x: Array) -> Array:
    a = unwrap(x)
    out = _unary("expm1", a)._a
    if a.dtype in COMPLEX_FLOATING:
        # expm1(+-0 + 0j) is +0 + 0j (adding +0 turns a -0 real part into +0)
        out = _fi.where(_fi.eq(a, 0), _fi.add(a, 0), out)
    return wrap(fix_nonfinite("expm1", a, out))


expm1 = _unary_function("expm1", "expm1", _expm1_values)
log = _unary_function("log", "log")
log1p = _unary_function("log1p", "log1p")
log2 = _unary_function("log2", "log2")
log10 = _unary_function("log10", "log10")
sqrt = _unary_function("sqrt", "sqrt", _with_complex_values("sqrt"))
square = _unary_function("square", "square")
sin = _unary_function("sin", "sin")
cos = _unary_function("cos", "cos")
tan = _unary_function("tan", "tan")
asin = _unary_function("asin", "asin")
acos = _unary_function("acos", "acos", _with_complex_values("acos"))
atan = _unary_function("atan", "atan")
sinh = _unary_function("sinh", "sinh", _with_complex_values("sinh"))
cosh = _unary_function("cosh", "cosh", _with_complex_values("cosh"))


def _tanh_values(x: Array) -> Array:
    a = unwrap(x)
    out = _unary("tanh", a)._a
    if a.dtype in COMPLEX_FLOATING:
        # tanh(NaN + 0j) is NaN + 0j; tanh(+-inf + yj) is +-1 + 0j with y's sign on the zero
        out = fix_nonfinite("tanh", a, out)
    return wrap(out)


tanh = _unary_function("tanh", "tanh", _tanh_values)
asinh = _unary_function("asinh", "asinh", _with_complex_values("asinh"))
acosh = _unary_function("acosh", "acosh", _with_complex_values("acosh"))
atanh = _unary_function("atanh", "atanh", _with_complex_values("atanh"))


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


signbit = _unary_function("signbit", "signbit")
reciprocal = _unary_function("reciprocal", "reciprocal")
isnan = _unary_function("isnan", "isnan")
isinf = _unary_function("isinf", "isinf")
isfinite = _unary_function("isfinite", "isfinite")


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
