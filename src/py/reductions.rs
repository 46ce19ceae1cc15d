//! Reductions and scans for Python: the functions (`sum`, `prod`, `mean`, `amax`, `amin`,
//! `argmax`, `argmin`, `all`, `any`, `count_nonzero`, `var`, `std`, `cumsum`, `cumprod`) and
//! the same as `Array` methods, with torch's signatures. Arguments are converted here; the
//! work is `kernels::reduce`'s, with the GIL released.

use super::convert::{array_arg, is_list_or_tuple, optional_dtype};
use super::ops::{call_core, finish};
use super::PyArray;
use crate::error::Error;
use crate::kernels::reduce::{reduction, scan_op, var_std, ReduceOp};
use pyo3::prelude::*;

/// A `dim` argument: None (all dims), an int, or a sequence of ints (when `many`).
fn dims_arg(op: &str, dim: Option<&Bound<'_, PyAny>>, many: bool) -> PyResult<Option<Vec<i64>>> {
    let Some(d) = dim.filter(|d| !d.is_none()) else {
        return Ok(None);
    };
    if is_list_or_tuple(d) {
        if many {
            if let Ok(v) = d.extract::<Vec<i64>>() {
                return Ok(Some(v));
            }
        }
    } else if let Ok(i) = d.extract::<i64>() {
        return Ok(Some(vec![i]));
    }
    let got = d
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    let want = if many { "tuple of ints" } else { "int" };
    Err(Error::type_(format!("{op}(): argument 'dim' must be {want}, not {got}")).into())
}

fn out_of(out: &Option<Bound<'_, PyArray>>) -> Option<crate::Array> {
    out.as_ref().map(|o| o.get().array())
}

/// One reduction from Python arguments.
#[allow(clippy::too_many_arguments)]
fn reduce_py(
    py: Python<'_>,
    op: ReduceOp,
    input: &Bound<'_, PyAny>,
    dim: Option<&Bound<'_, PyAny>>,
    many: bool,
    keepdim: bool,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    let a = array_arg(input)?;
    let dims = dims_arg(op.name(), dim, many)?;
    let dtype = optional_dtype(dtype)?;
    let o = out_of(&out);
    let result = call_core(py, || {
        reduction(op, &a, dims.as_deref(), keepdim, dtype, o.as_ref())
    })?;
    finish(py, result, out)
}

#[allow(clippy::too_many_arguments)]
fn var_std_py(
    py: Python<'_>,
    std: bool,
    input: &Bound<'_, PyAny>,
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: Option<bool>,
    keepdim: bool,
    correction: Option<f64>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    let a = array_arg(input)?;
    let name = if std { "std" } else { "var" };
    let dims = dims_arg(name, dim, true)?;
    let correction = match (correction, unbiased) {
        (Some(_), Some(_)) => {
            return Err(Error::value(format!(
                "{name}(): can't specify both unbiased and correction"
            ))
            .into())
        }
        (Some(c), None) => Some(c),
        (None, Some(u)) => Some(if u { 1.0 } else { 0.0 }),
        (None, None) => None,
    };
    let o = out_of(&out);
    let result = call_core(py, || {
        var_std(std, &a, dims.as_deref(), correction, keepdim, o.as_ref())
    })?;
    finish(py, result, out)
}

fn scan_py(
    py: Python<'_>,
    prod: bool,
    input: &Bound<'_, PyAny>,
    dim: i64,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    let a = array_arg(input)?;
    let dtype = optional_dtype(dtype)?;
    let o = out_of(&out);
    let result = call_core(py, || scan_op(prod, &a, dim, dtype, o.as_ref()))?;
    finish(py, result, out)
}

/// Generates the function and the `Array` method of each reduction taking
/// `(dim, keepdim, *, dtype)`.
macro_rules! dtype_reductions {
    ($(($name:ident, $method:ident, $op:ident, $many:expr)),* $(,)?) => {
        $(
            #[pyfunction]
            #[pyo3(signature = (input, dim=None, keepdim=false, *, dtype=None, out=None))]
            fn $name(
                py: Python<'_>,
                input: &Bound<'_, PyAny>,
                dim: Option<&Bound<'_, PyAny>>,
                keepdim: bool,
                dtype: Option<&Bound<'_, PyAny>>,
                out: Option<Bound<'_, PyArray>>,
            ) -> PyResult<Py<PyAny>> {
                reduce_py(py, ReduceOp::$op, input, dim, $many, keepdim, dtype, out)
            }
        )*
        #[pymethods]
        impl PyArray {
            $(
                #[pyo3(signature = (dim=None, keepdim=false, *, dtype=None))]
                fn $method(
                    slf: &Bound<'_, Self>,
                    dim: Option<&Bound<'_, PyAny>>,
                    keepdim: bool,
                    dtype: Option<&Bound<'_, PyAny>>,
                ) -> PyResult<Py<PyAny>> {
                    reduce_py(slf.py(), ReduceOp::$op, slf.as_any(), dim, $many, keepdim, dtype, None)
                }
            )*
        }
    };
}

/// Generates the function and the `Array` method of each reduction taking `(dim, keepdim)`.
macro_rules! plain_reductions {
    ($(($name:ident, $method:ident, $op:ident, $many:expr)),* $(,)?) => {
        $(
            #[pyfunction]
            #[pyo3(signature = (input, dim=None, keepdim=false, *, out=None))]
            fn $name(
                py: Python<'_>,
                input: &Bound<'_, PyAny>,
                dim: Option<&Bound<'_, PyAny>>,
                keepdim: bool,
                out: Option<Bound<'_, PyArray>>,
            ) -> PyResult<Py<PyAny>> {
                reduce_py(py, ReduceOp::$op, input, dim, $many, keepdim, None, out)
            }
        )*
        #[pymethods]
        impl PyArray {
            $(
                #[pyo3(signature = (dim=None, keepdim=false))]
                fn $method(
                    slf: &Bound<'_, Self>,
                    dim: Option<&Bound<'_, PyAny>>,
                    keepdim: bool,
                ) -> PyResult<Py<PyAny>> {
                    reduce_py(slf.py(), ReduceOp::$op, slf.as_any(), dim, $many, keepdim, None, None)
                }
            )*
        }
    };
}

dtype_reductions!(
    (sum, sum, Sum, true),
    (prod, prod, Prod, false),
    (mean, mean, Mean, true),
);

plain_reductions!(
    (amax, amax, Amax, true),
    (amin, amin, Amin, true),
    (argmax, argmax, Argmax, false),
    (argmin, argmin, Argmin, false),
    (all, all, All, true),
    (any, any, Any, true),
);

/// `count_nonzero(input, dim=None)`.
#[pyfunction]
#[pyo3(signature = (input, dim=None))]
fn count_nonzero(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dim: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    reduce_py(
        py,
        ReduceOp::CountNonzero,
        input,
        dim,
        true,
        false,
        None,
        None,
    )
}

/// `var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None)`.
#[pyfunction]
#[pyo3(signature = (input, dim=None, unbiased=None, keepdim=false, *, correction=None, out=None))]
#[pyo3(name = "var")]
#[allow(clippy::too_many_arguments)]
fn var_py(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: Option<bool>,
    keepdim: bool,
    correction: Option<f64>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    var_std_py(py, false, input, dim, unbiased, keepdim, correction, out)
}

/// `std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None)`.
#[pyfunction]
#[pyo3(signature = (input, dim=None, unbiased=None, keepdim=false, *, correction=None, out=None))]
#[pyo3(name = "std")]
#[allow(clippy::too_many_arguments)]
fn std_py(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dim: Option<&Bound<'_, PyAny>>,
    unbiased: Option<bool>,
    keepdim: bool,
    correction: Option<f64>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    var_std_py(py, true, input, dim, unbiased, keepdim, correction, out)
}

/// `cumsum(input, dim, *, dtype=None, out=None)`.
#[pyfunction]
#[pyo3(signature = (input, dim, *, dtype=None, out=None))]
fn cumsum(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dim: i64,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    scan_py(py, false, input, dim, dtype, out)
}

/// `cumprod(input, dim, *, dtype=None, out=None)`.
#[pyfunction]
#[pyo3(signature = (input, dim, *, dtype=None, out=None))]
fn cumprod(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    dim: i64,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    scan_py(py, true, input, dim, dtype, out)
}

#[pymethods]
impl PyArray {
    #[pyo3(signature = (dim=None))]
    fn count_nonzero(slf: &Bound<'_, Self>, dim: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        count_nonzero(slf.py(), slf.as_any(), dim)
    }
    #[pyo3(signature = (dim=None, unbiased=None, keepdim=false, *, correction=None))]
    fn var(
        slf: &Bound<'_, Self>,
        dim: Option<&Bound<'_, PyAny>>,
        unbiased: Option<bool>,
        keepdim: bool,
        correction: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        var_std_py(
            slf.py(),
            false,
            slf.as_any(),
            dim,
            unbiased,
            keepdim,
            correction,
            None,
        )
    }
    #[pyo3(signature = (dim=None, unbiased=None, keepdim=false, *, correction=None))]
    fn std(
        slf: &Bound<'_, Self>,
        dim: Option<&Bound<'_, PyAny>>,
        unbiased: Option<bool>,
        keepdim: bool,
        correction: Option<f64>,
    ) -> PyResult<Py<PyAny>> {
        var_std_py(
            slf.py(),
            true,
            slf.as_any(),
            dim,
            unbiased,
            keepdim,
            correction,
            None,
        )
    }
    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumsum(
        slf: &Bound<'_, Self>,
        dim: i64,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        scan_py(slf.py(), false, slf.as_any(), dim, dtype, None)
    }
    #[pyo3(signature = (dim, *, dtype=None))]
    fn cumprod(
        slf: &Bound<'_, Self>,
        dim: i64,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        scan_py(slf.py(), true, slf.as_any(), dim, dtype, None)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sum, m)?)?;
    m.add_function(wrap_pyfunction!(prod, m)?)?;
    m.add_function(wrap_pyfunction!(mean, m)?)?;
    m.add_function(wrap_pyfunction!(amax, m)?)?;
    m.add_function(wrap_pyfunction!(amin, m)?)?;
    m.add_function(wrap_pyfunction!(argmax, m)?)?;
    m.add_function(wrap_pyfunction!(argmin, m)?)?;
    m.add_function(wrap_pyfunction!(all, m)?)?;
    m.add_function(wrap_pyfunction!(any, m)?)?;
    m.add_function(wrap_pyfunction!(count_nonzero, m)?)?;
    m.add_function(wrap_pyfunction!(var_py, m)?)?;
    m.add_function(wrap_pyfunction!(std_py, m)?)?;
    m.add_function(wrap_pyfunction!(cumsum, m)?)?;
    m.add_function(wrap_pyfunction!(cumprod, m)?)?;
    Ok(())
}
