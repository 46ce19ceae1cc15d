//! `eye(n, m)`: an `n×m` contiguous array of zeros with ones on its main diagonal (the
//! diagonal is a strided view of the result, filled through the copy kernel).
#![forbid(unsafe_code)]

use super::fill;
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::memory_format::MemoryFormat;
use crate::scalar::Scalar;

/// `eye(n, m=n, dtype)`.
pub fn eye(n: i64, m: Option<i64>, dtype: DType) -> Result<Array> {
    if n < 0 {
        return Err(Error::value(format!(
            "n must be greater or equal to 0, got {n}"
        )));
    }
    let m = m.unwrap_or(n);
    if m < 0 {
        return Err(Error::value(format!(
            "m must be greater or equal to 0, got {m}"
        )));
    }
    let (n, m) = (n as usize, m as usize);
    let out = Array::full(&[n, m], Scalar::Int(0), dtype, MemoryFormat::Contiguous)?;
    let diagonal = out.with_layout(Layout {
        shape: [n.min(m)].as_slice().into(),
        strides: [m as isize + 1].as_slice().into(),
        offset: 0,
    })?;
    fill(&diagonal, Scalar::Int(1))?;
    Ok(out)
}
