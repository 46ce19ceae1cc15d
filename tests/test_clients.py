"""The libraries users call ferroiter from: scikit-learn under ``array_api_dispatch=True`` and
SciPy under ``SCIPY_ARRAY_API=1``, on ferroiter's namespace arrays, against the same calls on
numpy arrays (values and dtypes), for float32 and float64 data, contiguous and as strided
views (a transposed copy's transpose, every other row of a taller array).

The bench group ``clients`` (``python -m ferroiter bench --rows clients``) times these calls.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import ferroiter as fi
import ferroiter.array_api as xp

os.environ.setdefault("SCIPY_ARRAY_API", "1")

sklearn = pytest.importorskip("sklearn")
scipy_special = pytest.importorskip("scipy.special")
scipy_stats = pytest.importorskip("scipy.stats")

from sklearn.decomposition import PCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402
from sklearn.metrics.pairwise import euclidean_distances, rbf_kernel  # noqa: E402
from sklearn.preprocessing import MinMaxScaler, StandardScaler  # noqa: E402

DTYPES = ["float64", "float32"]
LAYOUTS = ["contiguous", "transposed", "every_other_row"]


def _tolerance(dtype: str) -> dict[str, float]:
    return {"rtol": 2e-3, "atol": 2e-4} if dtype == "float32" else {"rtol": 1e-9, "atol": 1e-11}


def _data(shape: tuple[int, int], dtype: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * [1 + i for i in range(shape[1])] + 3).astype(dtype)


def _namespace_array(data: np.ndarray, layout: str) -> xp.Array:
    """``data`` as a ferroiter namespace array laid out as ``layout`` says (same values)."""
    if layout == "contiguous":
        return xp.asarray(fi.from_numpy(data.copy()))
    if layout == "transposed":
        return xp.permute_dims(xp.asarray(fi.from_numpy(np.ascontiguousarray(data.T))), (1, 0))
    taller = np.repeat(data, 2, axis=0)
    return xp.asarray(fi.from_numpy(taller))[::2, :]


def _same(mine: object, theirs: object, dtype: str) -> None:
    got, want = np.asarray(mine), np.asarray(theirs)
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, **_tolerance(dtype))


def _dispatched(fn, *args):
    with sklearn.config_context(array_api_dispatch=True), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn(*args)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_scalers_match_numpy(dtype, layout):
    data = _data((60, 5), dtype)
    x = _namespace_array(data, layout)
    for make in (StandardScaler, MinMaxScaler):
        mine = _dispatched(lambda m=make: m().fit_transform(x))
        assert isinstance(mine, xp.Array)
        _same(mine, make().fit_transform(data), dtype)
    mine = _dispatched(lambda: StandardScaler().fit(x))
    theirs = StandardScaler().fit(data)
    _same(mine.mean_, theirs.mean_, dtype)
    _same(mine.var_, theirs.var_, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_pca_and_ridge_match_numpy(dtype, layout):
    data = _data((80, 6), dtype)
    x = _namespace_array(data, layout)
    pca = _dispatched(lambda: PCA(3, svd_solver="full").fit(x))
    theirs = PCA(3, svd_solver="full").fit(data)
    _same(pca.explained_variance_, theirs.explained_variance_, dtype)
    # the components' signs are fixed by svd_flip, so the projections agree too
    _same(_dispatched(lambda: pca.transform(x)), theirs.transform(data), dtype)
    target = data[:, 0] * 2 - data[:, 1]
    ridge = _dispatched(lambda: Ridge(alpha=0.5, solver="svd").fit(x, xp.asarray(target)))
    _same(ridge.coef_, Ridge(alpha=0.5, solver="svd").fit(data, target).coef_, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_discriminant_analysis_matches_numpy(dtype):
    data = _data((90, 4), dtype)
    labels = (np.arange(90) % 3).astype(np.int64)
    data[labels == 1] += 2.0
    x = _namespace_array(data, "transposed")
    y = xp.asarray(fi.from_numpy(labels))
    mine = _dispatched(lambda: LinearDiscriminantAnalysis().fit(x, y))
    theirs = LinearDiscriminantAnalysis().fit(data, labels)
    _same(mine.coef_, theirs.coef_, dtype)
    assert (
        np.asarray(_dispatched(lambda: mine.predict(x))).tolist() == theirs.predict(data).tolist()
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_pairwise_kernels_match_numpy(dtype, layout):
    a, b = _data((40, 7), dtype, 1), _data((30, 7), dtype, 2)
    x, y = _namespace_array(a, layout), _namespace_array(b, "contiguous")
    _same(_dispatched(euclidean_distances, x, y), euclidean_distances(a, b), dtype)
    _same(_dispatched(rbf_kernel, x, y), rbf_kernel(a, b), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_scipy_functions_match_numpy(dtype, layout):
    data = _data((50, 6), dtype)
    x = _namespace_array(data, layout)
    for fn in (
        lambda v: scipy_special.logsumexp(v, axis=1),
        lambda v: scipy_special.softmax(v, axis=1),
        scipy_stats.zscore,
    ):
        mine = fn(x)
        assert isinstance(mine, xp.Array)
        _same(mine, fn(data), dtype)
