"""Differential testing against torch: one comparison helper, one error helper, and hypothesis
strategies that build the same layout in torch and in ferroiter.

The pairs share memory: the torch tensor is made first (with a memory format), and ferroiter
views it through ``fi.from_numpy(tensor.numpy())``, so both see the same bytes at the same
addresses; every view is then applied to both. (Empty tensors, which numpy reports with zero
strides, are matched by ``fi.empty_strided`` instead.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import ferroiter as fi
import ml_dtypes
import numpy as np
import torch
from hypothesis import strategies as st

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
}

#: torch dtype -> the name ferroiter accepts as a dtype argument.
NAME_OF = {t: str(d) for t, d in NUMPY_OF.items()}


def numpy_dtype_of(torch_dtype: torch.dtype) -> object:
    """What ferroiter returns for a torch dtype: a numpy dtype, or 'complex32' (numpy has none)."""
    if torch_dtype == torch.complex32:
        return "complex32"
    return NUMPY_OF[torch_dtype]


# memory formats, paired
FORMATS = {
    "contiguous_format": (fi.contiguous_format, torch.contiguous_format),
    "channels_last": (fi.channels_last, torch.channels_last),
    "channels_last_3d": (fi.channels_last_3d, torch.channels_last_3d),
    "preserve_format": (fi.preserve_format, torch.preserve_format),
}


def torch_to_numpy(t: torch.Tensor) -> np.ndarray:
    """A zero-copy ndarray over a tensor's elements with its strides (bfloat16 via ml_dtypes)."""
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def comparable(nd: np.ndarray) -> np.ndarray:
    """bfloat16 values compared as float32 (exact: every bfloat16 is a float32)."""
    if nd.dtype == np.dtype(ml_dtypes.bfloat16):
        return nd.astype(np.float32)
    return nd


def same_values(x: np.ndarray, y: np.ndarray) -> bool:
    x, y = comparable(np.asarray(x)), comparable(np.asarray(y))
    if x.shape != y.shape:
        return False
    if x.dtype.kind in "fc":
        return np.array_equal(x, y, equal_nan=True)
    return np.array_equal(x, y)


# ---------------------------------------------------------------------------------------------
# the two helpers


def assert_same(a: fi.Array, t: torch.Tensor, values: bool = True) -> None:
    """ferroiter array `a` and torch tensor `t` agree: shape, then element strides, then storage
    offset, then dtype, then (unless `values` is false, e.g. for `empty`) every value."""
    assert isinstance(a, fi.Array), f"expected a ferroiter.Array, got {type(a).__name__}"
    assert tuple(a.shape) == tuple(t.shape), f"shape: ferroiter {a.shape} != torch {tuple(t.shape)}"
    assert (a.ndim, a.numel()) == (t.dim(), t.numel())
    assert a.stride() == t.stride(), (
        f"strides of shape {tuple(t.shape)}: ferroiter {a.stride()} != torch {t.stride()}"
    )
    assert a.storage_offset() == t.storage_offset(), (
        f"storage offset: ferroiter {a.storage_offset()} != torch {t.storage_offset()}"
    )
    assert a.dtype == NUMPY_OF[t.dtype], f"dtype: ferroiter {a.dtype} != torch {t.dtype}"
    if values:
        mine, theirs = a.numpy(), torch_to_numpy(t)
        assert same_values(mine, theirs), f"values:\nferroiter {mine!r}\ntorch     {theirs!r}"


#: The exception kind ferroiter raises for each kind torch raises (api.md, "Errors"). torch's
#: RuntimeError is a ValueError unless the caller says it is about dtypes (TypeError).
FI_KIND_FOR = {
    NotImplementedError: TypeError,  # (a subclass of RuntimeError: first)
    RuntimeError: ValueError,
    IndexError: IndexError,
    ValueError: ValueError,
    TypeError: TypeError,
}


def torch_error(fn_torch) -> BaseException | None:
    """The exception `fn_torch()` raises, or None."""
    try:
        fn_torch()
    except Exception as e:  # noqa: BLE001 - any torch error is an outcome to compare
        return e
    return None


def expected_kind(torch_exc: BaseException) -> type[BaseException]:
    for torch_kind, fi_kind in FI_KIND_FOR.items():
        if isinstance(torch_exc, torch_kind):
            return fi_kind
    raise AssertionError(f"unexpected torch exception {type(torch_exc).__name__}: {torch_exc}")


def _check_fi_raises_like(fn_fi, t_exc: BaseException, kind: type[BaseException] | None) -> str:
    kind = kind or expected_kind(t_exc)
    try:
        result = fn_fi()
    except Exception as e:  # noqa: BLE001 - checked below
        assert isinstance(e, kind), (
            f"ferroiter raised {type(e).__name__}({e}), expected {kind.__name__}({t_exc})"
        )
        assert str(e) == str(t_exc), f"message:\nferroiter {str(e)!r}\ntorch     {str(t_exc)!r}"
        return str(e)
    raise AssertionError(f"ferroiter returned {result!r}; torch raised {t_exc!r}")


def assert_same_error(fn_fi, fn_torch, kind: type[BaseException] | None = None) -> str:
    """Both calls raise; ferroiter raises `kind` (by default the kind mapped from torch's, see
    FI_KIND_FOR) with exactly torch's message. Returns the message."""
    t_exc = torch_error(fn_torch)
    assert t_exc is not None, "torch did not raise"
    return _check_fi_raises_like(fn_fi, t_exc, kind)


def assert_same_outcome(fn_fi, fn_torch, kind: type[BaseException] | None = None):
    """Either both raise the same error (see assert_same_error) and None is returned, or both
    succeed and (ferroiter's result, torch's result) is returned."""
    try:
        t_result = fn_torch()
    except Exception as t_exc:  # noqa: BLE001 - any torch error is an outcome to compare
        _check_fi_raises_like(fn_fi, t_exc, kind)
        return None
    return fn_fi(), t_result


# ---------------------------------------------------------------------------------------------
# building the same layout on both sides


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


#: How the base tensor gets its memory format (they differ on ambiguous shapes).
HOWS = ("contiguous", "to", "empty_copy")


def make_base(shape, dtype: torch.dtype, fmt: str, how: str) -> torch.Tensor:
    values = distinct_values(tuple(shape), dtype)
    torch_fmt = FORMATS[fmt][1]
    if how == "contiguous":
        return values.contiguous(memory_format=torch_fmt)
    if how == "to":
        return values.to(memory_format=torch_fmt)
    return torch.empty(tuple(shape), dtype=dtype, memory_format=torch_fmt).copy_(values)


def share(t: torch.Tensor) -> fi.Array:
    """ferroiter's view of exactly the memory of tensor `t` (same strides, same addresses).

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


@dataclass
class LayoutCase:
    """A base tensor (shape, dtype, memory format) and a sequence of view ops; `build()` replays
    them on torch and ferroiter, checking any error torch raises against ferroiter's."""

    shape: tuple[int, ...]
    dtype: torch.dtype
    fmt: str
    how: str
    ops: list = field(default_factory=list)

    def base(self) -> tuple[fi.Array, torch.Tensor]:
        t = make_base(self.shape, self.dtype, self.fmt, self.how)
        return share(t), t

    def build(self, check_each: bool = True) -> tuple[fi.Array, torch.Tensor]:
        a, t = self.base()
        shared = t.numel() > 0  # see share()
        if check_each:
            assert_same(a, t)
        for op in self.ops:
            outcome = assert_same_outcome(
                lambda a=a, op=op: apply_op(a, op), lambda t=t, op=op: apply_op(t, op)
            )
            if outcome is None:
                continue  # both refused the op with the same error: keep the previous view
            a, t = outcome
            if check_each:
                assert_same(a, t)
                # (torch's data_ptr() is 0 for every empty tensor; ferroiter's is an address)
                if shared and t.numel() > 0:
                    assert a.data_ptr() == t.data_ptr(), "the view addresses other memory"
        return a, t


@st.composite
def base_params(draw, max_ndim: int = 5):
    """shape, dtype, format, how: channels_last only for 4-D, channels_last_3d only for 5-D."""
    ndim = draw(st.integers(0, max_ndim))
    # sizes 0..5, biased towards 1 (ambiguous layouts) and small sizes
    size = st.sampled_from([0, 1, 1, 2, 2, 3, 4, 5])
    shape = tuple(draw(st.lists(size, min_size=ndim, max_size=ndim)))
    dtype = draw(st.sampled_from(TORCH_DTYPES))
    fmts = ["contiguous_format"]
    if ndim == 4:
        fmts.append("channels_last")
    if ndim == 5:
        fmts.append("channels_last_3d")
    fmt = draw(st.sampled_from(fmts))
    how = draw(st.sampled_from(HOWS))
    return shape, dtype, fmt, how


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
def layout_cases(draw, max_ops: int = 4, max_ndim: int = 5):
    """A LayoutCase whose ops torch accepts (except `view`s, which may fail on both sides)."""
    shape, dtype, fmt, how = draw(base_params(max_ndim))
    case = LayoutCase(shape, dtype, fmt, how)
    t = make_base(shape, dtype, fmt, how)
    for _ in range(draw(st.integers(0, max_ops))):
        op = draw(view_op(t))
        try:
            view = apply_op(t, op)
        except (RuntimeError, IndexError, ValueError):
            case.ops.append(op)  # kept: build() checks ferroiter refuses it the same way
            continue
        if any(s < 0 for s in view.shape):
            continue  # torch expands a 0-d tensor by (0, -1) into a negative size; not a layout
        t = view
        case.ops.append(op)
    return case


def layouts(max_ops: int = 4, max_ndim: int = 5):
    """(ferroiter array, torch tensor) pairs of one random layout, built from a LayoutCase."""
    return layout_cases(max_ops, max_ndim).map(lambda c: c.build(check_each=False))


# ---------------------------------------------------------------------------------------------
# raw sizes@strides (for the predicates): dense in some order, then perturbed


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
