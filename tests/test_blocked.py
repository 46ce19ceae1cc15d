"""oneDNN's blocked memory formats (nChw8c, nChw16c, nCdhw8c, nCdhw16c): the offset formula on
every element, round trips between every pair of formats, the zero padding after every op,
ops equal to torch's on the dense data, and clear errors where a blocked array cannot go."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroiter as fi

from harness import (
    NAME_OF,
    assert_same,
    assert_same_error,
    assert_values,
    parallelism,
    scaled,
    share,
)

BLOCKED = {
    4: [("nChw8c", fi.nChw8c, 8), ("nChw16c", fi.nChw16c, 16)],
    5: [("nCdhw8c", fi.nCdhw8c, 8), ("nCdhw16c", fi.nCdhw16c, 16)],
}
STRIDED = {
    4: [("contiguous", fi.contiguous_format), ("channels_last", fi.channels_last)],
    5: [("contiguous", fi.contiguous_format), ("channels_last_3d", fi.channels_last_3d)],
}
TORCH_FORMAT = {
    "contiguous": torch.contiguous_format,
    "channels_last": torch.channels_last,
    "channels_last_3d": torch.channels_last_3d,
}
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32, torch.uint8]


def formats_of(rank: int) -> list[tuple[str, fi.MemoryFormat]]:
    return STRIDED[rank] + [(name, fmt) for name, fmt, _ in BLOCKED[rank]]


@st.composite
def blocked_shapes(draw, rank: int | None = None, max_c: int = 40):
    """(shape, format name, format, block): C both a multiple of the block and not."""
    rank = rank or draw(st.sampled_from([4, 5]))
    name, fmt, block = draw(st.sampled_from(BLOCKED[rank]))
    c = draw(st.one_of(st.integers(1, max_c), st.sampled_from([block, 2 * block])))
    spatial = [draw(st.integers(1, 4)) for _ in range(rank - 2)]
    return (draw(st.integers(1, 3)), c, *spatial), name, fmt, block


def values(shape, dtype: torch.dtype, seed: int) -> torch.Tensor:
    """Distinct-ish non-zero values (so a misplaced or zeroed element shows)."""
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return (torch.rand(shape, generator=g, dtype=torch.float64) * 4 + 0.5).to(dtype)
    return torch.randint(1, 100, shape, generator=g).to(dtype)


def padding(b: fi.Array, block: int) -> np.ndarray:
    """The padding lanes of a blocked array (empty when C is a multiple of the block)."""
    c = b.shape[1]
    phys = np.asarray(b.blocked_view().numpy())
    return phys[:, -1, ..., c % block :] if c % block else phys[:, :0]


def assert_padding_zero(b: fi.Array, block: int, what: str = "") -> None:
    pad = padding(b, block)
    assert (pad == 0).all(), f"{what}padding lanes not zero: {pad[pad != 0][:8]}"


# ---- the formula ----


@settings(max_examples=scaled(60))
@given(blocked_shapes(), st.integers(0, 2**31))
def test_offset_formula_on_every_element(case, seed):
    shape, name, fmt, b = case
    x = values(shape, torch.float32, seed)
    blocked = share(x).contiguous(fmt)
    assert blocked.shape == shape and blocked.is_contiguous(memory_format=fmt)
    storage = np.asarray(blocked.blocked_view().numpy()).reshape(-1)
    n, c = shape[0], shape[1]
    cp = -(-c // b) * b
    spatial = int(np.prod(shape[2:]))
    idx = np.indices(shape).reshape(len(shape), -1)
    within = np.ravel_multi_index(idx[2:], shape[2:]) if len(shape) > 2 else 0
    offset = idx[0] * cp * spatial + (idx[1] // b) * spatial * b + within * b + idx[1] % b
    assert storage.size == n * cp * spatial
    np.testing.assert_array_equal(storage[offset], x.numpy().reshape(-1))
    others = np.ones(storage.size, bool)
    others[offset] = False
    assert (storage[others] == 0).all(), f"{name}: padding holds {storage[others]}"
    assert blocked.blocked_view().shape == (n, cp // b, *shape[2:], b)


def test_layout_picture_of_the_article():
    """nChw8c of one pixel row: channels 0-7 adjacent, then the next pixel's 0-7; channel 8
    starts the second block after the whole H·W·8 of the first."""
    x = torch.arange(16.0).reshape(1, 16, 1, 1).expand(1, 16, 1, 2).contiguous()
    b = share(x).contiguous(fi.nChw8c)
    raw = np.asarray(b.blocked_view().numpy()).reshape(-1)
    assert raw.tolist() == [*range(8), *range(8), *range(8, 16), *range(8, 16)]


# ---- conversions ----


@settings(max_examples=scaled(40))
@given(blocked_shapes(max_c=20), st.sampled_from(DTYPES), st.integers(0, 2**31), st.data())
def test_round_trips_between_every_pair_of_formats(case, dtype, seed, data):
    shape, *_ = case
    rank = len(shape)
    x = values(shape, dtype, seed)
    dense = share(x)
    (n1, f1), (n2, f2) = (data.draw(st.sampled_from(formats_of(rank))) for _ in range(2))
    a = dense.contiguous(f1)
    how = data.draw(st.sampled_from(["to", "contiguous", "clone", "copy_", "empty_like"]))
    if how == "to":
        c = a.to(memory_format=f2)
    elif how == "contiguous":
        c = a.contiguous(f2)
    elif how == "clone":
        c = a.clone(memory_format=f2)
    elif how == "copy_":
        c = fi.empty(shape, dtype=NAME_OF[dtype], memory_format=f2)
        c.copy_(a)
    else:
        c = fi.empty_like(a, memory_format=f2)
        c.copy_(a)
    assert c.is_contiguous(memory_format=f2), f"{n1} -> {n2} by {how}"
    block_of = {n: b for n, _, b in BLOCKED[rank]}
    back = c.contiguous()
    assert_same(back, x, what=f"{n1} -> {n2} by {how}: ", strides=False)
    if n2 in block_of:
        assert c.suggest_memory_format() == f2
        assert_padding_zero(c, block_of[n2])


@settings(max_examples=scaled(30))
@given(blocked_shapes(max_c=20), st.sampled_from(DTYPES), st.sampled_from(DTYPES))
def test_dtype_conversions_match_torch(case, src, dst):
    shape, name, fmt, b = case
    x = values(shape, src, 3)
    blocked = share(x).contiguous(fmt)
    converted = blocked.to(NAME_OF[dst])
    assert converted.suggest_memory_format() == fmt
    assert_padding_zero(converted, b)
    assert_same(converted.contiguous(), x.to(dst), what=f"{name} {src} -> {dst}: ")


def blocked_reference(x: np.ndarray, block: int) -> np.ndarray:
    """The physical view of `x` (N, C, *spatial) in the blocked format of `block`, by numpy:
    channels zero-padded to whole blocks, then each block's lanes moved last."""
    n, c, *spatial = x.shape
    cp = -(-c // block) * block
    padded = np.zeros((n, cp, *spatial), x.dtype)
    padded[:, :c] = x
    return np.moveaxis(padded.reshape(n, cp // block, block, *spatial), 2, -1)


# Sizes around the edges of the conversions' tiles (the direct walk's 16 x 2048 float32
# tiles over lanes x H·W on a 1 MiB L2, the permuting copy's for 8-lane blocks) and of the
# thread chunks; the first is over the 2 MiB from which freed buffers are reused, so that an
# output allocated unzeroed starts out holding the garbage written just before.
EDGE_CASES = [
    ((4, 64, 1, 2049), fi.nChw16c, 16, torch.float32),
    ((2, 32, 1, 2047), fi.nChw16c, 16, torch.float32),
    ((2, 32, 2, 1024), fi.nChw8c, 8, torch.float32),
    ((1, 48, 41, 100), fi.nChw16c, 16, torch.float64),
    ((2, 19, 3, 683), fi.nChw16c, 16, torch.float32),
    ((1, 33, 64, 64), fi.nChw8c, 8, torch.uint8),
    ((2, 16, 3, 17, 41), fi.nCdhw16c, 16, torch.float32),
]


@pytest.mark.parametrize("case", EDGE_CASES, ids=lambda c: f"{c[0]}-{c[2]}-{c[3]}")
def test_conversions_are_identical_at_any_thread_count(case):
    """NCHW -> blocked -> NCHW at 1, 2 and 3 threads (and 3 threads at a grain that cuts the
    chunks inside tiles): every physical element, padding included, equal to numpy's, bit for
    bit, and the way back equal to the input, into outputs that may reuse dirty memory."""
    shape, fmt, block, dtype = case
    x = values(shape, dtype, 11)
    want = blocked_reference(x.numpy(), block)
    dense = share(x)
    for threads, grain in [(1, None), (2, None), (3, None), (3, 1000)]:
        what = f"{shape} {dtype} at {threads} threads, grain {grain}: "
        with parallelism(threads, grain):
            dirty = fi.full(want.shape, 77, dtype=NAME_OF[dtype])
            del dirty
            b = dense.contiguous(fmt)
            assert_values(np.asarray(b.blocked_view().numpy()), want, what=what)
            dirty = fi.full(shape, 77, dtype=NAME_OF[dtype])
            del dirty
            assert_same(b.contiguous(), x, what=what)
            assert_same(
                b.contiguous(fi.channels_last if len(shape) == 4 else fi.channels_last_3d),
                x.contiguous(
                    memory_format=torch.channels_last if len(shape) == 4 else torch.channels_last_3d
                ),
                what=what,
            )


def test_preserve_keeps_the_blocked_format_and_numpy_is_a_dense_copy():
    x = values((2, 19, 3, 2), torch.float32, 0)
    b = share(x).contiguous(fi.nChw8c)
    assert b.to(memory_format=fi.preserve_format) is b
    assert b.contiguous(fi.nChw8c) is b
    assert b.clone().suggest_memory_format() == fi.nChw8c
    assert fi.empty_like(b).suggest_memory_format() == fi.nChw8c
    assert fi.zeros_like(b).suggest_memory_format() == fi.nChw8c
    nd = b.numpy()
    assert_values(nd, x.numpy())
    nd[0, 0, 0, 0] = -1  # a copy: the blocked array keeps its value
    assert b.contiguous().numpy()[0, 0, 0, 0] == x[0, 0, 0, 0].item()
    assert_values(np.asarray(b), x.numpy())
    assert b.tolist() == x.tolist()
    assert b.is_non_overlapping_and_dense() is False


@pytest.mark.parametrize("rank", [4, 5])
def test_constructors_fill_logical_elements_and_zero_the_padding(rank):
    shape = (2, 5, 3, 2) if rank == 4 else (1, 11, 2, 2, 3)
    for name, fmt, b in BLOCKED[rank]:
        for make, want in [
            (lambda fmt=fmt: fi.zeros(shape, memory_format=fmt), torch.zeros(shape)),
            (lambda fmt=fmt: fi.ones(shape, memory_format=fmt), torch.ones(shape)),
            (lambda fmt=fmt: fi.full(shape, 2.5, memory_format=fmt), torch.full(shape, 2.5)),
            (lambda fmt=fmt: fi.empty(shape, memory_format=fmt), None),
        ]:
            a = make()
            assert a.shape == shape and a.suggest_memory_format() == fmt, name
            assert a.is_contiguous(memory_format=fmt)
            assert not a.is_contiguous()
            assert_padding_zero(a, b, f"{name}: ")
            if want is not None:
                assert_same(a.contiguous(), want, what=f"{name}: ")
        like = fi.full_like(fi.zeros(shape, memory_format=fmt), 7)
        assert like.suggest_memory_format() == fmt
        assert_padding_zero(like, b)


# ---- ops ----

UNARY = ["exp", "neg", "abs", "sigmoid", "cos", "sqrt", "floor", "expm1", "log1p", "tanh"]


@settings(max_examples=scaled(40))
@given(blocked_shapes(max_c=36), st.sampled_from(UNARY), st.integers(0, 2**31))
def test_unary_ops_keep_padding_zero_and_match_torch(case, op, seed):
    shape, name, fmt, b = case
    x = values(shape, torch.float32, seed)
    blocked = share(x).contiguous(fmt)
    r = getattr(fi, op)(blocked)
    assert r.suggest_memory_format() == fmt, f"{op} on {name}"
    assert_padding_zero(r, b, f"{op} on {name}: ")
    assert_same(r.contiguous(), getattr(torch, op)(x), "ulp", what=f"{op} on {name}: ")


@settings(max_examples=scaled(40))
@given(
    blocked_shapes(max_c=36),
    st.sampled_from(["add", "sub", "mul", "div", "gt", "eq", "lt", "pow"]),
    st.sampled_from(["blocked", "scalar", "0-d", "dense", "channels_last"]),
    st.sampled_from([torch.float32, torch.int32]),
    st.integers(0, 2**31),
)
def test_binary_ops_match_torch_and_keep_padding_zero(case, op, other, dtype, seed):
    shape, name, fmt, b = case
    x, y = values(shape, dtype, seed), values(shape, dtype, seed + 1)
    blocked = share(x).contiguous(fmt)
    rank = len(shape)
    if other == "blocked":
        fo, to = share(y).contiguous(fmt), y
    elif other == "scalar":
        fo, to = 2, 2
    elif other == "0-d":
        fo, to = share(torch.tensor(3, dtype=dtype)), torch.tensor(3, dtype=dtype)
    elif other == "dense":
        fo, to = share(y), y
    else:
        cl = fi.channels_last if rank == 4 else fi.channels_last_3d
        fo, to = share(y).contiguous(cl), y
    r = getattr(fi, op)(blocked, fo)
    want = getattr(torch, op)(x, to)
    if other in ("blocked", "scalar", "0-d"):
        assert r.suggest_memory_format() == fmt, f"{name} {op} {other}"
        assert_padding_zero(r, b, f"{name} {op} {other}: ")
    mode = "ulp" if op in ("div", "pow") else "exact"
    assert_same(r.contiguous(), want, mode, what=f"{name} {op} {other}: ", strides=False)


@pytest.mark.parametrize("rank", [4, 5])
def test_padding_zero_where_f0_is_not_zero(rank):
    """exp(0) = 1, 0 + 1 = 1, clamp(0, min=1) = 1, 0 == 0, cos(0) = 1: never seen in padding."""
    shape = (2, 5, 3, 2) if rank == 4 else (1, 3, 2, 2, 3)
    x = values(shape, torch.float32, 1)
    for name, fmt, b in BLOCKED[rank]:
        a = share(x).contiguous(fmt)
        results = {
            "exp": (fi.exp(a), torch.exp(x)),
            "+1": (a + 1, x + 1),
            "1+": (1 + a, 1 + x),
            "clamp(min=1)": (fi.clamp(a, min=1), torch.clamp(x, min=1)),
            "clamp(min=t)": (fi.clamp(a, min=a), torch.clamp(x, min=x)),
            "eq": (fi.eq(a, a), torch.eq(x, x)),
            "cos": (fi.cos(a), torch.cos(x)),
            "where": (fi.where(fi.ge(a, 2), a, 5), torch.where(x >= 2, x, 5)),
            "pow0": (fi.pow(a, 0), torch.pow(x, 0)),
            "logical_not": (fi.logical_not(a), torch.logical_not(x)),
        }
        for what, (mine, theirs) in results.items():
            assert mine.suggest_memory_format() == fmt, f"{name} {what}"
            assert_padding_zero(mine, b, f"{name} {what}: ")
            assert_same(mine.contiguous(), theirs, "ulp", what=f"{name} {what}: ")
        # in place and out=
        y = a.clone()
        y += 1
        assert_padding_zero(y, b, f"{name} +=: ")
        out = fi.empty(shape, memory_format=fmt)
        r = fi.add(a, 1, out=out)
        assert r is out
        assert_padding_zero(out, b, f"{name} out=: ")
        assert_same(out.contiguous(), x + 1)
        fi.exp(a, out=out)
        assert_padding_zero(out, b)
        assert_same(out.contiguous(), torch.exp(x), "ulp")


def test_integer_division_with_padding_does_not_divide_by_zero():
    x = values((1, 5, 2, 2), torch.int32, 4)
    a = share(x).contiguous(fi.nChw8c)
    r = fi.floor_divide(a, a)
    assert_same(r.contiguous(), torch.floor_divide(x, x))
    r = fi.remainder(a, a)
    assert_same(r.contiguous(), torch.remainder(x, x))


@settings(max_examples=scaled(30))
@given(
    blocked_shapes(max_c=36),
    st.sampled_from(["sum", "mean", "amax", "amin", "prod", "argmax"]),
    st.sampled_from([None, 1, (2, 3), 0]),
    st.integers(0, 2**31),
)
def test_reductions_exclude_the_padding(case, op, dim, seed):
    shape, name, fmt, b = case
    x = values(shape, torch.float64, seed) - 2.5  # negative values: a padding 0 would show
    blocked = share(x).contiguous(fmt)
    if op in ("argmax", "prod") and isinstance(dim, tuple):
        dim = 1
    if dim is None:
        mine, theirs = getattr(fi, op)(blocked), getattr(torch, op)(x)
    else:
        mine, theirs = getattr(fi, op)(blocked, dim), getattr(torch, op)(x, dim)
    dense = share(x)
    same = getattr(fi, op)(dense) if dim is None else getattr(fi, op)(dense, dim)
    # bit for bit ferroiter's result on the dense array; torch's within rounding
    assert_same(mine, torch.from_numpy(np.array(same.numpy())), what=f"{op}: ")
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fi.cumsum(blocked, 1).numpy(), torch.cumsum(x, 1), rtol=1e-12)
    if x.numel() > 1:
        np.testing.assert_allclose(fi.std(blocked).numpy(), torch.std(x).numpy(), rtol=1e-12)


#: Functions that compute on logical elements through strides (sorting, gathering, shape
#: copies, matrix products): a blocked operand is read as its dense NC(D)HW copy, the result is
#: dense. (They once read the physical storage with the logical shape: wrong values, and reads
#: outside the storage.)
def _index(*values):
    return torch.tensor(values, dtype=torch.int64)


LOGICAL_FUNCTIONS = {
    "sort": lambda m, x: m.sort(x, 1).values,
    "argsort": lambda m, x: m.argsort(x, 1),
    "unique": lambda m, x: m.unique(x),
    "nonzero": lambda m, x: m.nonzero(x - 2),
    "take": lambda m, x: m.take(x, _of(m, _index(0, 7, -1))),
    "index_select": lambda m, x: m.index_select(x, 1, _of(m, _index(0, 0))),
    "take_along_dim": lambda m, x: m.take_along_dim(x, _of(m, torch.zeros(1, 1, 1, 1).long()), 1),
    "tril": lambda m, x: m.tril(x),
    "triu": lambda m, x: m.triu(x, 1),
    "flip": lambda m, x: m.flip(x, (1,)),
    "roll": lambda m, x: m.roll(x, 1, 1),
    "tile": lambda m, x: m.tile(x, (2,)),
    "repeat_interleave": lambda m, x: m.repeat_interleave(x, 2, 1),
    "diff": lambda m, x: m.diff(x, dim=1),
    "cat": lambda m, x: m.cat([x, x], 1),
    "stack": lambda m, x: m.stack([x, x]),
    "matmul": lambda m, x: m.matmul(x, x),
    "tensordot": lambda m, x: m.tensordot(x, x, 4),
    "vecdot": lambda m, x: (torch.linalg if m is torch else m).vecdot(x, x),
    "searchsorted": lambda m, x: m.searchsorted(m.sort(x, -1).values, x),
}


def _of(module, t: torch.Tensor):
    return t if module is torch else share(t)


@pytest.mark.parametrize("name", sorted(LOGICAL_FUNCTIONS))
def test_functions_on_logical_elements_read_blocked_arrays_densely(name):
    f = LOGICAL_FUNCTIONS[name]
    for shape, fmt in [((2, 5, 3, 3), fi.nChw8c), ((1, 17, 3, 3), fi.nChw16c)]:
        x = values(shape, torch.float64, 7)
        blocked = share(x).contiguous(memory_format=fmt)
        mine, theirs = f(fi, blocked), f(torch, x)
        if isinstance(theirs, tuple):
            theirs = theirs[0]
        assert tuple(mine.shape) == tuple(theirs.shape), name
        np.testing.assert_allclose(np.asarray(mine.numpy()), theirs.numpy(), rtol=1e-12)
        assert_padding_zero(blocked, 8 if fmt == fi.nChw8c else 16, f"{name}: ")


# ---- predicates and errors ----


@settings(max_examples=scaled(40))
@given(
    st.lists(st.integers(1, 4), min_size=4, max_size=5),
    st.permutations(range(5)),
    st.booleans(),
)
def test_suggest_memory_format_never_guesses_blocked(shape, perm, exact):
    perm = [p for p in perm if p < len(shape)]
    t = torch.empty(shape).permute(perm)
    a = share(t)
    suggested = a.suggest_memory_format(exact)
    assert suggested == fi.contiguous_format or suggested in (
        fi.channels_last,
        fi.channels_last_3d,
    )
    for _, fmt, _ in BLOCKED[4] + BLOCKED[5]:
        assert a.is_contiguous(memory_format=fmt) is False


def _error(fn) -> BaseException:
    with pytest.raises(Exception) as info:
        fn()
    return info.value


def test_bad_requests_raise_clear_errors():
    a = fi.ones((2, 5, 3, 3), memory_format=fi.nChw8c)
    cases = {
        "empty 3-d": (
            lambda: fi.empty((2, 3, 4), memory_format=fi.nChw8c),
            ValueError,
            "required rank 4 tensor to use nChw8c format, got shape [2, 3, 4]",
        ),
        "5-d format on 4-d": (
            lambda: fi.ones((2, 3, 4, 4)).contiguous(fi.nCdhw16c),
            ValueError,
            "required rank 5 tensor to use nCdhw16c format, got shape [2, 3, 4, 4]",
        ),
        "4-d format on 5-d": (
            lambda: fi.ones((1, 2, 3, 4, 4)).to(memory_format=fi.nChw16c),
            ValueError,
            "required rank 4 tensor to use nChw16c format, got shape [1, 2, 3, 4, 4]",
        ),
        "a view": (
            lambda: a[0],
            ValueError,
            "views of an array in the blocked format nChw8c are not supported; convert it "
            "with .contiguous() or .to(memory_format=...) first",
        ),
        "a permute": (
            lambda: a.permute(0, 2, 3, 1),
            ValueError,
            "views of an array in the blocked format nChw8c are not supported; convert it "
            "with .contiguous() or .to(memory_format=...) first",
        ),
        "strides": (
            lambda: a.stride(),
            ValueError,
            "an array in the blocked format nChw8c does not have strides per dim; "
            "blocked_view() gives its physical strided view",
        ),
        "blocked_view of a strided array": (
            lambda: fi.ones((2, 3)).blocked_view(),
            ValueError,
            "blocked_view() needs an array in a blocked memory format "
            "(nChw8c, nChw16c, nCdhw8c, nCdhw16c)",
        ),
        "memoryview": (lambda: memoryview(a), BufferError, "exports no buffer"),
        "iterator": (
            lambda: fi.TensorIterator.unary_op(None, a),
            ValueError,
            "iterator operands of an array in the blocked format nChw8c are not supported; "
            "convert it with .contiguous() or .to(memory_format=...) first",
        ),
        "dlpack": (lambda: a.__dlpack__(), ValueError, "DLPack exports of an array"),
    }
    for what, (fn, kind, message) in cases.items():
        exc = _error(fn)
        assert isinstance(exc, kind), f"{what}: {type(exc).__name__}({exc})"
        assert message in str(exc), f"{what}: {exc}"
    # reshape copies (torch's reshape may copy); sum reduces the logical elements
    assert a.reshape(-1).shape == (90,)
    assert a.sum().item() == 90


# ---- the command line ----


def test_layout_command_draws_the_article_picture():
    from ferroiter._layout_cli import layout_text, memory_map
    from ferroiter._operand_spec import parse_operand

    spec = parse_operand("1,16,1,2:nChw8c")
    text = layout_text(spec)
    assert "c0,w0@0 c1,w0@1 c2,w0@2 c3,w0@3 c4,w0@4 c5,w0@5 c6,w0@6 c7,w0@7" in text
    assert "c0,w1@8 " in text and "c8,w0@16 " in text
    # every element at the formula's address; the padding of C=3 holds nothing
    m = memory_map(parse_operand("2,3,2,2:nChw8c"))
    for (n, c, h, w), address in m.address_of.items():
        assert address == n * 8 * 4 + (c // 8) * 4 * 8 + (h * 2 + w) * 8 + c % 8
    assert "belong to no element" in layout_text(parse_operand("2,3,2,2:nChw8c"))
    with pytest.raises(ValueError, match="nChw16c needs 4 dims, got 3"):
        parse_operand("2,3,4:nChw16c")


def test_explain_shows_the_physical_iteration():
    from ferroiter._explain_cli import explain

    same = explain("add", ["2,32,4,4:nChw16c", "2,32,4,4:nChw16c"])
    assert "the op runs over their physical views" in same
    assert "shape [2, 2, 4, 4, 16] strides [512, 256, 64, 16, 1]" in same
    mixed = explain("add", ["2,19,4,4:nChw8c", "2,19,4,4"])
    assert "mixed formats: the blocked operands are converted to dense" in mixed
    conversion = explain("contiguous", ["2,19,4,4"], memory_format="nChw8c")
    assert "2 full block(s) and a last block of 3 lane(s)" in conversion
    assert "strides [304, 128, 4, 1, 16]" in conversion
    back = explain("contiguous", ["2,19,4,4:nChw8c"], memory_format="contiguous")
    assert "blocked conversion (block 8)" in back
    assert "reduced as a dense" in explain("sum", ["2,19,4,4:nChw8c"])


@pytest.mark.parametrize("shape", [(0, 5, 2, 2), (2, 0, 3, 3), (2, 5, 0, 3), (1, 3, 2, 0, 2)])
def test_empty_shapes(shape):
    fmt = fi.nChw16c if len(shape) == 4 else fi.nCdhw8c
    a = fi.ones(shape, memory_format=fmt)
    assert a.shape == shape and a.numel() == 0
    assert fi.exp(a).suggest_memory_format() == fmt
    assert_same(a.contiguous(), torch.ones(shape))
    assert_same(fi.sum(a, 1), torch.ones(shape).sum(1))
    c = int(shape[1])
    assert a.blocked_view().shape[1] == -(-c // (16 if len(shape) == 4 else 8))


def test_blocked_out_with_operands_in_other_formats():
    """A blocked out= (and an in-place op on a blocked array) with dense operands: computed
    densely, stored into the logical lanes; the padding stays zero; a resize is refused."""
    x, y = values((2, 5, 3, 3), torch.float32, 7), values((2, 5, 3, 3), torch.float32, 8)
    a = share(x).contiguous(fi.nChw8c)
    a += share(y)
    assert a.suggest_memory_format() == fi.nChw8c
    assert_padding_zero(a, 8)
    assert_same(a.contiguous(), x + y)
    out = fi.empty((2, 5, 3, 3), memory_format=fi.nChw8c)
    assert fi.mul(share(x), share(y), out=out) is out
    assert_same(out.contiguous(), x * y)
    assert_padding_zero(out, 8)
    r = fi.add(share(x), share(y)[:, :, :1], out=out)
    assert r is out
    assert_same(out.contiguous(), x + y[:, :, :1])
    bad = fi.empty((2, 5, 3, 1), memory_format=fi.nChw8c)
    # (the dense copy of the out is resized with torch's warning before the refusal)
    with (
        pytest.raises(ValueError, match="an out= in the blocked format nChw8c cannot be resized"),
        pytest.warns(UserWarning, match="resized"),
    ):
        fi.add(share(x), share(y), out=bad)

    def fi_inplace():
        small = fi.zeros((2, 5, 1, 1), memory_format=fi.nChw8c)
        small += share(x)

    def torch_inplace():
        small = torch.zeros((2, 5, 1, 1))
        small += x

    assert "doesn't match the broadcast shape" in assert_same_error(fi_inplace, torch_inplace)
