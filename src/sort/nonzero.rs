//! `nonzero(a)`: the indices of the non-zero elements (NaN counts, -0 does not) in row-major
//! order, as torch lays them out: an `(n, ndim)` int64 array with strides `(1, n)`, so that
//! each column (one dim's coordinates) is contiguous; `as_tuple` gives those columns (a 0-d
//! input counts as 1-D).
#![forbid(unsafe_code)]

use crate::error::Result;
use crate::exec::raw::lines::{fill_lines1, Lines, LinesOut};
use crate::kernels::reduce::Accumulate;
use crate::kernels::run::grain_size;
use crate::layout::IndexItem;
use crate::Array;

/// The row-major positions of `a`'s non-zero elements.
fn nonzero_positions(a: &Array) -> Result<Vec<usize>> {
    crate::dispatch_all!(a.dtype(), T => {
        let lines = Lines::<T>::new(a, a.ndim().saturating_sub(1))?;
        let len = lines.len();
        let mut found = Vec::new();
        let mut buf = Vec::new();
        for m in 0..lines.count() {
            lines.read(m, &mut buf);
            found.extend(buf.iter().enumerate().filter(|(_, x)| x.nonzero()).map(|(j, _)| m * len + j));
        }
        Ok(found)
    }, else Ok(Vec::new()))
}

/// `nonzero(a)`: `(n, ndim)` int64, strides `(1, n)`.
pub fn nonzero(a: &Array) -> Result<Array> {
    let a = &crate::kernels::blocked::dense(a)?;
    let found = nonzero_positions(a)?;
    let n = found.len();
    let shape = a.shape().to_vec();
    let mut out = LinesOut::<i64>::new(&[n, shape.len()], &[1, n as isize], 0)?;
    // line d is column d: the d-th coordinate of every position
    fill_lines1(
        &mut out,
        n * shape.len(),
        grain_size(),
        || (),
        |_, d, column| {
            let inner: usize = shape[d + 1..].iter().product();
            for (slot, &p) in column.iter_mut().zip(&found) {
                *slot = ((p / inner) % shape[d]) as i64;
            }
        },
    )?;
    Ok(out.finish())
}

/// `nonzero(a, as_tuple=True)`: one int64 array of coordinates per dim (a 0-d input as 1-D).
pub fn nonzero_tuple(a: &Array) -> Result<Vec<Array>> {
    let a = &crate::kernels::blocked::dense(a)?;
    let a = if a.ndim() == 0 {
        a.view(&[1])?
    } else {
        a.clone()
    };
    let all = nonzero(&a)?;
    (0..a.ndim())
        .map(|d| {
            all.index(&[
                IndexItem::Slice {
                    start: None,
                    stop: None,
                    step: None,
                },
                IndexItem::Int(d as i64),
            ])
        })
        .collect()
}
