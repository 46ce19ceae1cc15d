//! Execution: walking an iteration plan. [`dim_counter`] is the 2-D walk over a linear range,
//! [`chunks`] the split among threads, [`tiled`] when and how to cut blocks into cache-sized
//! tiles, [`for_each`] runs a loop (serial or parallel on the
//! [`pool`]), and [`raw`] holds the typed inner loops — the only raw memory access of the core
//! besides `storage.rs`.

pub mod chunks;
pub mod dim_counter;
mod for_each;
pub mod pool;
pub mod raw;
pub mod tiled;

pub use chunks::GRAIN_SIZE;
pub use for_each::for_each;
pub use pool::{get_num_threads, set_num_threads};
pub use raw::Block;
