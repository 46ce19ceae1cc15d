"""Reductions and scans, differential against torch: random layouts (channels_last, permuted,
sliced, expanded, negative strides from numpy, 0-d, size-0 and size-1 dims), every dim subset,
keepdim both ways, every dtype — shape, strides, dtype, values and error texts — plus the
determinism promise (identical bits at any thread count and grain size)."""

from __future__ import annotations

import itertools
import warnings

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import ferroiter as fi

from harness import (
    TORCH_DTYPES,
    assert_same,
    assert_same_error,
    assert_same_outcome,
    layout_pairs,
    share,
    torch_to_numpy,
)


def comparable(nd: np.ndarray) -> np.ndarray:
    """bfloat16 values as float32 (exact: every bfloat16 is a float32), for numpy arithmetic."""
    return nd.astype(np.float32) if nd.dtype == np.dtype(ml_dtypes.bfloat16) else nd


#: Reductions taking (dim, keepdim); dims: "many" takes tuples, "one" a single int.
REDUCTIONS = {
    "sum": "many",
    "mean": "many",
    "amax": "many",
    "amin": "many",
    "all": "many",
    "any": "many",
    "prod": "one",
    "argmax": "one",
    "argmin": "one",
}

#: Ops whose float results depend on the summation order: compared with a tolerance.
INEXACT = {"prod", "var", "std"}


def assert_close_or_same(
    a: fi.Array, t: torch.Tensor, exact: bool, half_product: bool = False
) -> None:
    """Shape, strides, dtype always; values exactly, or within a tolerance for inexact ops
    (for a float16/bfloat16 product in another order than torch's, where they are finite in
    both: whether it overflows, to inf or to nan after a 0, depends on the order)."""
    assert_same(a, t, values=exact)
    if not exact:
        mine = comparable(a.numpy()).astype(np.complex128 if t.dtype.is_complex else np.float64)
        theirs = comparable(torch_to_numpy(t)).astype(mine.dtype)
        rtol = 1e-2 if t.dtype in (torch.float16, torch.bfloat16) else 1e-5
        if half_product and t.dtype in (torch.float16, torch.bfloat16):
            finite = np.isfinite(mine) & np.isfinite(theirs)
            mine, theirs = mine[finite], theirs[finite]
        np.testing.assert_allclose(mine, theirs, rtol=rtol, atol=1e-6, equal_nan=True)


@st.composite
def dim_args(draw, ndim: int, kind: str):
    """A dim argument torch may accept (or refuse with a message to compare): None, an int (maybe
    negative or out of range), or a subset of the dims as a tuple (maybe with a repeat)."""
    r = max(ndim, 1)
    choices = [st.none(), st.integers(-r - 1, r)]
    if kind == "many":
        subset = st.lists(st.integers(-r, r - 1), max_size=ndim + 1).map(tuple)
        choices.append(subset)
    return draw(st.one_of(*choices))


def call(mod, name, x, dim, keepdim, **kw):
    if dim is None:
        return getattr(mod, name)(x, **kw)
    return getattr(mod, name)(x, dim, keepdim, **kw)


@given(layout_pairs(max_ops=3, max_ndim=4), st.sampled_from(sorted(REDUCTIONS)), st.data())
def test_reductions_match_torch(pair, name, data):
    a, t = pair
    dim = data.draw(dim_args(t.dim(), REDUCTIONS[name]))
    keepdim = data.draw(st.booleans())
    if name in ("amax", "amin") and dim is None:
        dim = ()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome = assert_same_outcome(
            lambda: call(fi, name, a, dim, keepdim),
            lambda: call(torch, name, t, dim, keepdim),
            kind=TypeError
            if name == "mean" and not (t.dtype.is_floating_point or t.dtype.is_complex)
            else None,
        )
    if outcome is not None:
        mine, theirs = outcome
        assert_close_or_same(
            mine,
            theirs,
            exact=name not in INEXACT
            or not (t.dtype.is_floating_point or t.dtype.is_complex)
            or half_prod_in_torch_order(name, a, t),
            half_product=name == "prod",
        )


def half_prod_in_torch_order(name: str, a: fi.Array, t: torch.Tensor) -> bool:
    """Whether ferroiter multiplies this float16/bfloat16 prod in the order torch does (each
    product rounded to the dtype, in torch's vector loop's order), so that the bits agree:
    torch on one thread (fewer elements than its grain) and an array torch can hold (no
    negative strides: ferroiter's plan of a numpy view read backwards coalesces other runs
    than the plan of torch's positive-stride twin)."""
    if name != "prod" or t.dtype not in (torch.float16, torch.bfloat16):
        return False
    return t.numel() < 32768 and all(s >= 0 for s in a.stride())


@given(layout_pairs(max_ops=3, max_ndim=4), st.sampled_from(["var", "std"]), st.data())
def test_var_std_match_torch(pair, name, data):
    a, t = pair
    dim = data.draw(dim_args(t.dim(), "many"))
    keepdim = data.draw(st.booleans())
    correction = data.draw(st.sampled_from([None, 0, 1, 2, 0.5]))
    kw = {} if correction is None else {"correction": correction}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome = assert_same_outcome(
            lambda: getattr(fi, name)(a, dim, keepdim=keepdim, **kw),
            lambda: getattr(torch, name)(t, dim, keepdim=keepdim, **kw),
            kind=TypeError if not (t.dtype.is_floating_point or t.dtype.is_complex) else None,
        )
    if outcome is not None:
        assert_close_or_same(*outcome, exact=False)


@given(layout_pairs(max_ops=3, max_ndim=4), st.sampled_from(["cumsum", "cumprod"]), st.data())
def test_scans_match_torch(pair, name, data):
    a, t = pair
    r = max(t.dim(), 1)
    dim = data.draw(st.integers(-r - 1, r))
    outcome = assert_same_outcome(
        lambda: getattr(fi, name)(a, dim), lambda: getattr(torch, name)(t, dim)
    )
    if outcome is not None:
        exact = name == "cumsum" or not t.dtype.is_floating_point
        assert_close_or_same(*outcome, exact=exact)


@given(layout_pairs(max_ops=2, max_ndim=4), st.data())
def test_count_nonzero_and_methods(pair, data):
    a, t = pair
    dim = data.draw(dim_args(t.dim(), "many"))
    outcome = assert_same_outcome(lambda: a.count_nonzero(dim), lambda: t.count_nonzero(dim))
    if outcome is not None:
        assert_same(*outcome)
    outcome = assert_same_outcome(lambda: a.sum(), lambda: t.sum())
    if outcome is not None:
        assert_same(*outcome)


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("step", [-1, -2])
def test_negative_strides_from_numpy(dtype, step):
    t = torch.arange(60).reshape(3, 4, 5).to(dtype)
    nd = torch_to_numpy(t)[::step, :, ::-1]
    a = fi.from_numpy(nd)
    # the same values, contiguous, on torch's side (bfloat16 through float32: exact)
    tv = torch.from_numpy(np.ascontiguousarray(comparable(nd))).to(dtype)
    for dims in [None, 0, (1,), (0, 2), (-1, 0, 1)]:
        out = assert_same_outcome(
            lambda dims=dims: fi.sum(a, dims), lambda dims=dims: torch.sum(tv, dims)
        )
        if out is not None:
            mine, theirs = out
            assert_same(mine, theirs)
    if dtype not in (torch.bool, torch.complex64, torch.complex128):
        assert_same(fi.argmax(a, 2), torch.argmax(tv, 2))
        assert_same(fi.amax(a, (0, 2)), torch.amax(tv, (0, 2)))
    assert_same(fi.cumsum(a, 1), torch.cumsum(tv, 1))
    assert_same(fi.cumsum(a, 0), torch.cumsum(tv, 0))


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4), ()])
def test_empty_and_zero_d(shape):
    t = torch.zeros(shape)
    a = share(t) if t.numel() else fi.zeros(shape)
    for name in ["sum", "prod", "mean", "all", "any"]:
        assert_same(getattr(fi, name)(a), getattr(torch, name)(t))
        for d in range(t.dim()):
            assert_same(getattr(fi, name)(a, d), getattr(torch, name)(t, d))
    for name in ["amax", "amin", "argmax", "argmin"]:
        for d in [None, *range(t.dim())]:
            dd = () if d is None and name in ("amax", "amin") else d
            out = assert_same_outcome(
                lambda name=name, dd=dd: getattr(fi, name)(a, dd),
                lambda name=name, dd=dd: getattr(torch, name)(t, dd),
            )
            if out is not None:
                assert_same(*out)


def test_error_texts():
    t = torch.zeros(2, 3, dtype=torch.int64)
    a = fi.zeros((2, 3), dtype="int64")
    assert_same_error(lambda: fi.mean(a), lambda: torch.mean(t), kind=TypeError)
    assert_same_error(
        lambda: fi.mean(a.to("float32"), dtype="int32"),
        lambda: torch.mean(t.float(), dtype=torch.int32),
        kind=TypeError,
    )
    assert_same_error(lambda: fi.sum(a, 2), lambda: torch.sum(t, 2))
    assert_same_error(lambda: fi.sum(a, (0, -2)), lambda: torch.sum(t, (0, -2)))
    assert_same_error(lambda: fi.var(a), lambda: torch.var(t), kind=TypeError)
    e, te = fi.zeros((0, 3)), torch.zeros(0, 3)
    assert_same_error(lambda: fi.amax(e, 0), lambda: torch.amax(te, 0))
    assert_same_error(lambda: fi.amax(e), lambda: torch.amax(te))
    assert_same_error(lambda: fi.argmin(e), lambda: torch.argmin(te))
    assert_same_error(lambda: fi.argmax(e, 0), lambda: torch.argmax(te, 0))
    assert_same_error(
        lambda: fi.argmax(fi.zeros((3,), dtype="bool")),
        lambda: torch.argmax(torch.zeros(3, dtype=torch.bool)),
    )
    assert_same_error(lambda: fi.cumsum(a, 2), lambda: torch.cumsum(t, 2))


def test_dtype_rules_and_out():
    t = torch.arange(6, dtype=torch.int32).reshape(2, 3)
    a = share(t)
    assert_same(fi.sum(a, 0), torch.sum(t, 0))
    assert_same(fi.sum(a, 0, dtype="int16"), torch.sum(t, 0, dtype=torch.int16))
    assert_same(fi.sum(a, 0, dtype="float16"), torch.sum(t, 0, dtype=torch.float16))
    assert_same(fi.prod(a, 1), torch.prod(t, 1))
    assert_same(fi.cumsum(a, 1), torch.cumsum(t, 1))
    assert_same(fi.cumsum(a, 1, dtype="float64"), torch.cumsum(t, 1, dtype=torch.float64))
    assert_same(fi.mean(a, 0, dtype="float64"), torch.mean(t, 0, dtype=torch.float64))
    u = torch.tensor([0, 3], dtype=torch.uint8)
    assert_same(fi.all(share(u)), torch.all(u))
    # out=: resized with torch's warning, dtype taken from the out
    o, to = fi.empty((5,), dtype="float64"), torch.empty(5, dtype=torch.float64)
    with pytest.warns(UserWarning, match="was resized"):
        r = fi.sum(a, 0, out=o)
    torch.sum(t, 0, out=to)
    assert r is o
    assert_same(o, to)
    assert_same_error(
        lambda: fi.amax(a, 0, out=fi.empty((3,), dtype="int64")),
        lambda: torch.amax(t, 0, out=torch.empty(3, dtype=torch.int64)),
    )
    assert_same_error(
        lambda: fi.argmax(a, 0, out=fi.empty((3,), dtype="int32")),
        lambda: torch.argmax(t, 0, out=torch.empty(3, dtype=torch.int32)),
    )


def test_nan_propagation_and_first_index_of_ties():
    t = torch.tensor([[1.0, float("nan"), 3.0, 3.0], [2.0, 2.0, float("nan"), float("nan")]])
    a = share(t)
    for name in ["amax", "amin", "argmax", "argmin", "sum", "mean"]:
        for d in [0, 1, -1]:
            assert_same(getattr(fi, name)(a, d), getattr(torch, name)(t, d))
    assert_same(fi.argmax(a), torch.argmax(t))
    ties = torch.tensor([5, 1, 5, 1, 5], dtype=torch.int16)
    assert_same(fi.argmax(share(ties)), torch.argmax(ties))
    assert_same(fi.argmin(share(ties)), torch.argmin(ties))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_amax_amin_of_long_runs_with_nan_and_infinities(dtype):
    """Runs of many chunks (taken four chunks side by side, through the explicit vector loops
    where the CPU has AVX2): torch's values, a NaN or an infinity anywhere in any chunk, the
    whole array or rows of it."""
    g = torch.Generator().manual_seed(7)
    # 64 chunks and a bit: at least four to a piece of the parallel split on 2-8 threads
    n = 64 * 32768 + 517
    base = (torch.rand(n, generator=g, dtype=torch.float64) * 200 - 100).to(dtype)
    spots = [0, 5, 32768 * 2 + 1023, 32768 * 37 + 1024, n - 1]
    for name in ("amax", "amin"):
        for spot, value in itertools.product(spots, [float("nan"), float("inf"), -float("inf")]):
            t = base.clone()
            t[spot] = value
            assert_same(
                getattr(fi, name)(share(t)), getattr(torch, name)(t), what=f"{spot} {value}: "
            )
        assert_same(getattr(fi, name)(share(base)), getattr(torch, name)(base))
        rows = base[: 8 * 262144].reshape(8, 262144).clone()
        rows[4, 140000] = float("nan")
        for d in (1, None):
            dd = () if d is None else d
            assert_same(getattr(fi, name)(share(rows), dd), getattr(torch, name)(rows, dd))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_prod_multiplies_in_the_dtype_in_torch_order(dtype):
    # each product rounded to the dtype: 60000 * 60000 overflows float16 to inf, times 0 is
    # nan; 300 * 300 * (1/256) overflows too (exact: 351.5)
    for values in ([60000.0, 60000.0, 0.0], [300.0, 300.0, 1 / 256], [0.0, 60000.0, 60000.0]):
        t = torch.tensor(values, dtype=dtype)
        assert_same(fi.prod(share(t)), torch.prod(t))
    # torch's order: contiguous rows in its vector loop's lanes from 64 elements on (every
    # length around the steps), outer dims and strided runs one element at a time; special
    # values among random ones
    g = torch.Generator().manual_seed(1)
    for n in [63, 64, 65, 127, 128, 129, 200, 1000, 4099]:
        t = (torch.rand(n, generator=g) * 0.2 + 0.9).to(dtype)
        assert_same(fi.prod(share(t)), torch.prod(t))
    x = torch.rand(40, 6, 130, generator=g) * 4 - 2
    x[torch.rand(x.shape, generator=g) < 0.03] = float("inf")
    x[torch.rand(x.shape, generator=g) < 0.03] = 0.0
    x[torch.rand(x.shape, generator=g) < 0.01] = float("nan")
    views = (x.to(dtype), x.to(dtype).permute(2, 0, 1), x.to(dtype)[::3, :, 1::2].transpose(0, 1))
    for t in views:
        assert_same(fi.prod(share(t)), torch.prod(t))
        for d in range(t.dim()):
            for keepdim in (False, True):
                assert_same(fi.prod(share(t), d, keepdim), torch.prod(t, d, keepdim))
    # 200 rows along an outer dim: torch's column loop is in order at any length
    col = (torch.rand(200, 33, generator=g) * 0.4 + 0.8).to(dtype)
    assert_same(fi.prod(share(col), 0), torch.prod(col, 0))


def test_float32_sum_of_three_times_two_to_the_24_ones_is_exact():
    n = 3 * 2**24
    s = fi.sum(fi.ones((n,)))
    assert s.item() == float(n)


def test_channels_last_sum_over_hw_is_not_copied():
    g = torch.Generator().manual_seed(0)
    t = torch.randn(4, 8, 6, 5, generator=g).contiguous(memory_format=torch.channels_last)
    a = share(t)
    r = fi.sum(a, (2, 3), keepdim=True)
    assert_same(r, torch.sum(t, (2, 3), keepdim=True), values=False)
    np.testing.assert_allclose(
        r.numpy(), torch.sum(t, (2, 3), keepdim=True).numpy(), rtol=1e-5, atol=1e-5
    )
    # the plan reads the input where it is: the reduction iterator's input is the array itself
    assert fi.mean(a, (0, 2, 3)).shape == (8,)


@pytest.mark.parametrize(
    ("shape", "dtype"),
    [
        ((4, 16, 56, 56), torch.float32),  # rows 64 bytes apart: panels of 256 rows
        ((3, 32, 20, 20), torch.float32),  # 128 bytes: panels of 128, a partial one per image
        ((2, 24, 30, 30), torch.float32),  # three registers of columns
        ((3, 16, 40, 40), torch.float64),  # 128 bytes
        ((2, 8, 33, 31), torch.float64),  # 64 bytes, odd H and W
    ],
    ids=str,
)
def test_channels_last_sums_over_hw_in_panels_match_torch(shape, dtype):
    """Narrow channels_last images (rows at most 128 bytes apart, at least 128 rows a run): the
    AVX2 outer-dim path adds them in panels of 16 KiB. Shape, strides and dtype as torch's,
    values within a tolerance (another order of additions), and the same bits as the sum of a
    contiguous copy (the panels keep each column's 16-lane tree)."""
    g = torch.Generator().manual_seed(sum(shape))
    t = torch.randn(*shape, generator=g, dtype=dtype).contiguous(memory_format=torch.channels_last)
    a = share(t)
    for dims, keepdim in [((2, 3), False), ((2, 3), True), ((0, 2, 3), False)]:
        mine, theirs = fi.sum(a, dims, keepdim=keepdim), torch.sum(t, dims, keepdim=keepdim)
        assert_same(mine, theirs, values=False)
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-4)
        mean = fi.mean(a, dims, keepdim=keepdim)
        assert_same(mean, torch.mean(t, dims, keepdim=keepdim), values=False)
        np.testing.assert_allclose(
            mean.numpy(), torch.mean(t, dims, keepdim=keepdim).numpy(), rtol=1e-5, atol=1e-6
        )
    nchw = fi.sum(a.contiguous(), (2, 3)).numpy()
    assert fi.sum(a, (2, 3)).numpy().tobytes() == nchw.tobytes()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("cols", [1, 7, 16, 33, 64, 100, 1023, 1024, 2048, 3072, 5000, 16384])
def test_short_rows_summed_sixteen_at_a_time_match_torch(cols, dtype):
    """Rows of at most a block (1024 elements) or of 2 to 16 whole blocks summed along them go
    16 blocks to a call, each row's blocks then through its counter (rows of 5000 take another
    path): shape, strides and dtype as torch's, values within a tolerance, infinities and
    signed zeros kept; the kept dims in any layout (transposed, a stepped slice, keepdim), and
    each row's bits the same as in a contiguous copy, as along a strided run (the generic
    loop's lanes and counter) and at 1 or 2 threads (the last call of a piece of work repeats
    a row's blocks)."""
    g = torch.Generator().manual_seed(cols)
    t = torch.randn(3, 37, cols, generator=g, dtype=dtype)
    t[0, 5, 0] = float("inf")
    t[1, 2, :] = -0.0
    for view in [t, t.transpose(0, 1), t[:, ::3]]:
        a = share(view)
        for keepdim in [False, True]:
            mine, theirs = fi.sum(a, -1, keepdim=keepdim), torch.sum(view, -1, keepdim=keepdim)
            assert_same(mine, theirs, values=False)
            np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-4)
        mean = fi.mean(a, -1)
        np.testing.assert_allclose(mean.numpy(), torch.mean(view, -1).numpy(), rtol=1e-5, atol=1e-6)
        want = fi.sum(a.contiguous(), -1).numpy().tobytes()
        spaced = torch.zeros(*view.shape[:-1], 2 * cols, dtype=dtype)[..., ::2]
        spaced.copy_(view)
        assert fi.sum(share(spaced), -1).numpy().tobytes() == want
        old = fi.get_num_threads()
        try:
            for threads in [1, 2]:
                fi.set_num_threads(threads)
                assert fi.sum(a, -1).numpy().tobytes() == want, threads
        finally:
            fi.set_num_threads(old)
    assert np.signbit(fi.sum(share(t[1, 2]), 0).numpy()) == np.signbit(torch.sum(t[1, 2]).numpy())


@pytest.mark.parametrize("n", [100, 32768, 32769, 70001, 3 * 32768 + 5])
def test_identical_bits_at_any_thread_count_and_grain(n):
    rng = np.random.default_rng(n)
    x = fi.from_numpy(rng.standard_normal(n).astype(np.float32))
    m = fi.from_numpy(rng.standard_normal((n // 50 + 1, 50)).astype(np.float32))
    wide = fi.from_numpy(rng.standard_normal((n // 1000 + 17, 1000)).astype(np.float32))
    nhwc = rng.standard_normal((2, n // 640 + 3, 5, 64)).astype(np.float32)
    image = fi.from_numpy(nhwc.transpose(0, 3, 1, 2))
    # many rows, few columns: the outer-dim path cuts the rows into groups of blocks by the
    # thread count (a last partial group included)
    tall = fi.from_numpy(rng.standard_normal((5000 + n % 3000, 40)).astype(np.float32))
    # four units side by side (whole chunks of one run; rows a whole number of lines apart),
    # grouped within each piece of work, which the thread count and grain change
    long = fi.from_numpy(rng.standard_normal(17 * 32768 + n).astype(np.float32))
    rows = fi.from_numpy(rng.standard_normal((n // 1024 + 17, 2048)))
    results = {}
    old_threads, old_grain = fi.get_num_threads(), fi.get_grain_size()
    try:
        for threads, grain in itertools.product([1, 2, 3], [7, 1000, fi.GRAIN_SIZE]):
            fi.set_num_threads(threads)
            fi.set_grain_size(grain)
            got = [
                fi.sum(x).numpy().tobytes(),
                fi.mean(x).numpy().tobytes(),
                fi.sum(m, 0).numpy().tobytes(),
                fi.sum(m, 1).numpy().tobytes(),
                fi.mean(m, 0).numpy().tobytes(),
                fi.cumsum(x, 0).numpy().tobytes(),
                fi.cumsum(m, 0).numpy().tobytes(),
                fi.var(x).numpy().tobytes(),
                # the outer-dim path on a wide matrix (tiles cut by the thread count) and on a
                # channels_last H,W sum; argmax/argmin's order-free loops
                fi.sum(wide, 0).numpy().tobytes(),
                fi.sum(image, (2, 3)).numpy().tobytes(),
                fi.sum(tall, 0).numpy().tobytes(),
                fi.argmin(tall, 0).numpy().tobytes(),
                fi.argmax(x).numpy().tobytes(),
                fi.argmin(x).numpy().tobytes(),
                fi.argmax(wide, 0).numpy().tobytes(),
                fi.sum(long).numpy().tobytes(),
                fi.sum(rows, 1).numpy().tobytes(),
            ]
            results[(threads, grain)] = got
    finally:
        fi.set_num_threads(old_threads)
        fi.set_grain_size(old_grain)
    first = next(iter(results.values()))
    for key, got in results.items():
        assert got == first, f"bits differ at threads, grain = {key}"
    # and close to float64's answer
    exact = float(np.sum(x.numpy().astype(np.float64)))
    assert abs(fi.sum(x).item() - exact) <= 1e-4 * max(1.0, abs(exact)) + 1e-3
    # the outer-dim path computes each column's tree as the inner path does: the same bits
    # whether the reduced dim is strided or contiguous
    assert (
        fi.sum(wide, 0).numpy().tobytes()
        == fi.sum(wide.transpose(0, 1).contiguous(), 1).numpy().tobytes()
    )
    assert (
        fi.sum(m, 0).numpy().tobytes()
        == fi.sum(m.transpose(0, 1).contiguous(), 1).numpy().tobytes()
    )
    tall_t = tall.transpose(0, 1).contiguous()
    assert fi.sum(tall, 0).numpy().tobytes() == fi.sum(tall_t, 1).numpy().tobytes()


@pytest.mark.parametrize("n", [5, 4095, 4097, 32768 * 2 + 9])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.int32])
def test_argmax_argmin_ties_nan_and_infinities_at_piece_boundaries(n, dtype):
    """argmax/argmin's two-pass loop (per piece: the extreme value, then its first index) keeps
    torch's answers: the first index of ties, the first NaN, all-equal and infinite inputs."""
    g = torch.Generator().manual_seed(n)
    base = torch.randint(-50, 50, (n,), generator=g).to(dtype)
    cases = [base, torch.zeros(n, dtype=dtype)]
    for spots in ([n - 1], [0, n // 2, n - 1], [min(4096, n - 1), n // 3]):
        t = base.clone()
        t[spots] = 100
        cases.append(t)
        u = base.clone()
        u[spots] = -100
        cases.append(u)
        if dtype.is_floating_point:
            v = base.clone()
            v[spots] = float("nan")
            cases.append(v)
            w = torch.full((n,), float("-inf"), dtype=dtype)
            w[spots] = float("inf")
            cases.append(w)
    for t in cases:
        for name in ("argmax", "argmin"):
            assert_same(getattr(fi, name)(share(t)), getattr(torch, name)(t))
            two = t[: n - n % 2].view(-1, 2) if n > 1 else t.view(1, 1)
            assert_same(getattr(fi, name)(share(two), 0), getattr(torch, name)(two, 0))


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize(
    "values", [[float("nan")], [1.0, float("inf")], [float("inf")], [float("-inf"), 2.0, 3.0]]
)
@pytest.mark.parametrize("correction", [0, 1])
def test_var_std_of_nan_and_infinities(name, values, correction):
    """A NaN or an infinity makes var/std NaN, as in torch (inf − inf deviations)."""
    for dtype in (torch.float32, torch.float64, torch.complex64):
        t = torch.tensor(values, dtype=dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mine = getattr(fi, name)(share(t), correction=correction)
            theirs = getattr(torch, name)(t, correction=correction)
        assert_same(mine, theirs)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_mean_divides_as_torch(dtype):
    """torch divides a complex sum by n as complex / real (the reciprocal, the other part
    times 0): 105 - 112.5i over 15 complex64 values is 7.0000005 - 7.5000005i, and an
    infinite part makes the other NaN."""
    base = torch.arange(15, dtype=torch.float64)
    t = torch.complex(base, -base - 0.5).to(dtype).reshape(3, 5)
    rng = np.random.default_rng(3)
    # integer parts: every sum order gives the same sum, so only the division shows
    parts = rng.integers(-1000, 1000, (2, 7, 40)).astype(np.float64)
    r = torch.from_numpy(parts[0] + 1j * parts[1]).to(dtype)
    inf, nan = float("inf"), float("nan")
    s = torch.tensor([1 + 2j, complex(1, inf), complex(inf, 2), complex(nan, 1), -0.0 - 0.0j]).to(
        dtype
    )
    for x in (t, r, s.reshape(5, 1)):
        a = fi.from_numpy(x.numpy())
        for dim in (None, 0, 1):
            mine = fi.mean(a) if dim is None else fi.mean(a, dim)
            theirs = torch.mean(x) if dim is None else torch.mean(x, dim)
            assert_same(mine, theirs)


DIM_ARGUMENTS = [0, -1, np.int64(1), [0], (1,), (0, 1), [-1, 0], [np.int64(0)], None]
BAD_DIM_ARGUMENTS = ["0", 1.5, [0.5], (0, "1"), {0: 1}]


@pytest.mark.parametrize("name", ["sum", "mean", "amax"])
def test_dim_arguments_of_every_form(name):
    """A dim given as an int, a numpy int, a list or a tuple of them, or None reduces as in
    torch (lists and tuples are read as sequences at once: no int attempt first); anything
    else is a TypeError naming the argument, as torch refuses it."""
    nd = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    a, t = fi.asarray(nd), torch.from_numpy(nd.copy())
    for dim in DIM_ARGUMENTS:
        if dim is None:
            assert_same(getattr(fi, name)(a), getattr(torch, name)(t), what=f"{name} all: ")
            continue
        t_dim = list(dim) if isinstance(dim, list) else dim
        t_dim = [int(d) for d in t_dim] if isinstance(t_dim, (list, tuple)) else int(t_dim)
        for keepdim in (False, True):
            ours = getattr(fi, name)(a, dim, keepdim)
            assert_same(ours, getattr(torch, name)(t, t_dim, keepdim), what=f"{name} {dim!r}: ")
    for dim in BAD_DIM_ARGUMENTS:
        with pytest.raises(TypeError):
            getattr(torch, name)(t, dim)
        with pytest.raises(TypeError, match="argument 'dim'"):
            getattr(fi, name)(a, dim)
