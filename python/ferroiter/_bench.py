"""`python -m ferroiter bench`: ferroiter against torch and numpy on this machine, side by side.

Every row runs the same work on the same arrays in one process at the same thread count; the
table shows GB/s (bytes read + written per second, best of several runs) or microseconds, and
ferroiter's speed as a ratio to each. Machines are noisy: read the ratios, not the absolutes.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

import ferroiter as fi

try:  # torch is optional: the table then compares with numpy only
    import torch
except ImportError:  # pragma: no cover - depends on the machine
    torch = None


def best_time(fn: Callable[[], object], repeat: int, number: int = 1) -> float:
    """The best of `repeat` timings of `number` calls, per call, in seconds."""
    fn()  # warm up: first-touch page faults, lazy pools
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def _rows(n: int, side: int) -> list[tuple[str, int, dict[str, Callable[[], object]]]]:
    """(label, bytes moved, {library: thunk}) for every benchmark row."""
    rng = np.random.default_rng(0)
    a_np = rng.random(n, dtype=np.float32)
    b_np = rng.random(n, dtype=np.float32)
    o_np = np.empty_like(a_np)
    a, b, o = fi.from_numpy(a_np), fi.from_numpy(b_np), fi.from_numpy(o_np.copy())
    img = rng.random((16, 64, 56, 56), dtype=np.float32)
    bias = rng.random((64, 1, 1), dtype=np.float32)
    img_nhwc = np.ascontiguousarray(img.transpose(0, 2, 3, 1))
    img_cl = img_nhwc.transpose(0, 3, 1, 2)  # NCHW indexing, channels-last memory
    img_fi, bias_fi = fi.from_numpy(img), fi.from_numpy(bias)
    img_out = fi.empty(img.shape)
    cl_fi = img_fi.contiguous(fi.channels_last)
    sq = rng.random((side, side), dtype=np.float32)
    sq_fi = fi.from_numpy(sq)
    half_out = fi.empty((n,), dtype="float16")
    one_a, one_b = fi.ones((1,)), fi.ones((1,))
    k_a, k_b = fi.ones((1000,)), fi.ones((1000,))
    rows: list[tuple[str, int, dict[str, Callable[[], object]]]] = [
        (
            "copy 16M (reference)",
            8 * n,
            {"ferroiter": lambda: o.copy_(a), "numpy": lambda: np.copyto(o_np, a_np)},
        ),
        (
            "add 16M into out",
            12 * n,
            {
                "ferroiter": lambda: fi.add(a, b, out=o),
                "numpy": lambda: np.add(a_np, b_np, out=o_np),
            },
        ),
        ("add 16M allocating", 12 * n, {"ferroiter": lambda: a + b, "numpy": lambda: a_np + b_np}),
        (
            "(16,64,56,56) + (64,1,1)",
            8 * img.size,
            {
                "ferroiter": lambda: fi.add(img_fi, bias_fi, out=img_out),
                "numpy": lambda: img + bias,
            },
        ),
        (
            "channels_last + contiguous",
            12 * img.size,
            {"ferroiter": lambda: cl_fi + img_fi, "numpy": lambda: img_cl + img},
        ),
        (
            "NCHW -> NHWC",
            8 * img.size,
            {
                "ferroiter": lambda: img_fi.contiguous(fi.channels_last),
                "numpy": lambda: np.ascontiguousarray(img.transpose(0, 2, 3, 1)),
            },
        ),
        (
            "NHWC -> NCHW",
            8 * img.size,
            {
                "ferroiter": lambda: cl_fi.contiguous(),
                "numpy": lambda: np.ascontiguousarray(img_cl),
            },
        ),
        (
            f"{side}x{side} transpose copy",
            8 * side * side,
            {
                "ferroiter": lambda: sq_fi.transpose(0, 1).contiguous(),
                "numpy": lambda: np.ascontiguousarray(sq.T),
            },
        ),
        (
            f"neg of transposed {side}x{side}",
            8 * side * side,
            {"ferroiter": lambda: -sq_fi.transpose(0, 1), "numpy": lambda: -sq.T},
        ),
        (
            "f32 -> f64 allocating",
            12 * n,
            {"ferroiter": lambda: a.to("float64"), "numpy": lambda: a_np.astype(np.float64)},
        ),
        (
            "f32 -> f16 into out",
            6 * n,
            {
                "ferroiter": lambda: half_out.copy_(a),
                "numpy": lambda: np.copyto(np.empty(n, np.float16), a_np),
            },
        ),
        (
            "exp 16M into out (compute-bound)",
            8 * n,
            {"ferroiter": lambda: fi.exp(a, out=o), "numpy": lambda: np.exp(a_np, out=o_np)},
        ),
        (
            "sin 16M into out (compute-bound)",
            8 * n,
            {"ferroiter": lambda: fi.sin(a, out=o), "numpy": lambda: np.sin(a_np, out=o_np)},
        ),
        (
            "a + b, 1 element (us)",
            0,
            {"ferroiter": lambda: one_a + one_b, "numpy": lambda: a_np[:1] + b_np[:1]},
        ),
        (
            "a + b, 1000 elements (us)",
            0,
            {"ferroiter": lambda: k_a + k_b, "numpy": lambda: a_np[:1000] + b_np[:1000]},
        ),
    ]
    if torch is not None:
        at, bt, ot = torch.from_numpy(a_np), torch.from_numpy(b_np), torch.from_numpy(o_np)
        imgt, biast = torch.from_numpy(img), torch.from_numpy(bias)
        img_outt = torch.empty(img.shape)
        clt = imgt.contiguous(memory_format=torch.channels_last)
        sqt = torch.from_numpy(sq)
        halft = torch.empty(n, dtype=torch.float16)
        one_t, k_t = torch.ones(1), torch.ones(1000)
        torch_thunks = [
            lambda: ot.copy_(at),
            lambda: torch.add(at, bt, out=ot),
            lambda: at + bt,
            lambda: torch.add(imgt, biast, out=img_outt),
            lambda: clt + imgt,
            lambda: imgt.contiguous(memory_format=torch.channels_last),
            lambda: clt.contiguous(),
            lambda: sqt.t().contiguous(),
            lambda: -sqt.t(),
            lambda: at.to(torch.float64),
            lambda: halft.copy_(at),
            lambda: torch.exp(at, out=ot),
            lambda: torch.sin(at, out=ot),
            lambda: one_t + one_t,
            lambda: k_t + k_t,
        ]
        for row, thunk in zip(rows, torch_thunks, strict=True):
            row[2]["torch"] = thunk
    return rows


def run(quick: bool = False) -> str:
    """Measures every row and returns the table as text."""
    n = 1 << 22 if quick else 1 << 24
    side = 2048 if quick else 4096
    repeat = 3 if quick else 5
    threads = fi.get_num_threads()
    if torch is not None:
        torch.set_num_threads(threads)
    libs = ["ferroiter", "torch", "numpy"] if torch is not None else ["ferroiter", "numpy"]
    lines = [
        f"ferroiter bench: {threads} thread(s), float32, best of {repeat}; GB/s = bytes read + written per second",
        f"{'work':<32}"
        + "".join(f"{lib:>11}" for lib in libs)
        + "".join(f"{'vs ' + lib:>11}" for lib in libs[1:]),
    ]
    for label, nbytes, thunks in _rows(n, side):
        tiny = nbytes == 0
        times = {lib: best_time(thunks[lib], repeat, number=2000 if tiny else 1) for lib in libs}
        cells = []
        for lib in libs:
            t = times[lib]
            cells.append(f"{t * 1e6:>9.2f}us" if tiny else f"{nbytes / t / 1e9:>9.1f}  ")
        ratios = [f"{times[lib] / times['ferroiter']:>10.2f}x" for lib in libs[1:]]
        lines.append(f"{label:<32}" + "".join(f"{c:>11}" for c in cells) + "".join(ratios))
    lines.append("ratios > 1: ferroiter is faster")
    return "\n".join(lines)
