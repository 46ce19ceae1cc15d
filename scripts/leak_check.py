"""Leak check (issue 13): runs many small ops and some large ones and prints the process's
resident memory before and after each phase, so a leak shows up as growth proportional to the
work done. Measured and reported, not asserted (tests/test_leaks.py asserts a light version).

    python scripts/leak_check.py [--small 1000000] [--large 1000]

Each phase runs a warm-up pass first (allocator pools, the buffer cache and lazily built
tables reach their steady size), then the measured pass.
"""

from __future__ import annotations

import argparse
import gc
import os
import time

import numpy as np

import ferroiter as fi


def rss_mib() -> float:
    """Resident set size of this process, MiB (Linux /proc)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def small_ops(count: int) -> None:
    """`count` small operations of every kind: elementwise, reductions, views, conversions,
    interop, errors."""
    a = fi.arange(12, dtype="float32").reshape(3, 4)
    b = fi.ones((4,), dtype="float32")
    nd = np.arange(6.0)
    kinds = [
        lambda: a + b,
        lambda: fi.exp(a),
        lambda: a.sum(1),
        lambda: a.argmax(),
        lambda: a.cumsum(0),
        lambda: a.transpose(0, 1)[1:],
        lambda: a.to("int64"),
        lambda: fi.from_numpy(nd)[::2].numpy(),
        lambda: fi.asarray([1, 2, 3]),
        lambda: a.__dlpack__(),
        lambda: fi.from_dlpack(nd),
        lambda: a.tolist(),
        lambda: a.add(b, alpha=2) if hasattr(a, "add") else a * 2,
    ]

    def bad() -> None:
        try:
            a + fi.ones(5)
        except ValueError:
            pass

    kinds.append(bad)
    n = len(kinds)
    for i in range(count):
        kinds[i % n]()


def large_ops(count: int) -> None:
    """`count` large operations (4M-element operands, 16 MiB each)."""
    x = fi.ones((2048, 2048), dtype="float32")
    kinds = [
        lambda: x + 1,
        lambda: x.transpose(0, 1).contiguous(),
        lambda: x.sum(0),
        lambda: x.to("float64"),
        lambda: fi.from_numpy(np.ones(1 << 22, np.float32)) * 2,
    ]
    for i in range(count):
        kinds[i % len(kinds)]()


def phase(name: str, fn, count: int) -> tuple[float, float]:
    fn(max(1, count // 10))  # warm-up
    gc.collect()
    before = rss_mib()
    start = time.perf_counter()
    fn(count)
    gc.collect()
    after = rss_mib()
    took = time.perf_counter() - start
    print(
        f"{name:>6}: {count:>8} ops in {took:6.1f} s   RSS {before:8.1f} MiB -> {after:8.1f} MiB "
        f"({after - before:+.1f} MiB)"
    )
    return before, after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=1_000_000)
    parser.add_argument("--large", type=int, default=1_000)
    args = parser.parse_args()
    print(f"start: RSS {rss_mib():.1f} MiB")
    phase("small", small_ops, args.small)
    phase("large", large_ops, args.large)


if __name__ == "__main__":
    main()
