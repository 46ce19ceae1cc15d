"""Two builds of ferroiter's extension compared in one process: the speed of a change.

On a machine whose memory bandwidth swings between runs (the 2-core development VM: a copy's
GB/s moved 1.5-2x within minutes), two builds timed in separate processes can disagree by 30%
for the same code. Here both builds' extension modules are loaded side by side (two copies of
the shared library, each with its own state) and each case is timed with both, alternating
which goes first, round after round: the ratio of their best times repeats to a few per cent.

    python scripts/bench_ab.py BUILD_A BUILD_B [--threads 1] [--rows perms,layout,reduce,outer]
        [--into] [--only TEXT]

A build is a `_ferroiter*.so` file or a folder holding one (a staged copy of
`python/ferroiter`, or `target/quick` after `cargo build --profile quick --features python`,
whose `libferroiter.so` is taken too). Prints GB/s per case for each build and the ratio B / A
(> 1: B is faster), with the median ratio per group of rows.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np

from ferroiter._bench.rows import random_permutations

Case = tuple[str, int, Callable[[ModuleType], Callable[[], object]]]


def load(build: str) -> ModuleType:
    """The extension module of `build` (a file or a folder holding one), loaded under the
    package's module name but separately from any other copy."""
    path = Path(build)
    if path.is_dir():
        found = sorted(path.glob("_ferroiter*.so")) + sorted(path.glob("libferroiter.so"))
        if not found:
            raise SystemExit(f"{build}: no _ferroiter*.so or libferroiter.so in it")
        path = found[0]
    spec = importlib.util.spec_from_file_location("ferroiter._ferroiter", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{build}: not loadable as an extension module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _array(shape: tuple[int, ...], dtype: type = np.float32) -> np.ndarray:
    return np.random.default_rng(0).random(shape).astype(dtype)


def _line_array(shape: tuple[int, ...], past_line: int) -> np.ndarray:
    """Random float32 of `shape` starting `past_line` bytes past a page (so past a line),
    every page written (untouched pages of a fresh array would read the kernel's zero page)."""
    n = 4 * math.prod(shape)
    raw = np.empty(n + 8192, np.uint8)
    skip = -raw.ctypes.data % 4096 + past_line
    a = raw[skip : skip + n].view(np.float32).reshape(shape)
    a[...] = np.random.default_rng(0).random(shape, dtype=np.float32)
    return a


def _permuted(shape: tuple[int, ...], perm: tuple[int, ...], into: bool) -> list[Case]:
    """`.contiguous()` of the permuted view (a fresh output each call, the input from
    `astype`: 16 bytes past a line, as numpy allocates), or with `into` `copy_` into an
    output on a line from inputs on a line and 16 bytes past one (what the kernels do
    without the allocation and its page faults)."""
    if not into:
        a = _array(shape)

        def make(m: ModuleType, a: np.ndarray = a):
            return m.from_numpy(a).permute(*perm).contiguous

        return [(f"{shape} by {perm}", 8 * a.size, make)]
    cases: list[Case] = []
    out = _line_array(tuple(shape[p] for p in perm), 0)
    for past_line in (0, 16):
        a = _line_array(shape, past_line)

        def make_into(m: ModuleType, a: np.ndarray = a):
            dst, view = m.from_numpy(out), m.from_numpy(a).permute(*perm)
            return lambda: dst.copy_(view)

        cases.append((f"{shape} by {perm} @{past_line}", 8 * a.size, make_into))
    return cases


def perm_cases(into: bool = False) -> list[Case]:
    """The bench's 12 random 3-6-dim permutations of ~8M float32."""
    cases: list[Case] = []
    for shape, perm in random_permutations(8 << 20, 12):
        cases += _permuted(shape, perm, into)
    return cases


def layout_cases(into: bool = False) -> list[Case]:
    """Transposes (the bench's three) and NCHW <-> NHWC as permuted copies."""
    cases: list[Case] = []
    for shape, perm in [
        ((4096, 4096), (1, 0)),
        ((2048, 8192), (1, 0)),
        ((4097, 4096), (1, 0)),  # output columns off the lines: the realigned kernel
        ((16, 64, 56, 56), (0, 2, 3, 1)),
        ((16, 56, 56, 64), (0, 3, 1, 2)),
    ]:
        cases += _permuted(shape, perm, into)
    return cases


def reduce_cases() -> list[Case]:
    """sum, amax and amin of 16M float32 and float64."""
    cases: list[Case] = []
    for dtype in (np.float32, np.float64):
        a = _array((16 << 20,), dtype)
        for name in ("sum", "amax", "amin"):

            def make(m: ModuleType, a: np.ndarray = a, name: str = name):
                x = m.from_numpy(a)
                f = getattr(m, name)
                return lambda: f(x)

            cases.append((f"{name} 16M {np.dtype(dtype).name}", a.nbytes, make))
    return cases


def outer_cases() -> list[Case]:
    """Sums along an outer dim (the outer-dim path): H,W of channels_last images, float32 and
    float64, in the last-level cache and past it, and the columns of a 4096² matrix."""
    cases: list[Case] = []
    for dtype in (np.float32, np.float64):
        for n, c in ((16, 16), (16, 32), (16, 64), (16, 128), (32, 64)):
            a = _array((n, 56, 56, c), dtype)

            def make(m: ModuleType, a: np.ndarray = a):
                x = m.from_numpy(a).permute(0, 3, 1, 2)
                return lambda: m.sum(x, dim=(2, 3))

            label = f"H,W sum ({n}, {c}, 56, 56) cl {np.dtype(dtype).name}"
            cases.append((label, a.nbytes, make))
    a = _array((4096, 4096))

    def columns(m: ModuleType, a: np.ndarray = a):
        x = m.from_numpy(a)
        return lambda: m.sum(x, dim=0)

    cases.append(("sum(dim=0) 4096² float32", a.nbytes, columns))
    return cases


def mixed_cases() -> list[Case]:
    """Ops whose operands disagree on the fastest dim (the packed tiled walk): NHWC + NCHW
    adds into `out` (64 and 3 channels) and a cast from NCHW float32 into NHWC float64."""
    cases: list[Case] = []
    for shape in ((16, 64, 56, 56), (32, 3, 112, 112)):
        a, b = _array(shape), _array(shape)
        nhwc = np.ascontiguousarray(a.transpose(0, 2, 3, 1))

        def make(m: ModuleType, nhwc: np.ndarray = nhwc, b: np.ndarray = b):
            x, y = m.from_numpy(nhwc).permute(0, 3, 1, 2), m.from_numpy(b)
            out = x + y
            return lambda: m.add(x, y, out=out)

        cases.append((f"NHWC + NCHW {shape} into out", 12 * b.size, make))
    a = _array((16, 64, 56, 56))

    def cast(m: ModuleType, a: np.ndarray = a):
        x = m.from_numpy(a)
        out = m.from_numpy(np.zeros((16, 56, 56, 64))).permute(0, 3, 1, 2)
        return lambda: out.copy_(x)

    cases.append(("NCHW float32 -> NHWC float64 (16, 64, 56, 56)", 12 * a.size, cast))
    return cases


GROUPS: dict[str, Callable[..., list[Case]]] = {
    "mixed": mixed_cases,
    "perms": perm_cases,
    "layout": layout_cases,
    "reduce": reduce_cases,
    "outer": outer_cases,
}


def best_pair(thunks: list[Callable[[], object]], rounds: int) -> list[float]:
    """Each thunk's best time over `rounds` rounds of two calls, the order alternating."""
    best = [float("inf")] * len(thunks)
    for r in range(rounds):
        order = range(len(thunks)) if r % 2 == 0 else reversed(range(len(thunks)))
        for k in order:
            for _ in range(2):
                t0 = time.perf_counter()
                thunks[k]()
                best[k] = min(best[k], time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the build to compare against")
    parser.add_argument("b", help="the build compared")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rows", default="perms,layout,reduce", help=",".join(GROUPS))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", default="", help="only the cases whose name holds this")
    parser.add_argument(
        "--into",
        action="store_true",
        help="perms and layout by copy_ into an output on a line (inputs on a line and 16 "
        "bytes past one), not contiguous()",
    )
    args = parser.parse_args()
    builds = [load(args.a), load(args.b)]
    for m in builds:
        m.set_num_threads(args.threads)
    print(f"A = {args.a}\nB = {args.b}\nthreads {args.threads}, best of {args.rounds} rounds")
    for group in args.rows.split(","):
        if group not in GROUPS:
            raise SystemExit(f"unknown rows {group!r}: {', '.join(GROUPS)}")
        print(f"-- {group}\n{'case':48} {'A GB/s':>8} {'B GB/s':>8} {'B / A':>7}")
        ratios = []
        made = GROUPS[group](True) if args.into and group in ("perms", "layout") else None
        for name, nbytes, make in made if made is not None else GROUPS[group]():
            if args.only not in name:
                continue
            times = best_pair([make(m) for m in builds], args.rounds)
            speeds = [nbytes / t / 1e9 for t in times]
            ratios.append(times[0] / times[1])
            print(f"{name:48} {speeds[0]:8.1f} {speeds[1]:8.1f} {ratios[-1]:6.3f}x")
        print(f"{'median':48} {'':8} {'':8} {statistics.median(ratios):6.3f}x")


if __name__ == "__main__":
    main()
