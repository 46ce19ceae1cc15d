"""The standard's (C99 Annex G's) values of complex functions at non-finite inputs.

ferroiter's complex kernels give NaN or a wrongly signed part at many of these inputs. Each
function's table below lists, for ``z = x + yj`` folded into ``x >= 0`` (odd and even
functions) and ``y >= 0`` (all of them commute with ``conj``), which value each kind of input
takes; the first matching row wins. :func:`fix_nonfinite` evaluates the table with ferroiter's
elementwise ops on the non-finite elements alone, unfolds the signs and writes them back.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal, TypeAlias

import ferroiter as _fi

from ._dtypes import COMPLEX_FLOATING

_Part: TypeAlias = "float | Callable[[_fi.Array, _fi.Array], _fi.Array]"
_Cond: TypeAlias = "Callable[[_fi.Array, _fi.Array], _fi.Array]"
_Row: TypeAlias = "tuple[_Cond, _Part, _Part]"

INF = math.inf
NAN = math.nan
PI = math.pi


def _and(*masks: _fi.Array) -> _fi.Array:
    out = masks[0]
    for m in masks[1:]:
        out = _fi.logical_and(out, m)
    return out


def _or(a: _fi.Array, b: _fi.Array) -> _fi.Array:
    return _fi.logical_or(a, b)


def _pinf(v: _fi.Array) -> _fi.Array:
    return _fi.eq(v, INF)


def _ninf(v: _fi.Array) -> _fi.Array:
    return _fi.eq(v, -INF)


def _zero(v: _fi.Array) -> _fi.Array:
    return _fi.eq(v, 0)


def _inf_or_nan(v: _fi.Array) -> _fi.Array:
    return _fi.logical_not(_fi.isfinite(v))


# row conditions on the folded parts (x, y); y is +0, positive, +inf or NaN
def _x_finite_y_inf(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_fi.isfinite(x), _pinf(y))


def _x_finite_y_nan(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_fi.isfinite(x), _fi.isnan(y))


def _x_finite_y_not_finite(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_fi.isfinite(x), _inf_or_nan(y))


def _x_zero_y_nan(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_zero(x), _fi.isnan(y))


def _x_zero_y_not_finite(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_zero(x), _inf_or_nan(y))


def _x_pinf_y_zero(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_pinf(x), _zero(y))


def _x_pinf_y_finite(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_pinf(x), _fi.isfinite(y))


def _x_ninf_y_finite(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_ninf(x), _fi.isfinite(y))


def _x_pinf_y_inf(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_pinf(x), _pinf(y))


def _x_ninf_y_inf(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_ninf(x), _pinf(y))


def _x_pinf_y_nan(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_pinf(x), _fi.isnan(y))


def _x_ninf_y_nan(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_ninf(x), _fi.isnan(y))


def _x_inf_y_nan(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_fi.isinf(x), _fi.isnan(y))


def _x_pinf_y_not_finite(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_pinf(x), _inf_or_nan(y))


def _x_ninf_y_not_finite(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_ninf(x), _inf_or_nan(y))


def _x_pinf(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _pinf(x)


def _x_pinf_y_not_nan(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_pinf(x), _fi.logical_not(_fi.isnan(y)))


def _x_nan_y_zero(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_fi.isnan(x), _zero(y))


def _x_nan_y_inf(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _and(_fi.isnan(x), _pinf(y))


def _y_inf(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _pinf(y)


# row values that depend on the input: +-inf * cis(y) and +0 * cis(y)
def _inf_cos(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _fi.mul(_fi.cos(y), INF)


def _inf_sin(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _fi.mul(_fi.sin(y), INF)


def _zero_sin(x: _fi.Array, y: _fi.Array) -> _fi.Array:
    return _fi.mul(_fi.sin(y), 0.0)


Fold = Literal["conj", "odd", "even"]

#: function -> (fold, rows (condition, real part, imaginary part), first match wins)
TABLES: dict[str, tuple[Fold, list[_Row]]] = {
    "sqrt": (
        "conj",
        [
            (_y_inf, INF, INF),
            (_x_ninf_y_finite, 0.0, INF),
            (_x_pinf_y_finite, INF, 0.0),
            (_x_ninf_y_nan, NAN, INF),
            (_x_pinf_y_nan, INF, NAN),
        ],
    ),
    # exp's values with 1 taken from the real part
    "expm1": (
        "conj",
        [
            (_x_finite_y_not_finite, NAN, NAN),
            (_x_pinf_y_zero, INF, 0.0),
            (_x_ninf_y_finite, -1.0, _zero_sin),
            (_x_pinf_y_finite, _inf_cos, _inf_sin),
            (_x_ninf_y_not_finite, -1.0, 0.0),
            (_x_pinf_y_not_finite, INF, NAN),
            (_x_nan_y_zero, NAN, 0.0),
        ],
    ),
    "acos": (
        "conj",
        [
            (_x_zero_y_nan, PI / 2, NAN),
            (_x_finite_y_inf, PI / 2, -INF),
            (_x_ninf_y_finite, PI, -INF),
            (_x_pinf_y_finite, 0.0, -INF),
            (_x_ninf_y_inf, 3 * PI / 4, -INF),
            (_x_pinf_y_inf, PI / 4, -INF),
            (_x_inf_y_nan, NAN, INF),
            (_x_nan_y_inf, NAN, -INF),
        ],
    ),
    "sinh": (
        "odd",
        [
            (_x_zero_y_not_finite, 0.0, NAN),
            (_x_finite_y_not_finite, NAN, NAN),
            (_x_pinf_y_zero, INF, 0.0),
            (_x_pinf_y_finite, _inf_cos, _inf_sin),
            (_x_pinf_y_not_finite, INF, NAN),
            (_x_nan_y_zero, NAN, 0.0),
        ],
    ),
    "cosh": (
        "even",
        [
            (_x_zero_y_not_finite, NAN, 0.0),
            (_x_finite_y_not_finite, NAN, NAN),
            (_x_pinf_y_zero, INF, 0.0),
            (_x_pinf_y_finite, _inf_cos, _inf_sin),
            (_x_pinf_y_not_finite, INF, NAN),
            (_x_nan_y_zero, NAN, 0.0),
        ],
    ),
    "tanh": (
        "odd",
        [
            (_x_zero_y_not_finite, 0.0, NAN),
            (_x_finite_y_not_finite, NAN, NAN),
            (_x_pinf, 1.0, 0.0),
            (_x_nan_y_zero, NAN, 0.0),
        ],
    ),
    "asinh": (
        "odd",
        [
            (_x_finite_y_inf, INF, PI / 2),
            (_x_finite_y_nan, NAN, NAN),
            (_x_pinf_y_finite, INF, 0.0),
            (_x_pinf_y_inf, INF, PI / 4),
            (_x_pinf_y_nan, INF, NAN),
            (_x_nan_y_zero, NAN, 0.0),
            (_x_nan_y_inf, INF, NAN),
        ],
    ),
    "acosh": (
        "conj",
        [
            (_x_finite_y_inf, INF, PI / 2),
            (_x_zero_y_nan, NAN, PI / 2),
            (_x_finite_y_nan, NAN, NAN),
            (_x_ninf_y_finite, INF, PI),
            (_x_pinf_y_finite, INF, 0.0),
            (_x_ninf_y_inf, INF, 3 * PI / 4),
            (_x_pinf_y_inf, INF, PI / 4),
            (_x_inf_y_nan, INF, NAN),
            (_x_nan_y_inf, INF, NAN),
        ],
    ),
    "atanh": (
        "odd",
        [
            (_x_zero_y_nan, 0.0, NAN),
            (_x_finite_y_inf, 0.0, PI / 2),
            (_x_finite_y_nan, NAN, NAN),
            (_x_pinf_y_not_nan, 0.0, PI / 2),
            (_x_pinf_y_nan, 0.0, NAN),
            (_x_nan_y_inf, 0.0, PI / 2),
        ],
    ),
}


def _part(value: _Part, x: _fi.Array, y: _fi.Array) -> _fi.Array | float:
    return value(x, y) if callable(value) else value


def _evaluate(name: str, re: _fi.Array, im: _fi.Array) -> tuple[_fi.Array, _fi.Array]:
    """The table's real and imaginary parts at the (non-finite) inputs ``re + im j``."""
    fold, rows = TABLES[name]
    neg_x, neg_y = _fi.signbit(re), _fi.signbit(im)
    x = _fi.abs(re) if fold in ("odd", "even") else re
    y = _fi.abs(im)
    out_re = _fi.full_like(re, NAN)
    out_im = _fi.full_like(im, NAN)
    for cond, vre, vim in reversed(rows):  # the first matching row is applied last
        mask = cond(x, y)
        out_re = _fi.where(mask, _part(vre, x, y), out_re)
        out_im = _fi.where(mask, _part(vim, x, y), out_im)
    # unfold: f(conj z) = conj f(z); odd: f(-z) = -f(z); even: f(-z) = f(z)
    flip_im = neg_y if fold != "even" else _fi.logical_xor(neg_x, neg_y)
    out_im = _fi.where(flip_im, _fi.neg(out_im), out_im)
    if fold == "odd":
        out_re = _fi.where(neg_x, _fi.neg(out_re), out_re)
    return out_re, out_im


def fix_nonfinite(name: str, a: _fi.Array, out: _fi.Array) -> _fi.Array:
    """``out`` (``name`` of the complex ``a``) with the table's values where ``a`` has an
    infinite or NaN part; the other elements keep the kernel's values."""
    if a.dtype not in COMPLEX_FLOATING or a.numel() == 0:
        return out
    flat = a.reshape((-1,))
    bad = _fi.logical_not(_fi.isfinite(flat))
    if not _fi.any(bad).item():
        return out
    picked = flat[bad]
    re, im = _evaluate(name, _fi.real(picked).clone(), _fi.imag(picked).clone())
    fixed = _fi.empty(tuple(picked.shape), dtype=picked.dtype)
    _fi.real(fixed)[...] = re
    _fi.imag(fixed)[...] = im
    out = out.contiguous()
    out.view((-1,))[bad] = fixed
    return out
