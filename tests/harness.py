"""The differential-test harness: everything the test modules share to compare ferroiter with
torch (the oracle; numpy where torch has no such thing).

- dtypes: the twelve array dtypes in torch's spelling and ferroiter's (`TORCH_DTYPES`,
  `NUMPY_OF`, `NAME_OF`), their families (`FLOATS`, `INTS`, `COMPLEX`, `REDUCED`).
- the op table: `op_rows()` reads the elementwise functions from `ferroiter._op_table()`;
  `OP_CASES` holds the tests' metadata of each (tolerances, domains), one entry per row.
- values: `random_values` (special values included), `distinct_values`.
- layouts: ONE family, `layouts(shape)`, drawing a `Layout` recipe (contiguous,
  channels_last(_3d) with torch's ambiguous strides, permuted, sliced with steps, expanded,
  negative strides, arbitrary aliasing strides, size-0, size-1 and 0-d), realized as a pair by
  `Operand`; `layout_pairs()` chains random view ops on top (`ViewChain`).
- comparing: `assert_same(ours, theirs, mode=...)` (shape, strides, offset, dtype, values);
  errors: `assert_same_error` / `assert_same_outcome` / `assert_same_raise` (the exception kind
  mapped as api.md says, and torch's exact message).
- running: `parallelism` (threads and grain size), `scaled` (examples per profile).

The pairs share memory: the torch tensor's base is made first and ferroiter views it through
``fi.from_numpy``; every view op is then applied to both sides, so both see the same bytes at
the same addresses with the same storage offset. (Empty tensors, which numpy reports with zero
strides, are matched by ``fi.empty_strided`` instead; torch has no negative strides, so a
negative-stride array is compared with a positive-stride "twin" of the same values.)
"""

from __future__ import annotations

import contextlib
import itertools
import math
import operator
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field, replace

import ml_dtypes
import numpy as np
import torch
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import ferroiter as fi

# ---------------------------------------------------------------------------------------------
# dtypes

#: The twelve dtypes an array can hold, in torch's spelling.
TORCH_DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.complex64,
    torch.complex128,
]
FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
COMPLEX = (torch.complex64, torch.complex128)
INTS = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
REDUCED = (torch.float16, torch.bfloat16)

#: torch dtype -> the numpy dtype ferroiter reports.
NUMPY_OF = {
    torch.bool: np.dtype(np.bool_),
    torch.uint8: np.dtype(np.uint8),
    torch.int8: np.dtype(np.int8),
    torch.int16: np.dtype(np.int16),
    torch.int32: np.dtype(np.int32),
    torch.int64: np.dtype(np.int64),
    torch.float16: np.dtype(np.float16),
    torch.bfloat16: np.dtype(ml_dtypes.bfloat16),
    torch.float32: np.dtype(np.float32),
    torch.float64: np.dtype(np.float64),
    torch.complex64: np.dtype(np.complex64),
    torch.complex128: np.dtype(np.complex128),
    # torch's "barebones" unsigned types (not in TORCH_DTYPES: torch has few kernels for them;
    # tests/test_unsigned.py covers them)
    torch.uint16: np.dtype(np.uint16),
    torch.uint32: np.dtype(np.uint32),
    torch.uint64: np.dtype(np.uint64),
}

#: torch dtype -> the name ferroiter accepts as a dtype argument.
NAME_OF = {t: str(d) for t, d in NUMPY_OF.items()}

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)

#: a strategy: any of the twelve dtypes (torch's)
dtypes = st.sampled_from(TORCH_DTYPES)
#: every (first, second) pair of the twelve dtypes
DTYPE_PAIRS = list(itertools.product(TORCH_DTYPES, TORCH_DTYPES))


def fi_dtype(dtype: torch.dtype) -> str:
    return NAME_OF[dtype]


def numpy_dtype_of(torch_dtype: torch.dtype) -> object:
    """What ferroiter returns for a torch dtype: a numpy dtype, or 'complex32' (numpy has none)."""
    if torch_dtype == torch.complex32:
        return "complex32"
    return NUMPY_OF[torch_dtype]


#: memory formats, paired (ferroiter's, torch's)
FORMATS = {
    "contiguous_format": (fi.contiguous_format, torch.contiguous_format),
    "channels_last": (fi.channels_last, torch.channels_last),
    "channels_last_3d": (fi.channels_last_3d, torch.channels_last_3d),
    "preserve_format": (fi.preserve_format, torch.preserve_format),
}

# ---------------------------------------------------------------------------------------------
# the op table and the tests' metadata of each op


def op_rows(arity: int | None = None) -> list[dict]:
    """The rows of ferroiter's op table (`name`, `arity`, `preset`, `kernel`, `alpha`,
    `operators`), of one arity if given: the tests' op lists come from here, never by hand."""
    return [r for r in fi._ferroiter._op_table() if arity is None or r["arity"] == arity]


def op_names(arity: int | None = None) -> list[str]:
    return [r["name"] for r in op_rows(arity)]


@dataclass(frozen=True)
class OpCase:
    """What the tests need to know about one op of the table beyond the table itself.

    `ulps`: values within this many ulps of the result's dtype (transcendental functions;
    None: bit-exact), raised per result dtype by `extra_ulps`; `complex_ulps`: the ulp mode
    also for complex inputs (complex abs is a real result); `complex_rounding`: complex results
    that round differently in torch's own vector and scalar loops (a relative tolerance);
    `signed_zero_ties`: +0 against -0 depends on the element's position in torch;
    `complex_finite`: complex inputs stay finite and moderate (torch takes glibc's C99
    special-value rules, ferroiter does not); `division`: integer divisors must be nonzero;
    `scalar_first` / `scalar_second`: torch's function takes a Python number in that place;
    `operators`: the Array dunders computing it where the table lists none (operators with
    their own signatures); `suites`: the fixed-case tests that sample this op (see
    `ops_in`: "grain" and "vector" sizes, "resize" of out=, "broadcast" errors, "ndarray" on
    the left of an operator)."""

    ulps: int | None = None
    extra_ulps: dict = field(default_factory=dict)
    complex_ulps: bool = False
    complex_rounding: bool = False
    signed_zero_ties: bool = False
    complex_finite: bool = False
    division: bool = False
    scalar_first: bool = False
    scalar_second: bool = False
    operators: tuple[str, ...] = ()
    suites: frozenset[str] = frozenset()


_ARITH = {"scalar_first": True, "scalar_second": True}


def _in(*suites: str) -> frozenset[str]:
    return frozenset(suites)


_TRANSCENDENTAL = {"ulps": 1, "complex_finite": True}

#: One entry per row of the op table (test_ops checks it): the op's test metadata.
#: - sigmoid: torch's contiguous loop uses SLEEF's vectorized exp, its strided loop libm's; the
#:   two differ by up to 4 ulps (float32) / 2 ulps (float64) on the same input
#:   (test_torch_sigmoid_depends_on_layout), so no implementation is within 1 ulp of both.
#: - float64 tanh: libm's tanh is within 2 ulps (MKL's, torch's, within 1).
#: - complex `neg` is `0 - z` in torch's vector loop, `-z` in its scalar one.
#: - maximum/minimum: torch's vectorized loop returns the second operand on ties
#:   (`_mm*_max_ps`), its scalar loop the first (`std::max`); ferroiter returns the second.
OP_CASES: dict[str, OpCase] = {
    # unary
    "neg": OpCase(complex_rounding=True, suites=_in("grain", "resize")),
    "abs": OpCase(complex_ulps=True, complex_finite=True, suites=_in("resize")),
    "exp": OpCase(**_TRANSCENDENTAL, suites=_in("grain", "resize")),
    "expm1": OpCase(**_TRANSCENDENTAL),
    "log": OpCase(**_TRANSCENDENTAL),
    "log1p": OpCase(**_TRANSCENDENTAL),
    "sqrt": OpCase(**_TRANSCENDENTAL),
    "sin": OpCase(**_TRANSCENDENTAL),
    "cos": OpCase(**_TRANSCENDENTAL),
    "tanh": OpCase(**_TRANSCENDENTAL, extra_ulps={torch.float64: 2}),
    "sigmoid": OpCase(
        **_TRANSCENDENTAL, extra_ulps={torch.float32: 4, torch.float64: 2}, suites=_in("grain")
    ),
    "reciprocal": OpCase(complex_rounding=True, complex_finite=True),
    "floor": OpCase(),
    "ceil": OpCase(),
    "round": OpCase(),
    "sign": OpCase(),
    "bitwise_not": OpCase(operators=("__invert__",)),
    "logical_not": OpCase(),
    "acos": OpCase(**_TRANSCENDENTAL),
    "asin": OpCase(**_TRANSCENDENTAL),
    "atan": OpCase(**_TRANSCENDENTAL),
    # torch's float32 acosh is 2 ulps from the truth near 1 (116 of 400K random inputs, all in
    # 1 < x < 1.2), ferroiter's is correctly rounded there (test_numeric_edges checks it
    # against mpmath), so the two can be 2 apart
    "acosh": OpCase(**_TRANSCENDENTAL, extra_ulps={torch.float32: 2}),
    "asinh": OpCase(**_TRANSCENDENTAL),
    "atanh": OpCase(**_TRANSCENDENTAL),
    "tan": OpCase(**_TRANSCENDENTAL),
    "sinh": OpCase(**_TRANSCENDENTAL),
    "cosh": OpCase(**_TRANSCENDENTAL),
    "log2": OpCase(**_TRANSCENDENTAL),
    "log10": OpCase(**_TRANSCENDENTAL),
    "trunc": OpCase(),
    "square": OpCase(complex_rounding=True),
    "isnan": OpCase(),
    "isinf": OpCase(),
    "isfinite": OpCase(),
    "signbit": OpCase(),
    # binary
    "add": OpCase(**_ARITH, suites=_in("grain", "vector", "resize", "broadcast", "ndarray")),
    "sub": OpCase(**_ARITH, suites=_in("vector", "ndarray")),
    "mul": OpCase(
        **_ARITH,
        complex_rounding=True,
        complex_finite=True,
        suites=_in("grain", "vector", "resize", "ndarray"),
    ),
    "div": OpCase(
        **_ARITH,
        complex_rounding=True,
        complex_finite=True,
        division=True,
        suites=_in("grain", "vector", "ndarray"),
    ),
    "floor_divide": OpCase(**_ARITH, division=True, suites=_in("grain")),
    "remainder": OpCase(**_ARITH, division=True),
    "pow": OpCase(
        **_ARITH,
        **_TRANSCENDENTAL,
        operators=("__pow__", "__rpow__", "__ipow__"),
        suites=_in("vector"),
    ),
    "maximum": OpCase(signed_zero_ties=True, suites=_in("grain", "vector", "broadcast")),
    "minimum": OpCase(signed_zero_ties=True),
    "bitwise_and": OpCase(scalar_second=True),
    "bitwise_or": OpCase(scalar_second=True),
    "bitwise_xor": OpCase(scalar_second=True, suites=_in("vector")),
    "logical_and": OpCase(suites=_in("resize", "broadcast")),
    "logical_or": OpCase(),
    "logical_xor": OpCase(),
    "eq": OpCase(
        scalar_second=True,
        operators=("__eq__",),
        suites=_in("grain", "vector", "resize", "broadcast", "ndarray"),
    ),
    "ne": OpCase(scalar_second=True, operators=("__ne__",)),
    "lt": OpCase(scalar_second=True, operators=("__lt__",), suites=_in("ndarray")),
    "le": OpCase(scalar_second=True, operators=("__le__",)),
    "gt": OpCase(scalar_second=True, operators=("__gt__",)),
    "ge": OpCase(scalar_second=True, operators=("__ge__",)),
    "atan2": OpCase(ulps=1),
    "hypot": OpCase(ulps=1),
    "copysign": OpCase(scalar_second=True),
    "nextafter": OpCase(),
    "logaddexp": OpCase(ulps=2, complex_finite=True),
    "fmod": OpCase(scalar_second=True, division=True),
    "bitwise_left_shift": OpCase(scalar_first=True, scalar_second=True),
    "bitwise_right_shift": OpCase(scalar_first=True, scalar_second=True),
    # ternary
    "where": OpCase(),
    "clamp": OpCase(),
}


def ops_in(suite: str, arity: int | None = None) -> list[str]:
    """The table's ops (in table order) that OP_CASES puts in `suite`."""
    return [n for n in op_names(arity) if suite in OP_CASES[n].suites]


def python_operator(dunder: str):
    """The `operator` module's function for an Array dunder (`__iadd__` -> operator.iadd,
    `__and__` -> operator.and_, `__abs__` -> abs)."""
    plain = dunder.strip("_")
    if plain == "abs":
        return abs
    return getattr(operator, plain, None) or getattr(operator, plain + "_")


def operators_of(name: str) -> list[str]:
    """The Array dunders computing op `name`: the table's, else OP_CASES' (see OpCase)."""
    row = next(r for r in fi._ferroiter._op_table() if r["name"] == name)
    return list(row["operators"]) or list(OP_CASES[name].operators)


def operator_rows() -> list[tuple[str, str, str | None]]:
    """(function name, forward dunder, in-place dunder or None) of every binary op that has
    operators (the reflected dunder is left out: tests call `op(number, array)`)."""
    rows = []
    for name in op_names(2):
        dunders = operators_of(name)
        if not dunders:
            continue
        inplace = next((d for d in dunders if d.startswith("__i") and d != "__invert__"), None)
        rows.append((name, dunders[0], inplace))
    return rows


# ---------------------------------------------------------------------------------------------
# running


def scaled(ci_examples: int) -> int:
    """`ci_examples` under the "ci" profile (150 examples), proportionally more under
    "nightly"."""
    return max(1, ci_examples * settings.default.max_examples // 150)


#: for tests taking conftest's `threads_and_grain`: it selects one constant per test, so it
#: need not be reset between hypothesis examples
FIXTURE_OK = [HealthCheck.function_scoped_fixture]

#: (threads, grain size) settings the parallel tests run under (conftest's `threads_and_grain`)
PARALLELISM = [(1, None), (2, None), (2, 3)]
PARALLELISM_IDS = ["1thread", "2threads", "2threads-grain3"]


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


def distinct_values(shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """A contiguous tensor of `shape` whose elements differ (as far as the dtype allows)."""
    numel = math.prod(shape)
    base = torch.arange(numel, dtype=torch.int64).reshape(shape)
    if dtype == torch.bool:
        return base % 3 == 1
    if dtype.is_complex:
        real = base.to(torch.float64)
        return torch.complex(real, -real - 0.5).to(dtype)
    if dtype.is_floating_point:
        return (base.to(torch.float64) - 0.5 * numel).to(dtype)
    return base.to(dtype)  # narrow ints wrap, still mostly distinct


# ---------------------------------------------------------------------------------------------
# sharing memory between torch and ferroiter


def torch_to_numpy(t: torch.Tensor) -> np.ndarray:
    """A zero-copy ndarray over a tensor's elements with its strides (bfloat16 via ml_dtypes)."""
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def share(t: torch.Tensor) -> fi.Array:
    """ferroiter's view of exactly the memory of tensor `t` (same strides, same addresses; the
    storage offset is not carried: ferroiter's view starts at t's first element).

    numpy reports zero strides for every empty array, so an empty tensor is matched by a new
    ferroiter array of the same sizes and strides instead (there is no memory to share)."""
    if t.numel() == 0:
        assert t.storage_offset() == 0, "share() of an empty view with an offset"
        return fi.empty_strided(tuple(t.shape), t.stride(), dtype=NAME_OF[t.dtype])
    return fi.from_numpy(torch_to_numpy(t))


def storage_numel(t: torch.Tensor) -> int:
    return t.untyped_storage().nbytes() // t.element_size()


def apply_op(x, op):
    """Applies one recorded view op, `(method, args)`, to a torch tensor or a ferroiter array."""
    name, args = op
    return getattr(x, name)(*args)


# ---------------------------------------------------------------------------------------------
# layouts: one recipe family


@dataclass(frozen=True)
class Layout:
    """How an array of a given shape sits in memory; `realize` builds it.

    A base tensor in some memory order (`order`: dims from slowest to fastest; or a memory
    format `fmt`, made the way `how` says, which differ on ambiguous shapes), then the view ops
    torch users make: a slice start and step per dim (`extra`: unused elements past the end),
    broadcasting with stride 0 (`expanded`, and `leading` new dims), dims read backwards with
    negative strides (`flipped`: ferroiter only, from numpy), arbitrary strides of size-1 dims
    (`ones`), or arbitrary small strides over a flat buffer where elements may alias
    (`strides`, with `offset`; a 0-d view with an offset is `strides=()`)."""

    order: tuple[int, ...] = ()
    fmt: str | None = None
    starts: tuple[int, ...] = ()
    steps: tuple[int, ...] = ()
    expanded: tuple[bool, ...] = ()
    leading: int = 0
    how: str = "contiguous"
    extra: tuple[int, ...] = ()
    flipped: tuple[int, ...] = ()
    ones: tuple[int, ...] | None = None
    strides: tuple[int, ...] | None = None
    offset: int = 0


CONTIGUOUS = Layout()

#: How a base tensor gets its memory format (they differ on ambiguous shapes).
HOWS = ("contiguous", "to", "empty_copy")


def make_base(shape, dtype: torch.dtype, fmt: str, how: str) -> torch.Tensor:
    """distinct_values of `shape` in memory format `fmt`, made the way `how` says."""
    return _formatted(distinct_values(tuple(shape), dtype), fmt, how)


def _formatted(values: torch.Tensor, fmt: str | None, how: str) -> torch.Tensor:
    torch_fmt = FORMATS[fmt or "contiguous_format"][1]
    if how == "to":
        return values.to(memory_format=torch_fmt)
    if how == "empty_copy":
        return torch.empty(tuple(values.shape), dtype=values.dtype, memory_format=torch_fmt).copy_(
            values
        )
    return values.contiguous(memory_format=torch_fmt)


@st.composite
def layouts(
    draw,
    shape,
    allow_expanded: bool = True,
    negative: bool = False,
    aliasing: bool = False,
) -> Layout:
    """A random Layout for an array of `shape`: contiguous, channels_last(_3d) (4-D/5-D, made
    three ways), permuted, sliced with steps, expanded (`allow_expanded`), or several of these
    at once; size-1 dims sometimes get arbitrary strides; `negative`: sometimes dims read
    backwards (compare with `assert_same(..., flipped=layout.flipped)`); `aliasing`: sometimes
    any small strides over a flat buffer (elements may alias)."""
    shape = tuple(shape)
    n = len(shape)
    empty = 0 in shape
    if n == 0:
        if aliasing and draw(st.booleans()):
            return Layout(strides=(), offset=draw(st.integers(0, 3)))
        return CONTIGUOUS
    kinds = ["contiguous", "permuted", "sliced", "mixed"]
    if n in (4, 5):
        kinds.append("channels_last" if n == 4 else "channels_last_3d")
    if allow_expanded:
        kinds.append("expanded")
    if aliasing and not empty:
        kinds.append("strided")
    kind = draw(st.sampled_from(kinds))
    if kind == "strided":
        low = 0 if allow_expanded else 1  # (stride 0 only where it cannot alias otherwise)
        strides = tuple(draw(st.integers(low if size > 1 else 0, 6)) for size in shape)
        return Layout(strides=strides, offset=draw(st.integers(0, 2)))
    if kind == "contiguous":
        layout = CONTIGUOUS
    elif kind.startswith("channels_last"):
        layout = Layout(fmt=kind, how=draw(st.sampled_from(HOWS)))
    else:
        order = tuple(range(n))
        starts, steps, extra = (0,) * n, (1,) * n, (0,) * n
        expanded, leading = (False,) * n, 0
        if kind in ("permuted", "mixed"):
            order = tuple(draw(st.permutations(range(n))))
        if kind in ("sliced", "mixed"):
            steps = tuple(draw(st.sampled_from([1, 1, 2, 3])) for _ in range(n))
            starts = tuple(draw(st.integers(0, 2)) for _ in range(n))
            extra = tuple(draw(st.integers(0, 1)) for _ in range(n))
        if kind in ("expanded", "mixed") and allow_expanded:
            expanded = tuple(draw(st.booleans()) and draw(st.booleans()) for _ in range(n))
            if kind == "expanded" and not any(expanded):
                expanded = tuple(d == 0 for d in range(n))
            leading = draw(st.integers(0, n)) if kind == "expanded" else 0
        layout = Layout(order, None, starts, steps, expanded, leading, extra=extra)
    if negative and not empty and draw(st.booleans()):
        if not any(layout.expanded) and not layout.leading:
            flipped = draw(st.lists(st.sampled_from(range(n)), min_size=1, unique=True))
            return replace(layout, flipped=tuple(sorted(flipped)))
    ones = [d for d in range(n) if shape[d] == 1]
    if ones and not empty and draw(st.integers(0, 3)) == 0:
        return replace(layout, ones=tuple(draw(st.integers(0, 7)) for _ in ones))
    return layout


def _inverse(perm) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def layout_ops(values_of, shape, layout: Layout) -> tuple[torch.Tensor, list]:
    """The base tensor of `layout` (storage offset 0, filled by `values_of(base_shape)`) and the
    view ops that make it an array of `shape`; `flipped` is left to `Operand.build`."""
    shape = tuple(shape)
    n = len(shape)
    empty = math.prod(shape) == 0
    if layout.strides is not None:
        reach = 0 if empty else sum((s - 1) * k for s, k in zip(shape, layout.strides, strict=True))
        base = values_of((layout.offset + reach + 1,))
        ops = [("as_strided", (shape, layout.strides, layout.offset))]
    elif n == 0 or layout.fmt is not None or not layout.order:
        base = _formatted(values_of(shape), layout.fmt, layout.how)
        ops = []
    else:
        lead = layout.leading
        base_shape = []
        for d in range(lead, n):
            if layout.expanded[d]:
                base_shape.append(1)
            elif empty:
                base_shape.append(shape[d])
            else:
                step, start = layout.steps[d], layout.starts[d]
                extra = layout.extra[d] if layout.extra else 0
                base_shape.append(start + (shape[d] - 1) * step + 1 + extra)
        order = [d - lead for d in layout.order if d >= lead]
        base = values_of(tuple(base_shape)).permute(order).contiguous()
        key = []
        for d in range(lead, n):
            if layout.expanded[d] or empty:
                key.append(slice(None))
            else:
                start, step = layout.starts[d], layout.steps[d]
                key.append(slice(start, start + shape[d] * step, step))
        ops = [("permute", (_inverse(order),)), ("__getitem__", (tuple(key),))]
        if lead or any(layout.expanded):
            ops.append(("expand", (shape,)))
    if layout.ones is not None:
        t = base
        for op in ops:
            t = apply_op(t, op)
        stride = list(t.stride())
        for d, s in zip([d for d in range(n) if shape[d] == 1], layout.ones, strict=True):
            stride[d] = s
        ops.append(("as_strided", (shape, tuple(stride), t.storage_offset())))
    return base, ops


def _replay(base: torch.Tensor, ops) -> tuple[fi.Array, torch.Tensor]:
    a, t = share(base), base
    for op in ops:
        a, t = apply_op(a, op), apply_op(t, op)
    return a, t


def realize(values_of, shape, layout: Layout) -> torch.Tensor:
    """A torch tensor of `shape` laid out as `layout`, its base filled by `values_of`
    (for a flipped layout: its positive-stride twin, see `Operand.build`)."""
    return _flip(*_realize_pair(values_of, shape, layout, share_memory=False))[1]


def _realize_pair(values_of, shape, layout, share_memory=True):
    base, ops = layout_ops(values_of, shape, layout)
    if share_memory:
        return _replay(base, ops), layout
    t = base
    for op in ops:
        t = apply_op(t, op)
    return (None, t), layout


def _flip(pair, layout):
    """ferroiter reads `layout.flipped` dims backwards (negative strides, from numpy); torch's
    twin holds the same values with the positive strides of the unflipped view."""
    a, t = pair
    if not layout.flipped:
        return a, t
    key = tuple(
        slice(None, None, -1) if d in layout.flipped else slice(None) for d in range(t.dim())
    )
    ours = fi.from_numpy(torch_to_numpy(t)[key]) if a is not None else None
    twin = torch.empty_strided(tuple(t.shape), t.stride(), dtype=t.dtype)
    twin.copy_(t.flip(list(layout.flipped)))
    return ours, twin


@dataclass(frozen=True)
class Operand:
    """A recipe for one array operand: `build()` makes (ferroiter array, torch tensor) over the
    same memory (torch's positive-stride twin for a flipped layout), the values drawn from
    `seed`; `tensor()` the torch side alone. Building twice gives equal values and strides in
    separate memory (what in-place and out= tests need, since both sides write)."""

    shape: tuple[int, ...]
    dtype: torch.dtype
    layout: Layout = CONTIGUOUS
    seed: int = 0
    special: bool = True
    nonzero: bool = False
    values: str = "random"  # "random", "distinct" or "zeros"

    def _values_of(self):
        if self.values == "distinct":
            return lambda shape: distinct_values(shape, self.dtype)
        if self.values == "zeros":
            return lambda shape: torch.zeros(shape, dtype=self.dtype)
        rng = np.random.default_rng(self.seed)

        def values_of(shape):
            t = random_values(shape, self.dtype, rng, special=self.special)
            return nonzero_ints(t) if self.nonzero else t

        return values_of

    def tensor(self) -> torch.Tensor:
        return realize(self._values_of(), self.shape, self.layout)

    def build(self) -> tuple[fi.Array, torch.Tensor]:
        return _flip(*_realize_pair(self._values_of(), self.shape, self.layout))


# ---------------------------------------------------------------------------------------------
# view chains: a layout, then random view ops (the views suites)


@dataclass
class ViewChain:
    """A base operand and a sequence of view ops; `build()` replays them on torch and
    ferroiter, checking any error torch raises against ferroiter's."""

    base: Operand
    ops: list = field(default_factory=list)

    def build(self, check_each: bool = True) -> tuple[fi.Array, torch.Tensor]:
        a, t = self.base.build()
        shared = t.numel() > 0  # see share()
        if check_each:
            assert_same(a, t)
        for op in self.ops:
            outcome_ = assert_same_outcome(
                lambda a=a, op=op: apply_op(a, op), lambda t=t, op=op: apply_op(t, op)
            )
            if outcome_ is None:
                continue  # both refused the op with the same error: keep the previous view
            a, t = outcome_
            if check_each:
                assert_same(a, t)
                # (torch's data_ptr() is 0 for every empty tensor; ferroiter's is an address)
                if shared and t.numel() > 0:
                    assert a.data_ptr() == t.data_ptr(), "the view addresses other memory"
        return a, t


#: sizes 0..5, biased towards 1 (ambiguous layouts) and small sizes
_SIZES = [0, 1, 1, 2, 2, 3, 4, 5]


@st.composite
def shapes(draw, max_ndim: int = 5, sizes=tuple(_SIZES)):
    ndim = draw(st.integers(0, max_ndim))
    return tuple(draw(st.lists(st.sampled_from(list(sizes)), min_size=ndim, max_size=ndim)))


def _dims(n: int):
    """A dim index valid for an n-d tensor, negative forms included (0-d accepts -1 and 0)."""
    r = max(n, 1)
    return st.integers(-r, r - 1)


@st.composite
def slice_for(draw, size: int, negative_step: bool = False):
    bound = st.none() | st.integers(-size - 2, size + 2)
    step = st.integers(-3, -1) if negative_step else (st.none() | st.integers(1, 3))
    return slice(draw(bound), draw(bound), draw(step))


@st.composite
def index_key(draw, shape, negative_step: bool = False):
    """A getitem key of ints, slices (positive steps unless asked), None and at most one `...`
    that torch accepts for `shape`."""
    n = len(shape)
    consumed = draw(st.integers(0, n))
    ellipsis_at = draw(st.none() | st.integers(0, consumed))
    if ellipsis_at is None:
        targets = list(range(consumed))
    else:
        targets = list(range(ellipsis_at)) + list(range(n - (consumed - ellipsis_at), n))
    items = []
    for d in targets:
        size = shape[d]
        if size > 0 and draw(st.booleans()):
            items.append(draw(st.integers(-size, size - 1)))
        else:
            neg = negative_step and draw(st.booleans())
            items.append(draw(slice_for(size, negative_step=neg)))
    if ellipsis_at is not None:
        items.insert(ellipsis_at, Ellipsis)
    # None only for torch (numpy gives a new axis stride 0, torch the unsqueeze stride)
    for _ in range(0 if negative_step else draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    if len(items) == 1 and draw(st.booleans()):
        return items[0]  # a bare key, not a tuple
    return tuple(items)


@st.composite
def view_shape(draw, shape):
    """A shape with the same number of elements: flattened, merged, split, re-factored."""
    numel = math.prod(shape)
    n = len(shape)
    choice = draw(st.sampled_from(["flat", "merge", "split", "ones", "refactor", "infer"]))
    if choice == "flat":
        return (numel,)
    if choice == "merge" and n >= 2:
        i = draw(st.integers(0, n - 2))
        return shape[:i] + (shape[i] * shape[i + 1],) + shape[i + 2 :]
    if choice == "split" and n >= 1:
        i = draw(st.integers(0, n - 1))
        divisors = [k for k in range(1, shape[i] + 1) if shape[i] % k == 0] or [1]
        k = draw(st.sampled_from(divisors))
        second = shape[i] // k if shape[i] else draw(st.integers(0, 3))
        return shape[:i] + (k, second) + shape[i + 1 :]
    if choice == "ones":
        out = [s for s in shape if s != 1]
        for _ in range(draw(st.integers(0, 2))):
            out.insert(draw(st.integers(0, len(out))), 1)
        return tuple(out)
    if choice == "infer" and n >= 1:
        i = draw(st.integers(0, n - 1))
        return shape[:i] + (-1,) + shape[i + 1 :]
    # refactor numel into up to 4 factors
    factors, rest = [], numel
    for _ in range(draw(st.integers(0, 3))):
        divisors = [k for k in range(1, rest + 1) if rest % k == 0] if rest else [0, 1, 2]
        k = draw(st.sampled_from(divisors))
        factors.append(k)
        rest = rest // k if k else rest
    if numel == 0 and 0 not in factors:
        factors.append(0)
    else:
        factors.append(rest)
    return tuple(factors)


@st.composite
def as_strided_args(draw, t: torch.Tensor):
    """(size, stride[, storage_offset]) addressing only elements inside t's storage, or None
    when no such view exists (a 0-d view of an empty storage)."""
    limit = storage_numel(t)
    ndim = draw(st.integers(0, 4))
    size = draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim))
    stride = draw(st.lists(st.integers(0, 6), min_size=ndim, max_size=ndim))
    if limit == 0 and 0 not in size:
        if ndim == 0:
            return None
        size[draw(st.integers(0, ndim - 1))] = 0
    if 0 in size:  # an empty view needs no storage, whatever its offset
        return tuple(size), tuple(stride), draw(st.integers(0, limit + 3))
    reach = sum((n - 1) * s for n, s in zip(size, stride, strict=True))
    if reach >= limit:
        stride = [0] * ndim
        reach = 0
    if draw(st.booleans()) and t.storage_offset() + reach < limit:
        return tuple(size), tuple(stride)  # keeps the current storage offset
    return tuple(size), tuple(stride), draw(st.integers(0, limit - 1 - reach))


@st.composite
def view_op(draw, t: torch.Tensor):
    """One view op that torch accepts on `t` (or, for `view`, may refuse)."""
    shape = tuple(t.shape)
    n = len(shape)
    kind = draw(
        st.sampled_from(
            [
                "permute",
                "transpose",
                "getitem",
                "getitem",
                "expand",
                "unsqueeze",
                "squeeze",
                "as_strided",
                "view",
            ]
        )
    )
    if kind == "permute":
        perm = draw(st.permutations(range(n)))
        perm = tuple(d - n if draw(st.booleans()) else d for d in perm)
        return ("permute", perm) if perm and draw(st.booleans()) else ("permute", (perm,))
    if kind == "transpose":
        return ("transpose", (draw(_dims(n)), draw(_dims(n))))
    if kind == "getitem":
        return ("__getitem__", (draw(index_key(shape)),))
    if kind == "expand":
        lead = draw(st.integers(0, max(0, min(2, 6 - n))))
        # (-1 in a new dim is an error, except that torch lets a 0-d source through)
        target = [draw(st.sampled_from([0, 1, 1, 2, 3, -1])) for _ in range(lead)]
        for s in shape:
            target.append(draw(st.sampled_from([1, 0, 2, 3, -1] if s == 1 else [s, -1])))
        return ("expand", (tuple(target),))  # one sequence: a 0-d target is ()
    if kind == "unsqueeze":
        return ("unsqueeze", (draw(st.integers(-(n + 1), n)),))
    if kind == "squeeze":
        form = draw(st.sampled_from(["all", "one", "several"]))
        if form == "all":
            return ("squeeze", ())
        if form == "one" or n == 0:
            return ("squeeze", (draw(_dims(n)),))
        dims = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
        return ("squeeze", (tuple(d - n if draw(st.booleans()) else d for d in dims),))
    if kind == "as_strided":
        args = draw(as_strided_args(t))
        return ("as_strided", args) if args is not None else ("permute", (tuple(range(n)),))
    shape = draw(view_shape(shape))
    return ("view", (shape,)) if draw(st.booleans()) or not shape else ("view", shape)


@st.composite
def view_chains(draw, max_ops: int = 4, max_ndim: int = 5):
    """A ViewChain: a base of any dtype and (non-negative, non-aliasing) layout with distinct
    values, then up to `max_ops` view ops torch accepts (except `view`s, which may fail on
    both sides)."""
    shape = draw(shapes(max_ndim))
    dtype = draw(st.sampled_from(TORCH_DTYPES))
    layout = draw(layouts(shape))
    chain = ViewChain(Operand(shape, dtype, layout, values="distinct"))
    t = chain.base.tensor()
    for _ in range(draw(st.integers(0, max_ops))):
        op = draw(view_op(t))
        try:
            view = apply_op(t, op)
        except (RuntimeError, IndexError, ValueError):
            chain.ops.append(op)  # kept: build() checks ferroiter refuses it the same way
            continue
        if any(s < 0 for s in view.shape):
            continue  # torch expands a 0-d tensor by (0, -1) into a negative size; not a layout
        t = view
        chain.ops.append(op)
    return chain


def layout_pairs(max_ops: int = 4, max_ndim: int = 5):
    """(ferroiter array, torch tensor) pairs over the same memory: a random layout, then up to
    `max_ops` random views (a ViewChain built without checking each step)."""
    return view_chains(max_ops, max_ndim).map(lambda c: c.build(check_each=False))


# ---------------------------------------------------------------------------------------------
# raw sizes@strides (the predicates, empty_strided): dense in some order, then perturbed


@st.composite
def sizes_and_strides(draw, max_ndim: int = 5):
    ndim = draw(st.integers(0, max_ndim))
    shape = draw(st.lists(st.sampled_from([0, 1, 1, 2, 3, 4, 5]), min_size=ndim, max_size=ndim))
    if ndim == 4 and draw(st.booleans()):
        order = [1, 3, 2, 0]  # channels_last, fastest first
    elif ndim == 5 and draw(st.booleans()):
        order = [1, 4, 3, 2, 0]
    else:
        order = draw(st.permutations(range(ndim)))
    zero_propagates = draw(st.booleans())
    strides = [0] * ndim
    acc = 1
    for d in order:
        strides[d] = acc
        acc *= shape[d] if zero_propagates else max(shape[d], 1)
    for d in range(ndim):
        mutation = draw(st.sampled_from(["keep"] * 4 + ["zero", "double", "any"]))
        if mutation == "zero":
            strides[d] = 0
        elif mutation == "double":
            strides[d] *= 2
        elif mutation == "any":
            strides[d] = draw(st.integers(0, 130))
    return tuple(shape), tuple(strides)


@st.composite
def strided_pairs(draw, max_ndim: int = 5):
    """The same sizes@strides from torch.empty_strided and fi.empty_strided (float32)."""
    shape, strides = draw(sizes_and_strides(max_ndim))
    t = torch.empty_strided(shape, strides)
    return fi.empty_strided(shape, strides), t


# ---------------------------------------------------------------------------------------------
# comparing values

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
    if mine.dtype.kind not in "fcV" and mine.dtype != BFLOAT16:
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
    """Values of two ndarrays of one shape and dtype, by `mode`: "exact" (same bits; NaN
    matches NaN, -0 differs from +0; integers and bools equal), "ulp" / "ulp:N" (real floats
    within 1 / N ulps of their own dtype, complex within COMPLEX_RTOL, everything else exact),
    "complex" (exact for real dtypes, COMPLEX_RTOL for complex), "rtol:R" (exact for real
    dtypes, relative tolerance R for complex) or "nosign0" (exact, but +0 and -0 count as
    equal)."""
    assert mine.shape == theirs.shape, f"{what}shape {mine.shape} != {theirs.shape}"
    assert mine.dtype == theirs.dtype, f"{what}dtype {mine.dtype} != {theirs.dtype}"
    if mine.size == 0:
        return
    shape = mine.shape
    mine = np.ascontiguousarray(mine).reshape(-1)
    theirs = np.ascontiguousarray(theirs).reshape(-1)
    kind = mine.dtype.kind
    is_float = kind == "f" or mine.dtype == BFLOAT16
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


def assert_same(
    ours,
    theirs: torch.Tensor,
    mode: str = "exact",
    what: str = "",
    *,
    values: bool = True,
    offset: bool = True,
    strides: bool = True,
    flipped: tuple[int, ...] = (),
) -> None:
    """ferroiter array `ours` agrees with torch tensor `theirs`: shape, then element strides
    (negated in the `flipped` dims: `theirs` is the positive-stride twin of a numpy view read
    backwards there), then storage offset (unless `offset` is false or dims are flipped), then
    dtype, then (unless `values` is false, e.g. for `empty`) every value by `mode` (see
    assert_values: exact for ints, bools and by default for floats; ulps or a relative
    tolerance for transcendental floats and complex; NaN positions always equal)."""
    assert isinstance(ours, fi.Array), f"{what}expected a ferroiter.Array, got {type(ours)}"
    shape = tuple(theirs.shape)
    assert tuple(ours.shape) == shape, f"{what}shape: ferroiter {ours.shape} != torch {shape}"
    assert (ours.ndim, ours.numel()) == (theirs.dim(), theirs.numel()), what
    if strides:
        expected = tuple(-s if d in flipped else s for d, s in enumerate(theirs.stride()))
        assert ours.stride() == expected, (
            f"{what}strides of {shape}: ferroiter {ours.stride()} != torch {expected}"
            + (f" (flipped dims {flipped})" if flipped else "")
        )
    if offset and not flipped:
        assert ours.storage_offset() == theirs.storage_offset(), (
            f"{what}storage offset: ferroiter {ours.storage_offset()} != torch "
            f"{theirs.storage_offset()}"
        )
    assert ours.dtype == NUMPY_OF[theirs.dtype], (
        f"{what}dtype: ferroiter {ours.dtype} != torch {theirs.dtype}"
    )
    if values:
        assert_values(ours.numpy(), torch_to_numpy(theirs), mode, what)


def assert_result(mine, theirs: torch.Tensor, mode: str = "exact", what: str = "") -> None:
    """assert_same for a computed result (shape, strides, dtype, values by `mode`), without
    the storage offset (a result may land anywhere in memory it owns)."""
    assert_same(mine, theirs, mode, what, offset=False)


# ---------------------------------------------------------------------------------------------
# errors

#: The exception kind ferroiter raises for each kind torch raises (api.md, "Errors"). torch's
#: RuntimeError is a ValueError unless it is about dtypes (DTYPE_ERRORS: TypeError).
FI_KIND_FOR = {
    NotImplementedError: TypeError,  # (a subclass of RuntimeError: first)
    RuntimeError: ValueError,
    IndexError: IndexError,
    ValueError: ValueError,
    TypeError: TypeError,
}

#: Why this exists: torch raises a plain RuntimeError for dtypes that cannot be cast or mixed,
#: where ferroiter (api.md, "Errors") raises TypeError; torch gives no other handle on the
#: difference than its message, so these texts pick the kind. Every other torch error maps by
#: its class (FI_KIND_FOR).
DTYPE_ERRORS = (
    "can't be cast to the desired output type",  # "result type X can't be cast to ..."
    "Found dtype",
    "Expected out type to be",
    "Promotion for uint",
)


def fi_kind_for(torch_exc: BaseException) -> type[BaseException]:
    """The exception kind ferroiter must raise where torch raised `torch_exc`."""
    if isinstance(torch_exc, RuntimeError) and not isinstance(torch_exc, NotImplementedError):
        if any(s in str(torch_exc) for s in DTYPE_ERRORS):
            return TypeError
    for torch_kind, fi_kind in FI_KIND_FOR.items():
        if isinstance(torch_exc, torch_kind):
            return fi_kind
    raise AssertionError(f"unexpected torch exception {type(torch_exc).__name__}: {torch_exc}")


def outcome(fn):
    """(result, None) or (None, exception)."""
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - any error is an outcome to compare
        return None, e


def torch_error(fn_torch) -> BaseException | None:
    """The exception `fn_torch()` raises, or None."""
    return outcome(fn_torch)[1]


def assert_same_raise(
    fi_exc: BaseException | None,
    torch_exc: BaseException,
    what: str = "",
    kind: type[BaseException] | None = None,
) -> str:
    """ferroiter raised `fi_exc` where torch raised `torch_exc`: of `kind` (by default the kind
    fi_kind_for maps torch's to) with exactly torch's message. Returns the message."""
    assert fi_exc is not None, f"{what}ferroiter succeeded; torch raised {torch_exc!r}"
    kind = kind or fi_kind_for(torch_exc)
    assert isinstance(fi_exc, kind), (
        f"{what}ferroiter raised {type(fi_exc).__name__}({fi_exc}), expected "
        f"{kind.__name__}({torch_exc})"
    )
    assert str(fi_exc) == str(torch_exc), (
        f"{what}message:\nferroiter {str(fi_exc)!r}\ntorch     {str(torch_exc)!r}"
    )
    return str(fi_exc)


def assert_same_error(fn_fi, fn_torch, kind: type[BaseException] | None = None) -> str:
    """Both calls raise; ferroiter raises `kind` (by default the one fi_kind_for maps torch's
    to) with exactly torch's message. Returns the message."""
    t_exc = torch_error(fn_torch)
    assert t_exc is not None, "torch did not raise"
    result, f_exc = outcome(fn_fi)
    if f_exc is None:
        raise AssertionError(f"ferroiter returned {result!r}; torch raised {t_exc!r}")
    return assert_same_raise(f_exc, t_exc, kind=kind)


def assert_same_outcome(fn_fi, fn_torch, kind: type[BaseException] | None = None):
    """Either both raise the same error (see assert_same_error) and None is returned, or both
    succeed and (ferroiter's result, torch's result) is returned."""
    t_result, t_exc = outcome(fn_torch)
    if t_exc is not None:
        result, f_exc = outcome(fn_fi)
        if f_exc is None:
            raise AssertionError(f"ferroiter returned {result!r}; torch raised {t_exc!r}")
        assert_same_raise(f_exc, t_exc, kind=kind)
        return None
    return fn_fi(), t_result


# ---------------------------------------------------------------------------------------------
# a child interpreter, for inputs that could crash the process


def run_isolated(code: str, timeout: float = 120) -> str:
    """Runs `code` in a fresh interpreter (ferroiter and numpy imported as fi and np); asserts
    it exits normally (no signal, no abort, no PanicException) and returns its stdout."""
    prelude = "import numpy as np\nimport ferroiter as fi\n"
    proc = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, (
        f"the child exited with {proc.returncode}:\n{proc.stderr[-3000:]}\nstdout:\n{proc.stdout}"
    )
    assert "PanicException" not in proc.stderr + proc.stdout
    return proc.stdout
