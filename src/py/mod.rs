//! The PyO3 layer: converts arguments, calls the core, converts results. No layout logic lives
//! here; each core `Error` kind maps to one Python exception class.

mod array;
mod array_surface;
mod buffer;
mod config;
mod convert;
mod dlpack;
mod functions;
mod iterator;
mod linalg;
mod manipulation;
mod numpy_bridge;
mod ops;
mod reductions;
mod sorting;
mod standard;
mod user_kernels;

pub use array::PyArray;

use crate::error::{Error, ErrorKind};
use crate::MemoryFormat;
use pyo3::exceptions::{PyIndexError, PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;

/// The one place a core error becomes a Python exception: its kind picks the class, its
/// `Display` (torch's text) is the message.
impl From<Error> for PyErr {
    fn from(err: Error) -> PyErr {
        let msg = err.to_string();
        match err.kind() {
            ErrorKind::Value => PyValueError::new_err(msg),
            ErrorKind::Type => PyTypeError::new_err(msg),
            ErrorKind::Index => PyIndexError::new_err(msg),
            ErrorKind::Memory => PyMemoryError::new_err(msg),
        }
    }
}

/// `ferroiter.MemoryFormat`: how a 4-D/5-D array orders its dims in memory.
#[pyclass(
    name = "MemoryFormat",
    module = "ferroiter",
    eq,
    frozen,
    hash,
    from_py_object
)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[allow(non_camel_case_types)]
pub enum PyMemoryFormat {
    contiguous_format,
    channels_last,
    channels_last_3d,
    preserve_format,
    nChw8c,
    nChw16c,
    nCdhw8c,
    nCdhw16c,
}

#[pymethods]
impl PyMemoryFormat {
    fn __repr__(&self) -> String {
        format!("ferroiter.{}", MemoryFormat::from(*self).name())
    }
}

impl From<PyMemoryFormat> for MemoryFormat {
    fn from(f: PyMemoryFormat) -> Self {
        match f {
            PyMemoryFormat::contiguous_format => MemoryFormat::Contiguous,
            PyMemoryFormat::channels_last => MemoryFormat::ChannelsLast,
            PyMemoryFormat::channels_last_3d => MemoryFormat::ChannelsLast3d,
            PyMemoryFormat::preserve_format => MemoryFormat::Preserve,
            PyMemoryFormat::nChw8c => MemoryFormat::NChw8c,
            PyMemoryFormat::nChw16c => MemoryFormat::NChw16c,
            PyMemoryFormat::nCdhw8c => MemoryFormat::NCdhw8c,
            PyMemoryFormat::nCdhw16c => MemoryFormat::NCdhw16c,
        }
    }
}

impl From<MemoryFormat> for PyMemoryFormat {
    fn from(f: MemoryFormat) -> Self {
        match f {
            MemoryFormat::Contiguous => PyMemoryFormat::contiguous_format,
            MemoryFormat::ChannelsLast => PyMemoryFormat::channels_last,
            MemoryFormat::ChannelsLast3d => PyMemoryFormat::channels_last_3d,
            MemoryFormat::Preserve => PyMemoryFormat::preserve_format,
            MemoryFormat::NChw8c => PyMemoryFormat::nChw8c,
            MemoryFormat::NChw16c => PyMemoryFormat::nChw16c,
            MemoryFormat::NCdhw8c => PyMemoryFormat::nCdhw8c,
            MemoryFormat::NCdhw16c => PyMemoryFormat::nCdhw16c,
        }
    }
}

#[pymodule]
fn _ferroiter(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyArray>()?;
    m.add_class::<PyMemoryFormat>()?;
    m.add_class::<iterator::PyConfig>()?;
    m.add_class::<iterator::PyIterator>()?;
    m.add("GRAIN_SIZE", crate::exec::chunks::GRAIN_SIZE)?;
    m.add("contiguous_format", PyMemoryFormat::contiguous_format)?;
    m.add("channels_last", PyMemoryFormat::channels_last)?;
    m.add("channels_last_3d", PyMemoryFormat::channels_last_3d)?;
    m.add("preserve_format", PyMemoryFormat::preserve_format)?;
    m.add("nChw8c", PyMemoryFormat::nChw8c)?;
    m.add("nChw16c", PyMemoryFormat::nChw16c)?;
    m.add("nCdhw8c", PyMemoryFormat::nCdhw8c)?;
    m.add("nCdhw16c", PyMemoryFormat::nCdhw16c)?;
    functions::register(m)?;
    config::register(m)?;
    ops::register(m)?;
    array_surface::register(m)?;
    reductions::register(m)?;
    sorting::register(m)?;
    linalg::register(m)?;
    manipulation::register(m)?;
    standard::register(m)?;
    user_kernels::register(m)?;
    // PyO3 keeps an `__all__` as names are added. The package computes its own from the
    // public names (python/ferroiter/__init__.py), and without one here the stub needs none:
    // each function is written once in it, where it is defined.
    m.delattr("__all__")?;
    Ok(())
}
mod array_methods;
