"""Concurrency beyond test_threads.py's elementwise contention (issue 13): reductions, scans and
conversions on shared inputs from many Python threads give the one-thread results bit for bit;
`set_num_threads` changing while reductions run; a view used on one thread while its base
(an Array, a numpy array, a torch tensor) is dropped on another; and the GIL is released during
long loops (another Python thread makes progress in the middle of one op)."""

from __future__ import annotations

import gc
import threading
import time
from functools import partial

import numpy as np
import torch

import ferroiter as fi

from harness import parallelism

SMALL_GRAIN = 16


def _inputs() -> list[fi.Array]:
    rng = np.random.default_rng(5)
    base = rng.standard_normal((37, 41)).astype(np.float32)
    ints = rng.integers(-50, 50, (33, 29)).astype(np.int64)
    return [
        fi.from_numpy(base),
        fi.from_numpy(base).transpose(0, 1),  # strided input
        fi.from_numpy(base)[::-2, 3:],  # negative strides
        fi.from_numpy(ints),
    ]


def _work(x: fi.Array) -> list[np.ndarray]:
    """Reductions, scans and conversions of `x` (each split in chunks under SMALL_GRAIN)."""
    floating = x.dtype.kind == "f"
    results = [
        x.sum(),
        x.sum(0),
        x.amax(1),
        x.argmin(0),
        x.prod(1, dtype="float64"),
        x.any(1),
        x.count_nonzero(0),
        x.cumsum(1),
        x.contiguous(),
        x.to("float64"),
        x.to("int8") if floating else x.to("float16"),
        x.clone(memory_format=fi.preserve_format),
    ]
    if floating:
        results += [x.mean(0), x.std(1), x.var()]
    return [r.numpy().copy() for r in results] + [np.asarray(x.tolist())]


def _same(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def _run_threads(target, count: int) -> list[str]:
    failures: list[str] = []

    def wrapped(worker: int) -> None:
        try:
            target(worker)
        except Exception as e:  # noqa: BLE001 - every failure is reported
            failures.append(f"thread {worker}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=wrapped, args=(w,)) for w in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return failures


def test_reductions_and_conversions_from_many_threads_match_one_thread():
    """6 Python threads x 40 rounds of reductions, scans and conversions on shared inputs,
    under a tiny grain on the pool: every result equals the single-thread one, bit for bit,
    and the shared inputs are unchanged."""
    inputs = _inputs()
    before = [x.numpy().copy() for x in inputs]
    with parallelism(1, None):
        serial = [_work(x) for x in inputs]
    # spot-check the oracle itself against torch (the suites test all of them)
    t = torch.from_numpy(inputs[0].numpy())
    np.testing.assert_array_equal(serial[0][2], t.amax(1).numpy())
    np.testing.assert_array_equal(serial[0][3], t.argmin(0).numpy())

    def hammer(worker: int) -> None:
        for i in range(40):
            k = (i + worker) % len(inputs)
            _same(_work(inputs[k]), serial[k])

    with parallelism(2, SMALL_GRAIN):
        assert _run_threads(hammer, 6) == []
    for x, b in zip(inputs, before, strict=True):
        np.testing.assert_array_equal(x.numpy(), b)


def test_set_num_threads_changing_while_reductions_run():
    """Reductions keep their single-thread bits while another thread keeps changing the thread
    count and the grain size."""
    inputs = _inputs()
    with parallelism(1, None):
        serial = [_work(x) for x in inputs]
    stop = threading.Event()

    def loops(worker: int) -> None:
        i = 0
        while not stop.is_set() or i < 3:
            k = (i + worker) % len(inputs)
            _same(_work(inputs[k]), serial[k])
            i += 1

    with parallelism(2, SMALL_GRAIN):
        failures: list[str] = []
        runner = threading.Thread(target=lambda: failures.extend(_run_threads(loops, 3)))
        runner.start()
        try:
            for i in range(150):
                fi.set_num_threads(1 + i % 4)
                fi.set_grain_size([SMALL_GRAIN, 1, 1000, fi.GRAIN_SIZE][i % 4])
                time.sleep(0.001)
        finally:
            stop.set()
            runner.join()
    assert failures == []


def test_a_view_outlives_its_base_dropped_on_another_thread():
    """Views made from an Array, a numpy array and a torch tensor are read on one thread while
    their bases are deleted (and garbage collected) on another: the views keep the memory and
    their values."""
    for round_ in range(8):
        ndarray = np.arange(4096, dtype=np.float64).reshape(64, 64)
        tensor = torch.arange(4096, dtype=torch.float32).reshape(64, 64)
        parent = fi.arange(4096, dtype="int64").reshape(64, 64)
        holders = {
            "numpy": [ndarray, fi.from_numpy(ndarray)],
            "torch": [tensor, fi.from_dlpack(tensor)],
            "array": [parent],
        }
        views = {
            "numpy": holders["numpy"][1][::-3, 1::2].transpose(0, 1),
            "torch": holders["torch"][1][5:, ::7],
            "array": parent[::2].transpose(0, 1)[3:],
        }
        want = {k: v.numpy().copy() for k, v in views.items()}
        del ndarray, tensor, parent
        ready = threading.Event()

        def drop(ready=ready, holders=holders) -> None:
            ready.wait()
            for k in list(holders):
                holders[k].clear()
            gc.collect()

        dropper = threading.Thread(target=drop)
        dropper.start()
        ready.set()
        for _ in range(30):
            for k, v in views.items():
                np.testing.assert_array_equal(v.numpy(), want[k], err_msg=f"{k} round {round_}")
                np.testing.assert_array_equal((v + 0).numpy(), want[k])
        dropper.join()
        for k, v in views.items():
            np.testing.assert_array_equal(v.contiguous().numpy(), want[k])


def _progress_during(op) -> tuple[int, float]:
    """Runs `op` while another Python thread counts loop turns; returns how many turns fell in
    the middle 80% of the op's run and the op's duration."""
    stamps: list[float] = []
    stop = threading.Event()

    def ticker() -> None:
        while not stop.is_set():
            stamps.append(time.perf_counter())

    thread = threading.Thread(target=ticker)
    thread.start()
    time.sleep(0.02)  # the ticker is running
    start = time.perf_counter()
    op()
    end = time.perf_counter()
    stop.set()
    thread.join()
    lo, hi = start + 0.1 * (end - start), end - 0.1 * (end - start)
    return sum(lo < s < hi for s in stamps), end - start


def test_the_gil_is_released_during_long_loops():
    """Another Python thread runs in the middle of one long elementwise op, one reduction, one
    scan and one layout conversion: each releases the GIL around its loop. (A loop holding the
    GIL would leave no turn of the ticker inside it: Python switches threads only between
    bytecodes of a thread that holds the GIL.)"""
    ops = {
        "sin": lambda big: fi.sin(big),
        "std": lambda big: big.std(),
        "cumsum": lambda big: big.cumsum(0),
        "transpose copy": lambda big: big.reshape(-1, 2048).transpose(0, 1).contiguous(),
    }
    with parallelism(1, None):
        for name, op in ops.items():
            best, size = (0, 0.0), 1 << 22
            for _ in range(6):
                big = fi.from_numpy(np.linspace(0, 1, size, dtype=np.float64))
                turns, took = _progress_during(partial(op, big))
                best = max(best, (turns, took))
                if turns > 0:
                    break
                # A loaded machine may not give the ticker a time slice within a short op:
                # try a longer one (up to 2^26 elements) before calling it a held GIL.
                if took < 0.05 and size < 1 << 26:
                    size *= 2
            assert best[0] > 0, f"{name}: no other Python thread ran during {best[1]:.3f} s"
