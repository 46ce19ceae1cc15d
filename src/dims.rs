//! The layout types every other layout module builds on: sizes, element strides, and the
//! row-major strides of a shape. A leaf: it imports nothing from the crate, so that
//! `strides.rs`, `memory_format.rs` and `layout.rs` depend on it (and on each other in that
//! order only), never in a circle.
#![forbid(unsafe_code)]

use smallvec::SmallVec;

/// Sizes of a layout, inline up to 6 dims (as torch's `SmallVector`): making, cloning and
/// dropping an array of up to 6 dims allocates nothing for its shape.
pub type Dims = SmallVec<[usize; INLINE]>;
/// Element strides of a layout, inline up to 6 dims.
pub type Strides = SmallVec<[isize; INLINE]>;

/// Dims kept inline by [`Dims`] and [`Strides`].
const INLINE: usize = 6;

/// A copy of `dims` that, when they fit inline, copies the whole inline buffer in registers:
/// `SmallVec::from_slice` calls `memcpy` for the few bytes of a tiny op's shape, and a
/// 1-element `a + b` cloned about a dozen shapes and strides (callgrind).
#[inline]
pub fn copy_dims<T: Copy + Default>(dims: &[T]) -> SmallVec<[T; INLINE]> {
    if dims.len() > INLINE {
        return SmallVec::from_slice(dims);
    }
    let mut buf = [T::default(); INLINE];
    for (i, slot) in buf.iter_mut().enumerate() {
        if let Some(&d) = dims.get(i) {
            *slot = d;
        }
    }
    SmallVec::from_buf_and_len(buf, dims.len())
}

/// Row-major strides with zero-size dims counted as 1: `empty(2,0,3)` → `(3,3,1)`.
pub fn contiguous_strides(shape: &[usize]) -> Strides {
    let mut strides: Strides = smallvec::smallvec![0; shape.len()];
    let mut acc: isize = 1;
    for d in (0..shape.len()).rev() {
        strides[d] = acc;
        acc *= shape[d].max(1) as isize;
    }
    strides
}
