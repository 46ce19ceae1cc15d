"""The rows users meet through other libraries (issue 61): scikit-learn estimators and
pairwise kernels under ``array_api_dispatch=True`` and SciPy functions under
``SCIPY_ARRAY_API=1``, each called on numpy arrays, torch tensors and ferroiter arrays (the
namespace's ``ferroiter.array_api`` arrays, as ``array_api_compat`` hands them over), plus the
fixed cost of one namespace call. Times in microseconds per call.

scikit-learn and SciPy are optional (``pip install 'ferroiter[bench]'``): without them the
group has only its namespace row and says what is missing. SciPy reads ``SCIPY_ARRAY_API``
when it is first imported, so the variable is set here before that import.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import ferroiter as fi
import ferroiter.array_api as xp

from .libs import torch
from .rows import Case, Row, Sizes, Thunk

os.environ.setdefault("SCIPY_ARRAY_API", "1")

#: The shapes of the estimator rows: a small table (the per-call cost) and a tall one.
SHAPES = ((200, 8), (100_000, 50))
#: The pairwise rows' two operands.
PAIRWISE = ((2000, 50), (2000, 50))


def missing() -> list[str]:
    """The optional libraries this group needs and does not find."""
    out = []
    for name in ("sklearn", "scipy"):
        try:
            __import__(name)
        except ImportError:
            out.append({"sklearn": "scikit-learn"}.get(name, name))
    return out


def _inputs(shape: tuple[int, int], dtype: str, seed: int = 0) -> dict[str, Any]:
    """The same data as a numpy array, a ferroiter namespace array and a torch tensor."""
    data = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    out: dict[str, Any] = {"numpy": data, "ferroiter": xp.asarray(fi.from_numpy(data.copy()))}
    if torch is not None:
        out["torch"] = torch.from_numpy(data.copy())
    return out


def _sklearn_call(call: Thunk, library: str) -> Thunk:
    """``call()`` under scikit-learn's array API dispatch for ferroiter and torch (numpy runs
    its own path, as its users run it)."""
    import sklearn

    dispatch = library != "numpy"

    def run() -> object:
        with sklearn.config_context(array_api_dispatch=dispatch), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call()

    return run


def _estimator_case(
    fit: Callable[[Any], object], shape: tuple[int, int], dtype: str
) -> Callable[[], list[Case]]:
    def setup() -> list[Case]:
        thunks: dict[str, Thunk] = {}
        for library, x in _inputs(shape, dtype).items():
            thunks[library] = _sklearn_call(functools.partial(fit, x), library)
        return [Case(0, thunks)]

    return setup


def _pairwise_case(kernel: Callable[[Any, Any], object], dtype: str) -> Callable[[], list[Case]]:
    def setup() -> list[Case]:
        xs, ys = _inputs(PAIRWISE[0], dtype, 0), _inputs(PAIRWISE[1], dtype, 1)
        thunks: dict[str, Thunk] = {}
        for library in xs:
            x, y = xs[library], ys[library]
            thunks[library] = _sklearn_call(functools.partial(kernel, x, y), library)
        return [Case(0, thunks)]

    return setup


def _scipy_case(
    fn: Callable[[Any], object], shape: tuple[int, int], dtype: str
) -> Callable[[], list[Case]]:
    def setup() -> list[Case]:
        thunks: dict[str, Thunk] = {}
        for library, x in _inputs(shape, dtype).items():
            thunks[library] = functools.partial(fn, x)
        return [Case(0, thunks)]

    return setup


def _namespace_add() -> list[Case]:
    """``A + B`` of two 1000-element float64 arrays of each library's array API namespace
    (numpy's own arrays are their namespace)."""
    data = np.ones(1000)
    a = xp.asarray(fi.from_numpy(data.copy()))
    b = xp.asarray(fi.from_numpy(data.copy()))
    thunks: dict[str, Thunk] = {"ferroiter": lambda: a + b, "numpy": lambda: data + data}
    if torch is not None:
        t = torch.from_numpy(data.copy())
        thunks["torch"] = lambda: t + t
    return [Case(0, thunks)]


def _estimators() -> list[tuple[str, Callable[[Any], object]]]:
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import Ridge
    from sklearn.preprocessing import MinMaxScaler, StandardScaler

    def lda(x: Any) -> object:
        return LinearDiscriminantAnalysis().fit(x, _labels_like(x))

    def ridge(x: Any) -> object:
        return Ridge(solver="svd").fit(x, x[:, 0])

    return [
        ("StandardScaler fit_transform", lambda x: StandardScaler().fit_transform(x)),
        ("MinMaxScaler fit_transform", lambda x: MinMaxScaler().fit_transform(x)),
        ('PCA(10, svd_solver="full") fit_transform', _pca),
        ('Ridge(solver="svd") fit', ridge),
        ("LinearDiscriminantAnalysis fit", lda),
    ]


def _labels_like(x: Any) -> Any:
    """Three classes in turn, as an integer array of ``x``'s library."""
    labels = (np.arange(x.shape[0]) % 3).astype(np.int64)
    if isinstance(x, np.ndarray):
        return labels
    if isinstance(x, xp.Array):
        return xp.asarray(fi.from_numpy(labels))
    return torch.from_numpy(labels)


def _pca(x: Any) -> object:
    from sklearn.decomposition import PCA

    return PCA(n_components=min(10, x.shape[1] - 1), svd_solver="full").fit_transform(x)


def client_rows(s: Sizes) -> list[Row]:
    """The client rows; ``--quick`` keeps the small shape only."""
    rows = [Row("clients", "array_api A + B, 1000 float64 (us)", _namespace_add)]
    if missing():
        return rows
    from scipy.special import logsumexp, softmax
    from scipy.stats import zscore
    from sklearn.metrics.pairwise import euclidean_distances, rbf_kernel

    shapes = SHAPES if s.large >= 1 << 26 else SHAPES[:1]
    for dtype in ("float64", "float32"):
        for shape in shapes:
            size = f"{shape[0]}x{shape[1]} {dtype}"
            for label, fit in _estimators():
                rows.append(Row("clients", f"{label} {size}", _estimator_case(fit, shape, dtype)))
        pair = f"{PAIRWISE[0][0]}x{PAIRWISE[0][1]} {dtype}"
        for name, kernel in (
            ("euclidean_distances", euclidean_distances),
            ("rbf_kernel", rbf_kernel),
        ):
            rows.append(Row("clients", f"{name} {pair}", _pairwise_case(kernel, dtype)))
        big, tall = f"{shapes[-1][0]}x{shapes[-1][1]} {dtype}", shapes[-1]
        scipy_calls: list[tuple[str, Callable[[Any], object]]] = [
            ("logsumexp(axis=1)", lambda x: logsumexp(x, axis=1)),
            ("softmax(axis=1)", lambda x: softmax(x, axis=1)),
            ("stats.zscore", zscore),
        ]
        for name, fn in scipy_calls:
            rows.append(Row("clients", f"scipy {name} {big}", _scipy_case(fn, tall, dtype)))
    return rows
