//! DLPack both ways, natively (every ferroiter dtype, bfloat16 and bool included, which numpy's
//! DLPack cannot carry): `Array.__dlpack__` exports a capsule (`dltensor`, or
//! `dltensor_versioned` when the consumer asks for version 1 with `max_version`), and
//! `from_dlpack` imports any producer's capsule as a zero-copy Array.
//!
//! One of the binding's `unsafe` modules (README): the C structs of `dlpack.h` (v1.0) are
//! declared here, and every raw read of a producer's struct is checked (device, dtype, rank,
//! version, alignment) before an Array is made of it.

use super::PyArray;
use crate::error::Error;
use crate::layout::Layout;
use crate::storage::Storage;
use crate::{Array, DType};
use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyDict, PyTuple};
use std::ffi::{c_void, CStr};
use std::ptr::NonNull;

const DL_CPU: i32 = 1;
const DL_INT: u8 = 0;
const DL_UINT: u8 = 1;
const DL_FLOAT: u8 = 2;
const DL_BFLOAT: u8 = 4;
const DL_COMPLEX: u8 = 5;
const DL_BOOL: u8 = 6;
/// `DLPACK_FLAG_BITMASK_READ_ONLY`.
const FLAG_READ_ONLY: u64 = 1;
/// `DLPACK_FLAG_BITMASK_IS_COPIED`.
const FLAG_IS_COPIED: u64 = 1 << 1;
/// The DLPack version this module speaks.
const VERSION: (u32, u32) = (1, 0);

const NAME: &CStr = c"dltensor";
const NAME_VERSIONED: &CStr = c"dltensor_versioned";
const USED: &CStr = c"used_dltensor";
const USED_VERSIONED: &CStr = c"used_dltensor_versioned";

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

#[repr(C)]
struct DLPackVersion {
    major: u32,
    minor: u32,
}

#[repr(C)]
struct DLManagedTensorVersioned {
    version: DLPackVersion,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    flags: u64,
    dl_tensor: DLTensor,
}

fn dl_dtype(dtype: DType) -> DLDataType {
    let code = match dtype {
        DType::Bool => DL_BOOL,
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => DL_UINT,
        DType::I8 | DType::I16 | DType::I32 | DType::I64 => DL_INT,
        DType::F16 | DType::F32 | DType::F64 => DL_FLOAT,
        DType::BF16 => DL_BFLOAT,
        DType::ComplexHalf | DType::C64 | DType::C128 => DL_COMPLEX,
    };
    DLDataType {
        code,
        bits: (dtype.itemsize() * 8) as u8,
        lanes: 1,
    }
}

fn from_dl_dtype(t: DLDataType) -> PyResult<DType> {
    let dtype = match (t.code, t.bits, t.lanes) {
        (DL_BOOL, 8, 1) => DType::Bool,
        (DL_UINT, 8, 1) => DType::U8,
        (DL_UINT, 16, 1) => DType::U16,
        (DL_UINT, 32, 1) => DType::U32,
        (DL_UINT, 64, 1) => DType::U64,
        (DL_INT, 8, 1) => DType::I8,
        (DL_INT, 16, 1) => DType::I16,
        (DL_INT, 32, 1) => DType::I32,
        (DL_INT, 64, 1) => DType::I64,
        (DL_FLOAT, 16, 1) => DType::F16,
        (DL_BFLOAT, 16, 1) => DType::BF16,
        (DL_FLOAT, 32, 1) => DType::F32,
        (DL_FLOAT, 64, 1) => DType::F64,
        (DL_COMPLEX, 64, 1) => DType::C64,
        (DL_COMPLEX, 128, 1) => DType::C128,
        _ => {
            return Err(PyBufferError::new_err(format!(
                "from_dlpack: ferroiter has no dtype for DLPack type code {}, {} bits, {} lanes",
                t.code, t.bits, t.lanes
            )))
        }
    };
    Ok(dtype)
}

/// What an exported capsule owns: the array (so its storage outlives the consumer's use) and
/// the shape and strides arrays the DLTensor points into.
struct Export {
    _array: Array,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

/// The struct a capsule points to, with its owner behind `manager_ctx`.
fn dl_tensor(array: &Array, export: &mut Export) -> DLTensor {
    DLTensor {
        data: array.data_ptr() as *mut c_void,
        device: DLDevice {
            device_type: DL_CPU,
            device_id: 0,
        },
        ndim: array.ndim() as i32,
        dtype: dl_dtype(array.dtype()),
        shape: export.shape.as_mut_ptr(),
        strides: export.strides.as_mut_ptr(),
        byte_offset: 0,
    }
}

fn export_of(array: &Array) -> Box<Export> {
    Box::new(Export {
        _array: array.clone(),
        shape: array.shape().iter().map(|&s| s as i64).collect(),
        strides: array.strides().iter().map(|&s| s as i64).collect(),
    })
}

/// The deleter of an unversioned capsule this module made.
unsafe extern "C" fn delete_unversioned(managed: *mut DLManagedTensor) {
    if managed.is_null() {
        return;
    }
    // SAFETY: `managed` came from `Box::into_raw` in `export` together with its `Export`
    // context; the DLPack contract calls the deleter once.
    unsafe {
        let managed = Box::from_raw(managed);
        drop(Box::from_raw(managed.manager_ctx as *mut Export));
    }
}

/// The deleter of a versioned capsule this module made.
unsafe extern "C" fn delete_versioned(managed: *mut DLManagedTensorVersioned) {
    if managed.is_null() {
        return;
    }
    // SAFETY: as `delete_unversioned`.
    unsafe {
        let managed = Box::from_raw(managed);
        drop(Box::from_raw(managed.manager_ctx as *mut Export));
    }
}

/// A capsule's destructor: if no consumer renamed it to `used_…` (took ownership), the tensor
/// is still ours to delete.
unsafe extern "C" fn capsule_destructor(capsule: *mut ffi::PyObject) {
    // SAFETY: called by Python with a live capsule and the GIL held. `PyCapsule_IsValid`
    // sets no error; a valid pointer under our names is a struct we made with its deleter.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, NAME.as_ptr()) == 1 {
            let managed = ffi::PyCapsule_GetPointer(capsule, NAME.as_ptr()) as *mut DLManagedTensor;
            if let Some(deleter) = (*managed).deleter {
                deleter(managed);
            }
        } else if ffi::PyCapsule_IsValid(capsule, NAME_VERSIONED.as_ptr()) == 1 {
            let managed = ffi::PyCapsule_GetPointer(capsule, NAME_VERSIONED.as_ptr())
                as *mut DLManagedTensorVersioned;
            if let Some(deleter) = (*managed).deleter {
                deleter(managed);
            }
        }
    }
}

/// `(major, minor)` from a `max_version` argument.
fn parse_version(obj: &Bound<'_, PyAny>) -> PyResult<(u32, u32)> {
    obj.extract::<(u32, u32)>().map_err(|_| {
        PyTypeError::new_err("__dlpack__: max_version must be a tuple (major, minor) of ints")
    })
}

/// `Array.__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)`.
pub fn export<'py>(
    slf: &Bound<'py, PyArray>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyCapsule>> {
    let py = slf.py();
    let get = |key: &str| -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(match kwargs {
            Some(k) => k.get_item(key)?.filter(|v| !v.is_none()),
            None => None,
        })
    };
    if let Some(k) = kwargs {
        for key in k.keys() {
            let key: String = key.extract()?;
            if !["stream", "max_version", "dl_device", "copy"].contains(&key.as_str()) {
                return Err(PyTypeError::new_err(format!(
                    "__dlpack__() got an unexpected keyword argument '{key}'"
                )));
            }
        }
    }
    if let Some(stream) = get("stream")? {
        // CPU arrays have no streams; the array API lets consumers pass -1 ("no sync")
        if stream.extract::<i64>().ok() != Some(-1) {
            return Err(PyValueError::new_err(
                "__dlpack__: stream must be None for CPU arrays",
            ));
        }
    }
    if let Some(device) = get("dl_device")? {
        let (kind, id): (i32, i32) = device.extract()?;
        if (kind, id) != (DL_CPU, 0) {
            return Err(PyBufferError::new_err(format!(
                "__dlpack__: ferroiter arrays live on the CPU (device (1, 0)); cannot export to device ({kind}, {id})"
            )));
        }
    }
    let versioned = match get("max_version")? {
        Some(v) => parse_version(&v)?.0 >= 1,
        None => false,
    };
    let mut array = slf.get().array();
    array.refuse_blocked("DLPack exports")?;
    let mut flags = 0;
    if let Some(copy) = get("copy")? {
        if copy.extract::<bool>()? {
            let a = array.clone();
            array = super::ops::call_core(py, || {
                crate::kernels::copy::converted_copy(&a, None, crate::MemoryFormat::Preserve)
            })?;
            flags |= FLAG_IS_COPIED;
        }
    }
    // Negative strides are legal DLPack, but torch's importer aborts the process on them:
    // refuse them here with an error one can act on.
    if array.strides().iter().any(|&s| s < 0) {
        return Err(PyBufferError::new_err(
            "__dlpack__ of an array with negative strides is refused (some importers, torch's among them, crash on them); call .contiguous() first",
        ));
    }
    if array.is_readonly() {
        if !versioned {
            return Err(PyBufferError::new_err(
                "Cannot export a read-only array through an unversioned DLPack capsule (it cannot signal read-only); pass max_version=(1, 0) or copy=True",
            ));
        }
        flags |= FLAG_READ_ONLY;
    }
    let mut owner = export_of(&array);
    let tensor = dl_tensor(&array, &mut owner);
    let ctx = Box::into_raw(owner) as *mut c_void;
    if versioned {
        let managed = Box::into_raw(Box::new(DLManagedTensorVersioned {
            version: DLPackVersion {
                major: VERSION.0,
                minor: VERSION.1,
            },
            manager_ctx: ctx,
            deleter: Some(delete_versioned),
            flags,
            dl_tensor: tensor,
        }));
        // SAFETY: `managed` is a valid, owned struct; the capsule destructor deletes it unless
        // a consumer takes it (renaming the capsule), and on failure we delete it here.
        unsafe {
            let ptr = NonNull::new_unchecked(managed as *mut c_void);
            PyCapsule::new_with_pointer_and_destructor(
                py,
                ptr,
                NAME_VERSIONED,
                Some(capsule_destructor),
            )
            .inspect_err(|_| delete_versioned(managed))
        }
    } else {
        let managed = Box::into_raw(Box::new(DLManagedTensor {
            dl_tensor: tensor,
            manager_ctx: ctx,
            deleter: Some(delete_unversioned),
        }));
        // SAFETY: as above.
        unsafe {
            let ptr = NonNull::new_unchecked(managed as *mut c_void);
            PyCapsule::new_with_pointer_and_destructor(py, ptr, NAME, Some(capsule_destructor))
                .inspect_err(|_| delete_unversioned(managed))
        }
    }
}

/// The consumer's hold on an imported tensor: calls the producer's deleter when the last
/// Array over it goes away.
enum Imported {
    Unversioned(*mut DLManagedTensor),
    Versioned(*mut DLManagedTensorVersioned),
}

// SAFETY: DLPack requires deleters to be callable from any thread; the pointer is only used
// to call the deleter once, on drop.
unsafe impl Send for Imported {}
// SAFETY: shared references never touch the pointer.
unsafe impl Sync for Imported {}

impl Drop for Imported {
    fn drop(&mut self) {
        // SAFETY: we took ownership of the managed tensor from a capsule (renamed `used_…`),
        // so calling its deleter once here is the DLPack contract.
        unsafe {
            match *self {
                Imported::Unversioned(m) => {
                    if let Some(d) = (*m).deleter {
                        d(m)
                    }
                }
                Imported::Versioned(m) => {
                    if let Some(d) = (*m).deleter {
                        d(m)
                    }
                }
            }
        }
    }
}

/// A capsule's name, or an error naming what it is.
fn capsule_name(capsule: &Bound<'_, PyCapsule>) -> PyResult<String> {
    match capsule.name()? {
        // SAFETY: the name is read at once while we hold the GIL and the capsule.
        Some(name) => Ok(unsafe { name.as_cstr() }.to_string_lossy().into_owned()),
        None => Ok(String::new()),
    }
}

/// `from_dlpack(obj)`: a zero-copy Array of a DLPack producer (anything with `__dlpack__`) or
/// of a capsule.
pub fn import(obj: &Bound<'_, PyAny>) -> PyResult<Array> {
    let capsule = if let Ok(c) = obj.cast::<PyCapsule>() {
        c.clone()
    } else if obj.hasattr("__dlpack__")? {
        if obj.hasattr("__dlpack_device__")? {
            let (kind, id): (i32, i32) = obj.call_method0("__dlpack_device__")?.extract()?;
            if kind != DL_CPU {
                return Err(PyBufferError::new_err(format!(
                    "from_dlpack: ferroiter reads CPU memory only, but the producer lives on DLPack device ({kind}, {id}); move it to the CPU first"
                )));
            }
        }
        let kwargs = PyDict::new(obj.py());
        kwargs.set_item("max_version", (VERSION.0, VERSION.1))?;
        let produced = match obj.call_method("__dlpack__", (), Some(&kwargs)) {
            Ok(c) => c,
            Err(e) if e.is_instance_of::<PyTypeError>(obj.py()) => {
                obj.call_method0("__dlpack__")?
            }
            Err(e) => return Err(e),
        };
        produced.cast_into::<PyCapsule>().map_err(|_| {
            PyTypeError::new_err("from_dlpack: __dlpack__() did not return a capsule")
        })?
    } else {
        return Err(PyTypeError::new_err(format!(
            "from_dlpack: expected an object with __dlpack__ or a DLPack capsule, got {}",
            obj.get_type().name()?
        )));
    };
    let name = capsule_name(&capsule)?;
    let versioned = match name.as_str() {
        "dltensor" => false,
        "dltensor_versioned" => true,
        "used_dltensor" | "used_dltensor_versioned" => {
            return Err(PyValueError::new_err(
                "from_dlpack: this DLPack capsule was already consumed (a capsule can be imported only once)",
            ))
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "from_dlpack: expected a capsule named 'dltensor' or 'dltensor_versioned', got '{other}'"
            )))
        }
    };
    let ptr = capsule.pointer_checked(Some(if versioned { NAME_VERSIONED } else { NAME }))?;
    // SAFETY: a capsule under a DLPack name points to the matching managed-tensor struct,
    // valid until its deleter runs; nothing runs Python code between here and the rename.
    let (tensor, read_only, owner) = unsafe {
        if versioned {
            let m = ptr.as_ptr() as *mut DLManagedTensorVersioned;
            let version = &(*m).version;
            if version.major > VERSION.0 {
                return Err(PyBufferError::new_err(format!(
                    "from_dlpack: DLPack version {}.{} is newer than the {}.{} ferroiter reads",
                    version.major, version.minor, VERSION.0, VERSION.1
                )));
            }
            (
                &(*m).dl_tensor as *const DLTensor,
                (*m).flags & FLAG_READ_ONLY != 0,
                Imported::Versioned(m),
            )
        } else {
            let m = ptr.as_ptr() as *mut DLManagedTensor;
            (
                &(*m).dl_tensor as *const DLTensor,
                false,
                Imported::Unversioned(m),
            )
        }
    };
    // SAFETY: `tensor` points into the live managed struct (see above).
    let layout = unsafe { checked_layout(&*tensor) };
    let (dtype, shape, strides, data) = match layout {
        Ok(parts) => parts,
        // not consumed: the capsule (still named as before) deletes it
        Err(e) => {
            std::mem::forget(owner);
            return Err(e);
        }
    };
    // Consume: from here the deleter is ours to call (through `owner`).
    let used = if versioned { USED_VERSIONED } else { USED };
    // SAFETY: a live capsule; `used` is a static C string.
    if unsafe { ffi::PyCapsule_SetName(capsule.as_ptr(), used.as_ptr()) } != 0 {
        std::mem::forget(owner);
        return Err(PyErr::fetch(obj.py()));
    }
    let itemsize = dtype.itemsize() as isize;
    let (lo, hi) = crate::strides::offset_span(&shape, &strides).unwrap_or((0, -1));
    let nbytes = ((hi - lo + 1) * itemsize) as usize;
    // SAFETY: `lo` is the (non-positive) element offset of the lowest element the tensor
    // addresses, so `data + lo·itemsize` is inside the producer's buffer (or `data` itself
    // when the tensor is empty).
    let base = unsafe { data.offset(lo * itemsize) };
    let base = NonNull::new(base).unwrap_or(NonNull::dangling());
    // SAFETY: `base..base + nbytes` are exactly the bytes the tensor addresses, valid (and
    // writable unless flagged read-only) until its deleter runs, which `owner` calls on drop.
    let storage = unsafe { Storage::from_external(base, nbytes, !read_only, Box::new(owner)) };
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

type Parts = (DType, Vec<usize>, Vec<isize>, *mut u8);

/// Device, dtype, shape, strides and data pointer of a producer's DLTensor, checked.
///
/// # Safety
/// `t` must be a live DLTensor whose `shape` (and `strides`, unless null) hold `ndim` entries.
unsafe fn checked_layout(t: &DLTensor) -> PyResult<Parts> {
    if t.device.device_type != DL_CPU {
        return Err(PyBufferError::new_err(format!(
            "from_dlpack: ferroiter reads CPU memory only, but the capsule's tensor lives on DLPack device ({}, {}); move it to the CPU first",
            t.device.device_type, t.device.device_id
        )));
    }
    let dtype = from_dl_dtype(t.dtype)?;
    let ndim = usize::try_from(t.ndim)
        .map_err(|_| PyValueError::new_err("from_dlpack: negative ndim in the capsule"))?;
    if ndim > 0 && t.shape.is_null() {
        return Err(PyValueError::new_err(
            "from_dlpack: the capsule has no shape",
        ));
    }
    let raw_shape: &[i64] = if ndim == 0 {
        &[]
    } else {
        // SAFETY: non-null, `ndim` entries (caller's contract).
        unsafe { std::slice::from_raw_parts(t.shape, ndim) }
    };
    let shape = crate::shape::check_sizes(raw_shape).map_err(PyErr::from)?;
    let strides: Vec<isize> = if t.strides.is_null() || ndim == 0 {
        crate::memory_format::format_strides(&shape, crate::MemoryFormat::Contiguous)
            .map_err(PyErr::from)?
            .to_vec()
    } else {
        // SAFETY: non-null, `ndim` entries (caller's contract).
        unsafe { std::slice::from_raw_parts(t.strides, ndim) }
            .iter()
            .map(|&s| s as isize)
            .collect()
    };
    crate::shape::checked_numel(&shape).map_err(PyErr::from)?;
    let empty = shape.contains(&0);
    let data = (t.data as *mut u8).wrapping_add(t.byte_offset as usize);
    if !empty && t.data.is_null() {
        return Err(PyValueError::new_err(
            "from_dlpack: the capsule's data pointer is null",
        ));
    }
    if !(data as usize).is_multiple_of(dtype.itemsize()) {
        return Err(Error::value(
            "from_dlpack: the tensor's data is not aligned to its item size; copy it first",
        )
        .into());
    }
    Ok((dtype, shape, strides, data))
}

/// `(1, 0)`: CPU, device 0.
pub fn device<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, [DL_CPU, 0])
}
