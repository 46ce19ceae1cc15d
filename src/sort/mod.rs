//! Sorting, searching and sets with torch's semantics: [`sort`](sort::sort) and
//! [`argsort`](sort::argsort), [`searchsorted`](search::searchsorted),
//! [`nonzero`](nonzero::nonzero) and [`unique`](unique::unique). Each works a line at a time
//! through `exec::raw::lines` (lines in parallel, results independent of the thread count).
#![forbid(unsafe_code)]

pub mod key;
pub mod nonzero;
pub mod search;
#[allow(clippy::module_inception)]
pub mod sort;
pub mod unique;
