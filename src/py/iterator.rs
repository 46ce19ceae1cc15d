//! `TensorIteratorConfig` and `TensorIterator` for Python: torch's builder names, each call
//! changing the config in place and returning it so calls chain.

use super::convert::{arg, dtype_to_numpy};
use super::ops::call_core;
use super::PyArray;
use crate::exec::chunks::GRAIN_SIZE;
use crate::kernels::Arg;
use crate::plan::{FastSetup, Input, TensorIterator, TensorIteratorConfig};
use crate::Array;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// The operands of one config, converted once per Python object, with each one's identity:
/// torch's `is_same` is tensor identity, and a Python object is the closest thing to a tensor
/// (`x` passed twice is one tensor; `x` and `x[:]` are two). Python numbers are never the same
/// as anything (torch wraps each in a new tensor). The objects are kept alive so that their
/// identities stay unique until the build.
#[derive(Default)]
struct Operands {
    ids: Vec<Option<usize>>,
    keep: Vec<Py<PyAny>>,
    converted: Vec<(usize, Array)>,
}

impl Operands {
    /// An operand (an Array, a numpy array or a Python number: a wrapped 0-d array).
    fn input(&mut self, obj: &Bound<'_, PyAny>, is_const: bool) -> PyResult<Input> {
        let id = obj.as_ptr() as usize;
        let array = match self.converted.iter().find(|(k, _)| *k == id) {
            Some((_, seen)) => seen.clone(),
            None => match arg(obj)? {
                Arg::Scalar(s) => {
                    self.ids.push(None);
                    return Ok(Input::wrapped(s)?);
                }
                Arg::Array(a) => {
                    self.keep.push(obj.clone().unbind());
                    self.converted.push((id, a.clone()));
                    a
                }
            },
        };
        self.ids.push(Some(id));
        Ok(Input {
            is_const,
            ..Input::array(array)
        })
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

/// Builds a config with the GIL released.
fn build(py: Python<'_>, config: TensorIteratorConfig) -> PyResult<PyIterator> {
    Ok(PyIterator {
        inner: call_core(py, move || config.build())?,
        copy: false,
    })
}

/// One of torch's presets over Python operands: `make` gets the converted output and inputs.
fn preset(
    py: Python<'_>,
    out: Option<&Bound<'_, PyAny>>,
    inputs: &[&Bound<'_, PyAny>],
    make: impl FnOnce(Option<Array>, Vec<Input>) -> TensorIteratorConfig,
) -> PyResult<PyIterator> {
    let mut ops = Operands::default();
    let out = ops.output(out)?;
    let inputs = inputs
        .iter()
        .map(|obj| ops.input(obj, false))
        .collect::<PyResult<Vec<_>>>()?;
    build(py, ops.declare(make(out, inputs)))
}

/// A config flag setter: sets torch's flag (default `True`) and returns the config.
macro_rules! flag_setters {
    ($($flag:ident),* $(,)?) => {
        #[pymethods]
        impl PyConfig {
            $(
                #[pyo3(signature = (value=true))]
                fn $flag(mut slf: PyRefMut<'_, Self>, value: bool) -> PyRefMut<'_, Self> {
                    slf.inner.$flag(value);
                    slf
                }
            )*
        }
    };
}
flag_setters!(
    resize_outputs,
    check_mem_overlap,
    check_all_same_dtype,
    promote_inputs_to_common_dtype,
    cast_common_dtype_to_outputs,
    enforce_safe_casting_to_output,
    promote_integer_inputs_to_float,
    is_reduction,
    enforce_linear_iteration,
);

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
        let out = slf.operands.output(output)?;
        slf.inner.try_add_output(out)?;
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
    fn build(&self, py: Python<'_>) -> PyResult<PyIterator> {
        build(py, self.operands.declare(self.inner.clone()))
    }
}

/// A built iteration plan (dim 0 is the fastest dim; strides in bytes).
#[pyclass(name = "TensorIterator", module = "ferroiter", frozen)]
pub struct PyIterator {
    inner: TensorIterator,
    /// The plan of `copy_` (`copy_op`): `explain()` tells the walk that copy runs.
    copy: bool,
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
    fn strides<'py>(&self, py: Python<'py>, i: i64) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.strides(operand_index(i)?)?)
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
    fn dtype<'py>(&self, py: Python<'py>, i: i64) -> PyResult<Bound<'py, PyAny>> {
        Ok(dtype_to_numpy(py, self.inner.dtype(operand_index(i)?)?)?.into_any())
    }
    /// Output `i`: the given array, or the one the build allocated.
    fn output(&self, i: i64) -> PyResult<PyArray> {
        Ok(self.inner.output(operand_index(i)?)?.clone().into())
    }
    /// The `(start index, (size0, size1))` 2-D steps of a serial walk over `[begin, end)`.
    #[pyo3(signature = (begin=0, end=None))]
    fn loops<'py>(
        &self,
        py: Python<'py>,
        begin: i64,
        end: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let end = end.map_or(Ok(self.inner.numel()), operand_index)?;
        let steps = self.inner.loops(operand_index(begin)?, end)?;
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
        let threads = num_threads.unwrap_or_else(crate::settings::get_num_threads);
        let explain = if self.copy {
            crate::exec::explain_copy
        } else {
            crate::exec::explain
        };
        Ok(py.detach(|| explain(&self.inner, threads, grain_size))?)
    }
    /// Python-style values (tuples, quoted names, `None`), no Rust debug text.
    fn __repr__(&self) -> String {
        let tuple = |xs: &[usize]| match xs {
            [one] => format!("({one},)"),
            _ => format!(
                "({})",
                xs.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let fast = self
            .inner
            .fast_setup()
            .map_or_else(|| "None".to_string(), |f| format!("'{}'", f.name()));
        format!(
            "ferroiter.TensorIterator(shape={}, perm={}, ntensors={}, noutputs={}, fast_setup={fast})",
            tuple(self.inner.shape()),
            tuple(self.inner.perm()),
            self.inner.ntensors(),
            self.inner.noutputs()
        )
    }

    // ---- torch's presets ----

    #[staticmethod]
    #[pyo3(signature = (out, a, b))]
    fn binary_op(
        py: Python<'_>,
        out: Option<&Bound<'_, PyAny>>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        preset(py, out, &[a, b], |out, i| {
            let [a, b] = two(i);
            TensorIteratorConfig::binary_op(out, a, b)
        })
    }
    #[staticmethod]
    #[pyo3(signature = (out, a, b))]
    fn binary_float_op(
        py: Python<'_>,
        out: Option<&Bound<'_, PyAny>>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        preset(py, out, &[a, b], |out, i| {
            let [a, b] = two(i);
            TensorIteratorConfig::binary_float_op(out, a, b)
        })
    }
    #[staticmethod]
    #[pyo3(signature = (out, a, b))]
    fn comparison_op(
        py: Python<'_>,
        out: Option<&Bound<'_, PyAny>>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        preset(py, out, &[a, b], |out, i| {
            let [a, b] = two(i);
            TensorIteratorConfig::comparison_op(out, a, b)
        })
    }
    #[staticmethod]
    #[pyo3(signature = (out, a))]
    fn unary_op(
        py: Python<'_>,
        out: Option<&Bound<'_, PyAny>>,
        a: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        preset(py, out, &[a], |out, i| {
            let [a] = one(i);
            TensorIteratorConfig::unary_op(out, a.array)
        })
    }
    #[staticmethod]
    #[pyo3(signature = (out, a))]
    fn unary_float_op(
        py: Python<'_>,
        out: Option<&Bound<'_, PyAny>>,
        a: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        preset(py, out, &[a], |out, i| {
            let [a] = one(i);
            TensorIteratorConfig::unary_float_op(out, a.array)
        })
    }
    #[staticmethod]
    fn nullary_op(py: Python<'_>, out: &Bound<'_, PyAny>) -> PyResult<Self> {
        preset(py, None, &[out], |_, i| {
            let [out] = one(i);
            TensorIteratorConfig::nullary_op(out.array)
        })
    }
    #[staticmethod]
    fn reduce_op(py: Python<'_>, out: &Bound<'_, PyAny>, a: &Bound<'_, PyAny>) -> PyResult<Self> {
        preset(py, None, &[out, a], |_, i| {
            let [out, a] = two(i);
            TensorIteratorConfig::reduce_op(out.array, a.array)
        })
    }
    #[staticmethod]
    fn copy_op(py: Python<'_>, dst: &Bound<'_, PyAny>, src: &Bound<'_, PyAny>) -> PyResult<Self> {
        let plan = preset(py, None, &[dst, src], |_, i| {
            let [dst, src] = two(i);
            TensorIteratorConfig::copy_op(dst.array, src.array)
        })?;
        Ok(PyIterator { copy: true, ..plan })
    }
}

/// An index from Python: a negative one is an IndexError (not the conversion's OverflowError);
/// the core checks the upper end.
fn operand_index(i: i64) -> PyResult<usize> {
    usize::try_from(i)
        .map_err(|_| pyo3::exceptions::PyIndexError::new_err(format!("index {i} is negative")))
}

/// The converted operands of a one-operand preset (`preset` converts exactly as many as it is
/// given).
fn one(inputs: Vec<Input>) -> [Input; 1] {
    inputs
        .try_into()
        .unwrap_or_else(|_| unreachable!("one operand"))
}

/// The converted operands of a two-operand preset.
fn two(inputs: Vec<Input>) -> [Input; 2] {
    inputs
        .try_into()
        .unwrap_or_else(|_| unreachable!("two operands"))
}
