//! `flip(a, dims)`: a copy (torch never returns a view here) laid out as `empty_like` with
//! preserve_format, written by copying a reversed view of `a` (negative strides in `dims`).
#![forbid(unsafe_code)]

use crate::array::Array;
use crate::error::{Error, Result};
use crate::kernels::copy::copy_into;
use crate::layout::Layout;
use crate::memory_format::MemoryFormat;
use crate::shape::wrap_dim;

/// `dims` made absolute, refusing repeats with torch's text.
pub(crate) fn distinct_dims(dims: &[i64], ndim: usize) -> Result<Vec<usize>> {
    let mut seen = vec![false; ndim.max(1)];
    let mut out = Vec::with_capacity(dims.len());
    for &d in dims {
        let w = wrap_dim(d, ndim)?;
        if seen[w] {
            return Err(Error::value(format!(
                "dim {w} appears multiple times in the list of dims"
            )));
        }
        seen[w] = true;
        out.push(w);
    }
    Ok(out)
}

/// `a` read backwards along `dims` (a view with negated strides).
pub(crate) fn reversed_view(a: &Array, dims: &[usize]) -> Result<Array> {
    let layout = a.layout();
    let mut strides = layout.strides.clone();
    let mut offset = layout.offset;
    if a.numel() > 0 {
        for &d in dims {
            if d < a.ndim() {
                offset += (layout.shape[d] as isize - 1) * strides[d];
                strides[d] = -strides[d];
            }
        }
    }
    a.with_layout(Layout {
        shape: layout.shape.clone(),
        strides,
        offset,
    })
}

/// `flip(a, dims)`.
pub fn flip(a: &Array, dims: &[i64]) -> Result<Array> {
    let a = &crate::kernels::blocked::dense(a)?;
    let dims = distinct_dims(dims, a.ndim())?;
    let out = a.empty_like(None, MemoryFormat::Preserve)?;
    if out.numel() > 0 {
        copy_into(&out, &reversed_view(a, &dims)?)?;
    }
    Ok(out)
}
