//! Sorting, searching and sets for Python: `sort` (a `SortResult` pair, like torch's
//! `torch.return_types.sort`), `argsort`, `searchsorted`, `nonzero` and `unique`, with torch's
//! signatures, plus the `Array.sort`/`argsort`/`nonzero`/`unique` methods. The work is
//! `crate::sort`'s, with the GIL released.

use super::convert::{array_arg, scalar_from_py};
use super::ops::call_core;
use super::PyArray;
use crate::sort::{nonzero as nz, search, sort as sorting, unique as uq};
use crate::{Array, DType, MemoryFormat};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// `sort`'s result: `values` and `indices`, unpackable as a pair (as torch's named tuple).
#[pyclass(name = "SortResult", module = "ferroiter", frozen)]
pub struct PySortResult {
    #[pyo3(get)]
    values: Py<PyArray>,
    #[pyo3(get)]
    indices: Py<PyArray>,
}

#[pymethods]
impl PySortResult {
    fn __len__(&self) -> usize {
        2
    }
    fn __getitem__(&self, py: Python<'_>, i: isize) -> PyResult<Py<PyArray>> {
        match i {
            0 | -2 => Ok(self.values.clone_ref(py)),
            1 | -1 => Ok(self.indices.clone_ref(py)),
            _ => Err(pyo3::exceptions::PyIndexError::new_err(
                "tuple index out of range",
            )),
        }
    }
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pair = PyTuple::new(py, [self.values.clone_ref(py), self.indices.clone_ref(py)])?;
        pair.try_iter().map(|it| it.into_any())
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "ferroiter.SortResult(\nvalues={},\nindices={})",
            self.values.bind(py).repr()?,
            self.indices.bind(py).repr()?
        ))
    }
}

fn new_array(py: Python<'_>, a: Array) -> PyResult<Py<PyArray>> {
    Py::new(py, PyArray::from(a))
}

fn sort_py(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dim: i64,
    descending: bool,
    stable: bool,
) -> PyResult<PySortResult> {
    let a = array_arg(input)?;
    let s = call_core(py, || sorting::sort(&a, dim, descending, stable))?;
    Ok(PySortResult {
        values: new_array(py, s.values)?,
        indices: new_array(py, s.indices)?,
    })
}

/// `sort(input, dim=-1, descending=False, *, stable=False)`.
#[pyfunction]
#[pyo3(
    signature = (input, dim=-1, descending=false, *, stable=false),
    text_signature = "(input, dim=-1, descending=False, *, stable=False)"
)]
fn sort(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dim: i64,
    descending: bool,
    stable: bool,
) -> PyResult<PySortResult> {
    sort_py(py, input, dim, descending, stable)
}

/// `argsort(input, dim=-1, descending=False, *, stable=False)`.
#[pyfunction]
#[pyo3(
    signature = (input, dim=-1, descending=false, *, stable=false),
    text_signature = "(input, dim=-1, descending=False, *, stable=False)"
)]
fn argsort(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dim: i64,
    descending: bool,
    stable: bool,
) -> PyResult<Py<PyArray>> {
    let a = array_arg(input)?;
    let r = call_core(py, || sorting::argsort(&a, dim, descending, stable))?;
    new_array(py, r)
}

/// A `values` argument: an array, or a Python number (a 0-d array of torch's wrapped dtype).
fn values_arg(obj: &Bound<'_, PyAny>) -> PyResult<Array> {
    if let Ok(a) = array_arg(obj) {
        return Ok(a);
    }
    let s = scalar_from_py(obj)?;
    let dtype: DType = search::scalar_values_dtype(s);
    Ok(Array::full(&[], s, dtype, MemoryFormat::Contiguous)?)
}

/// `searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
/// sorter=None)`.
#[pyfunction]
#[pyo3(signature = (sorted_sequence, values, *, out_int32=false, right=false, side=None, sorter=None))]
fn searchsorted(
    py: Python<'_>,
    sorted_sequence: &Bound<'_, PyAny>,
    values: &Bound<'_, PyAny>,
    out_int32: bool,
    right: bool,
    side: Option<String>,
    sorter: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyArray>> {
    let b = array_arg(sorted_sequence)?;
    let v = values_arg(values)?;
    let sorter = match sorter.filter(|s| !s.is_none()) {
        Some(s) => Some(array_arg(s)?),
        None => None,
    };
    let r = call_core(py, || {
        search::searchsorted(&b, &v, out_int32, right, side.as_deref(), sorter.as_ref())
    })?;
    new_array(py, r)
}

fn nonzero_py(py: Python<'_>, a: Array, as_tuple: bool) -> PyResult<Py<PyAny>> {
    if as_tuple {
        let parts = call_core(py, || nz::nonzero_tuple(&a))?;
        let items = parts
            .into_iter()
            .map(|p| new_array(py, p))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(PyTuple::new(py, items)?.into_any().unbind());
    }
    let r = call_core(py, || nz::nonzero(&a))?;
    Ok(new_array(py, r)?.into_any())
}

/// `nonzero(input, *, as_tuple=False)`.
#[pyfunction]
#[pyo3(signature = (input, *, as_tuple=false))]
fn nonzero(py: Python<'_>, input: &Bound<'_, PyAny>, as_tuple: bool) -> PyResult<Py<PyAny>> {
    nonzero_py(py, array_arg(input)?, as_tuple)
}

fn unique_py(
    py: Python<'_>,
    a: Array,
    sorted: bool,
    return_inverse: bool,
    return_counts: bool,
    dim: Option<i64>,
) -> PyResult<Py<PyAny>> {
    let u = call_core(py, || match dim {
        None => uq::unique(&a, sorted, return_inverse, return_counts),
        Some(d) => uq::unique_dim(&a, d, return_inverse, return_counts),
    })?;
    let values = new_array(py, u.values)?;
    if !return_inverse && !return_counts {
        return Ok(values.into_any());
    }
    let mut items = vec![values];
    for extra in [u.inverse, u.counts].into_iter().flatten() {
        items.push(new_array(py, extra)?);
    }
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

/// `unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None)`.
#[pyfunction]
#[pyo3(signature = (input, sorted=true, return_inverse=false, return_counts=false, dim=None))]
fn unique(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    sorted: bool,
    return_inverse: bool,
    return_counts: bool,
    dim: Option<i64>,
) -> PyResult<Py<PyAny>> {
    unique_py(
        py,
        array_arg(input)?,
        sorted,
        return_inverse,
        return_counts,
        dim,
    )
}

#[pymethods]
impl PyArray {
    #[pyo3(
        signature = (dim=-1, descending=false, *, stable=false),
        text_signature = "($self, dim=-1, descending=False, *, stable=False)"
    )]
    fn sort(
        slf: &Bound<'_, Self>,
        dim: i64,
        descending: bool,
        stable: bool,
    ) -> PyResult<PySortResult> {
        sort_py(slf.py(), slf.as_any(), dim, descending, stable)
    }
    #[pyo3(
        signature = (dim=-1, descending=false, *, stable=false),
        text_signature = "($self, dim=-1, descending=False, *, stable=False)"
    )]
    fn argsort(
        slf: &Bound<'_, Self>,
        dim: i64,
        descending: bool,
        stable: bool,
    ) -> PyResult<Py<PyArray>> {
        argsort(slf.py(), slf.as_any(), dim, descending, stable)
    }
    #[pyo3(signature = (*, as_tuple=false))]
    fn nonzero(slf: &Bound<'_, Self>, as_tuple: bool) -> PyResult<Py<PyAny>> {
        nonzero_py(slf.py(), slf.get().array(), as_tuple)
    }
    #[pyo3(signature = (sorted=true, return_inverse=false, return_counts=false, dim=None))]
    fn unique(
        slf: &Bound<'_, Self>,
        sorted: bool,
        return_inverse: bool,
        return_counts: bool,
        dim: Option<i64>,
    ) -> PyResult<Py<PyAny>> {
        unique_py(
            slf.py(),
            slf.get().array(),
            sorted,
            return_inverse,
            return_counts,
            dim,
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySortResult>()?;
    m.add_function(wrap_pyfunction!(sort, m)?)?;
    m.add_function(wrap_pyfunction!(argsort, m)?)?;
    m.add_function(wrap_pyfunction!(searchsorted, m)?)?;
    m.add_function(wrap_pyfunction!(nonzero, m)?)?;
    m.add_function(wrap_pyfunction!(unique, m)?)?;
    Ok(())
}
