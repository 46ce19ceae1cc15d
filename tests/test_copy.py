"""Copies and conversions against torch (the oracle): `dst.copy_(src)` and `a.to(dtype)` for
every pair of the twelve dtypes (bit-exact: float → int truncates, → bool is `!= 0`, narrower
ints wrap, float16/bfloat16 round through float, complex → real keeps the real part), copy_'s
broadcasting and its checks (shapes, overlap), `contiguous`, `clone`, `to` and its aliasing
rule, `reshape` (view or copy), `tolist` and `item`; on random layouts with 1 and 2 threads and
a tiny grain.

Float values converted to an integer dtype stay inside that dtype's range (int64 for the
narrow ints, which wrap): outside it, and for NaN and infinities, torch's conversion is
undefined behaviour in C++.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroiter as fi

from harness import (
    COMPLEX,
    CONTIGUOUS,
    DTYPE_PAIRS,
    FIXTURE_OK,
    FORMATS,
    INTS,
    NAME_OF,
    TORCH_DTYPES,
    Layout,
    Operand,
    assert_result,
    assert_same_raise,
    assert_values,
    dtypes,
    layouts,
    outcome,
    parallelism,
    random_values,
    realize,
    scaled,
    share,
    torch_to_numpy,
)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # complex → real casts

PAIRS = DTYPE_PAIRS
PAIR_IDS = [f"{str(a)[6:]}-{str(b)[6:]}" for a, b in PAIRS]

#: the range float values may take when converted to an integer dtype: its own for int32 and
#: int64 (within 2**62, exactly convertible), int32's for the narrow ones (which then wrap)
INT_RANGE = {
    torch.uint8: (-(2.0**31), 2.0**31 - 1),
    torch.int8: (-(2.0**31), 2.0**31 - 1),
    torch.int16: (-(2.0**31), 2.0**31 - 1),
    torch.int32: (-(2.0**31), 2.0**31 - 1),
    torch.int64: (-(2.0**62), 2.0**62),
}


def source_values(shape, src: torch.dtype, dst: torch.dtype, rng) -> torch.Tensor:
    """Random values of `src` that convert to `dst` without undefined behaviour."""
    if dst not in INTS or not (src.is_floating_point or src in COMPLEX):
        return random_values(shape, src, rng)
    lo, hi = INT_RANGE[dst]
    n = math.prod(shape)
    wide = rng.uniform(lo, hi, n)
    small = rng.integers(-300, 300, n) + rng.choice([0.0, 0.25, 0.5, 0.75, 0.999], n)
    values = np.where(rng.random(n) < 0.5, wide, small)
    values = np.where(rng.random(n) < 0.1, rng.choice([0.0, -0.0, -0.5, 0.5], n), values)
    t = torch.from_numpy(values).reshape(shape)
    if src in COMPLEX:
        t = torch.complex(t, torch.from_numpy(rng.standard_normal(n)).reshape(shape))
    converted = t.to(src)
    if src in (torch.float16, torch.bfloat16, torch.float32) or src == torch.complex64:
        # rounding to a narrower float may leave the range at its edges: clamp back inside
        real = converted.real if src in COMPLEX else converted
        bad = (real.double() < lo) | (real.double() >= hi)
        converted = torch.where(bad, torch.zeros((), dtype=src), converted)
    return converted


# ---- every dtype pair --------------------------------------------------------------------------


@pytest.mark.parametrize(("src", "dst"), PAIRS, ids=PAIR_IDS)
def test_copy_every_dtype_pair(src, dst):
    """dst.copy_(src) and src.to(dst): bit-exact values (contiguous and strided sources, into
    contiguous and transposed destinations)."""
    rng = np.random.default_rng(TORCH_DTYPES.index(src) * 12 + TORCH_DTYPES.index(dst))
    strided = Layout((1, 0), None, (1, 2), (2, 1), (False, False))
    destinations = (
        lambda: torch.zeros((5, 37), dtype=dst),
        lambda: torch.zeros((37, 5), dtype=dst).t(),
    )
    for src_layout in (CONTIGUOUS, strided):
        ts = realize(lambda shape: source_values(shape, src, dst, rng), (5, 37), src_layout)
        fs = share(ts)
        for make in destinations:
            td, fd = make(), share(make())
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs = td.copy_(ts)
            mine = fd.copy_(fs)
            assert mine is fd, "copy_ returns self"
            assert_result(fd, theirs, "exact", f"{src}→{dst} copy_: ")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = ts.to(dst)
        assert_result(fs.to(NAME_OF[dst]), theirs, "exact", f"{src}.to({dst}): ")


# ---- random layouts ----------------------------------------------------------------------------


@st.composite
def copy_cases(draw):
    ndim = draw(st.integers(0, 5))
    shape = tuple(
        draw(st.lists(st.sampled_from([0, 1, 1, 2, 3, 4, 5]), min_size=ndim, max_size=ndim))
    )
    src_dtype, dst_dtype = draw(dtypes), draw(dtypes)
    # src broadcasts to dst: leading dims dropped, some dims 1
    k = draw(st.integers(0, ndim))
    src_shape = tuple(1 if draw(st.integers(0, 3)) == 0 else s for s in shape[ndim - k :])
    src_layout = draw(layouts(src_shape))
    dst_layout = draw(layouts(shape, allow_expanded=draw(st.integers(0, 9)) == 0))
    return (
        shape,
        src_shape,
        src_dtype,
        dst_dtype,
        src_layout,
        dst_layout,
        draw(st.integers(0, 2**32 - 1)),
    )


@settings(max_examples=scaled(200), suppress_health_check=FIXTURE_OK)
@given(case=copy_cases())
def test_copy_random_layouts(threads_and_grain, case):
    """copy_ between random layouts and dtypes, src broadcast into dst; an expanded dst gets
    torch's internal-overlap error."""
    shape, src_shape, sd, dd, sl, dl, seed = case
    rng = np.random.default_rng(seed)
    ts = realize(lambda s: source_values(s, sd, dd, rng), src_shape, sl)
    fs = share(ts)
    td = Operand(shape, dd, dl, seed).tensor()
    fd, _ = Operand(shape, dd, dl, seed).build()  # same values and strides, other memory
    with parallelism(*threads_and_grain):
        _, t_exc = outcome(lambda: td.copy_(ts))
        mine, f_exc = outcome(lambda: fd.copy_(fs))
    if t_exc is not None:
        assert_same_raise(f_exc, t_exc)
        return
    assert f_exc is None, f"ferroiter raised {f_exc!r}"
    assert mine is fd
    assert_result(fd, td, "exact")


@settings(max_examples=scaled(150), suppress_health_check=FIXTURE_OK)
@given(case=copy_cases(), fmt=st.sampled_from(list(FORMATS)), copy=st.booleans())
def test_to_and_clone_random_layouts(threads_and_grain, case, fmt, copy):
    """a.to(dtype, memory_format, copy) and a.clone(memory_format): torch's strides (preserve
    format: exact strides when dense, torch's inferred dense strides otherwise), values, and
    `to`'s aliasing (self returned when nothing changes)."""
    shape, _, sd, dd, _, dl, seed = case
    rng = np.random.default_rng(seed)
    t = realize(lambda s: source_values(s, sd, dd, rng), shape, dl)
    a = share(t)
    f_fmt, t_fmt = FORMATS[fmt]
    with parallelism(*threads_and_grain):
        for mine_call, theirs_call, what in (
            (
                lambda: a.to(NAME_OF[dd], memory_format=f_fmt, copy=copy),
                lambda: t.to(dd, memory_format=t_fmt, copy=copy),
                f"to({dd}, {fmt}, copy={copy})",
            ),
            (lambda: a.to(memory_format=f_fmt), lambda: t.to(memory_format=t_fmt), f"to({fmt})"),
            (
                lambda: a.clone(memory_format=f_fmt),
                lambda: t.clone(memory_format=t_fmt),
                f"clone({fmt})",
            ),
        ):
            theirs, t_exc = outcome(theirs_call)
            mine, f_exc = outcome(mine_call)
            if t_exc is not None:
                assert_same_raise(f_exc, t_exc, f"{what}: ")
                continue
            assert f_exc is None, f"{what}: ferroiter raised {f_exc!r}"
            assert (mine is a) == (theirs is t), f"{what}: aliasing differs from torch"
            if t.numel() > 0:  # (torch's data_ptr is 0 for every empty tensor)
                same_memory = mine.data_ptr() == a.data_ptr()
                assert same_memory == (theirs.data_ptr() == t.data_ptr()), what
            assert_result(mine, theirs, "exact", f"{what}: ")


@settings(max_examples=scaled(150))
@given(
    case=copy_cases(),
    fmt=st.sampled_from(["contiguous_format", "channels_last", "channels_last_3d"]),
)
def test_contiguous(case, fmt):
    """contiguous(memory_format) is self when already so (ambiguous strides kept), else a copy
    with the format's strides."""
    shape, _, sd, _, _, dl, seed = case
    t = Operand(shape, sd, dl, seed).tensor()
    a = share(t)
    f_fmt, t_fmt = FORMATS[fmt]
    theirs, t_exc = outcome(lambda: t.contiguous(memory_format=t_fmt))
    mine, f_exc = outcome(lambda: a.contiguous(memory_format=f_fmt))
    if t_exc is not None:
        assert_same_raise(f_exc, t_exc)
        return
    assert f_exc is None, f"ferroiter raised {f_exc!r}"
    assert (mine is a) == (theirs is t)
    assert_result(mine, theirs, "exact")


def test_to_channels_last_aliasing_rule():
    """torch's example: a contiguous (2,1,4,4) is already channels_last-contiguous (so
    contiguous(channels_last) keeps (16,16,4,1)) but does not suggest channels_last (so
    to(memory_format=channels_last) copies into (16,1,4,1))."""
    t = torch.rand(2, 1, 4, 4)
    a = share(t)
    assert a.contiguous(memory_format=fi.channels_last) is a
    assert t.contiguous(memory_format=torch.channels_last).stride() == (16, 16, 4, 1)
    assert_result(a.contiguous(memory_format=fi.channels_last), t, "exact")
    to_cl = a.to(memory_format=fi.channels_last)
    assert to_cl is not a
    assert to_cl.stride() == t.to(memory_format=torch.channels_last).stride() == (16, 1, 4, 1)
    assert a.to("float32") is a and a.to("float32", copy=True) is not a
    assert a.to(memory_format=fi.preserve_format) is a
    cl = t.to(memory_format=torch.channels_last)
    b = share(cl)
    assert b.to(memory_format=fi.channels_last) is b


# ---- copy_'s broadcasting and checks -----------------------------------------------------------


def _pair(t: torch.Tensor):
    """(ferroiter view of a copy, torch tensor): separate memory, same values and strides."""
    return fi.from_numpy(torch_to_numpy(t.clone()).copy()), t


def test_copy_broadcasts_a_row_into_a_matrix():
    ts = torch.tensor([1.5, -2.0, 3.25])
    td = torch.zeros(2, 3)
    fd = fi.zeros((2, 3))
    fd.copy_(share(ts))
    td.copy_(ts)
    assert_result(fd, td)
    # a Python number broadcasts too
    assert_result(fd.copy_(7), td.copy_(torch.tensor(7)))


def test_copy_errors():
    base = torch.arange(10, dtype=torch.float32)
    a = fi.from_numpy(base.numpy().copy())
    g = base.clone()
    cases = [
        # src larger than dst: the shape check (dst takes part in broadcasting)
        (
            lambda: fi.zeros((3,)).copy_(fi.zeros((2, 3))),
            lambda: torch.zeros(3).copy_(torch.zeros(2, 3)),
        ),
        (
            lambda: fi.zeros((2, 3)).copy_(fi.zeros((2,))),
            lambda: torch.zeros(2, 3).copy_(torch.zeros(2)),
        ),
        # an expanded dst: internal overlap
        (lambda: a[:1].expand(4).copy_(a[4:8]), lambda: g[:1].expand(4).copy_(g[4:8])),
        # partially overlapping src and dst
        (lambda: a[1:6].copy_(a[:5]), lambda: g[1:6].copy_(g[:5])),
        (lambda: a[:5].copy_(a[2:7]), lambda: g[:5].copy_(g[2:7])),
    ]
    for mine, theirs in cases:
        t_exc = outcome(theirs)[1]
        assert t_exc is not None
        assert_same_raise(outcome(mine)[1], t_exc)
    assert_values(a.numpy(), g.numpy())  # nothing was written


def test_copy_self_and_aliases():
    """Self-copy and a copy from a view with the same elements return at once; a same-sized
    view of the same memory with other strides (full overlap, torch's "TooHard"/"Full") is
    allowed."""
    base = torch.arange(12, dtype=torch.float64).reshape(3, 4)
    a = fi.from_numpy(base.numpy().copy())
    g = base.clone()
    assert a.copy_(a) is a
    g.copy_(g)
    a.copy_(a[:])
    g.copy_(g[:])
    assert_values(a.numpy(), g.numpy())
    # the transposed square block of the same memory: torch copies (the overlap is "TooHard")
    sq_t = torch.arange(16, dtype=torch.float32).reshape(4, 4)
    sq = fi.from_numpy(sq_t.numpy().copy())
    mine, f_exc = outcome(lambda: sq.copy_(sq.transpose(0, 1)))
    theirs, t_exc = outcome(lambda: sq_t.copy_(sq_t.t()))
    if t_exc is not None:
        assert_same_raise(f_exc, t_exc)
    else:
        assert f_exc is None
        # torch's result of an overlapping copy depends on its loop order: compare shapes
        assert mine.shape == tuple(theirs.shape)


def test_copy_empty():
    for shape in [(0,), (2, 0, 3), (0, 5)]:
        td = torch.zeros(shape)
        fd = fi.zeros(shape)
        assert fd.copy_(fi.zeros(shape[-1:] if shape[-1] else (0,))) is fd
        td.copy_(torch.zeros(shape[-1:] if shape[-1] else (0,)))
        assert fd.shape == tuple(td.shape)
    # an empty dst with a non-broadcastable src still fails the shape check
    assert_same_raise(
        outcome(lambda: fi.zeros((0,)).copy_(fi.zeros((2,))))[1],
        outcome(lambda: torch.zeros(0).copy_(torch.zeros(2)))[1],
    )


@pytest.mark.parametrize("n", [59, 60, 61, 119, 120, 121])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float32, torch.complex128])
def test_transposed_copy_around_the_block_size(n, dtype):
    """torch copies a transposed contiguous matrix in 60×60 tiles (120 for uint8) from 3600
    elements on: the same values as any copy."""
    t = random_values((n, n), dtype, np.random.default_rng(n))
    td = torch.empty(n, n, dtype=dtype)
    fd = share(torch.empty(n, n, dtype=dtype))
    td.copy_(t.t())
    fd.copy_(share(t).transpose(0, 1))
    assert_result(fd, td)


@pytest.mark.parametrize("n", [32767, 32768, 32769])
@pytest.mark.parametrize("threads", [1, 2])
def test_copy_sizes_around_the_grain(n, threads):
    for src, dst in [
        (torch.float32, torch.float16),
        (torch.int64, torch.float32),
        (torch.float64, torch.int32),
    ]:
        rng = np.random.default_rng(n)
        ts = source_values((n,), src, dst, rng)
        with parallelism(threads, None):
            fd = share(torch.zeros(n, dtype=dst))
            fd.copy_(share(ts))
            assert_result(fd, torch.zeros(n, dtype=dst).copy_(ts))
            strided = ts.reshape(-1)[::3]
            assert_result(share(strided).to(NAME_OF[dst]), strided.to(dst))


# ---- reshape, tolist, item ---------------------------------------------------------------------


@st.composite
def reshape_cases(draw):
    shape = tuple(draw(st.lists(st.sampled_from([0, 1, 1, 2, 3, 4]), min_size=0, max_size=4)))
    layout = draw(layouts(shape))
    dtype = draw(dtypes)
    numel = math.prod(shape)
    factors = []
    rest = numel
    for _ in range(draw(st.integers(0, 3))):
        divisors = [k for k in range(1, rest + 1) if rest % k == 0] if rest else [0, 1, 2]
        k = draw(st.sampled_from(divisors))
        factors.append(k)
        rest = rest // k if k else rest
    factors.append(rest if (numel or 0 in factors) else 0)
    if draw(st.booleans()) and factors:
        factors[draw(st.integers(0, len(factors) - 1))] = -1
    return Operand(shape, dtype, layout, draw(st.integers(0, 2**32 - 1))), tuple(factors)


@settings(max_examples=scaled(200))
@given(case=reshape_cases())
def test_reshape(case):
    """A view when the strides allow (same memory, torch's view strides), else a contiguous
    copy: torch.reshape decides which."""
    x, new_shape = case
    a, t = x.build()
    theirs, t_exc = outcome(lambda: t.reshape(new_shape))
    mine, f_exc = outcome(lambda: a.reshape(*new_shape))
    if t_exc is not None:
        assert_same_raise(f_exc, t_exc)
        return
    assert f_exc is None, f"ferroiter raised {f_exc!r}"
    assert_result(mine, theirs, "exact")
    if t.numel() > 0:
        torch_view = theirs.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
        mine_view = np.shares_memory(mine.numpy(), a.numpy())
        assert mine_view == torch_view, "view vs copy differs from torch"


def test_reshape_ambiguous_minus_one():
    assert_same_raise(
        outcome(lambda: fi.zeros((0,)).reshape(-1, 0))[1],
        outcome(lambda: torch.zeros(0).reshape(-1, 0))[1],
    )


@st.composite
def any_operands(draw):
    ndim = draw(st.integers(0, 3))
    sizes = st.sampled_from([0, 1, 1, 2, 3])
    shape = tuple(draw(st.lists(sizes, min_size=ndim, max_size=ndim)))
    dtype = draw(dtypes)
    return Operand(shape, dtype, draw(layouts(shape)), draw(st.integers(0, 2**32 - 1)))


@settings(max_examples=scaled(150))
@given(x=any_operands())
def test_tolist_and_item(x):
    a, t = x.build()
    mine, theirs = a.tolist(), t.tolist()
    assert _same_list(mine, theirs), f"tolist: {mine!r} != {theirs!r}"
    m, f_exc = outcome(a.item)
    r, t_exc = outcome(t.item)
    if t_exc is not None:
        assert_same_raise(f_exc, t_exc)
    else:
        assert type(m) is type(r) and _same_list([m], [r]), f"item: {m!r} != {r!r}"


def _same_list(x, y) -> bool:
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(_same_list(p, q) for p, q in zip(x, y, strict=True))
    if type(x) is not type(y):
        return False
    if isinstance(x, float):
        return (math.isnan(x) and math.isnan(y)) or (
            x == y and math.copysign(1, x) == math.copysign(1, y)
        )
    if isinstance(x, complex):
        return _same_list(x.real, y.real) and _same_list(x.imag, y.imag)
    return x == y


# ---- large and converting copies: streamed stores and F16C rows -------------------------------


def _conversion_patterns(n: int, offset: int) -> torch.Tensor:
    """`n` float32 values from bit patterns where a conversion changes behaviour: every
    exponent of both signs with mantissas at and around float16's rounding halfway points
    (ties that round to even either way), NaNs with payloads and signs, infinities,
    subnormals of both formats, zeros; then a pseudo-random sweep, rolled by `offset`."""
    exps = np.arange(256, dtype=np.uint32) << 23
    mans = np.array(
        [0, 1, 0xFFF, 0x1000, 0x1001, 0x1FFF, 0x2000, 0x3000, 0x7FE000, 0x7FFFFF, 0x400001],
        dtype=np.uint32,
    )
    grid = (exps[:, None] | mans[None, :]).reshape(-1)
    special = np.concatenate([grid, grid | np.uint32(0x8000_0000)])
    rng = np.random.default_rng(n + offset)
    bits = rng.integers(0, 2**32, size=max(n, special.size), dtype=np.uint64).astype(np.uint32)
    bits[: special.size] = special
    bits = np.roll(bits[: max(n, special.size)], offset)[:n]
    return torch.from_numpy(bits.view(np.float32).copy())


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("n", [1, 15, 16, 17, 31, 32, 33, 1000, 32767, 32769, 65537, 2**23 + 5])
@pytest.mark.parametrize("dst", [torch.float16, torch.float64, torch.float32])
@pytest.mark.parametrize("threads", [1, 2])
def test_float32_conversions_bit_exact(n, dst, threads):
    """float32 → float16 / float64 / float32 into a preallocated output, output and input
    starting at element offsets 0-3 (misaligned for the vector and streamed stores), at sizes
    around the vector widths, the grain and (8M elements: over 32 MiB moved) where copies
    stream their stores:
    every bit as torch gives, NaN payloads included (compared as integers)."""
    as_int = {torch.float16: np.uint16, torch.float32: np.uint32, torch.float64: np.uint64}
    for offset in range(4) if n < 2**20 else (0, 3):
        src = _conversion_patterns(n + 4, offset)[offset : offset + n]
        td = torch.zeros(n + 4, dtype=dst)[3 - offset : 3 - offset + n]
        with parallelism(threads, None):
            fd = share(torch.zeros(n + 4, dtype=dst))[3 - offset : 3 - offset + n]
            fd.copy_(share(src))
        td.copy_(src)
        mine, theirs = fd.numpy(), td.numpy()
        assert_values(mine.view(as_int[dst]), theirs.view(as_int[dst]), what=f"bits {offset}: ")
        assert_result(fd, td)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int16, torch.int64, torch.complex128])
@pytest.mark.parametrize("threads", [1, 2])
def test_large_copies_every_width(dtype, threads):
    """Same-dtype copies large enough to stream (48 MiB moved: more than the last-level cache
    of most machines), output misaligned by one element: every element moved, nothing
    written around the output."""
    n = (24 << 20) // torch.zeros(0, dtype=dtype).element_size() + 7
    src = random_values((n,), dtype, np.random.default_rng(n))
    with parallelism(threads, None):
        base = share(torch.zeros(n + 2, dtype=dtype))
        base[1 : n + 1].copy_(share(src))
    want = torch.zeros(n + 2, dtype=dtype)
    want[1 : n + 1] = src
    assert_result(base, want)


@pytest.mark.parametrize(
    ("shape", "perm"),
    [
        # output columns apart (rows of 20, 78 and 5 elements; columns adjacent by sixes, by
        # 85, or a batch of small transposes): streamed tiles staged as images
        ((12, 10, 20, 5, 16, 6), (0, 3, 1, 5, 4, 2)),
        ((78, 10, 85, 16), (1, 3, 2, 0)),
        ((40, 25, 38, 5, 4, 19), (0, 1, 2, 4, 5, 3)),
        # 352-row tiles of a reversal, columns 13041 elements apart
        ((9, 1449, 86, 7), (3, 2, 1, 0)),
        # the last dim kept: a flat copy of rows of 130 and 397 elements, streamed from 512
        # bytes where the last-level cache is far
        ((12, 111, 4, 130), (1, 2, 0, 3)),
        ((6, 111, 4, 397), (1, 2, 0, 3)),
        # direct tiled walks cut into several tiles along the output's rows: a transpose and
        # NHWC -> NCHW (at offset 1 the tiles after the first start on the output's lines)
        ((1024, 1100), (1, 0)),
        ((4, 56, 56, 64), (0, 3, 1, 2)),
    ],
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int16])
@pytest.mark.parametrize("offset", [0, 1])
@pytest.mark.parametrize("threads", [1, 2])
def test_large_permuted_copies(shape, perm, dtype, offset, threads):
    """Permuting copies large enough to stream their stores (over 2 MiB out), into outputs
    at element offsets 0 and 1 (so that the columns' or rows' lines are aligned or not):
    every element where torch puts it, nothing written around the output."""
    n = int(np.prod(shape))
    src = random_values(shape, dtype, np.random.default_rng(n)).permute(*perm)
    out_shape = src.shape
    with parallelism(threads, None):
        base = share(torch.zeros(n + 2, dtype=dtype))
        base[offset : offset + n].view(*out_shape).copy_(share(src))
    want = torch.zeros(n + 2, dtype=dtype)
    want[offset : offset + n].view(*out_shape).copy_(src)
    assert_result(base, want)


@pytest.mark.parametrize("threads", [1, 2])
def test_large_clones_write_every_element(threads):
    """clone/to/contiguous of arrays above the mapped-allocation size (2 MiB), whose output is
    not zeroed first when it takes the source's strides: every element written, after a freed
    buffer of the same size left other bytes behind; strides, dtype and values as torch."""
    shape = (2, 24, 130, 131)  # 3.1 MiB of float32
    # (within int32's range: out-of-range float → int conversions are torch's undefined ones)
    values = np.random.default_rng(3).uniform(-1000, 1000, shape).astype(np.float32)
    src = torch.from_numpy(values)
    cases = {
        "clone": lambda t, m: t.clone(),
        "clone to contiguous": lambda t, m: t.clone(memory_format=m.contiguous_format),
        "to float64": lambda t, m: t.to(torch.float64),
        "to int32": lambda t, m: t.to(torch.int32),
        "contiguous": lambda t, m: t.contiguous(),
        "channels_last": lambda t, m: t.contiguous(memory_format=m.channels_last),
    }
    layouts_ = {
        "contiguous": src,
        "channels_last": src.contiguous(memory_format=torch.channels_last),
        "permuted": src.permute(0, 2, 3, 1),
    }
    with parallelism(threads, None):
        for lname, t in layouts_.items():
            for name, op in cases.items():
                # a dirty buffer of every size used, freed just before
                for dtype in (torch.float32, torch.float64, torch.int32):
                    junk = fi.full(list(shape), 7.0, dtype=dtype)
                    del junk
                assert_result(op(share(t), fi), op(t, torch), what=f"{lname} {name}: ")
