"""Panics (issue 13): a panic inside the core — in a chunk of a parallel loop, in a serial
loop, or outside any loop — reaches Python as an ordinary exception carrying the panic's
message, never an abort or pyo3's PanicException (a BaseException that `except Exception`
misses). `ferroiter._ferroiter._panic_in_loop` is the test hook that panics on purpose; no
other path is known to panic (the fuzzers in tests/fuzz_plan.rs and test_fuzz_chains.py look
for one)."""

from __future__ import annotations

import pytest

import ferroiter as fi

from harness import parallelism, run_isolated


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("chunks", [1, 4])
def test_a_panic_in_a_loop_is_a_value_error(threads, chunks):
    with parallelism(threads, None):
        with pytest.raises(ValueError, match="^a parallel loop panicked: chunk exploded$"):
            fi._ferroiter._panic_in_loop("chunk exploded", chunks)
        # the pool still works afterwards
        assert float(fi.ones(100_000).sum()) == 100_000.0


def test_a_panic_outside_loops_is_a_value_error():
    with pytest.raises(ValueError, match=r"^internal error \(a bug in ferroiter\): outside$"):
        fi._ferroiter._panic_in_loop("outside", 0)


def test_a_panic_never_aborts_the_process():
    """In a child: many panics in a row, from several Python threads, leave the process
    running, each an Exception (not a BaseException only)."""
    out = run_isolated(
        """
        import threading
        caught = []
        def worker():
            for i in range(50):
                try:
                    fi._ferroiter._panic_in_loop(f"p{i}", i % 3)
                except Exception as e:
                    caught.append(type(e).__name__)
        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(len(caught), sorted(set(caught)))
        """
    )
    assert out.strip().splitlines()[-1] == "200 ['ValueError']"
