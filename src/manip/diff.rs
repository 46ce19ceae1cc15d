//! `diff(a, n, dim, prepend, append)`: the `n`-th forward difference along `dim` as torch
//! computes it: `prepend`/`append` concatenated first (`cat`'s promotion), then `n` times the
//! difference of two shifted views (`sub`, or `logical_xor` for bool), so the result's layout
//! is the elementwise iterator's.
#![forbid(unsafe_code)]

use super::cat::cat;
use super::narrow;
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::{binary, Arg, BinaryOp};
use crate::memory_format::MemoryFormat;
use crate::shape::wrap_dim;

/// torch's check of a `prepend`/`append` against the input.
fn check_compatible(a: &Array, other: &Array, dim: usize) -> Result<()> {
    if a.ndim() != other.ndim() {
        return Err(Error::value(
            "diff expects prepend or append to be the same dimension as input",
        ));
    }
    for i in (0..a.ndim()).filter(|&i| i != dim) {
        if a.shape()[i] != other.shape()[i] {
            return Err(Error::value(format!(
                "diff expects the shape of tensor to prepend or append to match that of input except along the differencing dimension; input.size({i}) = {}, but got tensor.size({i}) = {}",
                a.shape()[i],
                other.shape()[i]
            )));
        }
    }
    Ok(())
}

/// `diff(a, n, dim, prepend, append)`.
pub fn diff(
    a: &Array,
    n: i64,
    dim: i64,
    prepend: Option<&Array>,
    append: Option<&Array>,
) -> Result<Array> {
    let a = &crate::kernels::blocked::dense(a)?;
    let prepend = prepend.map(crate::kernels::blocked::dense).transpose()?;
    let append = append.map(crate::kernels::blocked::dense).transpose()?;
    let (prepend, append) = (prepend.as_ref(), append.as_ref());
    if a.ndim() == 0 {
        return Err(Error::value(
            "diff expects input to be at least one-dimensional",
        ));
    }
    if n < 0 {
        return Err(Error::value(format!(
            "order must be non-negative but got {n}"
        )));
    }
    // the dim is only looked at by the prepend/append checks and the differences
    for other in [prepend, append].into_iter().flatten() {
        check_compatible(a, other, wrap_dim(dim, a.ndim())?)?;
    }
    if n == 0 {
        return crate::kernels::copy::converted_copy(a, None, MemoryFormat::Preserve);
    }
    let dim = wrap_dim(dim, a.ndim())?;
    let mut result = if prepend.is_some() || append.is_some() {
        let parts: Vec<Array> = [prepend, Some(a), append]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        cat(&parts, dim as i64)?
    } else {
        a.clone()
    };
    let size = result.shape()[dim];
    let op = if result.dtype() == DType::Bool {
        BinaryOp::LogicalXor
    } else {
        BinaryOp::Sub
    };
    for i in 0..(n as usize).min(size) {
        let len = size - 1 - i;
        let later = Arg::Array(narrow(&result, dim, 1, len)?);
        let earlier = Arg::Array(narrow(&result, dim, 0, len)?);
        result = binary(op, &later, &earlier, None, None)?;
    }
    Ok(result)
}
