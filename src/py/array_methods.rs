//! The Array methods that compute or move data: the operators (generated from the op table,
//! `kernels/table.rs`, plus the few with their own signatures), `contiguous`, `clone`, `to`,
//! `copy_`, `reshape`. Views and predicates live in `array.rs`.

use super::convert::{arg, dtype_from_py, int_args, optional_dtype, scalar_from_py};
use super::ops::{
    arg_shape, binary_py, call_core, call_core_sized, copy_py, elementwise_size, finish, unary_py,
};
use super::{PyArray, PyMemoryFormat};
use crate::kernels::copy::{self, Converted};
use crate::kernels::{self, BinaryOp, UnaryOp};
use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// `a op b`.
fn forward(
    slf: &Bound<'_, PyArray>,
    op: BinaryOp,
    other: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    binary_py(slf.py(), op, slf.as_any(), other, None, None)
}

/// `other op a` (Python reflected the operator: `other` is a number or a numpy array).
fn reflected(
    slf: &Bound<'_, PyArray>,
    op: BinaryOp,
    other: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let (a, other) = (slf.get().array(), arg(other)?);
    let size = elementwise_size([Some(a.shape()), arg_shape(&other)]);
    let result = call_core_sized(slf.py(), size, || {
        kernels::binary::reflected(op, &other, &a)
    })?;
    finish(slf.py(), result, None)
}

/// `a op= b`: computes into `a` itself; Python then rebinds the name to `a`.
fn inplace(slf: &Bound<'_, PyArray>, op: BinaryOp, other: &Bound<'_, PyAny>) -> PyResult<()> {
    let (a, b) = (slf.get().array(), arg(other)?);
    call_core_sized(slf.py(), a.numel(), || kernels::binary::inplace(op, &a, &b))?;
    Ok(())
}

/// What `self op`, `other op self` and `self op= other` compute, for every binary row of the
/// op table that names operators.
macro_rules! binary_operators {
    ($(($variant:ident, $name:ident, $kernel:literal, $preset:ident, $alpha:ident, $kind:ident,
        [$($fwd:ident $rev:ident $how:ident $inplace:ident)?])),* $(,)?) => {
        $($(
            #[pymethods]
            impl PyArray {
                fn $fwd(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    forward(slf, BinaryOp::$variant, other)
                }
                fn $rev(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                    reflected(slf, BinaryOp::$variant, other)
                }
                fn $inplace(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
                    inplace(slf, BinaryOp::$variant, other)
                }
            }
        )?)*
    };
}

/// The unary operators named by the op table (`-a`, `abs(a)`).
macro_rules! unary_operators {
    ($(($variant:ident, $name:ident, $kernel:literal, $preset:ident, [$($dunder:ident)?])),* $(,)?) => {
        $($(
            #[pymethods]
            impl PyArray {
                fn $dunder(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
                    unary_py(slf.py(), UnaryOp::$variant, slf.as_any(), None)
                }
            }
        )?)*
    };
}

/// One method per unary row of the op table (`a.exp()`, `a.isnan()`, ...), as torch's
/// Tensor methods.
macro_rules! unary_methods {
    ($(($variant:ident, $name:ident, $kernel:literal, $preset:ident, [$($dunder:ident)?])),* $(,)?) => {
        $(
            #[pymethods]
            impl PyArray {
                fn $name(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
                    unary_py(slf.py(), UnaryOp::$variant, slf.as_any(), None)
                }
            }
        )*
    };
}

/// One method per binary row of the op table (`a.atan2(b)`, `a.add(b, alpha=2)`, ...).
macro_rules! binary_method {
    (alpha, $variant:ident, $name:ident) => {
        #[pymethods]
        impl PyArray {
            #[pyo3(signature = (other, *, alpha=None))]
            fn $name(
                slf: &Bound<'_, Self>,
                other: &Bound<'_, PyAny>,
                alpha: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Py<PyAny>> {
                let alpha = alpha.map(scalar_from_py).transpose()?;
                binary_py(
                    slf.py(),
                    BinaryOp::$variant,
                    slf.as_any(),
                    other,
                    alpha,
                    None,
                )
            }
        }
    };
    (plain, $variant:ident, $name:ident) => {
        #[pymethods]
        impl PyArray {
            fn $name(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                forward(slf, BinaryOp::$variant, other)
            }
        }
    };
}
macro_rules! binary_methods {
    ($(($variant:ident, $name:ident, $kernel:literal, $preset:ident, $alpha:ident, $kind:ident,
        [$($fwd:ident $rev:ident $how:ident $inplace:ident)?])),* $(,)?) => {
        $( binary_method!($alpha, $variant, $name); )*
    };
}

/// The operators of the op table. PyO3 writes `unsafe fn` slot wrappers for them; expanded
/// inside a `macro_rules!` they count as this crate's code, so the crate's
/// `unsafe_op_in_unsafe_fn` lint would reject PyO3's own (sound) wrappers: allowed here only.
#[allow(unsafe_op_in_unsafe_fn)]
mod table_operators {
    use super::*;
    crate::binary_ops!(binary_operators);
    crate::unary_ops!(unary_operators);
    crate::unary_ops!(unary_methods);
    crate::binary_ops!(binary_methods);
}

#[pymethods]
impl PyArray {
    fn __pow__(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        if modulo.is_some_and(|m| !m.is_none()) {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "pow() with a modulus is not supported",
            ));
        }
        forward(slf, BinaryOp::Pow, other)
    }
    fn __rpow__(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        _modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        reflected(slf, BinaryOp::Pow, other)
    }
    fn __ipow__(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        _modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        inplace(slf, BinaryOp::Pow, other)
    }
    fn __richcmp__(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        let op = match op {
            CompareOp::Eq => BinaryOp::Eq,
            CompareOp::Ne => BinaryOp::Ne,
            CompareOp::Lt => BinaryOp::Lt,
            CompareOp::Le => BinaryOp::Le,
            CompareOp::Gt => BinaryOp::Gt,
            CompareOp::Ge => BinaryOp::Ge,
        };
        forward(slf, op, other)
    }
    fn __pos__(slf: &Bound<'_, Self>) -> Py<PyAny> {
        slf.clone().into_any().unbind()
    }
    fn positive<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        super::ops::positive(slf.as_any())
    }
    fn conj<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        super::ops::conj(slf.as_any())
    }
    /// The real parts (a view; a real array itself).
    #[getter]
    fn real<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        super::ops::real(slf.as_any())
    }
    /// The imaginary parts (a view; torch's error for a real array).
    #[getter]
    fn imag<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        super::ops::imag(slf.as_any())
    }
    fn __invert__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        if !slf.get().array().dtype().is_integral(true) {
            // torch's `Tensor.__invert__` refuses before dispatching
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors",
            ));
        }
        unary_py(slf.py(), UnaryOp::BitwiseNot, slf.as_any(), None)
    }
    /// Truth of a one-element array (torch's rule for anything larger).
    fn __bool__(&self) -> PyResult<bool> {
        let a = self.array();
        if a.numel() != 1 {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "Boolean value of Tensor with {} is ambiguous",
                if a.numel() == 0 {
                    "no values"
                } else {
                    "more than one value"
                }
            )));
        }
        Ok(a.item()?.is_nonzero())
    }

    // ---- data movement ----

    /// `self` when already contiguous in `memory_format`, else a copy laid out so.
    #[pyo3(signature = (memory_format=PyMemoryFormat::contiguous_format))]
    fn contiguous(slf: &Bound<'_, Self>, memory_format: PyMemoryFormat) -> PyResult<Py<PyAny>> {
        let a = slf.get().array();
        same_or_new(
            slf,
            call_core(slf.py(), || copy::contiguous(&a, memory_format.into()))?,
        )
    }

    /// A copy (preserve_format keeps dense strides, densifies others in the same order).
    #[pyo3(signature = (memory_format=PyMemoryFormat::preserve_format))]
    fn clone(slf: &Bound<'_, Self>, memory_format: PyMemoryFormat) -> PyResult<Py<PyAny>> {
        let a = slf.get().array();
        let copy = call_core(slf.py(), || {
            copy::converted_copy(&a, None, memory_format.into())
        })?;
        finish(slf.py(), copy, None)
    }

    /// `to(dtype)`, `to(device)`, `to(device, dtype)`, `to(other)` with torch's keywords:
    /// `self` when nothing changes unless `copy`, else a converted copy. The only device is
    /// `"cpu"` (a string or a `torch.device`); another one is refused.
    #[pyo3(signature = (*args, dtype=None, memory_format=PyMemoryFormat::preserve_format, copy=false, device=None, non_blocking=false))]
    fn to(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        dtype: Option<&Bound<'_, PyAny>>,
        memory_format: PyMemoryFormat,
        copy: bool,
        device: Option<&Bound<'_, PyAny>>,
        non_blocking: bool,
    ) -> PyResult<Py<PyAny>> {
        let _ = non_blocking; // CPU copies are synchronous
        let mut wanted = optional_dtype(dtype)?;
        if let Some(d) = device {
            check_device(d)?;
        }
        for (i, a) in args.iter().enumerate() {
            if i >= 2 {
                return Err(pyo3::exceptions::PyTypeError::new_err(
                    "to() takes at most 2 positional arguments (device, dtype)",
                ));
            }
            if let Ok(other) = a.cast::<PyArray>() {
                wanted = Some(other.get().array().dtype());
            } else if is_device(&a)? {
                check_device(&a)?;
            } else {
                wanted = Some(dtype_from_py(&a)?);
            }
        }
        let a = slf.get().array();
        let converted = call_core(slf.py(), || {
            copy::to(&a, wanted, memory_format.into(), copy)
        })?;
        same_or_new(slf, converted)
    }

    /// `copy_(src)`: `src` broadcast and converted into `self`; returns `self`.
    fn copy_(slf: &Bound<'_, Self>, src: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        copy_py(slf.py(), &slf.get().array(), src)?;
        Ok(slf.clone().into_any().unbind())
    }

    /// `reshape(*shape)`: a view when the strides allow, else a contiguous copy viewed.
    #[pyo3(signature = (*shape))]
    fn reshape(slf: &Bound<'_, Self>, shape: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        let (a, shape) = (slf.get().array(), int_args(shape)?);
        let result = call_core(slf.py(), || copy::reshape(&a, &shape))?;
        finish(slf.py(), result, None)
    }

    /// Python numbers in a one-element array compare, hash and index like Python numbers.
    fn __index__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let a = self.array();
        if a.numel() != 1 || a.dtype().is_floating() || a.dtype().is_complex() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "only integer tensors of a single element can be converted to an index",
            ));
        }
        Ok(super::convert::scalar_to_py(py, a.item()?)?.unbind())
    }
    fn __float__(&self) -> PyResult<f64> {
        Ok(self.array().item()?.as_f64())
    }
    /// A floating value converts as Python's `int(float)` does (NaN and infinities raise,
    /// values beyond int64 stay exact), as torch's `Tensor.__int__`.
    fn __int__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let value = self.array().item()?;
        if let crate::Scalar::Float(f) = value {
            return Ok(pyo3::types::PyFloat::new(py, f)
                .call_method0("__int__")?
                .unbind());
        }
        if let crate::Scalar::UInt(u) = value {
            return Ok(u.into_pyobject(py)?.into_any().unbind());
        }
        Ok(value.as_i64().into_pyobject(py)?.into_any().unbind())
    }
}

/// `self` for Python when the core says the conversion aliases, else the new Array.
fn same_or_new(slf: &Bound<'_, PyArray>, converted: Converted) -> PyResult<Py<PyAny>> {
    match converted {
        Converted::Same => Ok(slf.clone().into_any().unbind()),
        Converted::New(a) => finish(slf.py(), a, None),
    }
}

/// Whether a `to()` argument names a device: a string like `"cpu"`/`"cuda:0"` (not a dtype
/// name) or a `torch.device`.
fn is_device(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    if let Ok(s) = obj.extract::<String>() {
        let kind = s.split(':').next().unwrap_or("");
        return Ok(["cpu", "cuda", "mps", "meta", "xpu", "hip"].contains(&kind));
    }
    Ok(obj.get_type().name()? == "device")
}

/// Refuses any device but the CPU.
fn check_device(obj: &Bound<'_, PyAny>) -> PyResult<()> {
    let name = obj.str()?.to_string();
    if name == "cpu" || name == "cpu:0" {
        return Ok(());
    }
    Err(pyo3::exceptions::PyValueError::new_err(format!(
        "ferroiter arrays live on the CPU only; cannot move to device '{name}'"
    )))
}
