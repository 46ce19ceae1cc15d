//! Running a kernel on a plan: fill the inputs the build converted to the common dtype, run
//! the loop, cast outputs computed in a temporary back into the user's arrays.

use crate::error::Result;
use crate::exec::{for_each, Block};
use crate::plan::TensorIterator;
use std::sync::atomic::{AtomicUsize, Ordering};

static GRAIN: AtomicUsize = AtomicUsize::new(crate::exec::GRAIN_SIZE);

/// The grain size kernels run with (torch's 32768 unless changed, e.g. by tests that want
/// tiny arrays split among threads).
pub fn grain_size() -> usize {
    GRAIN.load(Ordering::Relaxed)
}

/// Sets the grain size kernels run with (at least 1).
pub fn set_grain_size(grain: usize) {
    GRAIN.store(grain.max(1), Ordering::Relaxed);
}

/// Runs `body` over the plan's blocks with the copy-in and cast-back torch does around it.
pub fn run(plan: &TensorIterator, body: impl Fn(&Block) + Sync) -> Result<()> {
    for op in plan.operands().iter().filter(|op| op.needs_copy_in()) {
        if let (Some(converted), Some(original)) = (&op.array, &op.original) {
            super::copy::copy_into(converted, original)?;
        }
    }
    for_each(plan, grain_size(), body)?;
    for op in plan.operands().iter().filter(|op| op.needs_cast_back()) {
        if let (Some(temp), Some(original)) = (&op.array, &op.original) {
            super::copy::copy_into(original, temp)?;
        }
    }
    Ok(())
}
