"""The reduction and scan rows (issue 9): float32 sums along every kind of dim, the other
reductions of a flat array, and cumsum. Every library allocates its (small) result; GB/s
counts the bytes read (and, for scans, written)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

import ferroiter as fi

from .libs import torch
from .rows import Case, Row, Sizes, Thunk, count

#: One library's reduction of its view of the input.
Reduce = Callable[[Any], object]


def _case(
    x: np.ndarray[Any, Any], nbytes: int, fi_fn: Reduce, torch_fn: Reduce, np_fn: Reduce
) -> Case:
    """One case over the same memory: `x` as numpy, ferroiter and torch see it."""
    a = fi.from_numpy(x)
    thunks: dict[str, Thunk] = {"ferroiter": lambda: fi_fn(a), "numpy": lambda: np_fn(x)}
    if torch is not None:
        t = torch.from_numpy(x)
        thunks["torch"] = lambda: torch_fn(t)
    return Case(nbytes, thunks)


def _flat(
    n: int, fi_fn: Reduce, torch_fn: Reduce, np_fn: Reduce, scan: bool = False
) -> Callable[[], list[Case]]:
    def setup() -> list[Case]:
        x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
        return [_case(x, (8 if scan else 4) * n, fi_fn, torch_fn, np_fn)]

    return setup


def _square(
    side: int, fi_fn: Reduce, torch_fn: Reduce, np_fn: Reduce, scan: bool = False
) -> Callable[[], list[Case]]:
    return _matrix((side, side), fi_fn, torch_fn, np_fn, scan)


def _matrix(
    shape: tuple[int, int], fi_fn: Reduce, torch_fn: Reduce, np_fn: Reduce, scan: bool = False
) -> Callable[[], list[Case]]:
    def setup() -> list[Case]:
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        return [_case(x, (8 if scan else 4) * x.size, fi_fn, torch_fn, np_fn)]

    return setup


def _channels_last_hw(shape: tuple[int, int, int, int]) -> Callable[[], list[Case]]:
    def setup() -> list[Case]:
        n, c, h, w = shape
        nhwc = np.random.default_rng(0).standard_normal((n, h, w, c)).astype(np.float32)
        x = nhwc.transpose(0, 3, 1, 2)  # NCHW view of channels_last memory
        return [
            _case(
                x,
                4 * x.size,
                lambda a: fi.sum(a, (2, 3)),
                lambda t: torch.sum(t, (2, 3)),
                lambda v: v.sum(axis=(2, 3)),
            )
        ]

    return setup


def reduction_rows(s: Sizes) -> list[Row]:
    n, side = s.alloc, s.square
    sq = f"{side}x{side}"
    n_img, c, h, w = s.image
    big = (2 * n_img, c, h, w)
    rows = [
        # the read limit the rows' %copy column is a share of: a max is the lightest reduction
        # (one compare per element, no accumulator chain), and the fastest library's speed is
        # taken (numpy's, torch's or ferroiter's), so that ferroiter does not set its own bar
        Row(
            "reduce",
            f"read limit: max {count(n)} (fastest lib)",
            _flat(n, fi.amax, lambda t: t.amax(), np.max),
            copy_reference=True,
            fastest_reference=True,
        ),
        Row("reduce", f"sum {count(n)}", _flat(n, fi.sum, lambda t: t.sum(), np.sum)),
        Row(
            "reduce",
            f"sum(dim=1) {sq}",
            _square(side, lambda a: fi.sum(a, 1), lambda t: t.sum(1), lambda x: x.sum(1)),
        ),
        Row(
            "reduce",
            f"sum(dim=1) {side * side // 64}x64",
            _matrix(
                (side * side // 64, 64),
                lambda a: fi.sum(a, 1),
                lambda t: t.sum(1),
                lambda x: x.sum(1),
            ),
        ),
        Row(
            "reduce",
            f"sum(dim=0) {sq}",
            _square(side, lambda a: fi.sum(a, 0), lambda t: t.sum(0), lambda x: x.sum(0)),
        ),
        Row("reduce", f"sum over H,W {s.image} channels_last", _channels_last_hw(s.image)),
        # the size, twice the image of the layout rows (25.7 MB in full: near the size
        # of a last-level cache, where the outer-dim path changes its loop)
        Row("reduce", f"sum over H,W {big} channels_last", _channels_last_hw(big)),
        Row("reduce", f"mean {count(n)}", _flat(n, fi.mean, lambda t: t.mean(), np.mean)),
        Row("reduce", f"amax {count(n)}", _flat(n, fi.amax, lambda t: t.amax(), np.max)),
        Row("reduce", f"argmax {count(n)}", _flat(n, fi.argmax, lambda t: t.argmax(), np.argmax)),
        Row(
            "reduce",
            f"cumsum {count(n)}",
            _flat(n, lambda a: fi.cumsum(a, 0), lambda t: t.cumsum(0), np.cumsum, scan=True),
        ),
        Row(
            "reduce",
            f"cumsum(dim=0) {sq}",
            _square(
                side,
                lambda a: fi.cumsum(a, 0),
                lambda t: t.cumsum(0),
                lambda x: np.cumsum(x, 0),
                scan=True,
            ),
        ),
    ]
    # every row but the limit itself (and the scans, which also write) as a share of it
    return [
        r
        if r.copy_reference or r.label.startswith("cumsum")
        else dataclasses.replace(r, vs_copy=True)
        for r in rows
    ]
