//! `unique(a, sorted, return_inverse, return_counts, dim=None)` as torch's CPU kernel answers
//! it: the distinct values in ascending order (also for `sorted=False`, as torch's CPU kernel
//! returns them), each NaN a value of its own (NaN != NaN), -0 and +0 one value (the first
//! in input order kept, where torch's unstable sort may keep either); `inverse` has the
//! input's shape (contiguous), `counts` one per value, both int64.
#![forbid(unsafe_code)]

use super::key::SortKey;
use super::sort::sort_order;
use crate::error::{Error, Result};
use crate::exec::raw::lines::{from_slice, to_vec};
use crate::Array;

/// `unique`'s results: the values, and the inverse and counts when asked for.
#[derive(Debug, Clone)]
pub struct Unique {
    /// The distinct values, ascending.
    pub values: Array,
    /// For each input element, the index of its value in `values` (int64, the input's shape);
    /// `None` unless asked for.
    pub inverse: Option<Array>,
    /// How many times each value occurs (int64); `None` unless asked for.
    pub counts: Option<Array>,
}

/// Groups of equal elements of `all`, in ascending order: each group's first position (in
/// input order) and the group of every position.
fn groups<T: SortKey>(all: &[T]) -> (Vec<usize>, Vec<i64>, Vec<i64>) {
    let mut keyed = Vec::new();
    sort_order(all, false, &mut keyed);
    let mut firsts: Vec<usize> = Vec::new();
    let mut counts: Vec<i64> = Vec::new();
    let mut inverse = vec![0i64; all.len()];
    let mut previous: Option<u64> = None;
    for &(key, i) in &keyed {
        let same = previous == Some(key) && !all[i].is_nan();
        if !same {
            firsts.push(i);
            counts.push(0);
        }
        previous = Some(key);
        if let Some(c) = counts.last_mut() {
            *c += 1;
        }
        inverse[i] = firsts.len() as i64 - 1;
    }
    (firsts, inverse, counts)
}

/// `unique(a, sorted, return_inverse, return_counts)` over the flattened array.
pub fn unique(
    a: &Array,
    _sorted: bool,
    return_inverse: bool,
    return_counts: bool,
) -> Result<Unique> {
    let a = &crate::kernels::blocked::dense(a)?;
    crate::dispatch_ordered!(a.dtype(), T => {
        let all = to_vec::<T>(a)?;
        let (firsts, inverse, counts) = groups(&all);
        let values: Vec<T> = firsts.iter().map(|&i| all[i]).collect();
        Ok(Unique {
            values: from_slice(&values, &[values.len()])?,
            inverse: if return_inverse { Some(from_slice(&inverse, a.shape())?) } else { None },
            counts: if return_counts { Some(from_slice(&counts, &[counts.len()])?) } else { None },
        })
    }, else Err(Error::NotImplemented { kernel: "unique", dtype: a.dtype() }))
}

/// `unique(a, dim=d)`: the distinct slices along `d`, in lexicographic order (each slice
/// compared element by element in row-major order, a slice holding NaN equal to no other),
/// laid out as torch does: a contiguous `(groups, other dims...)` array with `d` moved back
/// into place; `inverse` has one entry per slice. (torch's comparator treats NaN as equal to
/// everything while sorting, so where slices hold NaN its order is its sort's accident; here
/// NaN sorts last.)
pub fn unique_dim(
    a: &Array,
    dim: i64,
    return_inverse: bool,
    return_counts: bool,
) -> Result<Unique> {
    let a = &crate::kernels::blocked::dense(a)?;
    if a.ndim() == 0 {
        return Err(Error::index(format!(
            "Dimension specified as {dim} but tensor has no dimensions"
        )));
    }
    let d = crate::plan::reduction::wrap_dim(dim, a.ndim())?;
    let zero_dims = a.shape().iter().filter(|&&n| n == 0).count();
    if zero_dims > 0 && a.shape()[d] != 0 {
        return Err(Error::value(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied",
        ));
    }
    if zero_dims > 1 {
        return Err(Error::value(
            "Number of zero sized dimensions is more than one, so unique cannot be applied ",
        ));
    }
    let mut order: Vec<i64> = (0..a.ndim() as i64).collect();
    order.remove(d);
    order.insert(0, d as i64);
    let front = a.permute(&order)?;
    let slices = a.shape()[d];
    let width: usize = front.shape()[1..].iter().product();
    crate::dispatch_ordered!(a.dtype(), T => {
        let all = to_vec::<T>(&front)?;
        let row = |i: usize| &all[i * width..(i + 1) * width];
        let keys = |i: usize| row(i).iter().map(|x| x.key());
        let mut rows: Vec<usize> = (0..slices).collect();
        rows.sort_by(|&i, &j| keys(i).cmp(keys(j)));
        let mut firsts: Vec<usize> = Vec::new();
        let mut counts: Vec<i64> = Vec::new();
        let mut inverse = vec![0i64; slices];
        for (k, &i) in rows.iter().enumerate() {
            let same = k > 0
                && keys(rows[k - 1]).eq(keys(i))
                && !row(i).iter().any(|x| x.is_nan());
            if !same {
                firsts.push(i);
                counts.push(0);
            }
            if let Some(c) = counts.last_mut() {
                *c += 1;
            }
            inverse[i] = firsts.len() as i64 - 1;
        }
        let values: Vec<T> = firsts.iter().flat_map(|&i| row(i).iter().copied()).collect();
        let mut shape = front.shape().to_vec();
        shape[0] = firsts.len();
        let values = from_slice(&values, &shape)?;
        let mut back: Vec<i64> = (1..a.ndim() as i64).collect();
        back.insert(d, 0);
        let values = if a.numel() == 0 {
            let mut empty_shape = a.shape().to_vec();
            empty_shape[d] = 0;
            from_slice::<T>(&[], &empty_shape)?
        } else {
            values.permute(&back)?
        };
        Ok(Unique {
            values,
            inverse: if return_inverse { Some(from_slice(&inverse, &[slices])?) } else { None },
            counts: if return_counts { Some(from_slice(&counts, &[counts.len()])?) } else { None },
        })
    }, else Err(Error::NotImplemented { kernel: "unique_dim", dtype: a.dtype() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_is_unique_and_zeros_are_one() {
        let xs = [3.0f64, 1.0, f64::NAN, 1.0, f64::NAN, -0.0, 0.0];
        let (firsts, inverse, counts) = groups(&xs);
        assert_eq!(firsts, vec![5, 1, 0, 2, 4]);
        assert_eq!(inverse, vec![2, 1, 3, 1, 4, 0, 0]);
        assert_eq!(counts, vec![2, 2, 1, 1, 1]);
    }
}
