//! ferroiter: PyTorch's CPU TensorIterator rebuilt in Rust.
//!
//! The core is pure Rust (no Python): dtypes and torch's type rules ([`dtype`]), memory formats
//! and contiguity predicates ([`memory_format`]), broadcasting ([`shape`]), view layouts
//! ([`layout`]), and arrays over shared storages ([`mod@array`], [`storage`]). The optional
//! `python` feature adds the PyO3 binding in `py`.
#![warn(missing_docs)]

pub mod advanced_index;
pub mod array;
pub mod blocked;
pub mod dims;
pub mod dtype;
pub mod error;
pub mod exec;
pub mod kernels;
pub mod layout;
pub mod linalg;
pub mod manip;
pub mod memory_format;
pub mod plan;
pub mod scalar;
pub mod settings;
pub mod shape;
pub mod sort;
pub mod storage;
pub mod strides;
pub mod warnings;

#[cfg(feature = "python")]
mod py;

pub use array::Array;
pub use dtype::DType;
pub use error::{Error, ErrorKind, Result};
pub use layout::{IndexItem, Layout};
pub use memory_format::MemoryFormat;
pub use plan::{TensorIterator, TensorIteratorConfig};
pub use scalar::Scalar;
