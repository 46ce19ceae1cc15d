//! The TensorIterator: from operands in any layouts to an immutable iteration plan, by torch's
//! phases (`build.rs`), with every decision recorded for `explain()`.
//!
//! **Dimension order.** Inside the plan, dim 0 is the *fastest* dim (the one with the smallest
//! strides after `reorder_dimensions`), as in torch. `perm[k]` is the logical (user-facing)
//! dim that plan dim `k` comes from. Strides in the plan are in bytes.
#![forbid(unsafe_code)]

mod build;
mod config;
mod dim_counter;
mod direct;
mod iterator;
mod operand;
mod overlap;
pub mod reduction;
mod resize;
mod trace;

pub use config::{Input, TensorIteratorConfig};
pub(crate) use dim_counter::{DimCounter, INLINE_DIMS};
pub(crate) use direct::{direct_operands, DirectOperands, MAX_DIRECT_INPUTS};
pub use iterator::{FastSetup, Step, TensorIterator};
pub use operand::Operand;
pub use overlap::{overlap_status, Overlap};
pub use resize::{resize_output, resize_warning};

#[cfg(test)]
mod tests;
