//! `tile(a, dims)` and the `repeat(*sizes)` it is built on: a contiguous result whose view as
//! `(r0, s0, r1, s1, …)` receives one broadcast copy of `a` (viewed as `(1, s0, 1, s1, …)`).
#![forbid(unsafe_code)]

use crate::array::Array;
use crate::error::{Error, Result};
use crate::kernels::copy::copy_into;
use crate::layout::Layout;
use crate::memory_format::MemoryFormat;
use crate::shape::check_sizes;

/// `a.repeat(repeats)`: `repeats` has at least `a.ndim()` entries; extra leading ones add dims.
pub fn repeat(a: &Array, repeats: &[i64]) -> Result<Array> {
    let a = &crate::kernels::blocked::dense(a)?;
    if repeats.len() < a.ndim() {
        return Err(Error::value(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
        ));
    }
    let lead = repeats.len() - a.ndim();
    let mut padded_shape = vec![1usize; lead];
    padded_shape.extend_from_slice(a.shape());
    let mut padded_strides = vec![0isize; lead];
    padded_strides.extend_from_slice(a.strides());
    let target: Vec<i64> = repeats
        .iter()
        .zip(&padded_shape)
        .map(|(&r, &s)| r.saturating_mul(s as i64))
        .collect();
    let shape = check_sizes(&target)?;
    let out = Array::empty(&shape, a.dtype(), MemoryFormat::Contiguous)?;
    if out.numel() == 0 {
        return Ok(out);
    }
    // (r_d, s_d) pairs: the result split, and `a` broadcast along every r_d
    let out_layout = out.layout();
    let (mut split_shape, mut split_strides) = (Vec::new(), Vec::new());
    let (mut src_shape, mut src_strides) = (Vec::new(), Vec::new());
    for d in 0..shape.len() {
        let (r, s) = (repeats[d] as usize, padded_shape[d]);
        let stride = out_layout.strides[d];
        split_shape.extend([r, s]);
        split_strides.extend([stride * s as isize, stride]);
        src_shape.extend([r, s]);
        src_strides.extend([0, padded_strides[d]]);
    }
    let dst = out.with_layout(Layout {
        shape: split_shape.into(),
        strides: split_strides.into(),
        offset: 0,
    })?;
    let src = a.with_layout(Layout {
        shape: src_shape.into(),
        strides: src_strides.into(),
        offset: a.storage_offset(),
    })?;
    copy_into(&dst, &src)?;
    Ok(out)
}

/// `tile(a, dims)`: `dims` padded with leading ones to `a.ndim()`, then `repeat`.
pub fn tile(a: &Array, dims: &[i64]) -> Result<Array> {
    let a = &crate::kernels::blocked::dense(a)?;
    let mut repeats = vec![1i64; a.ndim().saturating_sub(dims.len())];
    repeats.extend_from_slice(dims);
    repeat(a, &repeats)
}
