//! torch's and numpy's everyday Array surface: `size()`, `dim()`, `nbytes`, `.T`/`.mT`,
//! `flatten`/`ravel`, dtype conversions (`astype`, `float()`, ...), `copy()`, `device`,
//! `__setitem__` (through `copy_`, so it runs on the parallel iterator), integer-array and
//! mask indexing, iteration, `format()`, pickling and copying, the buffer protocol,
//! `__array_interface__`, numpy's dispatch protocols and DLPack. Each method converts its
//! arguments and calls the core, like the rest of the binding.

use super::convert::{arg, index_key, scalar_to_py, IndexKey};
use super::ops::{call_core, copy_py, finish};
use super::{buffer, dlpack, PyArray};
use crate::advanced_index::{self, AdvancedItem};
use crate::kernels::copy;
use crate::kernels::Arg;
use crate::layout::Layout;
use crate::storage::Storage;
use crate::{Array, DType, Error, IndexItem, MemoryFormat};
use numpy::PyUntypedArray;
use pyo3::exceptions::{PyAttributeError, PyTypeError, PyUserWarning, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyTuple};
use smallvec::SmallVec;

/// torch's texts for `.T` on arrays that are not matrices (it still reverses the dims).
const T_DEPRECATED: &str = "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.";
const MT_ZERO_D: &str =
    "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.";
const T_ZERO_D: &str =
    "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.";

/// A new Python Array of `a`.
fn wrap(py: Python<'_>, a: Array) -> PyResult<Py<PyAny>> {
    finish(py, a, None)
}

/// `a` converted to `dtype` (`self` when it already is that dtype, as torch's `to`).
fn converted(slf: &Bound<'_, PyArray>, dtype: DType, copy_always: bool) -> PyResult<Py<PyAny>> {
    let a = slf.get().array();
    match call_core(slf.py(), || {
        copy::to(&a, Some(dtype), MemoryFormat::Preserve, copy_always)
    })? {
        copy::Converted::Same => Ok(slf.clone().into_any().unbind()),
        copy::Converted::New(b) => wrap(slf.py(), b),
    }
}

/// An index entry that makes the key "advanced" (an array, a numpy array or a list), as a
/// core array of indices or a mask.
fn advanced_item(obj: &Bound<'_, PyAny>) -> PyResult<Option<AdvancedItem>> {
    let array = if let Ok(a) = obj.cast::<PyArray>() {
        a.get().array()
    } else if let Ok(nd) = obj.cast::<PyUntypedArray>() {
        super::numpy_bridge::from_numpy(nd)?
    } else if obj.is_instance_of::<PyList>() {
        let np = obj.py().import("numpy")?;
        let mut nd = np.call_method1("asarray", (obj,))?;
        if nd.getattr("size")?.extract::<usize>()? == 0 {
            nd = nd.call_method1("astype", ("int64",))?; // `[]` indexes nothing, as in torch
        }
        super::numpy_bridge::from_numpy(nd.cast::<PyUntypedArray>()?)?
    } else {
        return Ok(None);
    };
    Ok(Some(match array.dtype() {
        // torch reads uint8 indices as a mask (deprecated there, still its meaning)
        DType::Bool | DType::U8 => AdvancedItem::Mask(array),
        DType::I8 | DType::I16 | DType::I32 | DType::I64 => AdvancedItem::Indices(array),
        _ => {
            return Err(Error::index(
                "tensors used as indices must be long, int, byte or bool tensors",
            )
            .into())
        }
    }))
}

/// The key as advanced-index entries when any entry is an array or a list, else `None` (the
/// basic path keeps torch's messages and makes views).
fn advanced_key(key: &Bound<'_, PyAny>) -> PyResult<Option<Vec<AdvancedItem>>> {
    let entries: Vec<Bound<'_, PyAny>> = match key.cast::<PyTuple>() {
        Ok(t) => t.iter().collect(),
        Err(_) => vec![key.clone()],
    };
    let mut items = Vec::with_capacity(entries.len());
    let mut any = false;
    for entry in &entries {
        match advanced_item(entry)? {
            Some(item) => {
                any = true;
                items.push(item);
            }
            None => items.push(AdvancedItem::Basic(match index_key(entry)? {
                IndexKey::Bare(item) => item,
                IndexKey::Tuple(_) => {
                    return Err(Error::index("a tuple inside an index is not supported").into())
                }
            })),
        }
    }
    Ok(any.then_some(items))
}

/// A value for `__setitem__`: lists and tuples become arrays (through numpy), like torch's.
/// The value of `a[key] = value` as torch's `copy_to` takes it: leading size-1 dims beyond
/// the target's rank dropped, then expanded to the target's shape (torch's expand message when
/// it does not fit).
fn setitem_source(value: &Array, target: &[usize]) -> PyResult<Array> {
    let mut v = value.clone();
    while v.ndim() > target.len() && v.shape()[0] == 1 {
        v = v.squeeze(Some(&[0]))?;
    }
    let sizes: Vec<i64> = target.iter().map(|&n| n as i64).collect();
    Ok(v.expand(&sizes)?)
}

fn value_arg<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let np = value.py().import("numpy")?;
        return np.call_method1("asarray", (value,));
    }
    Ok(value.clone())
}

/// A key of one Python int per dim (`a[i, j]`, or `a[i]` of a 1-d array): an element write
/// goes straight to [`Array::set_element`]. Bools and ints beyond int64 are left to the
/// general path (a bool is a mask there).
fn element_key(key: &Bound<'_, PyAny>, ndim: usize) -> Option<SmallVec<[i64; 6]>> {
    let int = |k: &Bound<'_, PyAny>| {
        k.is_exact_instance_of::<PyInt>()
            .then(|| k.extract::<i64>().ok())
            .flatten()
    };
    if let Ok(t) = key.cast_exact::<PyTuple>() {
        if t.len() != ndim {
            return None;
        }
        t.iter().map(|k| int(&k)).collect()
    } else if ndim == 1 {
        int(key).map(|i| smallvec::smallvec![i])
    } else {
        None
    }
}

/// `self.__getitem__` for keys with arrays in them (the basic path is in `array.rs`).
pub fn getitem_advanced(
    slf: &Bound<'_, PyArray>,
    key: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<PyAny>>> {
    match advanced_key(key)? {
        None => Ok(None),
        Some(items) => {
            let a = slf.get().array();
            let out = call_core(slf.py(), || advanced_index::gather(&a, &items))?;
            Ok(Some(wrap(slf.py(), out)?))
        }
    }
}

/// numpy's `__array_interface__` typestr of a dtype (None for bfloat16).
fn typestr(dtype: DType) -> Option<String> {
    let (kind, size) = match dtype {
        DType::Bool => ('b', 1),
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => ('u', dtype.itemsize()),
        DType::I8 | DType::I16 | DType::I32 | DType::I64 => ('i', dtype.itemsize()),
        DType::F16 | DType::F32 | DType::F64 => ('f', dtype.itemsize()),
        DType::C64 | DType::C128 => ('c', dtype.itemsize()),
        DType::BF16 | DType::ComplexHalf => return None,
    };
    let order = if size == 1 {
        '|'
    } else if cfg!(target_endian = "little") {
        '<'
    } else {
        '>'
    };
    Some(format!("{order}{kind}{size}"))
}

#[pymethods]
impl PyArray {
    /// torch's `size()`: the shape, or one dim's size.
    #[pyo3(signature = (dim=None))]
    fn size<'py>(&self, py: Python<'py>, dim: Option<i64>) -> PyResult<Bound<'py, PyAny>> {
        let a = self.array();
        match dim {
            None => Ok(PyTuple::new(py, a.shape())?.into_any()),
            Some(d) => {
                let d = crate::shape::wrap_dim_no_scalar(d, a.ndim())?;
                Ok(a.shape()[d].into_pyobject(py)?.into_any())
            }
        }
    }
    /// torch's `dim()`: the number of dims.
    fn dim(&self) -> usize {
        self.array().ndim()
    }
    /// Bytes the elements take (`numel · itemsize`, as numpy's and torch's `nbytes`).
    #[getter]
    fn nbytes(&self) -> usize {
        let a = self.array();
        a.numel() * a.itemsize()
    }
    /// Always `"cpu"`: ferroiter has no other device.
    #[getter]
    fn device(&self) -> &'static str {
        "cpu"
    }
    /// `self` (already on the CPU).
    fn cpu(slf: &Bound<'_, Self>) -> Py<PyAny> {
        slf.clone().into_any().unbind()
    }

    /// `a.T`: every dim reversed. torch warns (it still reverses) on arrays that are not
    /// matrices (not 2-D) except 1-D ones; ferroiter gives the same warnings.
    #[getter(T)]
    fn t_reversed(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let a = slf.get().array();
        let py = slf.py();
        let warning = match a.ndim() {
            0 => Some(T_ZERO_D),
            1 | 2 => None,
            _ => Some(T_DEPRECATED),
        };
        if let Some(text) = warning {
            let text = std::ffi::CString::new(text).unwrap_or_default();
            PyErr::warn(py, &py.get_type::<PyUserWarning>(), &text, 1)?;
        }
        let dims: Vec<i64> = (0..a.ndim() as i64).rev().collect();
        wrap(py, a.permute(&dims)?)
    }
    /// `a.mT`: the last two dims swapped (a batch of matrices transposed).
    #[getter(mT)]
    fn m_t(slf: &Bound<'_, Self>) -> PyResult<PyArray> {
        let a = slf.get().array();
        if a.ndim() == 0 {
            // torch: the identity, with a deprecation warning
            let py = slf.py();
            let text = std::ffi::CString::new(MT_ZERO_D).unwrap_or_default();
            PyErr::warn(py, &py.get_type::<PyUserWarning>(), &text, 1)?;
            return Ok(a.into());
        }
        if a.ndim() < 2 {
            return Err(Error::value(format!(
                "tensor.mT is only supported on matrices or batches of matrices. Got {}-D tensor.",
                a.ndim()
            ))
            .into());
        }
        Ok(a.transpose(-2, -1)?.into())
    }

    /// torch's `flatten(start_dim, end_dim)`: those dims merged into one (a view when the
    /// strides allow, else a copy); a 0-d array becomes 1-D.
    #[pyo3(signature = (start_dim=0, end_dim=-1), text_signature = "(self, start_dim=0, end_dim=-1)")]
    fn flatten(slf: &Bound<'_, Self>, start_dim: i64, end_dim: i64) -> PyResult<Py<PyAny>> {
        let a = slf.get().array();
        let n = a.ndim();
        let (s, e) = (
            crate::shape::wrap_dim(start_dim, n)?,
            crate::shape::wrap_dim(end_dim, n)?,
        );
        if s > e {
            return Err(Error::value(
                "flatten() has invalid args: start_dim cannot come after end_dim",
            )
            .into());
        }
        if n == 0 {
            return wrap(slf.py(), a.view(&[1])?);
        }
        if s == e {
            return Ok(slf.clone().into_any().unbind());
        }
        let mut shape: Vec<i64> = a.shape()[..s].iter().map(|&x| x as i64).collect();
        shape.push(a.shape()[s..=e].iter().product::<usize>() as i64);
        shape.extend(a.shape()[e + 1..].iter().map(|&x| x as i64));
        let result = call_core(slf.py(), || copy::reshape(&a, &shape))?;
        wrap(slf.py(), result)
    }
    /// torch's `ravel()`: a 1-D view of a contiguous array, else a contiguous copy.
    fn ravel(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        let a = slf.get().array();
        let flat = call_core(slf.py(), || {
            let c = match copy::contiguous(&a, MemoryFormat::Contiguous)? {
                copy::Converted::Same => a.clone(),
                copy::Converted::New(c) => c,
            };
            c.view(&[-1])
        })?;
        wrap(slf.py(), flat)
    }

    /// numpy's `astype(dtype, copy=True)`: a converted copy in the same layout order
    /// (`copy=False` returns `self` when the dtype already matches).
    #[pyo3(signature = (dtype, copy=true))]
    fn astype(slf: &Bound<'_, Self>, dtype: &Bound<'_, PyAny>, copy: bool) -> PyResult<Py<PyAny>> {
        let dtype = super::convert::dtype_from_py(dtype)?;
        converted(slf, dtype, copy)
    }
    fn float(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        converted(slf, DType::F32, false)
    }
    fn double(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        converted(slf, DType::F64, false)
    }
    fn half(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        converted(slf, DType::F16, false)
    }
    fn bfloat16(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        converted(slf, DType::BF16, false)
    }
    fn int(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        converted(slf, DType::I32, false)
    }
    fn long(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        converted(slf, DType::I64, false)
    }
    fn short(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        converted(slf, DType::I16, false)
    }
    fn char(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        converted(slf, DType::I8, false)
    }
    fn byte(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        converted(slf, DType::U8, false)
    }
    fn bool(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        converted(slf, DType::Bool, false)
    }
    fn cfloat(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        converted(slf, DType::C64, false)
    }
    fn cdouble(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        converted(slf, DType::C128, false)
    }

    /// numpy's `copy(order="C")`: a C-contiguous copy; `order="K"` keeps the layout order
    /// (torch's `clone()`).
    #[pyo3(signature = (order="C"))]
    fn copy(slf: &Bound<'_, Self>, order: &str) -> PyResult<Py<PyAny>> {
        let format = match order {
            "C" => MemoryFormat::Contiguous,
            "K" => MemoryFormat::Preserve,
            other => {
                return Err(PyValueError::new_err(format!(
                    "copy: order must be 'C' or 'K', got '{other}'"
                )))
            }
        };
        let a = slf.get().array();
        let c = call_core(slf.py(), || copy::converted_copy(&a, None, format))?;
        wrap(slf.py(), c)
    }
    fn __copy__(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
        Self::copy(slf, "K")
    }
    /// `copy.deepcopy`: a copy keeping dtype, shape and (dense) strides.
    fn __deepcopy__(slf: &Bound<'_, Self>, _memo: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Self::copy(slf, "K")
    }

    /// `a[key] = value`: basic keys (ints, slices, `...`, `None`) select a view and `copy_`
    /// broadcasts the value into it; keys with index arrays or masks scatter.
    fn __setitem__(
        slf: &Bound<'_, Self>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let py = slf.py();
        let a = slf.get().array();
        if let Some(index) = element_key(key, a.ndim()) {
            if let Ok(v) = value.cast::<PyArray>() {
                let v = v.get().array();
                if v.numel() == 1 && v.dtype() == a.dtype() && v.blocking().is_none() {
                    return Ok(a.set_element_from(&index, &v)?);
                }
            } else if let Ok(Arg::Scalar(s)) = arg(value) {
                return Ok(a.set_element(&index, s)?);
            }
        }
        let value = value_arg(value)?;
        if let Some(items) = advanced_key(key)? {
            let values = match arg(&value)? {
                Arg::Array(v) => v,
                Arg::Scalar(s) => Array::full(&[], s, a.dtype(), MemoryFormat::Contiguous)?,
            };
            return call_core(py, || {
                // a converted copy: the right dtype, and never aliasing `a`
                let values =
                    copy::converted_copy(&values, Some(a.dtype()), MemoryFormat::Contiguous)?;
                advanced_index::scatter(&a, &items, &values)
            });
        }
        let view = match index_key(key)? {
            IndexKey::Tuple(items) => a.index(&items)?,
            IndexKey::Bare(item) => a.index_bare(item)?,
        };
        match arg(&value)? {
            Arg::Array(v) => {
                let v = setitem_source(&v, view.shape())?;
                call_core(py, || copy::copy_into(&view, &v))
            }
            Arg::Scalar(_) => copy_py(py, &view, &value),
        }
    }

    /// Iterates over dim 0 (views), as torch and numpy do.
    fn __iter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let a = slf.get().array();
        if a.ndim() == 0 {
            return Err(PyTypeError::new_err("iteration over a 0-d tensor"));
        }
        let items = (0..a.shape()[0] as i64)
            .map(|i| Ok(PyArray::from(a.index_bare(IndexItem::Int(i))?)))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyList::new(slf.py(), items)?.try_iter()?.into_any())
    }

    /// `format(a, spec)`: a 0-d array formats its value (`format(x, ".2f")`); others accept
    /// only the empty spec (their `str`), as torch's `Tensor.__format__`.
    fn __format__(slf: &Bound<'_, Self>, spec: &str) -> PyResult<String> {
        let a = slf.get().array();
        if a.ndim() == 0 {
            let value = scalar_to_py(slf.py(), a.item()?)?;
            return value.call_method1("__format__", (spec,))?.extract();
        }
        if spec.is_empty() {
            return Ok(slf.str()?.to_string());
        }
        Err(PyTypeError::new_err(
            "unsupported format string passed to Array.__format__",
        ))
    }

    /// Pickling: the elements of a dense copy (the array itself when it is non-overlapping,
    /// dense and has no negative stride) with dtype, shape and strides, so a channels_last
    /// array comes back channels_last.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let a = slf.get().array();
        a.refuse_blocked("pickles")?;
        let dense =
            a.layout().is_non_overlapping_and_dense() && a.strides().iter().all(|&s| s >= 0);
        let d = if dense {
            a
        } else {
            call_core(py, || {
                copy::converted_copy(&a, None, MemoryFormat::Preserve)
            })?
        };
        let itemsize = d.itemsize();
        let (bytes, offset) = match d.layout().element_span() {
            None => (Vec::new(), 0),
            Some((lo, hi)) => {
                let mut buf = vec![0u8; (hi - lo + 1) as usize * itemsize];
                d.storage().read(lo as usize * itemsize, &mut buf)?;
                (buf, d.storage_offset() - lo)
            }
        };
        let rebuild = py
            .import("ferroiter._ferroiter")?
            .getattr("_rebuild_array")?;
        let args = (
            PyBytes::new(py, &bytes),
            d.dtype().name(),
            PyTuple::new(py, d.shape())?,
            PyTuple::new(py, d.strides())?,
            offset,
        );
        PyTuple::new(py, [rebuild, args.into_pyobject(py)?.into_any()])
    }

    // ---- numpy and DLPack ----

    /// The buffer protocol (`memoryview(a)`, `np.frombuffer(a, ...)`): see `buffer.rs`.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: std::ffi::c_int,
    ) -> PyResult<()> {
        // SAFETY: Python passes the Py_buffer of this `bf_getbuffer` call.
        unsafe { buffer::get_buffer(&slf, view, flags) }
    }
    unsafe fn __releasebuffer__(&self, view: *mut ffi::Py_buffer) {
        // SAFETY: Python passes a view our `__getbuffer__` filled.
        unsafe { buffer::release_buffer(view) }
    }

    /// numpy's array interface (version 3): the data pointer, typestr, shape and byte strides.
    /// bfloat16 has no typestr: numpy then uses `__array__` (with ml_dtypes).
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let a = self.array();
        if let Some(b) = a.blocking() {
            // numpy then falls back to `__array__`: a dense copy
            return Err(PyAttributeError::new_err(format!(
                "an array in the blocked format {} has no __array_interface__; numpy() gives a dense copy",
                b.format().name()
            )));
        }
        let a = self.array_for_pointer_export();
        let typestr = typestr(a.dtype()).ok_or_else(|| {
            PyAttributeError::new_err(format!(
                "__array_interface__ has no typestr for {}",
                a.dtype()
            ))
        })?;
        let d = PyDict::new(py);
        d.set_item("version", 3)?;
        d.set_item("shape", PyTuple::new(py, a.shape())?)?;
        d.set_item("typestr", typestr)?;
        d.set_item("data", (a.data_ptr(), a.is_readonly()))?;
        // always explicit (None would let numpy recompute the strides of size-1 dims)
        let item = a.itemsize() as isize;
        d.set_item(
            "strides",
            PyTuple::new(py, a.strides().iter().map(|s| s * item))?,
        )?;
        Ok(d)
    }

    /// numpy ufuncs on Arrays: ferroiter's kernel where the op table has the ufunc (a plain
    /// call, at most `out=`), numpy's result elsewhere (`_numpy_dispatch.py`).
    #[pyo3(signature = (ufunc, method, *inputs, **kwargs))]
    fn __array_ufunc__<'py>(
        slf: &Bound<'py, Self>,
        ufunc: &Bound<'py, PyAny>,
        method: &Bound<'py, PyAny>,
        inputs: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let kwargs = kwargs.cloned().unwrap_or_else(|| PyDict::new(py));
        py.import("ferroiter._numpy_dispatch")?
            .call_method1("array_ufunc", (slf, ufunc, method, inputs, kwargs))
    }
    /// numpy functions on Arrays (`np.sum`, `np.where`, ...): see `_numpy_dispatch.py`.
    fn __array_function__<'py>(
        slf: &Bound<'py, Self>,
        func: &Bound<'py, PyAny>,
        types: &Bound<'py, PyAny>,
        args: &Bound<'py, PyAny>,
        kwargs: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        slf.py()
            .import("ferroiter._numpy_dispatch")?
            .call_method1("array_function", (slf, func, types, args, kwargs))
    }

    /// A DLPack capsule of this array (`stream`, `max_version`, `dl_device`, `copy` as the
    /// protocol defines them): see `dlpack.rs`.
    #[pyo3(signature = (**kwargs))]
    fn __dlpack__<'py>(
        slf: &Bound<'py, Self>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        Ok(dlpack::export(slf, kwargs)?.into_any())
    }
    fn __dlpack_device__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        dlpack::device(py)
    }

    /// The Array API namespace (`ferroiter.array_api`, the 2024.12 standard) for
    /// `array_api_compat.array_namespace` and the standard's own tests; a ValueError for an
    /// `api_version` it does not implement.
    #[pyo3(signature = (*, api_version = None))]
    fn __array_namespace__<'py>(
        &self,
        py: Python<'py>,
        api_version: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let namespace = py.import("ferroiter.array_api")?;
        namespace.call_method1("_check_api_version", (api_version,))?;
        Ok(namespace.into_any())
    }
}

/// `from_dlpack(obj)`: a zero-copy Array of any CPU DLPack producer (torch, numpy, jax, ...) or
/// of a DLPack capsule; a read-only versioned capsule gives a read-only Array.
#[pyfunction]
fn from_dlpack(obj: &Bound<'_, PyAny>) -> PyResult<PyArray> {
    Ok(dlpack::import(obj)?.into())
}

/// Unpickling: an Array over a new storage holding `data`, with this layout.
#[pyfunction]
fn _rebuild_array(
    data: &[u8],
    dtype: &str,
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: isize,
) -> PyResult<PyArray> {
    let dtype = DType::from_name(dtype)?;
    let storage = Storage::alloc(data.len())?;
    storage.write(0, data)?;
    let layout = Layout {
        shape: shape.into(),
        strides: strides.into(),
        offset,
    };
    Ok(Array::from_parts(storage, layout, dtype)?.into())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(_rebuild_array, m)?)?;
    Ok(())
}
