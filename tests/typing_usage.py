"""A typed walk through ferroiter's API, checked twice.

``scripts/test.sh`` type-checks this file with mypy (``--strict``, see ``[tool.mypy]`` in
pyproject.toml) against the stubs, so every ``assert_type`` below is a promise the stubs make;
``tests/test_stubs.py`` runs it, so every ``_is`` below checks the extension keeps that promise.
"""

from __future__ import annotations

from typing import Any, assert_type

import numpy as np
from numpy.typing import NDArray

import ferroiter as fi


def _is(value: object, kind: type | tuple[type, ...]) -> None:
    assert isinstance(value, kind), f"{value!r} is not a {kind}"


def _is_dtype(value: object) -> None:
    _is(value, np.dtype)


def arrays() -> None:
    a = fi.empty((2, 3, 4, 5), memory_format=fi.channels_last)
    b = fi.ones((3, 4, 5), dtype=np.float32)
    assert_type(a.shape, tuple[int, ...])
    assert_type(a.stride(), tuple[int, ...])
    assert_type(a.stride(1), int)
    _is(a.stride(1), int)
    assert_type(a.memory_format, fi.MemoryFormat)
    assert a.memory_format == fi.channels_last
    assert_type(a.dtype, np.dtype[Any])
    _is_dtype(a.dtype)

    # views and copies are Arrays
    for view in (
        a.permute(0, 2, 3, 1),
        a.permute((0, 2, 3, 1)),
        a.transpose(0, 1),
        a[:, :, ::2],
        a[0, ..., None],
        a.unsqueeze(0).squeeze(0),
        b.expand(2, 3, 4, 5),
        b.view(12, 5),
        b.reshape((60,)),
        a.contiguous(),
        a.clone(fi.contiguous_format),
        a.to("float64", copy=True),
        fi.broadcast_to(b, (2, 3, 4, 5)),
        a.mT,
        a[0, 0].T,
    ):
        assert_type(view, fi.Array)
        _is(view, fi.Array)
    assert_type(fi.broadcast_tensors(a, b), list[fi.Array])
    assert_type(fi.broadcast_shapes((2, 1), (3,)), tuple[int, ...])
    assert fi.broadcast_shapes((2, 1), (3,)) == (2, 3)

    # a.copy_ returns a itself
    assert_type(a.copy_(b), fi.Array)
    assert a.copy_(2.5) is a

    # interop
    assert_type(b.numpy(), NDArray[Any])
    _is(b.numpy(), np.ndarray)
    _is(fi.ones(()).item(), float)
    _is(fi.asarray([[1, 2]]).tolist(), list)
    _is(fi.from_dlpack(np.ones(3)), fi.Array)


def operators() -> None:
    a = fi.arange(6, dtype="float32").reshape(2, 3)
    n = np.ones((2, 3), dtype=np.float32)
    # numpy defers to Array (__array_ufunc__ = None), which numpy's own stubs cannot tell mypy
    _is(n * a, fi.Array)
    for result in (a + 1, 2.0 - a, a * n, a / 3, 3 / a, a // 2, a % 2, a**2, 2**a, -a, +a):
        assert_type(result, fi.Array)
        _is(result, fi.Array)
    for cmp in (a == 1, a != a, a < 2, a <= 2, a > 2, a >= n):
        assert_type(cmp, fi.Array)
        _is(cmp, fi.Array)
        assert cmp.dtype == np.bool_
    i = fi.arange(4)
    for bits in (i & 1, 1 | i, i ^ i, ~i, abs(i), i.abs()):
        assert_type(bits, fi.Array)
        _is(bits, fi.Array)

    # in-place operators keep the same Array
    before = a
    a += 1
    a -= n
    a *= 2
    a /= 2
    a //= 1
    a %= 7
    a **= 1
    assert_type(a, fi.Array)
    assert a is before
    i |= 2
    i &= 3
    i ^= 1
    assert_type(i, fi.Array)

    # one-element arrays act as numbers
    one = fi.full((1,), 3)
    assert bool(one) and int(one) == 3 and float(one) == 3.0 and [0, 1, 2, 3][one] == 3


def functions() -> None:
    a = fi.arange(6, dtype="float32").reshape(2, 3)
    b = np.full((3,), 2, dtype=np.float32)
    out = fi.empty((2, 3))
    # with out=, the functions return out itself
    assert_type(fi.add(a, b, alpha=2, out=out), fi.Array)
    assert fi.add(a, b, alpha=2, out=out) is out
    assert fi.sub(a, 1, alpha=0.5, out=out) is out
    assert fi.where(a > 2, a, 0.0, out=out) is out
    assert fi.clamp(a, 1, None, out=out) is out
    assert fi.exp(a, out=out) is out
    for f2 in (fi.mul, fi.div, fi.floor_divide, fi.remainder, fi.pow, fi.maximum, fi.minimum):
        _is(f2(a, b), fi.Array)
        assert f2(a, 2.0, out=out) is out
    for cmp in (
        fi.eq,
        fi.ne,
        fi.lt,
        fi.le,
        fi.gt,
        fi.ge,
        fi.logical_and,
        fi.logical_or,
        fi.logical_xor,
    ):
        assert cmp(a, b).dtype == np.bool_
    for bit in (fi.bitwise_and, fi.bitwise_or, fi.bitwise_xor):
        _is(bit(fi.arange(3), 1), fi.Array)
    _is(fi.bitwise_not(fi.arange(3)), fi.Array)
    for f1 in (
        fi.neg,
        fi.abs,
        fi.exp,
        fi.log,
        fi.sqrt,
        fi.sin,
        fi.cos,
        fi.tanh,
        fi.sigmoid,
        fi.floor,
        fi.ceil,
        fi.round,
        fi.sign,
        fi.logical_not,
    ):
        assert_type(f1(a), fi.Array)
        _is(f1(a), fi.Array)
        _is(f1(np.ones(2)), fi.Array)
    _is(fi.clamp(a, min=b, max=4), fi.Array)

    # types
    assert_type(fi.result_type(a, 5.5), np.dtype[Any] | str)
    _is_dtype(fi.result_type(fi.zeros((3,), dtype="int32"), 5.5))
    # complex32, which numpy lacks, comes back by name
    assert fi.result_type(fi.ones((2,), dtype="float16"), 1j) == "complex32"
    _is_dtype(fi.promote_types("float16", np.complex64))
    assert_type(fi.can_cast("float32", "int64"), bool)
    assert fi.can_cast("int64", "float32")

    # threads and grain
    assert_type(fi.GRAIN_SIZE, int)
    threads, grain = fi.get_num_threads(), fi.get_grain_size()
    assert_type(threads, int)
    assert grain == fi.GRAIN_SIZE
    try:
        assert_type(fi.set_grain_size(7), None)
        assert fi.get_grain_size() == 7
        fi.set_num_threads(threads)
    finally:
        fi.set_grain_size(grain)


def iterator() -> None:
    a = fi.empty((2, 3, 4, 5), memory_format=fi.channels_last)
    b = fi.empty((3, 4, 5))
    config = fi.TensorIteratorConfig()
    chained = (
        config.add_output(None)
        .add_input(a)
        .add_const_input(b)
        .check_mem_overlap()
        .resize_outputs(True)
        .check_all_same_dtype(False)
        .promote_inputs_to_common_dtype(True)
        .cast_common_dtype_to_outputs(True)
        .enforce_safe_casting_to_output(True)
        .promote_integer_inputs_to_float(False)
        .is_reduction(False)
        .enforce_linear_iteration(False)
    )
    assert_type(chained, fi.TensorIteratorConfig)
    assert chained is config
    it = config.build()
    assert_type(it, fi.TensorIterator)
    assert_type(it.perm, list[int])
    assert it.perm == [1, 3, 2, 0]
    assert_type(it.shape, tuple[int, ...])
    _is(it.shape, tuple)
    assert_type(it.strides(0), tuple[int, ...])
    _is(it.strides(0), tuple)
    assert (it.ndim, it.numel, it.ntensors, it.noutputs) == (3, 120, 3, 1)
    assert it.fast_setup in ("contiguous", "channels_last", "non_overlapping_dense", None)
    assert_type(it.common_dtype, np.dtype[Any] | None)
    _is_dtype(it.common_dtype)
    _is_dtype(it.dtype(1))
    assert_type(it.output(0), fi.Array)
    _is(it.output(0), fi.Array)
    steps = it.loops(0, 10)
    assert_type(steps, list[tuple[list[int], tuple[int, int]]])
    offsets, (size0, size1) = steps[0]
    _is(offsets, list)
    _is(size0, int)
    _is(it.explain(num_threads=2, grain_size=fi.GRAIN_SIZE), str)

    static = (
        fi.TensorIteratorConfig()
        .add_output(fi.empty((3,)))
        .add_input(fi.empty((3,)))
        .declare_static_dtype("float32")
        .declare_static_shape([3])
        .build()
    )
    _is(static, fi.TensorIterator)

    presets = (
        fi.TensorIterator.binary_op(None, a, b),
        fi.TensorIterator.binary_float_op(None, a, 2),
        fi.TensorIterator.comparison_op(None, a, b),
        fi.TensorIterator.unary_op(None, a),
        fi.TensorIterator.unary_float_op(fi.empty_like(a), a),
        fi.TensorIterator.nullary_op(fi.empty((4,))),
        fi.TensorIterator.reduce_op(fi.empty((3, 1)), fi.empty((3, 4))),
        fi.TensorIterator.copy_op(fi.empty((3, 4, 5)), b),
    )
    for preset in presets:
        assert_type(preset, fi.TensorIterator)
        _is(preset, fi.TensorIterator)


def surface() -> None:
    """torch's and numpy's everyday names."""
    a = fi.arange(6, dtype="float32").reshape(2, 3)
    assert_type(a.size(), tuple[int, ...])
    assert_type(a.size(-1), int)
    assert_type(a.dim(), int)
    assert_type(a.nbytes, int)
    assert_type(a.device, str)
    for converted in (a.float(), a.double(), a.half(), a.int(), a.long(), a.bool(), a.flatten()):
        assert_type(converted, fi.Array)
        _is(converted, fi.Array)
    assert_type(a.astype("int16"), fi.Array)
    assert_type(a.to("cpu", "float64"), fi.Array)
    a[0] = 1.0
    a[:, 1] = fi.zeros(2)
    a[a > 3] = 0.0
    assert_type(a[[0, 1]], fi.Array)
    assert_type(list(a), list[fi.Array])
    assert format(a[0, 0], ".1f") == "1.0"
    _is(memoryview(a), memoryview)
    _is(np.asarray(a), np.ndarray)


def exercise() -> None:
    """Runs every section (test_stubs.py calls this)."""
    arrays()
    surface()
    operators()
    functions()
    iterator()
