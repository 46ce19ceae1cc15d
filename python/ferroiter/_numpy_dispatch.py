"""numpy's protocols for ferroiter arrays: ``__array_ufunc__`` and ``__array_function__``.

numpy calls these when a ufunc (``np.exp(a)``, ``np.add(a, b, out=c)``) or a numpy function
(``np.sum(a)``) meets a ``ferroiter.Array``. Where ferroiter has the operation, it runs on
ferroiter's kernels and returns an Array (with torch's type promotion); elsewhere the Arrays
are viewed as ndarrays (zero-copy) and numpy computes, returning numpy's result. Both
decisions are table lookups: adding an operation is one line in a table below.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import _ferroiter as _fi

#: numpy ufunc names whose ferroiter name differs. A ufunc whose name is already a row of
#: ``ferroiter._op_table()`` (``exp``, ``maximum``, ``logical_and``, ...) needs no entry.
UFUNC_NAMES: dict[str, str] = {
    "negative": "neg",
    "absolute": "abs",
    "rint": "round",
    "invert": "bitwise_not",
    "subtract": "sub",
    "multiply": "mul",
    "divide": "div",
    "true_divide": "div",
    "mod": "remainder",
    "power": "pow",
    "equal": "eq",
    "not_equal": "ne",
    "less": "lt",
    "less_equal": "le",
    "greater": "gt",
    "greater_equal": "ge",
}

#: ufuncs ferroiter computes that are not rows of the op table.
EXTRA_UFUNCS: frozenset[str] = frozenset({"matmul"})

_op_names: set[str] | None = None


def _ferroiter_ops() -> set[str]:
    """The op table's function names (read once)."""
    global _op_names
    if _op_names is None:
        _op_names = {str(row["name"]) for row in _fi._op_table()}
    return _op_names


def ferroiter_ufunc(ufunc: np.ufunc) -> Callable[..., Any] | None:
    """The ferroiter function computing ``ufunc``, or None when ferroiter has none."""
    name = UFUNC_NAMES.get(ufunc.__name__, ufunc.__name__)
    if (name in _ferroiter_ops() or name in EXTRA_UFUNCS) and name not in ("where", "clamp"):
        fn: Callable[..., Any] = getattr(_fi, name)
        return fn
    return None


def _operand_ok(x: object) -> bool:
    return isinstance(x, (_fi.Array, np.ndarray, bool, int, float, complex, np.generic))


def _to_numpy(x: Any) -> Any:
    """Arrays as zero-copy ndarrays, recursively through lists and tuples."""
    if isinstance(x, _fi.Array):
        return x.numpy()
    if isinstance(x, (list, tuple)):
        return type(x)(_to_numpy(v) for v in x)
    return x


def array_ufunc(
    self: _fi.Array, ufunc: np.ufunc, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """``Array.__array_ufunc__``: ferroiter's kernel for a plain call it has, else numpy."""
    out = kwargs.get("out")
    outs: tuple[Any, ...] = out if isinstance(out, tuple) else (() if out is None else (out,))
    fn = ferroiter_ufunc(ufunc) if method == "__call__" else None
    dispatch = (
        fn is not None
        and set(kwargs) <= {"out"}
        and len(inputs) == ufunc.nin
        and ufunc.nout == 1
        and all(_operand_ok(x) for x in inputs)
        and any(isinstance(x, _fi.Array) for x in inputs)
        and all(isinstance(o, _fi.Array) for o in outs)
        and len(outs) <= 1
    )
    if dispatch:
        assert fn is not None
        if outs:
            return fn(*inputs, out=outs[0])
        return fn(*inputs)
    np_kwargs = dict(kwargs)
    if outs:
        np_kwargs["out"] = tuple(_to_numpy(o) for o in outs)
    result = getattr(ufunc, method)(*_to_numpy(inputs), **np_kwargs)
    if outs:
        return outs[0] if len(outs) == 1 else outs
    return result


def _reduction(name: str) -> Callable[..., Any] | None:
    """A numpy reduction ``np.<name>(a, axis=None, dtype=None, out=None, keepdims=False)`` on
    ferroiter's ``<name>(a, dim=..., keepdim=...)`` when ferroiter has it."""
    fn = getattr(_fi, name, None)
    if fn is None:
        return None

    def call(a: Any, axis: Any = None, *, keepdims: bool = False) -> Any:
        if not isinstance(a, _fi.Array):
            raise NotImplementedError
        if axis is None:
            return fn(a) if not keepdims else fn(a, dim=tuple(range(a.ndim)), keepdim=True)
        return fn(a, dim=axis, keepdim=keepdims)

    return call


def _clip(a: Any, a_min: Any = None, a_max: Any = None) -> Any:
    return _fi.clamp(a, a_min, a_max)


def _where(condition: Any, x: Any = None, y: Any = None) -> Any:
    if x is None or y is None:
        raise NotImplementedError
    return _fi.where(condition, x, y)


#: numpy functions ferroiter computes itself: numpy's name -> a callable taking numpy's
#: arguments (one that raises NotImplementedError or TypeError lets numpy compute instead).
#: The reductions are picked up when ferroiter defines them.
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "clip": _clip,
    "where": _where,
    "broadcast_to": lambda a, shape: _fi.broadcast_to(a, shape),
    **{
        name: fn
        for name in ("sum", "mean", "prod", "amax", "amin", "max", "min", "all", "any")
        if (fn := _reduction(name)) is not None
    },
}


def array_function(
    self: _fi.Array, func: Any, types: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """``Array.__array_function__``: ferroiter's version when the table has one, else numpy's
    on zero-copy ndarray views."""
    ours = FUNCTIONS.get(getattr(func, "__name__", ""))
    if ours is not None and "out" not in kwargs:
        try:
            return ours(*args, **kwargs)
        except (NotImplementedError, TypeError):
            pass
    return func(*_to_numpy(args), **{k: _to_numpy(v) for k, v in kwargs.items()})
