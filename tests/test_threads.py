"""The thread pool and its settings: loops from many Python threads at once give the serial
results (and torch's), the thread count comes from FERROITER_NUM_THREADS, then OMP_NUM_THREADS,
then the process's CPU affinity, `set_num_threads` may change under load, and a forked child
can run parallel loops."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import ferroiter as fi

from harness import parallelism

SMALL_GRAIN = 16


def _operands(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal(n).astype(np.float32),
        rng.standard_normal(n).astype(np.float32),
    )


def _ops(a: fi.Array, b: fi.Array, out: fi.Array) -> list[np.ndarray]:
    """A few small ops, each split into several chunks under SMALL_GRAIN."""
    fi.add(a, b, out=out)
    return [
        out.numpy().copy(),
        fi.mul(a, b).numpy(),
        fi.exp(a).numpy(),
        fi.sigmoid(b).numpy(),
        fi.maximum(a, b).numpy(),
    ]


def _torch_ops(a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    return [
        torch.add(ta, tb).numpy(),
        torch.mul(ta, tb).numpy(),
        torch.exp(ta).numpy(),
        torch.sigmoid(tb).numpy(),
        torch.maximum(ta, tb).numpy(),
    ]


def _same(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_dispatch_under_contention():
    """4 Python threads x 1,000 loops of small ops with a tiny grain (every op split among the
    pool's threads, loops started from several threads at once): every result equals the
    serial result, bit for bit."""
    sizes = [37, 100, 257]
    inputs = [_operands(n, seed) for seed, n in enumerate(sizes)]
    arrays = [(fi.from_numpy(a), fi.from_numpy(b)) for a, b in inputs]
    with parallelism(1, None):
        serial = [_ops(a, b, fi.empty(a.shape, dtype="float32")) for a, b in arrays]
    for want, (a, b) in zip(serial, inputs, strict=True):
        theirs = _torch_ops(a, b)  # exp and sigmoid are compared with torch in test_ops.py
        _same([want[0], want[1], want[4]], [theirs[0], theirs[1], theirs[4]])

    failures: list[str] = []

    def hammer(worker: int) -> None:
        outs = [fi.empty(a.shape, dtype="float32") for a, _ in arrays]
        try:
            for i in range(1000):
                k = (i + worker) % len(arrays)
                a, b = arrays[k]
                _same(_ops(a, b, outs[k]), serial[k])
        except AssertionError as e:  # pragma: no cover - reported below
            failures.append(f"thread {worker}: {e}")

    with parallelism(max(2, fi.get_num_threads()), SMALL_GRAIN):
        threads = [threading.Thread(target=hammer, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == []


def test_set_num_threads_under_load():
    """Loops keep giving the serial results while another thread changes the thread count."""
    a, b = _operands(300, 7)
    fa, fb = fi.from_numpy(a), fi.from_numpy(b)
    want = _torch_ops(a, b)
    stop = threading.Event()
    failures: list[str] = []

    def loops() -> None:
        out = fi.empty((300,), dtype="float32")
        try:
            while not stop.is_set():
                got = _ops(fa, fb, out)
                np.testing.assert_array_equal(got[0], want[0])
                np.testing.assert_array_equal(got[1], want[1])
                np.testing.assert_array_equal(got[4], want[4])
        except AssertionError as e:  # pragma: no cover - reported below
            failures.append(str(e))

    with parallelism(2, SMALL_GRAIN):
        workers = [threading.Thread(target=loops) for _ in range(2)]
        for t in workers:
            t.start()
        try:
            for i in range(200):
                fi.set_num_threads(1 + i % 4)
                assert fi.get_num_threads() == 1 + i % 4
                time.sleep(0.0005)
        finally:
            stop.set()
            for t in workers:
                t.join()
    assert failures == []


@given(
    n=st.integers(1, 3000),
    grain=st.integers(1, 600),
    threads=st.integers(1, 6),
    seed=st.integers(0, 2**16),
)
def test_any_split_gives_torchs_values(n, grain, threads, seed):
    """Whatever the grain and thread count, elementwise results are torch's, bit for bit."""
    a, b = _operands(n, seed)
    fa, fb = fi.from_numpy(a), fi.from_numpy(b)
    with parallelism(threads, grain):
        got = _ops(fa, fb, fi.empty((n,), dtype="float32"))
    want = _torch_ops(a, b)
    for i in (0, 1, 4):
        np.testing.assert_array_equal(got[i], want[i])


@pytest.mark.parametrize("name", ["set_num_threads", "set_grain_size"])
@pytest.mark.parametrize("value", [0, -3])
def test_non_positive_counts_are_refused(name, value):
    """torch.set_num_threads's message; the setting in force is unchanged."""
    with pytest.raises(RuntimeError) as theirs:
        torch.set_num_threads(value)
    before = fi.get_num_threads(), fi.get_grain_size()
    with pytest.raises(ValueError) as mine:
        getattr(fi, name)(value)
    assert str(mine.value) == str(theirs.value).replace("set_num_threads", name)
    assert (fi.get_num_threads(), fi.get_grain_size()) == before


# ---- the thread count from the environment -----------------------------------------------------

_PROBE = "import ferroiter as fi; print(fi.get_num_threads())"


def _threads_in_child(env: dict[str, str], prefix: list[str] | None = None) -> tuple[int, str]:
    clean = {
        k: v for k, v in os.environ.items() if k not in ("FERROITER_NUM_THREADS", "OMP_NUM_THREADS")
    }
    clean.update(env)
    done = subprocess.run(
        [*(prefix or []), sys.executable, "-c", _PROBE],
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return int(done.stdout.strip()), done.stderr


def test_threads_from_the_environment():
    assert _threads_in_child({"FERROITER_NUM_THREADS": "3"})[0] == 3
    assert _threads_in_child({"OMP_NUM_THREADS": "5"})[0] == 5
    # OpenMP's nested list: the first level counts
    assert _threads_in_child({"OMP_NUM_THREADS": "6,2"})[0] == 6
    # ferroiter's own variable wins over OpenMP's
    assert _threads_in_child({"FERROITER_NUM_THREADS": "2", "OMP_NUM_THREADS": "7"})[0] == 2


def test_bad_values_are_ignored_with_a_warning():
    """A value that is not a positive integer is ignored, as OpenMP runtimes do, with a
    message on stderr; the next source decides."""
    threads, err = _threads_in_child({"FERROITER_NUM_THREADS": "zero", "OMP_NUM_THREADS": "4"})
    assert threads == 4
    assert 'ferroiter: ignoring FERROITER_NUM_THREADS="zero": expected a positive integer' in err
    threads, err = _threads_in_child({"OMP_NUM_THREADS": "0"})
    assert 'ignoring OMP_NUM_THREADS="0"' in err
    assert threads == _threads_in_child({})[0]


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity API")
def test_default_is_the_cores_the_process_may_use():
    """Without the variables: the process's CPU affinity (taskset), not the machine's cores."""
    default, _ = _threads_in_child({})
    assert 1 <= default <= len(os.sched_getaffinity(0))
    if shutil.which("taskset") is None:
        pytest.skip("taskset is not installed")
    cpu = min(os.sched_getaffinity(0))
    assert _threads_in_child({}, ["taskset", "-c", str(cpu)])[0] == 1


# ---- fork -------------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_runs_parallel_loops():
    """The parent's pool has live workers when it forks; the child, which has none of them,
    runs parallel loops with a pool of its own instead of waiting for the parent's."""
    a, b = _operands(500, 3)
    fa, fb = fi.from_numpy(a), fi.from_numpy(b)
    want = _torch_ops(a, b)
    with parallelism(2, SMALL_GRAIN):
        _same(_ops(fa, fb, fi.empty((500,), dtype="float32"))[:2], want[:2])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads running
            pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 1
            try:
                for _ in range(20):
                    got = _ops(fa, fb, fi.empty((500,), dtype="float32"))
                    _same([got[0], got[1], got[4]], [want[0], want[1], want[4]])
                code = 0
            finally:
                os._exit(code)
        deadline = time.monotonic() + 60
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                pytest.fail("the forked child hung")
            time.sleep(0.01)
        assert os.waitstatus_to_exitcode(status) == 0
