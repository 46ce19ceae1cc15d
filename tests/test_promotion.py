"""Type promotion against torch: promote_types and can_cast over every pair of the twelve
storable dtypes, result_type over mixes of dim arrays, 0-d arrays and Python scalars."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import ferroiter as fi

from harness import DTYPE_PAIRS, NAME_OF, NUMPY_OF, dtypes, numpy_dtype_of

PAIRS = DTYPE_PAIRS


@pytest.mark.parametrize(("a", "b"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_promote_types_all_pairs(a, b):
    expected = numpy_dtype_of(torch.promote_types(a, b))
    assert fi.promote_types(NAME_OF[a], NAME_OF[b]) == expected
    assert fi.promote_types(NUMPY_OF[a], NUMPY_OF[b]) == expected
    assert fi.promote_types(a, b) == expected  # torch dtypes are accepted too


@pytest.mark.parametrize(("a", "b"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_can_cast_all_pairs(a, b):
    assert fi.can_cast(NAME_OF[a], NAME_OF[b]) is torch.can_cast(a, b)


# ---- result_type -------------------------------------------------------------------------------

python_scalars = st.one_of(
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, width=32),
    st.complex_numbers(max_magnitude=1e3),
)


@st.composite
def operands(draw):
    """One operand as (ferroiter's, torch's): a dim array, a 0-d array or a Python scalar."""
    kind = draw(st.sampled_from(["dim", "zero-dim", "scalar"]))
    if kind == "scalar":
        value = draw(python_scalars)
        return value, value
    dtype = draw(dtypes)
    shape = (draw(st.integers(0, 3)),) if kind == "dim" else ()
    return fi.zeros(shape, dtype=NAME_OF[dtype]), torch.zeros(shape, dtype=dtype)


@given(operands(), operands())
def test_result_type_pairs(x, y):
    expected = numpy_dtype_of(torch.result_type(x[1], y[1]))
    assert fi.result_type(x[0], y[0]) == expected


SCALAR_TYPE_NAMES = {
    "Bool": torch.bool,
    "Byte": torch.uint8,
    "Char": torch.int8,
    "Short": torch.int16,
    "Int": torch.int32,
    "Long": torch.int64,
    "Half": torch.float16,
    "BFloat16": torch.bfloat16,
    "Float": torch.float32,
    "Double": torch.float64,
    "ComplexHalf": torch.complex32,
    "ComplexFloat": torch.complex64,
    "ComplexDouble": torch.complex128,
}


def torch_common_dtype_of_three(tensors) -> torch.dtype:
    """The dtype torch's TensorIterator promotes three inputs to: that of addcmul's result, or,
    where addcmul has no kernel for it, the dtype its refusal names."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "ComplexHalf support is experimental"
            return torch.addcmul(*tensors).dtype
    except NotImplementedError as e:  # '"addcmul_cpu_out" not implemented for 'Bool''
        return SCALAR_TYPE_NAMES[str(e).rsplit("'", 2)[-2]]


array_operands = operands().filter(lambda o: isinstance(o[1], torch.Tensor))


@given(st.lists(array_operands, min_size=3, max_size=3))
def test_result_type_three_arrays(ops):
    # torch.result_type takes two operands; addcmul promotes its three inputs as result_type does
    # (dim arrays are all of shape (2,) here, so that they broadcast)
    tensors = [torch.zeros(2, dtype=t.dtype) if t.dim() else t for _, t in ops]
    expected = torch_common_dtype_of_three(tensors)
    assert fi.result_type(*[a for a, _ in ops]) == numpy_dtype_of(expected)


RESULT_TYPE_CASES = [
    # (operands as (kind, dtype or value)), from torch-semantics.md section 8
    (("dim", torch.int32), ("zero", torch.int64)),
    (("dim", torch.int32), ("zero", torch.float64)),
    (("dim", torch.int32), ("py", 5.5)),
    (("dim", torch.int32), ("py", 5)),
    (("dim", torch.uint8), ("zero", torch.int8)),
    (("dim", torch.uint8), ("dim", torch.int8)),
    (("dim", torch.bool), ("py", 5)),
    (("dim", torch.bool), ("py", True)),
    (("dim", torch.bool), ("zero", torch.int32)),
    (("dim", torch.float16), ("zero", torch.float64)),
    (("dim", torch.float16), ("dim", torch.bfloat16)),
    (("dim", torch.float16), ("py", 1j)),
    (("dim", torch.float16), ("zero", torch.complex128)),
    (("dim", torch.int32), ("py", 1j)),
    (("zero", torch.int64), ("py", 2.5)),
    (("zero", torch.float64), ("py", 2.5)),
    (("zero", torch.int32), ("zero", torch.int64)),
    (("py", True), ("py", 1j)),
    (("py", 1), ("py", 2.5)),
    (("dim", torch.bfloat16), ("py", 1j)),
]


def _operand(kind, value):
    if kind == "py":
        return value, value
    shape = (2,) if kind == "dim" else ()
    return fi.zeros(shape, dtype=NAME_OF[value]), torch.zeros(shape, dtype=value)


@pytest.mark.parametrize("case", RESULT_TYPE_CASES, ids=str)
def test_result_type_listed(case):
    (a, t), (b, u) = (_operand(*op) for op in case)
    assert fi.result_type(a, b) == numpy_dtype_of(torch.result_type(t, u))


def test_result_type_of_numpy_arrays_and_complex32():
    assert fi.result_type(np.zeros(3, np.int32), 2.5) == np.dtype(np.float32)
    assert fi.result_type(np.zeros((), np.float64), fi.zeros((2,), dtype="int32")) == np.float64
    half = fi.zeros((2,), dtype="float16")
    assert fi.result_type(half, 1j) == numpy_dtype_of(torch.complex32) == "complex32"
