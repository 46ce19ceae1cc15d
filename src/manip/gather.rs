//! Gathers with torch's names: `index_select(a, dim, index)` (whole slices along `dim`),
//! `take(a, index)` (elements of `a` read as flat), `take_along_dim(a, indices, dim)` (one
//! element per position along `dim`). Results are contiguous, as torch's. Large slices move
//! through the copy kernel one slice at a time; element gathers go through the advanced
//! indexing gather (`advanced_index::gather`) once the indices are checked here.
#![forbid(unsafe_code)]

use super::{index_values, select};
use crate::advanced_index::{gather, AdvancedItem};
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::copy::{copy_into, reshape};
use crate::layout::IndexItem;
use crate::memory_format::MemoryFormat;
use crate::shape::{infer_size, wrap_dim};

/// Slices at least this large are copied one by one through the copy kernel (a plan per
/// slice pays for itself); smaller ones are gathered element by element.
const SLICE_COPY_MIN: usize = 256;

/// A new 1-D int64 array holding `values` (`len` of them).
pub(crate) fn int64_vector(values: &[i64], len: usize) -> Result<Array> {
    let out = Array::empty(&[len], DType::I64, MemoryFormat::Contiguous)?;
    for (i, v) in values.iter().enumerate() {
        out.storage().write(i * 8, &v.to_ne_bytes())?;
    }
    Ok(out)
}

fn full_slice() -> AdvancedItem {
    AdvancedItem::Basic(IndexItem::Slice {
        start: None,
        stop: None,
        step: None,
    })
}

/// `index_select(a, dim, index)`: `index` is a 0-d or 1-D int32/int64 array of positions in
/// `0..a.shape[dim]` (negative positions are refused, as torch refuses them).
pub fn index_select(a: &Array, dim: i64, index: &Array) -> Result<Array> {
    let (a, index) = (
        &crate::kernels::blocked::dense(a)?,
        &crate::kernels::blocked::dense(index)?,
    );
    let dim = wrap_dim(dim, a.ndim())?;
    if index.ndim() > 1 {
        return Err(Error::index(
            "index_select(): Index is supposed to be a vector",
        ));
    }
    let int_index = matches!(index.dtype(), DType::I32 | DType::I64);
    let wrong_dtype = || Error::value("index_select(): Expected dtype int32 or int64 for index");
    if a.ndim() == 0 {
        if index.numel() != 1 {
            return Err(Error::value(format!(
                "index_select(): Index to scalar can have only 1 value, got {} value(s)",
                index.numel()
            )));
        }
        if !int_index {
            return Err(wrong_dtype());
        }
        if index_values(index)?[0] != 0 {
            return Err(Error::index("index out of range in self"));
        }
        return crate::kernels::copy::converted_copy(a, None, MemoryFormat::Contiguous);
    }
    if !int_index {
        return Err(wrong_dtype());
    }
    let positions = index_values(index)?;
    let size = a.shape()[dim];
    if size == 0 && !positions.is_empty() && a.ndim() > 1 {
        return Err(Error::value(
            "index_select(): self indexing axis dim should be positive",
        ));
    }
    if let Some(&bad) = positions.iter().find(|&&p| p < 0 || p as usize >= size) {
        // torch's path along dim 0 words it as an embedding lookup
        return Err(if dim == 0 {
            Error::index("index out of range in self")
        } else {
            Error::value(format!(
                "INDICES element is out of DATA bounds, id={bad} axis_dim={size}"
            ))
        });
    }
    let mut shape = a.shape().to_vec();
    shape[dim] = positions.len();
    let out = Array::empty(&shape, a.dtype(), MemoryFormat::Contiguous)?;
    if out.numel() == 0 {
        return Ok(out);
    }
    let slice_len = out.numel() / positions.len();
    if slice_len >= SLICE_COPY_MIN {
        for (k, &p) in positions.iter().enumerate() {
            copy_into(&select(&out, dim, k)?, &select(a, dim, p as usize)?)?;
        }
        return Ok(out);
    }
    let mut key: Vec<AdvancedItem> = (0..dim).map(|_| full_slice()).collect();
    key.push(AdvancedItem::Indices(int64_vector(
        &positions,
        positions.len(),
    )?));
    // the advanced-indexing gather gives a new contiguous array of this shape
    gather(a, &key)
}

/// `take(a, index)`: `a` read as if flattened, at the (int64) positions of `index`; negative
/// positions count from the end. The result has `index`'s shape.
pub fn take(a: &Array, index: &Array) -> Result<Array> {
    let (a, index) = (
        &crate::kernels::blocked::dense(a)?,
        &crate::kernels::blocked::dense(index)?,
    );
    if index.dtype() != DType::I64 {
        return Err(Error::value(format!(
            "take(): Expected a long tensor for index, but got {}",
            index.dtype().torch_name()
        )));
    }
    let positions = index_values(index)?;
    let n = a.numel() as i64;
    if n == 0 && !positions.is_empty() {
        return Err(Error::index("take(): tried to take from an empty tensor"));
    }
    if let Some(&bad) = positions.iter().find(|&&p| p < -n || p >= n) {
        return Err(Error::index(format!(
            "out of range: tried to access index {bad} on a tensor of {n} elements."
        )));
    }
    if positions.is_empty() {
        return Array::empty(index.shape(), a.dtype(), MemoryFormat::Contiguous);
    }
    let flat = reshape(a, &[-1])?;
    let wrapped: Vec<i64> = positions
        .iter()
        .map(|&p| if p < 0 { p + n } else { p })
        .collect();
    let gathered = gather(
        &flat,
        &[AdvancedItem::Indices(int64_vector(
            &wrapped,
            wrapped.len(),
        )?)],
    )?;
    gathered.view(&index.shape().iter().map(|&s| s as i64).collect::<Vec<_>>())
}

/// `take_along_dim(a, indices, dim)`: `a` and `indices` broadcast against each other except
/// along `dim`, then element `i` along `dim` is `a[…, indices[…, i, …] mod size, …]` (torch
/// reduces the indices modulo the size there). With no dim, both are flattened (`a` must be
/// viewable so) and gathered as torch's `gather` does (int32 or int64 indices, in bounds).
pub fn take_along_dim(a: &Array, indices: &Array, dim: Option<i64>) -> Result<Array> {
    let (a, indices) = (
        &crate::kernels::blocked::dense(a)?,
        &crate::kernels::blocked::dense(indices)?,
    );
    let Some(dim) = dim else {
        let flat = a.view(&[-1])?;
        if !matches!(indices.dtype(), DType::I32 | DType::I64) {
            return Err(Error::value(
                "gather(): Expected dtype int32/int64 for index",
            ));
        }
        let positions = index_values(indices)?;
        let size = flat.numel() as i64;
        if let Some(&bad) = positions.iter().find(|&&p| p < 0 || p >= size) {
            return Err(Error::value(format!(
                "index {bad} is out of bounds for dimension 0 with size {size}"
            )));
        }
        let len = positions.len();
        if len == 0 {
            return Array::empty(&[0], a.dtype(), MemoryFormat::Contiguous);
        }
        return gather(
            &flat,
            &[AdvancedItem::Indices(int64_vector(&positions, len)?)],
        );
    };
    if a.ndim() != indices.ndim() {
        return Err(Error::value(format!(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} dimensions for input, and {} dimensions for indices",
            a.ndim(),
            indices.ndim()
        )));
    }
    if indices.dtype() != DType::I64 {
        return Err(Error::value(format!(
            "torch.take_along_dim(): dtype of indices should be Long but got {}",
            indices.dtype().torch_name()
        )));
    }
    let dim = crate::shape::wrap_dim(dim, a.ndim())?;
    if a.ndim() == 0 {
        return Err(Error::index(format!(
            "Dimension specified as {dim} but tensor has no dimensions"
        )));
    }
    let mut a_sizes = a.shape().to_vec();
    a_sizes[dim] = indices.shape()[dim];
    let index_shape = infer_size(&a_sizes, indices.shape())?;
    let mut i_sizes = indices.shape().to_vec();
    i_sizes[dim] = a.shape()[dim];
    let input_shape = infer_size(&i_sizes, a.shape())?;
    let as_i64 = |s: &[usize]| s.iter().map(|&x| x as i64).collect::<Vec<_>>();
    let indices = indices.expand(&as_i64(&index_shape))?;
    let input = a.expand(&as_i64(&input_shape))?;
    let size = input.shape()[dim] as i64;
    let positions = index_values(&indices)?;
    if positions.is_empty() {
        return Array::empty(&index_shape, a.dtype(), MemoryFormat::Contiguous);
    }
    if size == 0 {
        // torch reduces the indices modulo 0
        return Err(Error::ZeroDivision);
    }
    // one index array per dim: positions along `dim`, and an arange shaped to broadcast
    // along every other dim
    let ndim = index_shape.len();
    let mut key = Vec::with_capacity(ndim);
    for d in 0..ndim {
        if d == dim {
            let wrapped: Vec<i64> = positions.iter().map(|&p| p.rem_euclid(size)).collect();
            let flat = int64_vector(&wrapped, wrapped.len())?;
            key.push(AdvancedItem::Indices(flat.view(&as_i64(&index_shape))?));
        } else {
            let n = index_shape[d];
            let range: Vec<i64> = (0..n as i64).collect();
            let mut shape = vec![1i64; ndim];
            shape[d] = n as i64;
            key.push(AdvancedItem::Indices(
                int64_vector(&range, n)?.view(&shape)?,
            ));
        }
    }
    gather(&input, &key)
}
