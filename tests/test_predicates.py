"""Contiguity predicates and suggest_memory_format against torch, on random layouts and on every
row of the ambiguous table (torch-semantics.md section 1).

Oracles: `t.is_contiguous(memory_format=...)` directly; non-overlapping-and-dense is true exactly
when `torch.empty_like(t)` (preserve_format) keeps t's strides; torch suggests a format exactly
when `t.to(memory_format=fmt)` returns t itself.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given

import ferroiter as fi

from harness import FORMATS, layout_pairs, share, strided_pairs

QUERY_FORMATS = ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format")


def torch_is_non_overlapping_and_dense(t: torch.Tensor) -> bool:
    return torch.empty_like(t).stride() == t.stride()


def _to_aliases(t: torch.Tensor, fmt: torch.memory_format) -> bool:
    try:
        return t.to(memory_format=fmt) is t
    except RuntimeError:  # a channels-last format of the wrong rank
        return False


def torch_suggested_format(t: torch.Tensor) -> str:
    """The format torch's suggest_memory_format() returns, seen through `.to`."""
    suggested = [
        name
        for name in ("contiguous_format", "channels_last", "channels_last_3d")
        if _to_aliases(t, FORMATS[name][1])
    ]
    assert len(suggested) == 1, f"the .to() oracle is ambiguous: {suggested}"
    return suggested[0]


def assert_same_predicates(a: fi.Array, t: torch.Tensor) -> None:
    assert (a.shape, a.stride()) == (tuple(t.shape), t.stride())
    layout = f"{tuple(t.shape)}@{t.stride()}"
    for name in QUERY_FORMATS:
        mine = a.is_contiguous(FORMATS[name][0])
        theirs = t.is_contiguous(memory_format=FORMATS[name][1])
        assert mine == theirs, f"is_contiguous({name}) of {layout}: {mine} != torch {theirs}"
    assert a.is_contiguous() == t.is_contiguous(), layout
    nod = torch_is_non_overlapping_and_dense(t)
    assert a.is_non_overlapping_and_dense() == nod, f"non-overlapping-and-dense of {layout}"
    suggested = torch_suggested_format(t)
    assert a.suggest_memory_format() == FORMATS[suggested][0], f"suggestion for {layout}"
    assert a.memory_format == FORMATS[suggested][0], layout
    # exact_match: a channels-last suggestion only survives with exactly the canonical strides
    exact = suggested
    if suggested != "contiguous_format":
        canonical = torch.empty(t.shape, memory_format=FORMATS[suggested][1]).stride()
        exact = suggested if canonical == t.stride() else "contiguous_format"
    assert a.suggest_memory_format(exact_match=True) == FORMATS[exact][0], layout


@given(layout_pairs(max_ops=4))
def test_predicates_on_random_views(pair):
    assert_same_predicates(*pair)


@given(strided_pairs())
def test_predicates_on_random_strides(pair):
    assert_same_predicates(*pair)


# sizes@strides: the ambiguous table of section 1, then the edge cases it lists
AMBIGUOUS_TABLE = [
    ((2, 3, 1, 1), (3, 1, 1, 1)),
    ((2, 3, 1, 1), (3, 1, 3, 3)),
    ((2, 1, 4, 4), (16, 1, 4, 1)),
    ((2, 1, 1, 1), (4, 4, 4, 4)),
    ((1, 4, 1, 3), (12, 1, 4, 4)),
    ((2, 3, 4, 5), (120, 1, 30, 6)),
    ((2, 3, 4, 5), (0, 1, 15, 3)),
    ((0, 3, 4, 5), (60, 1, 15, 3)),
]

EDGE_CASES = [
    ((), ()),
    ((0,), (1,)),
    ((0,), (0,)),
    ((1,), (0,)),
    ((1,), (7,)),
    ((2,), (0,)),
    ((2,), (1,)),
    ((2,), (2,)),
    ((1, 1, 1, 1), (1, 1, 1, 1)),
    ((1, 1, 1, 1), (0, 0, 0, 0)),
    ((1, 1, 1, 1), (5, 9, 2, 7)),
    ((2, 1, 1, 1), (1, 1, 1, 1)),
    ((2, 3, 4, 5), (60, 1, 15, 3)),
    ((2, 3, 4, 5), (60, 20, 5, 1)),
    ((0, 3, 4, 5), (60, 20, 5, 1)),
    ((2, 0, 4, 5), (0, 1, 0, 0)),
    ((2, 3, 4, 0), (0, 1, 0, 3)),
    ((2, 3, 0, 5), (15, 1, 15, 3)),
    ((2, 3, 4, 5), (60, 0, 15, 3)),
    ((2, 3, 4, 5), (0, 0, 0, 0)),
    ((3, 4, 5), (1, 15, 3)),
    ((2, 3, 4, 5, 6), (360, 1, 90, 18, 3)),
    ((2, 3, 1, 1, 1), (3, 1, 3, 3, 3)),
    ((2, 1, 4, 5, 6), (120, 1, 30, 6, 1)),
    ((2, 3, 4, 5, 6), (360, 120, 30, 6, 1)),
    ((0, 3, 4, 5, 6), (360, 1, 90, 18, 3)),
    ((2, 3, 4, 5, 6), (720, 1, 180, 36, 6)),
    ((4, 6), (2, 8)),
    ((3, 1, 2), (2, 5, 1)),
    ((3, 2), (0, 1)),
]


@pytest.mark.parametrize(("shape", "strides"), AMBIGUOUS_TABLE + EDGE_CASES)
def test_predicates_on_listed_layouts(shape, strides):
    t = torch.empty_strided(shape, strides)
    assert_same_predicates(fi.empty_strided(shape, strides), t)


@pytest.mark.parametrize("how", ["contiguous", "to"])
@pytest.mark.parametrize(
    "shape", [(2, 3, 1, 1), (2, 1, 4, 4), (1, 1, 1, 1), (2, 1, 1, 1), (0, 3, 4, 5)]
)
def test_predicates_after_torch_format_conversions(shape, how):
    # .contiguous(cl) keeps ambiguous strides, .to(cl) re-strides unless already suggested
    base = torch.arange(float(torch.Size(shape).numel())).reshape(shape)
    t = getattr(base, how)(memory_format=torch.channels_last)
    assert_same_predicates(share(t), t)


@given(layout_pairs(max_ops=2))
def test_predicates_of_expanded_layouts(pair):
    a, t = pair
    target = (2,) + tuple(2 if s == 1 else -1 for s in t.shape)
    assert_same_predicates(a.expand(*target), t.expand(*target))
