//! `repeat_interleave(a, repeats, dim)`: each slice along `dim` repeated `repeats` times (one
//! count, or one per slice), as torch computes it: the counts become an index vector and the
//! slices are gathered with `index_select` (no dim: `a` flattened first).
#![forbid(unsafe_code)]

use super::gather::{index_select, int64_vector};
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::copy::reshape;
use crate::shape::wrap_dim;

/// How many times each slice repeats.
#[derive(Debug, Clone)]
pub enum Repeats {
    /// One count for every slice.
    Count(i64),
    /// An integer array of counts: 0-d (one for all) or 1-D (one per slice).
    Counts(Array),
}

/// `repeat_interleave(a, repeats, dim)`.
pub fn repeat_interleave(a: &Array, repeats: &Repeats, dim: Option<i64>) -> Result<Array> {
    let a = &crate::kernels::blocked::dense(a)?;
    let repeats = &match repeats {
        Repeats::Counts(r) => Repeats::Counts(crate::kernels::blocked::dense(r)?),
        count => count.clone(),
    };
    // torch's message names the dim as written
    let dim_written = dim.unwrap_or(0);
    let (input, dim) = match dim {
        // (torch's tensor-repeats path refuses any dim of a 0-d input)
        Some(d) if matches!(repeats, Repeats::Counts(_)) => {
            (a.clone(), crate::shape::wrap_dim_no_scalar(d, a.ndim())?)
        }
        Some(d) => {
            let wrapped = wrap_dim(d, a.ndim())?;
            if let Repeats::Count(n) = repeats {
                if *n < 0 {
                    return Err(Error::value("Repeats must be non-negative"));
                }
            }
            if a.ndim() == 0 {
                // torch's count path unsqueezes after `dim`, which a 0-d input lacks
                return Err(Error::index(format!(
                    "Dimension out of range (expected to be in range of [-1, 0], but got {})",
                    wrapped + 1
                )));
            }
            (a.clone(), wrapped)
        }
        None => (reshape(a, &[-1])?, 0),
    };
    let size = if input.ndim() == 0 {
        1
    } else {
        input.shape()[dim]
    };
    let counts: Vec<i64> = match repeats {
        Repeats::Count(n) => {
            if *n < 0 {
                return Err(Error::value("Repeats must be non-negative"));
            }
            vec![*n; size]
        }
        Repeats::Counts(r) => {
            if r.ndim() > 1 {
                return Err(Error::value("repeats must be 0-dim or 1-dim tensor"));
            }
            if !matches!(r.dtype(), DType::I32 | DType::I64) {
                return Err(Error::NotImplemented {
                    kernel: "repeat_interleave_cpu",
                    dtype: r.dtype(),
                });
            }
            let values = super::index_values(r)?;
            let values = if r.ndim() == 0 || values.len() == 1 {
                vec![values[0]; size]
            } else {
                if values.len() != size {
                    return Err(Error::value(format!(
                        "repeats must have the same size as input along dim, but got repeats.size(0) = {} and input.size({dim_written}) = {size}",
                        values.len()
                    )));
                }
                values
            };
            if values.iter().any(|&v| v < 0) {
                return Err(Error::value("repeats can not be negative"));
            }
            values
        }
    };
    // The index holds one entry per result slice: its length is checked, and its memory
    // reserved fallibly, so that huge repeats raise instead of aborting on allocation.
    let total = counts
        .iter()
        .try_fold(0i64, |sum, &c| sum.checked_add(c))
        .ok_or_else(|| {
            Error::value("repeat_interleave: the repeats sum to more than 2^63 - 1 slices")
        })? as usize;
    let mut index: Vec<i64> = Vec::new();
    index
        .try_reserve_exact(total)
        .map_err(|_| Error::OutOfMemory {
            bytes: total.saturating_mul(8),
        })?;
    for (i, &c) in counts.iter().enumerate() {
        index.extend(std::iter::repeat_n(i as i64, c as usize));
    }
    let len = index.len();
    index_select(&input, dim as i64, &int64_vector(&index, len)?)
}
