"""torch's and numpy's everyday Array surface, each item against torch (numpy where torch has no
such name): size/dim/nbytes, .T/.mT, flatten/ravel, dtype conversions, copy, device and
to("cpu"), __setitem__ (basic keys through copy_, index arrays and masks), advanced getitem,
iteration, format, pickling and copying, repr."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import ferroiter as fi

from harness import (
    NAME_OF,
    NUMPY_OF,
    TORCH_DTYPES,
    Operand,
    assert_same,
    assert_same_error,
    index_key,
    layout_pairs,
    layouts,
    shapes,
    share,
)


@given(layout_pairs(max_ops=3))
def test_size_dim_nbytes_device(pair):
    a, t = pair
    assert a.size() == tuple(t.size())
    assert a.dim() == t.dim()
    assert a.nbytes == t.nbytes
    assert a.device == "cpu" and str(t.device) == "cpu"
    for d in range(-t.dim() - 1, t.dim() + 1):
        try:
            expected = t.size(d)
        except IndexError:
            assert_same_error(lambda d=d: a.size(d), lambda d=d: t.size(d))
        else:
            assert a.size(d) == expected


def _warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [str(w.message).split(" (Triggered")[0] for w in caught]


#: torch's deprecation texts (torch warns once per process, so they are compared as text)
T_WARNING = {
    0: "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
    3: "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
    "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
    "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
    "dimensions of a tensor.",
}


@given(layout_pairs(max_ops=3))
def test_T_and_mT_like_torch(pair):
    a, t = pair
    at, messages = _warnings_of(lambda: a.T)
    assert_same(at, t.T)
    expected = [] if t.dim() in (1, 2) else [T_WARNING[min(t.dim(), 3)]]
    assert messages == expected
    if t.dim() >= 2 or t.dim() == 0:
        amt, messages = _warnings_of(lambda: a.mT)
        assert_same(amt, t.mT)
        if t.dim() == 0:
            assert messages == [T_WARNING[0].replace(".T", ".mT")]
    else:
        assert_same_error(lambda: a.mT, lambda: t.mT)


@given(layout_pairs(max_ops=3), st.data())
def test_flatten_and_ravel_like_torch(pair, data):
    a, t = pair
    assert_same(a.ravel(), t.ravel())
    assert_same(a.flatten(), t.flatten())
    n = max(t.dim(), 1)
    start = data.draw(st.integers(-n, n - 1))
    end = data.draw(st.integers(-n, n - 1))
    try:
        expected = t.flatten(start, end)
    except Exception:  # noqa: BLE001
        assert_same_error(lambda: a.flatten(start, end), lambda: t.flatten(start, end))
        return
    got = a.flatten(start, end)
    assert got.shape == tuple(expected.shape)
    assert got.tolist() == expected.tolist() if t.dtype != torch.bfloat16 else True
    if expected._base is not None or expected.data_ptr() == t.data_ptr():
        # a view in torch is a view here
        assert got.stride() == expected.stride()


CONVERSIONS = ["float", "double", "half", "bfloat16", "int", "long", "bool", "short", "char"]
CONVERSIONS += ["byte", "cfloat", "cdouble"]


@pytest.mark.parametrize("name", CONVERSIONS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.float16], ids=str)
def test_dtype_conversions_like_torch(name, dtype):
    t = (torch.arange(24).reshape(2, 3, 4) - 7).to(dtype).to(memory_format=torch.preserve_format)
    t = t.permute(2, 0, 1)
    a = share(t)
    r, e = getattr(a, name)(), getattr(t, name)()
    assert_same(r, e)
    if e is t:
        assert r is a


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_astype_like_numpy(dtype):
    nd = np.arange(12, dtype=np.float64).reshape(3, 4).T
    a = fi.from_numpy(nd)
    r = a.astype(NAME_OF[dtype])
    expected = torch.from_numpy(nd).to(dtype)
    assert_same(r, expected)
    assert r.data_ptr() != a.data_ptr()
    assert a.astype("float64") is not a
    assert a.astype("float64", copy=False) is a
    assert a.astype(torch.float64, copy=False) is a


def test_copy_like_numpy():
    t = torch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)
    a = share(t)
    c = a.copy()
    assert c.is_contiguous() and c.tolist() == t.tolist() and c.data_ptr() != a.data_ptr()
    assert a.copy(order="K").stride() == t.clone().stride()
    with pytest.raises(ValueError, match="order must be"):
        a.copy(order="F")


def test_device_and_to_cpu():
    a = fi.arange(3)
    assert a.device == "cpu"
    assert a.to("cpu") is a
    assert a.to(torch.device("cpu")) is a
    assert a.cpu() is a
    assert a.to("cpu", "float32").dtype == np.float32
    assert a.to(device="cpu", dtype="float64").dtype == np.float64
    assert a.to("cpu", copy=True) is not a
    assert a.to(fi.zeros(1, dtype="int16")).dtype == np.int16
    with pytest.raises(ValueError, match="CPU only"):
        a.to("cuda")
    with pytest.raises(ValueError, match="CPU only"):
        a.to(device="cuda:0")


# ---------------------------------------------------------------------------------------------
# __setitem__ and advanced indexing


def scalar_for(dtype: torch.dtype, draw) -> object:
    if dtype == torch.bool:
        return draw(st.booleans())
    if dtype.is_complex:
        return complex(draw(st.integers(-5, 5)), draw(st.integers(-5, 5)))
    if dtype.is_floating_point:
        return float(draw(st.integers(-50, 50))) / 4
    return draw(st.integers(0, 100))


@given(layout_pairs(max_ops=2), st.data())
def test_setitem_basic_keys_like_torch(pair, data):
    a, t = pair
    t = t.clone()  # (torch refuses to write into overlapping views)
    a = share(t)
    key = data.draw(index_key(tuple(t.shape)))
    value_kind = data.draw(st.sampled_from(["scalar", "array", "broadcast"]))
    try:
        target = t[key]
    except Exception:  # noqa: BLE001
        assert_same_error(lambda: a.__setitem__(key, 0), lambda: t.__setitem__(key, 0))
        return
    if value_kind == "scalar":
        value_t = value_a = scalar_for(t.dtype, data.draw)
    else:
        shape = tuple(target.shape) if value_kind == "array" else tuple(target.shape)[1:]
        value_t = (torch.arange(int(np.prod(shape))).reshape(shape) % 7).to(t.dtype)
        value_a = share(value_t.clone())
    t[key] = value_t
    a[key] = value_a
    assert_same(a, t)


def test_setitem_runs_through_copy_and_converts():
    a = fi.zeros((3, 4), dtype="float32")
    a[1] = 5
    a[:, 0] = fi.arange(3)
    a[..., -1] = np.array([1.5, 2.5, 3.5])
    a[None, 2, 1:3] = [7, 8]
    t = torch.zeros(3, 4)
    t[1] = 5
    t[:, 0] = torch.arange(3)
    t[..., -1] = torch.tensor([1.5, 2.5, 3.5])
    t[None, 2, 1:3] = torch.tensor([7.0, 8.0])
    assert a.tolist() == t.tolist()
    u8 = fi.zeros(3, dtype="uint8")
    assert_same_error(
        lambda: u8.__setitem__(0, 300),
        lambda: torch.zeros(3, dtype=torch.uint8).__setitem__(0, 300),
    )


@given(shapes(max_ndim=4), st.sampled_from(TORCH_DTYPES), st.data())
def test_element_writes_like_torch(shape, dtype, data):
    """`a[i, j, ...] = value` with one int per dim (the element path, without a view): the
    element torch writes on any layout (expanded: every alias of it), negative and
    out-of-range ints with torch's IndexError, numbers out of the dtype's range with torch's
    error, one-element arrays of the same dtype or another."""
    layout = data.draw(layouts(shape, negative=True))
    operand = Operand(shape, dtype, layout, seed=data.draw(st.integers(0, 9)))
    (a, _), (_, t) = operand.build(), operand.build()
    key = tuple(data.draw(st.integers(-size - 1, size)) for size in shape)
    if len(shape) == 1 and data.draw(st.booleans()):
        key = key[0]  # `a[i] = x` of a 1-d array
    kind = data.draw(st.sampled_from(["scalar", "wide int", "same-dtype array", "other array"]))
    if kind == "scalar":
        value_a = value_t = scalar_for(dtype, data.draw)
    elif kind == "wide int":
        value_a = value_t = data.draw(st.sampled_from([300, -129, 2**40, -(2**63)]))
    else:
        other = dtype if kind == "same-dtype array" else data.draw(st.sampled_from(TORCH_DTYPES))
        ones = data.draw(st.sampled_from([(), (1,), (1, 1)]))
        value_t = torch.full(ones, 3, dtype=other)
        value_a = share(value_t.clone())
    expected = outcome_of(lambda: t.__setitem__(key, value_t))
    if isinstance(expected, BaseException):
        assert_same_error(lambda: a.__setitem__(key, value_a), lambda: t.__setitem__(key, value_t))
    else:
        a[key] = value_a
    assert_same(a, t, flipped=layout.flipped)


def outcome_of(fn):
    """`fn()`'s result, or the exception it raised."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        return e


def test_element_writes_refuse_what_torch_refuses():
    a, t = fi.zeros((2, 3)), torch.zeros(2, 3)
    for key in [(0, 3), (-3, 0), (0, 0, 0)]:
        assert_same_error(lambda k=key: a.__setitem__(k, 1.0), lambda k=key: t.__setitem__(k, 1.0))
    a[1, -1] = 2.5
    t[1, -1] = 2.5
    assert_same(a, t)
    frozen = np.zeros((2, 2))
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        fi.from_numpy(frozen)[0, 0] = 1.0
    assert frozen[0, 0] == 0
    blocked = fi.zeros((1, 16, 2, 2), memory_format=fi.nChw16c)
    with pytest.raises(ValueError, match="blocked format nChw16c are not supported"):
        blocked[0, 1, 0, 0] = 1.0
    with pytest.raises(ValueError, match="blocked format nChw16c are not supported"):
        blocked[0, 1, 0, 0] = fi.ones(())


@st.composite
def advanced_keys(draw, shape):
    """A key mixing one or two integer index arrays (or one mask) with slices and ints."""
    n = len(shape)
    kind = draw(st.sampled_from(["indices", "two_indices", "mask", "mask_prefix"]))
    if kind.startswith("mask"):
        k = n if kind == "mask" else draw(st.integers(1, n))
        mask = draw(
            st.lists(
                st.booleans(), min_size=int(np.prod(shape[:k])), max_size=int(np.prod(shape[:k]))
            )
        )
        return (torch.tensor(mask, dtype=torch.bool).reshape(shape[:k]),)
    key: list = []
    count = 1 if kind == "indices" or n == 1 else 2
    places = sorted(
        draw(st.lists(st.integers(0, n - 1), min_size=count, max_size=count, unique=True))
    )
    bshape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=2)))
    for d in range(n):
        if d in places:
            size = shape[d]
            values = draw(
                st.lists(
                    st.integers(-size, size - 1),
                    min_size=int(np.prod(bshape)),
                    max_size=int(np.prod(bshape)),
                )
            )
            key.append(torch.tensor(values, dtype=torch.int64).reshape(bshape))
        elif draw(st.booleans()) and shape[d] > 0:
            key.append(draw(st.integers(0, shape[d] - 1)))
        else:
            key.append(slice(None, None, draw(st.sampled_from([None, 2, -1]))))
    return tuple(key)


def to_fi_key(key):
    return tuple(share(k) if isinstance(k, torch.Tensor) else k for k in key)


def _flip_reversed(t, key):
    """torch refuses negative steps: `t[..., ::-1 at d, ...]` is `t.flip(d)[..., :, ...]`. The
    keys here have one entry per dim (no `...` or None), so d is the entry's position."""
    dims = [d for d, k in enumerate(key) if isinstance(k, slice) and k.step == -1]
    plain = tuple(slice(None) if d in dims else k for d, k in enumerate(key))
    return dims, plain


@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_advanced_getitem_and_setitem_like_torch(shape, data):
    shape = tuple(shape)
    t = torch.arange(int(np.prod(shape)), dtype=torch.float64).reshape(shape)
    a = share(t.clone())
    key = data.draw(advanced_keys(shape))
    fkey = to_fi_key(key)
    dims, plain = _flip_reversed(t, key)
    flipped = t.flip(dims) if dims else t
    expected = flipped[plain]
    got = a[fkey]
    assert got.shape == tuple(expected.shape) and got.is_contiguous()
    assert got.tolist() == expected.tolist()
    # writes: distinct values (repeated indices: the last write wins, as torch's serial CPU loop)
    value = torch.arange(expected.numel(), dtype=torch.float64).reshape(expected.shape) + 100
    for v_t, v_a in ((value, share(value)), (-1.0, -1.0)):
        target = flipped.clone()
        target[plain] = v_t
        t2 = target.flip(dims) if dims else target
        a[fkey] = v_a
        assert_same(a, t2)
        flipped = target


@given(layout_pairs(max_ops=3), st.data())
def test_masks_on_any_layout_like_torch(pair, data):
    """`a[mask]` (the mask walk, runs of contiguous trailing dims) and `a[mask] = v` (one
    value or a row: `where` into `a`; a value per position: the scatter) on the harness's
    layouts, against torch: shape, strides, dtype and values."""
    a, t = pair
    if t.ndim == 0:
        return
    k = data.draw(st.integers(1, t.ndim), label="mask dims")
    n = int(np.prod(t.shape[:k]))
    flags = data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="mask")
    mask = torch.tensor(flags, dtype=torch.bool).reshape(t.shape[:k])
    if data.draw(st.booleans(), label="uint8 mask"):
        mask = mask.to(torch.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's uint8-mask deprecation
        # values, shape and dtype; strides: ours are contiguous, torch's follow the source's
        # dim order (its index iterator allocates the result), a known difference
        got, expected = a[share(mask)], t[mask.bool()]
        assert got.is_contiguous()
        assert_same(got, expected.clone(memory_format=torch.contiguous_format))
        if torch._debug_has_internal_overlap(t) != 0:
            return  # torch refuses writes into an expanded view
        selected = t[mask.bool()]
        rest = tuple(t.shape[k:])
        row = torch.arange(int(np.prod(rest)), dtype=torch.float64).reshape(rest) + 7
        each = torch.arange(selected.numel(), dtype=torch.float64).reshape(selected.shape) + 100
        for value in (3, row.to(t.dtype), row.reshape((1, *rest)).to(t.dtype), each.to(t.dtype)):
            expected = t.clone()
            expected[mask.bool()] = value
            a[share(mask)] = share(value) if isinstance(value, torch.Tensor) else value
            torch.testing.assert_close(t, expected, rtol=0, atol=0, equal_nan=True)


def test_advanced_index_errors_like_torch():
    t = torch.arange(6.0)
    a = share(t)
    assert_same_error(lambda: a[fi.asarray([6])], lambda: t[torch.tensor([6])])
    assert_same_error(lambda: a[fi.asarray([True, False])], lambda: t[torch.tensor([True, False])])
    assert_same_error(lambda: a[fi.asarray([1.0])], lambda: t[torch.tensor([1.0])])
    assert a[[1, 3]].tolist() == [1.0, 3.0]
    assert a[np.array([5, -1])].tolist() == [5.0, 5.0]
    assert a[[]].shape == (0,)
    a[a > 3] = 0.0
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 0.0, 0.0]


def test_iteration_like_torch():
    t = torch.arange(12).reshape(3, 4)
    a = share(t)
    rows = list(a)
    assert len(rows) == 3
    for r, e in zip(rows, t, strict=True):
        assert_same(r, e)
    assert_same_error(lambda: iter(a[0, 0]), lambda: iter(t[0, 0]))


def test_format_like_torch():
    x = fi.full((), 3.14159, dtype="float64")
    assert format(x, ".2f") == format(torch.tensor(3.14159, dtype=torch.float64), ".2f") == "3.14"
    assert f"{fi.full((), 7):>4}" == f"{torch.tensor(7):>4}"
    a = fi.arange(3)
    assert format(a) == str(a) == f"{a}"
    with pytest.raises(TypeError, match="unsupported format string passed to Array.__format__"):
        format(a, ".2f")


@given(layout_pairs(max_ops=3))
def test_pickle_and_deepcopy_round_trip(pair):
    a, t = pair
    for b in (pickle.loads(pickle.dumps(a)), copy.deepcopy(a), copy.copy(a)):
        assert b.shape == a.shape and b.dtype == a.dtype
        assert b.data_ptr() != a.data_ptr() or a.numel() == 0
        expected = t.clone()  # torch's preserve rule: exact strides if dense, else dense
        assert b.stride() == expected.stride()
        assert b.memory_format == a.memory_format or not t.is_non_overlapping_and_dense()
        assert b.numpy().tobytes() == a.numpy().tobytes()


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_pickle_keeps_channels_last_and_dtype(dtype):
    t = (
        torch.arange(120)
        .reshape(2, 3, 4, 5)
        .to(dtype)
        .contiguous(memory_format=torch.channels_last)
    )
    a = share(t)
    b = pickle.loads(pickle.dumps(a, protocol=pickle.HIGHEST_PROTOCOL))
    assert_same(b, t)
    assert b.is_contiguous(fi.channels_last)


def test_repr_is_torch_like():
    a = fi.arange(4, dtype="float32").view(2, 2)
    r = repr(a)
    assert r == "ferroiter.Array([[0., 1.],\n                 [2., 3.]], dtype=float32)"
    assert r.count("dtype") == 1 and "shape" not in r
    assert repr(fi.full((), 5)) == "ferroiter.Array(5, dtype=int64)"
    assert repr(fi.zeros(2, dtype="bfloat16")) == "ferroiter.Array([0, 0], dtype=bfloat16)"


def test_tensor_iterator_repr_has_no_rust_debug_text():
    it = fi.TensorIterator.binary_op(None, fi.zeros((2, 3)), fi.zeros(3))
    r = repr(it)
    assert "Some(" not in r and "[" not in r.split("perm=")[0]
    assert r.startswith("ferroiter.TensorIterator(shape=(")
    assert "fast_setup='contiguous'" in r or "fast_setup=None" in r


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_everyday_surface_on_every_dtype(dtype):
    t = torch.zeros(2, 3, dtype=dtype)
    a = share(t)
    assert a.nbytes == t.nbytes
    assert a.dtype == NUMPY_OF[dtype]
    assert_same(a.T, t.T)
    assert_same(a.flatten(), t.flatten())
    b = pickle.loads(pickle.dumps(a))
    assert_same(b, t)
