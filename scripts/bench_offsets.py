"""float32 `exp`, `sin` and a copy of 4M elements on 1 thread, with the output placed a fixed
number of bytes past the input modulo 4096, for ferroiter, torch and numpy.

On the 16-core Xeon of 2026-11-30 the same float32 `exp` took 0.24 ns an element with one
pair of freshly allocated arrays and 1.31 with another (torch 0.30 and 0.58, numpy 0.46 and
2.06), in every library at once: the suspect is where the arrays start, since loads and
stores whose addresses agree in their low 12 bits can stall each other on Intel cores. Each
line here fixes that offset, so the rows tell the offset's cost from the kernels'. (On the
2-core Zen 3 every offset runs alike.)

    python scripts/bench_offsets.py
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

import ferroiter as fi
from ferroiter._bench.timing import best_time

N = 1 << 22
OFFSETS = (0, 16, 64, 512, 1024, 2048, 3072, 4032)


Thunk = Callable[[], object]


def thunks(name: str, x: np.ndarray, o: np.ndarray) -> tuple[Thunk, Thunk, Thunk]:
    """`name` of `x` into `o` (or `o` copied from `x`) in ferroiter, torch and numpy."""
    fx, fo, tx, to = fi.from_numpy(x), fi.from_numpy(o), torch.from_numpy(x), torch.from_numpy(o)
    if name == "copy":
        return (lambda: fo.copy_(fx)), (lambda: to.copy_(tx)), (lambda: np.copyto(o, x))
    f, t, g = getattr(fi, name), getattr(torch, name), getattr(np, name)
    return (lambda: f(fx, out=fo)), (lambda: t(tx, out=to)), (lambda: g(x, out=o))


def main() -> None:
    fi.set_num_threads(1)
    torch.set_num_threads(1)
    raw = np.empty(2 * 4 * N + 3 * 4096, np.uint8)
    start = (-raw.ctypes.data) % 4096
    x = raw[start : start + 4 * N].view(np.float32)
    x[:] = np.random.default_rng(0).random(N, dtype=np.float32)
    print("ns an element: ferroiter torch numpy")
    for offset in OFFSETS:
        begin = start + 4 * N + 4096 + offset
        o = raw[begin : begin + 4 * N].view(np.float32)
        cells = []
        for name in ("exp", "sin", "copy"):
            times = [best_time(thunk, 7, 0.02) / N * 1e9 for thunk in thunks(name, x, o)]
            cells.append(f"{name} " + " ".join(f"{v:5.2f}" for v in times))
        print(f"output {offset:4} B past the input (mod 4096): " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
