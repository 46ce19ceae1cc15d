"""Random view chains and op sequences against torch and numpy (issue 13's hypothesis suite).

A chain starts from any layout of harness.layouts (negative strides, aliasing, empty, 0-d) and
applies random views (slice, permute, transpose, expand, unsqueeze, squeeze, as_strided, view,
reshape); every step is compared with torch (or torch's refusal, with its message). Then a
short sequence of exact ops (no rounding differences between implementations: comparisons,
min/max-like selections, integer arithmetic, copies, exact reductions) runs on both and on
numpy. At least 200 examples per property in the default profile, many more with
FERROITER_NIGHTLY=1.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ferroiter as fi

from harness import (
    INTS,
    assert_result,
    assert_same,
    assert_same_outcome,
    layout_pairs,
    scaled,
    torch_to_numpy,
    view_chains,
)

EXAMPLES = scaled(200)


@settings(max_examples=EXAMPLES)
@given(chain=view_chains(max_ops=6), data=st.data())
def test_view_chains_then_reshape_match_torch(chain, data):
    """Every view of the chain, then a reshape (a view or a copy) to a random compatible shape,
    agrees with torch: shape, strides, offset, dtype, values and any error."""
    a, t = chain.build(check_each=True)
    n = t.numel()
    divisors = [d for d in range(1, n + 1) if n % d == 0] or [1]
    first = data.draw(st.sampled_from(divisors))
    shape = data.draw(st.sampled_from([(n,), (first, -1), (-1, first), (1, -1, first)]))
    if n == 0:
        shape = (0, -1) if data.draw(st.booleans()) else (0,)
    outcome = assert_same_outcome(lambda: a.reshape(shape), lambda: t.reshape(shape))
    if outcome is not None:
        mine, theirs = outcome
        assert_same(mine, theirs, offset=theirs._base is not None)
        assert np.array_equal(mine.numpy(), torch_to_numpy(theirs), equal_nan=True)


#: exact elementwise ops: (name, arity); results are the same bits in every implementation
_EXACT_UNARY = ["neg", "abs", "floor", "ceil", "sign", "logical_not"]
_EXACT_BINARY = ["maximum", "minimum", "eq", "ne", "lt", "ge", "logical_and", "logical_xor"]
_INT_BINARY = ["add", "sub", "mul", "bitwise_and", "bitwise_xor"]
_REDUCTIONS = ["amax", "amin", "all", "any", "count_nonzero"]


def _exact_step(draw, t: torch.Tensor):
    """One op that is exact for `t`'s dtype: (kind, name, extra)."""
    ints = t.dtype in INTS
    kind = draw(st.sampled_from(["unary", "binary", "reduce", "copy"]))
    if kind == "unary":
        return kind, draw(st.sampled_from(_EXACT_UNARY)), None
    if kind == "binary":
        names = _EXACT_BINARY + (_INT_BINARY if ints else [])
        return kind, draw(st.sampled_from(names)), None
    if kind == "reduce":
        dim = draw(st.none() | st.integers(-max(t.dim(), 1), max(t.dim(), 1) - 1))
        return kind, draw(st.sampled_from(_REDUCTIONS)), dim
    fmt = draw(st.sampled_from(["clone", "contiguous", "T"]))
    return kind, fmt, None


def _apply(x, step, other, lib):
    kind, name, extra = step
    if kind == "unary":
        return getattr(lib, name)(x)
    if kind == "binary":
        return getattr(lib, name)(x, other)
    if kind == "reduce":
        if name == "count_nonzero":
            return x.count_nonzero() if extra is None else x.count_nonzero(extra)
        return getattr(x, name)() if extra is None else getattr(x, name)(extra)
    if name == "T":
        return x.permute(tuple(reversed(range(x.dim() if lib is torch else x.ndim))))
    return getattr(x, name)()


@settings(max_examples=EXAMPLES)
@given(pair=layout_pairs(max_ops=4), other=layout_pairs(max_ops=2), data=st.data())
def test_op_sequences_on_view_chains_match_torch_and_numpy(pair, other, data):
    """Up to four exact ops in a row on a random view (each binary op against a second random
    view that may not broadcast) give torch's result or torch's error; the values also equal
    numpy's evaluation of the same ops on the arrays' numpy views."""
    (a, t), (b, u) = pair, other
    if t.dtype == torch.complex64 or t.dtype == torch.complex128:
        return  # (orderings and min/max are undefined for complex: covered by test_ops)
    if u.dtype != t.dtype:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (complex to real drops the imaginary parts)
            b, u = b.to(a.dtype), u.to(t.dtype)
    for _ in range(data.draw(st.integers(1, 4))):
        step = _exact_step(data.draw, t)
        outcome = assert_same_outcome(
            lambda a=a, step=step: _apply(a, step, b, fi),
            lambda t=t, step=step: _apply(t, step, u, torch),
        )
        if outcome is None:
            continue
        a, t = outcome
        assert_result(a, t, what=f"{step}: ")
        if t.dtype in (torch.bool, *INTS):
            assert np.array_equal(a.numpy(), np.asarray(t.numpy())), step


@settings(max_examples=EXAMPLES)
@given(pair=layout_pairs(max_ops=4), data=st.data())
def test_writes_through_a_view_chain_land_where_torchs_do(pair, data):
    """Writing through a random view (fill, copy_ from a permuted copy, in-place add) changes
    the same bytes of the shared base as torch's write does, or both refuse with the same error
    (internal overlap)."""
    a, t = pair
    if t.dtype == torch.bool:
        return
    value = data.draw(st.sampled_from([0, 1, 3]))
    action = data.draw(st.sampled_from(["fill", "copy", "iadd"]))

    def do(x, lib):
        if action == "fill":
            x[...] = value
        elif action == "copy":
            x.copy_(lib.ones_like(x) * value)
        else:
            x += value
        return x

    # separate memory for each side (the pair shares memory): zeros laid out as the view
    if any(s < 0 for s in a.stride()):
        return  # (torch has no negative strides: the pair's twin is not this layout)
    span = (
        0
        if t.numel() == 0
        else 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride(), strict=True))
    )
    ta = torch.zeros(span, dtype=t.dtype).as_strided(t.shape, t.stride())
    aa = fi.zeros(span, dtype=a.dtype).as_strided(a.shape, a.stride())
    if torch._debug_has_internal_overlap(ta) == 0:
        ta.copy_(t)
        aa.copy_(a)
    outcome = assert_same_outcome(lambda: do(aa, fi), lambda: do(ta, torch))
    if outcome is not None:
        assert_same(aa, ta, offset=False)
