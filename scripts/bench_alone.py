"""Rows of `python -m ferroiter bench` that decide scaling on many cores, each library measured
alone: all of ferroiter's timings of a row at one thread count, a pause, then all of torch's.

The bench alternates the libraries case by case, so one library's idle threads (ferroiter's
workers spin for 100 µs after a loop, OpenMP's for longer) can still hold cores while the
other runs: at 16 threads torch's time collapsed on several short rows of the 2026-11-24
run. Here the other library's threads have gone idle before a library is timed, so a cell
that differs much from the bench's points at that interplay rather than at the kernel.

    python scripts/bench_alone.py --threads 1,4,8,16 [--rows add1m,hwsum]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import torch

import ferroiter as fi
from ferroiter._bench.timing import best_time

Thunk = Callable[[], object]


def _random(shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(0).random(shape, dtype=np.float32)


def add_out(n: int) -> tuple[Thunk, Thunk, int]:
    a, b, o = _random((n,)), _random((n,)), np.zeros(n, np.float32)
    fa, fb, fo = (fi.from_numpy(x) for x in (a, b, o))
    ta, tb, to = (torch.from_numpy(x) for x in (a, b, o))
    return (lambda: fi.add(fa, fb, out=fo)), (lambda: torch.add(ta, tb, out=to)), 12 * n


def copy(n: int) -> tuple[Thunk, Thunk, int]:
    a, o = _random((n,)), np.zeros(n, np.float32)
    fa, fo, ta, to = fi.from_numpy(a), fi.from_numpy(o), torch.from_numpy(a), torch.from_numpy(o)
    return (lambda: fo.copy_(fa)), (lambda: to.copy_(ta)), 8 * n


def hw_sum() -> tuple[Thunk, Thunk, int]:
    """Sum over H, W of a (16, 64, 56, 56) channels_last image."""
    a = _random((16, 56, 56, 64))
    f, t = fi.from_numpy(a).permute(0, 3, 1, 2), torch.from_numpy(a).permute(0, 3, 1, 2)
    return (lambda: fi.sum(f, dim=(2, 3))), (lambda: torch.sum(t, dim=(2, 3))), 4 * a.size


def to_channels_last() -> tuple[Thunk, Thunk, int]:
    a = _random((16, 64, 56, 56))
    f, t = fi.from_numpy(a), torch.from_numpy(a)
    return (
        (lambda: f.contiguous(memory_format=fi.channels_last)),
        (lambda: t.contiguous(memory_format=torch.channels_last)),
        8 * a.size,
    )


def to_contiguous() -> tuple[Thunk, Thunk, int]:
    a = _random((16, 56, 56, 64))
    f, t = fi.from_numpy(a).permute(0, 3, 1, 2), torch.from_numpy(a).permute(0, 3, 1, 2)
    return (lambda: f.contiguous()), (lambda: t.contiguous()), 8 * a.size


def transpose() -> tuple[Thunk, Thunk, int]:
    a = _random((4096, 4096))
    f, t = fi.from_numpy(a).T, torch.from_numpy(a).T
    return (lambda: f.contiguous()), (lambda: t.contiguous()), 8 * a.size


def bias_add() -> tuple[Thunk, Thunk, int]:
    """A (16, 64, 56, 56) image plus a (64, 1, 1) bias, into an output of the image's shape."""
    a, b, o = _random((16, 64, 56, 56)), _random((64, 1, 1)), np.zeros((16, 64, 56, 56), np.float32)
    fa, fb, fo = (fi.from_numpy(x) for x in (a, b, o))
    ta, tb, to = (torch.from_numpy(x) for x in (a, b, o))
    return (lambda: fi.add(fa, fb, out=fo)), (lambda: torch.add(ta, tb, out=to)), 8 * a.size


def exp_out() -> tuple[Thunk, Thunk, int]:
    a, o = _random((1 << 22,)), np.zeros(1 << 22, np.float32)
    fa, fo, ta, to = fi.from_numpy(a), fi.from_numpy(o), torch.from_numpy(a), torch.from_numpy(o)
    return (lambda: fi.exp(fa, out=fo)), (lambda: torch.exp(ta, out=to)), 8 * a.size


ROWS: dict[str, tuple[str, Callable[[], tuple[Thunk, Thunk, int]]]] = {
    "add64k": ("add 64K into out", lambda: add_out(1 << 16)),
    "add256k": ("add 256K into out", lambda: add_out(1 << 18)),
    "add1m": ("add 1M into out", lambda: add_out(1 << 20)),
    "add4m": ("add 4M into out", lambda: add_out(1 << 22)),
    "copy3m": ("copy 3136K", lambda: copy(3136 << 10)),
    "copy16m": ("copy 16M", lambda: copy(16 << 20)),
    "hwsum": ("sum over H,W (16, 64, 56, 56) channels_last", hw_sum),
    "nhwc": ("NCHW -> NHWC (16, 64, 56, 56)", to_channels_last),
    "nchw": ("NHWC -> NCHW (16, 56, 56, 64)", to_contiguous),
    "transpose": ("transpose 4096x4096", transpose),
    "bias": ("(16, 64, 56, 56) + (64,1,1) into out", bias_add),
    "exp": ("exp float32 4M into out", exp_out),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    parser.add_argument("--rows", default=",".join(ROWS), help="row names: " + ", ".join(ROWS))
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    print(f"{'row':46} {'T':>3} {'ferroiter GB/s':>15} {'torch GB/s':>11} {'x torch':>8}")
    for name in args.rows.split(","):
        label, make = ROWS[name]
        ours, theirs, nbytes = make()
        for t in threads:
            fi.set_num_threads(t)
            torch.set_num_threads(t)
            mine = best_time(ours, 7, 0.02)
            time.sleep(0.005)  # (the other library's threads go idle)
            other = best_time(theirs, 7, 0.02)
            time.sleep(0.005)
            print(
                f"{label:46} {t:3} {nbytes / mine / 1e9:15.1f} {nbytes / other / 1e9:11.1f} "
                f"{other / mine:7.2f}x",
                flush=True,
            )


if __name__ == "__main__":
    main()
