//! Argument conversion between Python objects and core values: operands (arrays, numpy arrays,
//! Python numbers), dtypes (anything `numpy.dtype()` takes, plus torch dtypes by name), Python
//! scalars, shapes given as varargs or one sequence, and `__getitem__` keys.

use super::{numpy_bridge, PyArray};
use crate::error::Error;
use crate::kernels::Arg;
use crate::{Array, DType, IndexItem, Scalar};
use numpy::{PyArrayDescr, PyUntypedArray};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyComplex, PyEllipsis, PyFloat, PyInt, PyList, PySlice, PyString, PyTuple,
};

/// The one operand converter: an Array, a numpy array (viewed, not copied) or a Python number.
pub fn arg(obj: &Bound<'_, PyAny>) -> PyResult<Arg> {
    if let Ok(a) = obj.cast::<PyArray>() {
        return Ok(Arg::Array(a.get().array()));
    }
    if let Ok(nd) = obj.cast::<PyUntypedArray>() {
        return Ok(Arg::Array(numpy_bridge::from_numpy(nd)?));
    }
    match scalar_from_py(obj) {
        Ok(s) => Ok(Arg::Scalar(s)),
        // an int beyond int64 is a number: say that it overflows, not that it is no number
        Err(e) if obj.is_instance_of::<PyInt>() => Err(e),
        Err(_) => Err(Error::type_(format!(
            "expected a ferroiter.Array, a numpy array or a Python number, got {}",
            obj.get_type().name()?
        ))
        .into()),
    }
}

/// An operand that must be an array (numpy arrays are viewed).
pub fn array_arg(obj: &Bound<'_, PyAny>) -> PyResult<Array> {
    match arg(obj)? {
        Arg::Array(a) => Ok(a),
        Arg::Scalar(_) => Err(Error::type_("expected an array, got a Python number").into()),
    }
}

/// The dtype of a numpy descriptor whose `.name` is `name`; an unsupported one is named as
/// numpy prints it (`<U3`, `datetime64[D]`), and `object` (what numpy makes of `None`,
/// strings mixed with numbers, ints beyond 64 bits) says so.
pub fn numpy_dtype(descr: &Bound<'_, PyAny>, name: &str) -> PyResult<DType> {
    DType::from_name(name).or_else(|_| {
        let shown = descr.str()?.to_string();
        let why = if shown == "object" {
            " (the input holds Python objects that are not numbers: None, strings, or ints beyond 64 bits)"
        } else {
            ""
        };
        Err(Error::type_(format!("ferroiter does not support dtype {shown}{why}")).into())
    })
}

/// An optional dtype argument (`None` and absent are the same).
pub fn optional_dtype(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    match obj {
        Some(d) if !d.is_none() => Ok(Some(dtype_from_py(d)?)),
        _ => Ok(None),
    }
}

/// Parses a user's dtype: ferroiter names first (cheap), then anything `numpy.dtype()` accepts,
/// then torch dtypes (`torch.float32`) by their printed name.
pub fn dtype_from_py(obj: &Bound<'_, PyAny>) -> PyResult<DType> {
    if let Ok(s) = obj.cast::<PyString>() {
        if let Ok(d) = DType::from_name(s.to_str()?) {
            return Ok(d);
        }
    }
    let np = obj.py().import("numpy")?;
    if let Ok(descr) = np.getattr("dtype")?.call1((obj,)) {
        let name: String = descr.getattr("name")?.extract()?;
        return numpy_dtype(&descr, &name);
    }
    let printed = obj.str()?.to_string();
    if let Some(name) = printed.strip_prefix("torch.") {
        return Ok(DType::from_name(name)?);
    }
    Err(Error::type_(format!("cannot interpret {printed} as a dtype")).into())
}

/// The numpy descriptor of a dtype (bfloat16 comes from `ml_dtypes`), cached per dtype.
/// bfloat16's is looked up only when asked for: importing `ml_dtypes` took 0.85-1.2 s (its
/// extension registers its types with numpy), which every first `.dtype` of a process paid
/// when one cache held all the descriptors.
pub fn dtype_to_numpy<'py>(py: Python<'py>, dtype: DType) -> PyResult<Bound<'py, PyArrayDescr>> {
    static CACHE: PyOnceLock<Vec<Option<Py<PyArrayDescr>>>> = PyOnceLock::new();
    static BFLOAT16: PyOnceLock<Option<Py<PyArrayDescr>>> = PyOnceLock::new();
    let np_dtype = |name: &Bound<'py, PyAny>| -> PyResult<Py<PyArrayDescr>> {
        let descr = py.import("numpy")?.getattr("dtype")?.call1((name,))?;
        Ok(descr.cast_into::<PyArrayDescr>()?.unbind())
    };
    let descr = if dtype == DType::BF16 {
        BFLOAT16.get_or_init(py, || {
            py.import("ml_dtypes")
                .and_then(|m| m.getattr("bfloat16"))
                .and_then(|t| np_dtype(&t))
                .ok()
        })
    } else {
        let cache = CACHE.get_or_try_init(py, || -> PyResult<_> {
            DType::ALL
                .iter()
                .map(|&d| match d {
                    DType::BF16 | DType::ComplexHalf => Ok(None),
                    other => np_dtype(PyString::new(py, other.name()).as_any()).map(Some),
                })
                .collect()
        })?;
        let index = DType::ALL.iter().position(|&d| d == dtype).unwrap_or(0);
        &cache[index]
    };
    match descr {
        Some(descr) => Ok(descr.bind(py).clone()),
        None if dtype == DType::BF16 => Err(Error::type_(
            "numpy has no bfloat16 dtype; install ml_dtypes (pip install ml_dtypes) to see bfloat16 arrays in numpy",
        )
        .into()),
        None => Err(Error::type_(format!("numpy cannot represent dtype {dtype}")).into()),
    }
}

/// A Python bool, int, float or complex (or a 0-d numpy value) as a core scalar.
pub fn scalar_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(Scalar::Bool(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Scalar::Int(i));
        }
        // torch takes ints up to 2^64 - 1 (as its uint64 Scalar)
        return obj.extract::<u64>().map(Scalar::UInt).map_err(|_| {
            Error::value(format!(
                "value cannot be converted to type int64 without overflow: {obj}"
            ))
            .into()
        });
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Scalar::Float(obj.extract()?));
    }
    if let Ok(c) = obj.cast::<PyComplex>() {
        return Ok(Scalar::Complex(c.real(), c.imag()));
    }
    // numpy scalars and other number-likes: by what they convert to.
    if let Ok(b) = obj.extract::<bool>() {
        if obj
            .getattr("dtype")
            .and_then(|d| d.getattr("kind"))
            .is_ok_and(|k| k.to_string() == "b")
        {
            return Ok(Scalar::Bool(b));
        }
    }
    if obj.hasattr("__index__")? {
        return scalar_from_py(&obj.call_method0("__index__")?);
    }
    if obj.hasattr("__float__")? {
        return Ok(Scalar::Float(obj.call_method0("__float__")?.extract()?));
    }
    Err(Error::type_(format!("expected a number, got {}", obj.get_type().name()?)).into())
}

/// A core scalar as the Python number of the same kind.
pub fn scalar_to_py<'py>(py: Python<'py>, s: Scalar) -> PyResult<Bound<'py, PyAny>> {
    Ok(match s {
        Scalar::Bool(b) => PyBool::new(py, b).to_owned().into_any(),
        Scalar::Int(i) => i.into_pyobject(py)?.into_any(),
        Scalar::UInt(u) => u.into_pyobject(py)?.into_any(),
        Scalar::Float(f) => f.into_pyobject(py)?.into_any(),
        Scalar::Complex(re, im) => PyComplex::from_doubles(py, re, im).into_any(),
    })
}

/// Integers given either as varargs (`permute(1, 0)`) or as one sequence (`permute((1, 0))`).
pub fn int_args(args: &Bound<'_, PyTuple>) -> PyResult<Vec<i64>> {
    if args.len() == 1 {
        let first = args.get_item(0)?;
        if first.is_instance_of::<PyTuple>() || first.is_instance_of::<PyList>() {
            return first.extract();
        }
    }
    args.extract()
}

/// Whether `obj` is a list or a tuple: an argument that may be an int or a sequence of ints
/// is read as a sequence at once then. (Trying it as an int first raised and formatted a
/// TypeError that was thrown away: 4,300 instructions, a fifth of a small `sum(x, [0])`.)
pub fn is_list_or_tuple(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<PyTuple>() || obj.is_instance_of::<PyList>()
}

/// A shape: a sequence of non-negative ints, or one int.
pub fn shape_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if !is_list_or_tuple(obj) {
        if let Ok(n) = obj.extract::<i64>() {
            return Ok(vec![n]);
        }
    }
    obj.extract::<Vec<i64>>().map_err(|e| {
        let overflow = e.is_instance_of::<pyo3::exceptions::PyOverflowError>(obj.py());
        Error::type_(format!(
            "expected a shape (a sequence of ints), got {}{}",
            obj.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default(),
            if overflow {
                ": a size beyond int64"
            } else {
                ""
            }
        ))
        .into()
    })
}

fn optional_int(obj: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    if obj.is_none() {
        Ok(None)
    } else {
        Ok(Some(obj.call_method0("__index__")?.extract()?))
    }
}

/// One entry of an index key.
fn index_item(obj: &Bound<'_, PyAny>) -> PyResult<IndexItem> {
    if obj.is_none() {
        return Ok(IndexItem::NewAxis);
    }
    if obj.is_instance_of::<PyEllipsis>() {
        return Ok(IndexItem::Ellipsis);
    }
    if let Ok(s) = obj.cast::<PySlice>() {
        return Ok(IndexItem::Slice {
            start: optional_int(&s.getattr("start")?)?,
            stop: optional_int(&s.getattr("stop")?)?,
            step: optional_int(&s.getattr("step")?)?,
        });
    }
    if !obj.is_instance_of::<PyBool>() && obj.hasattr("__index__")? {
        return Ok(IndexItem::Int(obj.call_method0("__index__")?.extract()?));
    }
    Err(Error::index(format!(
        "only integers, slices (`:`), ellipsis (`...`) and None are valid indices (got {})",
        obj.get_type().name()?
    ))
    .into())
}

/// A `__getitem__` key: a tuple of entries, or one bare entry (torch treats the two differently
/// on 0-d tensors).
pub enum IndexKey {
    Tuple(Vec<IndexItem>),
    Bare(IndexItem),
}

pub fn index_key(key: &Bound<'_, PyAny>) -> PyResult<IndexKey> {
    match key.cast::<PyTuple>() {
        Ok(t) => Ok(IndexKey::Tuple(
            t.iter()
                .map(|item| index_item(&item))
                .collect::<PyResult<_>>()?,
        )),
        Err(_) => Ok(IndexKey::Bare(index_item(key)?)),
    }
}
