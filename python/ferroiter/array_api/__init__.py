"""ferroiter's namespace for the Python Array API standard (2024.12).

``ferroiter.Array.__array_namespace__()`` (and ``array_api_compat.array_namespace``) return this
module. Its functions follow the standard's semantics where they differ from the torch-style
top-level ``ferroiter`` API: the standard's type promotion (0-d arrays promote like any other
array, Python scalars take the array's dtype), ``axis``/``keepdims`` names, default dtypes
int64/float64/complex128, and the standard's special-case values. The work itself runs on
ferroiter's ops; every function takes this namespace's :class:`Array` or a plain
``ferroiter.Array``. The ``linalg`` and ``fft`` extensions are the submodules of the same
names (their decompositions and transforms compute in numpy on a zero-copy view: see their
docstrings).
"""

from __future__ import annotations

import math
import sys
import types

from . import fft, linalg
from ._array_object import Array
from ._creation import (
    arange,
    asarray,
    empty,
    empty_like,
    eye,
    from_dlpack,
    full,
    full_like,
    linspace,
    meshgrid,
    ones,
    ones_like,
    tril,
    triu,
    zeros,
    zeros_like,
)
from ._data_type_functions import astype, can_cast, finfo, iinfo, isdtype, result_type
from ._dtypes import (
    bool,
    complex64,
    complex128,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._elementwise import (
    abs,
    acos,
    acosh,
    add,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    bitwise_and,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    ceil,
    clip,
    conj,
    copysign,
    cos,
    cosh,
    divide,
    equal,
    exp,
    expm1,
    floor,
    floor_divide,
    greater,
    greater_equal,
    hypot,
    imag,
    isfinite,
    isinf,
    isnan,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    multiply,
    negative,
    nextafter,
    not_equal,
    positive,
    pow,
    real,
    reciprocal,
    remainder,
    round,
    sign,
    signbit,
    sin,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    trunc,
)
from ._info import __array_namespace_info__
from ._linalg import matmul, tensordot, vecdot
from ._manipulation import (
    broadcast_arrays,
    broadcast_to,
    concat,
    expand_dims,
    flip,
    matrix_transpose,
    moveaxis,
    permute_dims,
    repeat,
    reshape,
    roll,
    squeeze,
    stack,
    take,
    take_along_axis,
    tile,
    unstack,
)
from ._searching import argmax, argmin, count_nonzero, nonzero, searchsorted, where
from ._set import unique_all, unique_counts, unique_inverse, unique_values
from ._sorting import argsort, sort
from ._statistical import (
    cumulative_prod,
    cumulative_sum,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)
from ._utility import all, any, diff

#: The version of the standard this namespace implements.
__array_api_version__ = "2024.12"

_SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")

e = math.e
inf = math.inf
nan = math.nan
pi = math.pi
newaxis = None


def _check_api_version(api_version: str | None) -> None:
    """ValueError for a version of the standard this namespace does not implement."""
    if api_version is not None and api_version not in _SUPPORTED_VERSIONS:
        raise ValueError(
            f"ferroiter.array_api implements the array API standard {__array_api_version__}; "
            f"api_version {api_version!r} is not supported"
        )


def _namespace() -> types.ModuleType:
    return sys.modules[__name__]


__all__ = [
    "Array",
    "__array_api_version__",
    "__array_namespace_info__",
    "abs", "acos", "acosh", "add", "all", "any", "arange", "argmax", "argmin", "argsort",
    "asarray", "asin", "asinh", "astype", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_invert", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor",
    "bool", "broadcast_arrays", "broadcast_to", "can_cast", "ceil", "clip", "complex64",
    "complex128", "concat", "conj", "copysign", "cos", "cosh", "count_nonzero",
    "cumulative_prod", "cumulative_sum", "diff", "divide", "e", "empty", "empty_like",
    "equal", "exp", "expand_dims", "expm1", "eye", "fft", "finfo", "flip", "float32", "float64",
    "floor", "floor_divide", "from_dlpack", "full", "full_like", "greater", "greater_equal",
    "hypot", "iinfo", "imag", "inf", "int8", "int16", "int32", "int64", "isdtype", "isfinite",
    "isinf", "isnan", "less", "less_equal", "linalg", "linspace", "log", "log1p", "log2", "log10",
    "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor", "matmul",
    "matrix_transpose", "max", "maximum", "mean", "meshgrid", "min", "minimum", "moveaxis",
    "multiply", "nan", "negative", "newaxis", "nextafter", "nonzero", "not_equal", "ones",
    "ones_like", "permute_dims", "pi", "positive", "pow", "prod", "real", "reciprocal",
    "remainder", "repeat", "reshape", "result_type", "roll", "round", "searchsorted", "sign",
    "signbit", "sin", "sinh", "sort", "sqrt", "square", "squeeze", "stack", "std", "subtract",
    "sum", "take", "take_along_axis", "tan", "tanh", "tensordot", "tile", "tril", "triu",
    "trunc", "uint8", "uint16", "uint32", "uint64", "unique_all", "unique_counts",
    "unique_inverse", "unique_values", "unstack", "var", "vecdot", "where", "zeros",
    "zeros_like",
]  # fmt: skip
