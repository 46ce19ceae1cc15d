//! Kernels, generic over the element type: copy/convert, and the elementwise operations.
//! Each kernel builds a plan with torch's preset for its operation (the op table,
//! [`table`]), then runs a typed loop from `exec::raw` over it.
//!
//! - [`table`]: the op table, one row per elementwise function;
//! - [`args`]: operands (arrays or Python numbers) and torch's rules for numbers;
//! - [`mod@binary`], [`pow`], [`mod@unary`], [`ternary`]: the functions, by family;
//! - [`copy`]: `copy_` and dtype conversion; [`run`]: copy-in / cast-back around a loop;
//! - [`element`], [`math`], [`halfconv`]: element types and their scalar math ([`series`]:
//!   the Taylor tables they share with the vector kernels); [`vecmath`]:
//!   the vector kernels of exp, expm1, log, log1p, sin, cos, tanh and sigmoid;
//!   [`dispatch`]: the one place a runtime dtype becomes a Rust type;
//! - [`user`]: users' own kernels, with declared dtypes, on the same plans.

#![forbid(unsafe_code)]

pub mod args;
pub mod binary;
pub mod blocked;
pub mod complex_parts;
pub mod copy;
pub mod dispatch;
pub mod element;
pub mod elementary;
pub mod halfconv;
pub mod integer;
pub mod math;
pub mod pow;
pub mod predicates;
pub mod reduce;
pub mod run;
pub mod series;
pub mod table;
pub mod ternary;
pub mod unary;
pub mod user;
pub mod vecmath;

pub use args::Arg;
pub use binary::binary;
pub use table::{BinaryOp, Preset, UnaryOp};
pub use ternary::{clamp, where_};
pub use unary::unary;
