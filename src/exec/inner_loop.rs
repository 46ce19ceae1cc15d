//! The inner loop a block runs: torch's `cpu_kernel_vec` choice from the dim-0 byte strides.
//! One predicate for both what runs (the typed loops pick their path with [`InnerLoop::of`])
//! and what `explain()` says, so that the two cannot drift apart.
#![forbid(unsafe_code)]

/// The path of a typed loop over a block's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InnerLoop {
    /// Every operand steps by its element size: SIMD over slices.
    Vectorized,
    /// Input `k` (operand index) has stride 0, the others are contiguous: SIMD with that input
    /// splatted.
    ScalarBroadcast(usize),
    /// Anything else: a scalar loop over strides.
    Strided,
}

impl InnerLoop {
    /// The path for operands (outputs first, the first `noutputs` of them) with these dim-0
    /// byte strides and element sizes: vectorized when every operand is contiguous, else with
    /// the first input that has stride 0 broadcast when all the others are contiguous, else
    /// strided.
    #[inline]
    pub fn of(strides0: &[isize], itemsizes: &[usize], noutputs: usize) -> InnerLoop {
        let contiguous = |k: usize| strides0[k] == itemsizes[k] as isize;
        let n = strides0.len();
        if (0..n).all(contiguous) {
            return InnerLoop::Vectorized;
        }
        (noutputs..n)
            .find(|&s| strides0[s] == 0 && (0..n).all(|k| k == s || contiguous(k)))
            .map_or(InnerLoop::Strided, InnerLoop::ScalarBroadcast)
    }

    /// The `inner loop:` line of `explain()`.
    pub fn describe(self) -> String {
        match self {
            InnerLoop::Vectorized => {
                "vectorized (every operand's dim-0 stride is its element size)".to_string()
            }
            InnerLoop::ScalarBroadcast(s) => format!(
                "vectorized with operand {s} broadcast as a scalar (its dim-0 stride is 0, the \
                 rest contiguous)"
            ),
            InnerLoop::Strided => {
                "strided scalar loop (dim-0 strides are not all contiguous)".to_string()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::InnerLoop::{self, *};

    #[test]
    fn paths() {
        assert_eq!(InnerLoop::of(&[4, 4, 4], &[4; 3], 1), Vectorized);
        assert_eq!(InnerLoop::of(&[4, 0, 4], &[4; 3], 1), ScalarBroadcast(1));
        assert_eq!(InnerLoop::of(&[4, 4, 0], &[4; 3], 1), ScalarBroadcast(2));
        // both inputs broadcast, or the output: strided
        assert_eq!(InnerLoop::of(&[4, 0, 0], &[4; 3], 1), Strided);
        assert_eq!(InnerLoop::of(&[0, 4, 4], &[4; 3], 1), Strided);
        assert_eq!(InnerLoop::of(&[8, 4, 4], &[4; 3], 1), Strided);
        // element sizes per operand (a float64 output of float32 inputs)
        assert_eq!(InnerLoop::of(&[8, 4, 0], &[8, 4, 4], 1), ScalarBroadcast(2));
        // a 0-d plan (every stride 0) is strided
        assert_eq!(InnerLoop::of(&[0, 0], &[4, 4], 1), Strided);
    }
}
