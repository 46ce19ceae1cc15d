//! The Array API namespace's one-step calls (`ferroiter.array_api`).
//!
//! The namespace wraps each ferroiter array in its own `Array` type and promotes by the
//! standard's lattice, not torch's. Done in Python, one `A + B` went through seven helpers.
//! Here one call unwraps the operands, runs the op and wraps the result, for the cases where
//! the standard's promotion is the identity, so no cast happens and torch's kernel gives the
//! standard's answer: two arrays of one dtype, or an array with a Python number of its kind
//! that the dtype holds. Every other case calls the namespace's own Python function for the
//! op (`slow`), which promotes, casts and fixes special values as before.

use super::ops::{arg_shape, call_core_sized, elementwise_size};
use super::PyArray;
use crate::kernels::{self, Arg, BinaryOp, UnaryOp};
use crate::{Array, DType, Scalar};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyFloat, PyInt, PyType};

/// The core array inside an instance of the namespace's `Array` class (`cls`), if `obj` is one.
fn namespace_array(obj: &Bound<'_, PyAny>, cls: &Bound<'_, PyType>) -> PyResult<Option<Array>> {
    if !obj.get_type().is(cls) {
        return Ok(None);
    }
    let inner = obj.getattr(intern!(obj.py(), "_a"))?;
    Ok(inner.cast::<PyArray>().ok().map(|a| a.get().array()))
}

/// A Python bool, int (within int64) or float, by exact type (subclasses and numpy scalars go
/// the namespace's way).
fn python_number(obj: &Bound<'_, PyAny>) -> Option<Scalar> {
    if obj.is_exact_instance_of::<PyFloat>() {
        return obj.extract().ok().map(Scalar::Float);
    }
    if obj.is_exact_instance_of::<PyBool>() {
        return obj.extract().ok().map(Scalar::Bool);
    }
    if obj.is_exact_instance_of::<PyInt>() {
        return obj.extract().ok().map(Scalar::Int);
    }
    None
}

/// Whether the standard's result of `dtype` with the number `s` is `dtype` and torch's kernel
/// computes it with `s` as it is: a bool with bool arrays, an int that the integer dtype holds
/// (torch refuses many ops on uint16-64 with numbers), a number with float32/float64.
fn number_fits(dtype: DType, s: Scalar) -> bool {
    let int_range = |v: i64| -> bool {
        match dtype {
            DType::I8 => i8::try_from(v).is_ok(),
            DType::I16 => i16::try_from(v).is_ok(),
            DType::I32 => i32::try_from(v).is_ok(),
            DType::I64 => true,
            DType::U8 => u8::try_from(v).is_ok(),
            _ => false,
        }
    };
    match s {
        Scalar::Bool(_) => dtype == DType::Bool,
        Scalar::Int(v) => int_range(v) || matches!(dtype, DType::F32 | DType::F64),
        Scalar::Float(_) => matches!(dtype, DType::F32 | DType::F64),
        _ => false,
    }
}

/// Whether torch's op takes a Python number as it stands, with the standard's special values:
/// `pow` only for the exponents 2 and 3, which it computes as products (its other fast
/// exponents, 0.5 as `sqrt`, give -0 and NaN where the standard asks +0 and +inf).
fn takes_number(op: BinaryOp, s: Scalar, number_is_second: bool) -> bool {
    use BinaryOp::*;
    match op {
        Add | Sub | Mul | Div | Eq | Ne | Lt | Le | Gt | Ge | BitwiseAnd | BitwiseOr
        | BitwiseXor => true,
        Pow => {
            number_is_second
                && matches!(
                    s,
                    Scalar::Int(2 | 3) | Scalar::Float(2.0) | Scalar::Float(3.0)
                )
        }
        _ => false,
    }
}

/// The operands as the core takes them when the standard's promotion leaves them as they are.
fn one_step_operands(
    op: BinaryOp,
    x1: &Bound<'_, PyAny>,
    x2: &Bound<'_, PyAny>,
    cls: &Bound<'_, PyType>,
) -> PyResult<Option<(Arg, Arg)>> {
    let (a, b) = (namespace_array(x1, cls)?, namespace_array(x2, cls)?);
    Ok(match (a, b) {
        (Some(a), Some(b)) if a.dtype() == b.dtype() => Some((Arg::Array(a), Arg::Array(b))),
        (Some(a), None) => python_number(x2)
            .filter(|&s| number_fits(a.dtype(), s) && takes_number(op, s, true))
            .map(|s| (Arg::Array(a), Arg::Scalar(s))),
        (None, Some(b)) => python_number(x1)
            .filter(|&s| number_fits(b.dtype(), s) && takes_number(op, s, false))
            .map(|s| (Arg::Scalar(s), Arg::Array(b))),
        _ => None,
    })
}

/// A core array as an instance of the namespace's `Array` class (`object.__new__(cls)`, then
/// its one slot).
fn wrap(py: Python<'_>, result: Array, cls: &Bound<'_, PyType>) -> PyResult<Py<PyAny>> {
    static OBJECT_NEW: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let new = OBJECT_NEW.get_or_try_init(py, || -> PyResult<_> {
        Ok(py
            .get_type::<pyo3::types::PyAny>()
            .getattr("__new__")?
            .unbind())
    })?;
    let obj = new.bind(py).call1((cls,))?;
    obj.setattr(intern!(py, "_a"), Py::new(py, PyArray::from(result))?)?;
    Ok(obj.unbind())
}

/// The index of a binary function of the op table by its Python name (`add`, `sub`, ...), for
/// the namespace to resolve once.
#[pyfunction]
fn _standard_binary_op(name: &str) -> PyResult<usize> {
    BinaryOp::ALL
        .iter()
        .position(|op| op.name() == name)
        .ok_or_else(|| crate::Error::value(format!("no binary op {name}")).into())
}

/// The index of a unary function of the op table by its Python name.
#[pyfunction]
fn _standard_unary_op(name: &str) -> PyResult<usize> {
    UnaryOp::ALL
        .iter()
        .position(|op| op.name() == name)
        .ok_or_else(|| crate::Error::value(format!("no unary op {name}")).into())
}

/// `x1 ⊙ x2` for the namespace: in one step where the standard's promotion is the identity,
/// else `slow(x1, x2)`.
#[pyfunction]
fn _standard_binary(
    py: Python<'_>,
    op: usize,
    x1: &Bound<'_, PyAny>,
    x2: &Bound<'_, PyAny>,
    slow: &Bound<'_, PyAny>,
    cls: &Bound<'_, PyType>,
) -> PyResult<Py<PyAny>> {
    let op = *BinaryOp::ALL
        .get(op)
        .ok_or_else(|| crate::Error::value("no such binary op"))?;
    match one_step_operands(op, x1, x2, cls)? {
        Some((a, b)) => {
            let size = elementwise_size([arg_shape(&a), arg_shape(&b)]);
            let result = call_core_sized(py, size, || kernels::binary(op, &a, &b, None, None))?;
            wrap(py, result, cls)
        }
        None => Ok(slow.call1((x1, x2))?.unbind()),
    }
}

/// `f(x)` for the namespace: in one step for an array of its `Array` class (of a real dtype
/// when `real_only`: the standard's complex special values are fixed in Python), else
/// `slow(x)`.
#[pyfunction]
fn _standard_unary(
    py: Python<'_>,
    op: usize,
    x: &Bound<'_, PyAny>,
    slow: &Bound<'_, PyAny>,
    cls: &Bound<'_, PyType>,
    real_only: bool,
) -> PyResult<Py<PyAny>> {
    let op = *UnaryOp::ALL
        .get(op)
        .ok_or_else(|| crate::Error::value("no such unary op"))?;
    match namespace_array(x, cls)? {
        Some(a) if !(real_only && a.dtype().is_complex()) => {
            let result = call_core_sized(py, a.numel(), || kernels::unary(op, &a, None))?;
            wrap(py, result, cls)
        }
        _ => Ok(slow.call1((x,))?.unbind()),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_standard_binary_op, m)?)?;
    m.add_function(wrap_pyfunction!(_standard_unary_op, m)?)?;
    m.add_function(wrap_pyfunction!(_standard_binary, m)?)?;
    m.add_function(wrap_pyfunction!(_standard_unary, m)?)?;
    Ok(())
}
