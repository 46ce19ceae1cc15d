//! Structural functions with torch's names and rules: joining (`cat`, `stack`), reordering
//! (`flip`, `roll`, `movedim`, `unbind`), repeating (`tile`, `repeat_interleave`), gathering
//! (`index_select`, `take`, `take_along_dim`), differences (`diff`) and the creation helpers
//! `eye`, `linspace`, `meshgrid`, `tril`/`triu`. The shape and argument logic is here; the
//! data moves through the copy kernel (`kernels::copy::copy_into`) onto views of the result,
//! so every dtype and layout converts at the iterator's speed.
#![forbid(unsafe_code)]

pub mod cat;
pub mod diff;
pub mod eye;
pub mod flip;
pub mod gather;
pub mod linspace;
pub mod meshgrid;
pub mod movedim;
pub mod repeat_interleave;
pub mod roll;
pub mod tile;
pub mod triangle;

use crate::array::Array;
use crate::error::Result;
use crate::layout::Layout;
use crate::memory_format::MemoryFormat;
use crate::scalar::Scalar;

/// `a.narrow(dim, start, len)` for an absolute `dim` and a range already known to fit.
pub(crate) fn narrow(a: &Array, dim: usize, start: usize, len: usize) -> Result<Array> {
    let layout = a.layout();
    let mut shape = layout.shape.clone();
    shape[dim] = len;
    let offset = if len == 0 {
        layout.offset
    } else {
        layout.offset + start as isize * layout.strides[dim]
    };
    a.with_layout(Layout {
        shape,
        strides: layout.strides.clone(),
        offset,
    })
}

/// `a.select(dim, index)` for an absolute `dim` and an index already known to fit.
pub(crate) fn select(a: &Array, dim: usize, index: usize) -> Result<Array> {
    let layout = a.layout();
    let mut shape = layout.shape.clone();
    let mut strides = layout.strides.clone();
    let offset = layout.offset + index as isize * strides[dim];
    shape.remove(dim);
    strides.remove(dim);
    a.with_layout(Layout {
        shape,
        strides,
        offset,
    })
}

/// A 0-d array holding `value` as `dtype` (to broadcast into a fill).
pub(crate) fn scalar_array(value: Scalar, dtype: crate::DType) -> Result<Array> {
    Array::full(&[], value, dtype, MemoryFormat::Contiguous)
}

/// Writes `value` into every element of `dst` through the copy kernel.
pub(crate) fn fill(dst: &Array, value: Scalar) -> Result<()> {
    if dst.numel() == 0 {
        return Ok(());
    }
    let target: Vec<i64> = dst.shape().iter().map(|&s| s as i64).collect();
    let source = scalar_array(value, dst.dtype())?.expand(&target)?;
    crate::kernels::copy::copy_into(dst, &source)
}

/// The values of an integer index array, in row-major order.
pub(crate) fn index_values(index: &Array) -> Result<Vec<i64>> {
    Ok(index.to_scalars()?.iter().map(|s| s.as_i64()).collect())
}
