"""The standard's utility functions: all, any, diff."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias

import ferroiter as _fi

from ._dtypes import bool as bool_dtype
from ._helpers import cast, unwrap, wrap
from ._manipulation import _common
from ._statistical import _reduce

if TYPE_CHECKING:
    from ._array_object import Array

_Axis: TypeAlias = int | Sequence[int] | None


def all(x: Array, /, *, axis: _Axis = None, keepdims: bool = False) -> Array:
    a = unwrap(x)
    return wrap(cast(_reduce(_fi.all, cast(a, bool_dtype), axis, keepdims), bool_dtype))


def any(x: Array, /, *, axis: _Axis = None, keepdims: bool = False) -> Array:
    a = unwrap(x)
    return wrap(cast(_reduce(_fi.any, cast(a, bool_dtype), axis, keepdims), bool_dtype))


def diff(
    x: Array,
    /,
    *,
    axis: int = -1,
    n: int = 1,
    prepend: Array | None = None,
    append: Array | None = None,
) -> Array:
    parts = [p for p in (prepend, x, append) if p is not None]
    arrs = _common(parts)
    main = arrs[1] if prepend is not None else arrs[0]
    pre = arrs[0] if prepend is not None else None
    app = arrs[-1] if append is not None else None
    return wrap(_fi.diff(main, n, axis, pre, app))
