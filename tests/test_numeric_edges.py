"""Numeric corners where ferroiter once differed from torch (issue 13, hardening), each a
differential test: complex addition with infinite parts, the result strides of float
isinf/isfinite (torch composes them from `abs`, one iterator per step), complex logaddexp
of operands whose real parts are far apart (torch's log1p correction overflows for complex64),
complex log1p near zero (right where torch's same correction gives NaN: a listed
difference), and the rarer functions kept within an ulp of mpmath where libm or torch is not.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroiter as fi

from harness import (
    NUMPY_OF,
    assert_result,
    assert_values,
    scaled,
    share,
    sizes_and_strides,
    ulp_distance,
)

INF, NAN = math.inf, math.nan
PARTS = [0.0, -0.0, 1.0, -2.5, INF, -INF, NAN]


def _complex(values, dtype):
    return torch.tensor(values, dtype=dtype)


@settings(max_examples=scaled(60))
@given(
    st.lists(st.tuples(st.sampled_from(PARTS), st.sampled_from(PARTS)), min_size=1, max_size=40),
    st.lists(st.tuples(st.sampled_from(PARTS), st.sampled_from(PARTS)), min_size=1, max_size=40),
    st.sampled_from([torch.complex64, torch.complex128]),
    st.sampled_from([1, 2, -1, 0.5, 1j]),
)
def test_complex_add_and_sub_with_infinite_parts_match_torch(xs, ys, dtype, alpha):
    """`0+inf j` and friends in either operand (torch multiplies the second operand by
    `alpha` as a complex number first, so `(1+1j) + (0+inf j)` is `nan+inf j` there)."""
    n = min(len(xs), len(ys))
    x = _complex([complex(*p) for p in xs[:n]], dtype)
    y = _complex([complex(*p) for p in ys[:n]], dtype)
    a, b = share(x), share(y)
    assert_result(a + b, x + y, what="a + b: ")
    assert_result(b + a, y + x, what="b + a: ")
    assert_result(a - b, x - y, what="a - b: ")
    assert_result(fi.add(a, b, alpha=alpha), torch.add(x, y, alpha=alpha), what="alpha: ")
    assert_result(fi.sub(a, b, alpha=alpha), torch.sub(x, y, alpha=alpha), what="sub: ")
    # a Python complex scalar on either side
    for s in [complex(0, INF), complex(INF, 0), complex(NAN, 1)]:
        assert_result(a + s, x + s, what=f"a + {s}: ")
        assert_result(s + a, s + x, what=f"{s} + a: ")


def test_complex_add_zero_plus_inf_j_exactly_as_torch():
    for dtype in (torch.complex64, torch.complex128):
        x = _complex([complex(0, INF)] * 3, dtype)
        y = _complex([1 + 1j, complex(0, INF), complex(INF, 0)], dtype)
        for mine, theirs in [
            (share(x) + share(y), x + y),
            (share(y) + share(x), y + x),
            (share(x) + 1, x + 1),
            (share(y) + share(x).expand(3), y + x.expand(3)),
        ]:
            assert_result(mine, theirs)


#: float and complex dtypes (integers are answered by zeros_like / ones_like: strides tested in
#: test_ops)
PREDICATE_DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.complex64]


@settings(max_examples=scaled(150))
@given(sizes_and_strides(), st.sampled_from(PREDICATE_DTYPES), st.integers(0, 2**32 - 1))
def test_isinf_isfinite_result_strides_match_torch(layout, dtype, seed):
    """Any sizes@strides (size-0 and size-1 dims, zero and odd strides): isinf, isfinite and
    isnan give torch's shape, strides, dtype and values."""
    shape, strides = layout
    span = 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if n > 0)
    rng = np.random.default_rng(seed)
    pool = np.array([0.0, 1.5, -2.0, INF, -INF, NAN])
    base = torch.from_numpy(rng.choice(pool, size=span if min(shape, default=1) > 0 else 1))
    if dtype.is_complex:
        imag = torch.from_numpy(rng.choice(pool, size=base.numel()))
        base = torch.complex(base, imag)
    t = base.to(dtype).as_strided(shape, strides)
    a = share(t)
    for name in ("isinf", "isfinite", "isnan"):
        assert_result(getattr(fi, name)(a), getattr(torch, name)(t), what=f"{name}: ")


def test_isinf_isfinite_strides_of_listed_layouts():
    """Layouts where one iterator pass and torch's two-step composite disagree."""
    cases = [
        ((1, 2), (1, 2)),
        ((0, 1), (1, 1)),
        ((1, 3, 1), (2, 2, 2)),
        ((1, 1, 2), (1, 1, 2)),
        ((0, 1, 3, 0), (0, 1, 0, 1)),
        ((1, 3, 0, 1), (3, 1, 3, 3)),
        ((1, 0, 1, 2), (1, 1, 1, 2)),
    ]
    for shape, strides in cases:
        for dtype in PREDICATE_DTYPES:
            t = torch.zeros(64, dtype=dtype).as_strided(shape, strides)
            a = share(t)
            for name in ("isinf", "isfinite"):
                assert_result(getattr(fi, name)(a), getattr(torch, name)(t), what=f"{name}: ")


@settings(max_examples=scaled(100))
@given(
    st.lists(st.floats(-130, 130, allow_nan=False), min_size=1, max_size=16),
    st.lists(st.floats(-4, 4, allow_nan=False), min_size=1, max_size=16),
    st.lists(st.floats(-4, 4, allow_nan=False), min_size=1, max_size=16),
    st.sampled_from([torch.complex64, torch.complex128]),
)
def test_complex_logaddexp_far_apart_matches_torch(gaps, ims_a, ims_b, dtype):
    """Real parts up to 130 apart: torch's complex64 result is `nan+nanj` where `exp(min -
    max)` is subnormal with a non-zero imaginary part (its log1p divides by `(1 + z) - 1`,
    whose reciprocal overflows), finite elsewhere; ferroiter gives the same."""
    n = min(len(gaps), len(ims_a), len(ims_b))
    x = _complex([complex(g, i) for g, i in zip(gaps[:n], ims_a[:n], strict=True)], dtype)
    y = _complex([complex(0.0, i) for i in ims_b[:n]], dtype)
    mine = fi.logaddexp(share(x), share(y)).numpy()
    theirs = torch.logaddexp(x, y).numpy()
    assert np.array_equal(np.isnan(mine), np.isnan(theirs)), (mine, theirs)
    assert_values(mine, theirs, "complex")
    swapped = fi.logaddexp(share(y), share(x)).numpy()
    assert_values(swapped, torch.logaddexp(y, x).numpy(), "complex")


def test_complex64_logaddexp_at_listed_gaps():
    for gap in [80.0, 87.0, 88.0, 89.0, 90.0, 95.0, 100.0, 103.0, 104.0, 110.0, 200.0]:
        for im in [0.0, 2.0, -1.0]:
            x = _complex([complex(gap, 0.0)], torch.complex64)
            y = _complex([complex(0.0, im)], torch.complex64)
            mine, theirs = fi.logaddexp(share(x), share(y)), torch.logaddexp(x, y)
            assert mine.dtype == NUMPY_OF[torch.complex64]
            assert_values(mine.numpy(), theirs.numpy(), "complex", what=f"gap {gap}, im {im}: ")


#: magnitudes of the parts of `log1p`'s edge inputs: zeros, float32/float64 subnormals, the
#: tiny normals around `1 / max` of each dtype, values where `1 + x` rounds to 1 in one dtype
#: and not in the other, moderate and huge parts (tiny real part with a large imaginary one)
LOG1P_PARTS = {
    torch.complex64: [0.0, 1e-45, 1e-40, 1e-39, 2.9e-39, 3e-39, 1e-38, 1e-30, 1e-20, 1e-10,
                      2.9e-8, 6e-8, 1e-4, 0.3, 1.0, 1e10, 1e30],
    torch.complex128: [0.0, 5e-324, 1e-310, 5e-309, 6e-309, 1e-300, 1e-200, 1e-40, 1e-20,
                       1e-17, 2e-16, 1e-8, 0.3, 1.0, 1e10, 1e200],
}  # fmt: skip


def torch_log1p_is_nan(z: np.ndarray) -> np.ndarray:
    """A listed difference from torch (a torch bug, not followed): torch's complex `log1p(z)`
    is `(log(u) · z / (u - 1))` with `u = 1 + z` rounded; where `1 + x` rounds to 1 with
    `x != 0` and `0 < |y| < 1 / max` of the dtype, `u - 1 = i·y` and its reciprocal overflows,
    so torch gives nan+nanj (torch.log1p(tensor(1e-40+1e-40j)) in complex64, and likewise
    for complex128 below 5.6e-309). The answer there is `z` to within an ulp (log1p(z) ≈ z),
    which ferroiter gives (its logaddexp keeps torch's formula, NaN included, on purpose:
    test_complex_logaddexp_far_apart_matches_torch)."""
    x, y = np.abs(z.real), np.abs(z.imag)
    one = x.dtype.type(1)
    with np.errstate(over="ignore", divide="ignore"):
        return (x != 0) & (x + one == one) & (y != 0) & np.isinf(one / y)


def _log1p_reference(z: np.ndarray) -> np.ndarray:
    """log(1 + z) at 1200 bits (1 + 2⁻¹⁰⁷⁴ held exactly; what it drops, such as y²/2 next to
    a zero real part for |y| < 2⁻⁶⁰⁰, underflows float64 anyway), rounded per part."""
    import mpmath

    with mpmath.workprec(1200):
        out = [complex(mpmath.log(1 + mpmath.mpc(complex(v)))) for v in z.reshape(-1)]
    return np.array(out, dtype=z.dtype).reshape(z.shape)


def test_complex_log1p_near_zero_is_right_and_matches_torch_outside_its_nan():
    for dtype, parts in LOG1P_PARTS.items():
        signed = np.array(parts + [-p for p in parts if p != 0] + [-0.0])
        re, im = np.meshgrid(signed, signed, indexing="ij")
        z = (re + 1j * im).astype(NUMPY_OF[dtype]).reshape(-1)
        mine = fi.log1p(fi.from_numpy(z)).numpy()
        # the same values through a reversed (negative-stride) view: one kernel, same bits
        backwards = fi.log1p(fi.from_numpy(z[::-1])).numpy()[::-1]
        assert np.array_equal(mine.view(np.uint8), np.ascontiguousarray(backwards).view(np.uint8))
        # every part within 2 ulps of the truth (complex64 is computed in float64)
        want = _log1p_reference(z)
        dist = ulp_distance(mine, want)
        bad = np.flatnonzero(dist > 2)
        assert bad.size == 0, [(z[i], mine[i], want[i]) for i in bad[:5]]
        theirs = torch.log1p(torch.from_numpy(z)).numpy()
        listed = torch_log1p_is_nan(z)
        # torch's NaN region is exactly the listed one (if torch fixes it, this tells)
        assert np.array_equal(np.isnan(theirs.real) & np.isnan(theirs.imag), listed)
        assert listed.sum() > 0 and not np.isnan(mine[listed]).any()
        assert_values(mine[~listed], theirs[~listed], "complex", what=f"log1p {dtype}: ")


#: (function, dtype, sample ranges): the rarer functions whose result ferroiter keeps within an
#: ulp of the truth where libm's or torch's is 2 ulps off (float64 sinh below 1 and atanh below
#: 0.5 in magnitude: glibc's sinh, the log1p form of atanh; float32 acosh near 1: torch's)
RARE_WITHIN_AN_ULP = [
    ("sinh", np.float64, [(-1.0, 1.0), (1.0, 700.0), (-30.0, -1.0)]),
    ("atanh", np.float64, [(-0.5, 0.5), (-1.0, 1.0)]),
    ("acosh", np.float32, [(1.0, 1.2), (1.0, 1e6)]),
]


@pytest.mark.parametrize(("name", "dtype", "ranges"), RARE_WITHIN_AN_ULP)
def test_rare_functions_within_an_ulp_of_mpmath(name, dtype, ranges):
    import mpmath

    rng = np.random.default_rng(sum(map(ord, name)))
    x = np.concatenate([rng.uniform(lo, hi, scaled(1500)) for lo, hi in ranges]).astype(dtype)
    mine = getattr(fi, name)(fi.from_numpy(x)).numpy()
    with mpmath.workprec(120):
        want = np.array([float(getattr(mpmath, name)(mpmath.mpf(float(v)))) for v in x])
    dist = ulp_distance(mine, want.astype(dtype))
    bad = np.flatnonzero(dist > 1)
    assert bad.size == 0, [(x[i], mine[i], want[i], dist[i]) for i in bad[:5]]
