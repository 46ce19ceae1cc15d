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
        // no branch per element: each of a line's positions is stored in a scratch and the
        // count moves past it only when the element is non-zero (a random mask would
        // mispredict every other branch)
        let mut found = Vec::new();
        let mut scratch = vec![0usize; len];
        let mut buf = Vec::new();
        for m in 0..lines.count() {
            lines.read(m, &mut buf);
            let mut count = 0usize;
            for (j, x) in buf.iter().enumerate() {
                scratch[count] = m * len + j;
                count += x.nonzero() as usize;
            }
            found.extend_from_slice(&scratch[..count]);
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
            // (p / inner) % size without a division per position: the positions ascend, so
            // the remainder and the coordinate are carried from one to the next (at most
            // numel / inner + n steps in all)
            let inner: usize = shape[d + 1..].iter().product();
            let (mut previous, mut rest, mut coordinate) = (0usize, 0usize, 0usize);
            for (slot, &p) in column.iter_mut().zip(&found) {
                rest += p - previous;
                previous = p;
                while rest >= inner {
                    rest -= inner;
                    coordinate += 1;
                    if coordinate == shape[d] {
                        coordinate = 0;
                    }
                }
                *slot = coordinate as i64;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::element::Bool;

    /// Each column holds `(p / inner) % size` of every non-zero position `p`, for sparse and
    /// dense masks (long gaps between positions, runs of them).
    #[test]
    fn coordinates_are_the_positions_divided() {
        let shape = [3usize, 5, 7];
        for pattern in [
            |i: usize| i.is_multiple_of(3),
            |i: usize| i % 29 == 5,
            |i: usize| i > 90,
        ] {
            let flags: Vec<Bool> = (0..105).map(|i| Bool::new(pattern(i))).collect();
            let a = Array::from_values(&flags, &shape).unwrap();
            let got = nonzero(&a).unwrap();
            let positions: Vec<usize> = (0..105).filter(|&i| pattern(i)).collect();
            assert_eq!(got.shape(), &[positions.len(), 3]);
            for (d, column) in nonzero_tuple(&a).unwrap().iter().enumerate() {
                let inner: usize = shape[d + 1..].iter().product();
                let expected: Vec<i64> = positions
                    .iter()
                    .map(|&p| ((p / inner) % shape[d]) as i64)
                    .collect();
                assert_eq!(column.to_values::<i64>().unwrap(), expected);
            }
        }
    }
}
