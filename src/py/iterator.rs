//! `TensorIteratorConfig` and `TensorIterator` for Python: torch's builder names, each call
//! changing the config in place and returning it so calls chain.

use super::convert::{dtype_to_numpy, scalar_from_py};
use super::numpy_bridge;
use super::PyArray;
use crate::exec::chunks::GRAIN_SIZE;
use crate::plan::{FastSetup, Input, TensorIterator, TensorIteratorConfig};
use crate::{Array, DType, MemoryFormat, Scalar};
use numpy::PyUntypedArray;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// An operand from Python: an Array, a numpy array, or a Python number (a wrapped scalar: a
/// 0-d array of int64 / float64 / complex128 / bool that promotes like torch's).
fn input_from_py(obj: &Bound<'_, PyAny>, is_const: bool) -> PyResult<Input> {
    if let Ok(a) = obj.cast::<PyArray>() {
        return Ok(Input {
            array: a.get().inner.clone(),
            is_const,
            is_wrapped_number: false,
        });
    }
    if let Ok(nd) = obj.cast::<PyUntypedArray>() {
        return Ok(Input {
            array: numpy_bridge::from_numpy(nd)?,
            is_const,
            is_wrapped_number: false,
        });
    }
    let value = scalar_from_py(obj)?;
    let dtype = match value {
        Scalar::Bool(_) => DType::Bool,
        Scalar::Int(_) => DType::I64,
        Scalar::Float(_) => DType::F64,
        Scalar::Complex(..) => DType::C128,
    };
    let array = Array::full(&[], value, dtype, MemoryFormat::Contiguous)?;
    Ok(Input {
        array,
        is_const: true,
        is_wrapped_number: true,
    })
}

/// The operands of one config, converted once per Python object, with each one's identity:
/// torch's `is_same` is tensor identity, and a Python object is the closest thing to a tensor
/// (`x` passed twice is one tensor; `x` and `x[:]` are two). Python numbers are never the same
/// as anything (torch wraps each in a new tensor). The objects are kept alive so that their
/// identities stay unique until the build.
#[derive(Default)]
struct Operands {
    ids: Vec<Option<usize>>,
    keep: Vec<Py<PyAny>>,
    converted: Vec<(usize, Input)>,
}

impl Operands {
    fn input(&mut self, obj: &Bound<'_, PyAny>, is_const: bool) -> PyResult<Input> {
        let is_array = obj.cast::<PyArray>().is_ok() || obj.cast::<PyUntypedArray>().is_ok();
        if !is_array {
            self.ids.push(None);
            return input_from_py(obj, is_const);
        }
        let id = obj.as_ptr() as usize;
        self.ids.push(Some(id));
        if let Some((_, seen)) = self.converted.iter().find(|(k, _)| *k == id) {
            return Ok(Input {
                array: seen.array.clone(),
                is_const,
                is_wrapped_number: false,
            });
        }
        let input = input_from_py(obj, is_const)?;
        self.keep.push(obj.clone().unbind());
        self.converted.push((id, input.clone()));
        Ok(input)
    }

    fn output(&mut self, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Array>> {
        match obj {
            Some(o) if !o.is_none() => Ok(Some(self.input(o, false)?.array)),
            _ => {
                self.ids.push(None);
                Ok(None)
            }
        }
    }

    /// The config, told which of its operands are one object.
    fn declare(&self, mut config: TensorIteratorConfig) -> TensorIteratorConfig {
        config.declare_operand_identities(self.ids.clone());
        config
    }
}

/// torch's `TensorIteratorConfig`: add outputs (first), then inputs, set flags, `build()`.
#[pyclass(name = "TensorIteratorConfig", module = "ferroiter")]
pub struct PyConfig {
    inner: TensorIteratorConfig,
    operands: Operands,
}

#[pymethods]
impl PyConfig {
    #[new]
    fn new() -> Self {
        PyConfig {
            inner: TensorIteratorConfig::new(),
            operands: Operands::default(),
        }
    }
    /// Adds an output; `None` asks the build to allocate it. Outputs come before inputs.
    #[pyo3(signature = (output=None))]
    fn add_output<'py>(
        mut slf: PyRefMut<'py, Self>,
        output: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        if slf.inner.ninputs() > 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "Keep in mind that you have to add all outputs first before adding any input.",
            ));
        }
        let out = slf.operands.output(output)?;
        slf.inner.add_output(out);
        Ok(slf)
    }
    fn add_input<'py>(
        mut slf: PyRefMut<'py, Self>,
        input: &Bound<'py, PyAny>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let input = slf.operands.input(input, false)?;
        slf.inner.inputs.push(input);
        Ok(slf)
    }
    fn add_const_input<'py>(
        mut slf: PyRefMut<'py, Self>,
        input: &Bound<'py, PyAny>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let input = slf.operands.input(input, true)?;
        slf.inner.inputs.push(input);
        Ok(slf)
    }
    fn declare_static_dtype<'py>(
        mut slf: PyRefMut<'py, Self>,
        dtype: &Bound<'py, PyAny>,
    ) -> PyResult<PyRefMut<'py, Self>> {
        let d = super::convert::dtype_from_py(dtype)?;
        slf.inner.declare_static_dtype(d);
        Ok(slf)
    }
    fn declare_static_shape(mut slf: PyRefMut<'_, Self>, shape: Vec<usize>) -> PyRefMut<'_, Self> {
        slf.inner.declare_static_shape(&shape);
        slf
    }
    // Flags: each sets one of torch's config flags (default `True`) and returns the config.
    #[pyo3(signature = (value=true))]
    fn resize_outputs(mut slf: PyRefMut<'_, Self>, value: bool) -> PyRefMut<'_, Self> {
        slf.inner.resize_outputs(value);
        slf
    }
    #[pyo3(signature = (value=true))]
    fn check_mem_overlap(mut slf: PyRefMut<'_, Self>, value: bool) -> PyRefMut<'_, Self> {
        slf.inner.check_mem_overlap(value);
        slf
    }
    #[pyo3(signature = (value=true))]
    fn check_all_same_dtype(mut slf: PyRefMut<'_, Self>, value: bool) -> PyRefMut<'_, Self> {
        slf.inner.check_all_same_dtype(value);
        slf
    }
    #[pyo3(signature = (value=true))]
    fn promote_inputs_to_common_dtype(
        mut slf: PyRefMut<'_, Self>,
        value: bool,
    ) -> PyRefMut<'_, Self> {
        slf.inner.promote_inputs_to_common_dtype(value);
        slf
    }
    #[pyo3(signature = (value=true))]
    fn cast_common_dtype_to_outputs(
        mut slf: PyRefMut<'_, Self>,
        value: bool,
    ) -> PyRefMut<'_, Self> {
        slf.inner.cast_common_dtype_to_outputs(value);
        slf
    }
    #[pyo3(signature = (value=true))]
    fn enforce_safe_casting_to_output(
        mut slf: PyRefMut<'_, Self>,
        value: bool,
    ) -> PyRefMut<'_, Self> {
        slf.inner.enforce_safe_casting_to_output(value);
        slf
    }
    #[pyo3(signature = (value=true))]
    fn promote_integer_inputs_to_float(
        mut slf: PyRefMut<'_, Self>,
        value: bool,
    ) -> PyRefMut<'_, Self> {
        slf.inner.promote_integer_inputs_to_float(value);
        slf
    }
    #[pyo3(signature = (value=true))]
    fn is_reduction(mut slf: PyRefMut<'_, Self>, value: bool) -> PyRefMut<'_, Self> {
        slf.inner.is_reduction(value);
        slf
    }
    #[pyo3(signature = (value=true))]
    fn enforce_linear_iteration(mut slf: PyRefMut<'_, Self>, value: bool) -> PyRefMut<'_, Self> {
        slf.inner.enforce_linear_iteration(value);
        slf
    }
    fn build(&self, py: Python<'_>) -> PyResult<PyIterator> {
        let config = self.operands.declare(self.inner.clone());
        Ok(PyIterator {
            inner: py.detach(move || config.build())?,
        })
    }
}

/// A built iteration plan (dim 0 is the fastest dim; strides in bytes).
#[pyclass(name = "TensorIterator", module = "ferroiter", frozen)]
pub struct PyIterator {
    inner: TensorIterator,
}

fn build_preset(config: TensorIteratorConfig) -> PyResult<PyIterator> {
    Ok(PyIterator {
        inner: config.build()?,
    })
}

#[pymethods]
impl PyIterator {
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.shape())
    }
    #[getter]
    fn perm(&self) -> Vec<usize> {
        self.inner.perm().to_vec()
    }
    /// Operand `i`'s byte strides, fastest dim first.
    fn strides<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.strides(i)?)
    }
    #[getter]
    fn ndim(&self) -> usize {
        self.inner.ndim()
    }
    #[getter]
    fn numel(&self) -> usize {
        self.inner.numel()
    }
    #[getter]
    fn ntensors(&self) -> usize {
        self.inner.ntensors()
    }
    #[getter]
    fn noutputs(&self) -> usize {
        self.inner.noutputs()
    }
    #[getter]
    fn fast_setup(&self) -> Option<&'static str> {
        self.inner.fast_setup().map(FastSetup::name)
    }
    #[getter]
    fn common_dtype<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .common_dtype()
            .map(|d| Ok(dtype_to_numpy(py, d)?.into_any()))
            .transpose()
    }
    fn dtype<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        Ok(dtype_to_numpy(py, self.inner.dtype(i)?)?.into_any())
    }
    /// Output `i`: the given array, or the one the build allocated.
    fn output(&self, i: usize) -> PyResult<PyArray> {
        Ok(self.inner.output(i)?.clone().into())
    }
    /// The `(start index, (size0, size1))` 2-D steps of a serial walk over `[begin, end)`.
    #[pyo3(signature = (begin=0, end=None))]
    fn loops<'py>(
        &self,
        py: Python<'py>,
        begin: usize,
        end: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let steps = self.inner.loops(begin, end.unwrap_or(self.inner.numel()))?;
        let items = steps
            .into_iter()
            .map(|(start, step)| (start, step).into_pyobject(py))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    }
    /// A readable trace of every build phase with its numbers, then the inner loop and the
    /// split among threads.
    #[pyo3(signature = (num_threads=None, grain_size=GRAIN_SIZE), text_signature = "(self, num_threads=None, grain_size=32768)")]
    fn explain(
        &self,
        py: Python<'_>,
        num_threads: Option<usize>,
        grain_size: usize,
    ) -> PyResult<String> {
        let threads = num_threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        Ok(py.detach(|| crate::exec::explain(&self.inner, threads, grain_size))?)
    }
    fn __repr__(&self) -> String {
        format!(
            "ferroiter.TensorIterator(shape={:?}, perm={:?}, ntensors={}, fast_setup={:?})",
            self.inner.shape(),
            self.inner.perm(),
            self.inner.ntensors(),
            self.inner.fast_setup().map(FastSetup::name)
        )
    }

    // ---- torch's presets ----

    #[staticmethod]
    #[pyo3(signature = (out, a, b))]
    fn binary_op(
        out: Option<&Bound<'_, PyAny>>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let mut ops = Operands::default();
        let (out, a, b) = (ops.output(out)?, ops.input(a, false)?, ops.input(b, false)?);
        build_preset(ops.declare(TensorIteratorConfig::binary_op(out, a, b)))
    }
    #[staticmethod]
    #[pyo3(signature = (out, a, b))]
    fn binary_float_op(
        out: Option<&Bound<'_, PyAny>>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let mut ops = Operands::default();
        let (out, a, b) = (ops.output(out)?, ops.input(a, false)?, ops.input(b, false)?);
        build_preset(ops.declare(TensorIteratorConfig::binary_float_op(out, a, b)))
    }
    #[staticmethod]
    #[pyo3(signature = (out, a, b))]
    fn comparison_op(
        out: Option<&Bound<'_, PyAny>>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let mut ops = Operands::default();
        let (out, a, b) = (ops.output(out)?, ops.input(a, false)?, ops.input(b, false)?);
        build_preset(ops.declare(TensorIteratorConfig::comparison_op(out, a, b)))
    }
    #[staticmethod]
    #[pyo3(signature = (out, a))]
    fn unary_op(out: Option<&Bound<'_, PyAny>>, a: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut ops = Operands::default();
        let (out, a) = (ops.output(out)?, ops.input(a, false)?.array);
        build_preset(ops.declare(TensorIteratorConfig::unary_op(out, a)))
    }
    #[staticmethod]
    #[pyo3(signature = (out, a))]
    fn unary_float_op(out: Option<&Bound<'_, PyAny>>, a: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut ops = Operands::default();
        let (out, a) = (ops.output(out)?, ops.input(a, false)?.array);
        build_preset(ops.declare(TensorIteratorConfig::unary_float_op(out, a)))
    }
    #[staticmethod]
    fn nullary_op(out: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut ops = Operands::default();
        let out = ops.input(out, false)?.array;
        build_preset(ops.declare(TensorIteratorConfig::nullary_op(out)))
    }
    #[staticmethod]
    fn reduce_op(out: &Bound<'_, PyAny>, a: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut ops = Operands::default();
        let (out, a) = (ops.input(out, false)?.array, ops.input(a, false)?.array);
        build_preset(ops.declare(TensorIteratorConfig::reduce_op(out, a)))
    }
    #[staticmethod]
    fn copy_op(dst: &Bound<'_, PyAny>, src: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut ops = Operands::default();
        let (dst, src) = (ops.input(dst, false)?.array, ops.input(src, true)?.array);
        build_preset(ops.declare(TensorIteratorConfig::copy_op(dst, src)))
    }
}
