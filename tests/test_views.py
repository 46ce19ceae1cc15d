"""Views on random layouts: every view's shape, strides, storage offset and values against
torch (negative-step slices against numpy, which torch does not support), and the error texts
of views torch refuses."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import ferroiter as fi

from harness import (
    FORMATS,
    assert_same,
    assert_same_error,
    assert_same_outcome,
    assert_values,
    index_key,
    layout_pairs,
    share,
    torch_to_numpy,
    view_chains,
)


@given(view_chains(max_ops=5))
def test_view_chains_match_torch(case):
    # build() compares shape, strides, offset, dtype, values and data pointer after every op,
    # and the error text of any op torch refuses.
    case.build(check_each=True)


@given(layout_pairs(max_ops=3), st.data())
def test_getitem_matches_torch(pair, data):
    a, t = pair
    key = data.draw(index_key(tuple(t.shape)), label="key")
    assert_same(a[key], t[key])


def _as_view_key(key):
    """The key numpy needs to return a (0-d) view rather than a scalar: `...` appended."""
    key = key if isinstance(key, tuple) else (key,)
    return key if Ellipsis in key else key + (Ellipsis,)


def _address(nd: np.ndarray) -> int:
    return nd.__array_interface__["data"][0]


@given(layout_pairs(max_ops=3), st.data())
def test_negative_step_slices_match_numpy(pair, data):
    a, t = pair
    nd = torch_to_numpy(t)  # numpy's view of the same memory, same strides
    key = data.draw(index_key(tuple(t.shape), negative_step=True), label="key")
    mine, theirs = a[key], nd[_as_view_key(key)]
    assert mine.shape == theirs.shape
    assert_values(mine.numpy(), theirs)
    if theirs.size == 0:
        return  # numpy zeroes the strides of empty arrays: nothing more to compare
    assert mine.strides == theirs.strides  # bytes, like numpy
    assert mine.data_ptr() == _address(theirs)
    # and a second view on top of the negative strides (permuted back to front)
    dims = tuple(reversed(range(mine.ndim)))
    assert mine.permute(dims).strides == theirs.transpose(dims).strides
    assert_values(mine.permute(dims).numpy(), theirs.transpose(dims))


def test_negative_step_examples():
    nd = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    a = fi.from_numpy(nd)
    keys = [np.s_[::-1], np.s_[:, ::-2], np.s_[1, ::-1, 3:0:-2], np.s_[..., ::-3], np.s_[5:-9:-1]]
    for key in keys:
        mine, theirs = a[key], nd[key]
        assert (mine.shape, mine.strides) == (theirs.shape, theirs.strides), key
        assert mine.data_ptr() == _address(theirs), key
        assert mine.tolist() == theirs.tolist(), key


# ---- errors ------------------------------------------------------------------------------------


def _pair(shape=(2, 3, 4), dtype=torch.float32):
    t = torch.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return share(t), t


BAD_VIEWS = {
    "permute too short": lambda x: x.permute(0, 1),
    "permute too long": lambda x: x.permute(0, 1, 2, 3),
    "permute duplicate": lambda x: x.permute(0, 1, 1),
    "permute duplicate negative": lambda x: x.permute(0, -1, 2),
    "permute out of range": lambda x: x.permute(0, 1, 3),
    "transpose out of range": lambda x: x.transpose(0, 3),
    "transpose negative out of range": lambda x: x.transpose(-4, 0),
    "unsqueeze out of range": lambda x: x.unsqueeze(4),
    "unsqueeze negative out of range": lambda x: x.unsqueeze(-5),
    "squeeze out of range": lambda x: x.squeeze(3),
    "squeeze tuple out of range": lambda x: x.squeeze((0, 5)),
    "squeeze duplicate dims": lambda x: x.squeeze((0, 0)),
    "squeeze duplicate negative dims": lambda x: x.squeeze((2, -1)),
    "expand bad size": lambda x: x.expand(2, 4, 4),
    "expand too few sizes": lambda x: x.expand(3, 4),
    "expand -1 in new dim": lambda x: x.expand(-1, 2, 3, 4),
    "expand negative size": lambda x: x.expand(2, -2, 4),
    "view incompatible": lambda x: x.transpose(0, 1).view(-1),
    "view incompatible 2": lambda x: x[:, ::2].view(-1),
    "view bad numel": lambda x: x.view(5, -1),
    "view bad numel no infer": lambda x: x.view(5, 5),
    "view two -1": lambda x: x.view(-1, -1),
    "view negative size": lambda x: x.view(-2, 12),
    "view negative size later": lambda x: x.view(12, -3),
    "view 0-d of many": lambda x: x.view(()),
    "view zero numel ambiguous": lambda x: x[:, :0].view(0, -1),
    "as_strided out of bounds": lambda x: x.as_strided((10, 10), (3, 1)),
    "as_strided offset out of bounds": lambda x: x.as_strided((5,), (1,), 20),
    "as_strided negative stride": lambda x: x.as_strided((2, 2), (-1, 1)),
    "as_strided negative offset": lambda x: x.as_strided((2, 2), (1, 1), -1),
    "as_strided length mismatch": lambda x: x.as_strided((2, 2), (1,)),
    "index out of bounds": lambda x: x[2],
    "negative index out of bounds": lambda x: x[0, -4],
    "index out of bounds in last dim": lambda x: x[..., 4],
    "too many indices": lambda x: x[0, 0, 0, 0],
    "too many indices with slices": lambda x: x[:, :, :, None, :],
    "zero step": lambda x: x[::0],
}


@pytest.mark.parametrize("name", sorted(BAD_VIEWS))
def test_bad_views_raise_torch_errors(name):
    a, t = _pair()
    bad = BAD_VIEWS[name]
    assert_same_error(lambda: bad(a), lambda: bad(t))


ZERO_DIM_KEYS = {
    "int": 0,
    "int one": 1,
    "negative int": -1,
    "slice": slice(None),
    "slice from one": slice(1, None),
    "tuple int": (0,),
    "tuple slice": (slice(None),),
    "ellipsis then slice": (Ellipsis, slice(None)),
    "none then int": (None, 0),
}


@pytest.mark.parametrize("name", sorted(ZERO_DIM_KEYS))
def test_zero_dim_indexing_errors(name):
    t = torch.tensor(7.0)
    a = share(t)
    key = ZERO_DIM_KEYS[name]
    assert_same_error(lambda: a[key], lambda: t[key])


@pytest.mark.parametrize("key", [(), None, Ellipsis, (None, None), (Ellipsis, None)])
def test_zero_dim_indexing_that_works(key):
    t = torch.tensor(7.0)
    assert_same(share(t)[key], t[key])


@pytest.mark.parametrize(
    "key",
    [
        (Ellipsis, Ellipsis),
        (Ellipsis, 0, Ellipsis),
        (0, Ellipsis, Ellipsis),
        (Ellipsis, None, Ellipsis),
        (Ellipsis, Ellipsis, 0),
        (slice(None), Ellipsis, 1, Ellipsis, None),
    ],
)
def test_several_ellipses_like_torch(key):
    # torch accepts more than one `...`: each stands for the dims the ints and slices leave.
    a, t = _pair()
    outcome = assert_same_outcome(lambda: a[key], lambda: t[key])
    if outcome is not None:
        assert_same(*outcome)


@given(layout_pairs(max_ops=2), st.data())
def test_bad_dims_on_random_layouts(pair, data):
    a, t = pair
    n = max(t.dim(), 1)
    bad = data.draw(st.integers(n, n + 3) | st.integers(-n - 3, -n - 1), label="dim")
    for op in (
        lambda x: x.transpose(bad, 0),
        lambda x: x.unsqueeze(bad + (1 if bad >= 0 else -1)),
        lambda x: x.squeeze(bad),
    ):
        assert_same_error(lambda op=op: op(a), lambda op=op: op(t))


@given(layout_pairs(max_ops=2), st.data())
def test_bad_expands_on_random_layouts(pair, data):
    a, t = pair
    shape = list(t.shape)
    target = [s + data.draw(st.integers(1, 3)) if s != 1 else s for s in shape]
    if target != shape:
        assert_same_error(lambda: a.expand(*target), lambda: t.expand(*target))
    if shape:
        fewer = tuple(shape[1:])
        assert_same_error(lambda: a.expand(fewer), lambda: t.expand(fewer))


@given(layout_pairs(max_ops=2), st.data())
def test_as_strided_out_of_bounds_on_random_layouts(pair, data):
    a, t = pair
    numel = t.untyped_storage().nbytes() // t.element_size()
    size = data.draw(st.integers(1, 4), label="size")
    offset = data.draw(st.integers(max(0, numel - size + 1), numel + 4), label="offset")
    assert_same_error(
        lambda: a.as_strided((size,), (1,), offset), lambda: t.as_strided((size,), (1,), offset)
    )


@pytest.mark.parametrize("fmt", ["channels_last", "contiguous_format"])
def test_views_of_channels_last(fmt):
    t = torch.arange(120.0).reshape(2, 3, 4, 5).contiguous(memory_format=FORMATS[fmt][1])
    a = share(t)
    for view in (
        lambda x: x.permute(0, 2, 3, 1),
        lambda x: x[:, :, ::2],
        lambda x: x[:, 1:2],
        lambda x: x.permute(0, 2, 3, 1).view(2, 20, 3) if fmt == "channels_last" else x.view(6, 20),
        lambda x: x.unsqueeze(2).expand(2, 3, 7, 4, 5),
        lambda x: x[1].unsqueeze(0),
    ):
        assert_same(view(a), view(t))


@given(layout_pairs(max_ops=3))
def test_stride_of_one_dim_and_len(pair):
    a, t = pair
    n = t.dim()
    for d in range(-n - 2, n + 2):
        outcome = assert_same_outcome(lambda d=d: a.stride(d), lambda d=d: t.stride(d))
        if outcome is not None:
            assert outcome[0] == outcome[1]
    outcome = assert_same_outcome(lambda: len(a), lambda: len(t))
    if outcome is not None:
        assert outcome[0] == outcome[1]
