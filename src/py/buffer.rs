//! The Python buffer protocol (PEP 3118) for `ferroiter.Array`: `memoryview(a)`,
//! `np.frombuffer(a, ...)`, `bytes(a)`. Every layout is expressible: PEP 3118 strided buffers
//! take any byte strides, zero and negative included, with `buf` at logical element 0. A
//! consumer that does not ask for strides gets a buffer only when the array is C-contiguous.
//! bfloat16 has no struct-module format code and is refused.
//!
//! One of the binding's `unsafe` modules (README): it fills the C struct `Py_buffer`. The
//! exporter keeps the storage alive itself: the view holds its own `Array` (in `internal`),
//! so re-pointing the Python object (a resized `out=`) cannot free memory a view still reads.

use super::PyArray;
use crate::{Array, DType};
use pyo3::exceptions::PyBufferError;
use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::{c_char, c_void, CStr};

/// What a buffer view owns until it is released.
struct Exported {
    _array: Array,
    shape: Vec<ffi::Py_ssize_t>,
    strides: Vec<ffi::Py_ssize_t>,
}

/// The struct-module format code of a dtype (native byte order, as the memory is).
pub fn format_code(dtype: DType) -> Option<&'static CStr> {
    Some(match dtype {
        DType::Bool => c"?",
        DType::U8 => c"B",
        DType::U16 => c"H",
        DType::U32 => c"I",
        DType::U64 => c"Q",
        DType::I8 => c"b",
        DType::I16 => c"h",
        DType::I32 => c"i",
        DType::I64 => c"q",
        DType::F16 => c"e",
        DType::F32 => c"f",
        DType::F64 => c"d",
        DType::C64 => c"Zf",
        DType::C128 => c"Zd",
        DType::BF16 | DType::ComplexHalf => return None,
    })
}

/// `__getbuffer__`: fills `view` for `flags`, or raises `BufferError`.
///
/// # Safety
/// `view` must point to a `Py_buffer` that Python passed to `bf_getbuffer`.
pub unsafe fn get_buffer(
    slf: &Bound<'_, PyArray>,
    view: *mut ffi::Py_buffer,
    flags: std::ffi::c_int,
) -> PyResult<()> {
    if view.is_null() {
        return Err(PyBufferError::new_err("__getbuffer__: view is null"));
    }
    let array = slf.get().array();
    if let Some(b) = array.blocking() {
        return Err(PyBufferError::new_err(format!(
            "an array in the blocked format {} exports no buffer; numpy() gives a dense copy, blocked_view() its physical view",
            b.format().name()
        )));
    }
    let format = format_code(array.dtype()).ok_or_else(|| {
        PyBufferError::new_err(format!(
            "the buffer protocol has no format for {}; use .numpy() (with ml_dtypes) or DLPack",
            array.dtype()
        ))
    })?;
    let readonly = array.is_readonly();
    if flags & ffi::PyBUF_WRITABLE == ffi::PyBUF_WRITABLE && readonly {
        return Err(PyBufferError::new_err(
            "cannot export a writable buffer of a read-only array",
        ));
    }
    let layout = array.layout();
    let wants_strides = flags & ffi::PyBUF_STRIDES == ffi::PyBUF_STRIDES;
    let c_contiguous = layout
        .is_contiguous(crate::MemoryFormat::Contiguous)
        .unwrap_or(false);
    let needs = |bits: std::ffi::c_int| flags & bits == bits;
    let f_contiguous = || {
        let reversed: Vec<i64> = (0..array.ndim() as i64).rev().collect();
        array.permute(&reversed).is_ok_and(|t| {
            t.layout()
                .is_contiguous(crate::MemoryFormat::Contiguous)
                .unwrap_or(false)
        })
    };
    if (!wants_strides || needs(ffi::PyBUF_C_CONTIGUOUS)) && !c_contiguous {
        return Err(PyBufferError::new_err(
            "the array is not C-contiguous; call .contiguous() or ask for a strided buffer",
        ));
    }
    if needs(ffi::PyBUF_F_CONTIGUOUS) && !f_contiguous() {
        return Err(PyBufferError::new_err(
            "the array is not Fortran-contiguous",
        ));
    }
    if needs(ffi::PyBUF_ANY_CONTIGUOUS) && !c_contiguous && !f_contiguous() {
        return Err(PyBufferError::new_err("the array is not contiguous"));
    }
    let itemsize = array.itemsize() as ffi::Py_ssize_t;
    let mut owner = Box::new(Exported {
        shape: array
            .shape()
            .iter()
            .map(|&s| s as ffi::Py_ssize_t)
            .collect(),
        strides: array
            .strides()
            .iter()
            .map(|&s| s as ffi::Py_ssize_t * itemsize)
            .collect(),
        _array: array.clone(),
    });
    let wants_nd = flags & ffi::PyBUF_ND == ffi::PyBUF_ND;
    let shape_ptr = if wants_nd {
        owner.shape.as_mut_ptr()
    } else {
        std::ptr::null_mut()
    };
    let strides_ptr = if wants_strides {
        owner.strides.as_mut_ptr()
    } else {
        std::ptr::null_mut()
    };
    // SAFETY: `view` is the caller's Py_buffer (checked non-null); the pointers stored in it
    // point into `owner`, which lives until `release_buffer` frees it; `buf` is element 0 of
    // an array whose every element lies inside its storage, which `owner` keeps alive.
    unsafe {
        (*view).buf = array.data_ptr() as *mut c_void;
        (*view).obj = slf.clone().into_any().into_ptr();
        (*view).len = array.numel() as ffi::Py_ssize_t * itemsize;
        (*view).itemsize = itemsize;
        (*view).readonly = readonly as std::ffi::c_int;
        (*view).ndim = if wants_nd {
            array.ndim() as std::ffi::c_int
        } else {
            1
        };
        (*view).format = if flags & ffi::PyBUF_FORMAT == ffi::PyBUF_FORMAT {
            format.as_ptr() as *mut c_char
        } else {
            std::ptr::null_mut()
        };
        (*view).shape = shape_ptr;
        (*view).strides = strides_ptr;
        (*view).suboffsets = std::ptr::null_mut();
        (*view).internal = Box::into_raw(owner) as *mut c_void;
    }
    Ok(())
}

/// `__releasebuffer__`: frees what `get_buffer` stored in `internal`.
///
/// # Safety
/// `view` must be a Py_buffer that `get_buffer` filled.
pub unsafe fn release_buffer(view: *mut ffi::Py_buffer) {
    // SAFETY: `internal` is the `Exported` box `get_buffer` leaked (or null); Python releases
    // each view once.
    unsafe {
        if !view.is_null() && !(*view).internal.is_null() {
            drop(Box::from_raw((*view).internal as *mut Exported));
            (*view).internal = std::ptr::null_mut();
        }
    }
}
