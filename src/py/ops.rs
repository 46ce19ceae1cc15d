//! The elementwise functions and data-moving functions for Python: argument conversion, then
//! the core call with the GIL released.

use super::convert::{dtype_from_py, scalar_from_py};
use super::{numpy_bridge, PyArray, PyMemoryFormat};
use crate::kernels::elementwise::{self as ew, Arg, BinaryOp, UnaryOp};
use crate::{Array, Error, Scalar};
use numpy::PyUntypedArray;
use pyo3::prelude::*;

/// An operand: an Array, a numpy array (viewed, not copied) or a Python number.
pub fn arg(obj: &Bound<'_, PyAny>) -> PyResult<Arg> {
    if let Ok(a) = obj.cast::<PyArray>() {
        return Ok(Arg::Array(a.get().inner.clone()));
    }
    if let Ok(nd) = obj.cast::<PyUntypedArray>() {
        return Ok(Arg::Array(numpy_bridge::from_numpy(nd)?));
    }
    match scalar_from_py(obj) {
        Ok(s) => Ok(Arg::Scalar(s)),
        Err(_) => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "expected a ferroiter.Array, a numpy array or a Python number, got {}",
            obj.get_type().name()?
        ))),
    }
}

/// An operand that must be an array (numpy arrays are viewed).
pub fn array_arg(obj: &Bound<'_, PyAny>) -> PyResult<Array> {
    match arg(obj)? {
        Arg::Array(a) => Ok(a),
        Arg::Scalar(_) => Err(pyo3::exceptions::PyTypeError::new_err(
            "expected an array, got a Python number",
        )),
    }
}

/// The result for Python: the `out=` object itself when one was given (its memory now holds
/// the result), else a new Array.
pub fn finish(
    py: Python<'_>,
    result: Array,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    match out {
        Some(o) => {
            let given = &o.get().inner;
            if given.shape() != result.shape() || !given.shares_storage(&result) {
                return Err(Error::value(format!(
                    "ferroiter does not resize out= arrays: out has shape {} but the result has shape {}",
                    crate::shape::fmt_shape(given.shape()),
                    crate::shape::fmt_shape(result.shape())
                ))
                .into());
            }
            Ok(o.into_any().unbind())
        }
        None => Ok(Py::new(py, PyArray::from(result))?.into_any()),
    }
}

fn out_array(out: &Option<Bound<'_, PyArray>>) -> Option<Array> {
    out.as_ref().map(|o| o.get().inner.clone())
}

/// Refuses an `out=` whose shape differs from the broadcast shape before any work is done
/// (torch would resize it; ferroiter arrays keep their shape).
fn check_out_shape(out: &Option<Bound<'_, PyArray>>, args: &[&Arg]) -> PyResult<()> {
    let Some(o) = out else { return Ok(()) };
    let given = o.get().inner.shape();
    let same_shape = |a: &&Arg| match a {
        Arg::Array(x) => x.shape() == given,
        Arg::Scalar(_) => true,
    };
    if args.iter().all(same_shape) && args.iter().any(|a| matches!(a, Arg::Array(_))) {
        return Ok(()); // the common case, without building the broadcast shape
    }
    let shapes: Vec<Vec<usize>> = args
        .iter()
        .map(|a| match a {
            Arg::Array(x) => x.shape().to_vec(),
            Arg::Scalar(_) => vec![],
        })
        .collect();
    let shape = crate::shape::broadcast_shapes(&shapes)?;
    if given != shape.as_slice() {
        return Err(Error::value(format!(
            "ferroiter does not resize out= arrays: out has shape {} but the result has shape {}",
            crate::shape::fmt_shape(given),
            crate::shape::fmt_shape(&shape)
        ))
        .into());
    }
    Ok(())
}

pub fn binary_py(
    py: Python<'_>,
    op: BinaryOp,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    alpha: Option<Scalar>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    let (a, b) = (arg(a)?, arg(b)?);
    check_out_shape(&out, &[&a, &b])?;
    let o = out_array(&out);
    let result = py.detach(|| ew::binary(op, &a, &b, alpha, o))?;
    finish(py, result, out)
}

pub fn unary_py(
    py: Python<'_>,
    op: UnaryOp,
    a: &Bound<'_, PyAny>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    let a = array_arg(a)?;
    check_out_shape(&out, &[&Arg::Array(a.clone())])?;
    let o = out_array(&out);
    let result = py.detach(|| ew::unary(op, &a, o))?;
    finish(py, result, out)
}

macro_rules! binary_functions {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[pyfunction]
        #[pyo3(signature = (a, b, *, out=None))]
        fn $name(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>, out: Option<Bound<'_, PyArray>>) -> PyResult<Py<PyAny>> {
            binary_py(py, BinaryOp::$op, a, b, None, out)
        }
    )*};
}
binary_functions!(
    mul => Mul, div => Div, floor_divide => FloorDivide, remainder => Remainder, pow => Pow,
    maximum => Maximum, minimum => Minimum, eq => Eq, ne => Ne, lt => Lt, le => Le, gt => Gt, ge => Ge,
    logical_and => LogicalAnd, logical_or => LogicalOr, logical_xor => LogicalXor,
    bitwise_and => BitwiseAnd, bitwise_or => BitwiseOr, bitwise_xor => BitwiseXor,
);

macro_rules! unary_functions {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[pyfunction]
        #[pyo3(signature = (a, *, out=None))]
        fn $name(py: Python<'_>, a: &Bound<'_, PyAny>, out: Option<Bound<'_, PyArray>>) -> PyResult<Py<PyAny>> {
            unary_py(py, UnaryOp::$op, a, out)
        }
    )*};
}
unary_functions!(
    neg => Neg, abs => Abs, exp => Exp, log => Log, sqrt => Sqrt, sin => Sin, cos => Cos, tanh => Tanh,
    sigmoid => Sigmoid, floor => Floor, ceil => Ceil, round => Round, sign => Sign,
    bitwise_not => BitwiseNot, logical_not => LogicalNot,
);

fn alpha_arg(alpha: &Bound<'_, PyAny>) -> PyResult<Option<Scalar>> {
    Ok(Some(scalar_from_py(alpha)?))
}

/// `add(a, b, alpha=1)`: `a + alpha·b` (one rounding for floats).
#[pyfunction]
#[pyo3(signature = (a, b, *, alpha=None, out=None))]
fn add(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    alpha: Option<&Bound<'_, PyAny>>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    let alpha = alpha.map(alpha_arg).transpose()?.flatten();
    binary_py(py, BinaryOp::Add, a, b, alpha, out)
}

/// `sub(a, b, alpha=1)`: `a - alpha·b`.
#[pyfunction]
#[pyo3(signature = (a, b, *, alpha=None, out=None))]
fn sub(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    alpha: Option<&Bound<'_, PyAny>>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    let alpha = alpha.map(alpha_arg).transpose()?.flatten();
    binary_py(py, BinaryOp::Sub, a, b, alpha, out)
}

/// `where(cond, a, b)`.
#[pyfunction]
#[pyo3(name = "where", signature = (condition, a, b, *, out=None))]
fn where_py(
    py: Python<'_>,
    condition: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    let (c, a, b) = (array_arg(condition)?, arg(a)?, arg(b)?);
    check_out_shape(&out, &[&Arg::Array(c.clone()), &a, &b])?;
    let o = out_array(&out);
    let result = py.detach(|| ew::where_(&c, &a, &b, o))?;
    finish(py, result, out)
}

/// `clamp(a, min=None, max=None)`: bounds may be numbers or arrays.
#[pyfunction]
#[pyo3(signature = (a, min=None, max=None, *, out=None))]
fn clamp(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    min: Option<&Bound<'_, PyAny>>,
    max: Option<&Bound<'_, PyAny>>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    let a = array_arg(a)?;
    let bound = |b: Option<&Bound<'_, PyAny>>| b.filter(|x| !x.is_none()).map(arg).transpose();
    let (lo, hi) = (bound(min)?, bound(max)?);
    let mut shapes = vec![Arg::Array(a.clone())];
    shapes.extend(
        lo.iter()
            .chain(hi.iter())
            .filter(|x| matches!(x, Arg::Array(_)))
            .cloned(),
    );
    check_out_shape(&out, &shapes.iter().collect::<Vec<_>>())?;
    let o = out_array(&out);
    let result = py.detach(|| ew::clamp(&a, lo.as_ref(), hi.as_ref(), o))?;
    finish(py, result, out)
}

/// `set_num_threads(n)`: threads for parallel loops (ferroiter's own pool).
#[pyfunction]
fn set_num_threads(n: i64) -> PyResult<()> {
    if n < 1 {
        return Err(Error::value("set_num_threads expects a positive integer").into());
    }
    Ok(crate::exec::set_num_threads(n as usize)?)
}

#[pyfunction]
fn get_num_threads() -> usize {
    crate::exec::get_num_threads()
}

/// Sets the grain size of every following loop (tests use tiny grains to split small arrays).
#[pyfunction]
fn set_grain_size(n: i64) -> PyResult<()> {
    if n < 1 {
        return Err(Error::value("set_grain_size expects a positive integer").into());
    }
    crate::kernels::run::set_grain_size(n as usize);
    Ok(())
}

#[pyfunction]
fn get_grain_size() -> usize {
    crate::kernels::run::grain_size()
}

// ---- data movement, used by the Array methods ----

/// `dst.copy_(src)`.
pub fn copy_py(py: Python<'_>, dst: &Array, src: &Bound<'_, PyAny>) -> PyResult<()> {
    let src = match arg(src)? {
        Arg::Array(a) => a,
        Arg::Scalar(s) => Array::full(&[], s, dst.dtype(), crate::MemoryFormat::Contiguous)?,
    };
    let dst = dst.clone();
    Ok(py.detach(|| crate::kernels::copy::copy_into(&dst, &src))?)
}

/// A new array like `a` in `format` (preserve: torch's rule) holding `a`'s values as `dtype`.
pub fn converted_copy(
    py: Python<'_>,
    a: &Array,
    dtype: Option<crate::DType>,
    format: crate::MemoryFormat,
) -> PyResult<Array> {
    let a = a.clone();
    Ok(py.detach(move || -> crate::Result<Array> {
        let out = a.empty_like(dtype, format)?;
        crate::kernels::copy::copy_into(&out, &a)?;
        Ok(out)
    })?)
}

/// The dtype argument of `to()`.
pub fn optional_dtype(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<crate::DType>> {
    match obj {
        Some(d) if !d.is_none() => Ok(Some(dtype_from_py(d)?)),
        _ => Ok(None),
    }
}

/// The memory format argument as the core's.
pub fn format(f: PyMemoryFormat) -> crate::MemoryFormat {
    f.into()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    macro_rules! add {
        ($($f:ident),*) => {$( m.add_function(wrap_pyfunction!($f, m)?)?; )*};
    }
    add!(
        add,
        sub,
        mul,
        div,
        floor_divide,
        remainder,
        pow,
        maximum,
        minimum,
        eq,
        ne,
        lt,
        le,
        gt,
        ge
    );
    add!(
        logical_and,
        logical_or,
        logical_xor,
        bitwise_and,
        bitwise_or,
        bitwise_xor
    );
    add!(
        neg,
        abs,
        exp,
        log,
        sqrt,
        sin,
        cos,
        tanh,
        sigmoid,
        floor,
        ceil,
        round,
        sign,
        bitwise_not,
        logical_not
    );
    add!(
        where_py,
        clamp,
        set_num_threads,
        get_num_threads,
        set_grain_size,
        get_grain_size
    );
    Ok(())
}
