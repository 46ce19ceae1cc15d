"""Instructions per call of small ferroiter (and numpy) calls, counted with callgrind: the
per-call cost of issue 61, measured where wall clocks cannot (the 2-core development VM's
timings of one build moved up to 2x between minutes; one build's counts repeat to a few
instructions).

    python scripts/count_calls.py [--build DIR ...] [CALL ...]

Each call runs 500 and 2000 times in a fresh process under `valgrind --tool=callgrind`; the
difference of the two totals over 1500 is the count per call, Python's own work included
(numpy's rows give the reference). 1 thread, `OPENBLAS_NUM_THREADS=1` (numpy's OpenBLAS
threads spin under valgrind and move the counts by thousands). Valgrind runs the AVX2 paths.

A build is a folder holding a `ferroiter` package (a staged copy of `python/ferroiter`), put
first on `PYTHONPATH`; without `--build`, the installed one. With `--keep DIR` the callgrind
files stay in DIR for `callgrind_annotate --inclusive=yes`: function names need an unstripped
extension (maturin strips its copy: `cargo build --profile quick --features python --lib` and
copy `target/quick/libferroiter.so` over `python/ferroiter/_ferroiter*.so`).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

SETUP = """
import sys
import numpy as np
import ferroiter as fi
import ferroiter.array_api as xp
a1, b1 = fi.asarray(np.ones(1)), fi.asarray(np.ones(1))
a, b = fi.asarray(np.ones(1000)), fi.asarray(np.ones(1000))
c, X, row = fi.asarray(np.ones(1000)), fi.asarray(np.ones((200, 8))), fi.asarray(np.ones(8))
nc, nX, nrow = np.ones(1000), np.ones((200, 8)), np.ones(8)
na1, nb1, na, nb = np.ones(1), np.ones(1), np.ones(1000), np.ones(1000)
A, B = xp.asarray(np.ones(1000)), xp.asarray(np.ones(1000))
S = xp.asarray(np.ones((200, 8)))
"""

#: name -> the statement timed (names from SETUP)
CALLS = {
    "numpy a + b, 1": "na1 + nb1",
    "numpy a + b, 1000": "na + nb",
    "a + b, 1": "a1 + b1",
    "a + b, 1000": "a + b",
    "a * 2, 1000": "a * 2",
    "2 - a, 1000": "2 - a",
    "a < b, 1000": "a < b",
    "numpy a += 2, 1000": "na.__iadd__(2)",
    "a += 2, 1000": "c.__iadd__(2)",
    "a += b, 1000": "c.__iadd__(b)",
    "add(a, b, out=c), 1000": "fi.add(a, b, out=c)",
    "numpy X - row, (200, 8)": "nX - nrow",
    "X - row, (200, 8)": "X - row",
    "sqrt(a), 1000": "fi.sqrt(a)",
    "sum(a), 1000": "fi.sum(a)",
    "namespace A + B, 1000": "A + B",
    "namespace A * 2, 1000": "A * 2",
    "namespace sum(S, axis=0), (200, 8)": "xp.sum(S, axis=0)",
    "namespace var(S, axis=0), (200, 8)": "xp.var(S, axis=0)",
}

PROGRAM = SETUP + "\n".join(
    [
        "exec(f'def call():\\n    return {sys.argv[1]}')",
        "for _ in range(2 + int(sys.argv[2])):",
        "    call()",
    ]
)


def collected(stmt: str, n: int, build: str | None, keep: Path | None, tag: str) -> int:
    """Instructions of the whole process running `stmt` `n` times."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", FERROITER_NUM_THREADS="1")
    if build:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [build, env.get("PYTHONPATH")]))
    out = str(keep / f"callgrind.{tag}.{n}") if keep else os.devnull
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    cmd += [sys.executable, "-c", PROGRAM, stmt, str(n)]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    match = re.search(r"Collected : (\d+)", run.stderr)
    if not match:
        raise RuntimeError(f"no callgrind total for {stmt!r}:\n{run.stderr[-2000:]}")
    return int(match.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("calls", nargs="*", help=f"names or statements (default: {len(CALLS)})")
    parser.add_argument("--build", action="append", help="a folder holding a ferroiter package")
    parser.add_argument("--keep", type=Path, help="keep the callgrind files in this folder")
    args = parser.parse_args()
    calls = {c: CALLS.get(c, c) for c in args.calls} if args.calls else CALLS
    builds = args.build or [None]
    keep = args.keep
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    for name, stmt in calls.items():
        counts = []
        for i, build in enumerate(builds):
            tag = f"{i}.{re.sub(r'[^A-Za-z0-9]+', '_', name)}"
            lo, hi = (collected(stmt, n, build, keep, tag) for n in (500, 2000))
            counts.append((hi - lo) // 1500)
        print(f"{name:40s} " + "  ".join(f"{c:8,d}" for c in counts), flush=True)


if __name__ == "__main__":
    main()
