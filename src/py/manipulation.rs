//! Structural functions for Python (`cat`, `stack`, `flip`, `roll`, `tile`, `repeat`,
//! `repeat_interleave`, `unbind`, `movedim`, `index_select`, `take`, `take_along_dim`, `diff`,
//! `eye`, `linspace`, `meshgrid`, `tril`, `triu`) and the Array methods torch has for them.
//! Arguments are converted here; the work is `manip`'s, with the GIL released.

use super::convert::{
    array_arg, dtype_from_py, int_args, is_list_or_tuple, optional_dtype, scalar_from_py,
};
use super::ops::call_core;
use super::PyArray;
use crate::error::Error;
use crate::manip::{
    cat, diff, eye, flip, gather, linspace, meshgrid, movedim, repeat_interleave, roll, tile,
    triangle,
};
use crate::{dtype, Array, Scalar};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// A sequence of arrays (a list or tuple of Arrays or numpy arrays).
fn arrays_arg(name: &str, seq: &Bound<'_, PyAny>) -> PyResult<Vec<Array>> {
    if !(seq.is_instance_of::<PyList>() || seq.is_instance_of::<PyTuple>()) {
        return Err(Error::type_(format!(
            "{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not {}",
            type_name(seq)
        ))
        .into());
    }
    seq.try_iter()?
        .map(|item| array_arg(&item?))
        .collect::<PyResult<_>>()
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default()
}

/// An int or a sequence of ints.
fn ints_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if !is_list_or_tuple(obj) {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(vec![i]);
        }
    }
    obj.extract::<Vec<i64>>()
}

/// A number, or a one-element array read as its number (torch takes 0-d tensors as ends).
fn scalar_or_item(obj: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    if let Ok(a) = obj.cast::<PyArray>() {
        return Ok(a.get().array().item()?);
    }
    scalar_from_py(obj)
}

fn new(py: Python<'_>, a: Array) -> PyResult<Py<PyAny>> {
    Ok(Py::new(py, PyArray::from(a))?.into_any())
}

fn arrays_out(arrays: Vec<Array>) -> Vec<PyArray> {
    arrays.into_iter().map(PyArray::from).collect()
}

#[pyfunction]
#[pyo3(name = "cat", signature = (tensors, dim=0))]
fn cat_py(py: Python<'_>, tensors: &Bound<'_, PyAny>, dim: i64) -> PyResult<Py<PyAny>> {
    let arrays = arrays_arg("cat", tensors)?;
    new(py, call_core(py, || cat::cat(&arrays, dim))?)
}

#[pyfunction]
#[pyo3(signature = (tensors, dim=0))]
fn stack(py: Python<'_>, tensors: &Bound<'_, PyAny>, dim: i64) -> PyResult<Py<PyAny>> {
    let arrays = arrays_arg("stack", tensors)?;
    new(py, call_core(py, || cat::stack(&arrays, dim))?)
}

fn flip_impl(py: Python<'_>, a: &Array, dims: &[i64]) -> PyResult<Py<PyAny>> {
    new(py, call_core(py, || flip::flip(a, dims))?)
}

#[pyfunction]
#[pyo3(name = "flip")]
fn flip_py(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dims: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    flip_impl(py, &array_arg(input)?, &ints_arg(dims)?)
}

fn roll_impl(
    py: Python<'_>,
    a: &Array,
    shifts: &Bound<'_, PyAny>,
    dims: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let shifts = ints_arg(shifts)?;
    let dims = match dims.filter(|d| !d.is_none()) {
        Some(d) => ints_arg(d)?,
        None => Vec::new(),
    };
    new(py, call_core(py, || roll::roll(a, &shifts, &dims))?)
}

#[pyfunction]
#[pyo3(name = "roll", signature = (input, shifts, dims=None))]
fn roll_py(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    shifts: &Bound<'_, PyAny>,
    dims: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    roll_impl(py, &array_arg(input)?, shifts, dims)
}

#[pyfunction]
#[pyo3(name = "tile")]
fn tile_py(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dims: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let (a, dims) = (array_arg(input)?, ints_arg(dims)?);
    new(py, call_core(py, || tile::tile(&a, &dims))?)
}

fn repeat_interleave_impl(
    py: Python<'_>,
    a: &Array,
    repeats: &Bound<'_, PyAny>,
    dim: Option<i64>,
) -> PyResult<Py<PyAny>> {
    let repeats = if let Ok(r) = repeats.cast::<PyArray>() {
        repeat_interleave::Repeats::Counts(r.get().array())
    } else {
        repeat_interleave::Repeats::Count(repeats.extract::<i64>()?)
    };
    new(
        py,
        call_core(py, || {
            repeat_interleave::repeat_interleave(a, &repeats, dim)
        })?,
    )
}

#[pyfunction]
#[pyo3(name = "repeat_interleave", signature = (input, repeats, dim=None))]
fn repeat_interleave_py(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    repeats: &Bound<'_, PyAny>,
    dim: Option<i64>,
) -> PyResult<Py<PyAny>> {
    repeat_interleave_impl(py, &array_arg(input)?, repeats, dim)
}

#[pyfunction]
#[pyo3(signature = (input, dim=0))]
fn unbind(input: &Bound<'_, PyAny>, dim: i64) -> PyResult<Vec<PyArray>> {
    Ok(arrays_out(movedim::unbind(&array_arg(input)?, dim)?))
}

#[pyfunction]
#[pyo3(name = "movedim")]
fn movedim_py(
    input: &Bound<'_, PyAny>,
    source: &Bound<'_, PyAny>,
    destination: &Bound<'_, PyAny>,
) -> PyResult<PyArray> {
    let a = array_arg(input)?;
    Ok(movedim::movedim(&a, &ints_arg(source)?, &ints_arg(destination)?)?.into())
}

#[pyfunction]
#[pyo3(name = "index_select")]
fn index_select_py(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dim: i64,
    index: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let (a, index) = (array_arg(input)?, array_arg(index)?);
    new(py, call_core(py, || gather::index_select(&a, dim, &index))?)
}

#[pyfunction]
#[pyo3(name = "take")]
fn take_py(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    index: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let (a, index) = (array_arg(input)?, array_arg(index)?);
    new(py, call_core(py, || gather::take(&a, &index))?)
}

#[pyfunction]
#[pyo3(name = "take_along_dim", signature = (input, indices, dim=None))]
fn take_along_dim_py(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    dim: Option<i64>,
) -> PyResult<Py<PyAny>> {
    let (a, indices) = (array_arg(input)?, array_arg(indices)?);
    new(
        py,
        call_core(py, || gather::take_along_dim(&a, &indices, dim))?,
    )
}

fn optional_array(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Array>> {
    obj.filter(|o| !o.is_none()).map(array_arg).transpose()
}

fn diff_impl(
    py: Python<'_>,
    a: &Array,
    n: i64,
    dim: i64,
    prepend: Option<&Bound<'_, PyAny>>,
    append: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let (prepend, append) = (optional_array(prepend)?, optional_array(append)?);
    new(
        py,
        call_core(py, || {
            diff::diff(a, n, dim, prepend.as_ref(), append.as_ref())
        })?,
    )
}

#[pyfunction]
#[pyo3(
    name = "diff",
    signature = (input, n=1, dim=-1, prepend=None, append=None),
    text_signature = "(input, n=1, dim=-1, prepend=None, append=None)"
)]
fn diff_py(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    n: i64,
    dim: i64,
    prepend: Option<&Bound<'_, PyAny>>,
    append: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    diff_impl(py, &array_arg(input)?, n, dim, prepend, append)
}

#[pyfunction]
#[pyo3(name = "eye", signature = (n, m=None, *, dtype=None))]
fn eye_py(
    py: Python<'_>,
    n: i64,
    m: Option<i64>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let dtype = optional_dtype(dtype)?.unwrap_or(dtype::DEFAULT_FLOAT);
    new(py, call_core(py, || eye::eye(n, m, dtype))?)
}

#[pyfunction]
#[pyo3(name = "linspace", signature = (start, end, steps, *, dtype=None))]
fn linspace_py(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    end: &Bound<'_, PyAny>,
    steps: i64,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let (start, end) = (scalar_or_item(start)?, scalar_or_item(end)?);
    let dtype = match dtype.filter(|d| !d.is_none()) {
        Some(d) => Some(dtype_from_py(d)?),
        None => None,
    };
    new(
        py,
        call_core(py, || linspace::linspace(start, end, steps, dtype))?,
    )
}

#[pyfunction]
#[pyo3(name = "meshgrid", signature = (*tensors, indexing="ij"))]
fn meshgrid_py(tensors: &Bound<'_, PyTuple>, indexing: &str) -> PyResult<Vec<PyArray>> {
    let arrays = if tensors.len() == 1
        && (tensors.get_item(0)?.is_instance_of::<PyList>()
            || tensors.get_item(0)?.is_instance_of::<PyTuple>())
    {
        arrays_arg("meshgrid", &tensors.get_item(0)?)?
    } else {
        arrays_arg("meshgrid", tensors.as_any())?
    };
    Ok(arrays_out(meshgrid::meshgrid(&arrays, indexing)?))
}

fn triangle_impl(
    py: Python<'_>,
    a: &Array,
    diagonal: i64,
    keep: triangle::Triangle,
) -> PyResult<Py<PyAny>> {
    new(py, call_core(py, || triangle::triangle(a, diagonal, keep))?)
}

#[pyfunction]
#[pyo3(signature = (input, diagonal=0))]
fn tril(py: Python<'_>, input: &Bound<'_, PyAny>, diagonal: i64) -> PyResult<Py<PyAny>> {
    triangle_impl(py, &array_arg(input)?, diagonal, triangle::Triangle::Lower)
}

#[pyfunction]
#[pyo3(signature = (input, diagonal=0))]
fn triu(py: Python<'_>, input: &Bound<'_, PyAny>, diagonal: i64) -> PyResult<Py<PyAny>> {
    triangle_impl(py, &array_arg(input)?, diagonal, triangle::Triangle::Upper)
}

/// The same operations as Array methods (torch's Tensor methods).
#[pymethods]
impl PyArray {
    #[pyo3(signature = (*dims))]
    fn flip(&self, py: Python<'_>, dims: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        flip_impl(py, &self.array(), &int_args(dims)?)
    }
    #[pyo3(signature = (shifts, dims=None))]
    fn roll(
        &self,
        py: Python<'_>,
        shifts: &Bound<'_, PyAny>,
        dims: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        roll_impl(py, &self.array(), shifts, dims)
    }
    #[pyo3(signature = (*sizes))]
    fn repeat(&self, py: Python<'_>, sizes: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        if sizes.is_empty() {
            return Err(Error::type_(
                "repeat() missing 1 required positional arguments: \"repeats\"",
            )
            .into());
        }
        let (a, sizes) = (self.array(), int_args(sizes)?);
        new(py, call_core(py, || tile::repeat(&a, &sizes))?)
    }
    #[pyo3(signature = (*dims))]
    fn tile(&self, py: Python<'_>, dims: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        let (a, dims) = (self.array(), int_args(dims)?);
        new(py, call_core(py, || tile::tile(&a, &dims))?)
    }
    #[pyo3(signature = (repeats, dim=None))]
    fn repeat_interleave(
        &self,
        py: Python<'_>,
        repeats: &Bound<'_, PyAny>,
        dim: Option<i64>,
    ) -> PyResult<Py<PyAny>> {
        repeat_interleave_impl(py, &self.array(), repeats, dim)
    }
    #[pyo3(signature = (dim=0))]
    fn unbind(&self, dim: i64) -> PyResult<Vec<PyArray>> {
        Ok(arrays_out(movedim::unbind(&self.array(), dim)?))
    }
    fn movedim(
        &self,
        source: &Bound<'_, PyAny>,
        destination: &Bound<'_, PyAny>,
    ) -> PyResult<PyArray> {
        Ok(movedim::movedim(&self.array(), &ints_arg(source)?, &ints_arg(destination)?)?.into())
    }
    fn index_select(
        &self,
        py: Python<'_>,
        dim: i64,
        index: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let (a, index) = (self.array(), array_arg(index)?);
        new(py, call_core(py, || gather::index_select(&a, dim, &index))?)
    }
    fn take(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let (a, index) = (self.array(), array_arg(index)?);
        new(py, call_core(py, || gather::take(&a, &index))?)
    }
    #[pyo3(signature = (indices, dim=None))]
    fn take_along_dim(
        &self,
        py: Python<'_>,
        indices: &Bound<'_, PyAny>,
        dim: Option<i64>,
    ) -> PyResult<Py<PyAny>> {
        let (a, indices) = (self.array(), array_arg(indices)?);
        new(
            py,
            call_core(py, || gather::take_along_dim(&a, &indices, dim))?,
        )
    }
    #[pyo3(
        signature = (n=1, dim=-1, prepend=None, append=None),
        text_signature = "($self, n=1, dim=-1, prepend=None, append=None)"
    )]
    fn diff(
        &self,
        py: Python<'_>,
        n: i64,
        dim: i64,
        prepend: Option<&Bound<'_, PyAny>>,
        append: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        diff_impl(py, &self.array(), n, dim, prepend, append)
    }
    #[pyo3(signature = (diagonal=0))]
    fn tril(&self, py: Python<'_>, diagonal: i64) -> PyResult<Py<PyAny>> {
        triangle_impl(py, &self.array(), diagonal, triangle::Triangle::Lower)
    }
    #[pyo3(signature = (diagonal=0))]
    fn triu(&self, py: Python<'_>, diagonal: i64) -> PyResult<Py<PyAny>> {
        triangle_impl(py, &self.array(), diagonal, triangle::Triangle::Upper)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cat_py, m)?)?;
    m.add_function(wrap_pyfunction!(stack, m)?)?;
    m.add_function(wrap_pyfunction!(flip_py, m)?)?;
    m.add_function(wrap_pyfunction!(roll_py, m)?)?;
    m.add_function(wrap_pyfunction!(tile_py, m)?)?;
    m.add_function(wrap_pyfunction!(repeat_interleave_py, m)?)?;
    m.add_function(wrap_pyfunction!(unbind, m)?)?;
    m.add_function(wrap_pyfunction!(movedim_py, m)?)?;
    m.add_function(wrap_pyfunction!(index_select_py, m)?)?;
    m.add_function(wrap_pyfunction!(take_py, m)?)?;
    m.add_function(wrap_pyfunction!(take_along_dim_py, m)?)?;
    m.add_function(wrap_pyfunction!(diff_py, m)?)?;
    m.add_function(wrap_pyfunction!(eye_py, m)?)?;
    m.add_function(wrap_pyfunction!(linspace_py, m)?)?;
    m.add_function(wrap_pyfunction!(meshgrid_py, m)?)?;
    m.add_function(wrap_pyfunction!(tril, m)?)?;
    m.add_function(wrap_pyfunction!(triu, m)?)?;
    Ok(())
}
