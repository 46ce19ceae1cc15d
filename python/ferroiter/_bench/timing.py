"""Timing one callable: the best of several repeats, each long enough to read a clock."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_time(fn: Callable[[], object], repeat: int, min_seconds: float = 0.01) -> float:
    """The best of `repeat` timings, per call, in seconds. Each timing runs `fn` as many times
    as fill `min_seconds` (found on a first, warming run: page faults, lazy thread pools)."""
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-9)
    number = max(1, int(min_seconds / once))
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best
