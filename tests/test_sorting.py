"""Sorting, searching and sets, differential against torch: `sort` and `argsort` (stable
indices exactly; unstable ones as a permutation that reproduces the values), `searchsorted`
(sides, sorter, out_int32, promotion), `nonzero` and `unique` (inverse, counts, dim) over
random layouts (permuted, sliced, expanded, negative strides, size-0/1 dims, 0-d) and every
dtype, with torch's error texts; the sort's results do not depend on the thread count."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import ferroiter as fi

from harness import (
    TORCH_DTYPES,
    Operand,
    assert_result,
    assert_same,
    assert_same_error,
    assert_same_outcome,
    assert_values,
    layouts,
    parallelism,
    shapes,
    share,
    torch_to_numpy,
)


@st.composite
def operands(draw, max_ndim: int = 4, dtypes=tuple(TORCH_DTYPES), special: bool = True):
    """(ferroiter array, torch tensor, flipped dims): random or distinct values (ties, NaN,
    signed zeros) of any dtype in any layout, negative strides included."""
    shape = draw(shapes(max_ndim))
    dtype = draw(st.sampled_from(list(dtypes)))
    layout = draw(layouts(shape, negative=True))
    values = draw(st.sampled_from(["random", "random", "distinct"]))
    seed = draw(st.integers(0, 2**16))
    op = Operand(shape, dtype, layout, seed=seed, special=special, values=values)
    a, t = op.build()
    return a, t, layout.flipped


def dims_of(ndim: int):
    r = max(ndim, 1)
    return st.integers(-r - 1, r)


def check(mine: fi.Array, theirs: torch.Tensor, flipped, mode: str = "exact") -> None:
    """A result: shape, dtype and values always; strides unless the input read backwards
    (torch's twin of a negative-stride input has other strides)."""
    if flipped:
        assert tuple(mine.shape) == tuple(theirs.shape)
        assert_values(mine.numpy(), torch_to_numpy(theirs), mode)
    else:
        assert_result(mine, theirs, mode)


@given(operands(), st.data())
def test_stable_sort_matches_torch(operand, data):
    a, t, flipped = operand
    dim = data.draw(dims_of(t.dim()))
    descending = data.draw(st.booleans())
    outcome = assert_same_outcome(
        lambda: fi.sort(a, dim, descending, stable=True),
        lambda: torch.sort(t, stable=True, dim=dim, descending=descending),
    )
    if outcome is not None:
        mine, theirs = outcome
        values, indices = mine
        assert values is mine.values and indices is mine.indices and len(mine) == 2
        check(mine.values, theirs.values, flipped)
        check(mine.indices, theirs.indices, flipped)
        check(fi.argsort(a, dim, descending, stable=True), theirs.indices, flipped)
        check(a.argsort(dim, descending, stable=True), theirs.indices, flipped)


@given(operands(), st.data())
def test_unstable_sort_values_match_and_indices_reproduce_them(operand, data):
    a, t, flipped = operand
    dim = data.draw(dims_of(t.dim()))
    descending = data.draw(st.booleans())
    outcome = assert_same_outcome(
        lambda: a.sort(dim, descending), lambda: torch.sort(t, dim, descending)
    )
    if outcome is None:
        return
    (values, indices), theirs = outcome
    # torch's unstable order may put -0 and +0 (equal keys) either way round
    check(values, theirs.values, flipped, mode="nosign0")
    if flipped:
        assert indices.dtype == np.int64
    else:
        assert_same(indices, theirs.indices, values=False, offset=False)
    if t.dim() > 0:
        gathered = np.take_along_axis(a.numpy(), indices.numpy(), axis=dim % t.dim())
        assert_values(gathered, values.numpy())
        assert (
            np.sort(indices.numpy(), axis=dim % t.dim())
            == np.arange(t.shape[dim]).reshape(
                [-1 if d == dim % t.dim() else 1 for d in range(t.dim())]
            )
        ).all()


def test_sort_specials_and_errors():
    x = torch.tensor([3.0, float("nan"), -0.0, 0.0, 1.0, float("-inf"), float("nan"), 0.0])
    a = share(x)
    for descending in (False, True):
        mine = fi.sort(a, descending=descending, stable=True)
        theirs = torch.sort(x, descending=descending, stable=True)
        assert_result(mine.values, theirs.values)
        assert_result(mine.indices, theirs.indices)
    c = torch.ones(2, dtype=torch.complex64)
    assert_same_error(lambda: fi.sort(share(c)), lambda: torch.sort(c))
    assert_same_error(lambda: fi.argsort(share(c)), lambda: torch.argsort(c))
    assert_same_error(lambda: fi.sort(a, 1), lambda: torch.sort(x, 1))
    z = torch.tensor(2.5)
    assert_same_error(lambda: fi.sort(share(z), 1), lambda: torch.sort(z, 1))
    assert "values=" in repr(fi.sort(a))


@pytest.mark.parametrize("dim", [0, 1])
def test_sort_does_not_depend_on_threads(threads_and_grain, dim):
    rng = np.random.default_rng(7)
    x = torch.from_numpy(rng.integers(-5, 5, (300, 257)).astype(np.float32))
    expected = torch.sort(x, stable=True, dim=dim)
    with parallelism(*threads_and_grain):
        mine = fi.sort(share(x), dim)
    assert_result(mine.values, expected.values)
    assert_result(mine.indices, expected.indices)


# ---------------------------------------------------------------------------------------------
# searchsorted

SEARCH_DTYPES = [d for d in TORCH_DTYPES if d != torch.bool and not d.is_complex]


@st.composite
def search_cases(draw):
    """Sorted boundaries (1-D, or N-D sharing the values' leading dims) and values, each of
    any searchable dtype and layout."""
    lead = draw(shapes(2, sizes=(0, 1, 2, 3)))
    n = draw(st.integers(0, 6))
    one_d = draw(st.booleans())
    bshape = (n,) if one_d else (*lead, n)
    vshape = (*lead, draw(st.integers(0, 4)))
    if one_d and draw(st.integers(0, 4)) == 0:
        vshape = ()
    bdt, vdt = draw(st.sampled_from(SEARCH_DTYPES)), draw(st.sampled_from(SEARCH_DTYPES))
    seed = draw(st.integers(0, 2**16))
    b = Operand(bshape, bdt, draw(layouts(bshape)), seed).tensor()
    sorted_b = torch.sort(b, -1).values if b.dim() else b
    v = Operand(vshape, vdt, draw(layouts(vshape)), seed + 1).tensor()
    return sorted_b, v


@given(search_cases(), st.booleans(), st.sampled_from([None, "left", "right"]), st.booleans())
def test_searchsorted_matches_torch(case, right, side, out_int32):
    b, v = case
    kw = {"right": right, "side": side, "out_int32": out_int32}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome = assert_same_outcome(
            lambda: fi.searchsorted(share(b), share(v), **kw),
            lambda: torch.searchsorted(b, v, **kw),
        )
    if outcome is not None:
        assert_result(*outcome)


@given(st.integers(1, 6), st.integers(0, 2**16), st.booleans())
def test_searchsorted_with_sorter(n, seed, right):
    rng = np.random.default_rng(seed)
    b = torch.from_numpy(rng.integers(-4, 5, (2, n)).astype(np.float64))
    sorter = torch.argsort(b, -1)
    v = torch.from_numpy(rng.integers(-5, 6, (2, 3)).astype(np.float64))
    mine = fi.searchsorted(share(b), share(v), right=right, sorter=share(sorter))
    assert_result(mine, torch.searchsorted(b, v, right=right, sorter=sorter))


def test_searchsorted_scalars_and_errors():
    b = torch.tensor([1, 2, 3])
    for value in (2, 2.5, True):
        assert_result(fi.searchsorted(share(b), value), torch.searchsorted(b, value))
    f = torch.tensor([1.0, 2.0])
    cases = [
        (b, torch.ones(2), {"right": True, "side": "left"}),
        (b, torch.ones(2), {"side": "middle"}),
        (torch.ones(2, 3), torch.ones(3, 1), {}),
        (torch.tensor(1.0), torch.ones(2), {}),
        (torch.ones(2, 3), torch.tensor(1.0), {}),
        (f, torch.ones(2), {"sorter": torch.tensor([0, 1], dtype=torch.int32)}),
        (f, torch.ones(2), {"sorter": torch.tensor([0])}),
        (f, torch.ones(2), {"sorter": torch.tensor([0, 2])}),
        (torch.tensor([True]), torch.tensor([False]), {}),
        (f.to(torch.complex64), torch.ones(2), {}),
    ]
    for bb, vv, kw in cases:
        fkw = {k: share(x) if isinstance(x, torch.Tensor) else x for k, x in kw.items()}
        assert_same_error(
            lambda bb=bb, vv=vv, fkw=fkw: fi.searchsorted(share(bb), share(vv), **fkw),
            lambda bb=bb, vv=vv, kw=kw: torch.searchsorted(bb, vv, **kw),
        )


# ---------------------------------------------------------------------------------------------
# nonzero and unique


@given(operands())
def test_nonzero_matches_torch(operand):
    a, t, flipped = operand
    assert_result(fi.nonzero(a), torch.nonzero(t))
    mine, theirs = a.nonzero(as_tuple=True), torch.nonzero(t, as_tuple=True)
    assert isinstance(mine, tuple) and len(mine) == len(theirs)
    for m, th in zip(mine, theirs, strict=True):
        assert_result(m, th)


@given(operands(dtypes=tuple(TORCH_DTYPES)), st.booleans(), st.booleans(), st.booleans())
def test_unique_matches_torch(operand, sorted_, inverse, counts):
    a, t, flipped = operand
    kw = {"sorted": sorted_, "return_inverse": inverse, "return_counts": counts}
    outcome = assert_same_outcome(lambda: fi.unique(a, **kw), lambda: torch.unique(t, **kw))
    if outcome is None:
        return
    mine, theirs = outcome
    if not (inverse or counts):
        mine, theirs = (mine,), (theirs,)
    assert isinstance(mine, tuple) and len(mine) == len(theirs)
    # (which of -0 and +0 stands for their value depends on torch's unstable sort)
    nan_at = torch.isnan(t).reshape(-1) if t.is_floating_point() or t.is_complex() else None
    for k, (m, th) in enumerate(zip(mine, theirs, strict=True)):
        if k == 1 and inverse and nan_at is not None and bool(nan_at.any()):
            check_inverse_with_nan(m, th, nan_at)
        else:
            check(m, th, flipped, mode="nosign0")


def check_inverse_with_nan(mine: fi.Array, theirs: torch.Tensor, nan_at: torch.Tensor) -> None:
    """unique's inverse where the input holds NaN: each NaN is a value of its own, and which of
    them an input NaN maps to is the accident of torch's unstable sort. Exact at the other
    elements; at the NaNs, the same set of output positions."""
    assert tuple(mine.shape) == tuple(theirs.shape)
    m = torch.from_numpy(mine.numpy().copy()).reshape(-1)
    th = theirs.reshape(-1)
    assert m.dtype == th.dtype
    assert torch.equal(m[~nan_at], th[~nan_at])
    assert torch.equal(m[nan_at].sort().values, th[nan_at].sort().values)


@given(operands(3, (torch.int8, torch.bool, torch.float32), special=False), st.data())
def test_unique_dim_matches_torch(operand, data):
    """(Without NaN: torch's slice comparator treats NaN as equal to anything, which leaves
    the order of slices holding NaN to its sort's accident.)"""
    a, t, flipped = operand
    dim = data.draw(dims_of(t.dim()))
    kw = {"return_inverse": True, "return_counts": True}
    outcome = assert_same_outcome(
        lambda: a.unique(dim=dim, **kw), lambda: torch.unique(t, dim=dim, **kw)
    )
    if outcome is not None:
        for m, th in zip(*outcome, strict=True):
            check(m, th, flipped, mode="nosign0")
