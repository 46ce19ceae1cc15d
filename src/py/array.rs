//! `ferroiter.Array`: the Python face of a core `Array`. Every method converts its arguments,
//! calls the core and wraps the result.

use super::convert::{dtype_to_numpy, index_key, int_args, scalar_to_py, IndexKey};
use super::numpy_bridge;
use super::PyMemoryFormat;
use crate::{Array, Scalar};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError, RwLock};

/// A strided array with torch's layout semantics (sizes and strides in elements).
///
/// The object holds a core `Array` (a value: storage, layout, dtype) that an `out=` of another
/// shape replaces when torch's policy resizes it (`plan/resize.rs`); every other operation
/// reads it. The lock is only held to copy the value in or out, never across Python calls or
/// released-GIL work, so it cannot deadlock with the GIL.
#[pyclass(name = "Array", module = "ferroiter", frozen)]
pub struct PyArray {
    cell: RwLock<Array>,
    /// Arrays this object held before a resize re-pointed it, kept only once a raw data
    /// pointer was handed out through `__array_interface__`: numpy's array made from it names
    /// this object as its owner, so the old storage must live as long as the object does.
    retired: Mutex<Vec<Array>>,
    /// Whether `__array_interface__` has handed out a pointer.
    pointer_exported: AtomicBool,
}

impl From<Array> for PyArray {
    fn from(inner: Array) -> Self {
        PyArray {
            cell: RwLock::new(inner),
            retired: Mutex::new(Vec::new()),
            pointer_exported: AtomicBool::new(false),
        }
    }
}

impl PyArray {
    /// The core array this object holds now.
    pub fn array(&self) -> Array {
        self.cell
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
    /// Re-points this object at another array (a resized `out=`); the old one is kept alive
    /// if a raw pointer into it was exported (see `retired`).
    pub(crate) fn replace(&self, array: Array) {
        let old = std::mem::replace(
            &mut *self.cell.write().unwrap_or_else(PoisonError::into_inner),
            array,
        );
        if self.pointer_exported.load(Ordering::SeqCst) {
            self.retired
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(old);
        }
    }
    /// The core array, noting that a raw pointer into it leaves for a consumer that keeps
    /// only this object alive (numpy's `__array_interface__`).
    pub(crate) fn array_for_pointer_export(&self) -> Array {
        self.pointer_exported.store(true, Ordering::SeqCst);
        self.array()
    }
}

/// Nested Python lists of `values` in row-major order over `shape`.
fn nested_list<'py>(
    py: Python<'py>,
    shape: &[usize],
    values: &[Scalar],
) -> PyResult<Bound<'py, PyAny>> {
    match shape.split_first() {
        None => scalar_to_py(py, values[0]),
        Some((&n, rest)) => {
            let inner: usize = rest.iter().product();
            let items = (0..n)
                .map(|i| nested_list(py, rest, &values[i * inner..(i + 1) * inner]))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, items)?.into_any())
        }
    }
}

#[pymethods]
impl PyArray {
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.array().shape())
    }
    #[getter]
    fn ndim(&self) -> usize {
        self.array().ndim()
    }
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(dtype_to_numpy(py, self.array().dtype())?.into_any())
    }
    #[getter]
    fn itemsize(&self) -> usize {
        self.array().itemsize()
    }
    fn numel(&self) -> usize {
        self.array().numel()
    }
    fn __len__(&self) -> PyResult<usize> {
        self.array()
            .shape()
            .first()
            .copied()
            .ok_or_else(|| pyo3::exceptions::PyTypeError::new_err("len() of a 0-d tensor"))
    }
    /// Element strides, like torch: all of them, or one dim's.
    #[pyo3(signature = (dim=None))]
    fn stride<'py>(&self, py: Python<'py>, dim: Option<i64>) -> PyResult<Bound<'py, PyAny>> {
        no_strides(&self.array())?;
        match dim {
            None => Ok(PyTuple::new(py, self.array().strides())?.into_any()),
            Some(d) => {
                let a = self.array();
                // unlike most dims, a 0-d tensor has no dim 0 or -1 here
                let d = crate::shape::wrap_dim_no_scalar(d, a.ndim())?;
                Ok(a.strides()[d].into_pyobject(py)?.into_any())
            }
        }
    }
    /// Byte strides, like numpy.
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        no_strides(&self.array())?;
        let item = self.array().itemsize() as isize;
        PyTuple::new(py, self.array().strides().iter().map(|s| s * item))
    }
    fn storage_offset(&self) -> isize {
        self.array().storage_offset()
    }
    fn data_ptr(&self) -> usize {
        self.array().data_ptr()
    }
    #[getter]
    fn is_readonly(&self) -> bool {
        self.array().is_readonly()
    }

    // ---- predicates ----

    #[pyo3(signature = (memory_format=PyMemoryFormat::contiguous_format))]
    fn is_contiguous(&self, memory_format: PyMemoryFormat) -> PyResult<bool> {
        Ok(self.array().is_contiguous_as(memory_format.into())?)
    }
    /// (a blocked array is not: its padding lanes lie between its elements)
    fn is_non_overlapping_and_dense(&self) -> bool {
        let a = self.array();
        a.blocking().is_none() && a.layout().is_non_overlapping_and_dense()
    }
    #[pyo3(signature = (exact_match=false))]
    fn suggest_memory_format(&self, exact_match: bool) -> PyMemoryFormat {
        self.array().suggest_memory_format(exact_match).into()
    }
    #[getter]
    fn memory_format(&self) -> PyMemoryFormat {
        self.array().suggest_memory_format(false).into()
    }

    // ---- views ----

    #[pyo3(signature = (*dims))]
    fn permute(&self, dims: &Bound<'_, PyTuple>) -> PyResult<PyArray> {
        Ok(self.array().permute(&int_args(dims)?)?.into())
    }
    fn transpose(&self, dim0: i64, dim1: i64) -> PyResult<PyArray> {
        Ok(self.array().transpose(dim0, dim1)?.into())
    }
    #[pyo3(signature = (*sizes))]
    fn expand(&self, sizes: &Bound<'_, PyTuple>) -> PyResult<PyArray> {
        Ok(self.array().expand(&int_args(sizes)?)?.into())
    }
    #[pyo3(signature = (size, stride, storage_offset=None))]
    fn as_strided(
        &self,
        size: Vec<i64>,
        stride: Vec<isize>,
        storage_offset: Option<isize>,
    ) -> PyResult<PyArray> {
        let size = crate::shape::check_sizes(&size)?;
        Ok(self
            .array()
            .as_strided(&size, &stride, storage_offset)?
            .into())
    }
    fn unsqueeze(&self, dim: i64) -> PyResult<PyArray> {
        Ok(self.array().unsqueeze(dim)?.into())
    }
    #[pyo3(signature = (dim=None))]
    fn squeeze(&self, dim: Option<&Bound<'_, PyAny>>) -> PyResult<PyArray> {
        let dims: Option<Vec<i64>> = match dim {
            None => None,
            Some(d) if d.is_none() => None,
            Some(d) => Some(match d.extract::<i64>() {
                Ok(one) => vec![one],
                Err(_) => d.extract()?,
            }),
        };
        Ok(self.array().squeeze(dims.as_deref())?.into())
    }
    #[pyo3(signature = (*shape))]
    fn view(&self, shape: &Bound<'_, PyTuple>) -> PyResult<PyArray> {
        Ok(self.array().view(&int_args(shape)?)?.into())
    }
    /// `expand` with numpy's name (`-1` keeps a size, as in torch.broadcast_to).
    fn broadcast_to(&self, shape: Vec<i64>) -> PyResult<PyArray> {
        Ok(self.array().expand(&shape)?.into())
    }
    /// `a[key]`: a view for ints, slices, `...` and `None`; a gathered copy when the key
    /// holds index arrays or masks (`array_surface.rs`).
    fn __getitem__(slf: &Bound<'_, Self>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Some(gathered) = super::array_surface::getitem_advanced(slf, key)? {
            return Ok(gathered);
        }
        let a = slf.get().array();
        let view = match index_key(key)? {
            IndexKey::Tuple(items) => a.index(&items)?,
            IndexKey::Bare(item) => a.index_bare(item)?,
        };
        Ok(Py::new(slf.py(), PyArray::from(view))?.into_any())
    }

    /// The physical storage of an array in a blocked format as a plain strided array over
    /// the same memory: `(N, ⌈C/b⌉, H, W, b)` (or `(N, ⌈C/b⌉, D, H, W, b)`), padding lanes
    /// included. Writing through it writes the blocked array (keep the padding zero).
    fn blocked_view(&self) -> PyResult<PyArray> {
        let a = self.array();
        if a.blocking().is_none() {
            return Err(crate::Error::value(
                "blocked_view() needs an array in a blocked memory format (nChw8c, nChw16c, nCdhw8c, nCdhw16c)",
            )
            .into());
        }
        Ok(a.physical().into())
    }

    // ---- interop ----

    /// A zero-copy numpy view sharing this array's memory.
    fn numpy<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        numpy_bridge::to_numpy(slf)
    }
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        slf: &Bound<'py, Self>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let view = numpy_bridge::to_numpy(slf)?;
        let wants_cast = dtype.is_some_and(|d| !d.is_none());
        if wants_cast || copy == Some(true) {
            let np = slf.py().import("numpy")?;
            let kwargs = pyo3::types::PyDict::new(slf.py());
            kwargs.set_item("dtype", dtype)?;
            kwargs.set_item("copy", copy)?;
            return np.getattr("asarray")?.call((view,), Some(&kwargs));
        }
        Ok(view)
    }
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let values = self.array().to_scalars()?;
        if values.is_empty() {
            let rest: Vec<usize> = self.array().shape().to_vec();
            return empty_nested(py, &rest);
        }
        nested_list(py, self.array().shape(), &values)
    }
    fn item<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        scalar_to_py(py, self.array().item()?)
    }
    /// torch-like: the values (numpy's printing, nested brackets), then the dtype.
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let py = slf.py();
        let a = slf.get().array();
        let prefix = "ferroiter.Array(";
        let values = match numpy_bridge::to_numpy(slf) {
            Ok(nd) => {
                let kwargs = pyo3::types::PyDict::new(py);
                kwargs.set_item("separator", ", ")?;
                kwargs.set_item("prefix", prefix)?;
                kwargs.set_item("threshold", 1000)?;
                py.import("numpy")?
                    .call_method("array2string", (nd,), Some(&kwargs))?
                    .to_string()
            }
            Err(_) => Self::tolist(slf.get(), py)?.repr()?.to_string(),
        };
        Ok(format!("{prefix}{values}, dtype={})", a.dtype()))
    }
}

/// torch's refusal for tensors without strides (its mkldnn tensors), pointing at the way in.
fn no_strides(a: &Array) -> PyResult<()> {
    match a.blocking() {
        Some(b) => Err(crate::Error::value(format!(
            "an array in the blocked format {} does not have strides per dim; blocked_view() gives its physical strided view",
            b.format().name()
        ))
        .into()),
        None => Ok(()),
    }
}

/// `tolist()` of an empty array: nested empty lists down to the first zero-size dim.
fn empty_nested<'py>(py: Python<'py>, shape: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    match shape.split_first() {
        Some((&n, rest)) if n > 0 => {
            let items = (0..n)
                .map(|_| empty_nested(py, rest))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, items)?.into_any())
        }
        _ => Ok(PyList::empty(py).into_any()),
    }
}
