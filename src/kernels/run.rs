//! Running a kernel on a plan: fill the inputs the build converted to the common dtype, run
//! the loop, cast outputs computed in a temporary back into the user's arrays.

use crate::error::Result;
use crate::exec::{for_each, Block};
use crate::plan::TensorIterator;

pub use crate::settings::grain_size;

/// Sets the grain size kernels run with (at least 1; [`crate::settings::set_grain_size`]
/// refuses 0 instead of raising it).
pub fn set_grain_size(grain: usize) {
    let _ = crate::settings::set_grain_size(grain.max(1));
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
