//! Users' kernels for Python: `Kernel` (a compiled loop with its declared dtypes), `UserOp`
//! (kernels for several dtypes under one name) and `map`, which runs either on operands.
//! Finding a loop's address in a numba/ctypes/cffi object is the package's Python side
//! (`_kernels.py`); this side converts operands and results and calls the core.

use super::convert::{arg, optional_dtype};
use super::ops::{call_core, finish};
use super::PyArray;
use crate::error::Error;
use crate::exec::ForeignLoop;
use crate::kernels::user::{map_loop, select, Signature};
use crate::kernels::Arg;
use crate::{Array, DType};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A compiled loop in torch's 2-D convention with the dtypes it was written for: made by
/// `ferroiter.loop_kernel` or `@ferroiter.kernel`, run by `ferroiter.map` or by calling it.
#[pyclass(name = "Kernel", module = "ferroiter", frozen)]
pub struct PyKernel {
    kernel: ForeignLoop,
    signature: Signature,
    name: String,
    /// The object that owns the loop's code (a numba cfunc, a ctypes function): kept alive as
    /// long as the kernel.
    owner: Py<PyAny>,
}

#[pymethods]
impl PyKernel {
    /// The declared dtypes, `"float32(float32, float32)"`.
    #[getter]
    fn signature(&self) -> String {
        self.signature.to_string()
    }
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }
    /// The machine address of the loop.
    #[getter]
    fn address(&self) -> usize {
        self.kernel.as_fn() as usize
    }
    /// The object that owns the loop's code.
    #[getter]
    fn owner(&self, py: Python<'_>) -> Py<PyAny> {
        self.owner.clone_ref(py)
    }
    /// Number of inputs.
    #[getter]
    fn nin(&self) -> usize {
        self.signature.inputs().len()
    }
    /// Number of outputs.
    #[getter]
    fn nout(&self) -> usize {
        self.signature.outputs().len()
    }
    /// `kernel(*inputs, out=None, dtype=None)`: `ferroiter.map(kernel, ...)`.
    #[pyo3(signature = (*inputs, out=None, dtype=None))]
    fn __call__(
        slf: &Bound<'_, Self>,
        inputs: &Bound<'_, PyTuple>,
        out: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        run_kernel(slf.py(), slf.get(), inputs, out, dtype)
    }
    fn __repr__(&self) -> String {
        format!("<ferroiter.Kernel {}: {}>", self.name, self.signature)
    }
}

/// Kernels for several dtypes under one name, dispatched on the operands' dtypes (see
/// `kernels::user::select`): what `ferroiter.register` makes.
#[pyclass(name = "UserOp", module = "ferroiter", frozen)]
pub struct PyUserOp {
    name: String,
    kernels: Vec<Py<PyKernel>>,
}

#[pymethods]
impl PyUserOp {
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }
    /// The kernels, in the order dispatch tries them.
    #[getter]
    fn kernels(&self, py: Python<'_>) -> Vec<Py<PyKernel>> {
        self.kernels.iter().map(|k| k.clone_ref(py)).collect()
    }
    /// The kernels' signatures.
    #[getter]
    fn signatures(&self) -> Vec<String> {
        self.kernels
            .iter()
            .map(|k| k.get().signature.to_string())
            .collect()
    }
    #[pyo3(signature = (*inputs, out=None, dtype=None))]
    fn __call__(
        slf: &Bound<'_, Self>,
        inputs: &Bound<'_, PyTuple>,
        out: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        run_op(slf.py(), slf.get(), inputs, out, dtype)
    }
    fn __repr__(&self) -> String {
        format!(
            "<ferroiter.UserOp {}: {}>",
            self.name,
            self.signatures().join(", ")
        )
    }
}

/// A `Kernel` from a loop's machine address; the caller (`ferroiter.loop_kernel`) has found the
/// address in a compiled object of the loop signature, or taken the user's int for it.
#[pyfunction]
#[pyo3(signature = (address, signature, name, owner))]
fn _kernel_from_address(
    address: usize,
    signature: &str,
    name: String,
    owner: Py<PyAny>,
) -> PyResult<PyKernel> {
    let signature = Signature::parse(signature)?;
    // SAFETY: the address is of a loop with the 2-D signature that reads and writes only its
    // block as the declared dtypes: the promise a user makes by handing ferroiter a compiled
    // loop with this signature (ctypes' own contract); `owner` keeps its code loaded.
    let kernel = unsafe { ForeignLoop::from_address(address) }
        .ok_or_else(|| Error::value("a kernel's address is null"))?;
    Ok(PyKernel {
        kernel,
        signature,
        name,
        owner,
    })
}

/// A `UserOp` of these kernels (at least one).
#[pyfunction]
fn _user_op(name: String, kernels: Vec<Py<PyKernel>>) -> PyResult<PyUserOp> {
    if kernels.is_empty() {
        return Err(Error::value(format!("{name}: an op needs at least one kernel")).into());
    }
    Ok(PyUserOp { name, kernels })
}

/// A signature's output and input dtype names (the Python side builds numba types from them).
#[pyfunction]
fn _parse_signature(text: &str) -> PyResult<(Vec<&'static str>, Vec<&'static str>)> {
    let s = Signature::parse(text)?;
    let names = |d: &[DType]| d.iter().map(|d| d.name()).collect();
    Ok((names(s.outputs()), names(s.inputs())))
}

/// `map(kernel, *inputs, out=None, dtype=None)`: runs a `Kernel` or `UserOp` elementwise over
/// the operands.
#[pyfunction]
#[pyo3(signature = (kernel, *inputs, out=None, dtype=None))]
fn map(
    kernel: &Bound<'_, PyAny>,
    inputs: &Bound<'_, PyTuple>,
    out: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let py = kernel.py();
    if let Ok(k) = kernel.cast::<PyKernel>() {
        return run_kernel(py, k.get(), inputs, out, dtype);
    }
    if let Ok(op) = kernel.cast::<PyUserOp>() {
        return run_op(py, op.get(), inputs, out, dtype);
    }
    Err(Error::type_(format!(
        "map expects a ferroiter.Kernel or ferroiter.UserOp, got {}: make one with \
         ferroiter.loop_kernel(loop, signature), @ferroiter.kernel(signature) or \
         ferroiter.register(name, kernels)",
        kernel.get_type().name()?
    ))
    .into())
}

fn run_kernel(
    py: Python<'_>,
    k: &PyKernel,
    inputs: &Bound<'_, PyTuple>,
    out: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let args = operands(inputs)?;
    let args = match optional_dtype(dtype)? {
        Some(d) => select(&k.name, &[&k.signature], &args, Some(d))?.1,
        None => args,
    };
    run(py, k, &args, out)
}

fn run_op(
    py: Python<'_>,
    op: &PyUserOp,
    inputs: &Bound<'_, PyTuple>,
    out: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let args = operands(inputs)?;
    let signatures: Vec<&Signature> = op.kernels.iter().map(|k| &k.get().signature).collect();
    let (chosen, args) = select(&op.name, &signatures, &args, optional_dtype(dtype)?)?;
    run(py, op.kernels[chosen].get(), &args, out)
}

fn operands(inputs: &Bound<'_, PyTuple>) -> PyResult<Vec<Arg>> {
    inputs.iter().map(|x| arg(&x)).collect()
}

/// Runs the kernel with the GIL released (always: a ctypes kernel written in Python takes the
/// GIL itself, from whichever thread runs its block) and returns its output, or a tuple of its
/// outputs; given `out=` objects are returned themselves.
fn run(
    py: Python<'_>,
    k: &PyKernel,
    args: &[Arg],
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let nout = k.signature.outputs().len();
    let given = out_objects(out, nout)?;
    let arrays: Vec<Option<Array>> = given
        .iter()
        .map(|o| o.as_ref().map(|o| o.get().array()))
        .collect();
    let results = call_core(py, || map_loop(k.kernel, &k.signature, args, &arrays))?;
    let mut objects = Vec::with_capacity(nout);
    for (result, given) in results.into_iter().zip(given) {
        objects.push(finish(py, result, given)?);
    }
    if nout == 1 {
        return Ok(objects.remove(0));
    }
    Ok(PyTuple::new(py, objects)?.into_any().unbind())
}

/// `out=` as one entry per output: `None`, an Array (one output), or a tuple of Arrays and
/// `None`s (one per output).
fn out_objects<'py>(
    out: Option<&Bound<'py, PyAny>>,
    nout: usize,
) -> PyResult<Vec<Option<Bound<'py, PyArray>>>> {
    let Some(out) = out.filter(|o| !o.is_none()) else {
        return Ok(vec![None; nout]);
    };
    let one = |o: Bound<'py, PyAny>| -> PyResult<Option<Bound<'py, PyArray>>> {
        if o.is_none() {
            return Ok(None);
        }
        Ok(Some(o.cast_into::<PyArray>().map_err(|e| {
            let got = e.into_inner().get_type().name().map(|n| n.to_string());
            Error::type_(format!(
                "out= takes ferroiter.Array objects (or None), got {}",
                got.unwrap_or_default()
            ))
        })?))
    };
    let entries = match out.cast::<PyTuple>() {
        Ok(t) => t.iter().map(one).collect::<PyResult<Vec<_>>>()?,
        Err(_) => vec![one(out.clone())?],
    };
    if entries.len() != nout {
        return Err(Error::value(format!(
            "out= gives {} arrays for a kernel of {nout} outputs",
            entries.len()
        ))
        .into());
    }
    Ok(entries)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyKernel>()?;
    m.add_class::<PyUserOp>()?;
    m.add_function(wrap_pyfunction!(_kernel_from_address, m)?)?;
    m.add_function(wrap_pyfunction!(_user_op, m)?)?;
    m.add_function(wrap_pyfunction!(_parse_signature, m)?)?;
    m.add_function(wrap_pyfunction!(map, m)?)?;
    Ok(())
}
