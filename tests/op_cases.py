"""Building blocks of the operation suites (test_ops.py, test_copy.py): random values per
dtype, operand layouts built identically in torch and ferroiter, and value comparisons that
are bit-exact or within a number of ulps of the result's own dtype.

An operand is a recipe (`Operand`): logical shape, dtype, layout and a seed. `build()` makes a
torch tensor with those values and strides and ferroiter's view of the same memory; building
a recipe twice gives two tensors with equal values and strides but separate memory (what the
in-place and out= tests need, since both sides write).
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import ferroiter as fi
import ml_dtypes
import numpy as np
import torch
from differential import NUMPY_OF, TORCH_DTYPES, expected_kind, share, torch_to_numpy
from hypothesis import settings
from hypothesis import strategies as st

FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
COMPLEX = (torch.complex64, torch.complex128)
INTS = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
REDUCED = (torch.float16, torch.bfloat16)


def scaled(ci_examples: int) -> int:
    """`ci_examples` under the "ci" profile (150 examples), proportionally more under
    "nightly"."""
    return max(1, ci_examples * settings.default.max_examples // 150)


@contextlib.contextmanager
def parallelism(threads: int, grain: int | None):
    """ferroiter runs with `threads` threads and grain size `grain` (None: the default),
    restored afterwards."""
    saved = fi.get_num_threads(), fi.get_grain_size()
    fi.set_num_threads(threads)
    fi.set_grain_size(grain if grain is not None else fi.GRAIN_SIZE)
    try:
        yield
    finally:
        fi.set_num_threads(saved[0])
        fi.set_grain_size(saved[1])


# ---------------------------------------------------------------------------------------------
# values

SPECIALS = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-42, 6e-8, 65504.0, 1e5, 3e38, 1e300, -1e300],
    dtype=np.float64,
)


def _float_values(
    n: int, rng: np.random.Generator, special: bool, moderate: bool = False
) -> np.ndarray:
    kind = rng.integers(0, 4, n)
    normal = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 1 if moderate else 3, n)
    small = rng.integers(-8, 9, n) / rng.choice([1.0, 2.0, 4.0], n)  # ties for round/floor
    out = np.where(kind <= 1, normal, small)
    if special:
        out = np.where((kind == 3) & (rng.random(n) < 0.4), rng.choice(SPECIALS, n), out)
    return out


def _int_values(n: int, rng: np.random.Generator, dtype: torch.dtype) -> np.ndarray:
    info = torch.iinfo(dtype)
    # INT_MIN of 32/64-bit ints is left out: its floor division by -1 traps in torch's kernel.
    lo = info.min + 1 if info.bits >= 32 else info.min
    wide = rng.integers(lo, info.max, n, endpoint=True, dtype=np.int64)
    small = np.clip(rng.integers(-9, 10, n), lo, info.max)
    return np.where(rng.random(n) < 0.6, small, wide)


def random_values(
    shape, dtype: torch.dtype, rng: np.random.Generator, *, special: bool = True
) -> torch.Tensor:
    """A contiguous tensor of random values of `dtype`: small integers, halves and quarters,
    normal values of several magnitudes and (floats, if `special`) zeros of both signs,
    infinities, NaN, subnormals and values beyond float16's range."""
    shape = tuple(shape)
    n = math.prod(shape)
    if dtype == torch.bool:
        return torch.from_numpy(rng.random(n) < 0.5).reshape(shape)
    if dtype in INTS:
        return torch.from_numpy(_int_values(n, rng, dtype)).to(dtype).reshape(shape)
    if dtype in COMPLEX:
        # without special values, complex parts stay moderate (|x| < 40): transcendental
        # functions of huge or infinite parts are implementation-specific (see test_ops.py)
        moderate = not special
        re = _float_values(n, rng, special, moderate)
        im = _float_values(n, rng, special, moderate)
        return torch.complex(torch.from_numpy(re), torch.from_numpy(im)).to(dtype).reshape(shape)
    return torch.from_numpy(_float_values(n, rng, special)).to(dtype).reshape(shape)


def nonzero_ints(t: torch.Tensor) -> torch.Tensor:
    """`t` with zeros replaced by 1 (integer divisors that do not raise ZeroDivisionError)."""
    if t.dtype in INTS or t.dtype == torch.bool:
        return torch.where(t == 0, torch.ones((), dtype=t.dtype), t)
    return t


# ---------------------------------------------------------------------------------------------
# layouts


@dataclass(frozen=True)
class Layout:
    """How an operand of a given shape sits in memory: the storage order of its base (a
    permutation, or a memory format), a slice start and step per dim, and the dims that are
    broadcast with stride 0 (`expanded`)."""

    order: tuple[int, ...] = ()  # dims from slowest to fastest in the base's memory
    fmt: str | None = None  # "channels_last" / "channels_last_3d" for the base
    starts: tuple[int, ...] = ()
    steps: tuple[int, ...] = ()
    expanded: tuple[bool, ...] = ()
    leading: int = 0  # leading dims that do not exist in the base (expand adds them)


CONTIGUOUS = Layout()


@st.composite
def layouts(draw, shape, allow_expanded: bool = True) -> Layout:
    """A random layout for an operand of `shape`: contiguous, channels_last(_3d), permuted,
    sliced with steps, expanded, or several of these at once."""
    n = len(shape)
    kinds = ["contiguous", "permuted", "sliced", "mixed"]
    if n == 4:
        kinds.append("channels_last")
    if n == 5:
        kinds.append("channels_last_3d")
    if allow_expanded:
        kinds.append("expanded")
    kind = draw(st.sampled_from(kinds))
    if kind == "contiguous" or n == 0:
        return CONTIGUOUS
    if kind.startswith("channels_last"):
        return Layout(fmt=kind)
    order = tuple(range(n))
    starts, steps, expanded, leading = (0,) * n, (1,) * n, (False,) * n, 0
    if kind in ("permuted", "mixed"):
        order = tuple(draw(st.permutations(range(n))))
    if kind in ("sliced", "mixed"):
        steps = tuple(draw(st.sampled_from([1, 1, 2, 3])) for _ in range(n))
        starts = tuple(draw(st.integers(0, 2)) for _ in range(n))
    if kind in ("expanded", "mixed") and allow_expanded:
        expanded = tuple(draw(st.booleans()) and draw(st.booleans()) for _ in range(n))
        if kind == "expanded" and not any(expanded):
            expanded = tuple(d == 0 for d in range(n))
        leading = draw(st.integers(0, n)) if kind == "expanded" else 0
    return Layout(order, None, starts, steps, expanded, leading)


def inverse(perm) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def realize(values_of, shape, layout: Layout) -> torch.Tensor:
    """A tensor of `shape` laid out as `layout`, its base filled by `values_of(base_shape)`."""
    shape = tuple(shape)
    n = len(shape)
    if layout == CONTIGUOUS or n == 0:
        return values_of(shape).contiguous()
    if layout.fmt is not None:
        fmt = getattr(torch, layout.fmt)
        return values_of(shape).contiguous(memory_format=fmt)
    empty = math.prod(shape) == 0
    lead = layout.leading
    base_shape = []
    for d in range(lead, n):
        if layout.expanded[d]:
            base_shape.append(1)
        elif empty:
            base_shape.append(shape[d])
        else:
            base_shape.append(shape[d] * layout.steps[d] + layout.starts[d])
    order = [d - lead for d in layout.order if d >= lead]
    values = values_of(tuple(base_shape))
    # memory in `order` (slowest first), logical dims as in base_shape
    base = values.permute(order).contiguous().permute(inverse(order))
    key = []
    for d in range(lead, n):
        if layout.expanded[d] or empty:
            key.append(slice(None))
        else:
            start, step = layout.starts[d], layout.steps[d]
            key.append(slice(start, start + shape[d] * step, step))
    return base[tuple(key)].expand(shape)


@dataclass(frozen=True)
class Operand:
    """A recipe for one array operand: `build()` makes (ferroiter array, torch tensor) over
    the same memory, the values drawn from `seed`."""

    shape: tuple[int, ...]
    dtype: torch.dtype
    layout: Layout = CONTIGUOUS
    seed: int = 0
    special: bool = True
    nonzero: bool = False

    def tensor(self) -> torch.Tensor:
        rng = np.random.default_rng(self.seed)

        def values_of(shape):
            t = random_values(shape, self.dtype, rng, special=self.special)
            return nonzero_ints(t) if self.nonzero else t

        return realize(values_of, self.shape, self.layout)

    def build(self) -> tuple[fi.Array, torch.Tensor]:
        t = self.tensor()
        if t.numel() == 0:
            return share(t), t
        return fi.from_numpy(torch_to_numpy(t)), t


def fi_dtype(dtype: torch.dtype) -> str:
    return str(NUMPY_OF[dtype])


# ---------------------------------------------------------------------------------------------
# comparing results

_UINT_OF = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _ordered(x: np.ndarray) -> np.ndarray:
    """Float bits as int64 in value order (-0 and +0 both 0, adjacent floats differ by 1)."""
    bits = x.view(_UINT_OF[x.dtype.itemsize]).astype(np.uint64)
    sign = np.uint64(1) << np.uint64(8 * x.itemsize - 1)
    mag = (bits & (sign - np.uint64(1))).astype(np.int64)
    return np.where((bits & sign) != 0, -mag, mag)


def _ordered_distance(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    ox, oy = _ordered(x), _ordered(y)
    same_sign = (ox >= 0) == (oy >= 0)
    near = np.abs(np.where(same_sign, ox - oy, 0)).astype(np.float64)
    far = np.abs(ox).astype(np.float64) + np.abs(oy).astype(np.float64)
    return np.where(same_sign, near, far)


def _real_parts(x: np.ndarray) -> list[np.ndarray]:
    if x.dtype == np.dtype(ml_dtypes.bfloat16):
        return [x]
    if x.dtype.kind == "c":
        return [np.ascontiguousarray(x.real), np.ascontiguousarray(x.imag)]
    return [x]


def ulp_distance(mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Per element, how many representable values of the dtype lie between the two (0 when
    equal, NaN and NaN count as equal, NaN against a number as infinitely far)."""
    shape = mine.shape
    mine, theirs = np.reshape(mine, -1), np.reshape(theirs, -1)
    dist = np.zeros(mine.shape, dtype=np.float64)
    for x, y in zip(_real_parts(mine), _real_parts(theirs), strict=True):
        x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
        nan_x, nan_y = np.isnan(x.astype(np.float64)), np.isnan(y.astype(np.float64))
        d = _ordered_distance(x, y)
        d = np.where(nan_x & nan_y, 0.0, np.where(nan_x | nan_y, np.inf, d))
        dist = np.maximum(dist, d)
    return dist.reshape(shape)


def _same_bits(mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Per element: the same bits, or both NaN (payloads may differ); -0 differs from +0."""
    if mine.dtype.kind not in "fcV" and mine.dtype != np.dtype(ml_dtypes.bfloat16):
        return mine == theirs
    ok = np.ones(mine.shape, dtype=bool)
    for x, y in zip(_real_parts(mine), _real_parts(theirs), strict=True):
        x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
        bits_x = x.view(_UINT_OF[x.dtype.itemsize])
        bits_y = y.view(_UINT_OF[y.dtype.itemsize])
        both_nan = np.isnan(x.astype(np.float64)) & np.isnan(y.astype(np.float64))
        ok &= (bits_x == bits_y) | both_nan
    return ok


def _close(mine: np.ndarray, theirs: np.ndarray, rtol: float) -> np.ndarray:
    """Complex values whose real and imaginary parts each agree within `rtol` of the larger
    magnitude (equal infinities agree; NaN matches NaN only)."""
    x, y = mine.astype(np.complex128), theirs.astype(np.complex128)
    with np.errstate(invalid="ignore", over="ignore"):
        scale = np.maximum(np.abs(x), np.abs(y))
        ok = np.ones(x.shape, dtype=bool)
        for p, q in ((x.real, y.real), (x.imag, y.imag)):
            nan_p, nan_q = np.isnan(p), np.isnan(q)
            near = (p == q) | (np.abs(p - q) <= rtol * scale)
            ok &= np.where(nan_p | nan_q, nan_p & nan_q, near)
    return ok


#: relative tolerance of complex results that may differ by rounding (division, pow,
#: transcendental functions), per dtype
COMPLEX_RTOL = {np.dtype(np.complex64): 2e-6, np.dtype(np.complex128): 4e-15}


def assert_values(mine: np.ndarray, theirs: np.ndarray, mode: str = "exact", what="") -> None:
    """`mode`: "exact" (same bits; NaN matches NaN, -0 differs from +0), "ulp" / "ulp:N"
    (real floats within 1 / N ulps of their own dtype, complex within COMPLEX_RTOL,
    everything else exact), "complex" (exact for real dtypes, COMPLEX_RTOL for complex),
    "rtol:R" (exact for real dtypes, relative tolerance R for complex) or "nosign0" (exact,
    but +0 and -0 count as equal)."""
    assert mine.shape == theirs.shape, f"{what}shape {mine.shape} != {theirs.shape}"
    assert mine.dtype == theirs.dtype, f"{what}dtype {mine.dtype} != {theirs.dtype}"
    if mine.size == 0:
        return
    shape = mine.shape
    mine = np.ascontiguousarray(mine).reshape(-1)
    theirs = np.ascontiguousarray(theirs).reshape(-1)
    kind = mine.dtype.kind
    is_float = kind == "f" or mine.dtype == np.dtype(ml_dtypes.bfloat16)
    ulps = int(mode.split(":")[1]) if mode.startswith("ulp:") else 1
    if kind == "c" and mode.startswith("rtol:"):
        ok = _close(mine, theirs, float(mode.split(":")[1]))
    elif kind == "c" and mode != "exact":
        ok = _close(mine, theirs, COMPLEX_RTOL[mine.dtype])
    elif is_float and mode.startswith("ulp"):
        ok = ulp_distance(mine, theirs) <= ulps
    else:
        ok = _same_bits(mine, theirs)
        if mode == "nosign0" and is_float:
            ok |= (mine.astype(np.float64) == 0) & (theirs.astype(np.float64) == 0)
    if not ok.all():
        bad = np.flatnonzero(~ok)[:5]
        rows = [
            f"  at {tuple(int(k) for k in np.unravel_index(i, shape))}: "
            f"ferroiter {mine[i]!r} torch {theirs[i]!r}"
            for i in bad
        ]
        raise AssertionError(
            f"{what}{int((~ok).sum())} of {mine.size} values differ ({mode}):\n" + "\n".join(rows)
        )


def assert_result(mine, theirs: torch.Tensor, mode: str = "exact", what: str = "") -> None:
    """A ferroiter result against torch's: shape, strides, dtype, then values by `mode`."""
    assert isinstance(mine, fi.Array), f"{what}expected a ferroiter.Array, got {type(mine)}"
    assert tuple(mine.shape) == tuple(theirs.shape), (
        f"{what}shape: ferroiter {mine.shape} != torch {tuple(theirs.shape)}"
    )
    assert mine.stride() == theirs.stride(), (
        f"{what}strides of {tuple(theirs.shape)}: ferroiter {mine.stride()} != torch "
        f"{theirs.stride()}"
    )
    assert mine.dtype == NUMPY_OF[theirs.dtype], (
        f"{what}dtype: ferroiter {mine.dtype} != torch {theirs.dtype}"
    )
    assert_values(mine.numpy(), torch_to_numpy(theirs), mode, what)


# ---------------------------------------------------------------------------------------------
# errors

#: torch RuntimeErrors about dtypes that cannot be cast or mixed: ferroiter raises TypeError
#: for these (api.md, "Errors"); every other torch error maps by its kind (differential.py).
DTYPE_ERRORS = (
    "can't be cast to the desired output type",
    "Found dtype",
    "Expected out type to be",
    "Promotion for uint",
)


def fi_kind_for(exc: BaseException) -> type[BaseException]:
    if isinstance(exc, RuntimeError) and not isinstance(exc, NotImplementedError):
        if any(s in str(exc) for s in DTYPE_ERRORS):
            return TypeError
    return expected_kind(exc)


def outcome(fn):
    """(result, None) or (None, exception)."""
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - any error is an outcome to compare
        return None, e


def assert_same_raise(fi_exc: BaseException | None, torch_exc: BaseException, what="") -> None:
    assert fi_exc is not None, f"{what}ferroiter succeeded; torch raised {torch_exc!r}"
    kind = fi_kind_for(torch_exc)
    assert isinstance(fi_exc, kind), (
        f"{what}ferroiter raised {type(fi_exc).__name__}({fi_exc}), expected "
        f"{kind.__name__}({torch_exc})"
    )
    assert str(fi_exc) == str(torch_exc), (
        f"{what}message:\nferroiter {str(fi_exc)!r}\ntorch     {str(torch_exc)!r}"
    )


ALL_DTYPES = TORCH_DTYPES
