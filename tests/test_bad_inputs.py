"""The bad-input catalogue (issue 13): everything a user can pass that must be refused, each
category checked for the exception kind and the message — torch's exact text where torch has
the concept (harness.assert_same_error maps the kind as api.md says), a clear text of our own
otherwise. Inputs that could crash the process (raw pointers, huge sizes, foreign capsules,
objects that lie about themselves) run in a child interpreter (`run_isolated`), so that a
crash fails one test with the child's stderr instead of killing the suite.

Each test id is one category; `test_the_catalogue_is_large` counts them (at least 40).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch

import ferroiter as fi

from harness import assert_same_error, run_isolated

# ---------------------------------------------------------------------------------------------
# running a snippet in a child interpreter


def raises_isolated(code: str, kind: str, message: str) -> None:
    """`code` (in a child) raises `kind` whose message contains `message`."""
    out = run_isolated(
        "try:\n"
        + textwrap.indent(textwrap.dedent(code), "    ")
        + "\nexcept BaseException as e:\n"
        + "    print('RAISED', type(e).__name__, '|', e)\n"
        + "else:\n"
        + "    print('NO ERROR')\n"
    )
    last = out.strip().splitlines()[-1] if out.strip() else ""
    assert last.startswith(f"RAISED {kind} |"), f"expected {kind}({message!r}), got {last!r}"
    assert message in last, f"expected {kind}({message!r}), got {last!r}"


def raises(fn, kind: type[BaseException], message: str) -> None:
    """`fn()` raises `kind` (exactly, or a subclass) with `message` in its text."""
    with pytest.raises(kind) as info:
        fn()
    assert message in str(info.value), f"message {str(info.value)!r} lacks {message!r}"


# ---------------------------------------------------------------------------------------------
# categories where torch has the concept: same kind (mapped) and torch's exact message

T = torch
TORCH_CASES = {
    # shapes and sizes
    "negative_size": (lambda: fi.empty((2, -1)), lambda: T.empty((2, -1))),
    "negative_size_zeros": (lambda: fi.zeros((-3,)), lambda: T.zeros((-3,))),
    "empty_strided_negative_stride": (
        lambda: fi.empty_strided((2, 3), (-1, 1)),
        lambda: T.empty_strided((2, 3), (-1, 1)),
    ),
    # as_strided
    "as_strided_outside_storage": (
        lambda: fi.zeros(6).as_strided((3, 3), (3, 1)),
        lambda: T.zeros(6).as_strided((3, 3), (3, 1)),
    ),
    "as_strided_negative_offset": (
        lambda: fi.zeros(6).as_strided((2,), (1,), -1),
        lambda: T.zeros(6).as_strided((2,), (1,), -1),
    ),
    "as_strided_negative_stride": (
        lambda: fi.zeros(6).as_strided((2,), (-1,), 3),
        lambda: T.zeros(6).as_strided((2,), (-1,), 3),
    ),
    "as_strided_rank_mismatch": (
        lambda: fi.zeros(6).as_strided((2, 3), (1,)),
        lambda: T.zeros(6).as_strided((2, 3), (1,)),
    ),
    "as_strided_stride_overflow": (
        lambda: fi.zeros(6).as_strided((3,), (2**62,)),
        lambda: T.zeros(6).as_strided((3,), (2**62,)),
    ),
    # dims
    "dim_out_of_range": (
        lambda: fi.zeros((2, 3)).transpose(0, 2),
        lambda: T.zeros((2, 3)).transpose(0, 2),
    ),
    "dim_repeated_permute": (
        lambda: fi.zeros((2, 3)).permute(0, 0),
        lambda: T.zeros((2, 3)).permute(0, 0),
    ),
    "permute_wrong_length": (
        lambda: fi.zeros((2, 3)).permute(0),
        lambda: T.zeros((2, 3)).permute(0),
    ),
    "unsqueeze_out_of_range": (
        lambda: fi.zeros((2, 3)).unsqueeze(4),
        lambda: T.zeros((2, 3)).unsqueeze(4),
    ),
    "squeeze_out_of_range": (
        lambda: fi.zeros((2, 3)).squeeze(4),
        lambda: T.zeros((2, 3)).squeeze(4),
    ),
    # formats of the wrong rank
    "channels_last_wrong_rank": (
        lambda: fi.empty((2, 3), memory_format=fi.channels_last),
        lambda: T.empty((2, 3), memory_format=T.channels_last),
    ),
    "channels_last_3d_wrong_rank": (
        lambda: fi.zeros((2, 3, 4, 5)).contiguous(memory_format=fi.channels_last_3d),
        lambda: T.zeros((2, 3, 4, 5)).contiguous(memory_format=T.channels_last_3d),
    ),
    # outputs: internal and partial overlap, unsafe casts, wrong shapes
    "out_internal_overlap": (
        lambda: fi.add(fi.ones(3), 1, out=fi.zeros(1).expand(3)),
        lambda: T.add(T.ones(3), 1, out=T.zeros(1).expand(3)),
    ),
    "inplace_internal_overlap": (
        lambda: fi.zeros(1).expand(3).__iadd__(1),
        lambda: T.zeros(1).expand(3).__iadd__(1),
    ),
    "out_partial_overlap": (
        lambda: (lambda x: fi.add(x[:4], 1, out=x[1:5]))(fi.arange(6.0)),
        lambda: (lambda x: T.add(x[:4], 1, out=x[1:5]))(T.arange(6.0)),
    ),
    "out_unsafe_cast": (
        lambda: fi.add(fi.ones(3), 1.5, out=fi.zeros(3, dtype="int64")),
        lambda: T.add(T.ones(3), 1.5, out=T.zeros(3, dtype=T.int64)),
    ),
    "inplace_unsafe_cast": (
        lambda: fi.zeros(3, dtype="int64").__iadd__(1.5),
        lambda: T.zeros(3, dtype=T.int64).__iadd__(1.5),
    ),
    "out_complex_into_real": (
        lambda: fi.add(fi.ones(3, dtype="complex64"), 1, out=fi.zeros(3)),
        lambda: T.add(T.ones(3, dtype=T.complex64), 1, out=T.zeros(3)),
    ),
    "inplace_shape_mismatch": (
        lambda: fi.zeros(3).__iadd__(fi.zeros((2, 3))),
        lambda: T.zeros(3).__iadd__(T.zeros((2, 3))),
    ),
    # broadcasting
    "broadcast_mismatch": (lambda: fi.zeros(3) + fi.zeros(2), lambda: T.zeros(3) + T.zeros(2)),
    "expand_mismatch": (lambda: fi.zeros(3).expand(4), lambda: T.zeros(3).expand(4)),
    "expand_fewer_dims": (
        lambda: fi.zeros((2, 3)).expand(3),
        lambda: T.zeros((2, 3)).expand(3),
    ),
    "expand_minus_one_in_new_dim": (
        lambda: fi.zeros(3).expand(-1, 3),
        lambda: T.zeros(3).expand(-1, 3),
    ),
    "broadcast_shapes_negative": (
        lambda: fi.broadcast_shapes((-1,), (3,)),
        lambda: T.broadcast_shapes((-1,), (3,)),
    ),
    # view / reshape
    "view_incompatible_strides": (
        lambda: fi.zeros((2, 3)).transpose(0, 1).view(6),
        lambda: T.zeros((2, 3)).transpose(0, 1).view(6),
    ),
    "view_two_inferred_dims": (
        lambda: fi.zeros(6).view(-1, -1),
        lambda: T.zeros(6).view(-1, -1),
    ),
    "view_wrong_numel": (lambda: fi.zeros(6).view(4), lambda: T.zeros(6).view(4)),
    "reshape_negative_size": (
        lambda: fi.zeros(6).reshape(-2, 3),
        lambda: T.zeros(6).reshape(-2, 3),
    ),
    "reshape_zero_numel_inferred": (
        lambda: fi.zeros(0).reshape(0, -1),
        lambda: T.zeros(0).reshape(0, -1),
    ),
    # indexing
    "index_out_of_range": (lambda: fi.zeros(3)[3], lambda: T.zeros(3)[3]),
    "index_too_many": (lambda: fi.zeros(3)[0, 0], lambda: T.zeros(3)[0, 0]),
    "index_slice_step_zero": (lambda: fi.zeros(3)[::0], lambda: T.zeros(3)[::0]),
    "index_mask_wrong_shape": (
        lambda: fi.zeros(3)[fi.asarray([True, False])],
        lambda: T.zeros(3)[T.tensor([True, False])],
    ),
    "index_array_out_of_range": (
        lambda: fi.zeros(3)[fi.asarray([5])],
        lambda: T.zeros(3)[T.tensor([5])],
    ),
    "setitem_shape_mismatch": (
        lambda: fi.zeros(3).__setitem__(slice(None), fi.zeros(2)),
        lambda: T.zeros(3).__setitem__(slice(None), T.zeros(2)),
    ),
    # dtypes that cannot take part
    "bool_subtract": (
        lambda: fi.ones(3, dtype="bool") - fi.ones(3, dtype="bool"),
        lambda: T.ones(3, dtype=T.bool) - T.ones(3, dtype=T.bool),
    ),
    "bool_negative": (lambda: -fi.ones(3, dtype="bool"), lambda: -T.ones(3, dtype=T.bool)),
    "float_bitwise": (lambda: fi.ones(3) & fi.ones(3), lambda: T.ones(3) & T.ones(3)),
    "complex_ordering": (
        lambda: fi.ones(3, dtype="complex64") < fi.ones(3, dtype="complex64"),
        lambda: T.ones(3, dtype=T.complex64) < T.ones(3, dtype=T.complex64),
    ),
    "complex_floor": (
        lambda: fi.floor(fi.ones(3, dtype="complex64")),
        lambda: T.floor(T.ones(3, dtype=T.complex64)),
    ),
    "complex_clamp": (
        lambda: fi.clamp(fi.ones(3, dtype="complex64"), 0),
        lambda: T.clamp(T.ones(3, dtype=T.complex64), 0),
    ),
    "clamp_without_bounds": (lambda: fi.clamp(fi.ones(3)), lambda: T.clamp(T.ones(3))),
    "where_condition_not_bool": (
        lambda: fi.where(fi.ones(3), fi.ones(3), fi.zeros(3)),
        lambda: T.where(T.ones(3), T.ones(3), T.zeros(3)),
    ),
    # integer arithmetic
    "integer_division_by_zero": (
        lambda: fi.ones(3, dtype="int64") // 0,
        lambda: T.ones(3, dtype=T.int64) // 0,
    ),
    "integer_remainder_by_zero": (
        lambda: fi.ones(3, dtype="int64") % 0,
        lambda: T.ones(3, dtype=T.int64) % 0,
    ),
    "integer_negative_power": (
        lambda: fi.ones(3, dtype="int64") ** -1,
        lambda: T.ones(3, dtype=T.int64) ** -1,
    ),
    "fill_value_overflows_dtype": (
        lambda: fi.full((2,), 300, dtype="uint8"),
        lambda: T.full((2,), 300, dtype=T.uint8),
    ),
    "fill_value_nan_into_integers": (
        lambda: fi.full((2,), float("nan"), dtype="uint8"),
        lambda: T.full((2,), float("nan"), dtype=T.uint8),
    ),
    "fill_value_inf_into_integers": (
        lambda: fi.full((2,), float("inf"), dtype="int64"),
        lambda: T.full((2,), float("inf"), dtype=T.int64),
    ),
    # arange
    "arange_zero_step": (lambda: fi.arange(0, 10, 0), lambda: T.arange(0, 10, 0)),
    "arange_wrong_sign": (lambda: fi.arange(0, 10, -1), lambda: T.arange(0, 10, -1)),
    "arange_nan_bound": (lambda: fi.arange(0, float("nan")), lambda: T.arange(0, float("nan"))),
    "arange_infinite_bound": (
        lambda: fi.arange(0, float("inf")),
        lambda: T.arange(0, float("inf")),
    ),
    # NaN / inf to integers
    "nan_to_python_int": (
        lambda: int(fi.asarray(float("nan"))),
        lambda: int(T.tensor(float("nan"))),
    ),
    # nested lists
    # item / bool of many elements
    "item_of_many": (lambda: fi.zeros(3).item(), lambda: T.zeros(3).item()),
    "item_of_none": (lambda: fi.zeros(0).item(), lambda: T.zeros(0).item()),
    "bool_of_many": (lambda: bool(fi.zeros(3)), lambda: bool(T.zeros(3))),
    # reductions
    "reduction_dim_out_of_range": (lambda: fi.zeros((2, 3)).sum(5), lambda: T.zeros((2, 3)).sum(5)),
    "reduction_dim_repeated": (
        lambda: fi.zeros((2, 3)).sum((0, 0)),
        lambda: T.zeros((2, 3)).sum((0, 0)),
    ),
    "reduction_dim_repeated_negative": (
        lambda: fi.zeros((2, 3)).amax((1, -1)),
        lambda: T.zeros((2, 3)).amax((1, -1)),
    ),
    "argmax_of_empty": (lambda: fi.zeros((0, 3)).argmax(), lambda: T.zeros((0, 3)).argmax()),
    "amax_over_empty_dim": (lambda: fi.zeros((0, 3)).amax(0), lambda: T.zeros((0, 3)).amax(0)),
    "argmin_over_empty_dim": (
        lambda: fi.zeros((2, 0)).argmin(1),
        lambda: T.zeros((2, 0)).argmin(1),
    ),
    "complex_amax": (
        lambda: fi.ones(3, dtype="complex64").amax(),
        lambda: T.ones(3, dtype=T.complex64).amax(),
    ),
    "complex_argmax": (
        lambda: fi.ones(3, dtype="complex64").argmax(),
        lambda: T.ones(3, dtype=T.complex64).argmax(),
    ),
    "cumsum_dim_out_of_range": (
        lambda: fi.zeros((2, 3)).cumsum(2),
        lambda: T.zeros((2, 3)).cumsum(2),
    ),
    # threads
    "set_num_threads_zero": (lambda: fi.set_num_threads(0), lambda: T.set_num_threads(0)),
    "set_num_threads_negative": (lambda: fi.set_num_threads(-3), lambda: T.set_num_threads(-3)),
    # interop
    "from_numpy_stride_not_a_multiple": (
        lambda: fi.from_numpy(_odd_strides()),
        lambda: T.from_numpy(_odd_strides()),
    ),
    # storage offsets: negative is refused even where the view holds no element
    "as_strided_negative_offset_empty": (
        lambda: fi.zeros(6).as_strided((0,), (1,), -1),
        lambda: T.zeros(6).as_strided((0,), (1,), -1),
    ),
    "as_strided_negative_offset_empty_2d": (
        lambda: fi.zeros(6).as_strided((2, 0), (1, 1), -5),
        lambda: T.zeros(6).as_strided((2, 0), (1, 1), -5),
    ),
    "as_strided_negative_offset_of_empty_storage": (
        lambda: fi.empty(0).as_strided((0,), (1,), -1),
        lambda: T.empty(0).as_strided((0,), (1,), -1),
    ),
    # the elementwise, shape, gather, sorting and matrix functions of the second API round
    "atan2_complex": (
        lambda: fi.atan2(fi.ones(3, dtype="complex64"), fi.ones(3)),
        lambda: T.atan2(T.ones(3, dtype=T.complex64), T.ones(3)),
    ),
    "hypot_int": (
        lambda: fi.hypot(_i64([1, 2]), _i64([1, 2])),
        lambda: T.hypot(_t64([1, 2]), _t64([1, 2])),
    ),
    "hypot_complex": (
        lambda: fi.hypot(fi.ones(3, dtype="complex64"), fi.ones(3)),
        lambda: T.hypot(T.ones(3, dtype=T.complex64), T.ones(3)),
    ),
    "copysign_complex": (
        lambda: fi.copysign(fi.ones(3, dtype="complex64"), fi.ones(3)),
        lambda: T.copysign(T.ones(3, dtype=T.complex64), T.ones(3)),
    ),
    "nextafter_int": (
        lambda: fi.nextafter(_i64([1]), _i64([2])),
        lambda: T.nextafter(_t64([1]), _t64([2])),
    ),
    "logaddexp_int": (
        lambda: fi.logaddexp(_i64([1]), _i64([2])),
        lambda: T.logaddexp(_t64([1]), _t64([2])),
    ),
    "logaddexp_bool": (
        lambda: fi.logaddexp(fi.ones(2, dtype="bool"), fi.ones(2, dtype="bool")),
        lambda: T.logaddexp(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool)),
    ),
    "fmod_complex": (
        lambda: fi.fmod(fi.ones(3, dtype="complex64"), 2),
        lambda: T.fmod(T.ones(3, dtype=T.complex64), 2),
    ),
    "fmod_int_by_zero_scalar": (
        lambda: fi.fmod(_i64([1, 2]), 0),
        lambda: T.fmod(_t64([1, 2]), 0),
    ),
    "fmod_int_by_zero_tensor": (
        lambda: fi.fmod(_i64([1, 2]), _i64([0, 1])),
        lambda: T.fmod(_t64([1, 2]), _t64([0, 1])),
    ),
    "bitwise_shift_of_floats": (
        lambda: fi.bitwise_left_shift(fi.ones(2), 1),
        lambda: T.bitwise_left_shift(T.ones(2), 1),
    ),
    "bitwise_shift_of_bools": (
        lambda: fi.bitwise_left_shift(fi.ones(2, dtype="bool"), fi.ones(2, dtype="bool")),
        lambda: T.bitwise_left_shift(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool)),
    ),
    "imag_of_float": (
        lambda: fi.imag(fi.ones(2)),
        lambda: T.imag(T.ones(2)),
    ),
    "imag_of_int": (
        lambda: fi.imag(_i64([1])),
        lambda: T.imag(_t64([1])),
    ),
    "positive_bool": (
        lambda: fi.positive(fi.ones(2, dtype="bool")),
        lambda: T.positive(T.ones(2, dtype=T.bool)),
    ),
    "signbit_complex": (
        lambda: fi.signbit(fi.ones(2, dtype="complex64")),
        lambda: T.signbit(T.ones(2, dtype=T.complex64)),
    ),
    "trunc_complex": (
        lambda: fi.trunc(fi.ones(2, dtype="complex64")),
        lambda: T.trunc(T.ones(2, dtype=T.complex64)),
    ),
    "eye_negative": (
        lambda: fi.eye(-1),
        lambda: T.eye(-1),
    ),
    "eye_negative_columns": (
        lambda: fi.eye(2, -3),
        lambda: T.eye(2, -3),
    ),
    "linspace_negative_steps": (
        lambda: fi.linspace(0, 1, -1),
        lambda: T.linspace(0, 1, -1),
    ),
    "meshgrid_bad_indexing": (
        lambda: fi.meshgrid(fi.ones(2), fi.ones(3), indexing="zz"),
        lambda: T.meshgrid(T.ones(2), T.ones(3), indexing="zz"),
    ),
    "meshgrid_mixed_dtype": (
        lambda: fi.meshgrid(fi.ones(2), _i64([1, 2]), indexing="ij"),
        lambda: T.meshgrid(T.ones(2), _t64([1, 2]), indexing="ij"),
    ),
    "meshgrid_no_arrays": (
        lambda: fi.meshgrid(indexing="ij"),
        lambda: T.meshgrid(indexing="ij"),
    ),
    "tril_1d": (
        lambda: fi.tril(fi.ones(3)),
        lambda: T.tril(T.ones(3)),
    ),
    "triu_0d": (
        lambda: fi.triu(fi.ones(())),
        lambda: T.triu(T.ones(())),
    ),
    "cat_sizes_differ": (
        lambda: fi.cat([fi.ones((2, 3)), fi.ones((2, 4))]),
        lambda: T.cat([T.ones((2, 3)), T.ones((2, 4))]),
    ),
    "cat_ranks_differ": (
        lambda: fi.cat([fi.ones((2, 3)), fi.ones((2, 3, 1))]),
        lambda: T.cat([T.ones((2, 3)), T.ones((2, 3, 1))]),
    ),
    "cat_dim_out_of_range": (
        lambda: fi.cat([fi.ones((2, 3))], 2),
        lambda: T.cat([T.ones((2, 3))], 2),
    ),
    "cat_empty_list": (
        lambda: fi.cat([]),
        lambda: T.cat([]),
    ),
    "cat_0d": (
        lambda: fi.cat([fi.ones(()), fi.ones(())]),
        lambda: T.cat([T.ones(()), T.ones(())]),
    ),
    "stack_shapes_differ": (
        lambda: fi.stack([fi.ones(2), fi.ones(3)]),
        lambda: T.stack([T.ones(2), T.ones(3)]),
    ),
    "stack_empty_list": (
        lambda: fi.stack([]),
        lambda: T.stack([]),
    ),
    "stack_dim_out_of_range": (
        lambda: fi.stack([fi.ones(2)], 3),
        lambda: T.stack([T.ones(2)], 3),
    ),
    "flip_dim_out_of_range": (
        lambda: fi.flip(fi.ones(2), (1,)),
        lambda: T.flip(T.ones(2), (1,)),
    ),
    "flip_repeated_dim": (
        lambda: fi.flip(fi.ones((2, 2)), (0, -2)),
        lambda: T.flip(T.ones((2, 2)), (0, -2)),
    ),
    "roll_shifts_and_dims_differ_in_length": (
        lambda: fi.roll(fi.ones((2, 2)), (1, 2), (0,)),
        lambda: T.roll(T.ones((2, 2)), (1, 2), (0,)),
    ),
    "roll_dim_out_of_range": (
        lambda: fi.roll(fi.ones((2, 2)), 1, 2),
        lambda: T.roll(T.ones((2, 2)), 1, 2),
    ),
    "roll_no_shifts": (
        lambda: fi.roll(fi.ones((2, 2)), (), ()),
        lambda: T.roll(T.ones((2, 2)), (), ()),
    ),
    "tile_negative": (
        lambda: fi.tile(fi.ones(2), (-1,)),
        lambda: T.tile(T.ones(2), (-1,)),
    ),
    "repeat_fewer_counts_than_dims": (
        lambda: fi.ones((2, 2)).repeat(2),
        lambda: T.ones((2, 2)).repeat(2),
    ),
    "repeat_negative": (
        lambda: fi.ones(2).repeat(-1),
        lambda: T.ones(2).repeat(-1),
    ),
    "repeat_interleave_negative_count": (
        lambda: fi.repeat_interleave(fi.ones(2), -1),
        lambda: T.repeat_interleave(T.ones(2), -1),
    ),
    "repeat_interleave_negative_counts": (
        lambda: fi.repeat_interleave(fi.ones(2), _i64([1, -1]), 0),
        lambda: T.repeat_interleave(T.ones(2), _t64([1, -1]), 0),
    ),
    "repeat_interleave_counts_wrong_length": (
        lambda: fi.repeat_interleave(fi.ones(2), _i64([1, 1, 1]), 0),
        lambda: T.repeat_interleave(T.ones(2), _t64([1, 1, 1]), 0),
    ),
    "repeat_interleave_float_repeats": (
        lambda: fi.repeat_interleave(fi.ones(2), fi.ones(2), 0),
        lambda: T.repeat_interleave(T.ones(2), T.ones(2), 0),
    ),
    "repeat_interleave_2d_repeats": (
        lambda: fi.repeat_interleave(fi.ones(2), _i64([[1, 1]]), 0),
        lambda: T.repeat_interleave(T.ones(2), _t64([[1, 1]]), 0),
    ),
    "repeat_interleave_dim_out_of_range": (
        lambda: fi.repeat_interleave(fi.ones(2), 2, 1),
        lambda: T.repeat_interleave(T.ones(2), 2, 1),
    ),
    "unbind_0d": (
        lambda: fi.unbind(fi.ones(())),
        lambda: T.unbind(T.ones(())),
    ),
    "unbind_out_of_range": (
        lambda: fi.unbind(fi.ones(2), 1),
        lambda: T.unbind(T.ones(2), 1),
    ),
    "movedim_repeated_source": (
        lambda: fi.movedim(fi.ones((2, 3)), (0, 0), (0, 1)),
        lambda: T.movedim(T.ones((2, 3)), (0, 0), (0, 1)),
    ),
    "movedim_repeated_destination": (
        lambda: fi.movedim(fi.ones((2, 3)), (0, 1), (1, 1)),
        lambda: T.movedim(T.ones((2, 3)), (0, 1), (1, 1)),
    ),
    "movedim_lengths_differ": (
        lambda: fi.movedim(fi.ones((2, 3)), (0, 1), (1,)),
        lambda: T.movedim(T.ones((2, 3)), (0, 1), (1,)),
    ),
    "movedim_out_of_range": (
        lambda: fi.movedim(fi.ones((2, 3)), 2, 0),
        lambda: T.movedim(T.ones((2, 3)), 2, 0),
    ),
    "index_select_out_of_range": (
        lambda: fi.index_select(fi.ones(3), 0, _i64([3])),
        lambda: T.index_select(T.ones(3), 0, _t64([3])),
    ),
    "index_select_negative_index": (
        lambda: fi.index_select(fi.ones(3), 0, _i64([-1])),
        lambda: T.index_select(T.ones(3), 0, _t64([-1])),
    ),
    "index_select_float_index": (
        lambda: fi.index_select(fi.ones(3), 0, fi.ones(1)),
        lambda: T.index_select(T.ones(3), 0, T.ones(1)),
    ),
    "index_select_2d_index": (
        lambda: fi.index_select(fi.ones(3), 0, _i64([[0]])),
        lambda: T.index_select(T.ones(3), 0, _t64([[0]])),
    ),
    "index_select_dim_out_of_range": (
        lambda: fi.index_select(fi.ones(3), 1, _i64([0])),
        lambda: T.index_select(T.ones(3), 1, _t64([0])),
    ),
    "take_out_of_range": (
        lambda: fi.take(fi.ones(3), _i64([3])),
        lambda: T.take(T.ones(3), _t64([3])),
    ),
    "take_negative_out_of_range": (
        lambda: fi.take(fi.ones(3), _i64([-4])),
        lambda: T.take(T.ones(3), _t64([-4])),
    ),
    "take_float_index": (
        lambda: fi.take(fi.ones(3), fi.ones(1)),
        lambda: T.take(T.ones(3), T.ones(1)),
    ),
    "take_empty_src": (
        lambda: fi.take(fi.ones(0), _i64([0])),
        lambda: T.take(T.ones(0), _t64([0])),
    ),
    # torch wraps the indices with `index % size`: an empty dim divides by zero
    "take_along_dim_of_empty_dim": (
        lambda: fi.take_along_dim(fi.zeros((2, 0)), _i64([[5]]), 1),
        lambda: T.take_along_dim(T.zeros((2, 0)), _t64([[5]]), 1),
    ),
    "take_along_dim_float_index": (
        lambda: fi.take_along_dim(fi.ones((2, 2)), fi.ones((1, 1)), 1),
        lambda: T.take_along_dim(T.ones((2, 2)), T.ones((1, 1)), 1),
    ),
    "take_along_dim_rank_mismatch": (
        lambda: fi.take_along_dim(fi.ones((2, 2)), _i64([0]), 1),
        lambda: T.take_along_dim(T.ones((2, 2)), _t64([0]), 1),
    ),
    "take_along_dim_dim_out_of_range": (
        lambda: fi.take_along_dim(fi.ones((2, 2)), _i64([[0]]), 2),
        lambda: T.take_along_dim(T.ones((2, 2)), _t64([[0]]), 2),
    ),
    "take_along_dim_not_broadcastable": (
        lambda: fi.take_along_dim(fi.ones((2, 2)), _i64([[0], [0], [0]]), 1),
        lambda: T.take_along_dim(T.ones((2, 2)), _t64([[0], [0], [0]]), 1),
    ),
    "diff_negative_n": (
        lambda: fi.diff(fi.ones(3), -1),
        lambda: T.diff(T.ones(3), -1),
    ),
    "diff_0d": (
        lambda: fi.diff(fi.ones(())),
        lambda: T.diff(T.ones(())),
    ),
    "diff_dim_out_of_range": (
        lambda: fi.diff(fi.ones(3), 1, 1),
        lambda: T.diff(T.ones(3), 1, 1),
    ),
    "diff_prepend_shape": (
        lambda: fi.diff(fi.ones((2, 3)), 1, 1, prepend=fi.ones((3, 1))),
        lambda: T.diff(T.ones((2, 3)), 1, 1, prepend=T.ones((3, 1))),
    ),
    "sort_dim_out_of_range": (
        lambda: fi.sort(fi.ones(3), 1),
        lambda: T.sort(T.ones(3), 1),
    ),
    "sort_complex": (
        lambda: fi.sort(fi.ones(3, dtype="complex64")),
        lambda: T.sort(T.ones(3, dtype=T.complex64)),
    ),
    "argsort_complex": (
        lambda: fi.argsort(fi.ones(3, dtype="complex64")),
        lambda: T.argsort(T.ones(3, dtype=T.complex64)),
    ),
    "searchsorted_bad_side": (
        lambda: fi.searchsorted(fi.ones(3), fi.ones(2), side="middle"),
        lambda: T.searchsorted(T.ones(3), T.ones(2), side="middle"),
    ),
    "searchsorted_sorter_float": (
        lambda: fi.searchsorted(fi.ones(3), fi.ones(2), sorter=fi.ones(3)),
        lambda: T.searchsorted(T.ones(3), T.ones(2), sorter=T.ones(3)),
    ),
    "searchsorted_sorter_shape": (
        lambda: fi.searchsorted(fi.ones(3), fi.ones(2), sorter=_i64([0, 1])),
        lambda: T.searchsorted(T.ones(3), T.ones(2), sorter=_t64([0, 1])),
    ),
    "searchsorted_sorter_out_of_range": (
        lambda: fi.searchsorted(fi.ones(3), fi.ones(2), sorter=_i64([0, 1, 5])),
        lambda: T.searchsorted(T.ones(3), T.ones(2), sorter=_t64([0, 1, 5])),
    ),
    "searchsorted_sorter_neg": (
        lambda: fi.searchsorted(fi.ones(3), fi.ones(2), sorter=_i64([0, 1, -1])),
        lambda: T.searchsorted(T.ones(3), T.ones(2), sorter=_t64([0, 1, -1])),
    ),
    "searchsorted_leading_dims_differ": (
        lambda: fi.searchsorted(fi.ones((2, 3)), fi.ones((3, 2))),
        lambda: T.searchsorted(T.ones((2, 3)), T.ones((3, 2))),
    ),
    "searchsorted_0d_sorted_sequence": (
        lambda: fi.searchsorted(fi.ones(()), fi.ones(2)),
        lambda: T.searchsorted(T.ones(()), T.ones(2)),
    ),
    "searchsorted_complex": (
        lambda: fi.searchsorted(fi.ones(3, dtype="complex64"), fi.ones(2, dtype="complex64")),
        lambda: T.searchsorted(T.ones(3, dtype=T.complex64), T.ones(2, dtype=T.complex64)),
    ),
    "unique_dim_out_of_range": (
        lambda: fi.unique(fi.ones(3), dim=1),
        lambda: T.unique(T.ones(3), dim=1),
    ),
    "unique_complex": (
        lambda: fi.unique(fi.ones(3, dtype="complex64")),
        lambda: T.unique(T.ones(3, dtype=T.complex64)),
    ),
    "unique_dim_0d": (
        lambda: fi.unique(fi.ones(()), dim=0),
        lambda: T.unique(T.ones(()), dim=0),
    ),
    "unique_dim_zero_size_other_dim": (
        lambda: fi.unique(fi.ones((0, 3)), dim=1),
        lambda: T.unique(T.ones((0, 3)), dim=1),
    ),
    "matmul_0d": (
        lambda: fi.matmul(fi.ones(()), fi.ones(3)),
        lambda: T.matmul(T.ones(()), T.ones(3)),
    ),
    "matmul_0d_right": (
        lambda: fi.matmul(fi.ones(3), fi.ones(())),
        lambda: T.matmul(T.ones(3), T.ones(())),
    ),
    "matmul_inner_sizes_differ": (
        lambda: fi.matmul(fi.ones((2, 3)), fi.ones((4, 2))),
        lambda: T.matmul(T.ones((2, 3)), T.ones((4, 2))),
    ),
    "matmul_vector_sizes_differ": (
        lambda: fi.matmul(fi.ones(3), fi.ones(4)),
        lambda: T.matmul(T.ones(3), T.ones(4)),
    ),
    "matmul_batch_not_broadcastable": (
        lambda: fi.matmul(fi.ones((2, 2, 3)), fi.ones((3, 3, 2))),
        lambda: T.matmul(T.ones((2, 2, 3)), T.ones((3, 3, 2))),
    ),
    "matmul_dtypes_differ": (
        lambda: fi.matmul(fi.ones((2, 2)), _i64([[1, 1], [1, 1]])),
        lambda: T.matmul(T.ones((2, 2)), _t64([[1, 1], [1, 1]])),
    ),
    "matmul_bool_operands": (
        lambda: fi.matmul(fi.ones((2, 2), dtype="bool"), fi.ones((2, 2), dtype="bool")),
        lambda: T.matmul(T.ones((2, 2), dtype=T.bool), T.ones((2, 2), dtype=T.bool)),
    ),
    "matmul_out_dtype": (
        lambda: fi.matmul(fi.ones((2, 2)), fi.ones((2, 2)), out=fi.zeros((2, 2), dtype="float64")),
        lambda: T.matmul(T.ones((2, 2)), T.ones((2, 2)), out=T.zeros((2, 2), dtype=T.float64)),
    ),
    "tensordot_dim_lists_differ_in_length": (
        lambda: fi.tensordot(fi.ones((2, 3)), fi.ones((3, 2)), dims=([1], [0, 1])),
        lambda: T.tensordot(T.ones((2, 3)), T.ones((3, 2)), dims=([1], [0, 1])),
    ),
    "tensordot_contracted_sizes_differ": (
        lambda: fi.tensordot(fi.ones((2, 3)), fi.ones((3, 2)), dims=([0], [0])),
        lambda: T.tensordot(T.ones((2, 3)), T.ones((3, 2)), dims=([0], [0])),
    ),
    "tensordot_negative_dims": (
        lambda: fi.tensordot(fi.ones((2, 3)), fi.ones((3, 2)), dims=-1),
        lambda: T.tensordot(T.ones((2, 3)), T.ones((3, 2)), dims=-1),
    ),
    "tensordot_dims_beyond_ndim": (
        lambda: fi.tensordot(fi.ones((2, 3)), fi.ones((3, 2)), dims=3),
        lambda: T.tensordot(T.ones((2, 3)), T.ones((3, 2)), dims=3),
    ),
    "tensordot_out_of_range": (
        lambda: fi.tensordot(fi.ones((3, 3)), fi.ones((3, 3)), dims=([2], [0])),
        lambda: T.tensordot(T.ones((3, 3)), T.ones((3, 3)), dims=([2], [0])),
    ),
    "tensordot_dtypes_differ": (
        lambda: fi.tensordot(fi.ones((3, 3)), _i64([[1] * 3] * 3), dims=1),
        lambda: T.tensordot(T.ones((3, 3)), _t64([[1] * 3] * 3), dims=1),
    ),
    "vecdot_sizes_differ": (
        lambda: fi.vecdot(fi.ones(3), fi.ones(4)),
        lambda: T.linalg.vecdot(T.ones(3), T.ones(4)),
    ),
    "vecdot_dtypes_differ": (
        lambda: fi.vecdot(fi.ones(3), _i64([1, 1, 1])),
        lambda: T.linalg.vecdot(T.ones(3), _t64([1, 1, 1])),
    ),
    "vecdot_not_broadcastable": (
        lambda: fi.vecdot(fi.ones((2, 3)), fi.ones((3, 3))),
        lambda: T.linalg.vecdot(T.ones((2, 3)), T.ones((3, 3))),
    ),
    "tensordot_repeated_dim": (
        lambda: fi.tensordot(fi.ones((3, 3)), fi.ones((3, 3)), dims=([0, 0], [0, 1])),
        lambda: T.tensordot(T.ones((3, 3)), T.ones((3, 3)), dims=([0, 0], [0, 1])),
    ),
}


def _i64(values) -> fi.Array:
    return fi.asarray(values, dtype="int64")


def _t64(values) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.int64)


def _odd_strides() -> np.ndarray:
    """A float32 view whose stride (6 bytes) is not a multiple of its item size."""
    return np.lib.stride_tricks.as_strided(np.zeros(10, np.float32), (2,), (6,))


#: torch's message, where ferroiter's kind differs from harness.fi_kind_for's mapping (api.md:
#: dtypes a function does not take are TypeErrors; torch raises RuntimeError)
TORCH_CASES_OF_KIND = {
    "inf_to_python_int": (
        lambda: int(fi.asarray(float("inf"))),
        lambda: int(T.tensor(float("inf"))),
        OverflowError,
    ),
    "integer_mean": (
        lambda: fi.ones(3, dtype="int64").mean(),
        lambda: T.ones(3, dtype=T.int64).mean(),
        TypeError,
    ),
    "integer_var": (
        lambda: fi.ones(3, dtype="int64").var(),
        lambda: T.ones(3, dtype=T.int64).var(),
        TypeError,
    ),
    "integer_std": (
        lambda: fi.ones(3, dtype="int64").std(),
        lambda: T.ones(3, dtype=T.int64).std(),
        TypeError,
    ),
}


@pytest.mark.parametrize("case", sorted(TORCH_CASES))
def test_refused_as_torch_refuses(case):
    fi_call, torch_call = TORCH_CASES[case]
    assert_same_error(fi_call, torch_call)


@pytest.mark.parametrize("case", sorted(TORCH_CASES_OF_KIND))
def test_refused_with_torchs_message(case):
    fi_call, torch_call, kind = TORCH_CASES_OF_KIND[case]
    assert_same_error(fi_call, torch_call, kind=kind)


# ---------------------------------------------------------------------------------------------
# categories torch does not have (or where ferroiter's contract differs): kind and a clear text


def _readonly(n: int = 3) -> np.ndarray:
    a = np.zeros(n)
    a.flags.writeable = False
    return a


READ_ONLY = "cannot write into a read-only array"

OWN_CASES = {
    "readonly_numpy_inplace": (
        lambda: fi.from_numpy(_readonly()).__iadd__(1),
        ValueError,
        READ_ONLY,
    ),
    "readonly_numpy_out": (
        lambda: (lambda x: fi.add(x, 1, out=x))(fi.from_numpy(_readonly())),
        ValueError,
        READ_ONLY,
    ),
    # all operands contiguous, one dtype and shape: the plan's one-step shortcut must refuse
    # the read-only output as the full build does
    "readonly_numpy_out_of_arrays": (
        lambda: fi.add(
            fi.ones(3, dtype="float64"), fi.ones(3, dtype="float64"), out=fi.from_numpy(_readonly())
        ),
        ValueError,
        READ_ONLY,
    ),
    "readonly_numpy_inplace_array": (
        lambda: fi.from_numpy(_readonly()).__iadd__(fi.ones(3, dtype="float64")),
        ValueError,
        READ_ONLY,
    ),
    "readonly_numpy_setitem": (
        lambda: fi.from_numpy(_readonly()).__setitem__(0, 1.0),
        ValueError,
        READ_ONLY,
    ),
    "readonly_numpy_copy_": (
        lambda: fi.from_numpy(_readonly()).copy_(fi.ones(3, dtype="float64")),
        ValueError,
        READ_ONLY,
    ),
    "readonly_numpy_view_inplace": (
        lambda: fi.from_numpy(_readonly(8))[::2].transpose(0, 0).__imul__(2),
        ValueError,
        READ_ONLY,
    ),
    "readonly_dlpack_inplace": (
        lambda: fi.from_dlpack(_readonly()).__iadd__(1),
        ValueError,
        READ_ONLY,
    ),
    "readonly_memoryview_write": (
        lambda: memoryview(fi.from_numpy(_readonly())).__setitem__(0, 1.0),
        TypeError,
        "read-only",
    ),
    "readonly_reduction_out": (
        lambda: fi.sum(fi.ones(3), 0, out=fi.from_numpy(_readonly(1)).reshape(())),
        ValueError,
        READ_ONLY,
    ),
    "dlpack_stream_on_cpu": (
        lambda: fi.ones(3).__dlpack__(stream=5),
        ValueError,
        "stream must be None for CPU arrays",
    ),
    "from_numpy_object_dtype": (
        lambda: fi.from_numpy(np.array([1, None], dtype=object)),
        TypeError,
        "does not support dtype object (the input holds Python objects",
    ),
    "from_numpy_strings": (
        lambda: fi.from_numpy(np.array(["a", "b"])),
        TypeError,
        "does not support dtype <U1",
    ),
    "from_numpy_datetime": (
        lambda: fi.from_numpy(np.array(["2020-01-01"], dtype="M8[D]")),
        TypeError,
        "does not support dtype datetime64[D]",
    ),
    "from_numpy_structured": (
        lambda: fi.from_numpy(np.zeros(3, dtype=[("a", "f4"), ("b", "i4")])),
        TypeError,
        "does not support dtype [('a', '<f4'), ('b', '<i4')]",
    ),
    "from_numpy_longdouble": (
        lambda: fi.from_numpy(np.zeros(3, np.longdouble)),
        TypeError,
        "does not support dtype float128",
    ),
    "from_numpy_big_endian": (
        lambda: fi.from_numpy(np.zeros(3, ">f4")),
        TypeError,
        "non-native byte order",
    ),
    "list_int_too_big": (lambda: fi.asarray([2**70]), TypeError, "ints beyond 64 bits"),
    "list_with_a_string": (lambda: fi.asarray([1, "a"]), TypeError, "does not support dtype <U21"),
    "ragged_list": (lambda: fi.asarray([[1, 2], [3]]), ValueError, "inhomogeneous"),
    "python_int_overflows_int64": (
        lambda: fi.ones(3, dtype="int8") + 2**70,
        ValueError,
        "cannot be converted to type int64 without overflow",
    ),
    "unsupported_dtype_name": (lambda: fi.empty(3, dtype="nonsense"), TypeError, "nonsense"),
    "unsupported_dtype_bytes": (lambda: fi.empty(3, dtype="S3"), TypeError, "S3"),
    "unsupported_dtype_unicode": (lambda: fi.empty(3, dtype="U3"), TypeError, "dtype <U3"),
    "set_grain_size_zero": (lambda: fi.set_grain_size(0), ValueError, "positive integer"),
    "set_num_threads_not_an_int": (lambda: fi.set_num_threads(2.5), TypeError, "integer"),
    "iterator_output_index": (lambda: _iterator().output(5), IndexError, "out of range"),
    "iterator_dtype_index": (lambda: _iterator().dtype(-1), IndexError, "index -1 is negative"),
    "iterator_strides_index": (lambda: _iterator().strides(7), IndexError, "out of range"),
    "iterator_loops_range": (lambda: _iterator().loops(5, 2), IndexError, "outside [0, 3)"),
    "iterator_loops_past_end": (lambda: _iterator().loops(0, 100), IndexError, "outside [0, 3)"),
    "dlpack_not_a_capsule": (
        lambda: fi.from_dlpack(_Producer(lambda: "not a capsule")),
        TypeError,
        "did not return a capsule",
    ),
    "dlpack_producer_raises": (
        lambda: fi.from_dlpack(_Producer(_boom)),
        RuntimeError,
        "boom",
    ),
    "dlpack_non_cpu_device": (
        lambda: fi.from_dlpack(_Producer(lambda: np.zeros(3).__dlpack__(), device=(2, 0))),
        BufferError,
        "CPU memory only",
    ),
    "dlpack_capsule_consumed_twice": (lambda: _consume_twice(), ValueError, "already consumed"),
    "array_protocol_raises": (lambda: fi.asarray(_ArrayLike(_boom)), RuntimeError, "boom"),
    "asarray_of_none": (lambda: fi.asarray(None), TypeError, "not numbers: None"),
    "recursive_list": (lambda: fi.asarray(_recursive()), ValueError, ""),
    # torch's message prints the tensor; ours its shape
    "meshgrid_2d_input": (
        lambda: fi.meshgrid(fi.ones((2, 2)), fi.ones(3), indexing="ij"),
        ValueError,
        "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: [2, 2]",
    ),
    "meshgrid_of_blocked": (
        lambda: fi.meshgrid(fi.ones((2, 5, 3, 3), memory_format=fi.nChw8c), indexing="ij"),
        ValueError,
        "Expected 0D or 1D tensor in the tensor list but got: [2, 5, 3, 3]",
    ),
    "unbind_of_blocked": (
        lambda: fi.unbind(fi.ones((2, 5, 3, 3), memory_format=fi.nChw8c), 1),
        ValueError,
        "views of an array in the blocked format nChw8c are not supported",
    ),
    "movedim_of_blocked": (
        lambda: fi.movedim(fi.ones((2, 5, 3, 3), memory_format=fi.nChw8c), 1, 3),
        ValueError,
        "views of an array in the blocked format nChw8c are not supported",
    ),
}


class _Producer:
    """A DLPack producer whose __dlpack__ returns what `make()` gives."""

    def __init__(self, make, device=(1, 0)):
        self.make, self.device = make, device

    def __dlpack__(self, **kwargs):
        return self.make()

    def __dlpack_device__(self):
        return self.device


class _ArrayLike:
    def __init__(self, make):
        self.make = make

    def __array__(self, *args, **kwargs):
        return self.make()


def _boom():
    raise RuntimeError("boom")


def _recursive() -> list:
    items: list = []
    items.append(items)
    return items


def _consume_twice():
    capsule = fi.ones(3).__dlpack__()
    producer = _Producer(lambda: capsule)
    fi.from_dlpack(producer)
    fi.from_dlpack(producer)


def _iterator():
    config = fi.TensorIteratorConfig()
    config.add_output(None).add_input(fi.ones(3))
    return config.build()


@pytest.mark.parametrize("case", sorted(OWN_CASES))
def test_refused_with_a_clear_message(case):
    call, kind, message = OWN_CASES[case]
    raises(call, kind, message)


# ---------------------------------------------------------------------------------------------
# categories that could crash the process: in a child interpreter

ISOLATED_CASES = {
    "overflowing_shape": (
        "fi.empty((2**40, 2**40))",
        "ValueError",
        "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]",
    ),
    "overflowing_shape_times_itemsize": (
        "fi.empty((2**61, 4))",
        "ValueError",
        "Storage size calculation overflowed with sizes=[2305843009213693952, 4]",
    ),
    "overflowing_strides_of_an_empty_shape": (
        "fi.zeros((0, 2**40, 2**40))",
        "ValueError",
        "Stride calculation overflowed",
    ),
    "size_beyond_int64": ("fi.empty((2**70,))", "TypeError", "a size beyond int64"),
    "huge_allocation": ("fi.empty((2**45,), dtype='uint8')", "MemoryError", ""),
    "empty_strided_overflowing_stride": ("fi.empty_strided((2, 3), (2**62, 1))", "ValueError", ""),
    "as_strided_huge_offset": ("fi.zeros(6).as_strided((1,), (1,), 2**62)", "ValueError", ""),
    "as_strided_max_stride": ("fi.zeros(6).as_strided((3,), (2**63 - 1,))", "ValueError", ""),
    # torch and ferroiter have no rank limit: 70 dims work
    "many_dims": (
        "a = fi.zeros((1,) * 70); assert (a + 1).sum().item() == 1.0;"
        " assert a.transpose(0, 69).contiguous().shape == (1,) * 70",
        "NO",
        "",
    ),
    "many_dims_numpy": ("assert float(fi.from_numpy(np.ones((1,) * 64)).sum()) == 1.0", "NO", ""),
    "misaligned_numpy": (
        "fi.from_numpy(np.zeros(17, np.uint8)[1:].view(np.float32))",
        "ValueError",
        "not aligned",
    ),
    "bad_capsule_name": (
        """
        import ctypes
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        capsule = new(1, b"wrong", None)
        fi.from_dlpack(capsule)
        """,
        "ValueError",
        "expected a capsule named 'dltensor'",
    ),
    "array_protocol_lies": (
        """
        class Liar:
            def __array__(self, *a, **k):
                return 5
        fi.asarray(Liar())
        """,
        "ValueError",
        "",
    ),
    "deeply_nested_list": (
        """
        nested = 1
        for _ in range(200):
            nested = [nested]
        fi.asarray(nested)
        """,
        "ValueError",
        "",
    ),
    "many_threads": (
        "fi.set_num_threads(10000); assert float((fi.ones(10**6) + 1).sum()) == 2e6",
        "NO",
        "",
    ),
    # repeat_interleave builds an index of one entry per result slice: checked, not aborting
    "repeat_interleave_total_overflows": (
        "fi.repeat_interleave(fi.ones(4), 2**62)",
        "ValueError",
        "repeat_interleave: the repeats sum to more than 2^63 - 1 slices",
    ),
    "repeat_interleave_counts_overflow": (
        "fi.repeat_interleave(fi.ones(2), fi.asarray([2**62, 2**62]), 0)",
        "ValueError",
        "repeat_interleave: the repeats sum to more than 2^63 - 1 slices",
    ),
    "repeat_interleave_huge": (
        "fi.repeat_interleave(fi.ones(2), fi.asarray([2**42, 2**42]), 0)",
        "MemoryError",
        "",
    ),
    "eye_huge": ("fi.eye(2**40)", "ValueError", "Storage size calculation overflowed"),
    "linspace_huge": ("fi.linspace(0, 1, 2**62)", "ValueError", "Storage size calculation"),
    "arange_huge": ("fi.arange(0, 2**62)", "ValueError", "Storage size calculation overflowed"),
    "arange_huge_float": ("fi.arange(0.0, 2.0**62)", "ValueError", "Storage size calculation"),
    "tile_overflow": ("fi.tile(fi.ones(4), (2**62,))", "ValueError", "Storage size calculation"),
    "matmul_huge_result": (
        "fi.matmul(fi.ones((2**20, 1)), fi.ones((1, 1)).expand(1, 2**20))",
        "MemoryError",
        "",
    ),
    "index_with_int64_min": (
        "fi.take(fi.ones(3), fi.asarray([-2**63]))",
        "IndexError",
        "out of range: tried to access index -9223372036854775808 on a tensor of 3 elements.",
    ),
    "searchsorted_sorter_far_out_of_range": (
        "fi.searchsorted(fi.ones(3), fi.ones(2), sorter=fi.asarray([0, 1, -2**63]))",
        "ValueError",
        "torch.searchsorted(): sorter index out of range",
    ),
    # blocked arrays through the functions that read logical elements by strides: they once
    # read outside the storage (unique gave garbage); now dense copies, the dense answer
    "blocked_through_sorting_and_gathering": (
        """
        x = fi.arange(90.0).reshape(2, 5, 3, 3)
        b = x.contiguous(memory_format=fi.nChw8c)
        assert fi.unique(b).tolist() == fi.unique(x).tolist()
        assert fi.nonzero(b).tolist() == fi.nonzero(x).tolist()
        assert fi.sort(b, 1).values.tolist() == fi.sort(x, 1).values.tolist()
        assert fi.matmul(b, b).tolist() == fi.matmul(x, x).tolist()
        assert fi.take(b, fi.asarray([89])).tolist() == [89.0]
        """,
        "NO",
        "",
    ),
    "rebuild_from_short_bytes": (
        "fi._ferroiter._rebuild_array(b'xx', 'float32', (5,), (1,), 0)",
        "ValueError",
        "",
    ),
}


@pytest.mark.parametrize("case", sorted(ISOLATED_CASES))
def test_refused_without_crashing(case):
    code, kind, message = ISOLATED_CASES[case]
    if kind == "NO":
        run_isolated(code)
    else:
        raises_isolated(code, kind, message)


# ---------------------------------------------------------------------------------------------
# inputs that are valid but at the edges: the right answer, not an error


def test_zero_size_everything_matches_torch():
    """Every reduction, scan, op and conversion of empty arrays gives torch's result."""
    from harness import assert_result, assert_same_outcome

    for shape in [(0,), (0, 3), (3, 0, 2)]:
        a, t = fi.zeros(shape), torch.zeros(shape)
        for name in ["sum", "prod", "all", "any", "count_nonzero"]:
            assert_result(getattr(a, name)(), getattr(t, name)())
        assert_same_outcome(lambda a=a: a.amax(-1), lambda t=t: t.amax(-1))
        assert_result(a.cumsum(0), t.cumsum(0))
        assert_result(a + 1, t + 1)
        assert_result(a.to("int8"), t.to(torch.int8))
        assert_result(a.transpose(0, -1).contiguous(), t.transpose(0, -1).contiguous())
        assert np.isnan(float(a.mean())) and np.isnan(float(t.mean()))


def test_misaligned_numpy_data_is_refused_or_exact():
    """Misaligned numpy data (an odd byte offset) never gives a wrong answer: it is refused
    with a clear message (from_numpy), and the np.require copy computes right."""
    raw = np.zeros(33, np.uint8)[1:].view(np.float64)
    raw[:] = np.arange(4.0)
    raises(lambda: fi.from_numpy(raw), ValueError, "not aligned")
    np.testing.assert_array_equal(
        (fi.from_numpy(np.require(raw, requirements="A")) * 2).numpy(), raw * 2
    )


def test_nan_and_inf_convert_to_integers_as_torch_does():
    """float -> int conversions of NaN and infinities are torch's (platform-defined) values,
    not a crash."""
    values = [float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 2.5]
    for dtype in ["int64", "int32", "uint8", "bool"]:
        ours = fi.asarray(values, dtype="float64").to(dtype).numpy()
        theirs = torch.tensor(values, dtype=torch.float64).to(getattr(torch, dtype)).numpy()
        if dtype == "bool":
            np.testing.assert_array_equal(ours, theirs)
        else:
            assert ours.dtype == theirs.dtype and ours.shape == theirs.shape


def test_the_catalogue_is_large():
    """At least 40 categories are tried (issue 13)."""
    categories = (
        len(TORCH_CASES) + len(TORCH_CASES_OF_KIND) + len(OWN_CASES) + len(ISOLATED_CASES) + 3
    )
    assert categories >= 40, categories
