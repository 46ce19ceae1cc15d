//! torch's `DimCounter`: walks a linear range `[begin, end)` of an iteration space in 2-D
//! blocks — a partial first row, then whole (dim 0 × dim 1) blocks, then a partial tail — so
//! that the inner loop always runs over dims 0 and 1 with fixed strides.
//!
//! Part of the plan rather than of execution: it is pure index arithmetic on the iteration
//! shape (torch keeps it in `TensorIterator.h`), it defines the 2-D steps that
//! [`TensorIterator::loops`](super::TensorIterator::loops) reports, and the executor walks the
//! same steps with it (`exec` imports `plan`, never the reverse).

use smallvec::{smallvec, SmallVec};

/// Dims kept inline (no heap allocation) by the walk: plans of up to 8 dims after coalescing.
pub const INLINE_DIMS: usize = 8;

/// The multi-index of the next element to visit and the linear offset it stands for.
#[derive(Debug, Clone)]
pub struct DimCounter<'a> {
    shape: &'a [usize],
    end: usize,
    /// Position in each dim, fastest first (inline: a walk allocates nothing).
    pub values: SmallVec<[usize; INLINE_DIMS]>,
    /// Linear index of `values`.
    pub offset: usize,
}

impl<'a> DimCounter<'a> {
    /// Starts at linear index `begin`, unravelled fastest-first (size-0 dims are skipped).
    pub fn new(shape: &'a [usize], begin: usize, end: usize) -> Self {
        let mut values: SmallVec<[usize; INLINE_DIMS]> = smallvec![0; shape.len()];
        let mut rest = begin;
        for (v, &size) in values.iter_mut().zip(shape) {
            if size > 0 {
                *v = rest % size;
                rest /= size;
            }
        }
        DimCounter {
            shape,
            end,
            values,
            offset: begin,
        }
    }

    pub fn is_done(&self) -> bool {
        self.offset >= self.end
    }

    /// The largest 2-D block `(size0, size1)` starting here: the rest of the current row, or
    /// whole rows when the row is complete.
    pub fn max_2d_step(&self) -> (usize, usize) {
        let left = self.end - self.offset;
        let shape0 = self.shape.first().copied().unwrap_or(1);
        let step0 = (shape0 - self.values.first().copied().unwrap_or(0)).min(left);
        let mut step1 = 1;
        if step0 == shape0 && self.shape.len() > 1 {
            step1 = (self.shape[1] - self.values[1]).min(left / shape0);
        }
        (step0, step1)
    }

    /// Advances past a block returned by `max_2d_step`, carrying into the slower dims.
    pub fn increment(&mut self, (step0, step1): (usize, usize)) {
        self.offset += step0 * step1;
        let (mut dim, mut overflow) = if step1 != 1 { (1, step1) } else { (0, step0) };
        while dim < self.values.len() && overflow > 0 {
            let value = self.values[dim] + overflow;
            if value >= self.shape[dim] {
                overflow = 1;
                self.values[dim] = value - self.shape[dim];
            } else {
                overflow = 0;
                self.values[dim] = value;
            }
            dim += 1;
        }
    }
}

/// The 2-D blocks `(start multi-index, (size0, size1))` that a serial walk over `[begin, end)`
/// takes. With at most one dim there is a single block of the whole range.
pub(crate) fn blocks(
    shape: &[usize],
    begin: usize,
    end: usize,
) -> Vec<(Vec<usize>, (usize, usize))> {
    if begin >= end {
        return vec![];
    }
    if shape.len() <= 1 {
        let start = if shape.is_empty() {
            vec![]
        } else {
            vec![begin]
        };
        return vec![(start, (end - begin, 1))];
    }
    let mut counter = DimCounter::new(shape, begin, end);
    let mut out = Vec::new();
    while !counter.is_done() {
        let step = counter.max_2d_step();
        out.push((counter.values.to_vec(), step));
        counter.increment(step);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_example() {
        let shape = [64, 2000, 10];
        let numel = 64 * 2000 * 10;
        let b = blocks(&shape, 1_066_670, numel);
        assert_eq!(b[0], (vec![46, 666, 8], (18, 1)));
        assert_eq!(b[1], (vec![0, 667, 8], (64, 1333)));
        assert_eq!(b[2], (vec![0, 0, 9], (64, 2000)));
        let covered: usize = b.iter().map(|(_, (s0, s1))| s0 * s1).sum();
        assert_eq!(covered, numel - 1_066_670);
    }
}
