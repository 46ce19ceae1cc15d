//! `real`, `imag` and `conj`. The parts of a complex array are views (torch's
//! `view_as_real` with the last dimension indexed away): the real dtype, every stride doubled,
//! the offset doubled (plus one for `imag`). A real array is its own real part and its own
//! conjugate; it has no imaginary part (torch's error). `conj` of a complex array is a new
//! array here (torch's is a lazy view with the conjugate bit set, which ferroiter lacks).

use super::element::{C128, C64};
use super::run::run;
use crate::error::{Error, Result};
use crate::exec::raw::map1;
use crate::layout::Layout;
use crate::plan::TensorIteratorConfig;
use crate::{Array, DType};

/// The real (`imag == false`) or imaginary part of a complex array, as a view.
pub fn complex_part(a: &Array, imag: bool) -> Result<Array> {
    let real = match a.dtype() {
        DType::C64 => DType::F32,
        DType::C128 => DType::F64,
        _ if imag => {
            return Err(Error::value(
                "imag is not implemented for tensors with non-complex dtypes.",
            ))
        }
        _ => return Ok(a.clone()),
    };
    let layout = a.layout();
    let view = Layout {
        shape: layout.shape.clone(),
        strides: layout.strides.iter().map(|s| s * 2).collect(),
        offset: layout.offset * 2 + imag as isize,
    };
    Array::from_parts(a.storage().clone(), view, real)
}

/// `conj(a)`: the complex conjugate (a new array of torch's unary layout); a real array itself.
pub fn conj(a: &Array) -> Result<Array> {
    if !a.dtype().is_complex() {
        return Ok(a.clone());
    }
    let plan = TensorIteratorConfig::unary_op(None, a.clone()).into_kernel_plan()?;
    if a.dtype() == DType::C128 {
        run(&plan, |b| map1::<C128, C128>(b, |z| z.conj()))?;
    } else {
        run(&plan, |b| map1::<C64, C64>(b, |z| z.conj()))?;
    }
    Ok(plan.output(0)?.clone())
}
