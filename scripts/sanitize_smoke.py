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
