"""Users' own kernels through the iterator (``ferroiter.map``, ``loop_kernel``, ``kernel``,
``register``): numba, ctypes and cffi loops on random layouts (contiguous, channels_last,
permuted, sliced, expanded, negative strides, size-0/1 dims, 0-d, broadcasting), at 1 and 2
threads and a tiny grain, against numpy's values of the same expression and torch's output
strides (``torch.lerp``: an elementwise op of three inputs, as the plan is); every refusal
with its message; the registry's dispatch per dtype; where the pointers a kernel receives lie.
"""

from __future__ import annotations

import ctypes
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroiter as fi
from ferroiter import LOOP2D

from harness import FIXTURE_OK, Operand, assert_values, layouts, parallelism, scaled, shapes

numba = pytest.importorskip("numba")


@fi.kernel("float32(float32, float32, float32)", "float64(float64, float64, float64)")
def fma(a, b, c):
    return a * b + c


@fi.kernel("(float64, bool)(float64)")
def twice_and_positive(x):
    return x * 2.0, x > 0


def clip_scale(x, lo, hi, scale):
    return min(max(x, lo), hi) * scale


CLIP_SCALE = fi.kernel("float32(float32, float32, float32, float32)")(clip_scale)


@st.composite
def broadcast_shapes(draw, shape):
    """`shape`, or it with some dims made 1 and some leading dims dropped (broadcasts back)."""
    if not shape or draw(st.booleans()):
        return tuple(shape)
    ones = tuple(1 if draw(st.booleans()) else s for s in shape)
    return ones[draw(st.integers(0, len(ones))) :]


def _operand(draw, shape, dtype, seed, written=False):
    layout = draw(layouts(shape, allow_expanded=not written, negative=True))
    return Operand(tuple(shape), dtype, layout, seed=seed, special=False), layout


@settings(max_examples=scaled(150), deadline=None, suppress_health_check=FIXTURE_OK)
@given(data=st.data())
def test_numba_kernel_matches_numpy_and_torch_layouts(data, threads_and_grain):
    """fma(a, b, c) = a * b + c on three random layouts that broadcast together: numpy's
    values exactly, torch's shape and (without negative strides) strides."""
    dtype = data.draw(st.sampled_from([torch.float32, torch.float64]))
    shape = data.draw(shapes(max_ndim=4))
    built, flipped = [], False
    for seed in range(3):
        operand, layout = _operand(data.draw, data.draw(broadcast_shapes(shape)), dtype, seed)
        flipped |= bool(layout.flipped)
        built.append(operand.build())
    (a, ta), (b, tb), (c, tc) = built
    with parallelism(*threads_and_grain):
        out = fma(a, b, c)
    expected = ta.numpy() * tb.numpy() + tc.numpy()
    assert out.shape == expected.shape
    assert out.dtype == expected.dtype
    if not flipped:
        assert out.stride() == torch.lerp(ta, tb, tc).stride()
    assert_values(out.numpy(), expected)


@settings(max_examples=scaled(60), deadline=None, suppress_health_check=FIXTURE_OK)
@given(data=st.data())
def test_two_outputs_python_numbers_and_out(data, threads_and_grain):
    """A kernel of two outputs (float64, bool) into out= arrays of any layout; a Python number
    as an input; the out= objects themselves come back."""
    shape = data.draw(shapes(max_ndim=4))
    x, tx = _operand(data.draw, shape, torch.float64, 1)[0].build()
    o1, _ = _operand(data.draw, shape, torch.float64, 2, written=True)[0].build()
    with parallelism(*threads_and_grain):
        doubled, positive = twice_and_positive(x)
        r1, r2 = twice_and_positive(x, out=(o1, None))
        clipped = CLIP_SCALE(x.astype("float32"), -0.5, 0.5, 3)
    assert r1 is o1
    xs = tx.numpy()
    for ours in (doubled, r1):
        assert_values(ours.numpy(), xs * 2.0)
    assert positive.dtype == np.bool_ and r2.dtype == np.bool_
    assert_values(positive.numpy(), xs > 0)
    assert_values(r2.numpy(), xs > 0)
    assert_values(clipped.numpy(), np.clip(xs.astype(np.float32), -0.5, 0.5) * np.float32(3))


def _ctypes_loop(function):
    """A LOOP2D ctypes callback that computes out = function(x, y) on float64 elements."""

    def loop(data, strides, n0, n1):
        for j in range(n1):
            for i in range(n0):
                at = [data[k] + i * strides[k] + j * strides[3 + k] for k in range(3)]
                x = ctypes.c_double.from_address(at[1]).value
                y = ctypes.c_double.from_address(at[2]).value
                ctypes.c_double.from_address(at[0]).value = function(x, y)

    return LOOP2D(loop)


TWICE_MINUS = _ctypes_loop(lambda x, y: 2 * x - y)


def _cffi_loop():
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()

    def loop(data, strides, n0, n1):
        out = ffi.cast("double *", data[0])
        for j in range(n1):
            for i in range(n0):
                x = ffi.cast("double *", data[1] + i * strides[1] + j * strides[4])[0]
                y = ffi.cast("double *", data[2] + i * strides[2] + j * strides[5])[0]
                out = ffi.cast("double *", data[0] + i * strides[0] + j * strides[3])
                out[0] = x * y

    return ffi.callback("void(char **, int64_t *, int64_t, int64_t)", loop)


@settings(max_examples=scaled(40), deadline=None, suppress_health_check=FIXTURE_OK)
@given(data=st.data())
def test_ctypes_cffi_and_address_loops(data, threads_and_grain):
    """Loops written in Python and called back through ctypes and cffi (they take the GIL from
    whichever thread runs their block), and a bare address, on small random layouts."""
    shape = data.draw(shapes(max_ndim=3, sizes=(0, 1, 2, 3, 5, 7)))
    x, tx = _operand(data.draw, shape, torch.float64, 3)[0].build()
    y, ty = _operand(data.draw, data.draw(broadcast_shapes(shape)), torch.float64, 4)[0].build()
    cffi_loop = _cffi_loop()
    through_ctypes = fi.loop_kernel(TWICE_MINUS, "float64(float64, float64)")
    through_cffi = fi.loop_kernel(cffi_loop, "float64(float64, float64)")
    address = ctypes.cast(TWICE_MINUS, ctypes.c_void_p).value
    through_address = fi.loop_kernel(address, "float64(float64, float64)")
    with parallelism(*threads_and_grain):
        results = [fi.map(through_ctypes, x, y), fi.map(through_cffi, x, y)]
        results.append(through_address(x, y))
    xs, ys = tx.numpy(), ty.numpy()
    for ours, expected in zip(results, [2 * xs - ys, xs * ys, 2 * xs - ys], strict=True):
        assert ours.shape == expected.shape
        assert_values(ours.numpy(), expected)


def test_out_is_resized_written_in_place_and_checked_for_overlap():
    """out= follows torch's rules: a wrong shape is resized (with torch's warning when it had
    elements), an out that is also an input is written in place, a partial overlap refused."""
    x = fi.asarray(np.arange(6, dtype=np.float64).reshape(2, 3))
    out = fi.asarray(np.zeros(4))
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        r, _ = twice_and_positive(x, out=(out, None))
    assert r is out and r.shape == (2, 3)
    assert_values(out.numpy(), np.arange(6.0).reshape(2, 3) * 2)
    same = fi.asarray(np.arange(6, dtype=np.float64))
    fma(same, same, 1.0, out=same)
    assert_values(same.numpy(), np.arange(6.0) ** 2 + 1)
    base = fi.asarray(np.arange(8, dtype=np.float64))
    with pytest.raises(ValueError, match="^unsupported operation: some elements of the input"):
        fma(base[1:7], base[1:7], 0.0, out=base[:6])
    empty = fi.asarray(np.zeros((0, 3)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fma(empty, 1.0, 1.0).shape == (0, 3)


def test_blocked_operands():
    """A blocked (nChw16c) operand is computed on its physical lanes or through a dense copy,
    the result blocked like it."""
    x = fi.asarray(np.random.default_rng(0).random((2, 19, 3, 5)).astype(np.float32))
    blocked = x.contiguous(fi.nChw16c)
    r = fma(blocked, 2.0, blocked)
    assert r.is_contiguous(memory_format=fi.nChw16c)
    assert_values(r.contiguous(fi.contiguous_format).numpy(), x.numpy() * 3)
    with pytest.raises(ValueError, match="several outputs takes no blocked arrays"):
        twice_and_positive(x.astype("float64").contiguous(fi.nChw16c))


def _null_ctypes_loop():
    return LOOP2D()


@pytest.mark.parametrize(
    ("make", "kind", "message"),
    [
        (lambda: fi.loop_kernel(0, "float32(float32)"), ValueError, "is not a function's"),
        (lambda: fi.loop_kernel(_null_ctypes_loop(), "float32(float32)"), ValueError, "null"),
        (lambda: fi.loop_kernel(clip_scale, "float32(float32)"), TypeError, "Python callable"),
        (lambda: fi.loop_kernel("f", "float32(float32)"), TypeError, "got str"),
        (lambda: fi.loop_kernel(True, "float32(float32)"), TypeError, "got a bool"),
        (
            lambda: fi.loop_kernel(
                numba.cfunc("float64(float64)")(lambda v: v), "float64(float64)"
            ),
            TypeError,
            "the numba cfunc's signature is",
        ),
        (
            lambda: fi.loop_kernel(
                ctypes.CFUNCTYPE(None, ctypes.c_double)(lambda x: None), "float64(float64)"
            ),
            TypeError,
            r"the ctypes function takes \(c_double\)",
        ),
        (lambda: fi.loop_kernel(TWICE_MINUS, "float64(float64"), ValueError, "invalid kernel"),
        (lambda: fi.loop_kernel(TWICE_MINUS, "float64(float65)"), TypeError, "float65"),
        (lambda: fi.loop_kernel(TWICE_MINUS, "()(float64)"), ValueError, "at least one output"),
        (
            lambda: fi.loop_kernel(TWICE_MINUS, "float64(" + ", ".join(["float64"] * 32) + ")"),
            ValueError,
            "at most 32 operands",
        ),
        (lambda: fi.kernel("bfloat16(bfloat16)")(abs), TypeError, "numba has no bfloat16"),
        (lambda: fi.kernel()(abs), TypeError, "one or more signatures"),
        (lambda: fi.map(abs, 1.0), TypeError, "map expects a ferroiter.Kernel"),
    ],
)
def test_bad_kernels_are_refused_before_any_call(make, kind, message):
    with pytest.raises(kind, match=message):
        make()


X32 = np.arange(4, dtype=np.float32)


@pytest.mark.parametrize(
    ("call", "kind", "message"),
    [
        (
            lambda k: k(X32.astype(np.float64), X32, X32),
            TypeError,
            r"^input 0 is float64 but the kernel float32\(float32, float32, float32\) takes "
            "float32 there$",
        ),
        (lambda k: k(X32, X32), TypeError, "takes 3 inputs but was given 2"),
        (lambda k: k(X32, X32, 1j), TypeError, "input 2 is a Python complex"),
        (lambda k: k(X32, X32, 1e300), ValueError, "value cannot be converted to type float"),
        (
            lambda k: k(X32, X32, X32, out=fi.zeros(4, dtype="float64")),
            TypeError,
            "out 0 is float64 but the kernel",
        ),
        (lambda k: k(X32, X32, X32, out=(None, None)), ValueError, "out= gives 2 arrays"),
        (lambda k: k(X32, X32, X32, out=X32), TypeError, "out= takes ferroiter.Array"),
        (lambda k: k(X32, X32[:3], X32), ValueError, "must match the size"),
        (lambda k: k(X32, X32, X32, dtype="int64"), TypeError, "has no kernel for inputs"),
    ],
)
def test_operands_that_do_not_fit_the_signature_are_refused(call, kind, message):
    kernel = fma.kernels[0]
    with pytest.raises(kind, match=message):
        call(kernel)


def test_registered_ops_dispatch_per_dtype():
    """register: exact dtypes first (numbers fit their kind), then the promoted dtype, then
    dtype=; the op is ferroiter.user_ops.<name>; names are unique unless replaced."""
    loops = {
        "float32(float32, float32)": fi.kernel("float32(float32, float32)")(lambda x, y: x - y),
        "float64(float64, float64)": fi.kernel("float64(float64, float64)")(lambda x, y: x - y),
        "int64(int64, int64)": fi.kernel("int64(int64, int64)")(lambda x, y: x - y),
    }
    op = fi.register("minus", loops, replace=True)
    assert fi.user_ops.minus is op
    assert op.signatures == list(loops)
    for dtype in ("float32", "float64", "int64"):
        x = fi.asarray(np.arange(5, dtype=dtype))
        r = op(x, 2)
        assert r.dtype == np.dtype(dtype)
        assert_values(r.numpy(), np.arange(5, dtype=dtype) - 2)
    ints32 = fi.asarray(np.arange(3, dtype=np.int32))
    promoted = op(ints32, 0.5)  # int32 with a float: torch's result_type is float32
    assert promoted.dtype == np.float32
    assert_values(promoted.numpy(), np.arange(3, dtype=np.float32) - 0.5)
    with pytest.raises(TypeError, match=r"no kernel for inputs \(int32, int32\)"):
        op(ints32, ints32)  # int32 with int32 stays int32: no kernel takes it
    assert op(ints32, 1, dtype="float64").dtype == np.float64
    with pytest.raises(TypeError, match=r"^minus has no kernel for inputs \(bool, bool\)"):
        op(fi.asarray(np.ones(2, bool)), fi.asarray(np.ones(2, bool)))
    with pytest.raises(ValueError, match="already registered"):
        fi.register("minus", loops)
    with pytest.raises(ValueError, match="not a Python identifier"):
        fi.register("no such", loops)
    with pytest.raises(ValueError, match="registered as"):
        fi.register("other", {"float64(float64, float64)": loops["float32(float32, float32)"]})
    both = fi.register("fma_op", fma, replace=True)
    assert both.signatures == fma.signatures
    assert fi.map(both, 1.0, 2.0, 3.0).item() == 5.0


def _span(array: fi.Array) -> tuple[int, int]:
    """The bytes an array's elements occupy: [lowest, highest + itemsize)."""
    lo = hi = array.data_ptr()
    for size, stride in zip(array.shape, array.stride(), strict=True):
        reach = (size - 1) * stride * array.itemsize
        lo, hi = (lo + reach, hi) if reach < 0 else (lo, hi + reach)
    return lo, hi + array.itemsize


@settings(max_examples=scaled(40), deadline=None, suppress_health_check=FIXTURE_OK)
@given(data=st.data())
def test_every_pointer_a_kernel_receives_lies_in_its_operand(data, threads_and_grain):
    """A probe loop records the address of every element of every block: outputs' and inputs'
    lie inside their arrays, except an input the walk packs into a tile of scratch (operands
    that disagree about the fastest dim), whose values are the operand's (the result says so)."""
    shape = data.draw(shapes(max_ndim=3, sizes=(1, 2, 3, 5, 17)))
    x, tx = _operand(data.draw, shape, torch.float64, 5)[0].build()
    y, ty = _operand(data.draw, shape, torch.float64, 6)[0].build()
    seen: list[tuple[int, int]] = []

    def probe(data_, strides, n0, n1):
        for j in range(n1):
            for i in range(n0):
                at = [data_[k] + i * strides[k] + j * strides[3 + k] for k in range(3)]
                seen.extend(enumerate(at))
                value = ctypes.c_double.from_address(at[1]).value
                value += ctypes.c_double.from_address(at[2]).value
                ctypes.c_double.from_address(at[0]).value = value

    loop = LOOP2D(probe)
    with parallelism(*threads_and_grain):
        out = fi.loop_kernel(loop, "float64(float64, float64)")(x, y)
    assert_values(out.numpy(), tx.numpy() + ty.numpy())
    spans = [_span(out), _span(x), _span(y)]
    assert len(seen) == 3 * out.numel()
    tiled = out.stride() != x.stride() or out.stride() != y.stride()
    for k, address in seen:
        lo, hi = spans[k]
        inside = lo <= address < hi
        assert inside or (k > 0 and tiled), (k, address, spans[k])


def test_a_kernel_runs_without_the_gil_in_parallel():
    """The loop runs with the GIL released, on both threads: a large numba map equals numpy."""
    x = np.random.default_rng(1).random(1 << 18)
    with parallelism(2, 1 << 12):
        r = fma(x, x, x)
    assert_values(r.numpy(), x * x + x)


def test_the_readme_example_runs_as_written():
    """README's "Your own kernels" example, executed as a user would paste it."""
    from pathlib import Path

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Your own kernels", 1)[1]
    code = section.split("```python", 1)[1].split("```", 1)[0]
    namespace: dict[str, object] = {}
    exec(compile(code, "README.md", "exec"), namespace)
    half, big = namespace["half"], namespace["big"]
    assert_values(half.numpy(), np.array([0.25, 0.75, 1.5]))
    assert_values(big.numpy(), np.array([False, True, True]))
