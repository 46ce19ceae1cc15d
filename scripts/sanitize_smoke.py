"""A torch-free workout of ferroiter for memory checkers (scripts/sanitize.sh runs it under
valgrind): every elementwise op, the reductions, scans, conversions and interop paths over
random layouts (negative, zero and overlapping strides, offsets, empty and 0-d arrays), plus a
set of inputs that must be refused. Prints a summary; exits non-zero on a wrong answer."""

from __future__ import annotations

import sys
import warnings

import numpy as np

import ferroiter as fi

DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


def layouts(rng: np.random.Generator, dtype: str):
    """A few strided numpy views of random values."""
    base = (rng.standard_normal(400) * 5).astype(dtype if dtype != "bool" else "float32")
    base = base.astype(dtype)
    yield base[:24].reshape(2, 3, 4)
    yield base[:24].reshape(2, 3, 4).transpose(2, 0, 1)
    yield base[::-3][:20].reshape(4, 5)
    yield np.lib.stride_tricks.as_strided(base, (5, 6), (base.itemsize, 2 * base.itemsize))
    yield np.broadcast_to(base[:6], (3, 6))
    yield base[:0].reshape(0, 3)
    yield base[5:6].reshape(())
    yield base[7:300:7]


def second_round(a: fi.Array, nd: np.ndarray) -> int:
    """The sorting, gathering, shape and matrix functions over one layout (their line-wise
    reads and GEMM take raw strides); numpy checks where it has the same function."""
    calls = 0
    if a.ndim == 0:
        return calls
    ordered = nd.dtype.kind not in "cb"
    if ordered:
        np.testing.assert_array_equal(fi.sort(a, -1).values.numpy(), np.sort(nd, -1))
        fi.argsort(a, 0)
        fi.unique(a)
        fi.unique(a, dim=0) if nd.size else None
        fi.searchsorted(fi.sort(a, -1).values, a)
        calls += 5
    np.testing.assert_array_equal(fi.nonzero(a).numpy(), np.argwhere(nd))
    np.testing.assert_array_equal(fi.flip(a, (0,)).numpy(), np.flip(nd, 0))
    np.testing.assert_array_equal(fi.roll(a, 2, 0).numpy(), np.roll(nd, 2, 0))
    np.testing.assert_array_equal(fi.tile(a, (2,)).numpy(), np.tile(nd, 2))
    np.testing.assert_array_equal(fi.repeat_interleave(a, 2, 0).numpy(), np.repeat(nd, 2, 0))
    np.testing.assert_array_equal(fi.cat([a, a], 0).numpy(), np.concatenate([nd, nd], 0))
    np.testing.assert_array_equal(fi.stack([a, a], -1).numpy(), np.stack([nd, nd], -1))
    index = fi.asarray([0, a.shape[0] - 1] if a.shape[0] else [], dtype="int64")
    np.testing.assert_array_equal(fi.index_select(a, 0, index).numpy(), nd[index.numpy()])
    if nd.size:
        np.testing.assert_array_equal(fi.take(a, fi.asarray([0, -1])).numpy(), nd.ravel()[[0, -1]])
    if a.shape[0]:  # (an empty dim: torch's index % size raises ZeroDivisionError, as here)
        fi.take_along_dim(a, fi.zeros((1,) * a.ndim, dtype="int64"), 0)
    if a.ndim >= 2:
        np.testing.assert_array_equal(fi.tril(a).numpy(), np.tril(nd))
        np.testing.assert_array_equal(fi.triu(a, 1).numpy(), np.triu(nd, 1))
        fi.movedim(a, 0, -1)
    fi.unbind(a, 0)
    if nd.dtype.kind not in "b":
        fi.diff(a, dim=0)
        calls += 1
    if nd.dtype.kind in "fc" and nd.dtype.itemsize >= 4:
        m = a if a.ndim >= 2 else a.unsqueeze(0)
        fi.matmul(m, m.mT)
        fi.tensordot(a, a, 1) if a.shape[-1] == a.shape[0] else None
        fi.vecdot(a, a)
        calls += 3
    return calls + 14


def blocked_round() -> int:
    """The same functions on blocked arrays (read as dense copies: they once read the physical
    storage with the logical shape, outside the storage)."""
    x = fi.arange(90.0).reshape(2, 5, 3, 3)
    b = x.contiguous(memory_format=fi.nChw8c)
    for f in [
        lambda y: fi.unique(y),
        lambda y: fi.nonzero(y),
        lambda y: fi.sort(y, 1).values,
        lambda y: fi.matmul(y, y),
        lambda y: fi.take(y, fi.asarray([89])),
        lambda y: fi.tril(y),
        lambda y: fi.searchsorted(y, y),
        lambda y: fi.vecdot(y, y),
        lambda y: fi.flip(y, (1,)),
        lambda y: fi.repeat_interleave(y, 2, 1),
    ]:
        np.testing.assert_array_equal(f(b).numpy(), f(x).numpy())
    return 10


def main() -> int:
    warnings.simplefilter("ignore")  # (degrees of freedom, complex-to-real casts)
    rng = np.random.default_rng(0)
    ops = [row["name"] for row in fi._ferroiter._op_table()]
    done = refused = 0
    for dtype in DTYPES:
        for nd in layouts(rng, dtype):
            a = fi.from_numpy(nd)
            np.testing.assert_array_equal(a.numpy(), nd)
            for name in ops:
                fn = getattr(fi, name)
                try:
                    if name == "where":
                        fn(a != 0, a, 1)
                    elif name == "clamp":
                        fn(a, 0, 1)
                    else:
                        try:
                            fn(a)
                        except TypeError:
                            fn(a, a)
                    done += 1
                except (TypeError, ValueError, IndexError, ZeroDivisionError, RuntimeError):
                    refused += 1
            for red in [
                "sum",
                "prod",
                "mean",
                "amax",
                "amin",
                "argmax",
                "argmin",
                "all",
                "any",
                "std",
                "var",
                "count_nonzero",
            ]:
                for dim in [None, 0, -1]:
                    try:
                        getattr(a, red)() if dim is None else getattr(a, red)(dim)
                        done += 1
                    except (TypeError, ValueError, IndexError, RuntimeError):
                        refused += 1
            for dim in range(a.ndim):
                a.cumsum(dim)
                a.cumprod(dim)
            for target in ["float32", "int64", "bool", "complex128"]:
                np.testing.assert_array_equal(a.to(target).numpy(), nd.astype(target))
            a.contiguous()
            a.tolist()
            if min(a.stride(), default=0) >= 0:  # (negative strides are refused by design)
                np.testing.assert_array_equal(np.from_dlpack(a), nd)
            if nd.flags.writeable:
                np.testing.assert_array_equal(fi.from_dlpack(nd).numpy(), nd)
            memoryview(a.contiguous())
            done += second_round(a, nd)
    done += blocked_round()
    for bad in [
        lambda: fi.zeros(6).as_strided((3, 3), (3, 1)),
        lambda: fi.empty((2**40, 2**40)),
        lambda: fi.zeros(3) + fi.zeros(2),
        lambda: fi.add(fi.ones(3), 1, out=fi.zeros(1).expand(3)),
        lambda: fi.zeros((2, 3)).sum(5),
    ]:
        try:
            bad()
        except (TypeError, ValueError, IndexError, MemoryError, RuntimeError):
            refused += 1
        else:
            print("accepted a bad input", file=sys.stderr)
            return 1
    print(f"sanitize_smoke: {done} calls ran, {refused} refused as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
