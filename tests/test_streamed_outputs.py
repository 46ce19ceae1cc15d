"""Elementwise ops whose outputs are large enough for streamed stores, against torch.

A loop writes its output's contiguous rows with non-temporal stores when the output is large
(`exec/stores.rs`: past a quarter of the L3 on Intel, once the operands exceed the L3
elsewhere), no input reaches the output's memory, and the row is at least 4 KiB: the part of a
row before its first cache line is stored plainly, the rest is computed into a scratch and
streamed out (the vector math kernels stream each block of one line as they compute it).
Outputs that large would make slow tests, so this module makes every output of 1 MiB and more
stream (`_set_streamed_from`, the core's test hook) and checks that the rule's own thresholds
still hold where they apply; the values must be torch's either way. Outputs start mid-line
(`out=` views at element offsets), rows end mid-line, two threads cut the rows between chunks,
and every element size runs (1 to 16 bytes).
"""

from __future__ import annotations

import pytest
import torch

import ferroiter as fi

from harness import assert_result, assert_same, distinct_values, parallelism, share

N = (1 << 20) + 13


@pytest.fixture(autouse=True)
def _streamed_from_one_mib():
    """Every output of 1 MiB and more streams while a test of this module runs."""
    previous = fi._ferroiter._set_streamed_from(1 << 20)
    yield
    fi._ferroiter._set_streamed_from(previous)


PARALLELISM = [(1, None), (2, None), (2, 1000)]
PARALLELISM_IDS = ["1thread", "2threads", "2threads-grain1000"]
DTYPES = (
    torch.uint8,
    torch.int16,
    torch.float16,
    torch.float32,
    torch.float64,
    torch.complex128,
)
DTYPE_IDS = [str(d)[6:] for d in DTYPES]


def out_view(n: int, dtype: torch.dtype, offset: int) -> tuple[torch.Tensor, fi.Array]:
    """A zeroed output of `n` elements starting `offset` elements into its buffer (so that it
    starts mid-line), in torch and the same memory in ferroiter."""
    buffer = torch.zeros(n + offset, dtype=dtype)
    view = buffer[offset:]
    return view, share(view)


@pytest.mark.parametrize(("threads", "grain"), PARALLELISM, ids=PARALLELISM_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("offset", [0, 1, 7])
def test_binary_into_out_views(dtype, offset, threads, grain) -> None:
    a, b = distinct_values((N,), dtype), distinct_values((N,), dtype).flip(0)
    theirs, out = out_view(N, dtype, offset)
    torch.mul(a, b, out=theirs)
    with parallelism(threads, grain):
        fi.mul(share(a), share(b), out=out)
    assert_same(out, theirs, offset=False)


@pytest.mark.parametrize(("threads", "grain"), PARALLELISM, ids=PARALLELISM_IDS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_rows_with_a_broadcast_input(dtype, threads, grain) -> None:
    """Rows of 8191 elements (not a whole number of lines) of a 2-D output, one input a row
    broadcast down the columns and one a Python scalar."""
    a = distinct_values((129, 8191), dtype)
    row = distinct_values((1, 8191), dtype)
    with parallelism(threads, grain):
        assert_result(fi.sub(share(a), share(row)), torch.sub(a, row))
        assert_result(fi.add(share(a), 3), torch.add(a, 3))


@pytest.mark.parametrize(("threads", "grain"), PARALLELISM, ids=PARALLELISM_IDS)
def test_unary_ternary_casts_and_fills(threads, grain) -> None:
    x = distinct_values((N,), torch.float32)
    y = distinct_values((N,), torch.float64)
    mask = x > x.flip(0)
    with parallelism(threads, grain):
        assert_result(fi.neg(share(x)), torch.neg(x))
        assert_result(fi.abs(share(x)), torch.abs(x))
        assert_result(fi.where(share(mask), share(x), 0.5), torch.where(mask, x, 0.5))
        assert_result(share(y).to(dtype="float32"), y.to(torch.float32))
        assert_result(share(x).to(dtype="int64"), x.to(torch.int64))
        filled = fi.empty((N,), dtype="float32")
        filled[...] = 2.5  # a copy_ of one value broadcast
        assert_result(filled, torch.full((N,), 2.5))
        assert_result(fi.gt(share(x), 0.25), torch.gt(x, 0.25))


@pytest.mark.parametrize(("threads", "grain"), PARALLELISM, ids=PARALLELISM_IDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", ["exp", "log", "sin", "tanh"])
@pytest.mark.parametrize("offset", [0, 3])
@pytest.mark.parametrize("every", [1, 2], ids=["contiguous", "every2nd"])
def test_vector_math_streamed_gives_the_plain_bits(
    name, dtype, offset, every, threads, grain
) -> None:
    """A vector math kernel into a large output (streamed where large enough) gives the bits of
    the same kernel run over pieces of 16K elements (small outputs: ordinary stores), with
    special values among the lanes (mixed blocks take the general path for those lanes). From
    every second element, the input's rows are gathered in chunks and streamed out the same
    way."""
    x = torch.linspace(0.01, 20.0, N * every, dtype=dtype)[::every]
    x[[17, 4099, 70001]] = torch.tensor([float("inf"), float("nan"), 1e30], dtype=dtype)
    big, out = out_view(N, dtype, offset)
    fn = getattr(fi, name)
    with parallelism(threads, grain):
        fn(share(x), out=out)
    pieces = torch.empty(N, dtype=dtype)
    step = 1 << 14
    for i in range(0, N, step):
        fn(share(x[i : i + step]), out=share(pieces[i : i + step]))
    bits = torch.int32 if dtype == torch.float32 else torch.int64
    assert torch.equal(big.view(bits), pieces.view(bits))


@pytest.mark.parametrize(("threads", "grain"), PARALLELISM, ids=PARALLELISM_IDS)
def test_in_place_and_self_overlapping(threads, grain) -> None:
    """In place (never streamed: the output is an input) and an output that is the other half
    of an input's buffer (streamed where large enough)."""
    x = distinct_values((2 * N,), torch.float32)
    theirs = x.clone()
    torch.add(theirs[:N], theirs[N:], out=theirs[:N])
    torch.mul(theirs[N:], 3.0, out=theirs[N:])
    mine = share(x.clone())
    with parallelism(threads, grain):
        fi.add(mine[:N], mine[N:], out=mine[:N])  # the other half: streamed
        half = mine[N:]
        half *= 3.0  # in place: ordinary stores
    assert_same(mine, theirs, offset=False)


def test_explain_says_which_stores() -> None:
    """The walk line of `explain()` names the stores: never streamed in place."""
    x = fi.empty((N,), dtype="float32")
    text = fi.TensorIterator.binary_op(None, x, x).explain()
    assert "stores: non-temporal" in text  # 4 MiB: past this module's 1 MiB
    in_place = fi.TensorIterator.binary_op(x, x, x).explain()
    assert "stores: ordinary" in in_place
    small = fi.TensorIterator.binary_op(None, x[:64], x[:64]).explain()
    assert "stores: ordinary" in small
