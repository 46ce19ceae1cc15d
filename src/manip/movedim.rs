//! Views that reorder or split dims: `movedim(a, source, destination)` (a permutation: the
//! named dims go to their destinations, the rest keep their order in the free places) and
//! `unbind(a, dim)` (one view per index along `dim`).
#![forbid(unsafe_code)]

use super::select;
use crate::array::Array;
use crate::error::{Error, Result};
use crate::shape::{fmt_shape, wrap_dim};

/// `movedim(a, source, destination)`.
pub fn movedim(a: &Array, source: &[i64], destination: &[i64]) -> Result<Array> {
    let ndim = a.ndim();
    if source.len() != destination.len() {
        return Err(Error::value(format!(
            "movedim: Invalid source or destination dims: source ({} dims) should contain the same number of dims as destination ({} dims)",
            fmt_shape(source),
            fmt_shape(destination)
        )));
    }
    let wrap_all =
        |dims: &[i64]| -> Result<Vec<usize>> { dims.iter().map(|&d| wrap_dim(d, ndim)).collect() };
    let (src, dst) = (wrap_all(source)?, wrap_all(destination)?);
    let repeated = |dims: &[usize]| dims.iter().enumerate().any(|(i, d)| dims[..i].contains(d));
    if repeated(&src) {
        return Err(Error::value(format!(
            "movedim: repeated dim in `source` ({})",
            fmt_shape(source)
        )));
    }
    if repeated(&dst) {
        return Err(Error::value(format!(
            "movedim: repeated dim in `destination` ({})",
            fmt_shape(destination)
        )));
    }
    if ndim <= 1 {
        return a.with_layout(a.layout().clone());
    }
    let mut order: Vec<Option<usize>> = vec![None; ndim];
    for (&s, &d) in src.iter().zip(&dst) {
        order[d] = Some(s);
    }
    let mut rest = (0..ndim).filter(|d| !src.contains(d));
    let perm: Vec<i64> = order
        .into_iter()
        .map(|o| o.or_else(|| rest.next()).unwrap_or(0) as i64)
        .collect();
    a.permute(&perm)
}

/// `unbind(a, dim)`.
pub fn unbind(a: &Array, dim: i64) -> Result<Vec<Array>> {
    let wrapped = wrap_dim(dim, a.ndim())?;
    if a.ndim() == 0 {
        return Err(Error::index(format!(
            "Dimension specified as {wrapped} but tensor has no dimensions"
        )));
    }
    (0..a.shape()[wrapped])
        .map(|i| select(a, wrapped, i))
        .collect()
}
