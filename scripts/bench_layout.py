"""Layout conversions as a share of the copy limit (issue 10): NCHW <-> NHWC, 2-D transposes
and random 3-6-dim permutations, `dst.copy_(src.permute(p))` into a preallocated array, each
divided into the time of a plain contiguous copy of the same bytes measured in the same run
(so the figures survive a loaded machine better than absolute times). ferroiter, torch and
numpy side by side; best of `--repeat`.

    python scripts/bench_layout.py --threads 1,2 [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch

import ferroiter as fi


def best(fn: Callable[[], object], repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def perm_cases(
    seed: int, count: int, numel: int, alpha: float = 3.0
) -> list[tuple[list[int], list[int]]]:
    """`count` random (shape, permutation) pairs of 3-6 dims, about `numel` elements each,
    no identity permutation."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        nd = int(rng.integers(3, 7))
        # random log-sizes summing to log(numel); alpha 3: not too lopsided, alpha 1: often
        # a huge dim between sizes 2 and 3
        w = rng.dirichlet(alpha * np.ones(nd))
        shape = [max(2, int(round(numel**x))) for x in w]
        perm = list(rng.permutation(nd))
        if perm == sorted(perm):
            continue
        out.append((shape, [int(p) for p in perm]))
    return out


def measure(np_src: np.ndarray, perm: list[int], repeat: int) -> dict[str, float]:
    """Shares of the copy limit (copy time / layout time) per library."""
    shape_out = [np_src.shape[p] for p in perm]
    res = {}
    fs = fi.from_numpy(np_src)
    fd = fi.empty(shape_out, dtype=fs.dtype)
    fplain = fi.empty(list(np_src.shape), dtype=fs.dtype)
    fp = fs.permute(perm)
    fcopy = best(lambda: fplain.copy_(fs), repeat)
    res["ferroiter"] = fcopy / best(lambda: fd.copy_(fp), repeat)
    ts = torch.from_numpy(np_src)
    td = torch.empty(shape_out, dtype=ts.dtype)
    tplain = torch.empty_like(ts)
    tp = ts.permute(perm)
    res["torch"] = best(lambda: tplain.copy_(ts), repeat) / best(lambda: td.copy_(tp), repeat)
    nd_ = np.empty(shape_out, dtype=np_src.dtype)
    nplain = np.empty_like(np_src)
    npp = np_src.transpose(perm)
    res["numpy"] = best(lambda: np.copyto(nplain, np_src), repeat) / best(
        lambda: np.copyto(nd_, npp), repeat
    )
    res["copy_GBps"] = 2 * np_src.nbytes / fcopy / 1e9
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--alpha", type=float, default=3.0)
    args = ap.parse_args()
    rows: list[tuple[str, np.ndarray, list[int]]] = []
    rng = np.random.default_rng(0)
    for dt in (np.float32, np.float16, np.float64):
        img = rng.standard_normal((64, 64, 56, 56)).astype(dt)
        rows.append((f"NCHW->NHWC {np.dtype(dt).name}", img, [0, 2, 3, 1]))
        nhwc = np.ascontiguousarray(img.transpose(0, 2, 3, 1))
        rows.append((f"NHWC->NCHW {np.dtype(dt).name}", nhwc, [0, 3, 1, 2]))
    for n in (4096, 8192):
        sq = rng.standard_normal((n, n)).astype(np.float32)
        rows.append((f"transpose {n}^2 float32", sq, [1, 0]))
    nperm = 6 if args.quick else 20
    perms = perm_cases(1, nperm, 1 << 24, args.alpha)
    for i, (shape, perm) in enumerate(perms):
        a = rng.standard_normal(shape).astype(np.float32)
        rows.append((f"perm{i} {shape} {perm}", a, perm))
    if args.only:
        rows = [r for r in rows if args.only in r[0]]
    for threads in [int(t) for t in args.threads.split(",")]:
        fi.set_num_threads(threads)
        torch.set_num_threads(threads)
        print(
            f"== {threads} thread(s); share of the same-run contiguous copy, best of {args.repeat}"
        )
        print(f"{'row':60s} {'ferroiter':>9s} {'torch':>7s} {'numpy':>7s} {'copyGB/s':>8s}")
        perm_shares: dict[str, list[float]] = {"ferroiter": [], "torch": [], "numpy": []}
        for name, a, perm in rows:
            r = measure(a, perm, args.repeat)
            print(
                f"{name[:60]:60s} {r['ferroiter']:9.2f} {r['torch']:7.2f} {r['numpy']:7.2f} "
                f"{r['copy_GBps']:8.1f}",
                flush=True,
            )
            if name.startswith("perm"):
                for k in perm_shares:
                    perm_shares[k].append(r[k])
        if perm_shares["ferroiter"]:
            med = {k: statistics.median(v) for k, v in perm_shares.items()}
            worst = {k: min(v) for k, v in perm_shares.items()}
            print(
                f"{'permutations median':60s} {med['ferroiter']:9.2f} {med['torch']:7.2f} "
                f"{med['numpy']:7.2f}"
            )
            print(
                f"{'permutations worst':60s} {worst['ferroiter']:9.2f} {worst['torch']:7.2f} "
                f"{worst['numpy']:7.2f}"
            )


if __name__ == "__main__":
    main()
