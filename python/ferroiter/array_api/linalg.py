"""The standard's ``linalg`` extension (2024.12): ``xp.linalg``.

Where ferroiter has the op, the function runs on it: ``matmul``, ``tensordot``, ``vecdot`` and
``matrix_transpose`` are the main namespace's; ``diagonal`` is a strided view; ``trace``,
``outer``, ``cross``, ``vector_norm`` and most of ``matrix_norm`` are ferroiter elementwise ops
and reductions. The decompositions and solvers (``cholesky``, ``det``, ``eigh``, ``eigvalsh``,
``inv``, ``matrix_power``, ``pinv``, ``qr``, ``slogdet``, ``solve``, ``svd``, ``svdvals``, and
through them ``matrix_rank`` and the 2-/nuclear matrix norms) compute in ``numpy.linalg`` (LAPACK)
on a zero-copy numpy view of the ferroiter array, ferroiter having no LAPACK of its own (the
SVD of one large matrix through SciPy's call of the same LAPACK driver, where SciPy is
installed: numpy's wrapper costs 1.3-2.4x on tall matrices); their
results come back as ferroiter arrays in the dtype the standard asks for (float32 in, float32
out; complex64 likewise; the real parts of complex results in the matching real precision).
"""

from __future__ import annotations

import builtins
import functools
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np

import ferroiter as _fi

from ._dtypes import (
    COMPLEX_FLOATING,
    DEFAULT_FLOAT,
    DEFAULT_INT,
    FLOATING,
    DType,
    complex64,
    float32,
    float64,
    promote,
)
from ._dtypes import bool as bool_dtype
from ._elementwise import operands
from ._helpers import cast, from_np, is_array, np_view, unwrap, wrap
from ._linalg import matmul, tensordot, vecdot
from ._manipulation import matrix_transpose
from ._statistical import normalize_axes
from ._statistical import sum as _xp_sum

if TYPE_CHECKING:
    from ._array_object import Array

_NDArray = np.ndarray[Any, Any]


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


def real_dtype_of(dt: DType) -> DType:
    """The real floating dtype of ``dt``'s precision (complex64 -> float32)."""
    if dt in COMPLEX_FLOATING:
        return float32 if dt == complex64 else float64
    return dt


def _floating(x: object) -> _fi.Array:
    """``x`` as a floating array: integer and bool arrays become the default float."""
    a = unwrap(x)
    return a if a.dtype in FLOATING else cast(a, DEFAULT_FLOAT)


def _matrices(x: object, name: str, *, square: bool = False) -> _fi.Array:
    """``x`` as a floating stack of matrices (ValueError below 2-d, or not square)."""
    a = _floating(x)
    if a.ndim < 2:
        raise ValueError(f"{name} needs an array of at least 2 dimensions, got {a.ndim}")
    if square and a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name} needs square matrices, got {a.shape[-2]}x{a.shape[-1]}")
    return a


def _back(nd: object, dtype: DType) -> Array:
    """A numpy result as a namespace array of ``dtype`` (numpy may compute in float64)."""
    return wrap(from_np(nd, dtype))


def _lapack(a: _fi.Array) -> _NDArray:
    """The zero-copy numpy view that numpy.linalg reads."""
    return np_view(a)


# -- on ferroiter's ops -----------------------------------------------------------------------
def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """The ``offset`` diagonal of each matrix: a strided view (no copy), as torch's diagonal."""
    a = unwrap(x)
    if a.ndim < 2:
        raise ValueError(f"diagonal needs an array of at least 2 dimensions, got {a.ndim}")
    rows, cols = a.shape[-2:]
    if offset >= 0:
        size = builtins.max(0, builtins.min(rows, cols - offset))
        start = (0, offset)
    else:
        size = builtins.max(0, builtins.min(rows + offset, cols))
        start = (-offset, 0)
    strides = a.stride()
    if size == 0:
        return wrap(_fi.empty((*a.shape[:-2], 0), dtype=a.dtype))
    first = a.storage_offset() + start[0] * strides[-2] + start[1] * strides[-1]
    view = a.as_strided((*a.shape[:-2], size), (*strides[:-2], strides[-2] + strides[-1]), first)
    return wrap(view)


def trace(x: Array, /, *, offset: int = 0, dtype: object = None) -> Array:
    """The sum of each ``offset`` diagonal, with ``sum``'s dtype rules."""
    return _xp_sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def outer(x1: Array, x2: Array, /) -> Array:
    a, b, dt = operands(x1, x2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError("outer needs two 1-d arrays")
    col, row = a.reshape((-1, 1)), b.reshape((1, -1))
    if dt == bool_dtype:
        return wrap(_fi.logical_and(col, row))
    return wrap(cast(_fi.mul(col, row), dt))


def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """The cross product of 3-vectors along ``axis`` (a negative axis; the stack broadcasts)."""
    a, b, dt = operands(x1, x2)
    if dt == bool_dtype:
        raise TypeError("cross needs numeric arrays")
    if not -builtins.min(a.ndim, b.ndim) <= axis < 0:
        raise ValueError(f"cross: axis {axis} must be in [-{builtins.min(a.ndim, b.ndim)}, -1]")
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError("cross: both arrays need size 3 along the axis")
    shape = _fi.broadcast_shapes(a.shape, b.shape)
    a, b = a.broadcast_to(shape), b.broadcast_to(shape)
    ax = axis % len(shape)

    def part(v: _fi.Array, i: int) -> _fi.Array:
        return _fi.index_select(v, ax, _fi.full((1,), i, dtype=DEFAULT_INT))

    def term(i: int, j: int) -> _fi.Array:
        return _fi.sub(_fi.mul(part(a, i), part(b, j)), _fi.mul(part(a, j), part(b, i)))

    return wrap(cast(_fi.cat([term(1, 2), term(2, 0), term(0, 1)], ax), dt))


def _norm_dtype(a: _fi.Array) -> DType:
    return real_dtype_of(a.dtype) if a.dtype in FLOATING else DEFAULT_FLOAT


def _vector_norm_over(a: _fi.Array, axes: list[int], keepdims: bool, ord: float) -> _fi.Array:
    """The ``ord``-norm of ``a`` over the (non-empty) ``axes`` (real, ``a``'s precision)."""
    mag = cast(_fi.abs(a), _norm_dtype(a))
    if ord == float("inf"):
        return _fi.amax(mag, axes, keepdims)
    if ord == -float("inf"):
        return _fi.amin(mag, axes, keepdims)
    if ord == 0:
        return cast(_fi.sum(_fi.ne(mag, 0), axes, keepdims), mag.dtype)
    if ord == 1:
        return _fi.sum(mag, axes, keepdims)
    if ord == 2:
        return _fi.sqrt(_fi.sum(_fi.mul(mag, mag), axes, keepdims))
    return _fi.pow(_fi.sum(_fi.pow(mag, ord), axes, keepdims), 1.0 / ord)


def vector_norm(
    x: Array,
    /,
    *,
    axis: int | tuple[int, ...] | None = None,
    keepdims: bool = False,
    ord: int | float = 2,
) -> Array:
    a = unwrap(x)
    if a.ndim == 0:
        a = a.reshape((1,))
        out = _vector_norm_over(a, [0], False, ord)
        return wrap(out)
    axes = normalize_axes(axis, a.ndim)
    if not axes:
        # nothing reduced: each element is its own vector, the norm its magnitude
        mag = cast(_fi.abs(a), _norm_dtype(a))
        return wrap(cast(_fi.ne(mag, 0), mag.dtype) if ord == 0 else mag)
    return wrap(_vector_norm_over(a, list(axes), keepdims, ord))


def matrix_norm(
    x: Array,
    /,
    *,
    keepdims: bool = False,
    ord: int | float | Literal["fro", "nuc"] | None = "fro",
) -> Array:
    """The ``ord`` norm of each matrix; 2, -2 and ``'nuc'`` from the singular values."""
    a = _matrices(x, "matrix_norm")
    axes = [a.ndim - 2, a.ndim - 1]
    if ord is None or ord == "fro":
        out = _vector_norm_over(a, axes, False, 2)
    elif ord == "nuc" or ord in (2, -2):
        s = unwrap(svdvals(wrap(a)))
        if ord == "nuc":
            out = _fi.sum(s, [s.ndim - 1])
        else:
            out = (_fi.amax if ord == 2 else _fi.amin)(s, [s.ndim - 1])
    elif ord in (1, -1, float("inf"), -float("inf")):
        # 1: the largest column sum of magnitudes; inf: the largest row sum
        inner, outer_ax = (-2, -1) if ord in (1, -1) else (-1, -2)
        sums = _fi.sum(cast(_fi.abs(a), _norm_dtype(a)), [a.ndim + inner], True)
        pick = _fi.amax if ord in (1, float("inf")) else _fi.amin
        out = pick(sums, [a.ndim + outer_ax], True).reshape(a.shape[:-2])
    else:
        raise ValueError(f"matrix_norm: unsupported ord {ord!r}")
    if keepdims:
        out = out.reshape((*a.shape[:-2], 1, 1))
    return wrap(cast(out, _norm_dtype(a)))


# -- through numpy.linalg -------------------------------------------------------------------------
def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    a = _matrices(x, "cholesky", square=True)
    return _back(np.linalg.cholesky(_lapack(a), upper=upper), a.dtype)


def det(x: Array, /) -> Array:
    a = _matrices(x, "det", square=True)
    return _back(np.linalg.det(_lapack(a)), a.dtype)


def eigh(x: Array, /) -> EighResult:
    a = _matrices(x, "eigh", square=True)
    w, v = np.linalg.eigh(_lapack(a))
    return EighResult(_back(w, real_dtype_of(a.dtype)), _back(v, a.dtype))


def eigvalsh(x: Array, /) -> Array:
    a = _matrices(x, "eigvalsh", square=True)
    return _back(np.linalg.eigvalsh(_lapack(a)), real_dtype_of(a.dtype))


def inv(x: Array, /) -> Array:
    a = _matrices(x, "inv", square=True)
    return _back(np.linalg.inv(_lapack(a)), a.dtype)


def matrix_power(x: Array, n: int, /) -> Array:
    a = _matrices(x, "matrix_power", square=True)
    return _back(np.linalg.matrix_power(_lapack(a), n), a.dtype)


def qr(x: Array, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', not {mode!r}")
    a = _matrices(x, "qr")
    q, r = np.linalg.qr(_lapack(a), mode=mode)
    return QRResult(_back(q, a.dtype), _back(r, a.dtype))


def slogdet(x: Array, /) -> SlogdetResult:
    a = _matrices(x, "slogdet", square=True)
    sign, logabsdet = np.linalg.slogdet(_lapack(a))
    return SlogdetResult(_back(sign, a.dtype), _back(logabsdet, real_dtype_of(a.dtype)))


def solve(x1: Array, x2: Array, /) -> Array:
    """``x1 @ out == x2``; ``x2`` is one vector only when it is 1-d (else a stack of M x K)."""
    a, b = _floating(x1), _floating(x2)
    dt = promote(a.dtype, b.dtype)
    a, b = cast(a, dt), cast(b, dt)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError("solve needs a stack of square matrices as its first argument")
    if b.ndim == 1:
        if b.shape[0] != a.shape[-1]:
            raise ValueError("solve: x2's length differs from the matrices' size")
        # numpy broadcasts a 1-d right-hand side only against a 2-d matrix: make it a column
        col = np.broadcast_to(_lapack(b)[:, None], (*a.shape[:-2], a.shape[-1], 1))
        return _back(np.linalg.solve(_lapack(a), col)[..., 0], dt)
    if b.shape[-2] != a.shape[-1]:
        raise ValueError("solve: x2's rows differ from the matrices' size")
    return _back(np.linalg.solve(_lapack(a), _lapack(b)), dt)


#: Matrices of at least this many elements take SciPy's SVD where SciPy is installed.
_SCIPY_SVD_MIN = 1 << 16


@functools.cache
def _scipy_linalg() -> Any:
    """``scipy.linalg`` where it is installed (scikit-learn needs it, so its users have it),
    else None."""
    try:
        import scipy.linalg
    except ImportError:
        return None
    return scipy.linalg


def _svd_lapack(nd: _NDArray, full_matrices: bool, compute_uv: bool) -> Any:
    """numpy.linalg.svd, or the same LAPACK driver (gesdd) through SciPy for one large matrix:
    SciPy's call runs 1.3x (float64) to 2.4x (float32) faster on a tall (100000, 50) matrix at
    1 thread (2-core Xeon, OpenBLAS); below ~65K elements numpy's is as fast or faster. Both
    give an SVD (the singular vectors' signs may differ between the two)."""
    scipy_linalg = _scipy_linalg() if nd.ndim == 2 and nd.size >= _SCIPY_SVD_MIN else None
    if scipy_linalg is None or nd.dtype not in _SCIPY_SVD_DTYPES:
        if not compute_uv:
            return np.linalg.svd(nd, compute_uv=False)
        return np.linalg.svd(nd, full_matrices=full_matrices)
    if not np.isfinite(nd).all():  # numpy's error, where LAPACK would not converge
        raise np.linalg.LinAlgError("SVD did not converge")
    return scipy_linalg.svd(
        nd,
        full_matrices=full_matrices,
        compute_uv=compute_uv,
        check_finite=False,
        lapack_driver="gesdd",
    )


_SCIPY_SVD_DTYPES = tuple(np.dtype(d) for d in ("float32", "float64", "complex64", "complex128"))


def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    a = _matrices(x, "svd")
    u, s, vh = _svd_lapack(_lapack(a), full_matrices, True)
    return SVDResult(_back(u, a.dtype), _back(s, real_dtype_of(a.dtype)), _back(vh, a.dtype))


def svdvals(x: Array, /) -> Array:
    a = _matrices(x, "svdvals")
    return _back(_svd_lapack(_lapack(a), False, False), real_dtype_of(a.dtype))


def _rtol(rtol: float | Array | None, a: _fi.Array) -> _NDArray:
    """The relative cutoff per matrix, shaped to broadcast against the singular values."""
    if rtol is None:
        eps = np.finfo(real_dtype_of(a.dtype)).eps
        return np.asarray(builtins.max(a.shape[-2:]) * eps)[..., None]
    if is_array(rtol):
        return np.asarray(np_view(unwrap(rtol)), dtype=np.float64)[..., None]
    return np.asarray(float(rtol))[..., None]


def _cutoff(s: _NDArray, rtol: float | Array | None, a: _fi.Array) -> _NDArray:
    """``rtol`` times each matrix's largest singular value (0 for empty matrices)."""
    largest = s.max(axis=-1, keepdims=True, initial=0.0)
    cutoff: _NDArray = _rtol(rtol, a) * largest
    return cutoff


def matrix_rank(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """The number of singular values above ``rtol`` times the largest (int64)."""
    a = _matrices(x, "matrix_rank")
    s = np.linalg.svd(_lapack(a), compute_uv=False)
    return _back(np.count_nonzero(s > _cutoff(s, rtol, a), axis=-1), DEFAULT_INT)


def pinv(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """The Moore-Penrose inverse from the SVD, singular values at or below the cutoff dropped."""
    a = _matrices(x, "pinv")
    nd = _lapack(a)
    u, s, vh = np.linalg.svd(nd, full_matrices=False)
    keep = s > _cutoff(s, rtol, a)
    s_inv = np.where(keep, 1 / np.where(keep, s, 1), 0)
    v = np.conj(np.swapaxes(vh, -1, -2))
    uh = np.conj(np.swapaxes(u, -1, -2))
    with np.errstate(all="ignore"):  # huge entries overflow as numpy's own pinv does
        return _back(np.matmul(v * s_inv[..., None, :], uh), a.dtype)


__all__ = [
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
    "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet",
    "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
]  # fmt: skip
