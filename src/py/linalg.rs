//! Linear algebra for Python: `matmul` (and `Array.__matmul__`/`__rmatmul__`), `tensordot`
//! and `vecdot` with torch's signatures. The work is `crate::linalg`'s, with the GIL released.

use super::convert::{array_arg, is_list_or_tuple};
use super::ops::{call_core, finish};
use super::PyArray;
use crate::error::Error;
use crate::linalg::tensordot::Dims;
use crate::linalg::{matmul as mm, tensordot as td, vecdot as vd};
use pyo3::prelude::*;

/// `matmul(input, other, *, out=None)`.
#[pyfunction]
#[pyo3(signature = (input, other, *, out=None))]
fn matmul(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    let (a, b) = (array_arg(input)?, array_arg(other)?);
    let o = out.as_ref().map(|o| o.get().array());
    let result = call_core(py, || mm::matmul(&a, &b, o.as_ref()))?;
    finish(py, result, out)
}

/// `dims` as torch's Python `tensordot` reads it: an int, or a pair of int lists.
fn dims_arg(dims: &Bound<'_, PyAny>) -> PyResult<Dims> {
    if is_list_or_tuple(dims) {
        let pair: Vec<Bound<'_, PyAny>> = dims.extract()?;
        if pair.len() != 2 {
            return Err(Error::value(format!(
                "too many values to unpack (expected 2, got {})",
                pair.len()
            ))
            .into());
        }
        let list = |x: &Bound<'_, PyAny>, position: usize, name: &str| -> PyResult<Vec<i64>> {
            x.extract::<Vec<i64>>().map_err(|_| {
                let got = x.get_type().name().map(|n| n.to_string()).unwrap_or_default();
                Error::type_(format!(
                    "tensordot(): argument '{name}' (position {position}) must be tuple of ints, not {got}"
                ))
                .into()
            })
        };
        return Ok(Dims::Lists(
            list(&pair[0], 3, "dims_self")?,
            list(&pair[1], 4, "dims_other")?,
        ));
    }
    if let Ok(n) = dims.extract::<i64>() {
        return Ok(Dims::Count(n));
    }
    let got = dims
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    Err(Error::type_(format!(
        "tensordot expects dims to be an int or a pair of int lists, got {got}"
    ))
    .into())
}

/// `tensordot(a, b, dims=2)`.
#[pyfunction]
#[pyo3(signature = (a, b, dims=None), text_signature = "(a, b, dims=2)")]
fn tensordot(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    dims: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyArray>> {
    let (x, y) = (array_arg(a)?, array_arg(b)?);
    let dims = match dims {
        Some(d) => dims_arg(d)?,
        None => Dims::Count(2),
    };
    let r = call_core(py, || td::tensordot(&x, &y, &dims))?;
    Py::new(py, PyArray::from(r))
}

/// `vecdot(x, y, *, dim=-1)` (torch's `linalg.vecdot`).
#[pyfunction]
#[pyo3(signature = (x, y, *, dim=-1), text_signature = "(x, y, *, dim=-1)")]
fn vecdot(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    y: &Bound<'_, PyAny>,
    dim: i64,
) -> PyResult<Py<PyArray>> {
    let (a, b) = (array_arg(x)?, array_arg(y)?);
    let r = call_core(py, || vd::vecdot(&a, &b, dim))?;
    Py::new(py, PyArray::from(r))
}

#[pymethods]
impl PyArray {
    fn __matmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let Ok(b) = array_arg(other) else {
            return Ok(py.NotImplemented());
        };
        let a = slf.get().array();
        let r = call_core(py, || mm::matmul(&a, &b, None))?;
        finish(py, r, None)
    }
    fn __rmatmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let Ok(a) = array_arg(other) else {
            return Ok(py.NotImplemented());
        };
        let b = slf.get().array();
        let r = call_core(py, || mm::matmul(&a, &b, None))?;
        finish(py, r, None)
    }
    #[pyo3(signature = (other))]
    fn matmul(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        matmul(slf.py(), slf.as_any(), other, None)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(matmul, m)?)?;
    m.add_function(wrap_pyfunction!(tensordot, m)?)?;
    m.add_function(wrap_pyfunction!(vecdot, m)?)?;
    Ok(())
}
