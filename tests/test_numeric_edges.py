"""Numeric corners where ferroiter once differed from torch (issue 13, hardening), each a
differential test: complex addition with infinite parts, the result strides of float
isinf/isfinite (torch composes them from `abs`, one iterator per step), and complex logaddexp
of operands whose real parts are far apart (torch's log1p correction overflows for complex64).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroiter as fi

from harness import NUMPY_OF, assert_result, assert_values, scaled, share, sizes_and_strides

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
