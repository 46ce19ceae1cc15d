"""Elementwise operations against torch (the oracle): every function of the API on every dtype,
on random layouts built identically in torch and ferroiter (contiguous, channels_last(_3d),
permuted, sliced with steps, expanded, size-0, size-1, 0-d, broadcasting), with Python
scalars as operands, out=, in-place and reflected operators, alpha, negative strides (numpy),
1 and 2 threads and a tiny grain size, sizes around the grain size and the vector width.

Results must have torch's shape, strides and dtype, and its values: bit-exact, except
transcendental functions and pow (within 1 ulp of the result's own dtype) and complex
division, pow, abs and transcendental functions (a relative tolerance); errors must carry
torch's message (kinds as in harness.fi_kind_for).
"""

from __future__ import annotations

import math
import operator
import warnings
from functools import partial

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ferroiter as fi

from harness import (
    COMPLEX,
    COMPLEX_RTOL,
    CONTIGUOUS,
    DTYPE_PAIRS,
    FIXTURE_OK,
    NAME_OF,
    NUMPY_OF,
    OP_CASES,
    REDUCED,
    TORCH_DTYPES,
    Layout,
    Operand,
    assert_result,
    assert_same,
    assert_same_raise,
    assert_values,
    dtypes,
    layouts,
    op_names,
    op_rows,
    operator_rows,
    operators_of,
    ops_in,
    outcome,
    parallelism,
    python_operator,
    random_values,
    scaled,
    share,
    torch_to_numpy,
    ulp_distance,
)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

#: the op lists, from ferroiter's op table (harness.op_rows); their test metadata is OP_CASES
BINARY = op_names(2)
UNARY = op_names(1)
TRANSCENDENTAL = {n for n, c in OP_CASES.items() if c.ulps is not None}
#: complex results that round differently in torch's own vector and scalar loops (fused
#: multiply-adds in the scalar loop; complex `neg` is `0 - z` in the vector loop, `-z` in the
#: scalar one, so the sign of a zero part depends on the element's position): compared with a
#: relative tolerance; real dtypes stay exact
COMPLEX_ROUNDING = {n for n, c in OP_CASES.items() if c.complex_rounding}
#: torch functions that take a Python number as the second operand / as the first
SCALAR_SECOND = {n for n, c in OP_CASES.items() if c.scalar_second}
SCALAR_FIRST = {n for n, c in OP_CASES.items() if c.scalar_first}
DIVISIONS = {n for n, c in OP_CASES.items() if c.division}
#: functions whose complex inputs stay finite and moderate (no inf/NaN parts): torch takes
#: glibc's C99 special-value rules for them, ferroiter does not (see the report)
COMPLEX_FINITE = {n for n, c in OP_CASES.items() if c.complex_finite}
#: ops whose result for +0 against -0 depends on the element's position in torch
SIGNED_ZERO_TIES = {n for n, c in OP_CASES.items() if c.signed_zero_ties}
REDUCED_ANY = set(REDUCED)
#: complex pow: exp(y·log x) amplifies the rounding of y·log x by |y·log x|
COMPLEX_POW_RTOL = {torch.complex64: 1e-4, torch.complex128: 1e-12}


def test_every_table_row_has_test_metadata():
    """Adding an op to the table needs its OP_CASES row (tolerances, domains), and no stale
    rows stay behind."""
    assert sorted(OP_CASES) == sorted(r["name"] for r in op_rows())


def mode_for(name: str, in_dtype: torch.dtype | None = None):
    """The comparison mode for `name`'s result, as a function of the result dtype."""
    case = OP_CASES[name]

    def mode(out_dtype: torch.dtype) -> str:
        if name == "pow" and out_dtype in COMPLEX:
            return f"rtol:{COMPLEX_POW_RTOL[out_dtype]}"
        if case.ulps is not None or (case.complex_ulps and in_dtype in COMPLEX):
            return f"ulp:{case.extra_ulps.get(out_dtype, case.ulps or 1)}"
        if case.complex_rounding:
            return "complex"
        if case.signed_zero_ties:
            return "nosign0"
        return "exact"

    return mode


#: the dtype torch counts a Python number as before promotion (a wrapped number)
PY_KIND_DTYPE = {
    bool: torch.bool,
    int: torch.int64,
    float: torch.float64,
    complex: torch.complex128,
}


def is_number(x) -> bool:
    return isinstance(x, bool | int | float | complex)


#: binary functions whose integer operands promote to float (binary_float_op)
FLOAT_PRESET = {r["name"] for r in op_rows(2) if r["preset"] == "unary_float"}


def as_zero_dim(number, other, to_float: bool = False) -> torch.Tensor:
    """A Python number as the 0-d tensor torch would make of it as a wrapped number next to
    `other`: its value converted (wrapping, like the wrapped number) to the promoted dtype, or
    for a function whose integers promote to float (`to_float`) to the float32 it computes in
    when that dtype is integral (a wrapped -7 next to uint8 is -7.0 there, not 249)."""
    kind = torch.tensor(number, dtype=PY_KIND_DTYPE[type(number)])
    dtype = torch.result_type(other, number)
    if to_float and not (dtype.is_floating_point or dtype.is_complex):
        dtype = torch.float32
    return kind.to(dtype)


def torch_binary(name: str, x, y, **kw):
    """torch's `name(x, y)`; a Python number where torch's function takes none is given as a
    0-d tensor of the promoted dtype (the same dtype and values as a wrapped number)."""
    to_float = name in FLOAT_PRESET
    if is_number(y) and name not in SCALAR_SECOND:
        y = as_zero_dim(y, x, to_float)
    if is_number(x) and name not in SCALAR_FIRST:
        x = as_zero_dim(x, y, to_float)
    return getattr(torch, name)(x, y, **kw)


_COMPLEX_OF = {
    torch.float16: torch.complex32,
    torch.float32: torch.complex64,
    torch.float64: torch.complex128,
}


def _combine(higher, lower):
    """torch's result_type bucket rule (torch-semantics.md §8)."""
    if higher is None:
        return lower
    if lower is None or higher.is_complex:
        return higher
    if lower.is_complex:
        return _COMPLEX_OF.get(higher, lower) if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher == torch.bool or lower.is_floating_point:
        return torch.promote_types(higher, lower)
    return higher


def result_dtype(*operands) -> torch.dtype:
    """torch's result_type over any number of tensors and Python numbers."""
    buckets = [None, None, None]  # dim, zero-dim, wrapped
    for x in operands:
        if x is None:
            continue
        if isinstance(x, torch.Tensor):
            i, dtype = (0 if x.dim() else 1), x.dtype
        else:
            i = 2
            dtype = torch.result_type(torch.empty(0, dtype=torch.bool), x)
            dtype = {torch.bool: torch.bool}.get(dtype, dtype)
        buckets[i] = dtype if buckets[i] is None else torch.promote_types(buckets[i], dtype)
    return _combine(buckets[0], _combine(buckets[1], buckets[2]))


def promotes_to_complex32(*operands) -> bool:
    """Whether torch computes in complex32 (float16 with a complex operand): ferroiter has no
    complex32 arrays and refuses such operations with a TypeError."""
    if not any(isinstance(x, torch.Tensor) for x in operands):
        return False
    try:
        return result_dtype(*operands) == torch.complex32
    except (TypeError, RuntimeError):
        return False


def position_dependent(name: str, x, y, result: torch.Tensor) -> np.ndarray | None:
    """Elements where torch's own result depends on whether its vectorized or its scalar loop
    computed them (so no result matches both): left out of the value comparison.

    - remainder / floor_divide of floats whose quotient |x / y| overflows the dtype: the
      vectorized loop (SLEEF's fmod) gives NaN, the scalar one (libm's fmod) a number;
    - float32 ** a Python float that float32 cannot hold: the vectorized loop raises to the
      exponent rounded to float, the scalar loop to the double (by about |e·ln x|/4 ulps, or
      NaN against 1 when the exponent rounds to 0): the elements where the two exact powers
      round apart;
    - float sinh / cosh of 88.72 < |x| < 89.42: infinite in torch's vectorized loop (Sleef
      overflows with exp(|x|)), finite in its scalar one; ferroiter gives the vectorized one.
    - complex square where a part's square overflows: the vectorized loop multiplies z·z
      (inf - inf = NaN in the real part), the scalar one gives -inf or inf
      (torch.square(tensor([1e20+3e38j])) is -inf+infj, the same value in a 64-element
      contiguous tensor nan+infj).
    """
    if name == "square" and result.dtype.is_complex and isinstance(x, torch.Tensor):
        parts = torch.view_as_real(x.resolve_conj()).double().abs()
        limit = torch.finfo(result.dtype).max ** 0.5
        big = (parts > limit).any(dim=-1).numpy()
        return np.broadcast_to(big, tuple(result.shape))
    if not result.dtype.is_floating_point:
        return None
    if name in ("sinh", "cosh"):
        size = x.double().abs().numpy()
        return np.broadcast_to((size > 88.72) & (size < 89.42), tuple(result.shape))
    if name in ("remainder", "floor_divide"):
        xs = x.double() if isinstance(x, torch.Tensor) else torch.tensor(float(x))
        ys = y.double() if isinstance(y, torch.Tensor) else torch.tensor(float(y))
        with np.errstate(all="ignore"):
            q = np.broadcast_to((xs / ys).abs().numpy(), tuple(result.shape))
        return q > torch.finfo(result.dtype).max
    if name == "pow" and result.dtype == torch.float32 and isinstance(y, float):
        if float(np.float32(y)) == y or not isinstance(x, torch.Tensor):
            return None
        base = x.double().numpy()
        with np.errstate(all="ignore"):
            by_double = np.power(base, y).astype(np.float32)
            by_float = np.power(base, float(np.float32(y))).astype(np.float32)
        differ = ulp_distance(by_double, by_float) > 0
        return np.broadcast_to(differ, tuple(result.shape))
    return None


def torch_inaccurate(name: str, x, result: torch.Tensor) -> tuple[np.ndarray, np.ndarray] | None:
    """Elements where torch's own result is far from the truth, with the true value to check
    ferroiter's against there instead (an mpmath reference):

    - complex acos near ±1: torch loses up to ~1e-8 of relative accuracy there (acos of
      1 - 1.35e-4j: 7e-14; ferroiter stays within 5e-16 of mpmath on 9,000 such inputs).
    """
    complex_out = result.dtype in (torch.complex64, torch.complex128)
    if name != "acos" or not complex_out or not isinstance(x, torch.Tensor):
        return None
    import mpmath

    z = np.broadcast_to(x.resolve_conj().numpy(), tuple(result.shape)).reshape(-1)
    with mpmath.workprec(200):
        truth = np.array([complex(mpmath.acos(mpmath.mpc(complex(v)))) for v in z])
    theirs = torch_to_numpy(result).reshape(-1).astype(np.complex128)
    rtol = COMPLEX_RTOL[torch_to_numpy(result).dtype]
    with np.errstate(all="ignore"):
        off = np.abs(theirs - truth) > rtol * np.abs(truth)
    # (on the branch cuts, imaginary ±0 beyond ±1, the side is the zero's sign, which mpmath
    # does not see: those stay compared with torch)
    off &= np.isfinite(truth) & ((z.imag != 0) | (np.abs(z.real) <= 1))
    if not off.any():
        return None
    return off.reshape(result.shape), truth.reshape(result.shape)


def compare(
    fi_call,
    torch_call,
    mode,
    what: str = "",
    complex32: bool = False,
    operands: tuple | None = None,
):
    """Both raise the same error, or both return results that agree (assert_result). `mode`
    is a comparison mode or a function of the result dtype giving one; `operands` =
    (name, x, y) leaves out torch's position-dependent elements (see position_dependent)."""
    theirs, t_exc = outcome(torch_call)
    mine, f_exc = outcome(fi_call)
    if complex32:
        # torch may refuse before reaching complex32 (then the same error is expected)
        if t_exc is not None and f_exc is not None and str(t_exc) == str(f_exc):
            return None
        assert isinstance(f_exc, TypeError), f"{what}complex32: ferroiter gave {mine or f_exc!r}"
        return None
    if t_exc is not None:
        assert_same_raise(f_exc, t_exc, what)
        return None
    if f_exc is not None:
        raise AssertionError(f"{what}ferroiter raised {f_exc!r}; torch returned a result") from (
            f_exc
        )
    check_result(mine, theirs, mode, what, operands)
    return mine, theirs


def check_result(mine, theirs: torch.Tensor, mode, what: str = "", operands=None) -> None:
    """assert_result, leaving out the elements `position_dependent` names."""
    if callable(mode):
        mode = mode(theirs.dtype)
    skip = position_dependent(*operands, theirs) if operands is not None else None
    wrong = torch_inaccurate(operands[0], operands[1], theirs) if operands is not None else None
    if wrong is not None:
        off, truth = wrong
        assert isinstance(mine, fi.Array), f"{what}expected a ferroiter.Array"
        assert tuple(mine.shape) == tuple(theirs.shape), f"{what}shape"
        ours = mine.numpy()[off].astype(np.complex128)
        rtol = COMPLEX_RTOL[mine.numpy().dtype]
        assert (np.abs(ours - truth[off]) <= rtol * np.abs(truth[off])).all(), (
            f"{what}far from mpmath where torch is: {ours[:3]} vs {truth[off][:3]}"
        )
        skip = off if skip is None else (skip | off)
    if skip is not None and skip.any():
        assert isinstance(mine, fi.Array), f"{what}expected a ferroiter.Array"
        assert tuple(mine.shape) == tuple(theirs.shape), f"{what}shape"
        assert mine.stride() == theirs.stride(), f"{what}strides"
        assert mine.dtype == NUMPY_OF[theirs.dtype], f"{what}dtype"
        kept = ~skip
        assert_values(mine.numpy()[kept], torch_to_numpy(theirs)[kept], mode, what)
        return
    assert_result(mine, theirs, mode, what)


# ---- strategies --------------------------------------------------------------------------------

real_scalars = st.one_of(
    st.sampled_from([True, False, 0, 1, 2, 3, -1, -7, 200, 2**40, 0.5, -2.5, 0.1, 1e-3, 3e5]),
    st.sampled_from([float("inf"), float("nan"), -0.0]),
    st.integers(-300, 300),
    st.floats(-1e4, 1e4, allow_nan=False),
)
python_scalars = real_scalars | st.sampled_from([1.5 - 2j, 0.5j, complex("inf+1j")])


moderate_scalars = st.one_of(
    st.sampled_from([True, False, 0, 1, 2, 3, -1, -7, 0.5, -2.5, 0.1, 1.5 - 2j, 0.5j]),
    st.floats(-8, 8, allow_nan=False),
)


@st.composite
def result_shapes(draw, max_ndim: int = 5):
    ndim = draw(st.sampled_from([0, 1, 1, 2, 2, 3, 4, 4, 5][: max_ndim + 4]))
    ndim = min(ndim, max_ndim)
    size = st.sampled_from([1, 1, 2, 2, 3, 4, 5, 7, 0])
    return tuple(draw(st.lists(size, min_size=ndim, max_size=ndim)))


@st.composite
def operand_shape(draw, out_shape):
    """A shape that broadcasts to `out_shape`: leading dims dropped, some dims 1."""
    n = len(out_shape)
    k = draw(st.sampled_from([n, n, n] + list(range(n + 1))))
    return tuple(1 if draw(st.integers(0, 3)) == 0 else s for s in out_shape[n - k :])


@st.composite
def array_operands(draw, shape, dtype, nonzero=False, allow_expanded=True, special=None):
    layout = draw(layouts(shape, allow_expanded=allow_expanded))
    seed = draw(st.integers(0, 2**32 - 1))
    if special is None:
        special = dtype not in COMPLEX
    return Operand(shape, dtype, layout, seed, special=special, nonzero=nonzero)


@st.composite
def any_operand(
    draw,
    out_shape,
    dtype,
    nonzero=False,
    kinds=("array", "zero_dim", "scalar"),
    special=True,
):
    """An Operand (array of a broadcastable shape, or 0-d) or a Python number."""
    kind = draw(st.sampled_from([k for k in kinds for _ in range(6 if k == "array" else 1)]))
    if kind == "scalar":
        value = draw(
            python_scalars if special == "any" else real_scalars if special else moderate_scalars
        )
        return 1 if nonzero and value == 0 else value
    shape = () if kind == "zero_dim" else draw(operand_shape(out_shape))
    return draw(array_operands(shape, dtype, nonzero=nonzero, special=bool(special)))


def build(x):
    """(ferroiter operand, torch operand) from an Operand or a Python number."""
    if isinstance(x, Operand):
        return x.build()
    return x, x


def special_for(name: str, dtype: torch.dtype) -> bool:
    """Whether operands of `name` may hold special values (inf, NaN, huge, ±0)."""
    return not (dtype in COMPLEX and name in COMPLEX_FINITE)


# ---- every function on every dtype (fixed shapes) ---------------------------------------------

PAIRS = DTYPE_PAIRS
SCALARS = [True, False, 0, 3, -7, 300, 2**40, 2.5, -0.1, float("nan"), 1.5 - 2j]


@pytest.mark.parametrize("name", BINARY)
def test_binary_every_dtype_pair(name):
    """(2, 9) ⊙ (9,) for each of the 144 dtype pairs: dtype, values, or torch's refusal."""
    for i, (da, db) in enumerate(PAIRS):
        sa, sb = special_for(name, da), special_for(name, db)
        a, ta = Operand((2, 9), da, seed=i, special=sa and sb).build()
        y = Operand((9,), db, seed=1000 + i, special=sa and sb, nonzero=name in DIVISIONS)
        b, tb = y.build()
        compare(
            lambda a=a, b=b: getattr(fi, name)(a, b),
            lambda ta=ta, tb=tb: torch_binary(name, ta, tb),
            mode_for(name, da),
            f"{name}({da}, {db}): ",
            complex32=promotes_to_complex32(ta, tb),
            operands=(name, ta, tb),
        )


@pytest.mark.parametrize("name", BINARY)
def test_binary_python_scalars(name):
    """Every dtype against Python bool, int, float and complex numbers, on either side."""
    for i, dtype in enumerate(TORCH_DTYPES):
        a, ta = Operand((3, 5), dtype, seed=i, nonzero=name in DIVISIONS).build()
        for s in SCALARS:
            if name == "pow" and (dtype in COMPLEX or isinstance(s, complex)) and abs(s) > 10:
                continue  # complex powers that overflow: implementation-specific inf/NaN
            compare(
                lambda a=a, s=s: getattr(fi, name)(a, s),
                lambda ta=ta, s=s: torch_binary(name, ta, s),
                mode_for(name, dtype),
                f"{name}({dtype}, {s!r}): ",
                complex32=promotes_to_complex32(ta, s),
                operands=(name, ta, s),
            )
            compare(
                lambda a=a, s=s: getattr(fi, name)(s, a),
                lambda ta=ta, s=s: torch_binary(name, s, ta),
                mode_for(name, dtype),
                f"{name}({s!r}, {dtype}): ",
                complex32=promotes_to_complex32(ta, s),
                operands=(name, s, ta),
            )


@pytest.mark.parametrize("name", UNARY)
def test_unary_every_dtype(name):
    """Each dtype, contiguous (vector loop and tail) and strided."""
    strided = Layout((1, 0), None, (1, 0), (2, 1), (False, False))
    for i, dtype in enumerate(TORCH_DTYPES):
        for layout in (CONTIGUOUS, strided):
            x = Operand((4, 37), dtype, layout, seed=i, special=special_for(name, dtype))
            a, ta = x.build()
            compare(
                lambda a=a: getattr(fi, name)(a),
                lambda ta=ta: getattr(torch, name)(ta),
                mode_for(name, dtype),
                f"{name}({dtype}): ",
                operands=(name, ta, None),
            )


def test_torch_sigmoid_depends_on_layout():
    """Why sigmoid has extra ulps (harness.OP_CASES): torch's own float32 results differ by
    more than 1 ulp between its vectorized (contiguous) and scalar (strided) loops on the same
    values."""
    x = random_values((4096,), torch.float32, np.random.default_rng(0), special=False)
    contiguous = torch.sigmoid(x)
    strided = torch.sigmoid(torch.stack([x, x], 1)[:, 0])
    assert ulp_distance(contiguous.numpy(), strided.numpy()).max() > 1


# ---- random layouts, 1/2 threads and a tiny grain ----------------------------------------------


@st.composite
def binary_cases(draw, name):
    out_shape = draw(result_shapes())
    da = draw(dtypes)
    db = da if draw(st.booleans()) else draw(dtypes)
    special = special_for(name, da) and special_for(name, db)
    if special and name not in COMPLEX_FINITE:
        special = "any"  # complex Python numbers with special values too
    x = draw(any_operand(out_shape, da, special=special))
    y = draw(
        any_operand(
            out_shape,
            db,
            nonzero=name in DIVISIONS and draw(st.integers(0, 9)) > 0,
            kinds=("array", "zero_dim") if is_number(x) else ("array", "zero_dim", "scalar"),
            special=special,
        )
    )
    return x, y


@pytest.mark.parametrize("name", BINARY)
@settings(max_examples=scaled(30), suppress_health_check=FIXTURE_OK)
@given(data=st.data())
def test_binary_random_layouts(name, threads_and_grain, data):
    x, y = data.draw(binary_cases(name), label="operands")
    (a, ta), (b, tb) = build(x), build(y)
    with parallelism(*threads_and_grain):
        compare(
            lambda: getattr(fi, name)(a, b),
            lambda: torch_binary(name, ta, tb),
            mode_for(name, ta.dtype if isinstance(ta, torch.Tensor) else None),
            complex32=promotes_to_complex32(ta, tb),
            operands=(name, ta, tb),
        )


@pytest.mark.parametrize("name", UNARY)
@settings(max_examples=scaled(30), suppress_health_check=FIXTURE_OK)
@given(data=st.data())
def test_unary_random_layouts(name, threads_and_grain, data):
    shape = data.draw(result_shapes(), label="shape")
    dtype = data.draw(dtypes, label="dtype")
    x = data.draw(array_operands(shape, dtype, special=special_for(name, dtype)), label="x")
    a, ta = x.build()
    with parallelism(*threads_and_grain):
        compare(
            lambda: getattr(fi, name)(a),
            lambda: getattr(torch, name)(ta),
            mode_for(name, dtype),
            operands=(name, ta, None),
        )


# ---- out= --------------------------------------------------------------------------------------

#: Ops whose torch function has no out= (ferroiter's has one, like every table op): their out=
#: path is the table's, tested through the other ops.
TORCH_TAKES_NO_OUT = {"isnan", "isinf", "isfinite"}


@st.composite
def out_cases(draw):
    """A function, its operands, and an out= of the result's shape: any dtype, any layout
    (rarely expanded: torch's internal-overlap error)."""
    name = draw(st.sampled_from([n for n in BINARY + UNARY if n not in TORCH_TAKES_NO_OUT]))
    shape = draw(result_shapes(max_ndim=4))
    da = draw(dtypes)
    special = special_for(name, da)
    if name in UNARY:
        operands = [draw(array_operands(shape, da, special=special))]
    else:
        db = da if draw(st.booleans()) else draw(dtypes)
        special = special and special_for(name, db)
        x = draw(any_operand(shape, da, special=special, kinds=("array", "zero_dim")))
        y = draw(
            any_operand(shape, db, nonzero=name in DIVISIONS, special=special and "any" or False)
        )
        operands = [x, y]
    shapes = [o.shape for o in operands if isinstance(o, Operand)]
    result_shape = tuple(torch.broadcast_shapes(*shapes))
    expanded = draw(st.integers(0, 9)) == 0
    layout = draw(layouts(result_shape, allow_expanded=expanded))
    out = Operand(result_shape, draw(dtypes), layout, draw(st.integers(0, 2**32 - 1)))
    return name, operands, out


@settings(max_examples=scaled(300))
@given(out_cases())
def test_out_of_the_result_shape(case):
    """out= of the right shape, same or another dtype: torch's values cast into it (or torch's
    refusal), its strides kept, the out object itself returned."""
    name, operands, out = case
    built = [build(x) for x in operands]
    fargs, targs = [b[0] for b in built], [b[1] for b in built]
    t_out = out.tensor()
    f_out, _ = out.build()  # same values and strides, other memory
    theirs, t_exc = outcome(
        lambda: (
            torch_binary(name, *targs, out=t_out)
            if len(targs) == 2
            else getattr(torch, name)(*targs, out=t_out)
        )
    )
    mine, f_exc = outcome(lambda: getattr(fi, name)(*fargs, out=f_out))
    if promotes_to_complex32(*targs):
        if not (t_exc is not None and f_exc is not None and str(t_exc) == str(f_exc)):
            assert isinstance(f_exc, TypeError), f"complex32: ferroiter gave {f_exc!r}"
        return
    if t_exc is not None:
        assert_same_raise(f_exc, t_exc)
        return
    assert f_exc is None, f"ferroiter raised {f_exc!r}"
    assert mine is f_out, "out= must be returned as the result"
    in_dtype = targs[0].dtype if isinstance(targs[0], torch.Tensor) else None
    # (the values in the out's dtype: position-dependent elements of the computation are
    # judged on the computed dtype, which the out's may differ from; skip them likewise)
    operands = (name, *targs) if len(targs) == 2 else None
    mode = mode_for(name, in_dtype)
    plain = outcome(
        lambda: torch_binary(name, *targs) if len(targs) == 2 else getattr(torch, name)(*targs)
    )[0]
    inexact = plain is not None and (plain.dtype.is_floating_point or plain.dtype.is_complex)
    if inexact and plain.dtype != t_out.dtype and mode(plain.dtype) != "exact":
        # computed in plain.dtype, then cast into the out's: a rounding tolerance applies in
        # the computed dtype (ulps of float32, not of a float64 out)
        assert f_out.stride() == t_out.stride() and f_out.dtype == NUMPY_OF[t_out.dtype]
        f_out, t_out = f_out.to(NAME_OF[plain.dtype]), t_out.to(plain.dtype)
    check_result(f_out, t_out, mode, operands=operands)


def _resize_warnings(caught) -> list[str]:
    """The texts of torch's / ferroiter's out= resize warnings (torch appends the C++ place
    that raised it, which ferroiter has no reason to imitate)."""
    texts = [str(w.message) for w in caught if "was resized" in str(w.message)]
    return [t.split(" (Triggered internally")[0] for t in texts]


@st.composite
def resize_cases(draw):
    """A function, its operands and an out= of *another* shape than the result's: empty or
    not, of any dtype and layout (torch resizes it, warning when it had elements)."""
    name, operands, out = draw(out_cases())
    shape = draw(st.lists(st.integers(0, 4), max_size=3).map(tuple))
    assume(shape != out.shape)
    out = Operand(shape, out.dtype, draw(layouts(shape, allow_expanded=False)), out.seed)
    return name, operands, out


@settings(max_examples=scaled(300))
@given(resize_cases())
def test_out_of_another_shape_is_resized(case):
    """torch's out= policy: an out= of another shape is resized — silently when it has no
    elements, with torch's deprecation warning otherwise — to the strides a new result would
    get; the out object itself is returned (re-pointed at fresh memory: views of its old
    memory keep their values)."""
    name, operands, out = case
    built = [build(x) for x in operands]
    fargs, targs = [b[0] for b in built], [b[1] for b in built]
    t_out = out.tensor().clone()  # (memory torch owns: it can resize it)
    f_out, _ = out.build()
    old_view, old_values = f_out[...], f_out.numpy().copy()

    def call_torch():
        if len(targs) == 2:
            return torch_binary(name, *targs, out=t_out)
        return getattr(torch, name)(*targs, out=t_out)

    with warnings.catch_warnings(record=True) as t_caught:
        warnings.simplefilter("always")
        theirs, t_exc = outcome(call_torch)
    with warnings.catch_warnings(record=True) as f_caught:
        warnings.simplefilter("always")
        mine, f_exc = outcome(lambda: getattr(fi, name)(*fargs, out=f_out))
    if promotes_to_complex32(*targs):
        return
    if t_exc is not None:
        assert_same_raise(f_exc, t_exc)
        return
    assert f_exc is None, f"ferroiter raised {f_exc!r}"
    assert mine is f_out, "out= must be returned as the result"
    assert _resize_warnings(f_caught) == _resize_warnings(t_caught)
    assert tuple(f_out.shape) == tuple(t_out.shape)
    assert f_out.stride() == t_out.stride(), f"strides {f_out.stride()} != {t_out.stride()}"
    assert old_view.numpy().tobytes() == old_values.tobytes(), "a view of the old out changed"
    in_dtype = targs[0].dtype if isinstance(targs[0], torch.Tensor) else None
    mode = mode_for(name, in_dtype)
    plain = outcome(
        lambda: torch_binary(name, *targs) if len(targs) == 2 else getattr(torch, name)(*targs)
    )[0]
    inexact = plain is not None and (plain.dtype.is_floating_point or plain.dtype.is_complex)
    if inexact and plain.dtype != t_out.dtype and mode(plain.dtype) != "exact":
        f_out, t_out = f_out.to(NAME_OF[plain.dtype]), t_out.to(plain.dtype)
    operands = (name, *targs) if len(targs) == 2 else None
    check_result(f_out, t_out, mode, operands=operands)


@pytest.mark.parametrize("name", ops_in("resize"))
def test_out_resize_examples(name):
    """The policy on fixed cases: resized to the result's shape (silently when empty), the
    warning's text torch's, the old memory untouched."""
    x = fi.ones((2, 3), dtype="float32")
    tx = torch.ones(2, 3)
    args, targs = ((x,), (tx,)) if name in UNARY else ((x, x), (tx, tx))
    for shape in [(3,), (0,), (2, 3, 1), (6,), (1, 3), ()]:
        out, t_out = fi.zeros(shape, dtype="float32"), torch.zeros(shape)
        view = out[...]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = getattr(fi, name)(*args, out=out)
        with warnings.catch_warnings(record=True) as t_caught:
            warnings.simplefilter("always")
            getattr(torch, name)(*targs, out=t_out)
        assert result is out
        assert _resize_warnings(caught) == _resize_warnings(t_caught)
        assert (len(_resize_warnings(caught)) == 1) == (math.prod(shape) > 0)
        assert (tuple(out.shape), out.stride()) == (tuple(t_out.shape), t_out.stride())
        np.testing.assert_array_equal(out.numpy(), torch_to_numpy(t_out))
        assert view.numpy().tolist() == np.zeros(shape).tolist(), "the old memory was written"


def test_out_overlap_is_checked_before_its_shape():
    """torch checks an output's internal overlap before anything about its shape."""
    x = fi.ones((2, 3))
    for shape in [(3,), (2, 3), (4,)]:
        expanded = fi.zeros((1,)).expand(*shape)
        t_expanded = torch.zeros(1).expand(*shape)
        for fn, tfn in [
            (lambda o: fi.add(x, 1, out=o), lambda o: torch.add(torch.ones(2, 3), 1, out=o)),
            (lambda o: fi.neg(x, out=o), lambda o: torch.neg(torch.ones(2, 3), out=o)),
        ]:
            with pytest.raises(ValueError) as e:
                fn(expanded)
            with pytest.raises(RuntimeError) as t:
                tfn(t_expanded)
            assert str(e.value) == str(t.value)
            assert str(e.value).startswith("unsupported operation: more than one element")


# ---- in-place, forward and reflected operators -------------------------------------------------

#: dunder -> function name, for the in-place and the forward operators of the table's ops
#: (harness.operator_rows); parametrized by dunder name
INPLACE = {inplace: name for name, _, inplace in operator_rows() if inplace}
FORWARD = {forward: name for name, forward, _ in operator_rows()}


@st.composite
def inplace_cases(draw, dunder):
    name = INPLACE[dunder]
    shape = draw(result_shapes())
    da = draw(dtypes)
    db = da if draw(st.booleans()) else draw(dtypes)
    special = special_for(name, da) and special_for(name, db)
    expanded = draw(st.integers(0, 9)) == 0  # an expanded self: internal overlap
    self_ = draw(array_operands(shape, da, allow_expanded=expanded, special=special))
    if draw(st.integers(0, 19)) == 0:
        other_shape = (2, *shape)  # does not fit into self: torch's shape error
        other = draw(array_operands(other_shape, db, special=special))
    else:
        other = draw(
            any_operand(shape, db, nonzero=name in DIVISIONS, special=special and "any" or False)
        )
    return self_, other


@pytest.mark.parametrize("dunder", list(INPLACE))
@settings(max_examples=scaled(40), suppress_health_check=FIXTURE_OK)
@given(data=st.data())
def test_inplace_operators(dunder, threads_and_grain, data):
    """`a op= b` writes into a (torch's add_ & co.): same values, a's strides, a returned."""
    self_, other = data.draw(inplace_cases(dunder), label="operands")
    t_self = self_.tensor()
    f_self, _ = self_.build()  # equal values and strides, separate memory
    f_other, t_other = build(other)
    op = python_operator(dunder)
    with parallelism(*threads_and_grain):
        theirs, t_exc = outcome(lambda: op(t_self, t_other))
        mine, f_exc = outcome(lambda: op(f_self, f_other))
    if promotes_to_complex32(t_self, t_other):
        if not (t_exc is not None and f_exc is not None and str(t_exc) == str(f_exc)):
            assert isinstance(f_exc, TypeError), f"complex32: ferroiter gave {f_exc!r}"
        return
    if t_exc is not None:
        assert_same_raise(f_exc, t_exc)
        return
    assert f_exc is None, f"ferroiter raised {f_exc!r}"
    assert mine is f_self, f"`a.{dunder}(b)` must rebind a to itself"
    name = INPLACE[dunder]
    before = self_.tensor()  # (t_self now holds the result)
    check_result(f_self, t_self, mode_for(name, t_self.dtype), operands=(name, before, t_other))


@pytest.mark.parametrize("dunder", list(FORWARD))
def test_operators_with_python_scalars(dunder):
    """`a op s` and `s op a` (reflected) on every dtype and Python number kind, against
    torch's operators: `s / a` is `a.reciprocal() * s` in torch, `s ** a` is contiguous."""
    op = python_operator(dunder)
    name = FORWARD[dunder]
    cl = Layout(fmt="channels_last")
    for i, dtype in enumerate(TORCH_DTYPES):
        for layout, shape in ((CONTIGUOUS, (3, 37)), (cl, (2, 3, 2, 5))):
            special = special_for(name, dtype)
            x = Operand(shape, dtype, layout, seed=i, special=special, nonzero=name in DIVISIONS)
            a, ta = x.build()
            for s in SCALARS:
                if name == "pow" and (dtype in COMPLEX or isinstance(s, complex)) and abs(s) > 10:
                    continue
                for mine, theirs, what, xy in (
                    (lambda a=a, s=s: op(a, s), lambda ta=ta, s=s: op(ta, s), "a {} s", (ta, s)),
                    (lambda a=a, s=s: op(s, a), lambda ta=ta, s=s: op(s, ta), "s {} a", (s, ta)),
                ):
                    compare(
                        mine,
                        theirs,
                        mode_for(name, dtype),
                        f"{what.format(dunder)} for {dtype}, s={s!r}: ",
                        complex32=promotes_to_complex32(ta, s),
                        operands=(name, *xy),
                    )


@pytest.mark.parametrize("dunder", list(FORWARD))
@given(data=st.data())
@settings(max_examples=scaled(25))
def test_operators_between_arrays(dunder, data):
    name = FORWARD[dunder]
    x, y = data.draw(binary_cases(name), label="operands")
    if is_number(x):
        x, y = y, x
    (a, ta), (b, tb) = build(x), build(y)
    compare(
        lambda: python_operator(dunder)(a, b),
        lambda: python_operator(dunder)(ta, tb),
        mode_for(name, ta.dtype),
        complex32=promotes_to_complex32(ta, tb),
        operands=(name, ta, tb),
    )


#: dunder -> function name, for the unary ops' operators (`-a`, `abs(a)`, `~a`)
UNARY_OPERATORS = {d: name for name in UNARY for d in operators_of(name)}


@pytest.mark.parametrize("dunder", list(UNARY_OPERATORS))
def test_unary_operators(dunder):
    name = UNARY_OPERATORS[dunder]
    fi_op = python_operator(dunder)
    for i, dtype in enumerate(TORCH_DTYPES):
        a, ta = Operand((3, 37), dtype, seed=i, special=dtype not in COMPLEX).build()
        compare(lambda a=a: fi_op(a), lambda ta=ta: fi_op(ta), mode_for(name, dtype), f"{dtype}: ")


def test_numpy_array_on_the_left():
    nd = np.arange(6, dtype=np.float32).reshape(2, 3)
    a, ta = Operand((2, 3), torch.float32, seed=1, special=False).build()
    for dunder, name in FORWARD.items():
        if name not in ops_in("ndarray"):
            continue
        op = python_operator(dunder)
        mine = op(nd, a)
        assert isinstance(mine, fi.Array), f"ndarray {dunder} Array gave {type(mine)}"
        assert_values(mine.numpy(), op(torch.from_numpy(nd), ta).numpy())


# ---- alpha -------------------------------------------------------------------------------------

ALPHAS = [2, -1, 0, 3, 300, -129, True, False, 0.5, -2.5, 1e-3, 1e39, float("nan"), 1 + 1j, -2j]


def assert_alpha_result(mine, theirs, a, b, alpha, what):
    """float16/bfloat16 with alpha != 1: torch's vectorized loop rounds `a + alpha·b` once
    (fma in float), its scalar loop (tails, strided data) rounds `alpha·b` to the dtype first,
    so an element may differ by the rounding of that product: at most 1 ulp of the result
    plus 1 ulp of |alpha·b| apart."""
    assert mine.shape == tuple(theirs.shape) and mine.stride() == theirs.stride(), what
    assert mine.dtype == NUMPY_OF[theirs.dtype], what
    x = mine.numpy().astype(np.float64)
    y = torch_to_numpy(theirs).astype(np.float64)
    finfo = torch.finfo(theirs.dtype)
    product = np.abs(np.float64(complex(alpha).real) * b.to(torch.float64).numpy())

    step = 2.0 ** np.floor(np.log2(np.maximum(np.maximum(np.abs(y), product), finfo.tiny)))
    bound = step * finfo.eps * 2
    with np.errstate(invalid="ignore"):
        ok = (x == y) | (np.isnan(x) & np.isnan(y)) | (np.abs(x - y) <= bound)
    assert ok.all(), f"{what}ferroiter {x[~ok][:5]} torch {y[~ok][:5]}"


@pytest.mark.parametrize("name", [r["name"] for r in op_rows(2) if r["alpha"]])
@pytest.mark.parametrize("alpha", ALPHAS, ids=repr)
def test_alpha(name, alpha):
    """`a + alpha·b`: one rounding (fma) for float32/64, alpha converted to the dtype with
    torch's overflow check, torch's refusals of alpha kinds."""
    t_fn, f_fn = getattr(torch, name), getattr(fi, name)
    for i, (da, db) in enumerate(PAIRS):
        common = torch.promote_types(da, db)
        reduced = alpha not in (1, True)  # (matters for float16/bfloat16 results only)
        special = common not in COMPLEX and not (reduced and REDUCED_ANY & {da, db})
        a, ta = Operand((2, 40), da, seed=i, special=special).build()
        b, tb = Operand((40,), db, seed=500 + i, special=special).build()
        for fb, tb_ in ((b, tb), (3, 3)):
            what = f"{name}({da}, {tb_ if is_number(tb_) else db}, alpha={alpha!r}): "
            theirs, t_exc = outcome(lambda ta=ta, tb_=tb_: t_fn(ta, tb_, alpha=alpha))
            mine, f_exc = outcome(lambda a=a, fb=fb: f_fn(a, fb, alpha=alpha))
            if t_exc is not None:
                assert_same_raise(f_exc, t_exc, what)
            elif f_exc is not None:
                raise AssertionError(f"{what}ferroiter raised {f_exc!r}")
            elif reduced and theirs.dtype in REDUCED:
                other = tb_ if isinstance(tb_, torch.Tensor) else torch.tensor(float(tb_))
                assert_alpha_result(mine, theirs, ta, other, alpha, what)
            else:
                assert_result(mine, theirs, mode_for("mul", common)(theirs.dtype), what)


# ---- where and clamp ---------------------------------------------------------------------------


@st.composite
def where_cases(draw):
    shape = draw(result_shapes())
    cond_dtype = draw(st.sampled_from([torch.bool] * 8 + [torch.uint8, torch.float32]))
    cond = draw(array_operands(draw(operand_shape(shape)), cond_dtype))
    da = draw(dtypes)
    db = da if draw(st.booleans()) else draw(dtypes)
    x = draw(any_operand(shape, da, special="any"))
    y = draw(any_operand(shape, db, special="any"))
    return cond, x, y


@settings(max_examples=scaled(150), suppress_health_check=FIXTURE_OK)
@given(case=where_cases())
def test_where(threads_and_grain, case):
    cond, x, y = case
    (c, tc), (a, ta), (b, tb) = build(cond), build(x), build(y)
    with parallelism(*threads_and_grain), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's uint8-condition deprecation
        compare(
            lambda: fi.where(c, a, b),
            lambda: torch.where(tc, ta, tb),
            "exact",
            complex32=promotes_to_complex32(ta, tb),
        )


@st.composite
def clamp_cases(draw):
    shape = draw(result_shapes())
    dtype = draw(dtypes)
    x = draw(array_operands(shape, dtype))
    kind = draw(st.sampled_from(["numbers", "arrays"]))
    bounds = []
    for _ in range(2):
        if draw(st.integers(0, 3)) == 0:
            bounds.append(None)
        elif kind == "numbers":
            bounds.append(draw(real_scalars | st.sampled_from([1 + 1j])))
        else:
            bdtype = dtype if draw(st.booleans()) else draw(dtypes)
            bounds.append(draw(array_operands(draw(operand_shape(shape)), bdtype)))
    return x, bounds[0], bounds[1]


@settings(max_examples=scaled(200), suppress_health_check=FIXTURE_OK)
@given(case=clamp_cases())
def test_clamp(threads_and_grain, case):
    x, lo, hi = case
    (a, ta), (flo, tlo), (fhi, thi) = build(x), build(lo), build(hi)
    with parallelism(*threads_and_grain):
        tensor_bounds = isinstance(lo, Operand) or isinstance(hi, Operand)
        compare(
            lambda: fi.clamp(a, flo, fhi),
            lambda: torch.clamp(ta, tlo, thi),
            "nosign0" if tensor_bounds else "exact",
            complex32=promotes_to_complex32(ta, tlo, thi),
        )


def test_where_and_clamp_out():
    c, tc = Operand((3, 4), torch.bool, seed=1).build()
    a, ta = Operand((3, 4), torch.float32, seed=2).build()
    for dtype in TORCH_DTYPES:
        t_out = torch.zeros((3, 4), dtype=dtype)
        f_out = share(torch.zeros((3, 4), dtype=dtype))
        compare(
            lambda f_out=f_out: fi.where(c, a, 2.5, out=f_out),
            # torch's where(out=) takes tensors only: 2.5 as the 0-d tensor it wraps it into
            lambda t_out=t_out: torch.where(
                tc, ta, torch.tensor(2.5, dtype=torch.float64), out=t_out
            ),
            "exact",
            f"where out={dtype}: ",
        )
        t_out = torch.zeros((3, 4), dtype=dtype)
        f_out = share(torch.zeros((3, 4), dtype=dtype))
        compare(
            lambda f_out=f_out: fi.clamp(a, -0.5, 0.5, out=f_out),
            lambda t_out=t_out: torch.clamp(ta, -0.5, 0.5, out=t_out),
            "exact",
            f"clamp out={dtype}: ",
        )


# ---- negative strides (numpy), against torch on a positive-stride copy -------------------------


#: rows read backwards with every second column (numpy strides (-8k, -2k)), and a row of it
FLIPPED_MATRIX = Layout((0, 1), None, (0, 0), (1, 2), (False, False), flipped=(0, 1))
FLIPPED_ROW = Layout((0,), None, (0,), (2,), (False,), flipped=(0,))


@pytest.mark.parametrize("name", BINARY + UNARY)
def test_negative_strides_from_numpy(name):
    """Operands with negative strides (numpy views) against torch on their positive-stride
    twins: the operands agree (strides with signs), the results in values, shape and dtype,
    ferroiter's result being dense."""
    for i, dtype in enumerate(TORCH_DTYPES):
        special = special_for(name, dtype)
        x = Operand((6, 4), dtype, FLIPPED_MATRIX, seed=7 + i, special=special)
        y = Operand((4,), dtype, FLIPPED_ROW, 70 + i, special, nonzero=name in DIVISIONS)
        (a, ta), (b, tb) = x.build(), y.build()
        assert_same(a, ta, flipped=(0, 1))
        assert_same(b, tb, flipped=(0,))
        args_f, args_t = ((a,), (ta,)) if name in UNARY else ((a, b), (ta, tb))
        theirs, t_exc = outcome(
            lambda args_t=args_t: (
                getattr(torch, name)(*args_t) if name in UNARY else torch_binary(name, *args_t)
            )
        )
        mine, f_exc = outcome(lambda args_f=args_f: getattr(fi, name)(*args_f))
        if t_exc is not None:
            assert_same_raise(f_exc, t_exc, f"{name}({dtype}): ")
            continue
        assert f_exc is None, f"{name}({dtype}): ferroiter raised {f_exc!r}"
        assert mine.is_non_overlapping_and_dense()
        mode = mode_for(name, dtype)(theirs.dtype)
        assert_same(mine, theirs, mode, f"{name}({dtype}): ", strides=False, offset=False)


# ---- sizes around the grain and the vector width -----------------------------------------------

GRAIN_OPS = ops_in("grain")


@pytest.mark.parametrize("n", [32767, 32768, 32769, 2 * 32768 + 1])
@pytest.mark.parametrize("threads", [1, 2])
def test_sizes_around_the_grain(n, threads):
    """With the default grain: one chunk up to 32768 elements, two above (2 threads)."""
    for dtype in (torch.float32, torch.int32, torch.float16):
        a, ta = Operand((n,), dtype, seed=n).build()
        b, tb = Operand((n,), dtype, seed=n + 1, nonzero=True).build()
        with parallelism(threads, None):
            for name in GRAIN_OPS:
                if name in UNARY:
                    compare(
                        lambda a=a, name=name: getattr(fi, name)(a),
                        lambda ta=ta, name=name: getattr(torch, name)(ta),
                        mode_for(name, dtype),
                        f"{name}({dtype}, n={n}): ",
                    )
                else:
                    compare(
                        lambda a=a, b=b, name=name: getattr(fi, name)(a, b),
                        lambda ta=ta, tb=tb, name=name: torch_binary(name, ta, tb),
                        mode_for(name, dtype),
                        f"{name}({dtype}, n={n}): ",
                        operands=(name, ta, tb),
                    )


VECTOR_SIZES = [7, 8, 9, 15, 16, 17, 31, 32, 33]


@pytest.mark.parametrize("k", VECTOR_SIZES)
def test_inner_sizes_around_the_vector_width(k):
    """Rows of k elements: contiguous, with a broadcast scalar as the first or the second
    input, and with a non-contiguous inner dim; 1 thread and a grain of 3 on 2 threads."""
    strided = Layout((0, 1), None, (0, 1), (1, 2), (False, False))
    for i, dtype in enumerate(TORCH_DTYPES):
        for name in ops_in("vector", arity=2):
            special = special_for(name, dtype)
            x = Operand((3, k), dtype, seed=i, special=special)
            y = Operand((3, k), dtype, seed=100 + i, special=special, nonzero=name in DIVISIONS)
            one = Operand((1, 1), dtype, seed=200 + i, special=special, nonzero=True)
            z = Operand((3, k), dtype, strided, seed=300 + i, special=special)
            for left, right in ((x, y), (one, y), (x, one), (z, x), (x, z)):
                (a, ta), (b, tb) = left.build(), right.build()
                for par in ((1, None), (2, 3)):
                    with parallelism(*par):
                        compare(
                            lambda a=a, b=b, name=name: getattr(fi, name)(a, b),
                            lambda ta=ta, tb=tb, name=name: torch_binary(name, ta, tb),
                            mode_for(name, dtype),
                            f"{name}({dtype}) {left.shape}·{right.shape} k={k}: ",
                            operands=(name, ta, tb),
                        )


# ---- errors ------------------------------------------------------------------------------------


def test_broadcast_errors():
    pairs = [((2, 3), (2,)), ((4, 1, 3), (2, 3, 1, 2)), ((0,), (2,)), ((3, 1), (2, 3, 2))]
    for sa, sb in pairs:
        a, ta = Operand(sa, torch.float32).build()
        b, tb = Operand(sb, torch.float32).build()
        for name in ops_in("broadcast"):
            compare(
                lambda a=a, b=b, name=name: getattr(fi, name)(a, b),
                lambda ta=ta, tb=tb, name=name: getattr(torch, name)(ta, tb),
                "exact",
            )


def test_overlap_errors_of_inplace_and_out():
    """Partial overlap of an input with the written array, an expanded written array: torch's
    texts; full overlap (the same elements) is allowed."""
    t = torch.arange(12, dtype=torch.float32)
    a = fi.from_numpy(t.numpy().copy())
    f, g = a, torch.arange(12, dtype=torch.float32)
    cases = [
        (lambda: operator.iadd(f[1:], f[:-1]), lambda: operator.iadd(g[1:], g[:-1])),
        (lambda: fi.add(f[:6], 1, out=f[3:9]), lambda: torch.add(g[:6], 1, out=g[3:9])),
        (lambda: fi.neg(f[2:8], out=f[:6]), lambda: torch.neg(g[2:8], out=g[:6])),
        (
            lambda: operator.iadd(f[:1].expand(5), 1),
            lambda: operator.iadd(g[:1].expand(5), 1),
        ),
        (lambda: fi.exp(f[:4], out=f[:1].expand(4)), lambda: torch.exp(g[:4], out=g[:1].expand(4))),
    ]
    for mine, theirs in cases:
        compare(mine, theirs, "exact")
    # full overlap: a += a[:], out= the input itself
    compare(lambda: operator.iadd(f, f[:]), lambda: operator.iadd(g, g[:]), "exact")
    compare(lambda: fi.mul(f, 2, out=f), lambda: torch.mul(g, 2, out=g), "exact")
    assert_values(a.numpy(), g.numpy())


@pytest.mark.parametrize("cols", [1, 3, 8, 33, 64, 65])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int16, torch.complex64])
@pytest.mark.parametrize("threads", [1, 2])
def test_short_rows_against_a_row_or_a_column(cols, dtype, threads):
    """`X ⊙ row` and `X ⊙ column` (either side, allocating, into out= and in place) of a
    contiguous X of short rows — the loops run several rows at a time there (rows of at most
    256 bytes, `exec::raw::loops::repeated_input`): torch's results, bit for bit."""
    rows = 301
    x = Operand((rows, cols), dtype, CONTIGUOUS, seed=cols, nonzero=True)
    row = Operand((cols,), dtype, CONTIGUOUS, seed=cols + 1, nonzero=True)
    column = Operand((rows, 1), dtype, CONTIGUOUS, seed=cols + 2, nonzero=True)
    with parallelism(threads, 64):
        for other in (row, column):
            for name, in_place in (
                ("sub", operator.isub),
                ("mul", operator.imul),
                ("div", operator.itruediv),
            ):
                f, t, mode = getattr(fi, name), getattr(torch, name), mode_for(name, dtype)
                what = f"X {name} {other.shape}"
                (a, ta), (b, tb) = x.build(), other.build()
                compare(partial(f, a, b), partial(t, ta, tb), mode, f"{what}: ")
                compare(partial(f, b, a), partial(t, tb, ta), mode, f"{what}, swapped: ")
                # out= and in place: each side writes its own copy
                (out, _), (_, tout) = x.build(), x.build()
                compare(partial(f, a, b, out=out), partial(t, ta, tb, out=tout), mode, what)
                if name == "div" and not (dtype.is_floating_point or dtype in COMPLEX):
                    continue  # torch's integer true division cannot be in place
                (mine, _), (_, theirs) = x.build(), x.build()
                compare(
                    partial(in_place, mine, b),
                    partial(in_place, theirs, tb),
                    mode,
                    f"{what}, in place: ",
                )


def test_short_rows_that_alias_their_output_keep_torchs_order():
    """An output that meets the row or column it is computed from (views of one array, which
    the overlap checks let through) sees each row as torch's row-by-row order leaves it: the
    loops that run several short rows at a time step aside there."""
    cases = [
        # row 0 rewritten first, then read by every later row
        lambda X, m: X.__isub__(X[0].expand(6, 4)),
        # each row divided by the first element of the row before it, already rewritten
        lambda X, m: X[1:].__itruediv__(X[:-1, :1]),
        lambda X, m: m.sub(X[1:], X[0].expand(5, 4), out=X[:-1]),
        lambda X, m: m.add(X[:-1], X[5].expand(5, 4), out=X[1:]),
        lambda X, m: m.mul(X[:-1], X[1:, 1:2], out=X[1:]),
    ]
    for i, case in enumerate(cases):
        x = np.arange(1.0, 25.0).reshape(6, 4)
        mine, theirs = fi.asarray(x.copy()), torch.from_numpy(x.copy())
        compare(partial(case, mine, fi), partial(case, theirs, torch), "exact", f"case {i}: ")
        assert_values(mine.numpy(), theirs.numpy(), "exact", f"case {i}, the array: ")


@pytest.mark.parametrize(
    ("shape", "perm"),
    [
        # NHWC + NCHW: 64-channel tiles, H·W around the 1024-column edge of a packed tile
        ((2, 64, 32, 32), (0, 2, 3, 1)),
        ((2, 64, 31, 33), (0, 2, 3, 1)),
        ((1, 65, 45, 23), (0, 2, 3, 1)),
        ((3, 3, 50, 41), (0, 2, 3, 1)),
        # a transposed matrix: 64-row tiles, a last partial one of 1 row and 1 column
        ((129, 1025), (1, 0)),
    ],
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int16])
@pytest.mark.parametrize("threads", [1, 2])
def test_packed_tiles_of_mixed_layouts(shape, perm, dtype, threads):
    """Binary ops whose inputs disagree on the fastest dim, large enough for the tiled walk to
    pack one of them per tile (tiles of 64 x up to 1024 elements, run as one row when every
    operand continues from row to row): allocating, into `out=` and in place, against torch."""
    inv = tuple(int(i) for i in np.argsort(perm))
    values = random_values(shape, dtype, np.random.default_rng(sum(shape)))
    other = random_values(shape, dtype, np.random.default_rng(sum(shape) + 1))
    # `a` in the permuted memory order, `b` contiguous: the same logical shape
    ta = values.permute(*perm).contiguous().permute(*inv)
    tb = other
    with parallelism(threads, None):
        fa, fb = share(ta), share(tb)
        assert_result(fa + fb, ta + tb)
        assert_result(fi.mul(fb, fa), torch.mul(tb, ta))
        t_out = torch.empty_like(ta)
        f_out = share(t_out.clone())
        fi.sub(fa, fb, out=f_out)
        torch.sub(ta, tb, out=t_out)
        assert_result(f_out, t_out)
        fa += fb
        ta += tb
        assert_result(fa, ta)
