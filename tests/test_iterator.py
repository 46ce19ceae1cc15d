"""Differential tests of the iteration plan (``fi.TensorIterator``) against torch's TensorIterator.

torch has no Python handle on its TensorIterator, so each preset is paired with a torch operator
built on the same config, and what torch lets us see is compared: the output's shape, strides
and dtype (allocated, given, or resized), the common dtype, and every error text.

    binary_op        <-> torch.add(a, b, out=)        binary_float_op <-> torch.div
    comparison_op    <-> torch.eq (bool result)       unary_op        <-> torch.neg
    unary_float_op   <-> torch.exp                    hand-built ternary <-> torch.addcmul
    copy_op          <-> dst.copy_(src)

The inside of the plan (shape, byte strides, the 2-D walk) is checked against torch's worked
examples (torch-semantics.md section 4), and on every random case by a lockstep property: walking
the plan visits each output element exactly once, and at each step every input operand points at
the element that broadcasting pairs with that output element.

Operands are built in torch first and shared with ferroiter (``share``), so both see the same
strides. ferroiter is always built first: torch may resize an ``out=`` tensor, which can move its
memory away from under the shared view.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
import torch
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

import ferroiter as fi

from harness import (
    NUMPY_OF,
    TORCH_DTYPES,
    Operand,
    assert_same,
    assert_same_error,
    dtypes,
    layouts,
    share,
)

#: Examples per property: multiples of the active profile's count ("ci" 150, "nightly" 5000).
BASE = settings.default.max_examples


def examples(factor: float) -> settings:
    return settings(max_examples=max(10, int(BASE * factor)))


NON_BOOL = [d for d in TORCH_DTYPES if d != torch.bool]
INTEGRAL = {torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64}

#: Python scalars as operands (torch wraps them: the lowest promotion bucket).
PY_SCALARS = [True, False, 0, 2, -3, 1.5, -0.0, 2j, 1 - 1j]


# ---------------------------------------------------------------------------------------------
# running both sides


def _raise(exc: BaseException):
    raise exc


class Outcome:
    """Both sides' result of one build: `it` (ferroiter) and `res` (torch), or the error."""

    def __init__(self, it, res, warned: list[str]):
        self.it, self.res, self.warned = it, res, warned


def run_both(fi_call, torch_call) -> Outcome | None:
    """ferroiter first, then torch. If torch raises, ferroiter must raise the same text (the
    kind as api.md says) and None is returned; if torch succeeds, so must ferroiter."""
    try:
        it, fexc = fi_call(), None
    except Exception as e:  # noqa: BLE001 - compared below
        it, fexc = None, e
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res, texc = torch_call(), None
        except Exception as e:  # noqa: BLE001 - compared below
            res, texc = None, e
    if texc is not None:
        msg = assert_same_error(
            lambda: _raise(fexc) if fexc is not None else it, lambda: _raise(texc)
        )
        event("error: " + re.sub(r"[\d\[\], ]+", " ", msg)[:60])
        return None
    assert fexc is None, (
        f"ferroiter raised {type(fexc).__name__}: {fexc}; torch returned {tuple(res.shape)} "
        f"{res.dtype} strides {res.stride()}"
    )
    return Outcome(it, res, [str(w.message) for w in caught])


def fi_operand(x):
    """The ferroiter side of an operand: a shared view of a tensor, or the Python scalar."""
    return share(x) if isinstance(x, torch.Tensor) else x


def twin(t: torch.Tensor | None) -> torch.Tensor | None:
    """A tensor of t's geometry (sizes, strides, storage offset and storage size) over fresh
    memory. torch's out= goes to the twin: a storage seen by numpy can no longer be resized."""
    return None if t is None else same_geometry(t, t.dtype)


# ---------------------------------------------------------------------------------------------
# layouts


@st.composite
def tensors(draw, shape, dtype, expand: bool = True):
    """A torch tensor of zeros of `shape` in a random layout of harness.layouts (aliasing
    strides included; stride 0 only where `expand`). Empty tensors have storage offset 0 (see
    share())."""
    layout = draw(layouts(shape, allow_expanded=expand, aliasing=True))
    t = Operand(tuple(shape), dtype, layout, values="zeros").tensor()
    assert tuple(t.shape) == tuple(shape)
    return t


SIZES = [0, 1, 1, 2, 2, 3, 4]


@st.composite
def operand_shapes(draw, count: int, mismatch_rate: int = 10):
    """`count` shapes broadcasting to a common shape: all equal (a third of the time), or each
    a suffix of it with some dims 1; about one case in `mismatch_rate` gets a dim that cannot
    broadcast."""
    n = draw(st.sampled_from([0, 1, 1, 2, 2, 3, 3, 4, 4, 4, 5, 5]))
    common = draw(st.lists(st.sampled_from(SIZES), min_size=n, max_size=n))
    same = draw(st.integers(0, 2)) == 0
    shapes = []
    for _ in range(count):
        if same:
            shapes.append(list(common))
            continue
        drop = draw(st.sampled_from([0, 0, 0, 1, 2])) if n else 0
        s = [1 if draw(st.integers(0, 3)) == 0 else size for size in common[min(drop, n) :]]
        shapes.append(s)
    if draw(st.integers(0, mismatch_rate - 1)) == 0:
        i = draw(st.integers(0, count - 1))
        if shapes[i]:
            d = draw(st.integers(0, len(shapes[i]) - 1))
            shapes[i][d] = draw(st.sampled_from([0, 2, 3, 5]))
    return [tuple(s) for s in shapes]


def same_geometry(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """A tensor with t's sizes, strides and storage offset, of another dtype."""
    n = t.untyped_storage().nbytes() // t.element_size()
    return torch.zeros(n, dtype=dtype).as_strided(t.shape, t.stride(), t.storage_offset())


@st.composite
def inputs(draw, shape, dtypes=TORCH_DTYPES, scalar_ok: bool = False):
    """A tensor of `shape` (any layout), or sometimes a 0-d tensor or, if allowed, a Python
    scalar (both have shape ())."""
    choice = draw(st.integers(0, 9))
    if scalar_ok and choice == 0:
        return draw(st.sampled_from(PY_SCALARS))
    if choice == 1:
        shape = ()
    return draw(tensors(shape, draw(st.sampled_from(dtypes))))


def broadcast_shape(*xs):
    try:
        return tuple(torch.broadcast_shapes(*[tuple(getattr(x, "shape", ())) for x in xs]))
    except RuntimeError:
        return None


@st.composite
def outs(draw, shape, dtype, none_weight: int = 4):
    """None (allocate), a given out= of the right shape in any layout (sometimes expanded: an
    internal overlap), or of a wrong shape (numel 0 or > 0); of dtype `dtype`, of another dtype
    `dtype` casts to safely (computed through a temporary), or of any dtype."""
    choice = draw(st.integers(0, 9))
    if choice < none_weight:
        return None
    if shape is None or choice >= 8:
        n = draw(st.integers(0, 4))
        shape = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3, 7]), min_size=n, max_size=n)))
    which = draw(st.integers(0, 4))
    if dtype is None or which == 0:
        dtype = draw(dtypes)
    elif which <= 2:
        dtype = draw(st.sampled_from([d for d in TORCH_DTYPES if torch.can_cast(dtype, d)]))
    return draw(tensors(shape, dtype, expand=draw(st.integers(0, 9)) == 0))


# ---------------------------------------------------------------------------------------------
# what is compared


def check_output(it, res: torch.Tensor, fout, tout, out_shape_before):
    """output(0) matches torch's result: shape, strides and dtype; a given out of the right
    shape is returned as it was (same memory, strides kept); a resized one has torch's strides."""
    out = it.output(0)
    assert tuple(out.shape) == tuple(res.shape), (
        f"shape: ferroiter {out.shape} != torch {res.shape}"
    )
    assert out.stride() == res.stride(), (
        f"strides of output {tuple(res.shape)}: ferroiter {out.stride()} != torch {res.stride()}"
    )
    assert out.dtype == NUMPY_OF[res.dtype], f"dtype: ferroiter {out.dtype} != torch {res.dtype}"
    assert it.numel == res.numel()
    if tout is None:
        return
    assert res is tout
    if out_shape_before == tuple(res.shape):
        assert out.stride() == fout.stride()
        if res.numel():
            assert out.data_ptr() == fout.data_ptr(), "the given out= was not used"


def check_resize_warning(warned: list[str], out_shape_before, out_numel_before, res):
    resized = any("was resized since it had shape" in w for w in warned)
    expect = out_shape_before is not None and out_shape_before != tuple(res.shape)
    assert resized == (expect and out_numel_before > 0), (warned, out_shape_before)


def plan_offsets(it, i: int) -> np.ndarray:
    """Byte offsets of operand i at each step of the plan's walk, in walk order (dim 0 fastest)."""
    shape = tuple(it.shape)
    strides = it.strides(i)
    assert len(strides) == len(shape), f"operand {i}: {len(strides)} strides for shape {shape}"
    if not shape:
        return np.zeros(1, dtype=np.int64)
    grid = np.indices(shape[::-1], dtype=np.int64)  # last axis = plan dim 0
    total = np.zeros(shape[::-1], dtype=np.int64)
    for k, s in enumerate(strides):
        total += grid[len(shape) - 1 - k] * s
    return total.reshape(-1)


def logical_offsets(shape, arr_shape, arr_stride, itemsize: int) -> np.ndarray:
    """Byte offsets of a (broadcast) operand at each logical index of `shape`, in C order."""
    shape = tuple(shape)
    lead = len(shape) - len(arr_shape)
    strides = [0] * lead + [
        0 if size == 1 else st_ * itemsize for size, st_ in zip(arr_shape, arr_stride, strict=True)
    ]
    if not shape:
        return np.zeros(1, dtype=np.int64)
    grid = np.indices(shape, dtype=np.int64)
    total = np.zeros(shape, dtype=np.int64)
    for d, s in enumerate(strides):
        total += grid[d] * s
    return total.reshape(-1)


TORCH_OF = {d: t for t, d in NUMPY_OF.items()}


def contiguous_strides(shape) -> tuple[int, ...]:
    strides, acc = [], 1
    for size in reversed(shape):
        strides.append(acc)
        acc *= max(size, 1)
    return tuple(reversed(strides))


def kernel_geometry(it, i: int, x, resized: bool = False):
    """(shape, element strides, itemsize) of the array the plan walks for operand i, as torch
    would have it. Output 0 (x: ferroiter's output(0)) is itself, or, when it is computed in
    the common dtype, torch's temporary: contiguous, or restrided like the out when resized.
    An input (x: the torch tensor or Python scalar) is itself, or `x.to(common)` (torch's
    conversion, whose strides follow the preserve rule)."""
    kernel = TORCH_OF[it.dtype(i)]
    item = torch.empty((), dtype=kernel).element_size()
    if i == 0:
        if NUMPY_OF[kernel] == x.dtype or resized:
            return tuple(x.shape), x.stride(), item
        return tuple(x.shape), contiguous_strides(x.shape), item
    if not isinstance(x, torch.Tensor):
        return (), (), item
    if x.dtype != kernel:
        x = x.to(kernel)
    return tuple(x.shape), x.stride(), item


def check_walk(it, geometries):
    """The lockstep property over the plan's shape and byte strides: operand 0 (the output)
    is visited exactly once per element, and at each step every input is at the element that
    broadcasting pairs with that output element. `geometries[i]` is operand i's
    (shape, element strides, itemsize), see kernel_geometry."""
    shape = geometries[0][0]
    numel = math.prod(shape)
    assert it.numel == numel
    assert it.ntensors == len(geometries)
    loops_cover(it, 0, numel)
    if numel == 0:
        return
    logical_out = logical_offsets(shape, *geometries[0])
    order = np.argsort(logical_out, kind="stable")
    sorted_out = logical_out[order]
    if np.any(sorted_out[1:] == sorted_out[:-1]):
        return  # a given out whose elements alias (torch: "too hard" to tell)
    walked_out = plan_offsets(it, 0)
    assert np.array_equal(np.sort(walked_out), sorted_out), (
        f"the walk misses or repeats output elements: plan shape {it.shape} strides "
        f"{it.strides(0)}, output {geometries[0]}"
    )
    index = order[np.searchsorted(sorted_out, walked_out)]
    for i in range(1, len(geometries)):
        expected = logical_offsets(shape, *geometries[i])[index]
        walked = plan_offsets(it, i)
        assert np.array_equal(walked, expected), (
            f"operand {i} {geometries[i]} walked out of step with the output: plan shape "
            f"{it.shape} strides {it.strides(i)} (output {it.strides(0)})"
        )


def loops_cover(it, begin: int, end: int):
    """loops(begin, end) is a run of consecutive 2-D blocks covering exactly [begin, end)."""
    shape = tuple(it.shape)
    pos = begin
    for offsets, (s0, s1) in it.loops(begin, end):
        offsets = list(offsets)
        if len(shape) >= 1:
            assert len(offsets) == len(shape)
            lin, mul = 0, 1
            for o, size in zip(offsets, shape, strict=True):
                lin += o * mul
                mul *= size
            assert lin == pos, f"block starts at {offsets} = {lin}, expected {pos}"
        if len(shape) >= 2:
            assert 1 <= s0 <= shape[0] - offsets[0]
            assert 1 <= s1 <= shape[1] - offsets[1]
            if s1 > 1:
                assert offsets[0] == 0 and s0 == shape[0]
        pos += s0 * s1
    assert pos == end, f"loops({begin}, {end}) covered up to {pos}"


# ---------------------------------------------------------------------------------------------
# the presets against torch, over random operands


def common_of(op: str, xs) -> torch.dtype:
    """The common (computation) dtype torch uses, from the functional form of the op."""
    if op == "comparison":
        return torch.result_type(xs[0], xs[1])
    fn = {
        "binary": torch.add,
        "binary_float": torch.div,
        "unary": torch.neg,
        "unary_float": torch.exp,
        "ternary": torch.addcmul,
    }[op]
    return fn(*xs).dtype


def check_case(op: str, fi_call, torch_call, xs, tout, fout):
    before = (tuple(tout.shape), tout.numel()) if tout is not None else (None, 0)
    outcome = run_both(fi_call, torch_call)
    if outcome is None:
        event("error")
        return None
    it, res = outcome.it, outcome.res
    if tout is None:
        event("out: none")
    elif before[0] != tuple(res.shape):
        event(f"out: resized numel {'>0' if before[1] else '0'}")
    else:
        event("out: given" + (" other dtype" if it.dtype(0) != NUMPY_OF[res.dtype] else ""))
    event(f"fast setup {it.fast_setup}; plan ndim {it.ndim}")
    check_output(it, res, fout, tout, before[0])
    check_resize_warning(outcome.warned, before[0], before[1], res)
    common = common_of(op, xs)
    assert it.common_dtype == NUMPY_OF[common], f"common dtype {it.common_dtype} != torch {common}"
    if op == "comparison" and (tout is None or tout.dtype == torch.bool):
        assert it.dtype(0) == np.dtype(np.bool_)
    else:
        assert it.dtype(0) == NUMPY_OF[common]
    for i in range(1, len(xs) + 1):
        assert it.dtype(i) == NUMPY_OF[common]
    resized = before[0] is not None and before[0] != tuple(res.shape)
    out0 = kernel_geometry(it, 0, it.output(0), resized)
    check_walk(it, [out0] + [kernel_geometry(it, i + 1, x) for i, x in enumerate(xs)])
    return it


BINARY = {
    "binary": (fi.TensorIterator.binary_op, torch.add),
    "binary_float": (fi.TensorIterator.binary_float_op, torch.div),
    "comparison": (fi.TensorIterator.comparison_op, torch.eq),
}


@st.composite
def binary_cases(draw, op: str):
    sa, sb = draw(operand_shapes(2))
    # torch.eq takes a Python number only as its second operand
    a = draw(inputs(sa, scalar_ok=op != "comparison"))
    if isinstance(a, torch.Tensor) and a.numel() and draw(st.integers(0, 3)) == 0:
        # the same strides as a: the channels_last and non-overlapping-dense fast paths
        b = same_geometry(a, draw(dtypes))
    else:
        b = draw(inputs(sb, scalar_ok=not isinstance(a, (bool, int, float, complex))))
    shape = broadcast_shape(a, b)
    try:
        dtype = torch.result_type(a, b)
    except RuntimeError:
        dtype = None
    # complex32 (float16 with a complex scalar) is not one of ferroiter's twelve array dtypes
    assume(dtype != torch.complex32)
    if op == "comparison":
        dtype = torch.bool if draw(st.booleans()) else dtype
    return a, b, draw(outs(shape, dtype))


def run_binary(op, a, b, tout):
    fi_fn, torch_fn = BINARY[op]
    fa, fb = fi_operand(a), fi_operand(b)
    fout, tout = (share(tout) if tout is not None else None), twin(tout)

    def torch_call():
        return torch_fn(a, b) if tout is None else torch_fn(a, b, out=tout)

    return check_case(op, lambda: fi_fn(fout, fa, fb), torch_call, [a, b], tout, fout)


@examples(12)
@given(binary_cases("binary"))
def test_binary_op_matches_torch_add(case):
    run_binary("binary", *case)


@examples(6)
@given(binary_cases("binary_float"))
def test_binary_float_op_matches_torch_div(case):
    run_binary("binary_float", *case)


@examples(6)
@given(binary_cases("comparison"))
def test_comparison_op_matches_torch_eq(case):
    run_binary("comparison", *case)


@st.composite
def unary_cases(draw, op: str):
    (shape,) = draw(operand_shapes(1))
    a = draw(inputs(shape, dtypes=NON_BOOL if op == "unary" else TORCH_DTYPES))
    if op == "unary":
        dtype = a.dtype
    else:
        dtype = torch.float32 if a.dtype in INTEGRAL else a.dtype
    return a, draw(outs(tuple(a.shape), dtype))


def run_unary(op, a, tout):
    fi_fn = {"unary": fi.TensorIterator.unary_op, "unary_float": fi.TensorIterator.unary_float_op}
    torch_fn = {"unary": torch.neg, "unary_float": torch.exp}[op]
    fa = share(a)
    fout, tout = (share(tout) if tout is not None else None), twin(tout)

    def torch_call():
        return torch_fn(a) if tout is None else torch_fn(a, out=tout)

    return check_case(op, lambda: fi_fn[op](fout, fa), torch_call, [a], tout, fout)


@examples(4)
@given(unary_cases("unary"))
def test_unary_op_matches_torch_neg(case):
    run_unary("unary", *case)


@examples(4)
@given(unary_cases("unary_float"))
def test_unary_float_op_matches_torch_exp(case):
    run_unary("unary_float", *case)


def ternary_config(fout, fa, fb, fc):
    """torch's build_ternary_op, built by hand."""
    cfg = fi.TensorIteratorConfig()
    cfg.promote_inputs_to_common_dtype(True)
    cfg.cast_common_dtype_to_outputs(True)
    cfg.enforce_safe_casting_to_output(True)
    cfg.add_output(fout)
    cfg.add_input(fa).add_input(fb).add_input(fc)
    return cfg.build()


FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]


@st.composite
def ternary_cases(draw):
    shapes = draw(operand_shapes(3))
    xs = [draw(inputs(s, dtypes=FLOATS)) for s in shapes]
    shape = broadcast_shape(*xs)
    dtype = torch.promote_types(torch.result_type(xs[0], xs[1]), xs[2].dtype)
    return xs, draw(outs(shape, dtype))


@examples(6)
@given(ternary_cases())
def test_ternary_config_matches_torch_addcmul(case):
    xs, tout = case
    fxs = [share(x) for x in xs]
    fout, tout = (share(tout) if tout is not None else None), twin(tout)

    def torch_call():
        return torch.addcmul(*xs) if tout is None else torch.addcmul(*xs, out=tout)

    check_case("ternary", lambda: ternary_config(fout, *fxs), torch_call, xs, tout, fout)


@st.composite
def read_write_cases(draw):
    """out is one of the inputs (the same tensor): never resized, so a broadcast shape that
    differs is an error; a lower dtype is refused by safe casting; an expanded one overlaps."""
    sa, sb = draw(operand_shapes(2, mismatch_rate=6))
    a = draw(tensors(sa, draw(dtypes)))
    b = draw(inputs(sb, scalar_ok=True))
    return a, b, draw(st.booleans())


@examples(4)
@given(read_write_cases())
def test_read_write_binary_op_matches_torch_inplace(case):
    a, b, out_is_second = case
    if out_is_second and not isinstance(b, torch.Tensor):
        out_is_second = False
    fa, fb = fi_operand(a), fi_operand(b)
    tout, fout = (b, fb) if out_is_second else (a, fa)
    check_case(
        "binary",
        lambda: fi.TensorIterator.binary_op(fout, fa, fb),
        lambda: torch.add(a, b, out=tout),
        [a, b],
        tout,
        fout,
    )


@st.composite
def copy_cases(draw):
    sd, ss = draw(operand_shapes(2))
    dst = draw(tensors(sd, draw(dtypes), expand=draw(st.integers(0, 7)) == 0))
    src = draw(inputs(ss))
    return dst, src


@examples(3)
@given(copy_cases())
def test_copy_op_matches_torch_copy_(case):
    dst, src = case
    fdst, fsrc = share(dst), share(src)
    shape_before, stride_before = tuple(dst.shape), dst.stride()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex -> real discards the imaginary part
        outcome = run_both(lambda: fi.TensorIterator.copy_op(fdst, fsrc), lambda: dst.copy_(src))
    if outcome is None:
        return
    it = outcome.it
    assert (tuple(it.output(0).shape), it.output(0).stride()) == (shape_before, stride_before)
    # copy_ asks for no promotion: the common dtype is simply the (only) input's
    assert it.common_dtype == NUMPY_OF[src.dtype]
    assert it.dtype(0) == NUMPY_OF[dst.dtype] and it.dtype(1) == NUMPY_OF[src.dtype]
    check_walk(it, [kernel_geometry(it, 0, fdst), kernel_geometry(it, 1, src)])


@st.composite
def view_specs(draw, shape, lengths):
    """A view of a 1-D or 2-D buffer with `lengths` elements per dim: a slice per dim (step 1
    or 2, anywhere it fits), then maybe a transpose (the slices are then taken transposed)."""
    transpose = len(shape) == 2 and lengths[1] <= shape[0] and lengths[0] <= shape[1]
    transpose = transpose and draw(st.booleans())
    key = []
    for size, n in zip(shape, lengths[::-1] if transpose else lengths, strict=True):
        step = draw(st.sampled_from([1, 1, 2])) if (n - 1) * 2 < size else 1
        start = draw(st.integers(0, size - max(n - 1, 0) * step - min(n, 1)))
        key.append(slice(start, start + n * step, step))
    return tuple(key), transpose


def apply_view(x, spec):
    key, transpose = spec
    v = x[key]
    return v.transpose(0, 1) if transpose else v


@st.composite
def overlap_cases(draw):
    """Views of one buffer as out and inputs: disjoint, partial, full (equal views that are
    two tensors), one tensor (read-write), or undecidable (not dense)."""
    shape = draw(st.sampled_from([(n,) for n in range(1, 10)] + [(3, 3), (2, 4), (4, 4), (3, 5)]))
    lengths = tuple(draw(st.integers(1, size)) for size in shape)
    out_spec = draw(view_specs(shape, lengths))
    kind = draw(st.sampled_from(["other view", "other view", "equal view", "same tensor"]))
    in_spec = draw(view_specs(shape, lengths)) if kind == "other view" else out_spec
    op = draw(st.sampled_from(["binary", "binary2", "unary"]))
    return shape, out_spec, in_spec, kind == "same tensor", op


@examples(3)
@given(overlap_cases())
def test_overlapping_views_match_torch(case):
    shape, out_spec, in_spec, same, op = case
    x = torch.arange(math.prod(shape), dtype=torch.float32).reshape(shape)
    fx = share(x)
    tout, fout = apply_view(x, out_spec), apply_view(fx, out_spec)
    tin, fin = (tout, fout) if same else (apply_view(x, in_spec), apply_view(fx, in_spec))
    assert tin.shape == tout.shape
    event("same tensor" if same else "two tensors")
    if op == "binary":
        fi_call = lambda: fi.TensorIterator.binary_op(fout, fin, 1.0)  # noqa: E731
        torch_call = lambda: torch.add(tin, 1.0, out=tout)  # noqa: E731
    elif op == "binary2":
        fi_call = lambda: fi.TensorIterator.binary_op(fout, fx.view(-1)[:1], fin)  # noqa: E731
        torch_call = lambda: torch.add(x.view(-1)[:1], tin, out=tout)  # noqa: E731
    else:
        fi_call = lambda: fi.TensorIterator.unary_op(fout, fin)  # noqa: E731
        torch_call = lambda: torch.neg(tin, out=tout)  # noqa: E731
    outcome = run_both(fi_call, torch_call)
    if outcome is not None:
        event("allowed")
        it = outcome.it
        assert it.output(0).data_ptr() == fout.data_ptr()
        assert it.output(0).stride() == fout.stride() == tout.stride()


def test_same_tensor_is_identity_not_an_equal_view():
    """torch's is_same is tensor identity: out=x is read-write (never resized), out=x[:] is
    another tensor (resized, with the warning), though both view the same elements."""
    x, b = torch.zeros(3), torch.zeros(2, 3)
    fx, fb = share(x), share(b)
    assert_same_error(
        lambda: fi.TensorIterator.binary_op(fx, fx, fb),
        lambda: torch.add(x, b, out=x),
        ValueError,
    )
    it = fi.TensorIterator.binary_op(fx[:], fx, fb)
    y = twin(x)
    with pytest.warns(UserWarning, match="was resized"):
        res = torch.add(y, b, out=y[:])
    assert (it.output(0).shape, it.output(0).stride()) == (tuple(res.shape), res.stride())
    # the same through a hand-built config
    cfg = fi.TensorIteratorConfig().add_output(fx).add_input(fx).add_input(fb)
    with pytest.raises(ValueError, match="doesn't match the broadcast shape"):
        cfg.build()
    cfg = fi.TensorIteratorConfig().add_output(fx[:]).add_input(fx).add_input(fb)
    assert cfg.build().output(0).shape == (2, 3)
    # full overlap of two tensors (x[:] into x) is allowed; a transpose of the same range is not
    y = torch.zeros(3, 3)
    fy = share(y)
    fi.TensorIterator.binary_op(fy[:], fy, fy)
    y.add_(y[:])
    assert_same_error(
        lambda: fi.TensorIterator.binary_op(fy, fy, fy.transpose(0, 1)),
        lambda: y.add_(y.t()),
        ValueError,
    )


# ---------------------------------------------------------------------------------------------
# every error text, one example each


def test_broadcast_error_text():
    a, b = torch.zeros(2, 3), torch.zeros(2, 2)
    msg = assert_same_error(
        lambda: fi.TensorIterator.binary_op(None, share(a), share(b)),
        lambda: torch.add(a, b),
        ValueError,
    )
    assert msg == (
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"
    )
    # the highest mismatching dim is reported; three operands fold left
    c, x, y = torch.zeros(2, 3), torch.zeros(3), torch.zeros(2, 1, 4)
    msg = assert_same_error(
        lambda: ternary_config(None, share(c), share(x), share(y)),
        lambda: torch.addcmul(c, x, y),
        ValueError,
    )
    assert msg == (
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 2"
    )


def test_read_write_output_shape_error_text():
    a, b = torch.zeros(3), torch.zeros(2, 3)
    fa = share(a)
    msg = assert_same_error(
        lambda: fi.TensorIterator.binary_op(fa, fa, share(b)), lambda: a.add_(b), ValueError
    )
    assert msg == "output with shape [3] doesn't match the broadcast shape [2, 3]"


def test_safe_casting_error_text():
    a, b, out = torch.zeros(3), torch.zeros(3), torch.zeros(3, dtype=torch.int64)
    msg = assert_same_error(
        lambda: fi.TensorIterator.binary_op(share(out), share(a), share(b)),
        lambda: torch.add(a, b, out=out),
        TypeError,
    )
    assert msg == "result type Float can't be cast to the desired output type Long"
    # in place: bool += int, float += complex
    t = torch.zeros(3, dtype=torch.bool)
    ft = share(t)
    assert_same_error(lambda: fi.TensorIterator.binary_op(ft, ft, 1), lambda: t.add_(1), TypeError)
    f = torch.zeros(3)
    ff = share(f)
    msg = assert_same_error(
        lambda: fi.TensorIterator.binary_op(ff, ff, 1j), lambda: f.add_(1j), TypeError
    )
    assert msg == "result type ComplexFloat can't be cast to the desired output type Float"
    # true division of ints into an int out
    i = torch.zeros(3, dtype=torch.int64)
    assert_same_error(
        lambda: fi.TensorIterator.binary_float_op(share(i), share(i), share(i)),
        lambda: torch.div(i, i, out=i),
        TypeError,
    )


def test_found_dtype_error_text():
    x, out = torch.zeros(3), torch.zeros(3, dtype=torch.int64)
    msg = assert_same_error(
        lambda: fi.TensorIterator.unary_op(share(out), share(x)),
        lambda: torch.neg(x, out=out),
        TypeError,
    )
    assert msg == "Found dtype Long but expected Float"


def test_overlap_error_texts():
    # an expanded out: one element written twice
    x, out = torch.zeros(3), torch.zeros(1).expand(3)
    msg = assert_same_error(
        lambda: fi.TensorIterator.binary_op(share(out), share(x), 1),
        lambda: torch.add(x, 1, out=out),
        ValueError,
    )
    assert msg == (
        "unsupported operation: more than one element of the written-to tensor refers to a single "
        "memory location. Please clone() the tensor before performing the operation."
    )
    # x[1:] += x[:-1]: partial overlap
    x = torch.zeros(5)
    fx = share(x)
    msg = assert_same_error(
        lambda: fi.TensorIterator.binary_op(fx[1:], fx[1:], fx[:-1]),
        lambda: x[1:].add_(x[:-1]),
        ValueError,
    )
    assert msg == (
        "unsupported operation: some elements of the input tensor and the written-to tensor refer "
        "to a single memory location. Please clone() the tensor before performing the operation."
    )
    # full overlap is allowed: x.add_(x), and x.add_(x[:]) (another view of the same elements)
    it = fi.TensorIterator.binary_op(fx, fx, fx)
    assert it.output(0).data_ptr() == fx.data_ptr()
    x.add_(x)
    it = fi.TensorIterator.binary_op(fx, fx, fx[:])
    assert it.output(0).data_ptr() == fx.data_ptr()
    x.add_(x[:])


def test_out_resize_with_warning():
    """An out= of the wrong shape is resized to E1's layout; torch warns if it had elements."""
    a, b = torch.zeros(2, 3, 4, 5).to(memory_format=torch.channels_last), torch.zeros(3, 4, 5)
    for given_out in (torch.zeros(7), torch.zeros(0), torch.zeros(2, 0), torch.zeros(5, 4)):
        fout, out = share(given_out), twin(given_out)
        numel = out.numel()
        with warnings.catch_warnings(record=True) as f_caught:
            warnings.simplefilter("always")
            it = fi.TensorIterator.binary_op(fout, share(a), share(b))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.add(a, b, out=out)
        assert any("was resized" in str(w.message) for w in caught) == (numel > 0)
        assert any("was resized" in str(w.message) for w in f_caught) == (numel > 0)
        assert out.stride() == (60, 1, 15, 3)
        assert (tuple(it.output(0).shape), it.output(0).stride()) == ((2, 3, 4, 5), (60, 1, 15, 3))
        # and when the order is simply reversed: plain contiguous strides
        fout, out = share(given_out), twin(given_out)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            it = fi.TensorIterator.binary_op(fout, share(b), share(a))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.add(b, a, out=out)
        assert it.output(0).stride() == out.stride() == (60, 20, 5, 1)


# ---------------------------------------------------------------------------------------------
# the worked examples of torch-semantics.md section 4, and the seeds


def binary(a, b, out=None):
    return fi.TensorIterator.binary_op(out, fi_operand(a), fi_operand(b))


def test_e1_channels_last_plus_broadcast():
    a = torch.rand(2, 3, 4, 5).to(memory_format=torch.channels_last)
    b = torch.rand(3, 4, 5)
    assert (a.stride(), b.stride()) == ((60, 1, 15, 3), (20, 5, 1))
    it = binary(a, b)
    assert it.perm == [1, 3, 2, 0]
    assert it.fast_setup is None
    assert_same(it.output(0), torch.add(a, b), values=False)
    assert it.output(0).stride() == (60, 1, 15, 3)
    # permuted shape (3, 5, 4, 2); dims 5 and 4 (strides 3 and 15) coalesce for every operand
    assert it.shape == (3, 20, 2)
    assert it.strides(0) == (4, 12, 240) and it.strides(1) == (4, 12, 240)
    assert it.strides(2) == (80, 4, 0)
    # reversed operands: the first operand wins
    it = binary(b, a)
    assert it.output(0).stride() == torch.add(b, a).stride() == (60, 20, 5, 1)


def test_e1_explain():
    a = torch.rand(2, 3, 4, 5).to(memory_format=torch.channels_last)
    b = torch.rand(3, 4, 5)
    text = binary(a, b).explain()
    lines = text.splitlines()
    strides_line = next(line for line in lines if line.startswith("compute_strides"))
    assert "[60, 1, 15, 3]" in strides_line and "[0, 20, 5, 1]" in strides_line
    steps = [re.match(r"\s*dims (\d) vs (\d): .* -> (.*)$", line) for line in lines]
    steps = [(int(m[1]), int(m[2]), m[3]) for m in steps if m]
    assert steps == [
        (3, 2, "keep, stop"),
        (2, 1, "swap"),
        (3, 1, "swap"),
        (2, 0, "keep, stop"),
    ]
    last_step = max(i for i, line in enumerate(lines) if re.match(r"\s*dims \d vs \d", line))
    final = "reorder_dimensions: perm [1, 3, 2, 0]"
    perm_line = next(i for i, line in enumerate(lines) if final in line)
    assert perm_line > last_step
    alloc = next(line for line in lines if line.startswith("allocate_or_resize_outputs"))
    assert "cumulative strides [1, 3, 15, 60]" in alloc and alloc.endswith("[60, 1, 15, 3]")
    assert "shape [2, 3, 4, 5] strides [60, 1, 15, 3]" in text


def test_e2_e3_ambiguous_operands():
    a = torch.rand(2, 3, 1, 1).to(memory_format=torch.channels_last)
    assert a.stride() == (3, 1, 3, 3)
    assert a.is_contiguous() and a.is_contiguous(memory_format=torch.channels_last)
    b = torch.rand(3, 1, 1)
    it = binary(a, b)
    assert it.perm == [1, 3, 2, 0]
    assert it.output(0).stride() == torch.add(a, b).stride() == (3, 1, 3, 3)
    # E3
    c = torch.rand(3, 1, 3).transpose(0, 2)
    assert (tuple(c.shape), c.stride()) == ((3, 1, 3), (1, 3, 3))
    assert binary(a, c).output(0).stride() == torch.add(a, c).stride() == (9, 1, 3, 3)
    assert binary(c, a).output(0).stride() == torch.add(c, a).stride() == (9, 1, 3, 3)


def test_e2b_fast_path_vs_wrapped_scalar():
    a = torch.rand(2, 3, 1, 1).to(memory_format=torch.channels_last)
    fa = share(a)
    it = fi.TensorIterator.binary_op(None, fa, fa)
    assert it.fast_setup == "contiguous"
    assert it.output(0).stride() == torch.add(a, a).stride() == (3, 1, 1, 1)
    assert it.shape == (6,) and it.strides(0) == (4,)
    it = fi.TensorIterator.binary_op(None, fa, 1)
    assert it.fast_setup is None
    assert it.output(0).stride() == torch.add(a, 1).stride() == (3, 1, 3, 3)


def test_e4_promotion_changes_layout():
    ai = torch.ones(3, 1, dtype=torch.int64).expand(3, 4)
    bf = torch.randn(4, 3).t()
    af = torch.ones(3, 1).expand(3, 4)
    assert (ai.stride(), bf.stride()) == ((1, 0), (1, 3))
    it = binary(ai, bf)
    assert it.common_dtype == np.float32
    assert it.output(0).stride() == torch.add(ai, bf).stride() == (4, 1)
    it = binary(af, bf)
    assert it.output(0).stride() == torch.add(af, bf).stride() == (1, 3)


def test_e5_coalescing():
    a, b = torch.rand(3, 4), torch.rand(4)
    it = binary(a, b)
    assert it.perm == [1, 0]
    assert it.shape == (4, 3)
    assert it.strides(0) == (4, 16) and it.strides(1) == (4, 16) and it.strides(2) == (4, 0)
    assert it.loops() == [([0, 0], (4, 3))]


def test_zero_size_with_reversed_and_sorted_perm():
    # (4,2,1)@(2,1,1) + (1,2,0)@(2,1,1) -> (4,2,0)@(2,1,1)
    a = torch.empty_strided((4, 2, 1), (2, 1, 1))
    b = torch.empty_strided((1, 2, 0), (2, 1, 1))
    it = binary(a, b)
    assert it.output(0).stride() == torch.add(a, b).stride() == (2, 1, 1)
    # a non-reversed perm with a size-0 dim keeps zeros in the strides
    c = torch.empty(2, 0, 3).permute(2, 0, 1)
    d = torch.empty(3, 1, 0)
    assert binary(c, d).output(0).stride() == torch.add(c, d).stride()


def test_copy_plan_nchw_to_channels_last():
    src = torch.rand(1, 64, 5, 4)
    dst = torch.empty(1, 64, 5, 4, memory_format=torch.channels_last)
    it = fi.TensorIterator.copy_op(share(dst), share(src))
    assert it.shape == (64, 20)
    assert it.strides(0) == (4, 256)
    assert it.strides(1) == (80, 4)
    assert it.output(0).stride() == dst.stride() == (1280, 1, 256, 64)


def test_loops_dim_counter_seed():
    a = torch.zeros(10, 2000, 64)
    b = torch.zeros(10, 1, 64)
    it = binary(a, b)
    assert it.shape == (64, 2000, 10)
    steps = it.loops(1066670)
    assert steps[:3] == [
        ([46, 666, 8], (18, 1)),
        ([0, 667, 8], (64, 1333)),
        ([0, 0, 9], (64, 2000)),
    ]
    loops_cover(it, 1066670, it.numel)
    loops_cover(it, 0, it.numel)


@examples(2)
@given(binary_cases("binary"), st.floats(0, 1))
def test_loops_cover_and_split(case, where):
    a, b, _ = case
    try:
        it = binary(a, b)
    except (ValueError, TypeError):
        # only operands that torch.add refuses too, with its message and error kind
        assert_same_error(lambda: binary(a, b), lambda: torch.add(a, b))
        return
    numel = it.numel
    total = sum(s0 * s1 for _, (s0, s1) in it.loops(0, numel))
    assert total == numel
    k = int(where * numel)
    parts = it.loops(0, k) + it.loops(k, numel)
    assert sum(s0 * s1 for _, (s0, s1) in parts) == numel
    loops_cover(it, 0, k)
    loops_cover(it, k, numel)


def test_loops_range_errors():
    it = binary(torch.zeros(2, 3), torch.zeros(3))
    with pytest.raises(IndexError):
        it.loops(0, 7)
    with pytest.raises(IndexError):
        it.loops(4, 2)
    assert it.loops(3, 3) == []


def test_fast_setup_kinds():
    cl = torch.zeros(2, 3, 4, 5).to(memory_format=torch.channels_last)
    it = binary(cl, same_geometry(cl, torch.float32))
    assert it.fast_setup == "channels_last" and it.shape == (120,)
    assert it.output(0).stride() == torch.add(cl, cl).stride() == (60, 1, 15, 3)
    p = torch.zeros(4, 2, 3).permute(2, 0, 1)
    it = binary(p, same_geometry(p, torch.float64))
    assert p.stride() == (1, 6, 3)
    assert it.fast_setup == "non_overlapping_dense" and it.perm == [0]
    assert it.output(0).stride() == torch.add(p, p.double()).stride() == p.stride()
    # the float32 input is converted first (same strides: it is dense), so all step by 8 bytes
    assert it.dtype(1) == np.float64
    assert it.strides(0) == (8,) and it.strides(1) == (8,) and it.strides(2) == (8,)
    # an out of the wrong shape is resized like the (last) input
    for t in (cl, p, torch.zeros(2, 3)):
        for given_out in (torch.zeros(5), torch.zeros(0)):
            it = binary(t, same_geometry(t, torch.float32), out=share(given_out))
            out = twin(given_out)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.add(t, same_geometry(t, torch.float32), out=out)
            assert it.output(0).stride() == out.stride() == t.stride()
    # 0-d only: an empty shape, one element, one block
    it = binary(torch.zeros(()), 2.5)
    assert it.fast_setup == "contiguous" and it.shape == () and it.ndim == 0 and it.numel == 1
    assert it.output(0).shape == () and it.common_dtype == np.float32
    assert sum(s0 * s1 for _, (s0, s1) in it.loops()) == 1


def test_given_out_keeps_its_strides():
    a = torch.zeros(2, 3, 4, 5).to(memory_format=torch.channels_last)
    out = torch.zeros(2, 3, 4, 5)
    fout = share(out)
    it = binary(a, a, out=fout)
    torch.add(a, a, out=out)
    assert it.output(0).stride() == out.stride() == (60, 20, 5, 1)
    assert it.output(0).data_ptr() == fout.data_ptr()
    # the out is operand 0: its order wins the sort
    assert it.fast_setup is None and it.perm == [3, 2, 1, 0]
    # (5, 4, 3, 2): the first two dims coalesce (contiguous in both), no others do for a
    assert it.shape == (20, 3, 2)
    assert it.strides(0) == (4, 80, 240) and it.strides(1) == (12, 4, 240)
    # an out of another dtype is computed through a contiguous temporary of the common dtype
    # (torch: empty_like(out, common, LEGACY_CONTIGUOUS_MEMORY_FORMAT)): that is operand 0
    a, b = torch.zeros(3, 4), torch.zeros(3, 4)
    out = torch.zeros(4, 3, dtype=torch.float64).t()
    fout = share(out)
    it = binary(a, b, out=fout)
    torch.add(a, b, out=out)
    assert it.output(0).data_ptr() == fout.data_ptr() and it.output(0).stride() == (1, 3)
    assert it.dtype(0) == np.float32 and it.fast_setup == "contiguous"
    assert it.shape == (12,) and it.strides(0) == (4,)
    # out.t() is contiguous, so is its temporary: it decides the order, the inputs do not
    it = binary(a.t(), b.t(), out=share(out.t()))
    assert it.fast_setup is None and it.perm == [1, 0] and it.shape == (3, 4)
    assert it.strides(0) == (4, 12) and it.strides(1) == it.strides(2) == (16, 4)


def test_not_dense_overlap_is_too_hard_and_allowed():
    x = torch.zeros(8)
    fx = share(x)
    # x[::2] is not dense: torch cannot tell, so it does not refuse
    it = fi.TensorIterator.binary_op(fx[::2], fx[:4], 1)
    torch.add(x[:4], 1, out=x[::2])
    assert it.output(0).stride() == (2,)


def test_comparison_output_dtypes():
    """eq: a bool result; a bool out is written directly, any other out through a temporary of
    the common dtype (no safe-casting check: eq(float, float, out=long) is allowed)."""
    a, b = torch.zeros(2, 3), torch.zeros(3, dtype=torch.int32)
    it = fi.TensorIterator.comparison_op(None, share(a), share(b))
    assert_same(it.output(0), torch.eq(a, b), values=False)
    assert it.dtype(0) == np.bool_ and it.common_dtype == np.float32
    for dtype in (torch.bool, torch.int64, torch.float16):
        given_out = torch.zeros(2, 3, dtype=dtype)
        fout = share(given_out)
        it = fi.TensorIterator.comparison_op(fout, share(a), share(b))
        res = torch.eq(a, b, out=given_out)
        assert it.output(0).data_ptr() == fout.data_ptr()
        assert it.output(0).dtype == NUMPY_OF[res.dtype] == NUMPY_OF[dtype]
        assert it.dtype(0) == (np.bool_ if dtype == torch.bool else np.float32)
