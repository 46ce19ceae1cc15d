//! `searchsorted(sorted_sequence, values, *, out_int32, right, side, sorter)` with torch's
//! rules: boundaries of one dim serve every value, otherwise the leading dims must match
//! exactly (no broadcasting); both operands compare in their promoted dtype; the result has
//! the values' shape, contiguous, int64 (int32 with `out_int32`). The binary search compares
//! as torch's does (`!(b >= v)` goes right for the left side, `!(b > v)` for the right), so NaN
//! values land after every boundary.
#![forbid(unsafe_code)]

use crate::dtype::{result_type, DType, Participant};
use crate::error::{Error, Result};
use crate::exec::raw::lines::{fill_lines1, to_vec, Lines, LinesOut};
use crate::kernels::copy::converted_copy;
use crate::kernels::element::Element;
use crate::kernels::reduce::Ordered;
use crate::kernels::run::grain_size;
use crate::shape::fmt_shape;
use crate::{Array, MemoryFormat};

/// The first position in `0..n` of the boundaries (`at(k)` the k-th in order) where `v` goes.
fn bound<K: PartialOrd + Copy>(n: usize, at: impl Fn(usize) -> K, v: K, right: bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let b = at(mid);
        // NaN compares false either way, so it goes right: written as torch writes it
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let go_right = if right { !(b > v) } else { !(b >= v) };
        if go_right {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// torch's argument checks, in its order; returns whether the right side was asked for.
fn check_args(
    sorted: &Array,
    values: &Array,
    right: bool,
    side: Option<&str>,
    sorter: Option<&Array>,
) -> Result<bool> {
    let mut right = right;
    if let Some(side) = side {
        if side != "left" && side != "right" {
            return Err(Error::value(format!(
                "torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )));
        }
        if right && side == "left" {
            return Err(Error::value(format!(
                "torch.searchsorted(): side and right can't be set to opposites, got side of {side} while right was True"
            )));
        }
        right = side == "right";
    }
    if let Some(s) = sorter {
        if s.dtype() != DType::I64 {
            return Err(Error::value(format!(
                "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype {}",
                s.dtype().torch_name()
            )));
        }
        if s.shape() != sorted.shape() {
            return Err(Error::value(format!(
                "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor {}and got sorter tensor {}",
                fmt_shape(sorted.shape()),
                fmt_shape(s.shape())
            )));
        }
    }
    if values.ndim() == 0 && sorted.ndim() != 1 {
        return Err(Error::value(format!(
            "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we got boundaries tensor dim({}) and input value's dim({}) numel({})",
            sorted.ndim(),
            values.ndim(),
            values.numel()
        )));
    }
    if sorted.ndim() == 0 {
        return Err(Error::value(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension",
        ));
    }
    let lead = |a: &Array| a.shape()[..a.ndim() - 1].to_vec();
    if sorted.ndim() != 1 && (values.ndim() == 0 || lead(sorted) != lead(values)) {
        return Err(Error::value(format!(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor {} and input value tensor {}",
            fmt_shape(sorted.shape()),
            fmt_shape(values.shape())
        )));
    }
    Ok(right)
}

/// `searchsorted(sorted_sequence, values, out_int32=, right=, side=, sorter=)`.
pub fn searchsorted(
    sorted: &Array,
    values: &Array,
    out_int32: bool,
    right: bool,
    side: Option<&str>,
    sorter: Option<&Array>,
) -> Result<Array> {
    let (sorted, values) = (
        &crate::kernels::blocked::dense(sorted)?,
        &crate::kernels::blocked::dense(values)?,
    );
    let sorter = sorter.map(crate::kernels::blocked::dense).transpose()?;
    let sorter = sorter.as_ref();
    let right = check_args(sorted, values, right, side, sorter)?;
    // torch's result_type of the two tensors: a 0-d operand ranks below one with dims of the
    // same category (uint8 boundaries and 0-d int8 values compare as uint8).
    let common = result_type(&[
        Participant::of(sorted.dtype(), sorted.ndim(), false),
        Participant::of(values.dtype(), values.ndim(), false),
    ])?;
    let as_common = |a: &Array| {
        if a.dtype() == common {
            Ok(a.clone())
        } else {
            converted_copy(a, Some(common), MemoryFormat::Contiguous)
        }
    };
    let (sorted, values) = (as_common(sorted)?, as_common(values)?);
    let line_dim = |a: &Array| a.ndim().saturating_sub(1);
    // torch checks the sorter's indices while searching; an index out of range anywhere
    // fails the call, so they are checked first here.
    let order: Option<Vec<i64>> = match sorter {
        Some(s) => {
            let all = to_vec::<i64>(s)?;
            let len = sorted.shape()[sorted.ndim() - 1] as i64;
            if all.iter().any(|&k| k < 0 || k >= len) {
                return Err(Error::value(
                    "torch.searchsorted(): sorter index out of range",
                ));
            }
            Some(all)
        }
        None => None,
    };
    let shape = values.shape().to_vec();
    let dim = line_dim(&values);
    crate::dispatch_in!(common, T in [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64] => {
        let bounds = Lines::<T>::new(&sorted, line_dim(&sorted))?;
        let vals = Lines::<T>::new(&values, dim)?;
        let search = Search { bounds: &bounds, values: &vals, shared: sorted.ndim() == 1, order: order.as_deref(), right };
        if out_int32 {
            search.run::<i32>(&shape, dim)
        } else {
            search.run::<i64>(&shape, dim)
        }
    }, else Err(Error::NotImplemented { kernel: "searchsorted_out_cpu", dtype: common }))
}

/// One search: the boundary lines (one shared line, or one per values line), the values'
/// lines, the sorter's positions (row-major, one row per boundary line) and the side.
struct Search<'a, T> {
    bounds: &'a Lines<T>,
    values: &'a Lines<T>,
    shared: bool,
    order: Option<&'a [i64]>,
    right: bool,
}

impl<T: Ordered> Search<'_, T> {
    /// The positions, as `O`, in a new contiguous array of the values' shape.
    fn run<O: Element>(&self, shape: &[usize], dim: usize) -> Result<Array> {
        let n = self.bounds.len();
        let strides = crate::dims::contiguous_strides(shape);
        let mut out = LinesOut::<O>::new(shape, &strides, dim)?;
        let steps = (usize::BITS - n.leading_zeros()) as usize + 1;
        let work = self.values.count() * self.values.len() * steps;
        let init = || (Vec::<T>::new(), Vec::<T>::new());
        fill_lines1(&mut out, work, grain_size(), init, |(b, v), m, line| {
            let row = if self.shared { 0 } else { m };
            self.bounds.read(row, b);
            self.values.read(m, v);
            let at = |k: usize| {
                let k = self.order.map_or(k, |o| o[row * n + k] as usize);
                Ordered::key(b[k])
            };
            for (slot, &x) in line.iter_mut().zip(v.iter()) {
                *slot = O::from_i64(bound(n, at, Ordered::key(x), self.right) as i64);
            }
        })?;
        Ok(out.finish())
    }
}

/// The dtype a Python number takes as `values` (torch wraps it as a 0-d int64, float64 or
/// bool tensor).
pub fn scalar_values_dtype(s: crate::Scalar) -> DType {
    match s {
        crate::Scalar::Bool(_) => DType::Bool,
        crate::Scalar::Int(_) | crate::Scalar::UInt(_) => DType::I64,
        crate::Scalar::Float(_) => DType::F64,
        _ => DType::C128,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_as_torch() {
        let b = [1.0f32, 2.0, 2.0, 3.0, f32::NAN];
        let at = |k: usize| b[k];
        assert_eq!(bound(5, at, 2.0, false), 1);
        // (a NaN boundary compares false, so torch walks past it: 5, as torch answers)
        assert_eq!(bound(5, at, 2.0, true), 5);
        assert_eq!(bound(4, at, 2.0, true), 3);
        assert_eq!(bound(5, at, f32::NAN, false), 5);
        assert_eq!(bound(5, at, 0.0, false), 0);
        assert_eq!(bound(0, at, 0.0, false), 0);
    }
}
