//! `cat(arrays, dim)` and `stack(arrays, dim)` with torch's rules: the result dtype promotes
//! over every input; a 1-D empty input (shape `[0]`) is skipped by the shape checks (torch's
//! legacy rule) but not by the memory format: the result takes the format every input
//! suggests, so a skipped `[0]` (which suggests contiguous) makes it contiguous, as in torch. Each input is copied onto its slice of the result.
#![forbid(unsafe_code)]

use super::narrow;
use crate::array::Array;
use crate::dtype::{self, Participant};
use crate::error::{Error, Result};
use crate::kernels::copy::copy_into;
use crate::layout::Layout;
use crate::memory_format::MemoryFormat;
use crate::shape::wrap_dim;

/// torch's legacy rule: a 1-D array of size 0 takes part in the dtype only.
fn is_skipped(a: &Array) -> bool {
    a.ndim() == 1 && a.shape()[0] == 0
}

/// The memory format the layouts suggest, or contiguous when they differ
/// (also roll's result format: torch rolls through a cat of two narrows).
pub(super) fn output_format<'a>(layouts: impl IntoIterator<Item = &'a Layout>) -> MemoryFormat {
    let mut format = None;
    for layout in layouts {
        let f = layout.suggest_memory_format(false);
        match format {
            None => format = Some(f),
            Some(g) if g != f => return MemoryFormat::Contiguous,
            _ => {}
        }
    }
    format.unwrap_or(MemoryFormat::Contiguous)
}

/// `cat(arrays, dim)`.
pub fn cat(arrays: &[Array], dim: i64) -> Result<Array> {
    let arrays = &crate::kernels::blocked::dense_all(arrays)?[..];
    if arrays.is_empty() {
        return Err(Error::value(
            "torch.cat(): expected a non-empty list of Tensors",
        ));
    }
    if let Some(pos) = arrays.iter().position(|a| a.ndim() == 0) {
        return Err(Error::value(format!(
            "zero-dimensional tensor (at position {pos}) cannot be concatenated"
        )));
    }
    let kept: Vec<(usize, &Array)> = arrays
        .iter()
        .enumerate()
        .filter(|(_, a)| !is_skipped(a))
        .collect();
    let parts: Vec<Participant> = arrays
        .iter()
        .map(|a| Participant::of(a.dtype(), a.ndim(), false))
        .collect();
    let out_dtype = dtype::result_type(&parts)?;
    let Some(&(_, first)) = kept.first() else {
        // every input is a skipped `[0]`: the result is one too
        return Array::empty(&[0], out_dtype, MemoryFormat::Contiguous);
    };
    let dim = wrap_dim(dim, first.ndim())?;
    let mut shape = first.shape().to_vec();
    let mut total = 0usize;
    for &(index, a) in &kept {
        if a.ndim() != first.ndim() {
            return Err(Error::value(format!(
                "Tensors must have same number of dimensions: got {} and {}",
                first.ndim(),
                a.ndim()
            )));
        }
        for d in (0..a.ndim()).filter(|&d| d != dim) {
            if a.shape()[d] != first.shape()[d] {
                return Err(Error::value(format!(
                    "Sizes of tensors must match except in dimension {dim}. Expected size {} but got size {} for tensor number {index} in the list.",
                    first.shape()[d],
                    a.shape()[d]
                )));
            }
        }
        total += a.shape()[dim];
    }
    shape[dim] = total;
    // Every input counts here, a skipped `[0]` too (torch's rule).
    let format = output_format(arrays.iter().map(|a| a.layout()));
    let out = Array::empty(&shape, out_dtype, format)?;
    let mut start = 0usize;
    for &(_, a) in &kept {
        let len = a.shape()[dim];
        if len > 0 && a.numel() > 0 {
            copy_into(&narrow(&out, dim, start, len)?, a)?;
        }
        start += len;
    }
    Ok(out)
}

/// `stack(arrays, dim)`: every input must have one shape; each gains a dim at `dim`, then
/// they are concatenated there.
pub fn stack(arrays: &[Array], dim: i64) -> Result<Array> {
    let arrays = &crate::kernels::blocked::dense_all(arrays)?[..];
    let Some(first) = arrays.first() else {
        return Err(Error::value("stack expects a non-empty TensorList"));
    };
    let dim = wrap_dim(dim, first.ndim() + 1)?;
    for (i, a) in arrays.iter().enumerate().skip(1) {
        if a.shape() != first.shape() {
            return Err(Error::value(format!(
                "stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {i}",
                crate::shape::fmt_shape(first.shape()),
                crate::shape::fmt_shape(a.shape())
            )));
        }
    }
    let expanded: Vec<Array> = arrays
        .iter()
        .map(|a| a.unsqueeze(dim as i64))
        .collect::<Result<_>>()?;
    cat(&expanded, dim as i64)
}
