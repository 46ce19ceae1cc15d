//! Module-level functions: constructors, shape and type helpers.

use super::convert::{
    arg, dtype_from_py, dtype_to_numpy, is_list_or_tuple, optional_dtype, scalar_from_py,
    shape_from_py,
};
use super::numpy_bridge;
use super::{PyArray, PyMemoryFormat};
use crate::dtype::{self, Participant};
use crate::error::Error;
use crate::shape::{self, check_sizes, ShapesMismatch};
use crate::{Array, DType, Scalar};
use numpy::PyUntypedArray;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

fn dtype_or(obj: Option<&Bound<'_, PyAny>>, default: DType) -> PyResult<DType> {
    match obj {
        Some(d) if !d.is_none() => dtype_from_py(d),
        _ => Ok(default),
    }
}

fn sizes(shape: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    Ok(check_sizes(&shape_from_py(shape)?)?)
}

/// Zero-copy view of any numpy array.
#[pyfunction]
fn from_numpy(ndarray: &Bound<'_, PyAny>) -> PyResult<PyArray> {
    let arr = ndarray.cast::<PyUntypedArray>().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "from_numpy expects a numpy.ndarray, got {}",
            ndarray
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    Ok(numpy_bridge::from_numpy(arr)?.into())
}

#[pyfunction]
#[pyo3(signature = (shape, dtype=None, memory_format=PyMemoryFormat::contiguous_format))]
fn empty(
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    memory_format: PyMemoryFormat,
) -> PyResult<PyArray> {
    Ok(Array::empty(
        &sizes(shape)?,
        dtype_or(dtype, dtype::DEFAULT_FLOAT)?,
        memory_format.into(),
    )?
    .into())
}

#[pyfunction]
#[pyo3(signature = (shape, dtype=None, memory_format=PyMemoryFormat::contiguous_format))]
fn zeros(
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    memory_format: PyMemoryFormat,
) -> PyResult<PyArray> {
    // torch's zeros checks the sizes itself, with its own text
    if crate::py::convert::shape_from_py(shape)?
        .iter()
        .any(|&n| n < 0)
    {
        return Err(Error::value("zeros: Dimension size must be non-negative.").into());
    }
    empty(shape, dtype, memory_format)
}

#[pyfunction]
#[pyo3(signature = (shape, dtype=None, memory_format=PyMemoryFormat::contiguous_format))]
fn ones(
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    memory_format: PyMemoryFormat,
) -> PyResult<PyArray> {
    let dtype = dtype_or(dtype, dtype::DEFAULT_FLOAT)?;
    Ok(Array::full(&sizes(shape)?, Scalar::Int(1), dtype, memory_format.into())?.into())
}

/// `full(shape, value)`: the dtype defaults to the value's (bool, int64, float32, complex64).
#[pyfunction]
#[pyo3(signature = (shape, fill_value, dtype=None, memory_format=PyMemoryFormat::contiguous_format))]
fn full(
    shape: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    memory_format: PyMemoryFormat,
) -> PyResult<PyArray> {
    let value = scalar_from_py(fill_value)?;
    let dtype = dtype_or(dtype, value.default_dtype())?;
    Ok(Array::full(&sizes(shape)?, value, dtype, memory_format.into())?.into())
}

/// `arange(start, stop=None, step=1)`: int64 when every bound is an int, else float32.
#[pyfunction]
#[pyo3(signature = (start, stop=None, step=None, dtype=None))]
fn arange(
    start: &Bound<'_, PyAny>,
    stop: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyArray> {
    let first = scalar_from_py(start)?;
    let (start, stop) = match stop.filter(|s| !s.is_none()) {
        Some(s) => (first, scalar_from_py(s)?),
        None => (Scalar::Int(0), first),
    };
    let step = match step.filter(|s| !s.is_none()) {
        Some(s) => scalar_from_py(s)?,
        None => Scalar::Int(1),
    };
    let default = Array::arange_default_dtype(start, stop, step);
    Ok(Array::arange(start, stop, step, dtype_or(dtype, default)?)?.into())
}

#[pyfunction]
#[pyo3(signature = (shape, stride, dtype=None))]
fn empty_strided(
    shape: &Bound<'_, PyAny>,
    stride: Vec<isize>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyArray> {
    Ok(Array::empty_strided(
        &sizes(shape)?,
        &stride,
        dtype_or(dtype, dtype::DEFAULT_FLOAT)?,
    )?
    .into())
}

#[pyfunction]
#[pyo3(signature = (a, dtype=None, memory_format=PyMemoryFormat::preserve_format))]
fn empty_like(
    a: &PyArray,
    dtype: Option<&Bound<'_, PyAny>>,
    memory_format: PyMemoryFormat,
) -> PyResult<PyArray> {
    Ok(a.array()
        .empty_like(optional_dtype(dtype)?, memory_format.into())?
        .into())
}

#[pyfunction]
#[pyo3(signature = (a, dtype=None, memory_format=PyMemoryFormat::preserve_format))]
fn zeros_like(
    a: &PyArray,
    dtype: Option<&Bound<'_, PyAny>>,
    memory_format: PyMemoryFormat,
) -> PyResult<PyArray> {
    empty_like(a, dtype, memory_format)
}

#[pyfunction]
#[pyo3(signature = (a, dtype=None, memory_format=PyMemoryFormat::preserve_format))]
fn ones_like(
    a: &PyArray,
    dtype: Option<&Bound<'_, PyAny>>,
    memory_format: PyMemoryFormat,
) -> PyResult<PyArray> {
    Ok(a.array()
        .full_like(Scalar::Int(1), optional_dtype(dtype)?, memory_format.into())?
        .into())
}

#[pyfunction]
#[pyo3(signature = (a, fill_value, dtype=None, memory_format=PyMemoryFormat::preserve_format))]
fn full_like(
    a: &PyArray,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    memory_format: PyMemoryFormat,
) -> PyResult<PyArray> {
    Ok(a.array()
        .full_like(
            scalar_from_py(fill_value)?,
            optional_dtype(dtype)?,
            memory_format.into(),
        )?
        .into())
}

/// `broadcast_shapes(*shapes)` → the broadcast shape as a tuple, with the texts of torch's
/// Python `torch.broadcast_shapes` (which quote the offending argument as it was given).
#[pyfunction]
#[pyo3(signature = (*shapes))]
fn broadcast_shapes<'py>(
    py: Python<'py>,
    shapes: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyTuple>> {
    let mut parsed = Vec::new();
    let mut printed = Vec::new();
    for shape in shapes.iter().filter(|s| !s.is_none()) {
        let int = (!is_list_or_tuple(&shape)).then(|| shape.extract::<i64>().ok());
        if let Some(n) = int.flatten() {
            parsed.push(vec![n]);
            printed.push(format!("({n},)"));
        } else if let Ok(sizes) = shape.extract::<Vec<i64>>() {
            parsed.push(sizes);
            printed.push(shape.repr()?.to_string());
        } else {
            return Err(Error::type_(format!(
                "Input shapes should be of type ints, a tuple of ints, or a list of ints, got {}",
                shape.str()?
            ))
            .into());
        }
    }
    match shape::broadcast_shapes_like_torch(&parsed) {
        Ok(common) => PyTuple::new(py, common),
        Err(ShapesMismatch::Negative) => {
            Err(Error::value("Attempting to broadcast a dimension with negative length!").into())
        }
        Err(ShapesMismatch::Mismatch { arg, idx, size, common }) => Err(Error::value(format!(
            "Attempting to broadcast a dimension of length {size} at {idx}! Mismatching argument at index {arg} had {}; but expected shape should be broadcastable to {}",
            printed[arg],
            shape::fmt_shape(&common)
        ))
        .into()),
    }
}

/// `broadcast_to(a, shape)`: `a.expand(shape)`, so `-1` keeps a size.
#[pyfunction]
fn broadcast_to(a: &PyArray, shape: &Bound<'_, PyAny>) -> PyResult<PyArray> {
    Ok(a.array().expand(&shape_from_py(shape)?)?.into())
}

#[pyfunction]
#[pyo3(signature = (*arrays))]
fn broadcast_tensors(arrays: Vec<PyRef<'_, PyArray>>) -> PyResult<Vec<PyArray>> {
    let arrays: Vec<Array> = arrays.iter().map(|a| a.array()).collect();
    let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
    let shape = crate::shape::broadcast_shapes(&shapes)?;
    arrays
        .iter()
        .map(|a| Ok(a.broadcast_to(&shape)?.into()))
        .collect()
}

#[pyfunction]
#[pyo3(signature = (*operands))]
fn result_type<'py>(
    py: Python<'py>,
    operands: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyAny>> {
    let parts: Vec<Participant> = operands
        .iter()
        .map(|o| Ok(arg(&o)?.participant()))
        .collect::<PyResult<_>>()?;
    dtype_py(py, dtype::result_type(&parts)?)
}

/// A dtype for Python: numpy's, or the name for complex32 (which numpy lacks).
fn dtype_py(py: Python<'_>, d: DType) -> PyResult<Bound<'_, PyAny>> {
    match d {
        DType::ComplexHalf => Ok(pyo3::types::PyString::new(py, d.name()).into_any()),
        other => Ok(dtype_to_numpy(py, other)?.into_any()),
    }
}

#[pyfunction]
fn promote_types<'py>(
    py: Python<'py>,
    type1: &Bound<'py, PyAny>,
    type2: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    dtype_py(
        py,
        dtype::promote_types(dtype_from_py(type1)?, dtype_from_py(type2)?)?,
    )
}

#[pyfunction]
#[pyo3(name = "can_cast")]
fn can_cast_py(from_: &Bound<'_, PyAny>, to: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(dtype::can_cast(dtype_from_py(from_)?, dtype_from_py(to)?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(from_numpy, m)?)?;
    m.add_function(wrap_pyfunction!(empty, m)?)?;
    m.add_function(wrap_pyfunction!(zeros, m)?)?;
    m.add_function(wrap_pyfunction!(ones, m)?)?;
    m.add_function(wrap_pyfunction!(full, m)?)?;
    m.add_function(wrap_pyfunction!(arange, m)?)?;
    m.add_function(wrap_pyfunction!(empty_strided, m)?)?;
    m.add_function(wrap_pyfunction!(empty_like, m)?)?;
    m.add_function(wrap_pyfunction!(zeros_like, m)?)?;
    m.add_function(wrap_pyfunction!(ones_like, m)?)?;
    m.add_function(wrap_pyfunction!(full_like, m)?)?;
    m.add_function(wrap_pyfunction!(broadcast_shapes, m)?)?;
    m.add_function(wrap_pyfunction!(broadcast_to, m)?)?;
    m.add_function(wrap_pyfunction!(broadcast_tensors, m)?)?;
    m.add_function(wrap_pyfunction!(result_type, m)?)?;
    m.add_function(wrap_pyfunction!(promote_types, m)?)?;
    m.add_function(wrap_pyfunction!(can_cast_py, m)?)?;
    Ok(())
}
