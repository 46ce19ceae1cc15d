//! Memory overlap, all of it: torch's `MemoryOverlap.cpp` checks at build (an output may not
//! write one location twice, nor partially overlap an input; undecidable cases — "too hard" —
//! pass), and the questions the executor asks of a built plan: may its chunks run on
//! different threads ([`outputs_never_repeat`]), and may its walk order show in the results
//! ([`outputs_share_memory`]).

use super::TensorIterator;
use crate::error::{Error, Result};
use crate::Array;

/// How memory overlaps: torch's `MemOverlap` (`internal_overlap`: `No`, `Yes`, `TooHard`) and
/// `MemOverlapStatus` ([`overlap_status`]: `No`, `Full`, `Partial`, `TooHard`) in one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlap {
    /// No overlap.
    No,
    /// Internal overlap proven (a size>1 dim with stride 0).
    Yes,
    /// The two arrays address the same elements in the same way.
    Full,
    /// The two arrays share some memory but not in the same way.
    Partial,
    /// Undecided ("too hard"): a layout the checks cannot judge (not non-overlapping and dense);
    /// the checks let it pass.
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
        return Err(Error::Overlap { internal: true });
    }
    Ok(())
}

pub fn assert_no_partial_overlap(a: &Array, b: &Array) -> Result<()> {
    if overlap_status(a, b) == Overlap::Partial {
        return Err(Error::Overlap { internal: false });
    }
    Ok(())
}

/// A sufficient test for "no two indices share an address": sorted by |stride|, each dim's
/// stride exceeds the farthest reach of all faster dims (size-1 dims never matter).
pub fn provably_non_overlapping(shape: &[usize], strides: &[isize]) -> bool {
    let mut dims: Vec<(usize, usize)> = shape
        .iter()
        .zip(strides)
        .filter(|(&n, _)| n > 1)
        .map(|(&n, &s)| (n, s.unsigned_abs()))
        .collect();
    dims.sort_by_key(|&(_, s)| s);
    let mut reach = 0usize;
    for (n, s) in dims {
        if s <= reach {
            return false;
        }
        reach += (n - 1) * s;
    }
    true
}

/// Whether no output element can be reached twice: every output's layout is provably
/// non-overlapping, so chunks of the plan may run on different threads.
pub(crate) fn outputs_never_repeat(plan: &TensorIterator) -> bool {
    plan.operands[..plan.noutputs]
        .iter()
        .filter_map(|op| op.array.as_ref())
        .all(|a| provably_non_overlapping(a.shape(), a.strides()))
}

/// Whether an output's bytes may meet another operand's bytes (byte ranges intersect) without
/// being the very same view (same address and strides: an in-place op).
pub(crate) fn outputs_share_memory(plan: &TensorIterator) -> bool {
    let ops = plan.operands();
    (0..plan.noutputs()).any(|o| {
        (0..ops.len()).filter(|&k| k != o).any(|k| {
            let same_view = match (&ops[o].array, &ops[k].array) {
                (Some(a), Some(b)) => {
                    a.data_ptr() == b.data_ptr() && ops[o].stride_bytes == ops[k].stride_bytes
                }
                _ => false,
            };
            !same_view && spans_meet(plan, o, k)
        })
    })
}

/// Whether output 0's bytes may meet an input's (byte ranges intersect; the very same view
/// counts, as for an in-place op).
pub(crate) fn output_meets_an_input(plan: &TensorIterator) -> bool {
    plan.noutputs() > 0 && (plan.noutputs()..plan.operands().len()).any(|k| spans_meet(plan, 0, k))
}

/// Whether the byte ranges operands `a` and `b` reach over the plan's shape intersect (an
/// operand without an array reaches nothing).
fn spans_meet(plan: &TensorIterator, a: usize, b: usize) -> bool {
    match (byte_span(plan, a), byte_span(plan, b)) {
        (Some((lo_a, hi_a)), Some((lo_b, hi_b))) => lo_a < hi_b && lo_b < hi_a,
        _ => false,
    }
}

/// The bytes `[lo, hi)` operand `k` reaches over the plan's shape.
fn byte_span(plan: &TensorIterator, k: usize) -> Option<(usize, usize)> {
    let op = &plan.operands()[k];
    let base = op.array.as_ref()?.data_ptr();
    let (mut lo, mut hi) = (base, base + op.itemsize());
    for (d, &n) in plan.shape().iter().enumerate() {
        let reach = (n.saturating_sub(1)) * op.stride_bytes[d].unsigned_abs();
        if op.stride_bytes[d] < 0 {
            lo = lo.saturating_sub(reach);
        } else {
            hi += reach;
        }
    }
    Some((lo, hi))
}
