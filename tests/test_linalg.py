"""Linear algebra, differential against torch: `matmul` over every dims combination (dot, mv,
vector-matrix, mm, the folded batch, broadcast batches), random layouts and every dtype, with
each path's error texts; `tensordot` (int and list dims, size-1 contraction) and `vecdot`
(broadcasting, complex conjugation). Integer results are exact; float results within a
tolerance of torch's (the GEMMs sum in different orders), and identical at any thread count."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import ferroiter as fi

from harness import (
    TORCH_DTYPES,
    Operand,
    assert_result,
    assert_same,
    assert_same_error,
    assert_same_outcome,
    layouts,
    parallelism,
    share,
    torch_to_numpy,
)

#: relative tolerance of float results per dtype (against torch's differently ordered sums)
RTOL = {
    torch.float16: 2e-2,
    torch.bfloat16: 5e-2,
    torch.float32: 2e-5,
    torch.float64: 1e-12,
    torch.complex64: 2e-5,
    torch.complex128: 1e-12,
}


def wide(nd: np.ndarray) -> np.ndarray:
    if nd.dtype == np.dtype(ml_dtypes.bfloat16) or nd.dtype == np.float16:
        return nd.astype(np.float64)
    return nd


def assert_close(mine: fi.Array, theirs: torch.Tensor, scale: float = 1.0) -> None:
    """Shape, strides and dtype as torch's; integers exact; floats within RTOL of the
    magnitude `scale` of the summed products (sums of mixed signs cancel)."""
    if theirs.dtype not in RTOL:
        assert_result(mine, theirs)
        return
    assert_same(mine, theirs, values=False, offset=False)
    m, t = wide(mine.numpy()), wide(torch_to_numpy(theirs))
    np.testing.assert_allclose(m, t, rtol=RTOL[theirs.dtype], atol=RTOL[theirs.dtype] * scale)


def operand(draw, shape, dtype):
    layout = draw(layouts(shape))
    return Operand(shape, dtype, layout, draw(st.integers(0, 2**16)), special=False).build()


def magnitude(*ts: torch.Tensor) -> float:
    """A bound on |products| summed: the product of the operands' largest magnitudes times
    the contracted length."""
    out = 1.0
    for t in ts:
        if t.numel():
            out *= float(t.to(torch.complex128).abs().max()) + 1.0
    return out * 8


@st.composite
def matmul_cases(draw):
    """Operands for every (ndim_a, ndim_b) in 1..4 x 1..4: batch dims that broadcast (or
    sometimes not), sizes 0-4, the inner size sometimes wrong, one dtype (sometimes two)."""
    da, db = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    size = st.integers(0, 4)
    m, k, n = draw(size), draw(size), draw(size)
    k2 = k if draw(st.integers(0, 9)) else draw(size)
    batch = [draw(st.integers(0, 3)) for _ in range(max(da, db) - 2)]

    def batch_of(nd):
        own = batch[len(batch) - (nd - 2) :] if nd > 2 else []
        return [1 if draw(st.integers(0, 3)) == 0 else s for s in own]

    sa = (*batch_of(da), m, k) if da > 1 else (k,)
    sb = (*batch_of(db), k2, n) if db > 1 else (k2,)
    if da > 2 and draw(st.integers(0, 19)) == 0:
        sa = (sa[0] + 2, *sa[1:])  # batch dims that do not broadcast (unless b's is 1)
    dt = draw(st.sampled_from(TORCH_DTYPES))
    dt2 = dt if draw(st.integers(0, 9)) else draw(st.sampled_from(TORCH_DTYPES))
    a, ta = operand(draw, sa, dt)
    b, tb = operand(draw, sb, dt2)
    return a, ta, b, tb


@given(matmul_cases())
def test_matmul_matches_torch(case):
    a, ta, b, tb = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome = assert_same_outcome(lambda: fi.matmul(a, b), lambda: torch.matmul(ta, tb))
    if outcome is not None:
        assert_close(*outcome, scale=magnitude(ta, tb))
        assert_close(a @ b, outcome[1], scale=magnitude(ta, tb))


def test_matmul_errors_and_operators():
    o = torch.ones
    d, b8 = torch.float64, torch.bool
    cases = [
        (o(()), o(3)),
        (o(3), o(())),
        (o(3), o(4)),
        (o(3), o(3, dtype=d)),
        (o(2, 3), o(4)),
        (o(2, 3), o(3, dtype=d)),
        (o(3), o(4, 5)),
        (o(2, 3), o(4, 5)),
        (o(2, 3), o(3, 5, dtype=d)),
        (o(2, 2, 3), o(2, 4, 5)),
        (o(2, 2, 3), o(2, 3, 5, dtype=d)),
        (o(2, 2, 3), o(3, 3, 5)),
        (o(2, 2, 3), o(4, 5)),
        (o(2, 2, 3), o(4)),
        (o(2, 3), o(2, 4, 5)),
        (o(3), o(2, 4, 5)),
        (o(2, 2, dtype=b8), o(2, 2, dtype=b8)),
        (o(2, dtype=b8), o(2, dtype=b8)),
        (o(0, dtype=b8), o(0, dtype=b8)),
        (o(2, 2, dtype=b8), o(2, dtype=b8)),
        (o(2, 2, 2, dtype=b8), o(2, 2, 2, dtype=b8)),
        (o(2, 2, 2, dtype=b8), o(2, 2, dtype=b8)),
        (o(2, 2, 3, dtype=torch.int64), o(2, 3, 2, dtype=b8)),
        (o(2, 2, 3, dtype=b8), o(2, 3, 2, dtype=torch.int64)),
    ]
    for x, y in cases:
        assert_same_error(lambda x=x, y=y: fi.matmul(share(x), share(y)), lambda x=x, y=y: x @ y)
    for x, y in [(o(0, 3, dtype=b8), o(3, 2, dtype=b8)), (o(2, 0, dtype=b8), o(0, 2, dtype=b8))]:
        assert_result(fi.matmul(share(x), share(y)), x @ y)
    x, y = torch.arange(6.0).reshape(2, 3), torch.arange(12.0).reshape(3, 4)
    out = fi.empty((5,))
    with pytest.warns(UserWarning):
        r = fi.matmul(share(x), share(y), out=out)
    assert r is out
    assert_result(out, x @ y)
    assert_same_error(
        lambda: fi.matmul(share(x), share(y), out=fi.empty((2, 4), dtype="float64")),
        lambda: torch.matmul(x, y, out=torch.empty(2, 4, dtype=torch.float64)),
    )
    assert_result(x.numpy() @ share(y), x @ y)
    assert_result(share(x) @ y.numpy(), x @ y)
    assert_result(share(x).matmul(share(y)), x @ y)
    with pytest.raises(TypeError):
        share(x) @ 2


#: (a shape, b shape): a folded batch of many row blocks, 65 rows (a last part of one row on
#: two threads), few rows and many columns (cut by columns on several threads), a matrix times
#: a vector, a vector times a matrix, a batch
MATMUL_SHAPES = [
    ((3, 130, 70), (70, 90)),
    ((65, 300), (300, 30)),
    ((5, 300), (300, 200)),
    ((700, 33), (33,)),
    ((257,), (257, 150)),
    ((4, 9, 40), (4, 40, 70)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_matmul_does_not_depend_on_threads(threads_and_grain, dtype):
    rng = np.random.default_rng(3)
    for sa, sb in MATMUL_SHAPES:

        def values(shape):
            v = rng.standard_normal(shape)
            if np.dtype(dtype).kind == "c":
                v = v + 1j * rng.standard_normal(shape)
            return v.astype(dtype)

        x, y = fi.from_numpy(values(sa)), fi.from_numpy(values(sb))
        expected = fi.matmul(x.contiguous(), y).numpy()
        with parallelism(*threads_and_grain):
            mine = fi.matmul(x, y).numpy()
        assert mine.tobytes() == expected.tobytes(), (sa, sb)
        z = torch.from_numpy(x.numpy()) @ torch.from_numpy(y.numpy())
        np.testing.assert_allclose(mine, z.numpy(), rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------------------------------
# tensordot and vecdot


@st.composite
def tensordot_cases(draw):
    na, nb = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    sa = [draw(st.integers(0, 3)) for _ in range(na)]
    sb = [draw(st.integers(0, 3)) for _ in range(nb)]
    count = draw(st.integers(0, min(na, nb)))
    if draw(st.booleans()):
        # the last `count` of a against the first `count` of b, mostly matching
        for i in range(count):
            if draw(st.integers(0, 5)):
                sb[i] = sa[na - count + i]
        dims = count if draw(st.integers(0, 9)) else draw(st.integers(-1, 4))
    else:
        da = draw(st.permutations(range(na)))[:count]
        db = draw(st.permutations(range(nb)))[:count]
        for x, y in zip(da, db, strict=True):
            if draw(st.integers(0, 5)):
                sb[y] = sa[x] if draw(st.integers(0, 5)) else 1
        dims = (list(da), list(db))
    dt = draw(st.sampled_from([torch.float32, torch.float64, torch.int32, torch.complex64]))
    a, ta = operand(draw, tuple(sa), dt)
    b, tb = operand(draw, tuple(sb), dt)
    return a, ta, b, tb, dims


@given(tensordot_cases())
def test_tensordot_matches_torch(case):
    a, ta, b, tb, dims = case
    outcome = assert_same_outcome(
        lambda: fi.tensordot(a, b, dims), lambda: torch.tensordot(ta, tb, dims)
    )
    if outcome is not None:
        assert_close(*outcome, scale=magnitude(ta, tb) * 8)


def test_tensordot_errors():
    o = torch.ones
    for x, y, dims in [
        (o(2, 3), o(4, 5), 1),
        (o(2, 3), o(3, 5), -1),
        (o(2, 3), o(3, 5), ([1, 0], [0])),
        (o(2, 3), o(3, 5), 3),
        (o(2, 3), o(3, 5, dtype=torch.float64), 1),
        (o(2, 3), o(3, 5), ([5], [0])),
        (o(2, 3, dtype=torch.bool), o(3, 5, dtype=torch.bool), 1),
    ]:
        assert_same_error(
            lambda x=x, y=y, dims=dims: fi.tensordot(share(x), share(y), dims),
            lambda x=x, y=y, dims=dims: torch.tensordot(x, y, dims),
        )
    assert_same_error(
        lambda: fi.tensordot(share(o(2, 3)), share(o(3, 5)), (1, 0)),
        lambda: torch.tensordot(o(2, 3), o(3, 5), (1, 0)),
        kind=TypeError,
    )
    assert_result(fi.tensordot(share(o(2, 3)), share(o(2, 3))), torch.tensordot(o(2, 3), o(2, 3)))


VECDOT_DTYPES = [
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.complex64,
    torch.complex128,
]


@st.composite
def vecdot_cases(draw):
    nd = draw(st.integers(0, 3))
    shape = [draw(st.integers(0, 4)) for _ in range(nd)]
    sa = tuple(1 if draw(st.integers(0, 4)) == 0 else s for s in shape)
    sb = tuple(1 if draw(st.integers(0, 4)) == 0 else s for s in shape)
    sb = sb[draw(st.integers(0, nd)) :]
    dt = draw(st.sampled_from(VECDOT_DTYPES + [torch.int64]))
    dt2 = dt if draw(st.integers(0, 9)) else draw(st.sampled_from(VECDOT_DTYPES))
    a, ta = operand(draw, sa, dt)
    b, tb = operand(draw, sb, dt2)
    dim = draw(st.integers(-nd - 1, max(nd, 1)))
    return a, ta, b, tb, dim


@given(vecdot_cases())
def test_vecdot_matches_torch(case):
    a, ta, b, tb, dim = case
    outcome = assert_same_outcome(
        lambda: fi.vecdot(a, b, dim=dim), lambda: torch.linalg.vecdot(ta, tb, dim=dim)
    )
    if outcome is not None:
        assert_close(*outcome, scale=magnitude(ta, tb))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_large_svd_through_scipy_like_numpy(dtype):
    """A matrix large enough for the namespace's SciPy SVD (when SciPy is installed): the
    singular values numpy gives, an exact-enough reconstruction, orthonormal vectors, the
    standard's dtypes, and numpy's error for a non-finite entry."""
    import ferroiter.array_api as xp

    rng = np.random.default_rng(3)
    data = rng.standard_normal((400, 200))
    if dtype.startswith("complex"):
        data = data + 1j * rng.standard_normal((400, 200))
    data = data.astype(dtype)
    x = xp.asarray(fi.from_numpy(data.copy()))
    tol = 2e-4 if dtype in ("float32", "complex64") else 1e-10
    expected_s = np.linalg.svd(data, compute_uv=False)
    for full in (False, True):
        u, s, vh = xp.linalg.svd(x, full_matrices=full)
        u, s, vh = (np.asarray(v._a.numpy()) for v in (u, s, vh))
        assert (u.dtype, vh.dtype, s.dtype) == (data.dtype, data.dtype, expected_s.dtype)
        assert u.shape == ((400, 400) if full else (400, 200)) and vh.shape == (200, 200)
        np.testing.assert_allclose(s, expected_s, rtol=tol, atol=tol * s[0])
        rebuilt = (u[:, :200] * s) @ vh
        np.testing.assert_allclose(rebuilt, data, rtol=0, atol=tol * 10 * s[0])
        np.testing.assert_allclose(u.conj().T @ u, np.eye(u.shape[1]), atol=tol * 10)
    svals = np.asarray(xp.linalg.svdvals(x)._a.numpy())
    np.testing.assert_allclose(svals, expected_s, rtol=tol, atol=tol * expected_s[0])
    data[5, 7] = np.nan
    with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge"):
        xp.linalg.svd(xp.asarray(fi.from_numpy(data)), full_matrices=False)
