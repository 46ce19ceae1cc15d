//! Execution: walking an iteration plan. The 2-D walk over a linear range lives in
//! [`dim_counter`], the split among threads in [`chunks`].

pub mod chunks;
pub mod dim_counter;
