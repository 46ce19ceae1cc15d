//! The elementwise functions for Python, generated from the op table (`kernels/table.rs`):
//! one `#[pyfunction]` per row, its registration, and `_op_table()` (the rows, for the
//! tests). Each function converts its operands, runs the core with the GIL released, turns the
//! core's warnings into Python warnings and hands back the result (or the `out=` object).

use super::convert::{arg, array_arg, scalar_from_py};
use super::PyArray;
use crate::kernels::{self, Arg, BinaryOp, UnaryOp};
use crate::{Array, Scalar};
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::ffi::CString;

/// Runs a core operation with the GIL released, then raises the warnings it recorded (torch's
/// `TORCH_WARN`, e.g. a resized `out=`) as Python `UserWarning`s.
pub fn call_core<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> crate::Result<T> + Send,
) -> PyResult<T> {
    call_core_sized(py, usize::MAX, f)
}

/// Elements below which an elementwise op keeps the GIL: handing it over and taking it back
/// costs about as much as such a loop (numpy keeps it below 500 elements).
const KEEP_GIL_BELOW: usize = 4096;

/// [`call_core`] for an op over `elements` elements: with the GIL kept when they are few.
pub fn call_core_sized<T: Send>(
    py: Python<'_>,
    elements: usize,
    f: impl FnOnce() -> crate::Result<T> + Send,
) -> PyResult<T> {
    // A panic in the core (a bug) becomes a Python exception carrying its message, never a
    // PanicException (a BaseException that `except Exception` would miss) or an abort.
    let guarded = || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
            Err(crate::Error::value(format!(
                "internal error (a bug in ferroiter): {}",
                crate::exec::raw::panic_message(payload.as_ref())
            )))
        })
    };
    let result = if elements < KEEP_GIL_BELOW {
        guarded()
    } else {
        py.detach(guarded)
    };
    for message in crate::warnings::take() {
        let message = CString::new(message).unwrap_or_default();
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &message, 1)?;
    }
    Ok(result?)
}

/// The result for Python: the `out=` object itself when one was given — re-pointed at the
/// result when torch's policy resized it (`plan/resize.rs`) — else a new Array.
pub fn finish(
    py: Python<'_>,
    result: Array,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    match out {
        Some(o) => {
            let given = o.get().array();
            let same = given.shares_storage(&result)
                && given.layout() == result.layout()
                && given.dtype() == result.dtype();
            if !same {
                o.get().replace(result);
            }
            Ok(o.into_any().unbind())
        }
        None => Ok(Py::new(py, PyArray::from(result))?.into_any()),
    }
}

fn out_array(out: &Option<Bound<'_, PyArray>>) -> Option<Array> {
    out.as_ref().map(|o| o.get().array())
}

/// The elements an elementwise op computes when no operand broadcasts (arrays of one shape,
/// Python numbers, given as `None`): what [`call_core_sized`] weighs. `usize::MAX` otherwise
/// (a broadcast result may be much larger than its operands).
pub fn elementwise_size<'a>(shapes: impl IntoIterator<Item = Option<&'a [usize]>>) -> usize {
    let mut first: Option<&[usize]> = None;
    for shape in shapes.into_iter().flatten() {
        match first {
            Some(f) if f != shape => return usize::MAX,
            _ => first = Some(shape),
        }
    }
    first.map_or(1, |s| s.iter().product())
}

/// An operand's shape for [`elementwise_size`] (`None` for a Python number).
pub fn arg_shape(arg: &Arg) -> Option<&[usize]> {
    match arg {
        Arg::Array(a) => Some(a.shape()),
        Arg::Scalar(_) => None,
    }
}

pub fn binary_py(
    py: Python<'_>,
    op: BinaryOp,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    alpha: Option<Scalar>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    let (a, b, o) = (arg(a)?, arg(b)?, out_array(&out));
    let size = elementwise_size([arg_shape(&a), arg_shape(&b)]);
    let result = call_core_sized(py, size, || kernels::binary(op, &a, &b, alpha, o))?;
    finish(py, result, out)
}

pub fn unary_py(
    py: Python<'_>,
    op: UnaryOp,
    a: &Bound<'_, PyAny>,
    out: Option<Bound<'_, PyArray>>,
) -> PyResult<Py<PyAny>> {
    let (a, o) = (array_arg(a)?, out_array(&out));
    let result = call_core_sized(py, a.numel(), || kernels::unary(op, &a, o))?;
    finish(py, result, out)
}

macro_rules! unary_functions {
    ($(($variant:ident, $name:ident, $kernel:literal, $preset:ident, [$($dunder:ident)?])),* $(,)?) => {
        $(
            #[pyfunction]
            #[pyo3(signature = (a, *, out=None))]
            fn $name(py: Python<'_>, a: &Bound<'_, PyAny>, out: Option<Bound<'_, PyArray>>) -> PyResult<Py<PyAny>> {
                unary_py(py, UnaryOp::$variant, a, out)
            }
        )*
        fn register_unary(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $( m.add_function(wrap_pyfunction!($name, m)?)?; )*
            Ok(())
        }
    };
}
crate::unary_ops!(unary_functions);

macro_rules! binary_function {
    (alpha, $variant:ident, $name:ident) => {
        /// `a ⊙ alpha·b` (one rounding for floats).
        #[pyfunction]
        #[pyo3(signature = (a, b, *, alpha=None, out=None))]
        fn $name(
            py: Python<'_>,
            a: &Bound<'_, PyAny>,
            b: &Bound<'_, PyAny>,
            alpha: Option<&Bound<'_, PyAny>>,
            out: Option<Bound<'_, PyArray>>,
        ) -> PyResult<Py<PyAny>> {
            let alpha = alpha.map(scalar_from_py).transpose()?;
            binary_py(py, BinaryOp::$variant, a, b, alpha, out)
        }
    };
    (plain, $variant:ident, $name:ident) => {
        #[pyfunction]
        #[pyo3(signature = (a, b, *, out=None))]
        fn $name(
            py: Python<'_>,
            a: &Bound<'_, PyAny>,
            b: &Bound<'_, PyAny>,
            out: Option<Bound<'_, PyArray>>,
        ) -> PyResult<Py<PyAny>> {
            binary_py(py, BinaryOp::$variant, a, b, None, out)
        }
    };
}

macro_rules! binary_functions {
    ($(($variant:ident, $name:ident, $kernel:literal, $preset:ident, $alpha:ident, $kind:ident,
        [$($fwd:ident $rev:ident $how:ident $inplace:ident)?])),* $(,)?) => {
        $( binary_function!($alpha, $variant, $name); )*
        fn register_binary(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $( m.add_function(wrap_pyfunction!($name, m)?)?; )*
            Ok(())
        }
    };
}
crate::binary_ops!(binary_functions);

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
    let (c, a, b, o) = (array_arg(condition)?, arg(a)?, arg(b)?, out_array(&out));
    let result = call_core(py, || kernels::where_(&c, &a, &b, o))?;
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
    let (lo, hi, o) = (bound(min)?, bound(max)?, out_array(&out));
    let result = call_core(py, || kernels::clamp(&a, lo.as_ref(), hi.as_ref(), o))?;
    finish(py, result, out)
}

/// `positive(a)`: `a` itself (torch's; a bool array is refused as torch's `+`).
#[pyfunction]
pub fn positive<'py>(a: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let array = array_arg(a)?;
    if array.dtype() == crate::DType::Bool {
        return Err(
            crate::Error::value("The `+` operator, on a bool tensor is not supported.").into(),
        );
    }
    match a.cast::<PyArray>() {
        Ok(same) => Ok(same.clone().into_any()),
        Err(_) => Ok(Bound::new(a.py(), PyArray::from(array))?.into_any()),
    }
}

/// `real(a)`: a view of the real parts of a complex array; a real array itself.
#[pyfunction]
pub fn real<'py>(a: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    complex_view(a, false)
}

/// `imag(a)`: a view of the imaginary parts of a complex array (torch's error otherwise).
#[pyfunction]
pub fn imag<'py>(a: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    complex_view(a, true)
}

fn complex_view<'py>(a: &Bound<'py, PyAny>, imag: bool) -> PyResult<Bound<'py, PyAny>> {
    let array = array_arg(a)?;
    if !array.dtype().is_complex() && !imag {
        if let Ok(same) = a.cast::<PyArray>() {
            return Ok(same.clone().into_any());
        }
    }
    let part = kernels::complex_parts::complex_part(&array, imag)?;
    Ok(Bound::new(a.py(), PyArray::from(part))?.into_any())
}

/// `conj(a)`: the complex conjugate (a new array); a real array itself.
#[pyfunction]
pub fn conj<'py>(a: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let array = array_arg(a)?;
    if !array.dtype().is_complex() {
        if let Ok(same) = a.cast::<PyArray>() {
            return Ok(same.clone().into_any());
        }
    }
    let py = a.py();
    let result = call_core(py, || kernels::complex_parts::conj(&array))?;
    Ok(Bound::new(py, PyArray::from(result))?.into_any())
}

/// `set_num_threads(n)`: threads for parallel loops (ferroiter's own pool).
#[pyfunction]
fn set_num_threads(n: i64) -> PyResult<()> {
    let n = usize::try_from(n).unwrap_or(0);
    Ok(crate::exec::set_num_threads(n)?)
}

#[pyfunction]
fn get_num_threads() -> usize {
    crate::settings::get_num_threads()
}

/// Sets the grain size of every following loop (tests use tiny grains to split small arrays).
#[pyfunction]
fn set_grain_size(n: i64) -> PyResult<()> {
    let n = usize::try_from(n).unwrap_or(0);
    Ok(crate::settings::set_grain_size(n)?)
}

#[pyfunction]
fn get_grain_size() -> usize {
    crate::settings::grain_size()
}

/// Streams the stores of every flat copy and elementwise loop whose output has at least
/// `bytes` bytes (`None`: the cache rule of `exec::stores` again); returns the previous
/// setting. The tests' handle on the streamed stores on machines whose rule streams only
/// outputs larger than they allocate.
#[pyfunction]
#[pyo3(signature = (bytes))]
fn _set_streamed_from(bytes: Option<usize>) -> Option<usize> {
    crate::exec::stores::set_streamed_from(bytes)
}

/// Panics with `message` inside the core: in the last chunk of a parallel loop of `chunks`
/// chunks, or (`chunks == 0`) outside any loop. The tests' handle on the promise that a panic
/// becomes an exception carrying its message (never an abort or a `PanicException`).
#[pyfunction]
fn _panic_in_loop(py: Python<'_>, message: String, chunks: usize) -> PyResult<()> {
    let threads = crate::settings::get_num_threads();
    call_core(py, || {
        if chunks == 0 {
            panic!("{message}");
        }
        crate::exec::parallel_for(chunks, threads, &|i| {
            if i + 1 == chunks {
                panic!("{message}");
            }
        })
    })
}

/// The op table as Python sees it, one dict per elementwise function: `name`, `arity`,
/// `preset` (torch's iterator preset), `kernel` (torch's kernel name in its messages),
/// `alpha` (takes `alpha=`), `operators` (the Array dunders computing it). The tests derive
/// their op lists from it.
#[pyfunction]
fn _op_table(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let row = |name: &str,
               arity: usize,
               preset: &str,
               kernel: &str,
               alpha: bool,
               operators: Vec<&str>|
     -> PyResult<Bound<'_, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("name", name)?;
        d.set_item("arity", arity)?;
        d.set_item("preset", preset)?;
        d.set_item("kernel", kernel)?;
        d.set_item("alpha", alpha)?;
        d.set_item("operators", operators)?;
        Ok(d)
    };
    let mut rows = Vec::new();
    for op in UnaryOp::ALL {
        let operators = op.operator().into_iter().collect();
        rows.push(row(
            op.name(),
            1,
            op.preset().name(),
            op.kernel_name(),
            false,
            operators,
        )?);
    }
    for op in BinaryOp::ALL {
        rows.push(row(
            op.name(),
            2,
            op.preset().name(),
            op.kernel_name(),
            op.has_alpha(),
            op.operators().to_vec(),
        )?);
    }
    rows.push(row("where", 3, "ternary", "where_cpu", false, vec![])?);
    rows.push(row("clamp", 3, "clamp", "clamp_cpu", false, vec![])?);
    Ok(rows)
}

/// `dst.copy_(src)` for the Array method: `src` may be a number (filled as `dst`'s dtype).
pub fn copy_py(py: Python<'_>, dst: &Array, src: &Bound<'_, PyAny>) -> PyResult<()> {
    let src = match arg(src)? {
        Arg::Array(a) => a,
        Arg::Scalar(s) => Array::full(&[], s, dst.dtype(), crate::MemoryFormat::Contiguous)?,
    };
    call_core(py, || crate::kernels::copy::copy_into(dst, &src))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    register_unary(m)?;
    register_binary(m)?;
    m.add_function(wrap_pyfunction!(where_py, m)?)?;
    m.add_function(wrap_pyfunction!(clamp, m)?)?;
    m.add_function(wrap_pyfunction!(positive, m)?)?;
    m.add_function(wrap_pyfunction!(real, m)?)?;
    m.add_function(wrap_pyfunction!(imag, m)?)?;
    m.add_function(wrap_pyfunction!(conj, m)?)?;
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(set_grain_size, m)?)?;
    m.add_function(wrap_pyfunction!(get_grain_size, m)?)?;
    m.add_function(wrap_pyfunction!(_op_table, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_in_loop, m)?)?;
    m.add_function(wrap_pyfunction!(_set_streamed_from, m)?)?;
    Ok(())
}
