//! Memory-overlap checks (torch's `MemoryOverlap.cpp` rules): an output may not write one
//! location twice, nor partially overlap an input. Undecidable cases ("too hard") pass.

use crate::error::{Error, Result};
use crate::Array;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlap {
    No,
    /// Internal overlap proven (a size>1 dim with stride 0).
    Yes,
    Full,
    Partial,
    TooHard,
}

/// Whether some element of `a` is addressed twice: only a size>1, stride-0 dim proves it.
pub fn internal_overlap(a: &Array) -> Overlap {
    let l = a.layout();
    if l.is_non_overlapping_and_dense() {
        return Overlap::No;
    }
    if l.shape
        .iter()
        .zip(&l.strides)
        .any(|(&n, &s)| n > 1 && s == 0)
    {
        Overlap::Yes
    } else {
        Overlap::TooHard
    }
}

/// How two arrays' memory relates, judged on dense byte ranges only.
pub fn overlap_status(a: &Array, b: &Array) -> Overlap {
    if a.numel() == 0 || b.numel() == 0 {
        return Overlap::No;
    }
    if !a.layout().is_non_overlapping_and_dense() || !b.layout().is_non_overlapping_and_dense() {
        return Overlap::TooHard;
    }
    if !a.shares_storage(b) {
        return Overlap::No;
    }
    let range = |x: &Array| (x.data_ptr(), x.data_ptr() + x.numel() * x.itemsize());
    let (a0, a1) = range(a);
    let (b0, b1) = range(b);
    if a0 == b0 && a1 == b1 {
        if a.strides() == b.strides() {
            Overlap::Full
        } else {
            Overlap::Partial
        }
    } else if a0 < b1 && b0 < a1 {
        Overlap::Partial
    } else {
        Overlap::No
    }
}

pub fn assert_no_internal_overlap(a: &Array) -> Result<()> {
    if internal_overlap(a) == Overlap::Yes {
        return Err(Error::value(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.",
        ));
    }
    Ok(())
}

pub fn assert_no_partial_overlap(a: &Array, b: &Array) -> Result<()> {
    if overlap_status(a, b) == Overlap::Partial {
        return Err(Error::value(
            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.",
        ));
    }
    Ok(())
}
