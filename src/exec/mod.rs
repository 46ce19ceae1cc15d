//! Execution: running an iteration plan. [`chunks`] is the split among threads, [`tiled`]
//! when and how to cut blocks into cache-sized tiles, [`copy_strategy`] how a same-dtype copy
//! runs, [`for_each`] runs a loop (serial or parallel on the [`pool`]), [`InnerLoop`] is the
//! path the typed loops take, and [`explain`] tells all of it for a plan. The raw-pointer half
//! is the crate-private `raw` module: the walk that hands out [`Block`]s, the typed inner
//! loops and tile packing — with `storage.rs` the only raw memory access of the core.

pub mod cache;
pub mod chunks;
pub mod copy_strategy;
pub mod cpu;
mod explain;
mod for_each;
mod inner_loop;
pub mod permute;
pub mod pool;
pub(crate) mod raw;
pub mod stores;
pub mod tasks;
pub mod tiled;

pub use chunks::GRAIN_SIZE;
pub use copy_strategy::CopyStrategy;
pub use explain::{explain, explain_copy, inner_loop};
pub use for_each::for_each;
pub(crate) use for_each::{for_each_copy, for_each_row, runs_as_row};
pub use inner_loop::InnerLoop;
pub use pool::{get_num_threads, in_parallel_region, parallel_for, set_num_threads};
pub use raw::loop2d::{ForeignLoop, Loop2dFn, MAX_OPERANDS};
pub use raw::Block;
