"""Layout conversions against torch (and numpy for negative strides): `contiguous()` of
permuted views and `copy_` between layouts, which take the tiled walk's direct transposing
copy (register transposes, a short common dim 0 folded into the element, streamed stores past
the last-level cache). Sizes sit around the edges that matter: the register blocks (8, 16,
32 rows), the cache-sized tiles (256 for float32 on a 1 MiB L2), primes, and size-1 dims; every
element size (1, 2, 4, 8, 16 bytes); 1 and 2 threads, and a tiny grain so that chunks cut
tiles and folded runs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ferroiter as fi

from harness import assert_same, distinct_values, parallelism, scaled, share, torch_to_numpy

DTYPES = (torch.bool, torch.uint8, torch.float16, torch.float32, torch.float64, torch.complex128)
DTYPE_IDS = [str(d)[6:] for d in DTYPES]
PARALLELISM = [(1, None), (2, None), (2, 1000)]
EDGES = (1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 255, 256, 257, 509)


def check_permuted(shape, perm, dtype, threads=1, grain=None) -> None:
    """`t.permute(perm).contiguous()` and `dst.copy_(t.permute(perm))` against torch."""
    t = distinct_values(tuple(shape), dtype)
    view_t = t.permute(perm)
    with parallelism(threads, grain):
        view = share(t).permute(perm)
        if 1 not in shape:
            assert_same(view.contiguous(), view_t.contiguous())
        else:  # size-1 dims: their strides may differ where torch returns the view itself
            np.testing.assert_array_equal(
                view.contiguous().numpy(), torch_to_numpy(view_t.contiguous())
            )
        dst = fi.empty(tuple(view_t.shape), dtype=view.dtype)
        dst.copy_(view)
        assert_same(dst, torch.empty(tuple(view_t.shape), dtype=dtype).copy_(view_t))


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(("threads", "grain"), PARALLELISM)
@pytest.mark.parametrize(
    ("rows", "cols"), [(255, 257), (256, 256), (257, 33), (17, 509), (2, 4099)]
)
def test_2d_transpose_around_tile_edges(rows, cols, dtype, threads, grain) -> None:
    check_permuted((rows, cols), (1, 0), dtype, threads, grain)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(("threads", "grain"), PARALLELISM)
@pytest.mark.parametrize(
    ("shape", "perm"),
    [
        ((2, 16, 31, 33), (0, 2, 3, 1)),  # NCHW -> NHWC
        ((2, 31, 33, 16), (0, 3, 1, 2)),  # NHWC -> NCHW
        ((3, 3, 17, 65), (0, 2, 3, 1)),  # 3 channels
        ((2, 510, 3, 2), (2, 1, 0, 3)),  # short common dim 0: folded
        ((170, 31, 2, 3), (1, 0, 2, 3)),  # folded run of 6 elements
        ((5, 7, 9, 11, 2, 3), (4, 2, 0, 3, 1, 5)),
        ((1, 64, 1, 257), (3, 2, 1, 0)),  # size-1 dims
        ((7, 11, 13, 17), (3, 0, 2, 1)),  # primes
        # permuting copies whose rows / columns merge several dims (see exec/permute.rs)
        ((9, 145, 86, 7), (3, 2, 1, 0)),  # reversal: rows 9 x 145, columns 7 x 86
        ((33, 6, 31, 13), (2, 1, 0, 3)),  # a kept last dim of 13: runs of 13 elements
        ((3, 9, 5, 12, 10, 17), (3, 5, 1, 4, 0, 2)),  # rows of 5 x 3 x 10 x 9
        ((13, 7, 21, 24, 13, 4), (3, 5, 4, 1, 0, 2)),
        ((17, 1, 16, 1, 33), (4, 3, 0, 2, 1)),  # size-1 dims between merged ones
    ],
)
def test_permutations(shape, perm, dtype, threads, grain) -> None:
    check_permuted(shape, perm, dtype, threads, grain)


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.float64, np.complex128])
def test_negative_strides_against_numpy(dtype) -> None:
    """torch has no negative strides: numpy's flipped views, transposed."""
    base = (np.arange(67 * 45 * 3) % 251).astype(dtype).reshape(67, 45, 3)
    for view_np in (base[::-1].transpose(1, 0, 2), base[:, ::-1].transpose(2, 1, 0), base.T[::-1]):
        for threads in (1, 2):
            with parallelism(threads, None):
                got = fi.from_numpy(view_np).contiguous().numpy()
                assert got.strides == np.ascontiguousarray(view_np).strides
                np.testing.assert_array_equal(got, np.ascontiguousarray(view_np))


@st.composite
def permuted_cases(draw):
    ndim = draw(st.integers(2, 6))
    shape = draw(st.lists(st.sampled_from(EDGES), min_size=ndim, max_size=ndim))
    while math.prod(shape) > 200_000:
        shape[shape.index(max(shape))] //= 2
    perm = draw(st.permutations(range(ndim)))
    dtype = draw(st.sampled_from(DTYPES))
    threads, grain = draw(st.sampled_from(PARALLELISM))
    return tuple(shape), tuple(perm), dtype, threads, grain


@settings(max_examples=scaled(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(permuted_cases())
def test_random_permutations(case) -> None:
    shape, perm, dtype, threads, grain = case
    check_permuted(shape, perm, dtype, threads, grain)


def test_streamed_permuting_copy() -> None:
    """An output large enough to take non-temporal stores (17.9 MB of float32 here: above the
    threshold of the machines measured, 8 MiB on a 32 MiB Zen 4 L3 at 1 thread and 12 MiB at
    2 for tiles reading many input rows apart (16 MiB for others), 2 MiB on an Intel Xeon,
    exec/stores.rs)."""
    for threads, grain in PARALLELISM:
        check_permuted((2, 64, 184, 190), (0, 2, 3, 1), torch.float32, threads, grain)
        # two long sides whose output columns lie off the cache lines: long tiles, each
        # column's lines realigned in registers (exec/permute.rs `tile_edges`), the tiles
        # along the rows joined (exec/raw/lines512.rs `Joins`) whichever thread takes them
        check_permuted((30, 106, 3, 21, 16, 3), (5, 3, 4, 2, 0, 1), torch.float32, threads, grain)


def test_streamed_permuting_copy_by_bands_of_rows() -> None:
    """On a near-L3 machine with AVX-512 the realigned tiles of a band of rows are walked
    along the columns, each input row read on from tile to tile (exec/permute.rs
    `columns_first`); elsewhere down the columns of tiles. Either way the values are the
    permuted input's, for an input on a cache line (torch's) and one 16 bytes past a line
    (numpy's usual allocation), whose loads end in a line of the next block (the prefetch
    asks for it: exec/raw/lines512.rs `PREFETCH_AT`), at 1 and 2 threads and chunks of a tiny
    grain that cut the bands anywhere."""
    shape, perm = (13, 27, 21, 24, 13, 4), (3, 5, 4, 1, 0, 2)
    numel = math.prod(shape)
    values = (np.arange(numel, dtype=np.int64) % 65521).astype(np.float32)
    memory = np.zeros(numel + 32, np.float32)
    skip = -memory.ctypes.data % 64 // 4
    for past_line in (0, 16):
        at = skip + past_line // 4
        src = memory[at : at + numel].reshape(shape)
        src[...] = values.reshape(shape)
        assert src.ctypes.data % 64 == past_line
        want = np.ascontiguousarray(src.transpose(perm))
        for threads, grain in PARALLELISM:
            with parallelism(threads, grain):
                got = fi.from_numpy(src).permute(*perm).contiguous()
            assert got.shape == want.shape and got.strides == want.strides
            np.testing.assert_array_equal(got.numpy(), want)
    view = fi.from_numpy(values.reshape(shape)).permute(*perm)
    text = fi.TensorIterator.copy_op(fi.empty(view.shape, dtype=view.dtype), view).explain()
    avx512 = fi._ferroiter._simd_level() == "avx512f"
    assert ("realigned" in text) == avx512, text
    assert ("walked along the columns" in text) == (avx512 and near_last_level()), text


def lane_merges(itemsize: int, ways: int) -> bool:
    """Whether exec/permute.rs `PermuteCopy::ways` merges tiles of `ways` rows or columns of
    `itemsize`-byte elements: with AVX-512's lane permutes (exec/cpu.rs `avx512_permutes`:
    AVX-512F for 4 and 8 bytes, BW for 2, VBMI for 1, at the level the kernels run), else with
    byte shuffles (AVX2 on x86-64, NEON on aarch64) up to `shuffled_ways` ways."""
    build = fi._ferroiter._build_info()
    if itemsize not in (1, 2, 4, 8):
        return False
    if build["cpu_capability"] == "avx512":
        with open("/proc/cpuinfo") as f:
            flags = f.read().split()
        need = {1: ["avx512bw", "avx512vbmi"], 2: ["avx512bw"]}.get(itemsize, [])
        if all(flag in flags for flag in need):
            return True
    shuffles = build["target_arch"] == "aarch64" or build["cpu_capability"] in ("avx2", "avx512")
    return shuffles and ways <= {1: 8, 2: 7}.get(itemsize, 5)


@pytest.mark.parametrize(
    ("channels", "dtype", "images"),
    [
        (3, torch.float32, 32),
        (4, torch.float32, 32),
        (3, torch.uint8, 64),
        (4, torch.uint8, 16),
        (3, torch.float16, 32),
        (3, torch.float64, 16),
        (8, torch.float64, 4),
    ],
    ids=["3-float32", "4-float32", "3-uint8", "4-uint8", "3-float16", "3-float64", "8-float64"],
)
def test_few_channels_to_and_from_channels_last(channels, dtype, images) -> None:
    """Images of 3, 4 and 8 channels (RGB, RGBA) to NHWC and back, the float32 ones large
    enough to stream: the permuting copy's tiles are the channels by up to 2048 pixels, their
    offset tables stepping evenly and made once (exec/raw/permute.rs); each tile is merged
    lane by lane into (or out of) its one run, without register transposes, with AVX-512's
    lane permutes (exec/raw/interleave.rs) or AVX2's and NEON's byte shuffles
    (exec/raw/lane_shuffle.rs). At 1 and 2
    threads and chunks of a tiny grain, against torch."""
    shape = (images, channels, 224, 224)
    nhwc = (shape[0], shape[2], shape[3], shape[1])
    for threads, grain in PARALLELISM:
        check_permuted(shape, (0, 2, 3, 1), dtype, threads, grain)
        check_permuted(nhwc, (0, 3, 1, 2), dtype, threads, grain)
    merged = lane_merges(torch.empty(0, dtype=dtype).element_size(), channels)
    np_dtype = torch_to_numpy(torch.empty(0, dtype=dtype)).dtype
    for dims, perm, way in [
        (shape, (0, 2, 3, 1), "interleaving"),
        (nhwc, (0, 3, 1, 2), "deinterleaving"),
    ]:
        src = fi.empty(dims, dtype=np_dtype).permute(*perm)
        text = fi.TensorIterator.copy_op(fi.empty(src.shape, dtype=src.dtype), src).explain()
        assert (f"by {way} " in text) == merged, text


def test_few_channels_into_outputs_off_the_lines() -> None:
    """NCHW -> NHWC of 3 channels and back into outputs 4 and 16 bytes past a cache line
    (numpy's allocations are 16 past one): each tile's run or columns then start inside a
    line, the interleaved runs staged in images that the next tiles continue and streamed
    whole, the deinterleaved columns stored plainly; also for 10 × 13 images, whose 390-pixel
    tiles leave most runs off the lines whatever the output's start; the bytes around the
    output untouched."""
    for shape, perm in [
        ((16, 3, 224, 224), (0, 2, 3, 1)),
        ((16, 224, 224, 3), (0, 3, 1, 2)),
        ((10000, 3, 10, 13), (0, 2, 3, 1)),
        ((10000, 10, 13, 3), (0, 3, 1, 2)),
    ]:
        base = (np.arange(math.prod(shape)) % 65521).astype(np.float32).reshape(shape)
        want = np.ascontiguousarray(base.transpose(perm))
        for past_line in (4, 16):
            memory = np.zeros(want.size + 32, np.float32)
            skip = (-memory.ctypes.data % 64 + past_line) // 4
            out = memory[skip : skip + want.size].reshape(want.shape)
            for threads, grain in PARALLELISM:
                out[...] = 0
                with parallelism(threads, grain):
                    fi.from_numpy(out).copy_(fi.from_numpy(base).permute(*perm))
                np.testing.assert_array_equal(out, want)
                assert not memory[:skip].any() and not memory[skip + want.size :].any()


def test_streamed_transpose_into_columns_off_the_lines() -> None:
    """A streamed 2-D transpose whose output columns (4097 float32, 16388 bytes apart) start
    at every offset within a cache line: each column's whole lines are streamed realigned in
    registers, its partial first and last lines stored plainly, the line where two tiles'
    runs meet written whole by the first tile (exec/raw/lines512.rs `Joins`); chunks of a
    tiny grain cut the columns anywhere (blocks that start or end inside a column join no
    tile across their edge)."""
    for threads, grain in PARALLELISM:
        check_permuted((4097, 1031), (1, 0), torch.float32, threads, grain)


def test_transposes_of_rows_a_multiple_of_4_kib_apart() -> None:
    """float32 inputs whose rows lie a multiple of 4 KiB apart (1024 or 2048 columns), where
    a column's lines of many rows share cache sets: with AVX-512 each tile is walked
    diagonally, row block b taking strip t - 3b (exec/raw/lines512.rs `copy_tile_diagonal`),
    plain stores in cache (1100 x 1024) and streamed ones (4096 x 2048, 33.6 MB), rows
    forwards and backwards (numpy's flipped views), columns cut short of a block (a slice
    of 1000 of the 1024), at 1 and 2 threads and chunks of a tiny grain; against numpy."""
    for shape, cols in [((1100, 1024), 1024), ((1100, 1024), 1000), ((4096, 2048), 2048)]:
        base = (np.arange(math.prod(shape)) % 65521).astype(np.float32).reshape(shape)
        for view in (base[:, :cols], base[::-1, :cols]):
            want = np.ascontiguousarray(view.T)
            for threads, grain in PARALLELISM:
                with parallelism(threads, grain):
                    got = fi.from_numpy(view).permute(1, 0).contiguous()
                assert got.shape == want.shape and got.strides == want.strides
                np.testing.assert_array_equal(got.numpy(), want)
    view = fi.from_numpy(np.zeros((4096, 2048), np.float32)).permute(1, 0)
    text = fi.TensorIterator.copy_op(fi.empty(view.shape, dtype=view.dtype), view).explain()
    assert "8192 bytes apart, a multiple of 4 KiB" in text, text
    padded = fi.from_numpy(np.zeros((4096, 2064), np.float32)[:, :2048]).permute(1, 0)
    text = fi.TensorIterator.copy_op(fi.empty(view.shape, dtype=view.dtype), padded).explain()
    assert "walked diagonally" not in text, text


@pytest.mark.parametrize("head", [16, 32, 48, 64, 128])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float32", "float16"])
def test_attention_heads_swapped(head, dtype) -> None:
    """(B, S, H, D) by (0, 2, 1, 3), as attention swaps its sequence and head dims: the kept
    last dim is a run of 32 to 512 bytes, copied along the input's rows from 64 bytes, the
    whole lines of runs that hold two of them streamed (exec/raw/permute.rs); outputs of
    about 18 MB (float32) stream on the machines measured. The output on a cache line
    (`contiguous()`), then 16 bytes past one (`copy_` into a view), where each run's lines
    straddle two and its ends are stored plainly; chunks of a tiny grain cut the runs."""
    shape = (2, 18_000_000 // (2 * 8 * head * 4), 8, head)
    t = distinct_values(shape, dtype)
    want = t.permute(0, 2, 1, 3).contiguous()
    past = 16 // t.element_size()
    for threads, grain in PARALLELISM:
        check_permuted(shape, (0, 2, 1, 3), dtype, threads, grain)
        memory = torch.zeros(want.numel() + 64, dtype=dtype)
        skip = (-memory.data_ptr() % 64) // t.element_size() + past
        out_t = memory[skip : skip + want.numel()].view(want.shape)
        with parallelism(threads, grain):
            share(out_t).copy_(share(t).permute(0, 2, 1, 3))
        assert out_t.data_ptr() % 64 == 16
        assert torch.equal(out_t, want)


@pytest.mark.parametrize(
    ("shape", "perm"),
    [
        ((60, 14, 822), (0, 2, 1)),  # tiles of 14 rows by 822: every block an edge
        ((3, 7, 20, 5, 16, 6), (0, 3, 1, 5, 4, 2)),  # 20 rows: a 4-row edge per strip
        ((2, 9, 19, 19, 51), (3, 1, 0, 4, 2)),  # 19 rows by 969
        ((40, 14, 128), (0, 2, 1)),  # rows as long as EDGES_ASK_FROM
        ((40, 14, 127), (0, 2, 1)),  # and just short of it
        ((50, 9, 200), (0, 2, 1)),  # 9 rows
    ],
    ids=["14x822", "20x480", "19x969", "14x128", "14x127", "9x200"],
)
def test_tiles_of_a_few_long_rows(shape, perm) -> None:
    """Permuting copies whose tiles hold fewer than 16 input rows (or end in such a block)
    along rows of 127-969 elements: their edge blocks ask for the lines ahead as whole blocks
    do (exec/raw/lines512.rs `EDGES_ASK_FROM`); float32 against torch at 1 and 2 threads and
    a tiny grain, and into an output 16 bytes past a line with the bytes around it
    untouched."""
    t = distinct_values(shape, torch.float32)
    want = t.permute(perm).contiguous()
    for threads, grain in PARALLELISM:
        check_permuted(shape, perm, torch.float32, threads, grain)
        memory = torch.zeros(want.numel() + 64, dtype=torch.float32)
        skip = (-memory.data_ptr() % 64 + 16) // 4
        out_t = memory[skip : skip + want.numel()].view(want.shape)
        with parallelism(threads, grain):
            share(out_t).copy_(share(t).permute(perm))
        assert torch.equal(out_t, want)
        assert torch.count_nonzero(memory[:skip]) == 0
        assert torch.count_nonzero(memory[skip + want.numel() :]) == 0


def near_last_level() -> bool:
    """Whether exec/stores.rs counts this CPU's last-level cache as near (not Intel's)."""
    try:
        with open("/proc/cpuinfo") as f:
            return "GenuineIntel" not in f.read()
    except OSError:
        return True


@pytest.mark.parametrize(
    ("shape", "perm", "dtype", "input_order"),
    [
        # rows of 1588 bytes (partial lines at both ends), 32 MB out
        ((46, 111, 4, 397), (1, 2, 0, 3), torch.float32, True),
        # rows of 1040 bytes, the outer dims reversed
        ((48, 120, 4, 130), (2, 1, 0, 3), torch.float64, True),
        # rows of 260 bytes, just past the permuting copy's runs
        ((65, 128, 8, 130), (1, 2, 0, 3), torch.int16, True),
        # runs of 256 bytes: the permuting copy's; rows of 254: shorter than the walk takes
        ((65, 128, 8, 128), (1, 2, 0, 3), torch.int16, False),
        ((65, 130, 8, 127), (1, 2, 0, 3), torch.int16, False),
    ],
    ids=["float32-1588B", "float64-1040B", "int16-260B", "int16-256B", "int16-254B"],
)
def test_streamed_rows_walked_in_the_inputs_order(shape, perm, dtype, input_order) -> None:
    """A permutation that keeps the last dim, its operands past the last-level cache: a
    near-L3 machine walks the copy in the input's memory order and streams every output row
    (exec/copy_strategy.rs `input_order`), another keeps torch's order; the values and layout are
    torch's either way, at 1 and 2 threads and with chunks of a tiny grain that cut the rows
    anywhere, into a fresh output and into one 16 bytes past a cache line."""
    t = distinct_values(shape, dtype)
    want = t.permute(perm).contiguous()
    for threads, grain in PARALLELISM:
        check_permuted(shape, perm, dtype, threads, grain)
        memory = torch.zeros(want.numel() + 64, dtype=dtype)
        skip = (-memory.data_ptr() % 64 + 16) // t.element_size()
        out_t = memory[skip : skip + want.numel()].view(want.shape)
        with parallelism(threads, grain):
            share(out_t).copy_(share(t).permute(perm))
        assert out_t.data_ptr() % 64 == 16
        assert torch.equal(out_t, want)
        assert torch.count_nonzero(memory[:skip]) == 0
        assert torch.count_nonzero(memory[skip + want.numel() :]) == 0
    src = share(t).permute(perm)
    text = fi.TensorIterator.copy_op(fi.empty(tuple(want.shape), dtype=src.dtype), src).explain()
    assert ("the input's memory order" in text) == (input_order and near_last_level()), text


def test_input_order_with_a_reversed_dim() -> None:
    """The same walk over a numpy view read backwards along an outer dim (negative strides,
    which torch lacks): sorted by the strides' sizes, against numpy's copy."""
    base = (np.arange(46 * 111 * 4 * 397) % 32749).astype(np.float32).reshape(46, 111, 4, 397)
    view = base[::-1].transpose(1, 2, 0, 3)
    want = np.ascontiguousarray(view)
    for threads, grain in PARALLELISM:
        with parallelism(threads, grain):
            got = fi.from_numpy(view).contiguous().numpy()
        assert got.strides == want.strides
        np.testing.assert_array_equal(got, want)


def test_broadcast_input_permuted() -> None:
    """An expanded (stride-0) dim of the input inside the permuted copy."""
    t = distinct_values((37, 1, 45), torch.float32).expand(37, 29, 45)
    for threads in (1, 2):
        with parallelism(threads, None):
            view = share(t.contiguous()[:, :1, :]).expand(37, 29, 45).permute(2, 1, 0)
            dst = fi.empty((45, 29, 37), dtype=view.dtype)
            dst.copy_(view)
            assert_same(dst, t.permute(2, 1, 0).contiguous())


def test_explain_names_the_direct_copy() -> None:
    """`TensorIterator.copy_op` is the plan `copy_` runs: a same-dtype copy's walk moves the
    bytes itself (direct tiles from the caches, or the permuting copy) and names its stores;
    a conversion between dtypes packs tiles for its kernel."""
    src = fi.from_numpy(np.zeros((300, 1024), dtype=np.float32)).transpose(0, 1)
    text = fi.TensorIterator.copy_op(fi.empty((1024, 300)), src).explain()
    assert "direct copy" in text and "stores" in text, text
    wider = fi.TensorIterator.copy_op(fi.empty((1024, 300), dtype="float64"), src).explain()
    assert "packed per tile" in wider, wider
    shuffled = fi.from_numpy(np.zeros((20, 30, 40, 5), dtype=np.float32)).permute(1, 3, 2, 0)
    text = fi.TensorIterator.copy_op(fi.empty((30, 5, 40, 20)), shuffled).explain()
    assert "permuting copy" in text, text


def test_every_pair_of_2d_edges_float32() -> None:
    for rows, cols in itertools.product((15, 16, 17, 255, 256, 257), repeat=2):
        check_permuted((rows, cols), (1, 0), torch.float32)
