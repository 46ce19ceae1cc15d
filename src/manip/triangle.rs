//! `tril(a, diagonal)` and `triu(a, diagonal)`: a contiguous copy of `a` (torch's result
//! layout) with the elements above (tril) or below (triu) the chosen diagonal of every
//! matrix zeroed. The zeroing writes one strided run per row, across all batches at once.
#![forbid(unsafe_code)]

use super::{fill, narrow};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::kernels::copy::copy_into;
use crate::memory_format::MemoryFormat;
use crate::scalar::Scalar;

/// Which triangle is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Triangle {
    /// The lower triangle (`tril`): elements above the diagonal are zeroed.
    Lower,
    /// The upper triangle (`triu`): elements below the diagonal are zeroed.
    Upper,
}

/// `tril`/`triu`.
pub fn triangle(a: &Array, diagonal: i64, keep: Triangle) -> Result<Array> {
    let a = &crate::kernels::blocked::dense(a)?;
    if a.ndim() < 2 {
        let name = match keep {
            Triangle::Lower => "tril",
            Triangle::Upper => "triu",
        };
        return Err(Error::value(format!(
            "{name}: input tensor must have at least 2 dimensions"
        )));
    }
    let out = Array::empty(a.shape(), a.dtype(), MemoryFormat::Contiguous)?;
    if out.numel() == 0 {
        return Ok(out);
    }
    copy_into(&out, a)?;
    let (rows, cols) = (a.shape()[a.ndim() - 2], a.shape()[a.ndim() - 1]);
    let matrices = out.view(&[-1, rows as i64, cols as i64])?;
    for row in 0..rows {
        // the columns zeroed in this row: [from, to)
        // saturating: a diagonal near the i64 limits keeps (or zeroes) every column
        let edge = (row as i64).saturating_add(diagonal);
        let (from, to) = match keep {
            Triangle::Lower => (edge.saturating_add(1).clamp(0, cols as i64), cols as i64),
            Triangle::Upper => (0, edge.clamp(0, cols as i64)),
        };
        if from < to {
            let run = narrow(
                &narrow(&matrices, 1, row, 1)?,
                2,
                from as usize,
                (to - from) as usize,
            )?;
            fill(&run, Scalar::Int(0))?;
        }
    }
    Ok(out)
}
