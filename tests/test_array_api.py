"""The Array API namespace (ferroiter.array_api) against array-api-strict on the same data.

Arrays come from hypothesis's Array API strategies driving *our* namespace; each result is
compared with array-api-strict's (the standard's reference implementation) in shape, dtype and
values. The standard's own conformance suite (data-apis/array-api-tests) is the fuller judge;
see README's "Array API" section for its pass rate.
"""

from __future__ import annotations

import math
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
    expected = np.asarray(theirs)
    if name in ("std", "var"):
        # the reference in float64, rounded once: strict's float32 two-pass std of equal values
        # is ~1 ulp of the mean, not 0 (std of five 205.39655 gave 1.5e-5; ferroiter 0)
        wide = getattr(strict, name)(
            strict.astype(_strict(x), strict.float64), axis=axis, keepdims=keepdims
        )
        expected = np.asarray(wide).astype(expected.dtype)
    np.testing.assert_allclose(np.asarray(mine), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("axis", [0, 1, None])
def test_var_std_are_nan_exactly_where_a_group_holds_a_nan_or_an_infinity(name, dtype, axis):
    """The kernel's var/std are NaN for a group with a NaN or an infinity (the namespace adds
    no check of its own) and finite elsewhere, over groups of 1 to 40 values (axis None: one
    group of them all)."""
    rng = np.random.default_rng(7)
    for rows in (1, 2, 3, 17, 40):
        values = rng.normal(size=(rows, 6)).astype(dtype)
        values[rng.integers(0, rows), 1] = np.inf
        values[rng.integers(0, rows), 2] = -np.inf
        values[rng.integers(0, rows), 3] = np.nan
        values[:, 4] = np.inf
        for correction in range(min(rows, 2)):
            got = np.asarray(
                getattr(xp, name)(xp.asarray(values), axis=axis, correction=correction)
            )
            finite = np.isfinite(values).all(axis=axis)
            assert np.isnan(got[~finite]).all(), (rows, correction, got)
            assert np.isfinite(got[finite]).all(), (rows, correction, got)


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


IN_PLACE = {"+=": "__iadd__", "-=": "__isub__", "*=": "__imul__", "/=": "__itruediv__"}


@given(
    st.sampled_from(list(IN_PLACE)),
    st.sampled_from(["float32", "float64", "complex64", "complex128", "int8", "int64", "uint8"]),
    st.sampled_from(["same dtype", "row", "column", "other dtype", "int", "float", "itself", "T"]),
    st.integers(0, 2**31),
)
def test_inplace_operators_like_array_api_strict(op, dtype, other_kind, seed):
    """`x op= y` writes into `x` itself (the kernel's `out=`, or the result copied in where an
    operand overlaps `x`) with the standard's dtype and shape rules: strict's values or its
    kind of error."""
    rng = np.random.default_rng(seed)
    values = (rng.integers(-20, 20, size=(3, 3)) / (1 if dtype[0] in "iu" else 4)).astype(dtype)
    if dtype.startswith("uint"):
        values = np.abs(values)
    x, sx = xp.asarray(values.copy()), strict.asarray(values.copy())
    if other_kind in ("itself", "T"):
        y, sy = (x, sx) if other_kind == "itself" else (x.T, sx.T)
    elif other_kind in ("int", "float"):
        y = sy = 3 if other_kind == "int" else 1.5
    else:
        shape = {"row": (3,), "column": (3, 1)}.get(other_kind, (3, 3))
        odt = "float64" if other_kind == "other dtype" else dtype
        v = (rng.integers(1, 9, size=shape)).astype(odt)
        y, sy = xp.asarray(v), strict.asarray(v)
    method = IN_PLACE[op]
    try:
        expected = getattr(sx, method)(sy)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            getattr(x, method)(y)
        return
    result = getattr(x, method)(y)
    assert result is x and x.shape == expected.shape
    assert_values(np.asarray(x), np.asarray(expected), mode="ulp")


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


# -- the linalg and fft extensions ----------------------------------------------------------------
#: relative tolerance of a decomposition's values by dtype (LAPACK in float32 loses more)
_LINALG_RTOL = {"float32": 2e-3, "complex64": 2e-3, "float64": 1e-9, "complex128": 1e-9}


def _near(mine, theirs, rtol: float | None = None) -> None:
    """Same dtype and shape as array-api-strict's result, values within ``rtol`` (relative to the
    largest magnitude, so tiny entries of a cancelling sum do not count)."""
    assert mine.dtype == _strict_dtype(theirs), f"dtype {mine.dtype} != {theirs.dtype}"
    assert tuple(mine.shape) == tuple(theirs.shape)
    ours, want = np.asarray(mine), np.asarray(theirs)
    tol = _LINALG_RTOL[str(ours.dtype)] if rtol is None else rtol
    scale = float(np.max(np.abs(want), initial=1.0))
    np.testing.assert_allclose(ours, want, rtol=tol, atol=tol * scale)


def _bounded(dtype, bound: float):
    """Finite elements of ``dtype`` within ``bound`` in magnitude (complex ones too)."""
    if dtype in (xp.complex64, xp.complex128):
        width = 64 if dtype == xp.complex64 else 128
        return st.complex_numbers(
            max_magnitude=bound, allow_nan=False, allow_infinity=False, width=width
        )
    return {"min_value": -bound, "max_value": bound, "allow_nan": False}


def _stack_of_matrices(dtypes=None, square: bool = True, min_side: int = 1):
    """Stacks of small matrices with entries in [-1, 1] (float and complex)."""

    @st.composite
    def draw(draw):
        stack = draw(st.sampled_from([(), (2,), (2, 1)]))
        m = draw(st.integers(min_side, 4))
        n = m if square else draw(st.integers(min_side, 4))
        dtype = draw(dtypes if dtypes is not None else xps.floating_dtypes())
        return draw(xps.arrays(dtype, (*stack, m, n), elements=_bounded(dtype, 1)))

    return draw()


def _well_conditioned(x):
    """``x`` plus ``n + 1`` times the identity: diagonally dominant, so invertible."""
    n = x.shape[-1]
    return x + (n + 1) * xp.eye(n, dtype=x.dtype)


def _hermitian_positive(x):
    """``x @ x^H + n I``: Hermitian positive definite."""
    xh = xp.conj(xp.matrix_transpose(x))
    return xp.matmul(x, xh) + x.shape[-1] * xp.eye(x.shape[-1], dtype=x.dtype)


@settings(max_examples=scaled(40))
@given(_stack_of_matrices())
def test_linalg_square_functions_match_strict(x):
    a = _well_conditioned(x)
    s = _strict(a)
    _near(xp.linalg.det(a), strict.linalg.det(s))
    _near(xp.linalg.inv(a), strict.linalg.inv(s))
    _near(xp.linalg.matrix_power(a, 3), strict.linalg.matrix_power(s, 3))
    _near(xp.linalg.matrix_power(a, -2), strict.linalg.matrix_power(s, -2))
    sign, logabsdet = xp.linalg.slogdet(a)
    theirs = strict.linalg.slogdet(s)
    _near(sign, theirs.sign)
    _near(logabsdet, theirs.logabsdet)
    b = xp.ones(a.shape[-1], dtype=a.dtype)
    _near(xp.linalg.solve(a, b), strict.linalg.solve(s, _strict(b)))
    bs = xp.ones((*a.shape[:-1], 2), dtype=a.dtype)
    _near(xp.linalg.solve(a, bs), strict.linalg.solve(s, _strict(bs)))


@settings(max_examples=scaled(40))
@given(_stack_of_matrices())
def test_linalg_hermitian_decompositions_match_strict(x):
    a = _hermitian_positive(x)
    s = _strict(a)
    _near(xp.linalg.cholesky(a), strict.linalg.cholesky(s))
    _near(xp.linalg.cholesky(a, upper=True), strict.linalg.cholesky(s, upper=True))
    res = xp.linalg.eigh(a)
    assert type(res).__name__ == "EighResult" and res._fields == ("eigenvalues", "eigenvectors")
    theirs = strict.linalg.eigh(s)
    _near(res.eigenvalues, theirs.eigenvalues)
    _near(xp.linalg.eigvalsh(a), strict.linalg.eigvalsh(s))
    # eigenvectors are unique up to a phase: check a v = v diag(w) instead
    v, w = np.asarray(res.eigenvectors), np.asarray(res.eigenvalues)
    assert res.eigenvectors.dtype == a.dtype
    tol = _LINALG_RTOL[str(a.dtype)] * 10
    np.testing.assert_allclose(np.asarray(a) @ v, v * w[..., None, :], atol=tol * a.shape[-1])


@settings(max_examples=scaled(40))
@given(_stack_of_matrices(square=False), st.booleans())
def test_linalg_svd_qr_and_friends_match_strict(x, full):
    s = _strict(x)
    u, sv, vh = xp.linalg.svd(x, full_matrices=full)
    theirs = strict.linalg.svd(s, full_matrices=full)
    assert xp.linalg.svd(x)._fields == ("U", "S", "Vh")
    _near(sv, theirs.S)
    for mine, want in zip((u, vh), (theirs.U, theirs.Vh), strict=True):
        assert mine.dtype == _strict_dtype(want) and mine.shape == want.shape
    k = min(x.shape[-2:])
    rebuilt = (np.asarray(u)[..., :, :k] * np.asarray(sv)[..., None, :]) @ np.asarray(vh)[
        ..., :k, :
    ]
    np.testing.assert_allclose(rebuilt, np.asarray(x), atol=_LINALG_RTOL[str(x.dtype)] * 10)
    _near(xp.linalg.svdvals(x), strict.linalg.svdvals(s))
    for mode in ("reduced", "complete"):
        q, r = xp.linalg.qr(x, mode=mode)
        want_q, want_r = strict.linalg.qr(s, mode=mode)
        _near(q, want_q)
        _near(r, want_r)
    _near(xp.linalg.pinv(x), strict.linalg.pinv(s))
    _same(xp.linalg.matrix_rank(x), strict.linalg.matrix_rank(s))
    for ord in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        for keepdims in (False, True):
            _near(
                xp.linalg.matrix_norm(x, ord=ord, keepdims=keepdims),
                strict.linalg.matrix_norm(s, ord=ord, keepdims=keepdims),
            )


@given(
    xps.floating_dtypes().flatmap(
        lambda dt: xps.arrays(dt, xps.array_shapes(max_dims=3), elements=_bounded(dt, 1e3))
    ),
    st.sampled_from([2, 1, 0, -1, -2, 3, 0.5, np.inf, -np.inf]),
    st.booleans(),
    st.data(),
)
def test_linalg_vector_norm_matches_strict(x, ord, keepdims, data):
    axis = data.draw(
        st.none() | (st.integers(-x.ndim, x.ndim - 1) if x.ndim else st.none()), label="axis"
    )
    with np.errstate(all="ignore"):
        theirs = strict.linalg.vector_norm(_strict(x), axis=axis, keepdims=keepdims, ord=ord)
    mine = xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
    assert mine.dtype == _strict_dtype(theirs) and mine.shape == theirs.shape
    np.testing.assert_allclose(np.asarray(mine), np.asarray(theirs), rtol=1e-4)


@given(
    xps.arrays(xps.numeric_dtypes(), xps.array_shapes(min_dims=2, max_dims=3, max_side=5)),
    st.integers(-6, 6),
)
def test_linalg_diagonal_and_trace_match_strict(x, offset):
    s = _strict(x)
    _same(xp.linalg.diagonal(x, offset=offset), strict.linalg.diagonal(s, offset=offset))
    if x.dtype in (xp.float32, xp.float64, xp.complex64, xp.complex128):
        _near(xp.linalg.trace(x, offset=offset), strict.linalg.trace(s, offset=offset), 1e-5)
    elif x.dtype != xp.uint8:  # uint8 traces: int64 here, uint64 in strict (no uint64 here)
        _same(xp.linalg.trace(x, offset=offset), strict.linalg.trace(s, offset=offset))


@given(promotable_pair(("integral", "real floating", "complex floating")), st.data())
def test_linalg_outer_and_cross_match_strict(pair, data):
    x1, x2 = (xp.reshape(v, (-1,)) for v in pair)
    with np.errstate(all="ignore"):  # numpy warns on the inf * 0 its product meets
        theirs = strict.linalg.outer(_strict(x1), _strict(x2))
    _same(xp.linalg.outer(x1, x2), theirs, "nosign0")
    shape = data.draw(st.sampled_from([(3,), (2, 3), (3, 2)]), label="shape")
    axis = -1 if shape[-1] == 3 else -2
    values = xp.reshape(xp.arange(math.prod(shape)), shape)
    a, b = xp.astype(values, x1.dtype), xp.astype(xp.flip(values), x2.dtype)
    _same(
        xp.linalg.cross(a, b, axis=axis),
        strict.linalg.cross(_strict(a), _strict(b), axis=axis),
        "nosign0",
    )
    with pytest.raises(ValueError, match="size 3"):
        xp.linalg.cross(xp.ones((2,)), xp.ones((2,)))


def test_linalg_main_namespace_functions_are_shared():
    for name in ("matmul", "matrix_transpose", "tensordot", "vecdot"):
        assert getattr(xp.linalg, name) is getattr(xp, name)
    assert xp.linalg.det(xp.ones((0, 3, 3))).shape == (0,)


_FFT_1D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
_FFT_ND = ["fftn", "ifftn", "rfftn", "irfftn"]
_FFT_RTOL = {"float32": 1e-4, "complex64": 1e-4, "float64": 1e-10, "complex128": 1e-10}


def _fft_input(name: str):
    real = name in ("rfft", "ihfft", "rfftn")
    dtypes = st.sampled_from([xp.float32, xp.float64]) if real else xps.complex_dtypes()
    return dtypes.flatmap(
        lambda dt: xps.arrays(
            dt,
            xps.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=6),
            elements=_bounded(dt, 10),
        )
    )


@st.composite
def _fft_case(draw):
    name = draw(st.sampled_from(_FFT_1D + _FFT_ND))
    x = draw(_fft_input(name))
    norm = draw(st.sampled_from(["backward", "ortho", "forward"]))
    if name in _FFT_1D:
        axis = draw(st.integers(-x.ndim, x.ndim - 1))
        n = draw(st.none() | st.integers(2, 8))
        return name, x, {"n": n, "axis": axis, "norm": norm}
    axes = draw(st.none() | st.lists(st.integers(0, x.ndim - 1), min_size=1, unique=True))
    s = None if axes is None else draw(st.none() | st.tuples(*[st.integers(2, 7)] * len(axes)))
    return name, x, {"s": s, "axes": axes, "norm": norm}


@settings(max_examples=scaled(80))
@given(_fft_case())
def test_fft_transforms_match_strict(case):
    name, x, kwargs = case
    mine = getattr(xp.fft, name)(x, **kwargs)
    theirs = getattr(strict.fft, name)(_strict(x), **kwargs)
    want = np.asarray(theirs)
    assert mine.dtype == _strict_dtype(theirs) and mine.shape == theirs.shape
    scale = float(np.max(np.abs(want), initial=1.0))
    tol = _FFT_RTOL[str(want.dtype)]
    np.testing.assert_allclose(np.asarray(mine), want, rtol=tol, atol=tol * scale)


@given(
    st.integers(1, 40),
    st.floats(0.1, 5),
    st.sampled_from([None, xp.float32, xp.float64]),
    st.sampled_from([-2, -1, 0, 1, (0, 1), None]),
)
def test_fft_frequencies_and_shifts_match_strict(n, d, dtype, axes):
    for name in ("fftfreq", "rfftfreq"):
        mine = getattr(xp.fft, name)(n, d=d, dtype=dtype, device="cpu")
        theirs = getattr(strict.fft, name)(
            n, d=d, dtype=None if dtype is None else getattr(strict, str(dtype))
        )
        _near(mine, theirs, 1e-6)
    x = xp.reshape(xp.arange(n * 3, dtype=xp.float64), (3, n))
    for name in ("fftshift", "ifftshift"):
        _same(getattr(xp.fft, name)(x, axes=axes), getattr(strict.fft, name)(_strict(x), axes=axes))
    with pytest.raises(ValueError, match="unsupported device"):
        xp.fft.fftfreq(n, device="gpu")
    with pytest.raises(ValueError, match="norm must be one of"):
        xp.fft.fft(xp.astype(x, xp.complex128), norm="none")


# -- the former numpy stand-ins, now on ferroiter's ops -------------------------------------------
_SPECIAL_PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, np.inf, -np.inf, np.nan]


@st.composite
def _special_complex(draw):
    """Complex arrays whose parts include signed zeros, halves, infinities and NaN."""
    dtype = draw(xps.complex_dtypes())
    shape = draw(xps.array_shapes(max_dims=2, max_side=6))
    n = math.prod(shape)
    parts = st.lists(st.sampled_from(_SPECIAL_PARTS), min_size=n, max_size=n)
    values = np.empty(n, dtype=dtype)
    values.real, values.imag = draw(parts), draw(parts)  # not re + 1j * im: 1j * inf has a NaN
    return xp.asarray(values.reshape(shape))


@settings(max_examples=scaled(40))
@given(_special_complex())
def test_complex_unique_round_and_sign_match_strict(x):
    s = _strict(x)
    flat, flat_s = xp.reshape(x, (-1,)), strict.reshape(s, (-1,))
    mine, theirs = xp.unique_all(flat), strict.unique_all(flat_s)
    nd = np.asarray(flat)
    nan = np.isnan(nd)
    if not nan.any():
        for field in ("values", "indices", "inverse_indices", "counts"):
            _same(getattr(mine, field), getattr(theirs, field), "nosign0")
    else:
        # where NaNs sit among themselves (and which signed zero goes first) is the sort's
        # choice: check the counts of values and each field's meaning instead
        assert mine.values.shape == theirs.values.shape
        assert int(np.asarray(mine.counts)[np.isnan(np.asarray(mine.values))].sum()) == nan.sum()
        _same(xp.take(flat, mine.indices), mine.values, "nosign0")
        assert int(xp.sum(mine.counts)) == nd.size
    # numpy's unique_inverse sorts unstably, so which NaN gets which number is its choice:
    # check that the values at the inverse indices rebuild x instead
    values, inverse = xp.unique_inverse(x)
    assert inverse.shape == x.shape and inverse.dtype == xp.int64
    _same(xp.take(values, xp.reshape(inverse, (-1,))), flat, "nosign0")
    _same(xp.unique_values(x), strict.unique_values(s), "nosign0")  # NaNs: see above
    _same(xp.round(x), strict.round(s))
    with np.errstate(all="ignore"):
        want = strict.sign(s)
    # the standard fixes 0 and NaN; elsewhere x / |x| (numpy divides as complex numbers, this
    # namespace divides each part by the real magnitude: they differ only at infinite parts)
    finite = np.isfinite(np.asarray(x))
    ours = np.asarray(xp.sign(x))
    assert ours.dtype == np.asarray(want).dtype and ours.shape == want.shape
    np.testing.assert_allclose(ours[finite], np.asarray(want)[finite], rtol=1e-6)
    nan = np.isnan(np.asarray(x))
    assert np.isnan(ours[nan].real).all() and np.isnan(ours[nan].imag).all()


@given(
    st.complex_numbers(max_magnitude=1e6, allow_nan=False),
    st.complex_numbers(max_magnitude=1e6, allow_nan=False),
    st.integers(0, 20),
    st.sampled_from([xp.float32, xp.float64, xp.complex64, xp.complex128]),
    st.booleans(),
)
def test_linspace_with_complex_ends_matches_numpy(start, stop, num, dtype, endpoint):
    mine = xp.linspace(start, stop, num, dtype=dtype, endpoint=endpoint)
    with np.errstate(all="ignore"):
        want = np.linspace(start, stop, num, endpoint=endpoint).astype(dtype)
    assert mine.dtype == dtype and mine.shape == want.shape
    scale = max(abs(start), abs(stop), 1.0)
    np.testing.assert_allclose(np.asarray(mine), want, rtol=1e-5, atol=1e-5 * scale)


_C99_FUNCTIONS = {
    "sqrt": np.sqrt, "expm1": None, "acos": np.arccos, "sinh": np.sinh, "cosh": np.cosh,
    "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
}  # fmt: skip


def _numpy_expm1(z: np.ndarray) -> np.ndarray:
    """numpy has no complex expm1: exp(z) - 1 on the real part (exp's C99 values)."""
    e = np.exp(z)
    out = e - 1
    out.imag = e.imag
    return out


@pytest.mark.parametrize("name", _C99_FUNCTIONS)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_special_values_match_numpy_up_to_unspecified_signs(name, dtype):
    """Every non-finite input of a grid against numpy's C99 values: the same magnitudes and
    NaNs everywhere (the standard leaves some signs of zero/infinite parts open, where numpy
    and the table may pick differently); the exact values are checked below."""
    parts = [0.0, -0.0, 1.0, -1.0, 2.5, -4.0, np.inf, -np.inf, np.nan]
    z = np.empty(len(parts) ** 2, dtype=dtype)
    z.real, z.imag = zip(*[(a, b) for a in parts for b in parts], strict=True)
    z = z[~np.isfinite(z)]
    mine = getattr(xp, name)(xp.asarray(z))
    with np.errstate(all="ignore"):
        numpy_fn = _C99_FUNCTIONS[name] or _numpy_expm1
        want = numpy_fn(z)
    assert mine.dtype == dtype and mine.shape == z.shape
    ours = np.asarray(mine)
    assert_values(np.abs(ours.real), np.abs(want.real), what="real part ")
    assert_values(np.abs(ours.imag), np.abs(want.imag), what="imaginary part ")


@pytest.mark.parametrize(
    ("name", "z", "want"),
    [
        ("sqrt", complex(-np.inf, 1.0), complex(0.0, np.inf)),
        ("sqrt", complex(-np.inf, -1.0), complex(0.0, -np.inf)),
        ("sqrt", complex(np.nan, np.inf), complex(np.inf, np.inf)),
        ("expm1", complex(-np.inf, 4.0), complex(-1.0, -0.0)),  # +0 * cis(4) - 1: sin(4) < 0
        ("expm1", complex(np.inf, 0.0), complex(np.inf, 0.0)),
        ("acos", complex(-np.inf, 1.0), complex(np.pi, -np.inf)),
        ("acos", complex(np.inf, -np.inf), complex(np.pi / 4, np.inf)),
        ("sinh", complex(-np.inf, 0.0), complex(-np.inf, 0.0)),
        ("sinh", complex(np.nan, -0.0), complex(np.nan, -0.0)),
        ("cosh", complex(-np.inf, 1.0), complex(np.inf * np.cos(1.0), -np.inf)),
        ("tanh", complex(np.inf, 2.5), complex(1.0, 0.0)),  # numpy: 1 - 0j (0 * sin 5)
        ("tanh", complex(-np.inf, -2.5), complex(-1.0, -0.0)),
        ("asinh", complex(1.0, np.inf), complex(np.inf, np.pi / 2)),
        ("asinh", complex(-np.inf, -np.inf), complex(-np.inf, -np.pi / 4)),
        ("acosh", complex(-np.inf, 1.0), complex(np.inf, np.pi)),
        ("acosh", complex(np.inf, -np.inf), complex(np.inf, -np.pi / 4)),
        ("atanh", complex(-1.0, np.inf), complex(-0.0, np.pi / 2)),
        ("atanh", complex(np.inf, np.nan), complex(0.0, np.nan)),
    ],
)
def test_complex_special_values_the_standard_lists(name, z, want):
    for dtype in (np.complex64, np.complex128):
        got = np.asarray(getattr(xp, name)(xp.asarray(np.array([z], dtype=dtype))))
        assert_values(got.view(got.real.dtype), np.array([want], dtype=dtype).view(got.real.dtype))


def test_promotion_table_matches_strict_for_every_pair():
    """The standard's table over every dtype pair, the unsigned ones included (uint16 + int16
    is int32; uint64 mixes with no signed type)."""
    ours = xp.__array_namespace_info__().dtypes()
    theirs = strict.__array_namespace_info__().dtypes()
    assert sorted(ours) == sorted(theirs)
    for n1 in ours:
        for n2 in ours:
            try:
                want = strict.result_type(theirs[n1], theirs[n2])
            except TypeError:
                with pytest.raises(TypeError):
                    xp.result_type(ours[n1], ours[n2])
                continue
            assert xp.result_type(ours[n1], ours[n2]) == np.dtype(str(want).rsplit(".", 1)[-1])
            assert xp.can_cast(ours[n1], ours[n2]) == strict.can_cast(theirs[n1], theirs[n2])


@pytest.mark.parametrize("name", ["uint8", "uint16", "uint32", "uint64"])
def test_unsigned_sums_default_to_uint64(name):
    x = xp.asarray([1, 2, np.iinfo(name).max], dtype=getattr(xp, name))
    y = strict.asarray([1, 2, np.iinfo(name).max], dtype=getattr(strict, name))
    for fn in ("sum", "prod", "cumulative_sum"):
        _same(getattr(xp, fn)(x), getattr(strict, fn)(y))
    assert xp.iinfo(getattr(xp, name)).max == np.iinfo(name).max


# -- the one-step calls (src/py/standard.rs) against the promoting Python path -------------------
ONE_STEP_BINARY = [
    ("add", "add", "__add__"), ("subtract", "sub", "__sub__"), ("multiply", "mul", "__mul__"),
    ("divide", "div", "__truediv__"), ("pow", "pow", "__pow__"), ("maximum", "maximum", None),
    ("equal", "eq", "__eq__"), ("not_equal", "ne", "__ne__"), ("less", "lt", "__lt__"),
    ("greater_equal", "ge", "__ge__"), ("bitwise_and", "bitwise_and", "__and__"),
    ("bitwise_xor", "bitwise_xor", "__xor__"), ("bitwise_left_shift", "bitwise_left_shift", None),
]  # fmt: skip
_SCALARS = st.one_of(
    st.booleans(),
    st.integers(-300, 300),
    st.sampled_from([2, 3, -2, 0, 2**31, 2**62, 2.0, 3.0, 0.5, -0.0, math.inf, -math.inf]),
    st.floats(allow_nan=True, width=64),
)


def _via_promotion(op: str, x1, x2):
    """What the namespace's Python path (promote, cast, call) gives, or the error it raises."""
    from ferroiter.array_api import _elementwise

    try:
        return _elementwise._binary(op, x1, x2)
    except Exception as exc:  # noqa: BLE001 - the one-step call must raise the same
        return exc


def _same_outcome(mine_call, expected) -> None:
    if isinstance(expected, Exception):
        with pytest.raises(type(expected)):
            mine_call()
        return
    mine = mine_call()
    assert type(mine) is xp.Array
    assert mine.dtype == expected.dtype and mine.shape == expected.shape
    assert_values(np.asarray(mine), np.asarray(expected), "exact")


@settings(max_examples=scaled(150))
@given(
    st.sampled_from(ONE_STEP_BINARY),
    xps.arrays(xps.scalar_dtypes(), xps.array_shapes(min_dims=0, max_dims=2, max_side=4)),
    st.data(),
)
def test_one_step_binary_calls_match_the_promoting_path(row, x, data):
    """Each function and operator of the fast set gives what promoting first gives: for two
    arrays of one dtype, an array with a Python number (either side), and every case the
    one-step call hands back (other dtypes, numbers out of the dtype's range)."""
    name, op, dunder = row
    kind = data.draw(st.sampled_from(["same", "other", "number", "number_first"]))
    if kind == "same":
        x1, x2 = x, data.draw(xps.arrays(x.dtype, x.shape))
    elif kind == "other":
        x1, x2 = x, data.draw(xps.arrays(xps.scalar_dtypes(), x.shape))
    elif kind == "number":
        x1, x2 = x, data.draw(_SCALARS)
    else:
        x1, x2 = data.draw(_SCALARS), x
    expected = _via_promotion(op, x1, x2)
    _same_outcome(lambda: getattr(xp, name)(x1, x2), expected)
    if dunder is not None and isinstance(x1, xp.Array):
        _same_outcome(lambda: getattr(x1, dunder)(x2), expected)
    if dunder in ("__add__", "__sub__", "__mul__", "__truediv__", "__pow__") and kind == (
        "number_first"
    ):
        reflected = "__r" + dunder[2:]
        _same_outcome(lambda: getattr(x2, reflected)(x1), expected)


@settings(max_examples=scaled(60))
@given(
    st.sampled_from(["exp", "sqrt", "tanh", "negative", "abs", "isnan", "log", "square"]),
    xps.arrays(xps.scalar_dtypes(), xps.array_shapes(min_dims=0, max_dims=2, max_side=4)),
)
def test_one_step_unary_calls_match_the_plain_path(name, x):
    """The unary functions in one step give what the Python path gives (complex arrays of the
    functions with the standard's complex special values go that path)."""
    from ferroiter.array_api import _elementwise as ew

    plain = {
        "sqrt": ew._with_complex_values("sqrt"),
        "tanh": ew._tanh_values,
        "negative": lambda a: ew._unary("neg", a),
    }.get(name, lambda a: ew._unary(name, a))
    try:
        want = plain(x)
    except Exception as exc:  # noqa: BLE001 - the one-step call must raise the same
        want = exc
    _same_outcome(lambda: getattr(xp, name)(x), want)


def test_pow_by_a_number_keeps_the_standard_special_cases():
    """``x ** 2`` and ``x ** 3`` run as products in one step; ``x ** 0.5`` (torch's sqrt, with
    -0 and NaN where the standard asks +0 and +inf) goes the promoting path."""
    f = xp.asarray([-0.0, -math.inf, math.inf, math.nan, -2.0, 3.0], dtype=xp.float64)
    for e in (2, 3, 2.0, 3.0, -2):
        _same(f**e, strict.asarray(np.asarray(f)) ** e)
    # numpy (so array-api-strict) takes sqrt here too; the standard asks +0 and +inf
    root = np.asarray(f**0.5)
    assert math.copysign(1.0, root[0]) == 1.0 and root[0] == 0.0
    assert root[1] == math.inf
