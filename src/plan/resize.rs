//! torch's `out=` policy, in one place: an output of another shape is resized — silently when
//! it has no elements, with torch's deprecation warning otherwise. (Overlap is checked before
//! anything about shapes: `build()` runs `compute_mem_overlaps` before `compute_shape`.)
//!
//! torch resizes the tensor object in place (keeping its storage when it is large enough);
//! ferroiter arrays are values, so a resized output is a new array over fresh storage that the
//! caller puts in place of the old one (the Python binding re-points the `out=` object at it):
//! views of the old storage keep their values.

use crate::error::Result;
use crate::shape::fmt_shape;
use crate::Array;

/// torch's warning when an output that had elements is resized.
pub fn resize_warning(old: &[usize], new: &[usize]) -> String {
    format!(
        "An output with one or more elements was resized since it had shape {}, which does not match the required output shape {}. This behavior is deprecated, and in a future PyTorch release outputs will not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
        fmt_shape(old),
        fmt_shape(new)
    )
}

/// Warns (see [`resize_warning`]) when `out` has elements and is about to take `shape`.
pub(crate) fn note_resize(out: &Array, shape: &[usize]) {
    if out.numel() > 0 && out.shape() != shape {
        crate::warnings::warn(resize_warning(out.shape(), shape));
    }
}

/// torch's `resize_output(out, shape)`: `out` itself when it has `shape`, else a new array of
/// `out`'s dtype with `shape` and contiguous strides (the warning given as torch gives it).
pub fn resize_output(out: &Array, shape: &[usize]) -> Result<Array> {
    if out.shape() == shape {
        return Ok(out.clone());
    }
    note_resize(out, shape);
    let strides = crate::memory_format::contiguous_strides(shape);
    Array::empty_strided(shape, &strides, out.dtype())
}
