//! Kernels, generic over the element type: copy/convert, and the elementwise operations.
//! Each kernel builds a plan with torch's preset for its operation, then runs a typed loop
//! from `exec::raw` over it.
#![forbid(unsafe_code)]

pub mod copy;
pub mod dispatch;
pub mod element;
pub mod elementwise;
pub mod halfconv;
pub mod math;
pub mod run;
