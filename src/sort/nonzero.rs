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
        // no branch per element: every position is stored and the count moves past it only
        // when the element is non-zero; the buffer is zeroed lazily, so only the pages
        // written are touched
        let mut found = vec![0usize; a.numel()];
        let mut count = 0usize;
        let mut buf = Vec::new();
        for m in 0..lines.count() {
            lines.read(m, &mut buf);
            for (j, x) in buf.iter().enumerate() {
                found[count] = m * len + j;
                count += x.nonzero() as usize;
            }
        }
        found.truncate(count);
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
