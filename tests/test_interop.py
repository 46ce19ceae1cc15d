"""numpy and DLPack interop: the buffer protocol and ``__array_interface__`` (zero-copy, every
layout, read-only kept), numpy ufuncs and functions on Arrays (ferroiter's kernels where it
has the op, numpy's result elsewhere), and DLPack both ways with torch for every dtype and
layout (data_ptr and strides kept, read-only flags honoured, bad capsules refused)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
import torch
from hypothesis import given

import ferroiter as fi

from harness import (
    NAME_OF,
    NUMPY_OF,
    TORCH_DTYPES,
    assert_values,
    layout_pairs,
    share,
    torch_to_numpy,
)

BUFFER_DTYPES = [t for t in TORCH_DTYPES if t != torch.bfloat16]
#: PEP 3118 / struct-module format codes
FORMATS = {
    torch.bool: "?",
    torch.uint8: "B",
    torch.int8: "b",
    torch.int16: "h",
    torch.int32: "i",
    torch.int64: "q",
    torch.float16: "e",
    torch.float32: "f",
    torch.float64: "d",
    torch.complex64: "Zf",
    torch.complex128: "Zd",
}


def assert_same_through_dlpack(a: fi.Array, t: torch.Tensor) -> None:
    """assert_same without the storage offset, which DLPack does not carry (element 0's address
    is the data pointer), plus the same address."""
    assert a.shape == tuple(t.shape) and a.stride() == t.stride()
    assert a.dtype == NUMPY_OF[t.dtype]
    if t.numel():
        assert a.data_ptr() == t.data_ptr()
    expected = torch_to_numpy(t)
    assert_values(a.numpy(), expected)


def address(nd: np.ndarray) -> int:
    return nd.__array_interface__["data"][0]


# ---------------------------------------------------------------------------------------------
# buffer protocol and __array_interface__


@given(layout_pairs(max_ops=3))
def test_memoryview_describes_every_layout(pair):
    a, t = pair
    if t.dtype == torch.bfloat16:
        with pytest.raises(BufferError, match="no format for bfloat16"):
            memoryview(a)
        return
    m = memoryview(a)
    assert m.shape == tuple(t.shape)
    assert m.strides == tuple(s * t.element_size() for s in t.stride())
    assert m.itemsize == t.element_size()
    assert m.nbytes == t.numel() * t.element_size()
    assert not m.readonly
    nd = np.asarray(m)
    assert nd.dtype == NUMPY_OF[t.dtype]
    if t.numel():
        assert address(nd) == a.data_ptr()
    assert np.array_equal(nd, a.numpy())


@pytest.mark.parametrize("dtype", BUFFER_DTYPES, ids=str)
def test_frombuffer_and_bytes_of_contiguous_arrays(dtype):
    t = torch.arange(6).reshape(2, 3).to(dtype)
    a = share(t)
    nd = np.frombuffer(a, dtype=NUMPY_OF[dtype])
    assert np.array_equal(nd, t.reshape(-1).numpy())
    assert address(nd) == a.data_ptr()
    assert bytes(a) == t.numpy().tobytes()
    assert memoryview(a).format == FORMATS[dtype]


def test_buffer_requests_that_the_layout_cannot_meet_are_refused():
    a = fi.arange(12).view(3, 4)
    t = a.T
    with pytest.raises(BufferError, match="not C-contiguous"):
        np.frombuffer(t, dtype=np.int64)  # frombuffer asks for a simple (contiguous) buffer
    assert np.asarray(memoryview(t)).tolist() == a.numpy().T.tolist()
    assert memoryview(t).f_contiguous and not memoryview(t).c_contiguous


def test_read_only_arrays_give_read_only_buffers():
    nd = np.arange(4.0)
    nd.flags.writeable = False
    a = fi.from_numpy(nd)
    m = memoryview(a)
    assert m.readonly
    assert not np.asarray(a).flags.writeable
    with pytest.raises(TypeError):
        m[0] = 1.0


def test_the_buffer_keeps_the_storage_alive():
    a = fi.arange(1000, dtype="float64")
    m = memoryview(a)
    del a
    import gc

    gc.collect()
    assert m[999] == 999.0
    m[0] = 5.0
    assert m[0] == 5.0


def test_negative_and_zero_strides_through_the_buffer():
    a = fi.arange(6, dtype="int32")[::-2]
    m = memoryview(a)
    assert m.strides == (-8,)
    assert m.tolist() == [5, 3, 1]
    e = fi.arange(3, dtype="int32").expand(2, 3)
    assert memoryview(e).strides == (0, 4)
    assert np.asarray(memoryview(e)).tolist() == [[0, 1, 2], [0, 1, 2]]


@given(layout_pairs(max_ops=3))
def test_array_interface_round_trip(pair):
    a, t = pair
    if t.dtype == torch.bfloat16:
        with pytest.raises(AttributeError):
            a.__array_interface__  # noqa: B018
        assert np.asarray(a).dtype == NUMPY_OF[t.dtype]  # numpy falls back to __array__
        return
    iface = a.__array_interface__
    assert iface["version"] == 3
    assert iface["shape"] == tuple(t.shape)
    assert np.dtype(iface["typestr"]) == NUMPY_OF[t.dtype]
    assert iface["data"] == (a.data_ptr(), False)

    class Holder:
        __array_interface__ = iface

    nd = np.asarray(Holder())
    assert np.array_equal(nd, a.numpy())
    if t.numel():
        assert address(nd) == a.data_ptr()
        assert nd.strides == a.strides


def test_array_interface_memory_outlives_a_resized_out():
    """numpy's array made through __array_interface__ keeps only the Array object alive; a
    resized out= re-points that object, so its old storage must stay valid (and unchanged)."""
    out = fi.full((1 << 16,), 7.0)
    nd = np.asarray(_InterfaceOnly(out))
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        fi.add(fi.ones((3,)), 1, out=out)
    assert out.shape == (3,) and out.tolist() == [2.0, 2.0, 2.0]
    fi.empty_cache()
    _ = [fi.zeros((1 << 16,)) for _ in range(4)]  # would reuse freed memory
    assert nd.shape == (1 << 16,) and (nd == 7.0).all()


class _InterfaceOnly:
    """Exposes an Array to numpy through __array_interface__ only (no buffer protocol)."""

    def __init__(self, a):
        self._a = a

    @property
    def __array_interface__(self):
        return self._a.__array_interface__


@given(layout_pairs(max_ops=3))
def test_np_asarray_is_zero_copy(pair):
    a, t = pair
    nd = np.asarray(a)
    assert nd.shape == tuple(t.shape) and nd.dtype == NUMPY_OF[t.dtype]
    if t.numel():
        assert np.shares_memory(nd, a.numpy())
        assert address(nd) == a.data_ptr()
        assert nd.strides == a.strides


# ---------------------------------------------------------------------------------------------
# numpy ufuncs and functions

UNARY_UFUNCS = [np.negative, np.absolute, np.exp, np.log, np.sqrt, np.sin, np.cos, np.tanh]
UNARY_UFUNCS += [np.floor, np.ceil, np.rint, np.sign]
BINARY_UFUNCS = [np.add, np.subtract, np.multiply, np.true_divide, np.maximum, np.minimum]
BINARY_UFUNCS += [np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal]
BINARY_UFUNCS += [np.power, np.floor_divide, np.remainder]


def _float_data(shape, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 3).astype(np.float64)


@pytest.mark.parametrize("ufunc", UNARY_UFUNCS, ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_ufuncs_run_on_ferroiter_and_equal_numpy(ufunc, dtype):
    nd = np.abs(_float_data((3, 4), 1)).astype(dtype) + 0.25
    nd = nd.T  # a non-contiguous layout
    a = fi.from_numpy(nd)
    r = ufunc(a)
    assert isinstance(r, fi.Array)
    expected = ufunc(nd)
    assert r.dtype == expected.dtype
    np.testing.assert_allclose(r.numpy(), expected, rtol=2e-6 if dtype == "float32" else 1e-13)


@pytest.mark.parametrize("ufunc", BINARY_UFUNCS, ids=lambda u: u.__name__)
def test_binary_ufuncs_equal_numpy_including_out(ufunc):
    x = np.abs(_float_data((2, 3), 2)) + 0.5
    y = np.abs(_float_data((3,), 3)) + 0.5
    a, b = fi.from_numpy(x), fi.from_numpy(y)
    expected = ufunc(x, y)
    for r in (ufunc(a, b), ufunc(a, y), ufunc(x, b), ufunc(a, 2.0)):
        assert isinstance(r, fi.Array)
    np.testing.assert_allclose(ufunc(a, b).numpy(), expected, rtol=1e-13)
    np.testing.assert_allclose(ufunc(a, 2.0).numpy(), ufunc(x, 2.0), rtol=1e-13)
    out = fi.empty((2, 3), dtype=expected.dtype)
    returned = ufunc(a, b, out=out)
    assert returned is out
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-13)
    out2 = fi.empty((2, 3), dtype=expected.dtype)
    assert ufunc(a, b, out=(out2,)) is out2
    np.testing.assert_allclose(out2.numpy(), expected, rtol=1e-13)


def test_ndarray_op_array_gives_an_array():
    x = np.arange(3.0)
    a = fi.arange(3, dtype="float64")
    assert isinstance(x + a, fi.Array)
    assert (x + a).tolist() == [0.0, 2.0, 4.0]
    assert isinstance(a + x, fi.Array)


def test_ufunc_promotion_follows_torch_when_ferroiter_computes():
    a = fi.arange(3)  # int64
    r = np.true_divide(a, 2)
    assert r.dtype == np.float32  # torch's default float, where numpy gives float64
    assert r.tolist() == torch.arange(3).true_divide(2).tolist()


def test_ufuncs_ferroiter_lacks_fall_back_to_numpy():
    nd = np.linspace(0.1, 0.9, 6).reshape(2, 3)
    a = fi.from_numpy(nd)
    r = np.arctan2(a, a)  # not in ferroiter's op table
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r, np.arctan2(nd, nd))
    red = np.add.reduce(a, axis=1)  # methods other than __call__
    assert isinstance(red, np.ndarray)
    np.testing.assert_array_equal(red, nd.sum(axis=1))
    acc = np.add.accumulate(a, axis=0)
    np.testing.assert_array_equal(acc, np.add.accumulate(nd, axis=0))
    out = fi.empty((2, 3), dtype="float64")
    assert np.arctan2(a, a, out=out) is out  # numpy writes into the Array's memory
    np.testing.assert_array_equal(out.numpy(), np.arctan2(nd, nd))
    w = np.add(a, a, where=nd > 0.5, out=np.zeros((2, 3)))  # keywords ferroiter lacks: numpy
    assert isinstance(w, np.ndarray)
    np.testing.assert_array_equal(w, np.where(nd > 0.5, 2 * nd, 0.0))


def test_numpy_functions_work_on_arrays():
    nd = np.arange(12.0).reshape(3, 4)
    a = fi.from_numpy(nd)
    assert float(np.sum(a)) == 66.0
    np.testing.assert_array_equal(np.sum(a, axis=0), nd.sum(axis=0))
    np.testing.assert_array_equal(np.mean(a, axis=1), nd.mean(axis=1))
    np.testing.assert_array_equal(np.concatenate([a, a]), np.concatenate([nd, nd]))
    np.testing.assert_array_equal(np.transpose(a), nd.T)
    assert np.allclose(a, nd)
    r = np.where(a > 5, a, 0.0)
    assert isinstance(r, fi.Array)
    np.testing.assert_array_equal(r.numpy(), np.where(nd > 5, nd, 0.0))
    c = np.clip(a, 2.0, 7.0)
    assert isinstance(c, fi.Array)
    np.testing.assert_array_equal(c.numpy(), np.clip(nd, 2.0, 7.0))


def test_dispatch_tables_name_real_ops():
    from ferroiter import _numpy_dispatch as d

    ops = {row["name"] for row in fi._ferroiter._op_table()}
    for numpy_name, name in d.UFUNC_NAMES.items():
        assert hasattr(np, numpy_name)
        if name in ops:
            assert d.ferroiter_ufunc(getattr(np, numpy_name)) is getattr(fi, name)


# ---------------------------------------------------------------------------------------------
# DLPack with torch


@given(layout_pairs(max_ops=3))
def test_torch_imports_arrays_of_every_dtype_and_layout(pair):
    a, t = pair
    if any(s < 0 for s in a.stride()):
        with pytest.raises(BufferError, match="negative strides"):
            torch.from_dlpack(a)
        return
    shared = torch.from_dlpack(a)
    assert shared.dtype == t.dtype
    assert shared.shape == t.shape and shared.stride() == t.stride()
    if t.numel():
        assert shared.data_ptr() == a.data_ptr() == t.data_ptr()
    assert torch.equal(shared, t) or (
        t.is_floating_point() and torch.allclose(shared, t, equal_nan=True)
    )


@given(layout_pairs(max_ops=3))
def test_ferroiter_imports_torch_tensors_of_every_dtype_and_layout(pair):
    _, t = pair
    a = fi.from_dlpack(t)
    assert_same_through_dlpack(a, t)


LAYOUTS = {
    "channels_last": lambda dt: torch.zeros(2, 3, 4, 5, dtype=dt).to(
        memory_format=torch.channels_last
    ),
    "sliced": lambda dt: torch.zeros(4, 6, dtype=dt)[1:, ::2],
    "expanded": lambda dt: torch.zeros(3, 1, dtype=dt).expand(3, 4),
    "0-d": lambda dt: torch.tensor(1, dtype=dt),
    "size-0": lambda dt: torch.zeros(0, 3, dtype=dt),
    "transposed": lambda dt: torch.zeros(3, 4, dtype=dt).t(),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_dlpack_round_trip_with_torch(dtype, layout):
    t = LAYOUTS[layout](dtype)
    t = (
        t.copy_(torch.arange(t.numel()).reshape(t.shape).to(dtype))
        if t.numel() and layout != "expanded"
        else t
    )
    a = fi.from_dlpack(t)
    assert a.shape == tuple(t.shape) and a.stride() == t.stride()
    assert a.dtype == NUMPY_OF[t.dtype]
    if t.numel():
        assert a.data_ptr() == t.data_ptr()
    back = torch.from_dlpack(a)
    assert back.dtype == t.dtype and back.shape == t.shape and back.stride() == t.stride()
    if t.numel():
        assert back.data_ptr() == t.data_ptr()
    assert torch.equal(back, t)
    if t.numel() and layout != "expanded":
        a[(0,) * a.ndim] = 1  # writes show through both ways
        assert t[(0,) * t.dim()].item() == 1


def test_dlpack_keeps_the_producer_alive():
    t = torch.arange(10_000, dtype=torch.float64)
    ptr = t.data_ptr()
    a = fi.from_dlpack(t)
    del t
    import gc

    gc.collect()
    assert a.data_ptr() == ptr and a[9999].item() == 9999.0
    b = torch.from_dlpack(fi.arange(5000, dtype="int32"))
    gc.collect()
    assert b[4999].item() == 4999


def test_versioned_capsules_and_negotiation():
    a = fi.arange(4, dtype="float32")
    legacy = a.__dlpack__()
    assert "dltensor" in repr(legacy) and "versioned" not in repr(legacy)
    versioned = a.__dlpack__(max_version=(1, 0))
    assert '"dltensor_versioned"' in repr(versioned)
    assert '"dltensor"' in repr(a.__dlpack__(max_version=(0, 8)))
    assert a.__dlpack_device__() == (1, 0)
    b = fi.from_dlpack(versioned)
    assert b.tolist() == [0.0, 1.0, 2.0, 3.0] and b.data_ptr() == a.data_ptr()
    assert fi.from_dlpack(legacy).data_ptr() == a.data_ptr()
    c = fi.from_dlpack(a.__dlpack__(copy=True, max_version=(1, 0)))
    assert c.data_ptr() != a.data_ptr() and c.tolist() == a.tolist()
    assert a.__dlpack__(dl_device=(1, 0), stream=None) is not None
    with pytest.raises(BufferError, match="cannot export to device"):
        a.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError, match="unexpected keyword"):
        a.__dlpack__(colour="red")


def test_read_only_flag_is_honoured_both_ways():
    nd = np.arange(3.0)
    nd.flags.writeable = False
    ro = fi.from_numpy(nd)
    with pytest.raises(BufferError, match="read-only"):
        ro.__dlpack__()  # an unversioned capsule cannot say read-only
    imported = fi.from_dlpack(ro.__dlpack__(max_version=(1, 0)))
    assert imported.is_readonly
    with pytest.raises(ValueError, match="read-only"):
        imported[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        imported.copy_(fi.zeros(3, dtype="float64"))
    # numpy's read-only export (versioned) gives a read-only Array too
    from_np = fi.from_dlpack(nd)
    assert from_np.is_readonly and from_np.data_ptr() == nd.ctypes.data
    writable = fi.from_dlpack(np.arange(3.0))
    assert not writable.is_readonly


def test_bad_capsules_raise_clear_errors():
    a = fi.arange(3)
    capsule = a.__dlpack__()
    fi.from_dlpack(capsule)
    with pytest.raises(ValueError, match="already consumed"):
        fi.from_dlpack(capsule)
    pycapsule_new = ctypes.pythonapi.PyCapsule_New
    pycapsule_new.restype = ctypes.py_object
    pycapsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    wrong = pycapsule_new(ctypes.addressof(ctypes.c_int(1)), b"not_dltensor", None)
    with pytest.raises(ValueError, match="expected a capsule named 'dltensor'"):
        fi.from_dlpack(wrong)
    with pytest.raises(TypeError, match="expected an object with __dlpack__"):
        fi.from_dlpack([1, 2, 3])

    class OnGpu:
        def __dlpack__(self, **kwargs):
            raise AssertionError("must not be asked for a capsule")

        def __dlpack_device__(self):
            return (2, 0)

    with pytest.raises(BufferError, match="CPU memory only"):
        fi.from_dlpack(OnGpu())


def test_a_capsule_nobody_consumes_is_freed():
    import gc

    a = fi.arange(3)
    for _ in range(100):
        a.__dlpack__()
        a.__dlpack__(max_version=(1, 0))
    gc.collect()
    assert a.tolist() == [0, 1, 2]


class JaxStyleProducer:
    """A producer that only speaks the versioned protocol (as jax does): it needs max_version."""

    def __init__(self, t: torch.Tensor):
        self.t = t
        self.asked: list[dict] = []

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.asked.append({"max_version": max_version, "stream": stream})
        if max_version is None or max_version[0] < 1:
            raise BufferError("versioned only")
        return self.t.__dlpack__(max_version=max_version)

    def __dlpack_device__(self):
        return (1, 0)


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_jax_style_producers(dtype):
    t = torch.arange(6).reshape(2, 3).to(dtype)
    producer = JaxStyleProducer(t)
    a = fi.from_dlpack(producer)
    assert producer.asked[0]["max_version"] == (1, 0)
    assert_same_through_dlpack(a, t)
    assert fi.asarray(producer).data_ptr() == t.data_ptr()
    assert str(fi.from_dlpack(t).dtype) == NAME_OF[dtype]
