//! Integer-array and boolean-mask indexing ("advanced" indexing, torch's and numpy's rules):
//! `a[idx]` gathers into a new array, `a[idx] = v` scatters into `a`. A simple element loop
//! for now: the storage offsets of the selected elements are computed (and bounds-checked)
//! once, then bytes move through the storage's checked `read`/`write`.
#![forbid(unsafe_code)]

use crate::array::{element_offsets, Array};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::{IndexItem, Layout};
use crate::memory_format::MemoryFormat;
use crate::shape::{broadcast_shapes, fmt_shape};

/// One entry of a key that may hold index arrays.
#[derive(Clone, Debug)]
pub enum AdvancedItem {
    /// An int, slice, `None` or `...`.
    Basic(IndexItem),
    /// An integer array: picks positions along one dim.
    Indices(Array),
    /// A boolean array: picks the positions where it is true along as many dims as it has.
    Mask(Array),
}

impl AdvancedItem {
    /// How many dims of the indexed array the entry consumes (`...` counts none here).
    fn consumed(&self) -> usize {
        match self {
            AdvancedItem::Basic(IndexItem::Int(_) | IndexItem::Slice { .. }) => 1,
            AdvancedItem::Basic(_) => 0,
            AdvancedItem::Indices(_) => 1,
            AdvancedItem::Mask(m) => m.ndim(),
        }
    }
}

/// The elements a key selects: the result's shape and, in row-major order over it, each
/// element's offset (in elements) in the indexed array's storage.
#[derive(Debug)]
pub struct Selection {
    /// The result's shape.
    pub shape: Vec<usize>,
    /// Each selected element's offset (in elements) in the indexed array's storage, row-major over
    /// `shape`.
    pub offsets: Vec<isize>,
}

/// The true positions of a boolean mask, one index vector per mask dim (row-major order).
fn nonzero(mask: &Array) -> Result<Vec<Vec<i64>>> {
    let values = mask.to_scalars()?;
    let mut out = vec![Vec::new(); mask.ndim()];
    let mut index = vec![0usize; mask.ndim()];
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            for d in (0..index.len()).rev() {
                index[d] += 1;
                if index[d] < mask.shape()[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        if v.is_nonzero() {
            for (d, &i) in index.iter().enumerate() {
                out[d].push(i as i64);
            }
        }
    }
    Ok(out)
}

/// An index array as int64 values, broadcast to `shape`.
fn index_values(indices: &Array, shape: &[usize]) -> Result<Vec<i64>> {
    let target: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
    Ok(indices
        .expand(&target)?
        .to_scalars()?
        .iter()
        .map(|s| s.as_i64())
        .collect())
}

/// Resolves a key into the offsets it selects. Masks become index vectors; the basic entries
/// apply first (index arrays stand for a full `:` there); then the index arrays broadcast
/// together and their dims go where numpy and torch put them: in place when they are
/// adjacent, first otherwise.
pub fn select(a: &Array, key: &[AdvancedItem]) -> Result<Selection> {
    a.refuse_blocked("indexing and index assignments")?;
    let n = a.ndim();
    let specified: usize = key.iter().map(AdvancedItem::consumed).sum();
    if specified > n {
        return Err(Error::index(format!(
            "too many indices for tensor of dimension {n}"
        )));
    }
    // Pass 1: masks into index vectors, checked against the dims they cover.
    let mut items: Vec<(AdvancedItem, usize)> = Vec::new(); // entry, input dim it starts at
    let mut in_dim = 0usize;
    for item in key {
        match item {
            AdvancedItem::Mask(m) => {
                if m.ndim() == 0 {
                    return Err(Error::index(
                        "a 0-d boolean index is not supported by ferroiter",
                    ));
                }
                for j in 0..m.ndim() {
                    if m.shape()[j] != a.shape()[in_dim + j] {
                        return Err(Error::index(format!(
                            "The shape of the mask {} at index {j} does not match the shape of the indexed tensor {} at index {}",
                            fmt_shape(m.shape()),
                            fmt_shape(a.shape()),
                            in_dim + j
                        )));
                    }
                }
                for (j, positions) in nonzero(m)?.into_iter().enumerate() {
                    let len = positions.len();
                    let vector = int64_vector(positions, len)?;
                    items.push((AdvancedItem::Indices(vector), in_dim + j));
                }
                in_dim += m.ndim();
            }
            AdvancedItem::Basic(IndexItem::Ellipsis) => {
                items.push((item.clone(), in_dim));
                in_dim += n - specified;
            }
            other => {
                items.push((other.clone(), in_dim));
                in_dim += other.consumed();
            }
        }
    }
    // Pass 2: the basic view, and where each index array's dim lands in it.
    let mut basic = Vec::with_capacity(items.len());
    let mut advanced: Vec<(usize, usize, Array)> = Vec::new(); // view dim, input dim, indices
    let mut out_dim = 0usize;
    for (item, input_dim) in &items {
        match item {
            AdvancedItem::Indices(idx) => {
                advanced.push((out_dim, *input_dim, idx.clone()));
                basic.push(IndexItem::Slice {
                    start: None,
                    stop: None,
                    step: None,
                });
                out_dim += 1;
            }
            AdvancedItem::Basic(b) => {
                basic.push(*b);
                out_dim += match b {
                    IndexItem::Int(_) => 0,
                    IndexItem::Ellipsis => n - specified,
                    _ => 1,
                };
            }
            AdvancedItem::Mask(_) => unreachable!("masks were replaced in pass 1"),
        }
    }
    let view = a.index(&basic)?;
    if advanced.is_empty() {
        let offsets = element_offsets(view.layout()).collect();
        return Ok(Selection {
            shape: view.shape().to_vec(),
            offsets,
        });
    }
    let shapes: Vec<Vec<usize>> = advanced
        .iter()
        .map(|(_, _, i)| i.shape().to_vec())
        .collect();
    let bshape = broadcast_shapes(&shapes)?;
    let count: usize = bshape.iter().product();
    let mut adv_offsets = vec![0isize; count];
    for (dim, input_dim, indices) in &advanced {
        let size = view.shape()[*dim] as i64;
        let stride = view.strides()[*dim];
        for (slot, i) in adv_offsets.iter_mut().zip(index_values(indices, &bshape)?) {
            if i < -size || i >= size {
                return Err(Error::index(format!(
                    "index {i} is out of bounds for dimension {input_dim} with size {size}"
                )));
            }
            let i = if i < 0 { i + size } else { i };
            *slot += i as isize * stride;
        }
    }
    let dims: Vec<usize> = advanced.iter().map(|(d, _, _)| *d).collect();
    let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
    let first = dims[0];
    let rest: Vec<usize> = (0..view.ndim()).filter(|d| !dims.contains(d)).collect();
    let (pre, post): (Vec<usize>, Vec<usize>) = if adjacent {
        rest.iter().partition(|&&d| d < first)
    } else {
        (Vec::new(), rest)
    };
    let sub = |ds: &[usize]| Layout {
        shape: ds
            .iter()
            .map(|&d| view.shape()[d])
            .collect::<Vec<_>>()
            .into(),
        strides: ds
            .iter()
            .map(|&d| view.strides()[d])
            .collect::<Vec<_>>()
            .into(),
        offset: 0,
    };
    let (pre_layout, post_layout) = (sub(&pre), sub(&post));
    let pre_offsets: Vec<isize> = element_offsets(&pre_layout).collect();
    let post_offsets: Vec<isize> = element_offsets(&post_layout).collect();
    let mut offsets = Vec::with_capacity(pre_offsets.len() * count * post_offsets.len());
    for &p in &pre_offsets {
        for &m in &adv_offsets {
            for &q in &post_offsets {
                offsets.push(view.storage_offset() + p + m + q);
            }
        }
    }
    let mut shape: Vec<usize> = pre_layout.shape.to_vec();
    shape.extend_from_slice(&bshape);
    shape.extend_from_slice(&post_layout.shape);
    Ok(Selection { shape, offsets })
}

/// A 1-D int64 array of `values`.
fn int64_vector(values: Vec<i64>, len: usize) -> Result<Array> {
    let out = Array::empty(&[len], DType::I64, MemoryFormat::Contiguous)?;
    for (i, v) in values.iter().enumerate() {
        out.storage().write(i * 8, &v.to_ne_bytes())?;
    }
    Ok(out)
}

/// `a[key]`: a new contiguous array of the selected elements.
pub fn gather(a: &Array, key: &[AdvancedItem]) -> Result<Array> {
    let sel = select(a, key)?;
    let out = Array::empty(&sel.shape, a.dtype(), MemoryFormat::Contiguous)?;
    let itemsize = a.itemsize();
    let mut buf = [0u8; 16];
    for (i, &off) in sel.offsets.iter().enumerate() {
        a.storage()
            .read(off as usize * itemsize, &mut buf[..itemsize])?;
        out.storage().write(i * itemsize, &buf[..itemsize])?;
    }
    Ok(out)
}

/// `a[key] = values`: `values` (already of `a`'s dtype, and not aliasing `a`) broadcast to the
/// selection's shape and written element by element; with repeated indices the last write wins.
pub fn scatter(a: &Array, key: &[AdvancedItem], values: &Array) -> Result<()> {
    a.refuse_blocked("indexing and index assignments")?;
    let values = &crate::kernels::blocked::dense(values)?;
    a.storage().check_writable()?;
    if values.dtype() != a.dtype() {
        return Err(Error::DTypeMismatch {
            found: values.dtype(),
            expected: a.dtype(),
        });
    }
    let sel = select(a, key)?;
    let target: Vec<i64> = sel.shape.iter().map(|&s| s as i64).collect();
    let values = values.expand(&target).map_err(|_| {
        Error::value(format!(
            "shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}",
            fmt_shape(values.shape()),
            fmt_shape(&sel.shape)
        ))
    })?;
    let itemsize = a.itemsize();
    let mut buf = [0u8; 16];
    for (src, &dst) in element_offsets(values.layout()).zip(&sel.offsets) {
        values
            .storage()
            .read(src as usize * itemsize, &mut buf[..itemsize])?;
        a.storage()
            .write(dst as usize * itemsize, &buf[..itemsize])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scalar;

    fn arange(n: i64) -> Array {
        Array::arange(Scalar::Int(0), Scalar::Int(n), Scalar::Int(1), DType::I64).unwrap()
    }

    fn ints(a: &Array) -> Vec<i64> {
        a.to_scalars().unwrap().iter().map(|s| s.as_i64()).collect()
    }

    #[test]
    fn gathers_adjacent_and_separated_index_arrays() {
        let a = arange(24).view(&[2, 3, 4]).unwrap();
        let idx = int64_vector(vec![2, 0], 2).unwrap();
        // a[:, [2, 0]] keeps the index dim in place
        let key = [
            AdvancedItem::Basic(IndexItem::Slice {
                start: None,
                stop: None,
                step: None,
            }),
            AdvancedItem::Indices(idx.clone()),
        ];
        let g = gather(&a, &key).unwrap();
        assert_eq!(g.shape(), &[2, 2, 4]);
        assert_eq!(ints(&g)[..8], [8, 9, 10, 11, 0, 1, 2, 3]);
        // a[[1, 0], :, [2, 0]]: separated index arrays go first
        let first = int64_vector(vec![1, 0], 2).unwrap();
        let key = [
            AdvancedItem::Indices(first),
            AdvancedItem::Basic(IndexItem::Slice {
                start: None,
                stop: None,
                step: None,
            }),
            AdvancedItem::Indices(idx),
        ];
        let g = gather(&a, &key).unwrap();
        assert_eq!(g.shape(), &[2, 3]);
        assert_eq!(ints(&g), [14, 18, 22, 0, 4, 8]);
    }

    #[test]
    fn masks_and_bounds() {
        let a = arange(6);
        let mask = arange(6).view(&[6]).unwrap();
        let err = gather(
            &a,
            &[AdvancedItem::Indices(int64_vector(vec![6], 1).unwrap())],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "index 6 is out of bounds for dimension 0 with size 6"
        );
        let positions = nonzero(&mask).unwrap();
        assert_eq!(positions, vec![vec![1, 2, 3, 4, 5]]);
        scatter(
            &a,
            &[AdvancedItem::Indices(int64_vector(vec![0, 5], 2).unwrap())],
            &Array::full(&[], Scalar::Int(-1), DType::I64, MemoryFormat::Contiguous).unwrap(),
        )
        .unwrap();
        assert_eq!(ints(&a), [-1, 1, 2, 3, 4, -1]);
    }
}
