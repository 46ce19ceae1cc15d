//! Integer-array and boolean-mask indexing ("advanced" indexing, torch's and numpy's rules):
//! `a[idx]` gathers into a new array, `a[idx] = v` scatters into `a`. Index arrays and masks are
//! read once into int64 positions, the storage offsets of the selected elements computed (and
//! bounds-checked) from them, then the elements move through [`Storage::copy_runs`]. A
//! mask assignment whose value does not vary along the selection (`a[a < 0] = 0`) is
//! `where(mask, value, a)` into `a` instead: one parallel elementwise pass.
//!
//! [`Storage::copy_runs`]: crate::storage::Storage::copy_runs
#![forbid(unsafe_code)]

use crate::array::{element_offsets, Array};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::raw::lines;
use crate::kernels::args::Arg;
use crate::kernels::copy;
use crate::kernels::reduce::Accumulate;
use crate::kernels::ternary::where_;
use crate::layout::{IndexItem, Layout};
use crate::memory_format::MemoryFormat;
use crate::shape::{broadcast_shapes, fmt_shape};
use std::sync::Arc;

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

/// The elements a key selects: the result's shape and where its elements lie in the indexed
/// array's storage, as runs of `run` consecutive elements (the trailing dims that the key
/// leaves whole and that are contiguous there).
#[derive(Debug)]
pub struct Selection {
    /// The result's shape.
    pub shape: Vec<usize>,
    /// Where each run starts (in elements from the storage's start), row-major over `shape`.
    pub offsets: Vec<isize>,
    /// Elements per run: the result's last dims, consecutive in the storage.
    pub run: usize,
    /// How many of the result's last dims make up a run.
    pub run_dims: usize,
}

/// Index positions as int64 values, row-major over `shape` (a mask's coordinates along one
/// of its dims, or an index array's values).
struct IndexVec {
    shape: Vec<usize>,
    values: Vec<i64>,
}

impl IndexVec {
    /// An index array's values, read once (any integer dtype, any layout).
    fn of(indices: &Array) -> Result<IndexVec> {
        let dense = crate::kernels::blocked::dense(indices)?;
        let as_i64 = if dense.dtype() == DType::I64 {
            dense
        } else {
            crate::kernels::copy::converted_copy(
                &dense,
                Some(DType::I64),
                MemoryFormat::Contiguous,
            )?
        };
        Ok(IndexVec {
            shape: as_i64.shape().to_vec(),
            values: lines::to_vec::<i64>(&as_i64)?,
        })
    }
}

/// Where the true elements of a boolean (or uint8) mask lie, row-major: the sum over its dims
/// of each coordinate times `strides` (the indexed view's strides along the dims it covers).
fn mask_offsets(mask: &Array, strides: &[isize]) -> Result<Vec<isize>> {
    let mask = crate::kernels::blocked::dense(mask)?;
    crate::dispatch_in!(mask.dtype(), T in [Bool, U8] => {
        let lines = lines::Lines::<T>::new(&mask, mask.ndim() - 1)?;
        let shape = mask.shape();
        let inner = strides[strides.len() - 1];
        // without a branch per element: each of a row's positions is stored in a scratch,
        // and the count moves on past it only when the flag is set (a random mask would
        // mispredict every other branch)
        let mut offsets = Vec::new();
        let mut scratch = vec![0isize; lines.len()];
        let mut row = Vec::new();
        for (m, base) in row_starts(shape, strides, 0).into_iter().enumerate() {
            lines.read(m, &mut row);
            let mut found = 0usize;
            for (j, flag) in row.iter().enumerate() {
                scratch[found] = base + j as isize * inner;
                found += flag.nonzero() as usize;
            }
            offsets.extend_from_slice(&scratch[..found]);
        }
        Ok(offsets)
    }, else Err(Error::index("a mask must be bool or uint8")))
}

/// The layout of `a`'s dims `dims` alone (their sizes and strides, in that order), from
/// `offset`.
fn dims_layout(a: &Array, dims: &[usize], offset: isize) -> Layout {
    Layout {
        shape: dims
            .iter()
            .map(|&d| a.shape()[d])
            .collect::<Vec<_>>()
            .into(),
        strides: dims
            .iter()
            .map(|&d| a.strides()[d])
            .collect::<Vec<_>>()
            .into(),
        offset,
    }
}

/// Where each row (along the last dim) of a `shape` laid over `strides` starts, row-major.
fn row_starts(shape: &[usize], strides: &[isize], offset: isize) -> Vec<isize> {
    let k = shape.len() - 1;
    let rows = Layout {
        shape: shape[..k].to_vec().into(),
        strides: strides[..k].to_vec().into(),
        offset,
    };
    element_offsets(&rows).collect()
}

/// Refuses a mask that is 0-d or whose sizes differ from `a`'s dims from `in_dim` on
/// (torch's message).
fn check_mask(a: &Array, m: &Array, in_dim: usize) -> Result<()> {
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
    Ok(())
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
    // Pass 1: index arrays read once, masks checked against the dims they cover.
    enum Entry<'k> {
        Basic(IndexItem),
        Indices(IndexVec),
        Mask(&'k Array),
    }
    let mut items: Vec<(Entry, usize)> = Vec::new(); // entry, input dim it starts at
    let mut in_dim = 0usize;
    for item in key {
        match item {
            AdvancedItem::Mask(m) => {
                check_mask(a, m, in_dim)?;
                items.push((Entry::Mask(m), in_dim));
                in_dim += m.ndim();
            }
            AdvancedItem::Indices(idx) => {
                items.push((Entry::Indices(IndexVec::of(idx)?), in_dim));
                in_dim += 1;
            }
            AdvancedItem::Basic(b @ IndexItem::Ellipsis) => {
                items.push((Entry::Basic(*b), in_dim));
                in_dim += n - specified;
            }
            AdvancedItem::Basic(b) => {
                items.push((Entry::Basic(*b), in_dim));
                in_dim += item.consumed();
            }
        }
    }
    // Pass 2: the basic view (index arrays and masks stand for `:` there), and the view dims
    // each index array or mask covers.
    let full = IndexItem::Slice {
        start: None,
        stop: None,
        step: None,
    };
    let mut basic = Vec::with_capacity(items.len());
    let mut covered: Vec<(usize, usize, Entry)> = Vec::new(); // first view dim, input dim, entry
    let mut out_dim = 0usize;
    for (item, input_dim) in items {
        match item {
            Entry::Basic(b) => {
                basic.push(b);
                out_dim += match b {
                    IndexItem::Int(_) => 0,
                    IndexItem::Ellipsis => n - specified,
                    _ => 1,
                };
            }
            Entry::Indices(_) | Entry::Mask(_) => {
                let k = match &item {
                    Entry::Mask(m) => m.ndim(),
                    _ => 1,
                };
                basic.extend(std::iter::repeat_n(full, k));
                covered.push((out_dim, input_dim, item));
                out_dim += k;
            }
        }
    }
    let view = a.index(&basic)?;
    if covered.is_empty() {
        let offsets = element_offsets(view.layout()).collect();
        return Ok(Selection {
            shape: view.shape().to_vec(),
            offsets,
            run: 1,
            run_dims: 0,
        });
    }
    // Each entry's part of the offsets: a mask's true positions (always in range), then the
    // index arrays' values, bounds-checked once their shapes broadcast (torch's order).
    let mut dims: Vec<usize> = Vec::new();
    let mut parts: Vec<Option<(Vec<usize>, Vec<isize>)>> = Vec::new();
    for (dim, _, entry) in &covered {
        match entry {
            Entry::Mask(m) => {
                let offsets = mask_offsets(m, &view.strides()[*dim..*dim + m.ndim()])?;
                dims.extend(*dim..*dim + m.ndim());
                parts.push(Some((vec![offsets.len()], offsets)));
            }
            _ => {
                dims.push(*dim);
                parts.push(None);
            }
        }
    }
    let shapes: Vec<Vec<usize>> = covered
        .iter()
        .zip(&parts)
        .map(|((_, _, entry), part)| match (entry, part) {
            (_, Some((shape, _))) => shape.clone(),
            (Entry::Indices(idx), None) => idx.shape.clone(),
            _ => unreachable!("every mask has its part"),
        })
        .collect();
    let bshape = broadcast_shapes(&shapes)?;
    for ((dim, input_dim, entry), part) in covered.iter().zip(parts.iter_mut()) {
        if let (Entry::Indices(idx), None) = (entry, &part) {
            let size = view.shape()[*dim] as i64;
            let stride = view.strides()[*dim];
            let mut offsets = Vec::with_capacity(idx.values.len());
            for &i in &idx.values {
                if i < -size || i >= size {
                    return Err(Error::index(format!(
                        "index {i} is out of bounds for dimension {input_dim} with size {size}"
                    )));
                }
                let i = if i < 0 { i + size } else { i };
                offsets.push(i as isize * stride);
            }
            *part = Some((idx.shape.clone(), offsets));
        }
    }
    let mut parts = parts.into_iter().flatten();
    let adv_offsets: Vec<isize> = match (parts.next(), parts.next()) {
        (Some((shape, offsets)), None) if shape == bshape => offsets,
        (first, second) => {
            let count: usize = bshape.iter().product();
            let mut sum = vec![0isize; count];
            for (shape, offsets) in first.into_iter().chain(second).chain(parts) {
                for (slot, o) in sum.iter_mut().zip(broadcast(&offsets, &shape, &bshape)) {
                    *slot += o;
                }
            }
            sum
        }
    };
    let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
    let first = dims[0];
    let rest: Vec<usize> = (0..view.ndim()).filter(|d| !dims.contains(d)).collect();
    let (pre, post): (Vec<usize>, Vec<usize>) = if adjacent {
        rest.iter().partition(|&&d| d < first)
    } else {
        (Vec::new(), rest)
    };
    let (run, whole) = trailing_run(&view, &post);
    let (pre_layout, outer_layout) = (
        dims_layout(&view, &pre, 0),
        dims_layout(&view, &post[..whole], 0),
    );
    let mut shape: Vec<usize> = pre_layout.shape.to_vec();
    shape.extend_from_slice(&bshape);
    shape.extend(post.iter().map(|&d| view.shape()[d]));
    if run == 0 || shape.contains(&0) {
        return Ok(Selection {
            shape,
            offsets: Vec::new(),
            run: 1,
            run_dims: 0,
        });
    }
    let pre_offsets: Vec<isize> = element_offsets(&pre_layout).collect();
    let outer_offsets: Vec<isize> = element_offsets(&outer_layout).collect();
    let offsets = if let ([p], [q]) = (&pre_offsets[..], &outer_offsets[..]) {
        // one run per index position (a mask over all dims, rows picked whole)
        let shift = view.storage_offset() + p + q;
        let mut offsets = adv_offsets;
        offsets.iter_mut().for_each(|o| *o += shift);
        offsets
    } else {
        let mut offsets =
            Vec::with_capacity(pre_offsets.len() * adv_offsets.len() * outer_offsets.len());
        for &p in &pre_offsets {
            for &m in &adv_offsets {
                let start = view.storage_offset() + p + m;
                offsets.extend(outer_offsets.iter().map(|&q| start + q));
            }
        }
        offsets
    };
    Ok(Selection {
        shape,
        offsets,
        run,
        run_dims: post.len() - whole,
    })
}

/// `values` (row-major over `shape`) broadcast to `target`, row-major.
fn broadcast<'v, T: Copy>(
    values: &'v [T],
    shape: &[usize],
    target: &[usize],
) -> impl Iterator<Item = T> + 'v {
    let own = crate::dims::contiguous_strides(shape);
    let lead = target.len() - shape.len();
    let strides: Vec<isize> = (0..target.len())
        .map(|d| match d.checked_sub(lead) {
            Some(k) if shape[k] != 1 => own[k],
            _ => 0,
        })
        .collect();
    let layout = Layout {
        shape: target.to_vec().into(),
        strides: strides.into(),
        offset: 0,
    };
    let offsets: Vec<isize> = element_offsets(&layout).collect();
    offsets.into_iter().map(move |i| values[i as usize])
}

/// The trailing dims among `dims` (dims of `view`) that lie contiguous in the storage, so that
/// they move as runs: how many elements a run holds, and how many of `dims` come before them.
fn trailing_run(view: &Array, dims: &[usize]) -> (usize, usize) {
    let mut run = 1usize;
    let mut whole = dims.len();
    while let Some(&d) = dims[..whole].last() {
        let (size, stride) = (view.shape()[d], view.strides()[d]);
        if size != 1 && stride != run as isize {
            break;
        }
        run *= size;
        whole -= 1;
    }
    (run, whole)
}

/// Positions of a mask row handled per copy call: a bounded table of offsets, whatever the
/// mask's size.
const MASK_CHUNK: usize = 4096;

/// `a[mask]` for a mask over `a`'s leading dims (checked): the mask walked row by row, each
/// true position's elements copied straight into the result. No table of every offset: for a
/// large mask its page faults cost more than the copy itself.
fn gather_masked(a: &Array, mask: &Array) -> Result<Array> {
    let mask = crate::kernels::blocked::dense(mask)?;
    let k = mask.ndim();
    let rest: Vec<usize> = (k..a.ndim()).collect();
    let (run, whole) = trailing_run(a, &rest);
    let outer = dims_layout(a, &rest[..whole], 0);
    let outer_offsets: Vec<isize> = element_offsets(&outer).collect();
    crate::dispatch_in!(mask.dtype(), T in [Bool, U8] => {
        let lines = lines::Lines::<T>::new(&mask, k - 1)?;
        let mut row = Vec::new();
        let mut count = 0usize;
        for r in 0..lines.count() {
            lines.read(r, &mut row);
            count += row.iter().filter(|x| x.nonzero()).count();
        }
        let mut shape = vec![count];
        shape.extend_from_slice(&a.shape()[k..]);
        let out = Array::empty(&shape, a.dtype(), MemoryFormat::Contiguous)?;
        if out.numel() == 0 {
            return Ok(out);
        }
        let strides = &a.strides()[..k];
        let inner = strides[k - 1];
        let mut from = Vec::new();
        let mut next = 0isize; // the result's next run
        let starts = row_starts(mask.shape(), strides, a.storage_offset());
        for (r, base) in starts.into_iter().enumerate() {
            lines.read(r, &mut row);
            for (c, chunk) in row.chunks(MASK_CHUNK).enumerate() {
                from.clear();
                let first = base + (c * MASK_CHUNK) as isize * inner;
                if let [q] = outer_offsets[..] {
                    // one run per position: no branch per flag (a random mask would
                    // mispredict every other one)
                    from.resize(chunk.len(), 0);
                    let mut found = 0usize;
                    for (j, x) in chunk.iter().enumerate() {
                        from[found] = first + j as isize * inner + q;
                        found += x.nonzero() as usize;
                    }
                    from.truncate(found);
                } else {
                    for (j, x) in chunk.iter().enumerate() {
                        if x.nonzero() {
                            let start = first + j as isize * inner;
                            from.extend(outer_offsets.iter().map(|&q| start + q));
                        }
                    }
                }
                let n = from.len() as isize;
                out.storage().copy_runs(
                    (next..next + n).map(|i| i * run as isize),
                    a.storage(),
                    from.iter().copied(),
                    a.itemsize(),
                    run,
                )?;
                next += n;
            }
        }
        Ok(out)
    }, else Err(Error::index("a mask must be bool or uint8")))
}

/// `a[key]`: a new contiguous array of the selected elements.
pub fn gather(a: &Array, key: &[AdvancedItem]) -> Result<Array> {
    if let [AdvancedItem::Mask(m)] = key {
        if (1..=a.ndim()).contains(&m.ndim()) {
            a.refuse_blocked("indexing and index assignments")?;
            check_mask(a, m, 0)?;
            return gather_masked(a, m);
        }
    }
    let sel = select(a, key)?;
    let out = Array::empty(&sel.shape, a.dtype(), MemoryFormat::Contiguous)?;
    let run = sel.run as isize;
    out.storage().copy_runs(
        (0..sel.offsets.len() as isize).map(|i| i * run),
        a.storage(),
        sel.offsets.iter().copied(),
        a.itemsize(),
        sel.run,
    )?;
    Ok(out)
}

/// For `a[mask] = values` where the values do not change along the selection's first dim
/// (one value, or values that broadcast over the dims after the mask's): `values` spread over
/// the whole of `a`. `None` sends every other case (values per selected position, a mask that
/// shares `a`'s memory, the errors) to the general path.
fn mask_fill_values(a: &Array, m: &Array, values: &Array) -> Result<Option<Array>> {
    if m.ndim() == 0 || m.ndim() > a.ndim() || Arc::ptr_eq(m.storage(), a.storage()) {
        return Ok(None);
    }
    // a mask over leading dims whose trailing block is contiguous: the general path writes
    // each selected block as one run, faster than a pass over all of `a`
    let trailing: Vec<usize> = (m.ndim()..a.ndim()).collect();
    if trailing_run(a, &trailing).0 > 1 {
        return Ok(None);
    }
    check_mask(a, m, 0)?;
    let rest = &a.shape()[m.ndim()..];
    let mut v = values.clone();
    if v.ndim() == rest.len() + 1 && v.shape()[0] == 1 {
        v = v.squeeze(Some(&[0]))?;
    }
    let fits = v.ndim() <= rest.len()
        && v.shape()
            .iter()
            .rev()
            .zip(rest.iter().rev())
            .all(|(&vs, &rs)| vs == 1 || vs == rs);
    if !fits {
        return Ok(None);
    }
    let target: Vec<i64> = a.shape().iter().map(|&s| s as i64).collect();
    Ok(Some(v.expand(&target)?))
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
    if let [AdvancedItem::Mask(m)] = key {
        if let Some(spread) = mask_fill_values(a, m, values)? {
            // every selected element takes the value at its own position: `where(mask,
            // values, a)` into `a`, one parallel elementwise pass without positions
            let mut mask = m.clone();
            while mask.ndim() < a.ndim() {
                mask = mask.unsqueeze(mask.ndim() as i64)?;
            }
            where_(
                &mask,
                &Arg::Array(spread),
                &Arg::Array(a.clone()),
                Some(a.clone()),
            )?;
            return Ok(());
        }
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
    if sel.run == 1 {
        return a.storage().copy_runs(
            sel.offsets.iter().copied(),
            values.storage(),
            element_offsets(values.layout()),
            a.itemsize(),
            1,
        );
    }
    if sel.offsets.is_empty() {
        return Ok(());
    }
    // values that repeat along the dims before the runs (one value, a row for every selected
    // row) are laid out once, as one run; others as the selection is
    let lead = values.ndim() - sel.run_dims;
    let repeated = values.strides()[..lead].iter().all(|&s| s == 0);
    let first = vec![IndexItem::Int(0); if repeated { lead } else { 0 }];
    let laid_out = copy::converted_copy(&values.index(&first)?, None, MemoryFormat::Contiguous)?;
    let step = if repeated { 0 } else { sel.run as isize };
    a.storage().copy_runs(
        sel.offsets.iter().copied(),
        laid_out.storage(),
        (0..sel.offsets.len() as isize).map(|i| i * step),
        a.itemsize(),
        sel.run,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::element::Bool;
    use crate::Scalar;

    fn arange(n: i64) -> Array {
        Array::arange(Scalar::Int(0), Scalar::Int(n), Scalar::Int(1), DType::I64).unwrap()
    }

    fn int64_vector(values: Vec<i64>, len: usize) -> Result<Array> {
        Array::from_values(&values, &[len])
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
        let err = gather(
            &a,
            &[AdvancedItem::Indices(int64_vector(vec![6], 1).unwrap())],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "index 6 is out of bounds for dimension 0 with size 6"
        );
        let flags: Vec<Bool> = (0..6).map(|i| Bool::new(i != 0)).collect();
        let mask = Array::from_values(&flags, &[2, 3]).unwrap();
        assert_eq!(mask_offsets(&mask, &[10, 3]).unwrap(), [3, 6, 10, 13, 16]);
        scatter(
            &a,
            &[AdvancedItem::Indices(int64_vector(vec![0, 5], 2).unwrap())],
            &Array::full(&[], Scalar::Int(-1), DType::I64, MemoryFormat::Contiguous).unwrap(),
        )
        .unwrap();
        assert_eq!(ints(&a), [-1, 1, 2, 3, 4, -1]);
    }

    /// `a[mask] = v` through `where` (one value, a value per trailing position) and through
    /// the general path (a value per selected position) give the same elements.
    #[test]
    fn mask_assignments_fill_and_scatter() {
        let mask = Array::from_values(&[Bool::new(true), Bool::new(false), Bool::new(true)], &[3])
            .unwrap();
        let key = [AdvancedItem::Mask(mask)];
        let a = arange(6).view(&[3, 2]).unwrap();
        let one = Array::full(&[], Scalar::Int(-1), DType::I64, MemoryFormat::Contiguous).unwrap();
        scatter(&a, &key, &one).unwrap();
        assert_eq!(ints(&a), [-1, -1, 2, 3, -1, -1]);
        let row = int64_vector(vec![7, 8], 2).unwrap().view(&[1, 2]).unwrap();
        scatter(&a, &key, &row).unwrap();
        assert_eq!(ints(&a), [7, 8, 2, 3, 7, 8]);
        let per_row = int64_vector(vec![1, 2], 2).unwrap().view(&[2, 1]).unwrap();
        scatter(&a, &key, &per_row).unwrap();
        assert_eq!(ints(&a), [1, 1, 2, 3, 2, 2]);
        let wrong = int64_vector(vec![1, 2, 3], 3).unwrap();
        let err = scatter(&a, &key, &wrong).unwrap_err();
        assert_eq!(
            err.to_string(),
            "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 2]"
        );
    }

    /// The mask walk (`gather_masked`) and the general selection (the same mask followed by
    /// `...`) pick the same elements, on a permuted view with a mask over one and two dims.
    #[test]
    fn mask_walk_matches_the_general_selection() {
        let a = arange(60)
            .view(&[3, 4, 5])
            .unwrap()
            .permute(&[2, 0, 1])
            .unwrap();
        for mask_shape in [vec![5], vec![5, 3], vec![5, 3, 4]] {
            let n: usize = mask_shape.iter().product();
            let flags: Vec<Bool> = (0..n).map(|i| Bool::new(i % 3 != 1)).collect();
            let mask = Array::from_values(&flags, &mask_shape).unwrap();
            let walked = gather(&a, &[AdvancedItem::Mask(mask.clone())]).unwrap();
            let general = gather(
                &a,
                &[
                    AdvancedItem::Mask(mask),
                    AdvancedItem::Basic(IndexItem::Ellipsis),
                ],
            )
            .unwrap();
            assert_eq!(walked.shape(), general.shape());
            assert_eq!(ints(&walked), ints(&general));
        }
    }
}
