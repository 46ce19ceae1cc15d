"""`python -m ferroiter tour`: torch's layout rules, computed live by ferroiter."""

from __future__ import annotations

import ferroiter as fi


def _show(label: str, a: fi.Array) -> None:
    print(f"  {label:<44} shape={a.shape} stride={a.stride()} format={a.memory_format!r}")


def tour() -> None:
    print("ferroiter tour: torch's layout rules, computed live\n")
    print("1. New arrays get the strides of their memory format")
    _show("empty((2,3,4,5))", fi.empty((2, 3, 4, 5)))
    _show("empty((2,3,4,5), channels_last)", fi.empty((2, 3, 4, 5), memory_format=fi.channels_last))
    _show("empty((2,0,4,5), channels_last)", fi.empty((2, 0, 4, 5), memory_format=fi.channels_last))
    _show(
        "empty((2,3,4,5,6), channels_last_3d)",
        fi.empty((2, 3, 4, 5, 6), memory_format=fi.channels_last_3d),
    )

    print("\n2. Ambiguous arrays are contiguous in two formats at once (torch-semantics §1)")
    cases = [
        ((2, 3, 1, 1), (3, 1, 1, 1)),
        ((2, 3, 1, 1), (3, 1, 3, 3)),
        ((2, 1, 4, 4), (16, 1, 4, 1)),
        ((2, 1, 1, 1), (4, 4, 4, 4)),
        ((1, 4, 1, 3), (12, 1, 4, 4)),
        ((2, 3, 4, 5), (120, 1, 30, 6)),
    ]
    base = fi.empty((1024,))
    for shape, stride in cases:
        a = base.as_strided(shape, stride)
        print(
            f"  {str(shape):>14}@{str(stride):<16} contiguous={a.is_contiguous()!s:<5} "
            f"channels_last={a.is_contiguous(fi.channels_last)!s:<5} "
            f"suggest={a.suggest_memory_format()!r}"
        )

    print("\n3. empty_like keeps dense strides and densifies the others in the same order")
    x = fi.empty((2, 3, 4)).permute(2, 0, 1)[:, :, ::2]
    _show("x = empty(2,3,4).permute(2,0,1)[:,:,::2]", x)
    _show("empty_like(x)", fi.empty_like(x))

    print("\n4. Broadcasting folds left and reports the highest mismatching dim")
    print(
        "  broadcast_shapes((2,1,4), (3,1), (1,)) =", fi.broadcast_shapes((2, 1, 4), (3, 1), (1,))
    )
    try:
        fi.broadcast_shapes((2, 3), (3,), (2, 1, 4))
    except ValueError as err:
        print("  broadcast_shapes((2,3), (3,), (2,1,4)) ->", err)

    print("\n5. Type promotion: dim arrays, 0-d arrays and Python scalars in three buckets")
    i32 = fi.zeros((3,), dtype="int32")
    promotions: list[tuple[str, tuple[fi.Array | float, ...]]] = [
        ("int32[3] + 0-d int64", (i32, fi.zeros((), dtype="int64"))),
        ("int32[3] + 0-d float64", (i32, fi.zeros((), dtype="float64"))),
        ("int32[3] + 5.5", (i32, 5.5)),
        ("uint8[3] + int8[3]", (fi.zeros((3,), dtype="uint8"), fi.zeros((3,), dtype="int8"))),
    ]
    for label, ops in promotions:
        print(f"  result_type({label}) = {fi.result_type(*ops)}")


def tour_iterator() -> None:
    print("\n6. The TensorIterator picks the output layout: channels_last (2,3,4,5) + (3,4,5)")
    a = fi.empty((2, 3, 4, 5), memory_format=fi.channels_last)
    b = fi.empty((3, 4, 5))
    it = fi.TensorIterator.binary_op(None, a, b)
    print("   " + it.explain().replace("\n", "\n   "))
    print("\n7. ...and the kernels run it: results, strides and dtypes as torch's")
    x = fi.arange(6, dtype="int32").reshape(2, 3)
    y = x.transpose(0, 1) * 2.5
    print(f"  x.T * 2.5 -> dtype {y.dtype}, stride {y.stride()}, values {y.tolist()}")
    z = fi.empty((1, 64, 5, 4)).contiguous(fi.channels_last)
    print(f"  (1,64,5,4).contiguous(channels_last) -> stride {z.stride()}")


def run() -> None:
    """The whole tour, then where to go next."""
    tour()
    tour_iterator()
    print("\nNext: ask your own questions (each command has --help)")
    for command, what in (
        ("explain add 2,3,4,5:channels_last 3,4,5", "the build, step by step"),
        ("layout 1,3,2,2:channels_last", "which element lives where"),
        ("bench --quick", "against torch and numpy"),
    ):
        print(f"  python -m ferroiter {command:<42} # {what}")
