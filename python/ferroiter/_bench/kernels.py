"""Users' own kernels (issue 64): a fused ``a * b + c`` and a user-written
``clip(x, lo, hi) * scale``, compiled by numba, run by ``ferroiter.map`` on contiguous,
mixed-layout (channels_last against contiguous) and transposed operands, against numba's own
``@vectorize`` (serial and ``target="parallel"``), numpy and torch computing the same
expression. Each library allocates its result (the clip rows write into a contiguous out=, so
that a channels_last or transposed input is a layout change for everyone).

numba is optional (``pip install 'ferroiter[kernels]'``): without it the group is empty and
says so.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

import ferroiter as fi

from .libs import torch
from .rows import Case, Row, Sizes, Thunk, count

#: The extra columns this group measures (printed under the row, see report.other_lines).
NUMBA_SERIAL, NUMBA_PARALLEL = "numba @vectorize", "numba parallel"


def missing() -> list[str]:
    try:
        import numba  # noqa: F401
    except ImportError:
        return ["numba"]
    return []


class _Kernels:
    """The kernels, compiled once per process (numba takes a second per signature)."""

    def __init__(self) -> None:
        import numba

        vectorize: Any = numba.vectorize  # (numba has no type information)

        def fma(a: Any, b: Any, c: Any) -> Any:
            return a * b + c

        def clip_scale(x: Any, lo: Any, hi: Any, scale: Any) -> Any:
            return min(max(x, lo), hi) * scale

        self.fma = fi.kernel("float32(float32, float32, float32)")(fma)
        self.clip = fi.kernel("float32(float32, float32, float32, float32)")(clip_scale)
        signatures = {
            "fma": ["float32(float32, float32, float32)"],
            "clip": ["float32(float32, float32, float32, float32)"],
        }
        self.vectorized = {
            name: vectorize(signatures[name])(fn)
            for name, fn in (("fma", fma), ("clip", clip_scale))
        }
        self.parallel = {
            name: vectorize(signatures[name], target="parallel")(fn)
            for name, fn in (("fma", fma), ("clip", clip_scale))
        }


_compiled: _Kernels | None = None


def _kernels() -> _Kernels:
    global _compiled
    if _compiled is None:
        _compiled = _Kernels()
    return _compiled


def _layouts(s: Sizes) -> list[tuple[str, Callable[[np.ndarray], np.ndarray], tuple[int, ...]]]:
    """(name, how the odd operand is laid out, shape): contiguous; channels_last against
    contiguous (an image batch); a transposed square."""
    n, c, h, w = s.image
    side = s.square

    def channels_last(x: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)

    def transposed(x: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(x.T).T

    return [
        ("contiguous", lambda x: x, (s.large // 4,)),
        ("channels_last vs contiguous", channels_last, (n, c, h, w)),
        ("transposed", transposed, (side, side)),
    ]


def _fma_case(shape: tuple[int, ...], odd: Callable[[np.ndarray], np.ndarray]) -> list[Case]:
    k = _kernels()
    rng = np.random.default_rng(0)
    a, c = (rng.random(shape, dtype=np.float32) for _ in range(2))
    b = odd(rng.random(shape, dtype=np.float32))
    fa, fb, fc = fi.from_numpy(a), fi.from_numpy(b), fi.from_numpy(c)
    thunks: dict[str, Thunk] = {
        "ferroiter": lambda: k.fma(fa, fb, fc),
        "numpy": lambda: a * b + c,
        NUMBA_SERIAL: lambda: k.vectorized["fma"](a, b, c),
        NUMBA_PARALLEL: lambda: k.parallel["fma"](a, b, c),
    }
    if torch is not None:
        ta, tb, tc = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c)
        thunks["torch"] = lambda: ta * tb + tc
    return [Case(4 * a.size * 4, thunks)]


def _clip_case(shape: tuple[int, ...], odd: Callable[[np.ndarray], np.ndarray]) -> list[Case]:
    k = _kernels()
    x = odd(np.random.default_rng(1).standard_normal(shape, dtype=np.float32))
    out = np.empty(shape, np.float32)
    lo, hi, scale = np.float32(-0.5), np.float32(0.5), np.float32(3.0)
    fx, fout = fi.from_numpy(x), fi.from_numpy(out)

    def numpy_clip() -> object:
        np.clip(x, lo, hi, out=out)
        return np.multiply(out, scale, out=out)

    thunks: dict[str, Thunk] = {
        "ferroiter": lambda: k.clip(fx, -0.5, 0.5, 3.0, out=fout),
        "numpy": numpy_clip,
        NUMBA_SERIAL: lambda: k.vectorized["clip"](x, lo, hi, scale, out=out),
        NUMBA_PARALLEL: lambda: k.parallel["clip"](x, lo, hi, scale, out=out),
    }
    if torch is not None:
        tx, tout = torch.from_numpy(x), torch.from_numpy(out)

        def torch_clip() -> object:
            torch.clamp(tx, -0.5, 0.5, out=tout)
            return tout.mul_(3.0)

        thunks["torch"] = torch_clip
    return [Case(2 * x.size * 4, thunks)]


def kernel_rows(s: Sizes) -> list[Row]:
    if missing():
        return []
    rows = []
    for name, odd, shape in _layouts(s):
        size = "x".join(str(d) for d in shape) if len(shape) > 1 else count(shape[0])
        rows.append(
            Row(
                "kernels",
                f"map a*b+c float32 {size}, {name}",
                functools.partial(_fma_case, shape, odd),
            )
        )
        rows.append(
            Row(
                "kernels",
                f"map clip*scale float32 {size}, {name}",
                functools.partial(_clip_case, shape, odd),
            )
        )
    return rows
