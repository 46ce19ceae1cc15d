"""The linear algebra and sorting rows (issue 12): a float32 matrix product of
(`square`/4)² matrices, 1024² in a full run (ferroiter's GEMM against
torch's BLAS and numpy's), and a sort of each row of such a matrix. Every library allocates
its result; times in microseconds (no bytes count)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import ferroiter as fi

from .libs import torch
from .rows import Case, Row, Sizes, Thunk


def _matmul(side: int) -> Callable[[], list[Case]]:
    def setup() -> list[Case]:
        rng = np.random.default_rng(0)
        x = rng.standard_normal((side, side)).astype(np.float32)
        y = rng.standard_normal((side, side)).astype(np.float32)
        a, b = fi.from_numpy(x), fi.from_numpy(y)
        thunks: dict[str, Thunk] = {"ferroiter": lambda: a @ b, "numpy": lambda: x @ y}
        if torch is not None:
            tx, ty = torch.from_numpy(x), torch.from_numpy(y)
            thunks["torch"] = lambda: tx @ ty
        return [Case(0, thunks)]

    return setup


def _sort(side: int) -> Callable[[], list[Case]]:
    def setup() -> list[Case]:
        x: np.ndarray[Any, Any] = np.random.default_rng(0).standard_normal((side, side))
        x = x.astype(np.float32)
        a = fi.from_numpy(x)
        thunks: dict[str, Thunk] = {
            "ferroiter": lambda: fi.sort(a, 1),
            "numpy": lambda: np.sort(x, 1, kind="stable"),
        }
        if torch is not None:
            t = torch.from_numpy(x)
            thunks["torch"] = lambda: torch.sort(t, 1)
        return [Case(0, thunks)]

    return setup


def linalg_rows(s: Sizes) -> list[Row]:
    side = s.square // 4
    sq = f"{side}x{side}"
    return [
        Row("linalg", f"matmul {sq} float32", _matmul(side)),
        Row("linalg", f"sort(dim=1) {sq} float32", _sort(side)),
    ]
