//! `roll(a, shifts, dims)`: a contiguous copy of `a` with each dim in `dims` rotated by its
//! shift (with no dims, `a` is rolled as if flattened). Each dim splits into the two runs
//! that move, so the result is written by at most `2^len(dims)` block copies.
#![forbid(unsafe_code)]

use super::cat::output_format;
use super::narrow;
use crate::array::Array;
use crate::error::{Error, Result};
use crate::kernels::copy::{converted_copy, copy_into, reshape};
use crate::layout::Layout;
use crate::memory_format::{format_strides, MemoryFormat};
use crate::shape::wrap_dim_no_scalar;

/// The memory format of torch's result: torch rolls one (shift, dim) pair at a time, each as
/// a cat of two narrows of the previous result, so each step takes cat's format rule (the
/// format both parts suggest, else contiguous; a zero shift leaves one part empty).
fn result_format(a: &Array, shifts: &[i64], dims: &[usize]) -> Result<MemoryFormat> {
    let mut layout = a.layout().clone();
    let mut format = MemoryFormat::Contiguous;
    for (&shift, &d) in shifts.iter().zip(dims) {
        let size = layout.shape[d];
        let start = (shift.wrapping_neg()).rem_euclid(size as i64) as usize;
        let part = |len: usize| {
            let mut p = layout.clone();
            p.shape[d] = len;
            p
        };
        format = output_format([&part(size - start), &part(start)]);
        layout = Layout {
            shape: layout.shape.clone(),
            strides: format_strides(&layout.shape, format)?,
            offset: 0,
        };
    }
    Ok(format)
}

/// `roll(a, shifts, dims)`.
pub fn roll(a: &Array, shifts: &[i64], dims: &[i64]) -> Result<Array> {
    let a = &crate::kernels::blocked::dense(a)?;
    if dims.is_empty() && shifts.len() == 1 {
        let flat = reshape(a, &[-1])?;
        let rolled = roll(&flat, shifts, &[0])?;
        let shape: Vec<i64> = a.shape().iter().map(|&s| s as i64).collect();
        return rolled.view(&shape);
    }
    if shifts.is_empty() {
        return Err(Error::value("`shifts` required"));
    }
    if shifts.len() != dims.len() {
        return Err(Error::value(format!(
            "shifts and dimensions must align. shifts: {}, dims:{}",
            shifts.len(),
            dims.len()
        )));
    }
    // torch clones an empty array before looking at the dims
    if a.numel() == 0 {
        return converted_copy(a, None, MemoryFormat::Preserve);
    }
    let ndim = a.ndim();
    let mut wrapped = Vec::with_capacity(dims.len());
    for &d in dims {
        wrapped.push(wrap_dim_no_scalar(d, ndim)?);
    }
    // the total shift of each dim (a dim may be named more than once)
    let mut total = vec![0i64; ndim];
    for (&s, &d) in shifts.iter().zip(&wrapped) {
        total[d] = total[d].wrapping_add(s);
    }
    let out = Array::empty(a.shape(), a.dtype(), result_format(a, shifts, &wrapped)?)?;
    // per dim: the (source start, destination start, length) runs
    let runs: Vec<Vec<(usize, usize, usize)>> = (0..ndim)
        .map(|d| {
            let n = a.shape()[d] as i64;
            let s = total[d].rem_euclid(n) as usize;
            let n = n as usize;
            if s == 0 {
                vec![(0, 0, n)]
            } else {
                vec![(0, s, n - s), (n - s, 0, s)]
            }
        })
        .collect();
    let mut choice = vec![0usize; ndim];
    loop {
        let (mut src, mut dst) = (a.clone(), out.clone());
        for d in 0..ndim {
            let (from, to, len) = runs[d][choice[d]];
            src = narrow(&src, d, from, len)?;
            dst = narrow(&dst, d, to, len)?;
        }
        copy_into(&dst, &src)?;
        // next combination of runs (an odometer over the dims)
        let mut d = ndim;
        loop {
            if d == 0 {
                return Ok(out);
            }
            d -= 1;
            choice[d] += 1;
            if choice[d] < runs[d].len() {
                break;
            }
            choice[d] = 0;
        }
    }
}
