"""The Array API namespace (ferroiter.array_api) against array-api-strict on the same data.

Arrays come from hypothesis's Array API strategies driving *our* namespace; each result is
compared with array-api-strict's (the standard's reference implementation) in shape, dtype and
values. The standard's own conformance suite (data-apis/array-api-tests) is the fuller judge;
see README's "Array API" section for its pass rate.
"""

from __future__ import annotations

import os
import subprocess
import sys

import array_api_compat
import array_api_strict as strict
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.array_api import make_strategies_namespace

import ferroiter as fi
import ferroiter.array_api as xp

from harness import assert_values, scaled

xps = make_strategies_namespace(xp, api_version="2024.12")

BINARY = [
    "add", "subtract", "multiply", "maximum", "minimum", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal",
]  # fmt: skip
BINARY_FLOAT = ["divide", "atan2", "hypot", "copysign", "logaddexp"]
UNARY_FLOAT = ["exp", "log1p", "sqrt", "sin", "tanh", "floor", "ceil", "round", "trunc", "sign"]
REAL = ("integral", "real floating")
REDUCTIONS = ["sum", "prod", "max", "min", "mean", "std", "var"]


def _strict(x: xp.Array):
    """The same data as an array-api-strict array."""
    return strict.asarray(np.asarray(x).copy())


def _strict_dtype(theirs) -> np.dtype:
    return np.dtype(str(theirs.dtype).rsplit(".", 1)[-1])


def _same(mine, theirs, mode: str = "exact") -> None:
    assert mine.dtype == _strict_dtype(theirs), f"dtype {mine.dtype} != {theirs.dtype}"
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert_values(np.asarray(mine), np.asarray(theirs), mode)


def _promotable(kind: str | tuple[str, ...]) -> list[tuple[np.dtype, np.dtype]]:
    """Every pair of the namespace's dtypes of ``kind`` that the standard promotes."""
    dtypes = list(xp.__array_namespace_info__().dtypes(kind=kind).values())
    pairs = []
    for d1 in dtypes:
        for d2 in dtypes:
            try:
                xp.result_type(d1, d2)
            except TypeError:
                continue
            pairs.append((d1, d2))
    return pairs


@st.composite
def promotable_pair(draw, kind: str | tuple[str, ...] = REAL):
    """Two arrays of mutually promotable dtypes and broadcastable shapes."""
    d1, d2 = draw(st.sampled_from(_promotable(kind)))
    s1, s2 = draw(st.sampled_from([((3,), (2, 3)), ((), (2, 3)), ((2, 1), (1, 4)), ((4,), ())]))
    return draw(xps.arrays(d1, s1)), draw(xps.arrays(d2, s2))


def test_namespace_is_returned_for_both_array_types():
    a = fi.ones((2,))
    assert a.__array_namespace__() is xp
    assert xp.asarray(a).__array_namespace__(api_version="2024.12") is xp
    assert array_api_compat.array_namespace(a) is xp
    assert array_api_compat.array_namespace(xp.asarray(a)) is xp
    with pytest.raises(ValueError, match="api_version '2099.12' is not supported"):
        a.__array_namespace__(api_version="2099.12")


@settings(max_examples=scaled(80))
@given(promotable_pair(), st.sampled_from(BINARY))
def test_binary_promotion_and_values_match_strict(pair, name):
    x1, x2 = pair
    _same(getattr(xp, name)(x1, x2), getattr(strict, name)(_strict(x1), _strict(x2)), "nosign0")


@given(promotable_pair("real floating"), st.sampled_from(BINARY_FLOAT))
def test_float_binary_matches_strict(pair, name):
    x1, x2 = pair
    _same(getattr(xp, name)(x1, x2), getattr(strict, name)(_strict(x1), _strict(x2)), "ulp:2")


@given(
    xps.arrays(xps.floating_dtypes(), xps.array_shapes(max_dims=3)),
    st.sampled_from(UNARY_FLOAT),
)
def test_unary_matches_strict(x, name):
    _same(getattr(xp, name)(x), getattr(strict, name)(_strict(x)), "ulp:2")


@settings(max_examples=scaled(40))
@given(
    xps.arrays(
        xps.floating_dtypes(),
        xps.array_shapes(min_dims=1, max_dims=3, min_side=1),
        # moderate values: the order of a sum's additions may differ (ferroiter's fixed tree)
        elements={"min_value": -1e3, "max_value": 1e3},
    ),
    st.sampled_from(REDUCTIONS),
    st.booleans(),
    st.data(),
)
def test_reductions_with_axis_and_keepdims_match_strict(x, name, keepdims, data):
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1), label="axis")
    mine = getattr(xp, name)(x, axis=axis, keepdims=keepdims)
    theirs = getattr(strict, name)(_strict(x), axis=axis, keepdims=keepdims)
    assert mine.dtype == _strict_dtype(theirs) and mine.shape == theirs.shape
    np.testing.assert_allclose(np.asarray(mine), np.asarray(theirs), rtol=1e-4, atol=1e-5)


@given(xps.arrays(xps.integer_dtypes(), xps.array_shapes(max_dims=3)))
def test_integer_sum_takes_the_default_integer_dtype(x):
    _same(xp.sum(x), strict.sum(_strict(x)))
    flat = xp.reshape(x, (-1,))
    theirs = strict.reshape(_strict(x), (-1,))
    _same(
        xp.cumulative_sum(flat, include_initial=True),
        strict.cumulative_sum(theirs, include_initial=True),
    )


def test_zero_d_arrays_promote_like_any_array_unlike_torch():
    x = xp.asarray([1.5, 2.5], dtype=xp.float32)
    y = xp.asarray(2.0, dtype=xp.float64)
    assert (x * y).dtype == xp.float64  # torch keeps float32: a 0-d array counts as a scalar
    assert (fi.asarray(np.asarray(x)) * fi.asarray(np.asarray(y))).dtype == np.float32
    assert (xp.asarray([1], dtype=xp.uint8) + xp.asarray([1], dtype=xp.int8)).dtype == xp.int16
    assert (x + 1).dtype == xp.float32  # a Python scalar takes the array's dtype
    with pytest.raises(TypeError, match="cannot be promoted together"):
        xp.add(xp.asarray([1], dtype=xp.int32), x)


def test_inplace_operators_keep_the_dtype():
    x = xp.asarray([1, 2], dtype=xp.int16)
    x += xp.asarray([3, 4], dtype=xp.int8)
    assert x.dtype == xp.int16 and x.tolist() if False else np.asarray(x).tolist() == [4, 6]
    with pytest.raises(TypeError, match="would change the dtype from int16 to int32"):
        x += xp.asarray([1, 1], dtype=xp.int32)


def test_array_object_attributes_follow_the_standard():
    x = xp.reshape(xp.arange(6), (2, 3))
    assert x.size == 6 and x.shape == (2, 3) and x.ndim == 2 and x.device == "cpu"
    assert x.T.shape == (3, 2) and x.mT.shape == (3, 2)
    with pytest.raises(ValueError, match="requires a 2-D array"):
        _ = xp.ones((2, 2, 2)).T
    assert np.asarray(x[xp.asarray([True, False])]).tolist() == [[0, 1, 2]]
    assert np.asarray(x[:, xp.asarray([2, 0])]).tolist() == [[2, 0], [5, 3]]
    assert int(x[1, 2]) == 5 and float(x[0, 1]) == 1.0
    assert x.__dlpack_device__() == (1, 0)
    np.testing.assert_array_equal(np.from_dlpack(x), np.arange(6).reshape(2, 3))


@given(xps.arrays(xps.real_dtypes(), xps.array_shapes(max_dims=2, max_side=6)))
def test_unique_and_sort_match_strict(x):
    flat = xp.reshape(x, (-1,))
    theirs = strict.reshape(_strict(x), (-1,))
    _same(xp.unique_counts(flat).counts, strict.unique_counts(theirs).counts)
    _same(xp.sort(flat), strict.sort(theirs))
    _same(xp.argsort(flat, descending=True), strict.argsort(theirs, descending=True))


def test_special_cases_the_standard_fixes():
    f = xp.asarray([-0.0, 0.0, 1.0, -1.0, np.nan], dtype=xp.float64)
    _same(xp.sign(f), strict.sign(_strict(f)))
    _same(
        xp.round(xp.asarray([0.5, 1.5, 2.5, -0.5])),
        strict.round(strict.asarray([0.5, 1.5, 2.5, -0.5])),
    )
    _same(xp.floor_divide(f, 0.0), strict.floor_divide(_strict(f), 0.0))
    _same(xp.remainder(f, -2.0), strict.remainder(_strict(f), -2.0))
    _same(xp.pow(f, 0.0), strict.pow(_strict(f), 0.0))


def test_scipy_logsumexp_runs_on_ferroiter_arrays():
    """scipy's Array API dispatch (SCIPY_ARRAY_API=1 must be set before scipy is imported)."""
    pytest.importorskip("scipy")
    code = (
        "import numpy as np, ferroiter.array_api as xp\n"
        "from scipy.special import logsumexp\n"
        "x = xp.asarray([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]])\n"
        "out = logsumexp(x, axis=1)\n"
        "assert type(out) is xp.Array, type(out)\n"
        "want = np.log(np.exp(np.asarray(x)).sum(axis=1))\n"
        "np.testing.assert_allclose(np.asarray(out), want, rtol=1e-12)\n"
        "print('ok')\n"
    )
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"


@given(xps.arrays(xps.real_dtypes(), xps.array_shapes(min_dims=1, max_dims=3)), st.data())
def test_manipulation_matches_strict(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    theirs = _strict(x)
    _same(xp.flip(x, axis=axis), strict.flip(theirs, axis=axis))
    _same(xp.roll(x, 2, axis=axis), strict.roll(theirs, 2, axis=axis))
    _same(xp.expand_dims(x, axis=axis), strict.expand_dims(theirs, axis=axis))
    _same(xp.concat([x, x], axis=axis), strict.concat([theirs, theirs], axis=axis))
    _same(xp.stack([x, x], axis=axis), strict.stack([theirs, theirs], axis=axis))
    _same(xp.moveaxis(x, axis, 0), strict.moveaxis(theirs, axis, 0))
    if x.dtype != xp.uint8:  # uint8 sums give int64 here (no uint64, the standard's choice)
        # floats: ferroiter's scan adds in another order (and starts from +0)
        mine, cumsum = xp.cumulative_sum(x, axis=axis), strict.cumulative_sum(theirs, axis=axis)
        assert mine.dtype == _strict_dtype(cumsum) and mine.shape == cumsum.shape
        np.testing.assert_allclose(np.asarray(mine), np.asarray(cumsum), rtol=1e-5)
    _same(xp.argmax(x, axis=axis), strict.argmax(theirs, axis=axis))


def test_functions_take_plain_ferroiter_arrays():
    a = fi.asarray(np.array([[3.0, 1.0], [2.0, 5.0]]))
    b = fi.asarray(np.array([1.0, 2.0]))
    out = xp.add(a, b)
    assert type(out) is xp.Array and np.asarray(out).tolist() == [[4.0, 3.0], [3.0, 7.0]]
    assert np.asarray(xp.max(a, axis=0)).tolist() == [3.0, 5.0]
    assert np.asarray(xp.where(xp.greater(a, 2.0), a, 0.0)).tolist() == [[3.0, 0.0], [0.0, 5.0]]
