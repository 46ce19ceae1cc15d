"""uint16, uint32 and uint64 arrays: differential tests against torch where torch implements
the op for these dtypes (copies and casts, promotion and its error, mul, bitwise and/or/xor,
equality, true division, sum/prod/cumsum, sort/argsort) and against numpy where torch raises
NotImplementedError (add, sub, ordering comparisons, shifts, floor division and remainder,
neg/abs, amax/amin/argmax/argmin, searchsorted, matmul, where, clamp): numpy wraps, as
ferroiter's integer kernels do."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroiter as fi

from harness import (
    NAME_OF,
    NUMPY_OF,
    TORCH_DTYPES,
    assert_result,
    assert_same_error,
    assert_same_outcome,
    assert_values,
    scaled,
)

UNSIGNED = (torch.uint16, torch.uint32, torch.uint64)
EVERY = TORCH_DTYPES + list(UNSIGNED)

#: boundary values of each unsigned type (as Python ints)
BOUNDARY = {
    torch.uint16: [0, 1, 2**15, 2**16 - 1],
    torch.uint32: [0, 1, 2**16 - 1, 2**31, 2**32 - 1],
    torch.uint64: [0, 1, 2**16 - 1, 2**32 - 1, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1],
}
#: floats at and beyond the unsigned ranges (torch defines float -> unsigned by x86's casts)
FLOATS = [-1.5, -0.5, 0.0, 0.5, 65535.0, 70000.7, 2.0**32, 2.0**63, 1e19, 2.0**64, 7e19]


def pair(values, dtype: torch.dtype) -> tuple[fi.Array, torch.Tensor]:
    t = torch.tensor(values, dtype=dtype)
    return fi.from_numpy(np.array(values, dtype=NUMPY_OF[dtype])), t


def ints(dtype: torch.dtype, shape=(6,)):
    bits = NUMPY_OF[dtype].itemsize * 8
    edge = st.sampled_from(BOUNDARY[dtype])
    return st.lists(
        st.one_of(edge, st.integers(0, 2**bits - 1), st.integers(0, 9)),
        min_size=int(np.prod(shape)),
        max_size=int(np.prod(shape)),
    ).map(lambda v: np.array(v, dtype=NUMPY_OF[dtype]).reshape(shape))


# -- the dtype itself -------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_dtype_names_item_and_tolist(dtype):
    a, t = pair(BOUNDARY[dtype], dtype)
    assert a.dtype == NUMPY_OF[dtype]
    assert a.tolist() == t.tolist()
    assert [a[i].item() for i in range(a.numel())] == BOUNDARY[dtype]
    assert a.itemsize == t.element_size()
    assert_result(a.clone(), t.clone())
    back = np.asarray(a)
    assert back.dtype == NUMPY_OF[dtype] and back.tolist() == BOUNDARY[dtype]
    z = fi.zeros((2, 3), dtype=NAME_OF[dtype])
    assert_result(z, torch.zeros((2, 3), dtype=dtype))


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_dlpack_and_buffer_round_trip(dtype):
    a, t = pair(BOUNDARY[dtype], dtype)
    assert fi.from_dlpack(t).tolist() == BOUNDARY[dtype]
    assert torch.from_dlpack(a).tolist() == BOUNDARY[dtype]
    assert memoryview(a).format == {2: "H", 4: "I", 8: "Q"}[t.element_size()]


# -- promotion --------------------------------------------------------------------------------
@pytest.mark.parametrize("first", UNSIGNED, ids=str)
@pytest.mark.parametrize("second", EVERY, ids=str)
def test_promote_types_and_its_error(first, second):
    for x, y in ((first, second), (second, first)):
        try:
            want = torch.promote_types(x, y)
        except RuntimeError:
            assert_same_error(
                lambda x=x, y=y: fi.promote_types(NAME_OF[x], NAME_OF[y]),
                lambda x=x, y=y: torch.promote_types(x, y),
            )
        else:
            assert fi.promote_types(NAME_OF[x], NAME_OF[y]) == NUMPY_OF[want]


@pytest.mark.parametrize("first", UNSIGNED, ids=str)
@pytest.mark.parametrize("second", EVERY, ids=str)
def test_mixed_operands_promote_as_torch(first, second):
    """An elementwise op with a second array of another dtype: torch's result dtype, or its
    promotion error (mul: a kernel torch has for these dtypes)."""
    a, t = pair([1, 2, 3], first)
    b, u = pair([1, 0, 1], second)
    try:
        want = torch.mul(t, u)
    except RuntimeError as e:
        if "Promotion" not in str(e):
            raise
        assert_same_error(lambda: fi.mul(a, b), lambda: torch.mul(t, u))
    else:
        assert_result(fi.mul(a, b), want)


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_python_scalars_and_zero_dim_keep_the_unsigned_type(dtype):
    a, t = pair(BOUNDARY[dtype], dtype)
    for s in (3, -1, True, 2.5):
        assert_result(fi.mul(a, s), torch.mul(t, s))
    assert_result(fi.mul(a, fi.full((), 3)), torch.mul(t, torch.tensor(3)))
    assert_result(fi.mul(a, fi.full((), 3.0)), torch.mul(t, torch.tensor(3.0)))


def _u64(values):
    return pair(values, torch.uint64)


BIG_INT_CASES = {
    "uint64_mul_2_64_minus_1": lambda m: m(_u64([5, 7]), lambda a: a.mul(2**64 - 1)),
    "uint64_mul_2_63": lambda m: m(_u64([5, 7]), lambda a: a.mul(2**63)),
    "uint64_eq_2_64_minus_1": lambda m: m(_u64([5, 2**64 - 1]), lambda a: a.eq(2**64 - 1)),
    "int64_add_2_63": lambda m: m(pair([1, 2], torch.int64), lambda a: a.add(2**63)),
    "int32_mul_2_63": lambda m: m(pair([1, 2], torch.int32), lambda a: a.mul(2**63)),
}


@pytest.mark.parametrize("case", sorted(BIG_INT_CASES))
def test_python_ints_up_to_2_to_the_64(case):
    """torch takes Python ints in [2^63, 2^64) (its uint64 Scalar): their bits in integer
    arithmetic, their value for floats and uint64."""

    def method(arrays, fn):
        a, t = arrays
        assert_result(fn(a), fn(t))

    BIG_INT_CASES[case](method)


FULL_CASES = [
    (2**64 - 1, torch.uint64),
    (2**63, torch.float32),
    (2**63, None),
    (2**63, torch.int64),
    (2**64 - 1, torch.uint32),
]


@pytest.mark.parametrize(("value", "dtype"), FULL_CASES, ids=str)
def test_full_with_ints_up_to_2_to_the_64(value, dtype):
    name = NAME_OF[dtype] if dtype is not None else None
    result = assert_same_outcome(
        lambda: fi.full((2,), value, dtype=name), lambda: torch.full((2,), value, dtype=dtype)
    )
    if result is not None:
        assert_result(*result)


# -- casts ------------------------------------------------------------------------------------
@pytest.mark.parametrize("src", UNSIGNED, ids=str)
@pytest.mark.parametrize("dst", EVERY, ids=str)
def test_casts_from_unsigned(src, dst):
    a, t = pair(BOUNDARY[src], src)
    assert_result(a.to(NAME_OF[dst]), t.to(dst))


@pytest.mark.filterwarnings("ignore:Casting complex values")
@pytest.mark.parametrize("src", EVERY, ids=str)
@pytest.mark.parametrize("dst", UNSIGNED, ids=str)
def test_casts_into_unsigned(src, dst):
    if src.is_floating_point:
        values = FLOATS + [-v for v in FLOATS]
    elif src.is_complex:
        values = [complex(v, 1.0) for v in FLOATS]
    elif src == torch.bool:
        values = [True, False]
    elif src in UNSIGNED:
        values = BOUNDARY[src]
    else:
        info = torch.iinfo(src)
        values = [info.min, -1, 0, 1, info.max]
    if src in UNSIGNED:
        t = torch.tensor(values, dtype=src)
    else:
        t = torch.tensor(values, dtype=torch.float64 if src.is_floating_point else None).to(src)
    a = fi.from_numpy(t.numpy()) if src != torch.bfloat16 else fi.from_dlpack(t)
    # torch's float -> uint32 of an out-of-range value depends on the position (its vectorized
    # loop converts through int32, its scalar loop through int64): compare with the scalar
    # loop's, one element at a time
    want = torch.cat([t[i : i + 1].to(dst) for i in range(len(t))])
    assert_result(a.to(NAME_OF[dst]), want)


def test_nan_and_infinity_into_unsigned():
    for dst in UNSIGNED:
        for v in (float("nan"), float("inf"), -float("inf")):
            t = torch.tensor([v], dtype=torch.float64)
            assert_result(fi.from_numpy(t.numpy()).to(NAME_OF[dst]), t.to(dst))


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_full_range_checks(dtype):
    for value in (-1, 7, 2**16, -(2**16), 2**32, -1.5, 1e19, float("nan"), True):
        try:
            want = torch.full((2,), value, dtype=dtype)
        except RuntimeError:
            assert_same_error(
                lambda v=value: fi.full((2,), v, dtype=NAME_OF[dtype]),
                lambda v=value: torch.full((2,), v, dtype=dtype),
            )
        else:
            assert_result(fi.full((2,), value, dtype=NAME_OF[dtype]), want)


# -- elementwise ------------------------------------------------------------------------------
TORCH_BINARY = {
    "mul": torch.mul,
    "bitwise_and": torch.bitwise_and,
    "bitwise_or": torch.bitwise_or,
    "bitwise_xor": torch.bitwise_xor,
    "eq": torch.eq,
    "ne": torch.ne,
    "div": torch.div,
}
NUMPY_BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "floor_divide": np.floor_divide,
    "remainder": np.remainder,
}


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
@pytest.mark.parametrize("name", sorted(TORCH_BINARY))
@settings(max_examples=scaled(15), deadline=None)
@given(data=st.data())
def test_binary_like_torch(dtype, name, data):
    x = data.draw(ints(dtype, (2, 3)))
    y = data.draw(ints(dtype, (3,)))
    a, b = fi.from_numpy(x), fi.from_numpy(y)
    t, u = torch.from_dlpack(a), torch.from_dlpack(b)
    assert_result(getattr(fi, name)(a, b), TORCH_BINARY[name](t, u), mode="ulp")


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
@pytest.mark.parametrize("name", sorted(NUMPY_BINARY))
@settings(max_examples=scaled(15), deadline=None)
@given(data=st.data())
def test_binary_like_numpy(dtype, name, data):
    x = data.draw(ints(dtype, (2, 3)))
    y = data.draw(ints(dtype, (3,)))
    if name in ("floor_divide", "remainder"):
        y[y == 0] = 7
    got = getattr(fi, name)(fi.from_numpy(x), fi.from_numpy(y))
    assert got.shape == (2, 3) and got.stride() == (3, 1)
    assert_values(got.numpy(), NUMPY_BINARY[name](x, y))


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_integer_division_by_zero_raises(dtype):
    a, t = pair([1, 2], dtype)
    b, u = pair([1, 0], dtype)
    with pytest.raises(ValueError, match="ZeroDivisionError"):
        fi.floor_divide(a, b)
    with pytest.raises(ValueError, match="ZeroDivisionError"):
        fi.remainder(a, b)


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_shifts_like_numpy_within_width(dtype):
    x = np.array(BOUNDARY[dtype], dtype=NUMPY_OF[dtype])
    bits = x.itemsize * 8
    for count in (0, 1, 3, bits - 1):
        c = np.full_like(x, count)
        assert_values(fi.bitwise_left_shift(fi.from_numpy(x), fi.from_numpy(c)).numpy(), x << c)
        assert_values(fi.bitwise_right_shift(fi.from_numpy(x), fi.from_numpy(c)).numpy(), x >> c)
    # a count of the width or more shifts everything out (torch's rule for its other ints)
    c = np.full_like(x, bits)
    assert fi.bitwise_left_shift(fi.from_numpy(x), fi.from_numpy(c)).tolist() == [0] * x.size
    assert fi.bitwise_right_shift(fi.from_numpy(x), fi.from_numpy(c)).tolist() == [0] * x.size


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_unary_like_numpy(dtype):
    x = np.array(BOUNDARY[dtype], dtype=NUMPY_OF[dtype])
    a = fi.from_numpy(x)
    assert_values(fi.neg(a).numpy(), np.negative(x))
    assert_values(fi.abs(a).numpy(), np.abs(x))
    assert_values(fi.bitwise_not(a).numpy(), np.invert(x))
    assert_values(fi.sign(a).numpy(), np.sign(x))
    assert_values(fi.square(a).numpy(), np.square(x))
    lo, hi = x[1], min(x[-2], 2**63 - 1)  # (a Python int bound is an int64)
    assert_values(fi.clamp(a, int(lo), int(hi)).numpy(), np.clip(x, lo, hi))
    mask = x % 2 == 1
    assert_values(fi.where(fi.from_numpy(mask), a, a[::-1]).numpy(), np.where(mask, x, x[::-1]))


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_unary_like_torch(dtype):
    a, t = pair(BOUNDARY[dtype], dtype)
    for name in ("isnan", "isfinite", "trunc", "floor", "exp"):
        assert_result(getattr(fi, name)(a), getattr(torch, name)(t), mode="ulp")


# -- reductions, sorting, matmul --------------------------------------------------------------
@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
@settings(max_examples=scaled(20), deadline=None)
@given(data=st.data())
def test_reductions(dtype, data):
    x = data.draw(ints(dtype, (3, 4)))
    a = fi.from_numpy(x)
    t = torch.from_dlpack(a)
    for dim in (0, 1):
        assert_result(fi.sum(a, dim), torch.sum(t, dim))
        assert_result(fi.prod(a, dim), torch.prod(t, dim))
        assert_result(fi.cumsum(a, dim), torch.cumsum(t, dim))
        assert_values(fi.amax(a, dim).numpy(), x.max(dim))
        assert_values(fi.amin(a, dim).numpy(), x.min(dim))
        assert fi.argmax(a, dim).tolist() == x.argmax(dim).tolist()
        assert fi.argmin(a, dim).tolist() == x.argmin(dim).tolist()
    assert_result(fi.sum(a), torch.sum(t))
    # (float sums round by their order: on values below 2^50 every order is exact)
    small = (x.astype(np.uint64) & np.uint64(2**50 - 1)).astype(x.dtype)
    assert_result(
        fi.sum(fi.from_numpy(small), dtype="float64"),
        torch.sum(torch.from_numpy(small.astype(np.float64)), dtype=torch.float64),
    )
    assert_result(fi.all(a), torch.all(t))
    assert_result(fi.any(a), torch.any(t))


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
@settings(max_examples=scaled(20), deadline=None)
@given(data=st.data(), descending=st.booleans())
def test_sort_and_search(dtype, data, descending):
    x = data.draw(ints(dtype, (9,)))
    a = fi.from_numpy(x)
    t = torch.from_dlpack(a)
    values, indices = fi.sort(a, stable=True, descending=descending)
    want = torch.sort(t, stable=True, descending=descending)
    assert_result(values, want.values)
    assert_result(indices, want.indices)
    assert_result(fi.argsort(a, stable=True), torch.argsort(t, stable=True))
    ordered = np.sort(x)
    found = fi.searchsorted(fi.from_numpy(ordered), a)
    assert found.tolist() == np.searchsorted(ordered, x).tolist()


@pytest.mark.parametrize("dtype", UNSIGNED, ids=str)
def test_matmul_wraps_like_numpy(dtype):
    x = np.array(BOUNDARY[dtype][:4] * 3, dtype=NUMPY_OF[dtype]).reshape(3, 4)
    y = np.array(BOUNDARY[dtype][::-1][:4] * 2, dtype=NUMPY_OF[dtype]).reshape(4, 2)
    got = fi.matmul(fi.from_numpy(x), fi.from_numpy(y))
    assert_values(got.numpy(), x @ y)
