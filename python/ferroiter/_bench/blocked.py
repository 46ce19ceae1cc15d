"""The blocked-format rows (issue 14): NCHW to nChw16c, nChw16c to NCHW and an add of two
nChw16c arrays, each compared with a clone of the same size (the copy limit of this group).
Every library allocates its result: torch's blocked tensors (``to_mkldnn``) cannot be written
into, so the others allocate too. torch picks its own block for the CPU it runs on (16 with
AVX-512, 8 with AVX2); numpy does the same work as a reshape, transpose and copy."""

from __future__ import annotations

from typing import Any

import numpy as np

import ferroiter as fi

from .libs import torch
from .rows import Case, Row, Sizes, Thunk, count

BLOCK = 16


def _mkldnn_works() -> bool:
    if torch is None:
        return False
    try:
        torch.ones(1, 16, 2, 2).to_mkldnn().to_dense()
    except (RuntimeError, AttributeError):
        return False
    return True


def _to_blocked_np(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    n, c, h, w = x.shape
    return x.reshape(n, c // BLOCK, BLOCK, h, w).transpose(0, 1, 3, 4, 2).copy()


def _from_blocked_np(p: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    n, cb, h, w, b = p.shape
    return p.transpose(0, 1, 4, 2, 3).reshape(n, cb * b, h, w)


def blocked_rows(s: Sizes) -> list[Row]:
    n, c, h, w = s.image
    c = -(-c // BLOCK) * BLOCK
    shape = (n, c, h, w)
    size = n * c * h * w
    mkldnn = _mkldnn_works()

    def dense() -> np.ndarray[Any, Any]:
        return np.random.default_rng(0).random(shape, dtype=np.float32)

    def clone() -> list[Case]:
        x = dense()
        a = fi.from_numpy(x)
        thunks: dict[str, Thunk] = {"ferroiter": a.clone, "numpy": x.copy}
        if torch is not None:
            t = torch.from_numpy(x)
            thunks["torch"] = t.clone
        return [Case(8 * size, thunks)]

    def to_blocked() -> list[Case]:
        x = dense()
        a = fi.from_numpy(x)
        thunks: dict[str, Thunk] = {
            "ferroiter": lambda: a.contiguous(fi.nChw16c),
            "numpy": lambda: _to_blocked_np(x),
        }
        if mkldnn:
            t = torch.from_numpy(x)
            thunks["torch"] = t.to_mkldnn
        return [Case(8 * size, thunks)]

    def from_blocked() -> list[Case]:
        x = dense()
        b = fi.from_numpy(x).contiguous(fi.nChw16c)
        p = _to_blocked_np(x)
        thunks: dict[str, Thunk] = {
            "ferroiter": b.contiguous,
            "numpy": lambda: _from_blocked_np(p),
        }
        if mkldnn:
            m = torch.from_numpy(x).to_mkldnn()
            thunks["torch"] = m.to_dense
        return [Case(8 * size, thunks)]

    def add() -> list[Case]:
        x, y = dense(), dense()[::-1].copy()
        a, b = (fi.from_numpy(v).contiguous(fi.nChw16c) for v in (x, y))
        px, py = _to_blocked_np(x), _to_blocked_np(y)
        thunks: dict[str, Thunk] = {
            "ferroiter": lambda: fi.add(a, b),
            "numpy": lambda: np.add(px, py),
        }
        if mkldnn:
            mx, my = (torch.from_numpy(v).to_mkldnn() for v in (x, y))
            thunks["torch"] = lambda: torch.add(mx, my)
        return [Case(12 * size, thunks)]

    return [
        Row(
            "blocked",
            f"clone {count(size) if size % 1024 == 0 else size} (copy limit)",
            clone,
            copy_reference=True,
        ),
        Row("blocked", f"NCHW to nChw16c {shape}", to_blocked, vs_copy=True),
        Row("blocked", f"nChw16c to NCHW {shape}", from_blocked, vs_copy=True),
        Row("blocked", f"add nChw16c + nChw16c {shape}", add, vs_copy=True),
    ]
