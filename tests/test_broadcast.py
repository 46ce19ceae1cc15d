"""broadcast_shapes, broadcast_to and broadcast_tensors against torch, error texts included."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import ferroiter as fi

from harness import assert_same, assert_same_error, assert_same_outcome, make_base, share


@st.composite
def shape_lists(draw, max_operands: int = 3):
    """1-3 shapes that usually broadcast (derived from one result shape by dropping leading dims
    and setting sizes to 1) and sometimes do not (a size changed)."""
    result = draw(st.lists(st.sampled_from([0, 1, 2, 3, 4]), max_size=4))
    shapes = []
    for _ in range(draw(st.integers(1, max_operands))):
        shape = result[draw(st.integers(0, len(result))) :]
        shape = [1 if draw(st.integers(0, 3)) == 0 else s for s in shape]
        if shape and draw(st.integers(0, 4)) == 0:
            i = draw(st.integers(0, len(shape) - 1))
            shape[i] = draw(st.sampled_from([0, 1, 2, 3, 5]))
        shapes.append(tuple(shape))
    return shapes


@given(shape_lists())
def test_broadcast_shapes_matches_torch(shapes):
    outcome = assert_same_outcome(
        lambda: fi.broadcast_shapes(*shapes), lambda: torch.broadcast_shapes(*shapes)
    )
    if outcome is not None:
        mine, theirs = outcome
        assert mine == tuple(theirs)


@pytest.mark.parametrize(
    "shapes",
    [
        [],
        [()],
        [(2, 3), (3,), (2, 1, 4)],
        [(2, 3), (4,)],
        [(1,), (0,)],
        [(0,), (1,)],
        [(0,), (2,)],
        [3, (1,)],
        [(2, 1), 3],
        [[2, 3], [4, 3]],
        [torch.Size([2, 3]), (5, 1)],
        [(3,), None, (2, 1)],
        [(-1,), (3,)],
        [(3,), (-1,)],
        [(-1,)],
        [(4, 1, 3), (2, 1)],
        [(5, 1, 4), (1, 3, 1), (2, 1, 1, 1)],
    ],
    ids=str,
)
def test_broadcast_shapes_listed(shapes):
    outcome = assert_same_outcome(
        lambda: fi.broadcast_shapes(*shapes), lambda: torch.broadcast_shapes(*shapes)
    )
    if outcome is not None:
        assert outcome[0] == tuple(outcome[1])


def test_broadcast_shapes_bad_argument():
    # torch raises RuntimeError; a wrong argument type is a TypeError for ferroiter (api.md)
    assert_same_error(
        lambda: fi.broadcast_shapes((2,), 2.5),
        lambda: torch.broadcast_shapes((2,), 2.5),
        kind=TypeError,
    )


def _pairs_of(shapes, data):
    """A (ferroiter, torch) pair of distinct-valued arrays per shape, in random layouts."""
    pairs = []
    for shape in shapes:
        dtype = data.draw(st.sampled_from([torch.float32, torch.int64, torch.bool]))
        fmt = "channels_last" if len(shape) == 4 and data.draw(st.booleans()) else None
        t = make_base(shape, dtype, fmt or "contiguous_format", "contiguous")
        if len(shape) >= 2 and data.draw(st.booleans()):
            t = t.transpose(0, 1).contiguous().transpose(0, 1)  # same shape, other strides
        pairs.append((share(t), t))
    return pairs


@given(shape_lists(), st.data())
def test_broadcast_tensors_matches_torch(shapes, data):
    pairs = _pairs_of(shapes, data)
    arrays, tensors = [a for a, _ in pairs], [t for _, t in pairs]
    outcome = assert_same_outcome(
        lambda: fi.broadcast_tensors(*arrays), lambda: torch.broadcast_tensors(*tensors)
    )
    if outcome is not None:
        mine, theirs = outcome
        assert len(mine) == len(theirs)
        for a, t in zip(mine, theirs, strict=True):
            assert_same(a, t)


def _negative_sized(fn_torch) -> bool:
    try:
        return any(s < 0 for s in fn_torch().shape)
    except RuntimeError:
        return False


@given(shape_lists(max_operands=2), st.data())
def test_broadcast_to_matches_torch(shapes, data):
    (a, t), target = _pairs_of(shapes[:1], data)[0], list(shapes[-1])
    # -1 keeps a size (where the target lines up with an existing dim)
    for i in range(len(target)):
        if data.draw(st.integers(0, 4)) == 0:
            target[i] = -1
    for fn_fi, fn_torch in (
        (lambda: fi.broadcast_to(a, target), lambda: torch.broadcast_to(t, target)),
        (lambda: a.broadcast_to(target), lambda: t.broadcast_to(target)),
        (lambda: a.expand(tuple(target)), lambda: t.expand(tuple(target))),
    ):
        if _negative_sized(fn_torch):
            # torch expands a 0-d tensor by (-1, 0) into a negative size; ferroiter refuses
            with pytest.raises(ValueError, match="numel: integer multiplication overflow"):
                fn_fi()
            continue
        outcome = assert_same_outcome(fn_fi, fn_torch)
        if outcome is not None:
            assert_same(*outcome)


def test_broadcast_error_texts_listed():
    x, y = torch.zeros(2, 3), torch.zeros(4)
    a, b = share(x), share(y)
    msg = assert_same_error(
        lambda: fi.broadcast_tensors(a, b), lambda: torch.broadcast_tensors(x, y)
    )
    assert msg == (
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
    )
    msg = assert_same_error(
        lambda: fi.broadcast_to(a, (2, 4)), lambda: torch.broadcast_to(x, (2, 4))
    )
    assert msg.endswith("Target sizes: [2, 4].  Tensor sizes: [2, 3]")
    # the three-operand fold reports the accumulated shape as "tensor a"
    tensors = [torch.zeros(2, 3), torch.zeros(3), torch.zeros(2, 1, 4)]
    arrays = [share(t) for t in tensors]
    msg = assert_same_error(
        lambda: fi.broadcast_tensors(*arrays), lambda: torch.broadcast_tensors(*tensors)
    )
    assert "tensor a (3)" in msg and "tensor b (4)" in msg and "dimension 2" in msg
