//! `Layout`: sizes, signed element strides and a storage offset — and every view operation as a
//! pure function from one layout to a new one. No memory is touched here.
#![forbid(unsafe_code)]

use crate::error::{Error, Result};
use crate::memory_format::{self as mf, MemoryFormat};
use crate::shape::{self, fmt_shape, wrap_dim};

use crate::dims::copy_dims;
pub use crate::dims::{Dims, Strides};

/// Where a view's elements live in its storage, in elements.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Size of each dim.
    pub shape: Dims,
    /// Stride of each dim, in elements (negative or 0 allowed).
    pub strides: Strides,
    /// Offset of element 0 from the storage start, in elements.
    pub offset: isize,
}

impl Clone for Layout {
    /// A copy of the inline dims ([`copy_dims`]; the derived clone goes element by element
    /// through an iterator, which shows on tiny ops).
    fn clone(&self) -> Self {
        Layout {
            shape: copy_dims(&self.shape),
            strides: copy_dims(&self.strides),
            offset: self.offset,
        }
    }
}

/// One entry of a `__getitem__` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexItem {
    /// An integer: selects one position and drops the dim (negative counts from the end).
    Int(i64),
    /// A Python slice, numpy semantics (any non-zero step, negative included).
    Slice {
        /// Where the slice starts (negative counts from the end); `None`: the default.
        start: Option<i64>,
        /// Where the slice stops, exclusive (negative counts from the end); `None`: the default.
        stop: Option<i64>,
        /// The step; `None`: 1.
        step: Option<i64>,
    },
    /// `None`: a new size-1 dim.
    NewAxis,
    /// `...`: as many full slices as needed.
    Ellipsis,
}

/// Python's `slice.indices(len)`: (start, step, length) of the selected positions.
pub fn slice_indices(
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
    len: usize,
) -> Result<(i64, i64, usize)> {
    let len = len as i64;
    let step = step.unwrap_or(1);
    if step == 0 {
        return Err(Error::value("slice step cannot be zero"));
    }
    let (lower, upper) = if step < 0 { (-1, len - 1) } else { (0, len) };
    let clamp = |v: Option<i64>, default: i64| match v {
        None => default,
        Some(v) if v < 0 => (v + len).max(lower),
        Some(v) => v.min(upper),
    };
    let start = clamp(start, if step < 0 { upper } else { lower });
    let stop = clamp(stop, if step < 0 { lower } else { upper });
    let count = if step < 0 {
        if stop < start {
            (start - stop - 1) / (-step) + 1
        } else {
            0
        }
    } else if start < stop {
        (stop - start - 1) / step + 1
    } else {
        0
    };
    Ok((start, step, count as usize))
}

impl Layout {
    /// A contiguous layout of `shape` at offset 0.
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: shape.into(),
            strides: crate::dims::contiguous_strides(shape),
            offset: 0,
        }
    }

    /// The number of dims.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// The number of elements (the product of the sizes).
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// `is_contiguous(memory_format=format)` of these sizes and strides.
    pub fn is_contiguous(&self, format: MemoryFormat) -> Result<bool> {
        mf::is_contiguous_as(&self.shape, &self.strides, format)
    }
    /// torch's `is_non_overlapping_and_dense`: every element of a dense block addressed once.
    pub fn is_non_overlapping_and_dense(&self) -> bool {
        mf::is_non_overlapping_and_dense(&self.shape, &self.strides)
    }
    /// torch's `suggest_memory_format(exact_match)` for these sizes and strides.
    pub fn suggest_memory_format(&self, exact_match: bool) -> MemoryFormat {
        mf::suggest_memory_format(&self.shape, &self.strides, exact_match)
    }

    /// The elements (relative to the storage start) this layout reaches: `None` if empty.
    pub fn element_span(&self) -> Option<(isize, isize)> {
        crate::strides::offset_span(&self.shape, &self.strides)
            .map(|(lo, hi)| (self.offset + lo, self.offset + hi))
    }

    /// `permute(*dims)`: dim i of the result is dim `dims[i]` of this layout.
    pub fn permute(&self, dims: &[i64]) -> Result<Layout> {
        let n = self.ndim();
        if dims.len() != n {
            return Err(Error::value(format!(
                "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal to len(dims) = {}",
                dims.len()
            )));
        }
        let mut seen = vec![false; n];
        let mut out = Layout {
            shape: smallvec::smallvec![0; n],
            strides: smallvec::smallvec![0; n],
            offset: self.offset,
        };
        for (i, &d) in dims.iter().enumerate() {
            let d = wrap_dim(d, n)?;
            if std::mem::replace(&mut seen[d], true) {
                return Err(Error::value("permute(): duplicate dims are not allowed."));
            }
            out.shape[i] = self.shape[d];
            out.strides[i] = self.strides[d];
        }
        Ok(out)
    }

    /// `transpose(d0, d1)`: swaps two dims.
    pub fn transpose(&self, d0: i64, d1: i64) -> Result<Layout> {
        let n = self.ndim();
        let (a, b) = (wrap_dim(d0, n)?, wrap_dim(d1, n)?);
        let mut out = self.clone();
        if n > 0 {
            out.shape.swap(a, b);
            out.strides.swap(a, b);
        }
        Ok(out)
    }

    /// `expand(*sizes)`: broadcast to `target` (`-1` keeps a size) with stride-0 dims.
    /// `type_name` is torch's tensor type for the message ("torch.FloatTensor").
    pub fn expand(&self, target: &[i64], type_name: &str) -> Result<Layout> {
        let (shape, strides) =
            shape::expand_strides(&self.shape, &self.strides, target, type_name)?;
        Ok(Layout {
            shape: shape.into(),
            strides: strides.into(),
            offset: self.offset,
        })
    }

    /// `unsqueeze(d)`: a size-1 dim at `d`, strided as torch does (size·stride of the dim it
    /// precedes, or 1 at the end).
    pub fn unsqueeze(&self, dim: i64) -> Result<Layout> {
        let d = wrap_dim(dim, self.ndim() + 1)?;
        let stride = if d >= self.ndim() {
            1
        } else {
            self.shape[d] as isize * self.strides[d]
        };
        let mut out = self.clone();
        out.shape.insert(d, 1);
        out.strides.insert(d, stride);
        Ok(out)
    }

    /// `squeeze(dims)`: drops the listed size-1 dims (others are left alone), or every size-1
    /// dim when `dims` is `None`.
    pub fn squeeze(&self, dims: Option<&[i64]>) -> Result<Layout> {
        let n = self.ndim();
        let mut drop = vec![false; n];
        match dims {
            None => (0..n).for_each(|d| drop[d] = self.shape[d] == 1),
            Some(ds) => {
                let mut seen = vec![false; n.max(1)];
                for &d in ds {
                    let d = wrap_dim(d, n)?;
                    if std::mem::replace(&mut seen[d], true) {
                        return Err(Error::value(format!(
                            "dim {d} appears multiple times in the list of dims"
                        )));
                    }
                    if n > 0 && self.shape[d] == 1 {
                        drop[d] = true;
                    }
                }
            }
        }
        let kept: Vec<usize> = (0..n).filter(|&d| !drop[d]).collect();
        Ok(Layout {
            shape: kept.iter().map(|&d| self.shape[d]).collect(),
            strides: kept.iter().map(|&d| self.strides[d]).collect(),
            offset: self.offset,
        })
    }

    /// `view(*shape)`: the same memory under a new shape (one `-1` inferred), where the strides
    /// allow it without a copy.
    pub fn view(&self, shape: &[i64]) -> Result<Layout> {
        let new_shape = infer_view_shape(shape, self.numel())?;
        let strides = crate::strides::view_strides(&self.shape, &self.strides, &new_shape).ok_or_else(|| {
            Error::value(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
            )
        })?;
        Ok(Layout {
            shape: new_shape.into(),
            strides: strides.into(),
            offset: self.offset,
        })
    }

    /// `__getitem__` with a tuple key of ints, slices, `None` and `...`, entry by entry as torch
    /// applies them: an int selects (the dim goes away), a slice narrows, `None` inserts a size-1
    /// dim, and *every* `...` skips the dims that the ints and slices leave over (torch accepts
    /// several). Slices follow numpy, so negative steps work (torch refuses them).
    pub fn index(&self, items: &[IndexItem]) -> Result<Layout> {
        let n = self.ndim();
        let specified = items
            .iter()
            .filter(|i| matches!(i, IndexItem::Int(_) | IndexItem::Slice { .. }))
            .count();
        if specified > n {
            return Err(Error::index(format!(
                "too many indices for tensor of dimension {n}"
            )));
        }
        let mut out = self.clone();
        let mut dim = 0usize; // the dim of `out` that the next entry applies to
        for (position, item) in items.iter().enumerate() {
            match *item {
                IndexItem::Int(i) => out = out.select(dim, i, position)?,
                // torch skips a bare `:` without looking at the dim at all
                IndexItem::Slice {
                    start: None,
                    stop: None,
                    step: None,
                } => dim += 1,
                IndexItem::Slice { start, stop, step } => {
                    out = out.slice(dim, start, stop, step)?;
                    dim += 1;
                }
                IndexItem::NewAxis => {
                    out = out.unsqueeze(dim as i64)?;
                    dim += 1;
                }
                IndexItem::Ellipsis => dim += n - specified,
            }
        }
        Ok(out)
    }

    /// `__getitem__` with a single entry that is not in a tuple (`x[0]`, `x[1:]`). It differs from
    /// `index(&[item])` only on 0-d arrays, where torch gives its dedicated messages.
    pub fn index_bare(&self, item: IndexItem) -> Result<Layout> {
        if self.ndim() == 0 {
            match item {
                IndexItem::Int(i) => return self.select(0, i, 0),
                IndexItem::Slice { .. } => {
                    return Err(Error::index("slice() cannot be applied to a 0-dim tensor."))
                }
                _ => {}
            }
        }
        self.index(&[item])
    }

    /// The offset (in elements) of the element at `index`, one int per dim (negative ints
    /// count from the end), with [`Layout::index`]'s checks and torch's messages: what `a[i, j]
    /// = x` writes to, without building the view.
    pub fn element_offset(&self, index: &[i64]) -> Result<usize> {
        if index.len() != self.ndim() {
            return Err(Error::index(format!(
                "an element of a {}-d array takes {} indices, got {}",
                self.ndim(),
                self.ndim(),
                index.len()
            )));
        }
        let mut offset = self.offset;
        for (dim, (&i, &size)) in index.iter().zip(&self.shape).enumerate() {
            offset += position_in(i, size as i64, dim)? as isize * self.strides[dim];
        }
        usize::try_from(offset).map_err(|_| Error::index("the element lies before the storage"))
    }

    /// One int entry of a key: drops `dim` at position `i`. `position` is the entry's place in the
    /// key, which is what torch names in its message. Past the last dim (possible after several
    /// `...`) torch reads a size of 0.
    fn select(&self, dim: usize, i: i64, position: usize) -> Result<Layout> {
        let n = self.ndim();
        if i == 0 && dim == 0 && n == 0 {
            return Err(Error::index(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
            ));
        }
        let size = if dim < n { self.shape[dim] as i64 } else { 0 };
        let i = position_in(i, size, position)?;
        let mut out = self.clone();
        out.offset += i as isize * self.strides[dim];
        out.shape.remove(dim);
        out.strides.remove(dim);
        Ok(out)
    }

    /// One slice entry of a key, applied to `dim` (numpy's rules for the positions).
    fn slice(
        &self,
        dim: usize,
        start: Option<i64>,
        stop: Option<i64>,
        step: Option<i64>,
    ) -> Result<Layout> {
        if dim >= self.ndim() {
            // torch reads a size of 0 past the last dim: a slice `0:0` (step 1) is then the whole
            // dim and is skipped; any other slice fails on the dim.
            let whole = start.unwrap_or(0) == 0 && stop == Some(0) && step.unwrap_or(1) == 1;
            if whole {
                return Ok(self.clone());
            }
            wrap_dim(dim as i64, self.ndim())?;
        }
        let (first, step, count) = slice_indices(start, stop, step, self.shape[dim])?;
        let mut out = self.clone();
        // torch moves the offset to the clamped start even for an empty slice.
        if count > 0 || step > 0 {
            out.offset += first as isize * self.strides[dim];
        }
        out.shape[dim] = count;
        out.strides[dim] = self.strides[dim] * step as isize;
        Ok(out)
    }
}

/// Resolves a `view`/`reshape` shape with at most one `-1` against `numel`, with torch's texts
/// (torch's `infer_size`).
pub fn infer_view_shape(shape: &[i64], numel: usize) -> Result<Vec<usize>> {
    let mut inferred = None;
    let mut known: usize = 1;
    for (i, &s) in shape.iter().enumerate() {
        if s == -1 {
            if inferred.replace(i).is_some() {
                return Err(Error::value("only one dimension can be inferred"));
            }
        } else if s < 0 {
            return Err(Error::value(format!(
                "invalid shape dimension {s} at index {i} of shape {}",
                fmt_shape(shape)
            )));
        } else {
            known = known.saturating_mul(s as usize);
        }
    }
    let mut out: Vec<usize> = shape.iter().map(|&s| s.max(0) as usize).collect();
    let fits = numel == known || (inferred.is_some() && known > 0 && numel.is_multiple_of(known));
    if !fits {
        return Err(Error::value(format!(
            "shape '{}' is invalid for input of size {numel}",
            fmt_shape(shape)
        )));
    }
    if let Some(i) = inferred {
        if known == 0 {
            return Err(Error::value(format!(
                "cannot reshape tensor of 0 elements into shape {} because the unspecified dimension size -1 can be any value and is ambiguous",
                fmt_shape(shape)
            )));
        }
        out[i] = numel / known;
    }
    Ok(out)
}

/// Int `i` of a key (negative counts from the end) as a position in a dim of `size`, or
/// torch's IndexError naming the key's entry `position`.
fn position_in(i: i64, size: i64, position: usize) -> Result<i64> {
    if i < -size || i >= size {
        return Err(Error::index(format!(
            "index {i} is out of bounds for dimension {position} with size {size}"
        )));
    }
    Ok(if i < 0 { i + size } else { i })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_match_python() {
        assert_eq!(slice_indices(None, None, Some(-1), 5).unwrap(), (4, -1, 5));
        assert_eq!(slice_indices(Some(1), None, Some(2), 5).unwrap(), (1, 2, 2));
        assert_eq!(
            slice_indices(Some(10), Some(2), None, 5).unwrap(),
            (5, 1, 0)
        );
        assert_eq!(
            slice_indices(Some(-2), Some(-10), Some(-1), 5).unwrap(),
            (3, -1, 4)
        );
    }

    #[test]
    fn getitem() {
        let l = Layout::contiguous(&[3, 4]);
        let v = l
            .index(&[
                IndexItem::Slice {
                    start: None,
                    stop: None,
                    step: Some(-1),
                },
                IndexItem::Int(1),
            ])
            .unwrap();
        assert_eq!(
            (v.shape.to_vec(), v.strides.to_vec(), v.offset),
            (vec![3], vec![-4], 9)
        );
    }
}
