"""The numpy boundary: from_numpy keeps any whole-element strides (negative and zero too) and
the memory, numpy() and np.asarray share memory both ways, read-only stays read-only; tolist()
and item() against torch."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import ferroiter as fi

from harness import (
    NUMPY_OF,
    TORCH_DTYPES,
    Operand,
    assert_same,
    assert_same_error,
    dtypes,
    layout_pairs,
    layouts,
    shapes,
    share,
)

NUMPY_DTYPES = [NUMPY_OF[t] for t in TORCH_DTYPES]


def address(nd: np.ndarray) -> int:
    return nd.__array_interface__["data"][0]


def assert_views_ndarray(a: fi.Array, nd: np.ndarray) -> None:
    """`a` is a zero-copy view of `nd`: same shape, byte strides, first element and values."""
    assert a.shape == nd.shape
    assert a.dtype == nd.dtype
    if nd.size == 0:
        return  # numpy reports zero strides for every empty array
    assert a.strides == nd.strides
    assert a.stride() == tuple(s // nd.itemsize for s in nd.strides)
    assert a.data_ptr() == address(nd)
    assert np.array_equal(a.numpy(), nd, equal_nan=nd.dtype.kind in "fc")


@st.composite
def ndarray_views(draw):
    """A numpy view with any strides: sliced (negative steps too), transposed, broadcast."""
    dtype = draw(st.sampled_from(NUMPY_DTYPES))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=4)))
    nd = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape).astype(dtype)
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(["slice", "transpose", "broadcast", "newaxis"]))
        if op == "slice" and nd.ndim:
            key = tuple(
                slice(
                    draw(st.none() | st.integers(-6, 6)),
                    draw(st.none() | st.integers(-6, 6)),
                    draw(st.sampled_from([None, 1, 2, -1, -2, 3])),
                )
                for _ in range(nd.ndim)
            )
            nd = nd[key]
        elif op == "transpose":
            nd = nd.transpose(draw(st.permutations(range(nd.ndim))))
        elif op == "broadcast":
            nd = np.lib.stride_tricks.as_strided(nd, (3, *nd.shape), (0, *nd.strides))
        else:
            nd = nd[None]
    return nd


@given(ndarray_views())
def test_from_numpy_keeps_strides_and_memory(nd):
    a = fi.from_numpy(nd)
    assert_views_ndarray(a, nd)
    assert a.is_readonly == (not nd.flags.writeable)
    # and back: numpy() is a view of the same memory with the same strides
    assert_views_ndarray(a, a.numpy())


def test_from_numpy_negative_and_zero_strides():
    base = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    flipped = base[::-1, :, ::-2]
    a = fi.from_numpy(flipped)
    assert a.stride() == (-12, 4, -2)
    assert_views_ndarray(a, flipped)
    zero = np.lib.stride_tricks.as_strided(base, (5, 4), (0, 4))
    b = fi.from_numpy(zero)
    assert b.stride() == (0, 1)
    assert_views_ndarray(b, zero)
    assert not b.is_readonly
    assert fi.from_numpy(np.broadcast_to(base[0, 0], (3, 4))).is_readonly  # numpy's is read-only


def test_numpy_shares_memory_both_ways():
    nd = np.zeros((2, 3, 4, 5), dtype=np.float32)
    a = fi.from_numpy(nd)
    nd[1, 2, 3, 4] = 7.0
    assert a.tolist()[1][2][3][4] == 7.0  # a write through numpy is seen by ferroiter
    view = a.permute(0, 2, 3, 1)[:, 1:, ::2]
    out = view.numpy()
    out[0, 0, 0, 1] = -3.0
    assert nd[0, 1, 1, 0] == -3.0  # a write through ferroiter's numpy() lands in the base
    assert np.shares_memory(out, nd)
    cl = fi.empty((2, 3, 4, 5), memory_format=fi.channels_last)
    assert cl.numpy().strides == cl.strides == (240, 4, 60, 12)
    cl.numpy()[1, 2, 3, 4] = 5.0
    assert cl.tolist()[1][2][3][4] == 5.0


def test_np_asarray_of_an_array():
    a = fi.arange(24, dtype="int32").view(2, 3, 4).transpose(0, 2)
    nd = np.asarray(a)
    assert nd.dtype == np.int32 and nd.strides == a.strides
    assert np.shares_memory(nd, a.numpy())
    assert nd.tolist() == a.tolist()
    converted = np.asarray(a, dtype=np.float64)
    assert converted.dtype == np.float64 and converted.tolist() == a.tolist()
    copied = np.array(a, copy=True)
    assert not np.shares_memory(copied, nd)
    bf = fi.full((2, 2), 1.5, dtype="bfloat16")
    assert np.asarray(bf).dtype == np.dtype(ml_dtypes.bfloat16)


def test_read_only_ndarrays_give_read_only_arrays():
    nd = np.arange(6.0).reshape(2, 3)
    nd.flags.writeable = False
    a = fi.from_numpy(nd)
    assert a.is_readonly and a.T.is_readonly and a[1:].is_readonly
    out = a.numpy()
    assert not out.flags.writeable
    with pytest.raises(ValueError):
        out[0, 0] = 1.0
    assert not fi.from_numpy(np.arange(3.0)).is_readonly


def test_strides_that_are_not_whole_elements_are_refused():
    odd = np.lib.stride_tricks.as_strided(np.zeros(8, np.int32), (3,), (2,))
    with pytest.raises(ValueError, match="not a multiple of the element byte size"):
        fi.from_numpy(odd)
    record = np.zeros(4, dtype=[("a", np.int8), ("b", np.float32)])["b"]  # 5-byte stride
    with pytest.raises(ValueError):
        fi.from_numpy(record)


def test_from_numpy_refuses_non_ndarrays():
    with pytest.raises(TypeError):
        fi.from_numpy([1, 2, 3])


# ---- tolist, item, asarray against torch -------------------------------------------------------


def _same_python_values(x, y) -> bool:
    """Equal nested lists whose scalars are of the same Python types (NaN equals NaN)."""
    if isinstance(x, list) or isinstance(y, list):
        return (
            isinstance(x, list)
            and isinstance(y, list)
            and len(x) == len(y)
            and all(_same_python_values(p, q) for p, q in zip(x, y, strict=True))
        )
    if type(x) is not type(y):
        return False
    return x == y or (x != x and y != y)


@given(layout_pairs(max_ops=3))
def test_tolist_matches_torch(pair):
    a, t = pair
    mine, theirs = a.tolist(), t.tolist()
    assert _same_python_values(mine, theirs), f"{mine!r} != {theirs!r}"


@given(layout_pairs(max_ops=3))
def test_item_matches_torch(pair):
    a, t = pair
    if t.numel() == 1:
        assert _same_python_values(a.item(), t.item())
    else:
        assert_same_error(a.item, t.item)


@pytest.mark.parametrize(
    "obj", [[1.5, 2], [[1, 2], [3, 4]], True, 3, 2.5, 1j, [True, False], [[1j, 2]], []]
)
def test_asarray_of_python_objects_like_torch_tensor(obj):
    assert_same(fi.asarray(obj), torch.tensor(obj))


@given(layout_pairs(max_ops=3))
def test_torch_reads_arrays_through_dlpack(pair):
    a, t = pair
    if t.dtype == torch.bfloat16 or any(s < 0 for s in a.stride()) or t.numel() == 0:
        return  # numpy's DLPack has no bfloat16; torch aborts on negative strides
    shared = torch.from_dlpack(a)
    assert shared.shape == t.shape and shared.stride() == t.stride()
    assert shared.data_ptr() == t.data_ptr()


def test_share_roundtrip_of_every_dtype():
    for dtype in TORCH_DTYPES:
        t = torch.zeros(2, 3, dtype=dtype)
        assert_same(share(t), t)


@given(st.data())
def test_negative_strides_against_the_positive_twin(data):
    """An array read backwards in some dims (a numpy view with negative strides) against
    torch's twin of the same values with positive strides: the strides agree up to those
    signs, and copies, lists and an elementwise op see the same values."""
    shape = data.draw(shapes(max_ndim=4), label="shape")
    dtype = data.draw(dtypes, label="dtype")
    layout = data.draw(layouts(shape, allow_expanded=False, negative=True), label="layout")
    a, t = Operand(shape, dtype, layout, seed=data.draw(st.integers(0, 2**32 - 1))).build()
    assert_same(a, t, flipped=layout.flipped)
    c, tc = a.contiguous(), t.contiguous()
    if c is a:  # (dims read backwards of size 1 only: contiguous as it is)
        assert tc is t
        assert_same(c, tc, flipped=layout.flipped)
    else:  # a new copy (while torch may keep its twin: its strides are compared above)
        assert c.is_contiguous()
        assert_same(c, tc, strides=False, offset=False)
    assert _same_python_values(a.tolist(), t.tolist())
    if dtype != torch.bool:
        assert_same(fi.neg(a), torch.neg(t), "complex", strides=False, offset=False)
