"""`FERROITER_CPU_CAPABILITY` pins the vector level the kernels run (torch's
`ATEN_CPU_CAPABILITY`: default, avx2, avx512), and every level gives the same bits (float
matmul: avx2 and avx512, whose GEMM kernels agree; at default `matrixmultiply` runs it).

Each level runs in its own process (the level is read once per process): the vector math,
float sums, means, cumsums, amax and amin (ties of ±0), and the layout copies with their own
AVX2 and AVX-512 kernels (transposes, permutations, channels_last) are computed there and
saved; the results must
equal the baseline build's byte for byte (and the copies numpy's)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import ferroiter as fi

LEVELS = ["default", "avx2", "avx512"]

PROBE = textwrap.dedent(
    """
    import sys
    import numpy as np
    import ferroiter as fi

    rng = np.random.default_rng(7)
    out = {"capability": np.array(fi._ferroiter._build_info()["cpu_capability"])}
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, -1e-310, 1e-40, 3e38, -3e38,
                88.7, -103.9, 709.8, -745.2, 1e6, -1e6, 1e22, 2.5e15]
    for dtype in ("float32", "float64"):
        x = np.concatenate([rng.normal(0, 30, 4099), rng.uniform(-1, 1, 1001),
                            np.array(specials)]).astype(dtype)
        pos = np.abs(x)
        for name in ("exp", "expm1", "log", "log1p", "sin", "cos", "tanh", "sigmoid"):
            arg = pos if name in ("log",) else x
            with np.errstate(all="ignore"):
                out[f"{name} {dtype}"] = getattr(fi, name)(fi.asarray(arg)).numpy()
        big = rng.normal(0, 1, 200_003).astype(dtype)
        out[f"sum {dtype}"] = fi.sum(fi.asarray(big)).numpy()
        out[f"mean {dtype}"] = fi.mean(fi.asarray(big)).numpy()
        grid = fi.asarray(big[:200_000].reshape(400, 500))
        out[f"sum dim0 {dtype}"] = grid.sum(0).numpy()
        out[f"sum dim1 {dtype}"] = grid.sum(1).numpy()
        out[f"cumsum {dtype}"] = fi.cumsum(fi.asarray(big), 0).numpy()
        # products: 12 and 20 columns are transposed by one GEMM kernel only, 1 column is
        # the matrix-vector loop
        left = fi.asarray(big[:70 * 600].reshape(70, 600))
        for cols in (45, 20, 12, 1):
            right = fi.asarray(big[-600 * cols:].reshape(600, cols))
            out[f"matmul {cols} {dtype}"] = (left @ right).numpy()
        # ties of -0.0 and 0.0, and NaNs: the first one wins, in the lanes' order
        ties = np.round(big / 4)
        ties[1000::7919] = np.nan
        for name in ("amax", "amin"):
            f = getattr(fi, name)
            out[f"{name} {dtype}"] = f(fi.asarray(np.round(big / 4))).numpy()
            out[f"{name} nan {dtype}"] = f(fi.asarray(ties)).numpy()
            rows = fi.asarray(ties[:200_000].reshape(400, 500))
            out[f"{name} dim1 {dtype}"] = f(rows, 1).numpy()
        # 64 chunks (amax/amin four chunks side by side, in explicit vectors with AVX2):
        # zeros of both signs as the largest (smallest), then a NaN in one chunk
        zeros = np.round(-np.abs(rng.normal(0, 1, 64 * 32768 + 5)) / 4).astype(dtype)
        zeros[np.flatnonzero(zeros == 0)[::3]] = 0.0
        for name, sign in (("amax", 1), ("amin", -1)):
            f = getattr(fi, name)
            out[f"{name} zeros {dtype}"] = f(fi.asarray(sign * zeros)).numpy()
            with_nan = sign * zeros
            with_nan[37 * 32768 + 11] = np.nan
            out[f"{name} zeros nan {dtype}"] = f(fi.asarray(with_nan)).numpy()
    for dtype in ("float32", "float64", "int16"):
        a = (rng.normal(0, 100, (3, 37, 41, 19))).astype(dtype)
        t = fi.asarray(a)
        out[f"transpose {dtype}"] = t.reshape((111, 779)).T.contiguous().numpy()
        out[f"permute {dtype}"] = t.permute((3, 1, 0, 2)).contiguous().numpy()
        out[f"channels_last {dtype}"] = (
            t.contiguous(fi.channels_last).permute((0, 2, 3, 1)).contiguous().numpy())
        out[f"numpy transpose {dtype}"] = a.reshape(111, 779).T.copy()
        out[f"numpy permute {dtype}"] = a.transpose(3, 1, 0, 2).copy()
        out[f"numpy channels_last {dtype}"] = a.transpose(0, 2, 3, 1).copy()
    np.savez(sys.argv[1], **out)
    """
)


def _run_at(level: str | None, path: Path) -> dict[str, np.ndarray]:
    env = dict(os.environ)
    env.pop("FERROITER_CPU_CAPABILITY", None)
    if level is not None:
        env["FERROITER_CPU_CAPABILITY"] = level
    subprocess.run([sys.executable, "-c", PROBE, str(path)], env=env, timeout=120, check=True)
    with np.load(path) as saved:
        return {k: saved[k] for k in saved.files}


def test_every_level_gives_the_same_bits(tmp_path: Path) -> None:
    detected = fi._ferroiter._build_info()["cpu_capability_detected"]
    runs = {level: _run_at(level, tmp_path / f"{level}.npz") for level in LEVELS}
    # a level above the CPU's is capped at the CPU's
    reached = LEVELS[: LEVELS.index(detected) + 1] if detected in LEVELS else ["default"]
    for level, results in runs.items():
        expected = level if level in reached else reached[-1]
        assert str(results.pop("capability")) == expected
    for level in LEVELS[1:]:
        for key, value in runs[level].items():
            # float matmul: the AVX2 and AVX-512 GEMMs agree; `default` runs matrixmultiply
            base = runs["avx2" if key.startswith("matmul") else "default"][key]
            assert value.dtype == base.dtype and value.shape == base.shape, key
            assert value.tobytes() == base.tobytes(), f"{key} differs at {level}"
    base = runs["default"]
    # and the copies are numpy's
    for key in ("transpose", "permute", "channels_last"):
        for dtype in ("float32", "float64", "int16"):
            got, want = base[f"{key} {dtype}"], base[f"numpy {key} {dtype}"]
            assert got.dtype == want.dtype and got.shape == want.shape, key
            assert got.tobytes() == want.tobytes(), f"{key} {dtype}"


def test_a_bad_value_is_ignored_with_a_warning() -> None:
    env = dict(os.environ, FERROITER_CPU_CAPABILITY="avx1024")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import ferroiter as fi; "
            "b = fi._ferroiter._build_info(); "
            "print(b['cpu_capability'], b['cpu_capability_detected'])",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    used, detected = done.stdout.split()
    assert used == detected
    assert 'ignoring FERROITER_CPU_CAPABILITY="avx1024"' in done.stderr


@pytest.mark.parametrize("level", ["default", "avx2"])
def test_show_config_tells_the_pinned_level(level: str) -> None:
    env = dict(os.environ, FERROITER_CPU_CAPABILITY=level)
    done = subprocess.run(
        [sys.executable, "-c", "import ferroiter as fi; fi.show_config()"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    line = next(x for x in done.stdout.splitlines() if "CPU capability used" in x)
    detected = fi._ferroiter._build_info()["cpu_capability_detected"]
    assert line.split()[3] == (level if LEVELS.index(level) <= LEVELS.index(detected) else detected)
