//! The Array methods that compute or move data: operators (with Python scalars as wrapped
//! numbers), in-place forms, `contiguous`, `clone`, `to`, `copy_`, `reshape`. Views and
//! predicates live in `array.rs`.

use super::ops::{binary_py, converted_copy, copy_py, finish, format, optional_dtype, unary_py};
use super::{PyArray, PyMemoryFormat};
use crate::kernels::elementwise::{self as ew, Arg, BinaryOp, UnaryOp};
use crate::MemoryFormat;
use pyo3::basic::CompareOp;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// `a op= b`: computes into `a` itself (torch's `add_`); Python then rebinds the name to `a`.
/// `a` is read and written (torch's read-write output), so a `b` that does not broadcast to
/// `a`'s shape gets torch's own error rather than the out= one.
fn inplace<'py>(
    slf: &Bound<'py, PyArray>,
    op: BinaryOp,
    other: &Bound<'py, PyAny>,
) -> PyResult<()> {
    let a = slf.get().inner.clone();
    let b = super::ops::arg(other)?;
    slf.py()
        .detach(|| ew::binary(op, &Arg::Array(a.clone()), &b, None, Some(a)))?;
    Ok(())
}

/// `other op a` for a commutative op: torch's `__radd__` & co. compute `a op other` (the
/// number stays the second operand, which matters for complex sums and half-precision
/// products).
fn commuted<'py>(
    slf: &Bound<'py, PyArray>,
    op: BinaryOp,
    other: &Bound<'py, PyAny>,
) -> PyResult<Py<PyAny>> {
    binary_py(slf.py(), op, slf.as_any(), other, None, None)
}

/// `other op a` for a Python number or numpy array on the left.
fn reflected<'py>(
    slf: &Bound<'py, PyArray>,
    op: BinaryOp,
    other: &Bound<'py, PyAny>,
) -> PyResult<Py<PyAny>> {
    binary_py(slf.py(), op, other, slf.as_any(), None, None)
}

#[pymethods]
impl PyArray {
    /// numpy defers to ferroiter for `ndarray ⊙ Array`, so the result is an Array.
    #[classattr]
    fn __array_ufunc__() -> Option<i32> {
        None
    }

    fn __add__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_py(slf.py(), BinaryOp::Add, slf.as_any(), other, None, None)
    }
    fn __radd__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        commuted(slf, BinaryOp::Add, other)
    }
    fn __iadd__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf, BinaryOp::Add, other)
    }
    fn __sub__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_py(slf.py(), BinaryOp::Sub, slf.as_any(), other, None, None)
    }
    fn __rsub__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        reflected(slf, BinaryOp::Sub, other)
    }
    fn __isub__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf, BinaryOp::Sub, other)
    }
    fn __mul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_py(slf.py(), BinaryOp::Mul, slf.as_any(), other, None, None)
    }
    fn __rmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        commuted(slf, BinaryOp::Mul, other)
    }
    fn __imul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf, BinaryOp::Mul, other)
    }
    fn __truediv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_py(slf.py(), BinaryOp::Div, slf.as_any(), other, None, None)
    }
    /// `number / a` is torch's `a.reciprocal() * number` (two roundings, reciprocal's dtype
    /// rules); an array on the left divides.
    fn __rtruediv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        match super::ops::arg(other)? {
            Arg::Scalar(s) => {
                let a = slf.get().inner.clone();
                let result = slf.py().detach(|| -> crate::Result<crate::Array> {
                    let r = ew::unary(UnaryOp::Reciprocal, &a, None)?;
                    ew::binary(BinaryOp::Mul, &Arg::Array(r), &Arg::Scalar(s), None, None)
                })?;
                finish(slf.py(), result, None)
            }
            Arg::Array(_) => reflected(slf, BinaryOp::Div, other),
        }
    }
    fn __itruediv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf, BinaryOp::Div, other)
    }
    fn __floordiv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_py(
            slf.py(),
            BinaryOp::FloorDivide,
            slf.as_any(),
            other,
            None,
            None,
        )
    }
    fn __rfloordiv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        reflected(slf, BinaryOp::FloorDivide, other)
    }
    fn __ifloordiv__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf, BinaryOp::FloorDivide, other)
    }
    fn __mod__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_py(
            slf.py(),
            BinaryOp::Remainder,
            slf.as_any(),
            other,
            None,
            None,
        )
    }
    fn __rmod__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        reflected(slf, BinaryOp::Remainder, other)
    }
    fn __imod__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf, BinaryOp::Remainder, other)
    }
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
        binary_py(slf.py(), BinaryOp::Pow, slf.as_any(), other, None, None)
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
    fn __and__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_py(
            slf.py(),
            BinaryOp::BitwiseAnd,
            slf.as_any(),
            other,
            None,
            None,
        )
    }
    fn __rand__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        commuted(slf, BinaryOp::BitwiseAnd, other)
    }
    fn __iand__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf, BinaryOp::BitwiseAnd, other)
    }
    fn __or__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_py(
            slf.py(),
            BinaryOp::BitwiseOr,
            slf.as_any(),
            other,
            None,
            None,
        )
    }
    fn __ror__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        commuted(slf, BinaryOp::BitwiseOr, other)
    }
    fn __ior__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf, BinaryOp::BitwiseOr, other)
    }
    fn __xor__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary_py(
            slf.py(),
            BinaryOp::BitwiseXor,
            slf.as_any(),
            other,
            None,
            None,
        )
    }
    fn __rxor__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        commuted(slf, BinaryOp::BitwiseXor, other)
    }
    fn __ixor__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(slf, BinaryOp::BitwiseXor, other)
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
        binary_py(slf.py(), op, slf.as_any(), other, None, None)
    }
    fn __neg__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        unary_py(slf.py(), UnaryOp::Neg, slf.as_any(), None)
    }
    fn __pos__(slf: &Bound<'_, Self>) -> Py<PyAny> {
        slf.clone().into_any().unbind()
    }
    fn __abs__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        unary_py(slf.py(), UnaryOp::Abs, slf.as_any(), None)
    }
    fn abs(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        unary_py(slf.py(), UnaryOp::Abs, slf.as_any(), None)
    }
    fn __invert__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        if !slf.get().inner.dtype().is_integral(true) {
            // torch's `Tensor.__invert__` refuses before dispatching
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors",
            ));
        }
        unary_py(slf.py(), UnaryOp::BitwiseNot, slf.as_any(), None)
    }
    /// Truth of a one-element array (torch's rule for anything larger).
    fn __bool__(&self) -> PyResult<bool> {
        if self.inner.numel() != 1 {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "Boolean value of Tensor with {} values is ambiguous",
                if self.inner.numel() == 0 {
                    "no"
                } else {
                    "more than one"
                }
            )));
        }
        Ok(self.inner.item()?.is_nonzero())
    }

    // ---- data movement ----

    /// `self` when already contiguous in `memory_format`, else a copy laid out so.
    #[pyo3(signature = (memory_format=PyMemoryFormat::contiguous_format))]
    fn contiguous(slf: &Bound<'_, Self>, memory_format: PyMemoryFormat) -> PyResult<Py<PyAny>> {
        let a = &slf.get().inner;
        let fmt = format(memory_format);
        if fmt == MemoryFormat::Preserve {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "contiguous() does not take preserve_format",
            ));
        }
        if a.layout().is_contiguous(fmt)? {
            return Ok(slf.clone().into_any().unbind());
        }
        let copy = converted_copy(slf.py(), a, None, fmt)?;
        finish(slf.py(), copy, None)
    }

    /// A copy (preserve_format keeps dense strides, densifies others in the same order).
    #[pyo3(signature = (memory_format=PyMemoryFormat::preserve_format))]
    fn clone(slf: &Bound<'_, Self>, memory_format: PyMemoryFormat) -> PyResult<Py<PyAny>> {
        let copy = converted_copy(slf.py(), &slf.get().inner, None, format(memory_format))?;
        finish(slf.py(), copy, None)
    }

    /// `to(dtype, memory_format, copy)`: `self` when nothing changes (dtype equal and the
    /// format `preserve_format` or the suggested one) unless `copy`, else a converted copy.
    #[pyo3(signature = (dtype=None, memory_format=PyMemoryFormat::preserve_format, copy=false))]
    fn to(
        slf: &Bound<'_, Self>,
        dtype: Option<&Bound<'_, PyAny>>,
        memory_format: PyMemoryFormat,
        copy: bool,
    ) -> PyResult<Py<PyAny>> {
        let a = &slf.get().inner;
        let dtype = optional_dtype(dtype)?.unwrap_or(a.dtype());
        let fmt = format(memory_format);
        let aliases = dtype == a.dtype()
            && (fmt == MemoryFormat::Preserve || a.layout().suggest_memory_format(false) == fmt);
        if aliases && !copy {
            return Ok(slf.clone().into_any().unbind());
        }
        let out = converted_copy(slf.py(), a, Some(dtype), fmt)?;
        finish(slf.py(), out, None)
    }

    /// `copy_(src)`: `src` broadcast and converted into `self`; returns `self`.
    fn copy_(slf: &Bound<'_, Self>, src: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        copy_py(slf.py(), &slf.get().inner, src)?;
        Ok(slf.clone().into_any().unbind())
    }

    /// `reshape(*shape)`: a view when the strides allow, else a contiguous copy viewed.
    #[pyo3(signature = (*shape))]
    fn reshape(slf: &Bound<'_, Self>, shape: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        let a = &slf.get().inner;
        let shape = super::convert::int_args(shape)?;
        let result = match a.view(&shape) {
            Ok(v) => v,
            Err(_) => {
                let dense = converted_copy(slf.py(), a, None, MemoryFormat::Contiguous)?;
                dense.view(&shape)?
            }
        };
        finish(slf.py(), result, None)
    }

    /// Python numbers in a one-element array compare, hash and index like Python numbers.
    fn __index__(&self) -> PyResult<i64> {
        if self.inner.numel() != 1
            || self.inner.dtype().is_floating()
            || self.inner.dtype().is_complex()
        {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "only integer tensors of a single element can be converted to an index",
            ));
        }
        Ok(self.inner.item()?.as_i64())
    }
    fn __float__(&self) -> PyResult<f64> {
        Ok(self.inner.item()?.as_f64())
    }
    fn __int__(&self) -> PyResult<i64> {
        Ok(self.inner.item()?.as_i64())
    }
}
