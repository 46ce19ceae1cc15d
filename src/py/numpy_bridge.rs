//! The numpy boundary, zero-copy both ways: an ndarray's buffer becomes a borrowed `Storage`
//! (kept alive by a reference to the ndarray), and an `Array` becomes an ndarray whose base is
//! the Python `Array` object. The only `unsafe` of the binding lives here.

use super::convert::dtype_to_numpy;
use super::PyArray;
use crate::error::Error;
use crate::layout::Layout;
use crate::storage::Storage;
use crate::Array;
use numpy::npyffi::{self, NPY_ARRAY_WRITEABLE, PY_ARRAY_API};
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use std::ptr::NonNull;

/// `from_numpy(ndarray)`: a view of the ndarray's memory, any strides (negative and zero
/// included) as long as they are whole elements; read-only arrays stay read-only.
pub fn from_numpy(arr: &Bound<'_, PyUntypedArray>) -> PyResult<Array> {
    let descr = arr.dtype();
    let name: String = descr.getattr("name")?.extract()?;
    if descr.is_native_byteorder() == Some(false) {
        return Err(Error::type_(format!(
            "from_numpy: non-native byte order ({name}) is not supported"
        ))
        .into());
    }
    let dtype = super::convert::numpy_dtype(&descr, &name)?;
    let itemsize = dtype.itemsize() as isize;
    let shape = arr.shape().to_vec();
    let mut strides = Vec::with_capacity(shape.len());
    for &s in arr.strides() {
        if s % itemsize != 0 {
            return Err(Error::value(
                "given numpy array strides not a multiple of the element byte size. Copy the numpy array to reallocate the memory.",
            )
            .into());
        }
        strides.push(s / itemsize);
    }
    // SAFETY: `arr` is a live ndarray (we hold the GIL through `arr`), so its fields struct is
    // valid to read.
    let (data, flags) = unsafe {
        let fields = npyffi::_PyArray_GET_ITEM_DATA(arr.as_array_ptr());
        ((*fields).data as *mut u8, (*fields).flags)
    };
    if !(data as usize).is_multiple_of(dtype.itemsize()) {
        return Err(Error::value("from_numpy: the array's data is not aligned to its item size; pass np.require(a, requirements='A')").into());
    }
    // The storage spans exactly the elements the ndarray reaches; element 0 sits `-lo` in.
    let (lo, hi) = crate::strides::offset_span(&shape, &strides).unwrap_or((0, -1));
    let nbytes = ((hi - lo + 1) * itemsize) as usize;
    // SAFETY: `lo` is the (non-positive) element offset of the lowest element the ndarray
    // addresses, so `data + lo·itemsize` is inside its buffer (or `data` itself when empty).
    let base = unsafe { data.offset(lo * itemsize) };
    let base = NonNull::new(base).unwrap_or(NonNull::dangling());
    let writable = flags & NPY_ARRAY_WRITEABLE != 0;
    let keep_alive: Py<PyAny> = arr.clone().into_any().unbind();
    // SAFETY: `base..base + nbytes` covers exactly the bytes the ndarray addresses, which stay
    // valid (and writable iff the WRITEABLE flag is set) while the ndarray lives; the storage
    // holds a reference to it.
    let storage = unsafe { Storage::from_external(base, nbytes, writable, Box::new(keep_alive)) };
    Ok(Array::from_parts(
        storage,
        Layout {
            shape: shape.into(),
            strides: strides.into(),
            offset: -lo,
        },
        dtype,
    )?)
}

/// `Array.numpy()`: an ndarray over the same memory. Its base is a new `ferroiter.Array` of
/// the same view (not `owner` itself, which a resized `out=` may re-point at other memory),
/// so the storage lives as long as the ndarray.
pub fn to_numpy<'py>(owner: &Bound<'py, PyArray>) -> PyResult<Bound<'py, PyAny>> {
    let py = owner.py();
    let array = owner.get().array();
    if array.blocking().is_some() {
        // a blocked array has no strided numpy view of its logical elements: a dense copy
        let dense = super::ops::call_core(py, || crate::kernels::blocked::dense(&array))?;
        return to_numpy(&Bound::new(py, PyArray::from(dense))?);
    }
    let descr = dtype_to_numpy(py, array.dtype())?;
    let itemsize = array.itemsize() as isize;
    let mut dims: Vec<npyffi::npy_intp> = array
        .shape()
        .iter()
        .map(|&s| s as npyffi::npy_intp)
        .collect();
    let mut strides: Vec<npyffi::npy_intp> = array
        .strides()
        .iter()
        .map(|&s| (s * itemsize) as npyffi::npy_intp)
        .collect();
    let flags = if array.is_readonly() {
        0
    } else {
        NPY_ARRAY_WRITEABLE
    };
    // SAFETY: the descriptor reference is stolen by NewFromDescr (we pass a new one); dims and
    // strides have `ndim` entries; the data pointer and strides describe memory inside the
    // array's storage (checked when the Array was made), which the base object keeps alive.
    unsafe {
        let subtype = npyffi::get_type_object(py, npyffi::NpyTypes::PyArray_Type);
        let raw = PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            subtype,
            descr.into_dtype_ptr(),
            dims.len() as std::ffi::c_int,
            dims.as_mut_ptr(),
            strides.as_mut_ptr(),
            array.data_ptr() as *mut std::ffi::c_void,
            flags,
            std::ptr::null_mut(),
        );
        let nd = Bound::from_owned_ptr_or_err(py, raw)?;
        let base = Py::new(py, PyArray::from(array.clone()))?
            .into_any()
            .into_ptr();
        if PY_ARRAY_API.PyArray_SetBaseObject(py, nd.as_ptr() as *mut npyffi::PyArrayObject, base)
            != 0
        {
            return Err(PyErr::fetch(py));
        }
        Ok(nd)
    }
}
