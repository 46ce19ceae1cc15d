"""The benchmark's rows, as data: groups of `Row`s, each making its own arrays when measured.

To add rows (reductions, blocked formats, ...), write a function `sizes -> list[Row]` and append
it to `ROW_GROUPS` (or call `register_group`): the table, `--rows`, `--json` and `--plot` pick
it up. Every row gives each library the same work: all write into a preallocated output, or
all allocate their result, never a mix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import ferroiter as fi
from ferroiter import _ferroiter

from .libs import torch

#: One library's way to run a row's work once.
Thunk = Callable[[], object]


@dataclass(frozen=True)
class Case:
    """One measured workload: bytes moved per call (0: report microseconds) and a thunk per
    library (a library missing from `thunks` has no such function; its cell reads '-')."""

    nbytes: int
    thunks: dict[str, Thunk]


@dataclass(frozen=True)
class Row:
    """A table row. `setup` makes the arrays only when the row runs (large rows would not all
    fit in memory at once) and returns one case, or several for a `summary="median_worst"` row
    (shown as two lines: the median and the worst case; an iterator makes them one at a
    time, so that only one case's arrays are alive at once). `copy_reference`: this row's speed is
    the copy limit that rows with `vs_copy` are compared with (the last one measured before);
    with `fastest_reference` the limit is the fastest library's speed, not ferroiter's (a
    read limit that no one library's own reduction sets for itself)."""

    group: str
    label: str
    setup: Callable[[], Iterable[Case]]
    summary: str = "single"
    copy_reference: bool = False
    vs_copy: bool = False
    fastest_reference: bool = False
    tags: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Sizes:
    """The sizes of one run; `--quick` shrinks them (labels always show the real sizes)."""

    add_sizes: tuple[int, ...]
    large: int
    alloc: int
    image: tuple[int, int, int, int]
    square: int
    permute_elements: int
    permute_cases: int
    math: int

    @staticmethod
    def full() -> Sizes:
        return Sizes(
            (1 << 16, 1 << 18, 1 << 20, 1 << 26),
            1 << 26,
            1 << 24,
            (16, 64, 56, 56),
            4096,
            1 << 23,
            12,
            1 << 22,
        )

    @staticmethod
    def quick() -> Sizes:
        return Sizes(
            (1 << 16, 1 << 18, 1 << 20, 1 << 22),
            1 << 22,
            1 << 22,
            (4, 64, 56, 56),
            1024,
            1 << 20,
            6,
            1 << 20,
        )


def count(n: int) -> str:
    """4194304 -> '4M', 65536 -> '64K'."""
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _shared(*arrays: np.ndarray[Any, Any]) -> dict[str, list[Any]]:
    """The same memory seen by each library: numpy's arrays, ferroiter and torch views of them."""
    views: dict[str, list[Any]] = {"numpy": list(arrays)}
    views["ferroiter"] = [fi.from_numpy(a) for a in arrays]
    if torch is not None:
        views["torch"] = [torch.from_numpy(a) for a in arrays]
    return views


def _into_out(
    op: str, numpy_op: Callable[..., Any], *arrays: np.ndarray[Any, Any]
) -> dict[str, Thunk]:
    """`op(a, b, out=o)` in each library on the same memory (`arrays`: a, b, o); `op` names
    the function in ferroiter and torch, `numpy_op` is numpy's ufunc."""
    v = _shared(*arrays)
    (fa, fb, fo), (na, nb, no) = v["ferroiter"], v["numpy"]
    fi_op = getattr(fi, op)
    thunks: dict[str, Thunk] = {
        "ferroiter": lambda: fi_op(fa, fb, out=fo),
        "numpy": lambda: numpy_op(na, nb, out=no),
    }
    if torch is not None:
        ta, tb, to = v["torch"]
        torch_op = getattr(torch, op)
        thunks["torch"] = lambda: torch_op(ta, tb, out=to)
    return thunks


# ---- groups ----------------------------------------------------------------------------------


def memory_rows(s: Sizes) -> list[Row]:
    """Adds into `out` at growing sizes, the copy limit, and allocation."""

    def add_out(n: int) -> Callable[[], list[Case]]:
        def setup() -> list[Case]:
            rng = _rng()
            a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
            return [Case(12 * n, _into_out("add", np.add, a, b, np.zeros(n, np.float32)))]

        return setup

    def copy(n: int) -> list[Case]:
        rng = _rng()
        v = _shared(rng.random(n, dtype=np.float32), np.zeros(n, np.float32))
        (fa, fo), (na, no) = v["ferroiter"], v["numpy"]
        thunks: dict[str, Thunk] = {
            "ferroiter": lambda: fo.copy_(fa),
            "numpy": lambda: np.copyto(no, na),
        }
        if torch is not None:
            ta, to = v["torch"]
            thunks["torch"] = lambda: to.copy_(ta)
        return [Case(8 * n, thunks)]

    def add_alloc(n: int) -> list[Case]:
        rng = _rng()
        v = _shared(rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32))
        (fa, fb), (na, nb) = v["ferroiter"], v["numpy"]
        thunks: dict[str, Thunk] = {"ferroiter": lambda: fa + fb, "numpy": lambda: na + nb}
        if torch is not None:
            ta, tb = v["torch"]
            thunks["torch"] = lambda: ta + tb
        return [Case(12 * n, thunks)]

    rows = [Row("memory", f"add {count(n)} into out", add_out(n)) for n in s.add_sizes]
    rows.append(
        Row(
            "memory",
            f"copy {count(s.large)} (copy limit)",
            lambda: copy(s.large),
            copy_reference=True,
        )
    )
    rows.append(Row("memory", f"add {count(s.alloc)} allocating", lambda: add_alloc(s.alloc)))
    return rows


#: torch's and ferroiter's CPU allocators start every array on a 64-byte cache line.
LINE = 64


def _line_aligned(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """A copy of `a` starting on a cache line, as `.contiguous()` in torch or ferroiter
    allocates it (numpy's large arrays start 16 bytes past a page: every output line of a
    transposing copy would straddle two lines, which `.contiguous()` never sees)."""
    raw = np.empty(a.nbytes + LINE, np.uint8)
    skip = -raw.ctypes.data % LINE
    out: np.ndarray[Any, Any] = raw[skip : skip + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def _permuted_copy(shape: tuple[int, ...], perm: tuple[int, ...], dtype: type = np.float32) -> Case:
    """src (contiguous, `shape`, float32 unless `dtype` says) permuted by `perm`, copied into
    a contiguous array: the same work as `.contiguous()` on the permuted view, without the
    allocation."""
    values = _rng().random(shape, dtype=np.float32)
    src = _line_aligned(values if dtype is np.float32 else (values * 200).astype(dtype))
    dst = _line_aligned(np.zeros(tuple(shape[p] for p in perm), dtype))
    v = _shared(src, dst)
    (fs, fd), (ns, nd) = v["ferroiter"], v["numpy"]
    fview = fs.permute(*perm)
    nview = ns.transpose(perm)
    thunks: dict[str, Thunk] = {
        "ferroiter": lambda: fd.copy_(fview),
        "numpy": lambda: np.copyto(nd, nview),
    }
    if torch is not None:
        ts, td = v["torch"]
        tview = ts.permute(*perm)
        thunks["torch"] = lambda: td.copy_(tview)
    return Case(8 * src.size, thunks)


def random_permutations(
    total: int, cases: int, seed: int = 1
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """`cases` (shape, perm) pairs of 3 to 6 dims with about `total` elements, perm never the
    identity; fixed by `seed`, so every run measures the same set."""
    rng = np.random.default_rng(seed)
    out: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    while len(out) < cases:
        ndim = int(rng.integers(3, 7))
        # log-uniform sizes, rescaled to the wanted total
        logs = rng.uniform(0.5, 3.0, ndim)
        logs *= np.log(total) / logs.sum()
        shape = tuple(max(2, int(round(np.exp(x)))) for x in logs)
        perm = tuple(int(p) for p in rng.permutation(ndim))
        if perm != tuple(range(ndim)):
            out.append((shape, perm))
    return out


def layout_rows(s: Sizes) -> list[Row]:
    """Layout conversions, each compared with the copy limit of the same size in the same run."""
    n, c, h, w = s.image
    size = n * c * h * w
    nchw, nhwc = (0, 2, 3, 1), (0, 3, 1, 2)
    side = s.square
    perms = random_permutations(s.permute_elements, s.permute_cases)
    heads = (max(1, s.permute_elements // (512 * 8 * 64)), 512, 8, 64)

    def flat_copy() -> list[Case]:
        return [_permuted_copy((size, 1), (0, 1))]

    return [
        Row(
            "layout",
            f"copy {count(size) if size % 1024 == 0 else size} (copy limit)",
            flat_copy,
            copy_reference=True,
        ),
        Row(
            "layout",
            f"NCHW -> NHWC {s.image}",
            lambda: [_permuted_copy(s.image, nchw)],
            vs_copy=True,
        ),
        Row(
            "layout",
            f"NHWC -> NCHW {(n, h, w, c)}",
            lambda: [_permuted_copy((n, h, w, c), nhwc)],
            vs_copy=True,
        ),
        # images of 3 channels (RGB): tiles of 3 rows or columns, merged lane by lane
        Row(
            "layout",
            f"RGB {(n, 3, 224, 224)} to channels_last",
            lambda: [_permuted_copy((n, 3, 224, 224), nchw)],
            vs_copy=True,
        ),
        Row(
            "layout",
            f"RGB uint8 HWC -> CHW {(n, 224, 224, 3)}",
            lambda: [_permuted_copy((n, 224, 224, 3), nhwc, np.uint8)],
            vs_copy=True,
        ),
        # the transposes move more bytes than the image: their own copy limit (a copy of the
        # same size streams past the last-level cache as they do, where the image's stays in it)
        Row(
            "layout",
            f"copy {count(side * side)}, the transposes' size (copy limit)",
            lambda: [_permuted_copy((side * side, 1), (0, 1))],
            copy_reference=True,
        ),
        Row(
            "layout",
            f"transpose {side}x{side}",
            lambda: [_permuted_copy((side, side), (1, 0))],
            vs_copy=True,
        ),
        Row(
            "layout",
            f"transpose {side // 2}x{side * 2}",
            lambda: [_permuted_copy((side // 2, side * 2), (1, 0))],
            vs_copy=True,
        ),
        # output rows of an odd length: its columns start at every offset within a line
        Row(
            "layout",
            f"transpose {side + 1}x{side}",
            lambda: [_permuted_copy((side + 1, side), (1, 0))],
            vs_copy=True,
        ),
        Row(
            "layout",
            f"copy {count(s.permute_elements)} (copy limit)",
            lambda: [_permuted_copy((s.permute_elements, 1), (0, 1))],
            copy_reference=True,
        ),
        Row(
            "layout",
            f"{len(perms)} random 3-6-d permutations of ~{count(s.permute_elements)}",
            # one case at a time: each is freed before the next is made
            lambda: (_permuted_copy(shape, perm) for shape, perm in perms),
            summary="median_worst",
            vs_copy=True,
        ),
        # attention's (B, S, H, D) -> (B, H, S, D): a kept last dim, runs of 256 bytes
        Row(
            "layout",
            f"heads swapped {heads}, (0, 2, 1, 3)",
            lambda: [_permuted_copy(heads, (0, 2, 1, 3))],
            vs_copy=True,
        ),
    ]


#: Input ranges where each function does real work (no overflow to inf, no domain errors).
MATH_DOMAINS: dict[str, tuple[float, float]] = {
    "exp": (-10.0, 10.0),
    "log": (0.01, 100.0),
    "sin": (-100.0, 100.0),
    "cos": (-100.0, 100.0),
    "tanh": (-5.0, 5.0),
    "sigmoid": (-10.0, 10.0),
    "expm1": (-5.0, 5.0),
    "log1p": (-0.5, 10.0),
}


def math_rows(s: Sizes) -> list[Row]:
    """Each transcendental function in the op table, float32 and float64, into `out`; then
    float32 from every second element of an array. (torch built with MKL sends contiguous
    float rows of exp, log, sin, cos and tanh to MKL's vector math library, and other layouts
    to its Sleef loops: the strided rows compare with those.)"""
    available = {row["name"] for row in _ferroiter._op_table()}
    rows = []
    for step in (1, 2):
        for name, (low, high) in MATH_DOMAINS.items():
            if name not in available:
                continue
            for dtype in ("float32", "float64") if step == 1 else ("float32",):
                label = f"{name} {dtype} {count(s.math)}" + (", every 2nd" if step > 1 else "")
                rows.append(Row("math", label, _math_setup(name, dtype, s.math, low, high, step)))
    return rows


def _math_setup(
    name: str, dtype: str, n: int, low: float, high: float, step: int = 1
) -> Callable[[], list[Case]]:
    def setup() -> list[Case]:
        x = _rng().uniform(low, high, n * step).astype(dtype)[::step]
        v = _shared(x, np.zeros(n, dtype))
        (fx, fo), (nx, no) = v["ferroiter"], v["numpy"]
        f = getattr(fi, name)
        thunks: dict[str, Thunk] = {"ferroiter": lambda: f(fx, out=fo)}
        if hasattr(np, name):
            g = getattr(np, name)
            thunks["numpy"] = lambda: g(nx, out=no)
        if torch is not None:
            t = getattr(torch, name)
            tx, to = v["torch"]
            thunks["torch"] = lambda: t(tx, out=to)
        itemsize = np.dtype(dtype).itemsize
        return [Case(2 * itemsize * n, thunks)]

    return setup


def mixed_rows(s: Sizes) -> list[Row]:
    """Broadcasting, mixed memory formats and dtype conversions (the iterator's harder cases)."""
    n, c, h, w = s.image

    def bias_add() -> list[Case]:
        rng = _rng()
        img = rng.random(s.image, dtype=np.float32)
        bias = rng.random((c, 1, 1), dtype=np.float32)
        return [Case(8 * img.size, _into_out("add", np.add, img, bias, np.zeros_like(img)))]

    def mixed_formats() -> list[Case]:
        rng = _rng()
        img = rng.random(s.image, dtype=np.float32)
        nhwc = np.ascontiguousarray(rng.random(s.image, dtype=np.float32).transpose(0, 2, 3, 1))
        cl = nhwc.transpose(0, 3, 1, 2)  # NCHW indexing, channels_last memory
        v = _shared(cl, img)
        (fa, fb), (na, nb) = v["ferroiter"], v["numpy"]
        thunks: dict[str, Thunk] = {"ferroiter": lambda: fa + fb, "numpy": lambda: na + nb}
        if torch is not None:
            ta, tb = v["torch"]
            thunks["torch"] = lambda: ta + tb
        return [Case(12 * img.size, thunks)]

    def in_place_add(shape: tuple[int, ...], other: tuple[int, ...]) -> Callable[[], list[Case]]:
        """`x += y` into `x` itself (scikit-learn's scalers: `X *= scale; X += min_`)."""

        def setup() -> list[Case]:
            rng = _rng()
            x, y = rng.random(shape, dtype=np.float32), rng.random(other, dtype=np.float32)
            v = _shared(x, y)
            (fx, fy), (nx, ny) = v["ferroiter"], v["numpy"]
            thunks: dict[str, Thunk] = {
                "ferroiter": lambda: fi.add(fx, fy, out=fx),
                "numpy": lambda: np.add(nx, ny, out=nx),
            }
            if torch is not None:
                tx, ty = v["torch"]
                thunks["torch"] = lambda: tx.add_(ty)
            return [Case(8 * x.size, thunks)]

        return setup

    def short_rows(
        op: str, numpy_op: Callable[..., Any], other: Callable[[Any], Any]
    ) -> Callable[[], list[Case]]:
        """`op(points, other(points))` into `out` for (N, 3) float32 points: a row of 3 (the
        center) or a column (each point's norm) broadcast along rows of 3 elements."""

        def setup() -> list[Case]:
            x = _rng().random((s.math // 3, 3), dtype=np.float32) + 1
            y = other(x)
            return [Case(8 * x.size + y.nbytes, _into_out(op, numpy_op, x, y, np.zeros_like(x)))]

        return setup

    def cast(dst_dtype: str, count_: int) -> Callable[[], list[Case]]:
        def setup() -> list[Case]:
            x = _rng().random(count_, dtype=np.float32)
            v = _shared(x, np.zeros(count_, dst_dtype))
            (fx, fo), (nx, no) = v["ferroiter"], v["numpy"]
            thunks: dict[str, Thunk] = {
                "ferroiter": lambda: fo.copy_(fx),
                "numpy": lambda: np.copyto(no, nx),
            }
            if torch is not None:
                tx, to = v["torch"]
                thunks["torch"] = lambda: to.copy_(tx)
            return [Case((4 + np.dtype(dst_dtype).itemsize) * count_, thunks)]

        return setup

    return [
        Row("mixed", f"{s.image} + ({c},1,1) into out", bias_add),
        Row("mixed", f"NHWC + NCHW {s.image} allocating", mixed_formats),
        Row("mixed", "x += y in place, 16K float32", in_place_add((1 << 14,), (1 << 14,))),
        Row(
            "mixed",
            f"x += row in place, ({s.math // 50}, 50) float32",
            in_place_add((s.math // 50, 50), (50,)),
        ),
        Row(
            "mixed",
            f"points - center, ({s.math // 3}, 3) - (3,) float32 into out",
            short_rows("sub", np.subtract, lambda x: x.mean(axis=0)),
        ),
        Row(
            "mixed",
            f"points / norms, ({s.math // 3}, 3) / ({s.math // 3}, 1) float32 into out",
            short_rows("div", np.divide, lambda x: np.linalg.norm(x, axis=1, keepdims=True)),
        ),
        Row("mixed", f"float32 -> float16 {count(s.alloc)} into out", cast("float16", s.alloc)),
        Row("mixed", f"float32 -> float64 {count(s.alloc)} into out", cast("float64", s.alloc)),
    ]


def overhead_rows(s: Sizes) -> list[Row]:
    """The fixed cost of one call: tiny allocating adds, in microseconds."""

    def tiny(n: int) -> list[Case]:
        v = _shared(np.ones(n, np.float32), np.ones(n, np.float32))
        (fa, fb), (na, nb) = v["ferroiter"], v["numpy"]
        thunks: dict[str, Thunk] = {"ferroiter": lambda: fa + fb, "numpy": lambda: na + nb}
        if torch is not None:
            ta, tb = v["torch"]
            thunks["torch"] = lambda: ta + tb
        return [Case(0, thunks)]

    def minus_row(rows: int, cols: int) -> list[Case]:
        """`X - row` into `out`: a small array of many short rows (scikit-learn's features)."""
        rng = _rng()
        x = rng.random((rows, cols))
        return [Case(0, _into_out("sub", np.subtract, x, x[0].copy(), np.empty_like(x)))]

    return [
        Row("overhead", "a + b, 1 element (us)", lambda: tiny(1)),
        Row("overhead", "a + b, 1000 elements (us)", lambda: tiny(1000)),
        Row("overhead", "X - row, (400, 4) float64 into out (us)", lambda: minus_row(400, 4)),
    ]


#: The groups, in table order. Extension point: append `(name, sizes -> rows)`.
ROW_GROUPS: list[tuple[str, Callable[[Sizes], list[Row]]]] = [
    ("memory", memory_rows),
    ("layout", layout_rows),
    ("math", math_rows),
    ("mixed", mixed_rows),
    ("overhead", overhead_rows),
]


def _reduction_rows(s: Sizes) -> list[Row]:
    from .reductions import reduction_rows  # (imports this module: imported when run)

    return reduction_rows(s)


ROW_GROUPS.insert(3, ("reduce", _reduction_rows))


def _blocked_rows(s: Sizes) -> list[Row]:
    from .blocked import blocked_rows  # (imports this module: imported when run)

    return blocked_rows(s)


def _linalg_rows(s: Sizes) -> list[Row]:
    from .linalg import linalg_rows  # (imports this module: imported when run)

    return linalg_rows(s)


ROW_GROUPS.insert(5, ("linalg", _linalg_rows))


def register_group(name: str, make_rows: Callable[[Sizes], list[Row]]) -> None:
    """Adds a group of rows at the end of the table (e.g. reductions, blocked formats)."""
    ROW_GROUPS.append((name, make_rows))


def all_rows(sizes: Sizes) -> list[Row]:
    return [row for _, make in ROW_GROUPS for row in make(sizes)]


register_group("blocked", _blocked_rows)


def _indexing_rows(s: Sizes) -> list[Row]:
    from .indexing import indexing_rows  # (imports this module: imported when run)

    return indexing_rows(s)


register_group("indexing", _indexing_rows)


def _client_rows(s: Sizes) -> list[Row]:
    from .clients import client_rows  # (imports this module: imported when run)

    return client_rows(s)


register_group("clients", _client_rows)


def _kernel_rows(s: Sizes) -> list[Row]:
    from .kernels import kernel_rows  # (imports this module: imported when run)

    return kernel_rows(s)


register_group("kernels", _kernel_rows)
