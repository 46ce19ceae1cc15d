//! `sort` and `argsort` along a dim, with torch's results: values and int64 indices laid out
//! with the input's strides when it is non-overlapping and dense (else dense in its order),
//! NaN last ascending and first descending, ties in input order. One stable order serves
//! `stable=True` and `stable=False` (torch's unstable sort may order ties otherwise; any order
//! of ties is a correct answer there). Lines sort in parallel, each on one task, so results
//! never depend on the thread count.
#![forbid(unsafe_code)]

use super::key::{directed_key, SortKey};
use crate::array::preserve_strides;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::raw::lines::{fill_lines, fill_lines1, Lines, LinesOut};
use crate::kernels::run::grain_size;
use crate::plan::reduction::wrap_dim;
use crate::Array;

/// `sort`'s pair of results.
#[derive(Debug, Clone)]
pub struct Sorted {
    /// The sorted values.
    pub values: Array,
    /// Each value's position along the sorted dim in the input (int64).
    pub indices: Array,
}

/// The order that sorts `line`: positions, ties in input order. `keyed` is scratch.
pub fn sort_order<T: SortKey>(line: &[T], descending: bool, keyed: &mut Vec<(u64, usize)>) {
    keyed.clear();
    keyed.extend(
        line.iter()
            .enumerate()
            .map(|(i, &x)| (directed_key(x, descending), i)),
    );
    // (key, position) pairs are all distinct, so an unstable sort gives the stable order.
    keyed.sort_unstable();
}

/// torch's refusal of complex sorts (a RuntimeError in torch).
pub(crate) fn check_sortable(dtype: DType) -> Result<()> {
    if dtype.is_complex() {
        return Err(Error::value(" Sort does not support complex dtypes on CPU"));
    }
    Ok(())
}

/// The lines of `a` along `dim` (wrapped) and the results' strides.
fn prepare(a: &Array, dim: i64) -> Result<(usize, Vec<isize>)> {
    let dim = wrap_dim(dim, a.ndim())?;
    check_sortable(a.dtype())?;
    Ok((dim, preserve_strides(a.layout())))
}

/// Elements of work of sorting lines of `len` (n log n, for the task count).
fn work(numel: usize, len: usize) -> usize {
    numel.saturating_mul((usize::BITS - len.leading_zeros()) as usize)
}

/// `sort(a, dim, descending, stable)`.
pub fn sort(a: &Array, dim: i64, descending: bool, _stable: bool) -> Result<Sorted> {
    let a = &crate::kernels::blocked::dense(a)?;
    let (dim, strides) = prepare(a, dim)?;
    crate::dispatch_ordered!(a.dtype(), T => {
        let lines = Lines::<T>::new(a, dim)?;
        let mut values = LinesOut::<T>::new(a.shape(), &strides, dim)?;
        let mut indices = LinesOut::<i64>::new(a.shape(), &strides, dim)?;
        let work = work(a.numel(), lines.len());
        let init = || (Vec::<T>::new(), Vec::<(u64, usize)>::new());
        fill_lines(&mut values, &mut indices, work, grain_size(), init, |(buf, keyed), m, v, ix| {
            lines.read(m, buf);
            sort_order(buf, descending, keyed);
            for ((slot, index), (_, i)) in v.iter_mut().zip(ix.iter_mut()).zip(keyed.iter()) {
                *slot = buf[*i];
                *index = *i as i64;
            }
        })?;
        Ok(Sorted { values: values.finish(), indices: indices.finish() })
    }, else unreachable_dtype(a.dtype()))
}

/// `argsort(a, dim, descending, stable)`: `sort`'s indices alone.
pub fn argsort(a: &Array, dim: i64, descending: bool, _stable: bool) -> Result<Array> {
    let a = &crate::kernels::blocked::dense(a)?;
    let (dim, strides) = prepare(a, dim)?;
    crate::dispatch_ordered!(a.dtype(), T => {
        let lines = Lines::<T>::new(a, dim)?;
        let mut indices = LinesOut::<i64>::new(a.shape(), &strides, dim)?;
        let work = work(a.numel(), lines.len());
        let init = || (Vec::<T>::new(), Vec::<(u64, usize)>::new());
        fill_lines1(&mut indices, work, grain_size(), init, |(buf, keyed), m, ix| {
            lines.read(m, buf);
            sort_order(buf, descending, keyed);
            for (index, &(_, i)) in ix.iter_mut().zip(keyed.iter()) {
                *index = i as i64;
            }
        })?;
        Ok(indices.finish())
    }, else unreachable_dtype(a.dtype()))
}

/// Complex dtypes are refused before dispatch; nothing else is left out.
fn unreachable_dtype<T>(dtype: DType) -> Result<T> {
    Err(Error::NotImplemented {
        kernel: "sort",
        dtype,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MemoryFormat, Scalar};

    fn ints(a: &Array) -> Vec<i64> {
        a.to_scalars()
            .unwrap()
            .into_iter()
            .map(|s| s.as_i64())
            .collect()
    }

    #[test]
    fn sorts_lines_of_a_transposed_array() {
        let a = Array::arange(Scalar::Int(0), Scalar::Int(6), Scalar::Int(1), DType::I64)
            .unwrap()
            .view(&[2, 3])
            .unwrap()
            .transpose(0, 1)
            .unwrap(); // [[0, 3], [1, 4], [2, 5]]
        let s = sort(&a, 0, true, true).unwrap();
        assert_eq!(ints(&s.values), vec![2, 5, 1, 4, 0, 3]);
        assert_eq!(ints(&s.indices), vec![2, 2, 1, 1, 0, 0]);
        assert_eq!(s.values.strides(), &[1, 3]);
        let e = Array::empty(&[2, 0], DType::F32, MemoryFormat::Contiguous).unwrap();
        assert_eq!(argsort(&e, 1, false, false).unwrap().shape(), &[2, 0]);
    }

    #[test]
    fn complex_is_refused() {
        let c = Array::empty(&[2], DType::C64, MemoryFormat::Contiguous).unwrap();
        assert_eq!(
            sort(&c, 0, false, false).unwrap_err().to_string(),
            " Sort does not support complex dtypes on CPU"
        );
    }
}
