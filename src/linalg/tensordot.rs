//! `tensordot(a, b, dims)`: the contracted dims of `a` moved last and `b`'s first, both
//! reshaped to matrices and multiplied (`matmul`'s GEMM); the result is `a`'s free dims then
//! `b`'s, contiguous. As in torch, a contracted dim of size 1 against a larger one is summed
//! away on the other side first, and the texts are torch's.
#![forbid(unsafe_code)]

use super::matmul::matmul;
use crate::error::{Error, Result};
use crate::kernels::copy::converted_copy;
use crate::kernels::reduce::{reduction, ReduceOp};
use crate::plan::reduction::wrap_dim;
use crate::{Array, MemoryFormat};

/// `tensordot`'s `dims`: a count (the last `n` dims of `a` against the first `n` of `b`) or
/// two lists.
#[derive(Debug, Clone)]
pub enum Dims {
    /// The last `n` dims of `a` against the first `n` of `b`.
    Count(i64),
    /// Dims of `a` against dims of `b`, pair by pair.
    Lists(Vec<i64>, Vec<i64>),
}

/// A view of `x` with `shape` when one exists, else a contiguous copy viewed so (torch's
/// `reshape`).
fn reshape(x: &Array, shape: &[i64]) -> Result<Array> {
    match x.view(shape) {
        Ok(v) => Ok(v),
        Err(_) => converted_copy(x, None, MemoryFormat::Contiguous)?.view(shape),
    }
}

/// `tensordot(a, b, dims)`.
pub fn tensordot(a: &Array, b: &Array, dims: &Dims) -> Result<Array> {
    let (a, b) = (
        &crate::kernels::blocked::dense(a)?,
        &crate::kernels::blocked::dense(b)?,
    );
    let (list_a, list_b) = match dims {
        Dims::Count(n) => {
            let n = *n;
            if n < 0 {
                return Err(Error::value(format!(
                    "tensordot expects dims >= 0, but got dims={n}"
                )));
            }
            if n as usize > a.ndim().min(b.ndim()) {
                return Err(Error::value(format!(
                    "tensordot expects dims < ndim_a or ndim_b, but got dims={n}"
                )));
            }
            ((-n..0).collect::<Vec<_>>(), (0..n).collect::<Vec<_>>())
        }
        Dims::Lists(x, y) => (x.clone(), y.clone()),
    };
    if list_a.len() != list_b.len() {
        return Err(Error::value("both dimension lists should have same length"));
    }
    if a.dtype() != b.dtype() {
        return Err(Error::value("both inputs should have same dtype"));
    }
    let (mut a, mut b) = (a.clone(), b.clone());
    let mut contracted_a = Vec::new();
    let mut contracted_b = Vec::new();
    for (&da, &db) in list_a.iter().zip(&list_b) {
        let (wa, wb) = (wrap_dim(da, a.ndim())?, wrap_dim(db, b.ndim())?);
        let (sa, sb) = (a.shape()[wa], b.shape()[wb]);
        if sa != sb {
            let sum_over = |x: &Array, d: usize| {
                reduction(
                    ReduceOp::Sum,
                    x,
                    Some(&[d as i64]),
                    true,
                    Some(x.dtype()),
                    None,
                )
            };
            if sb == 1 {
                a = sum_over(&a, wa)?;
            } else if sa == 1 {
                b = sum_over(&b, wb)?;
            } else {
                return Err(Error::value(format!(
                    "contracted dimensions need to match, but first has size {sa} in dim {da} and second has size {sb} in dim {db}"
                )));
            }
        }
        contracted_a.push(wa);
        contracted_b.push(wb);
    }
    // torch checks for repeats after the sizes, the first list first
    for contracted in [&contracted_a, &contracted_b] {
        for (i, d) in contracted.iter().enumerate() {
            if contracted[..i].contains(d) {
                return Err(Error::value(format!(
                    "dim {d} appears multiple times in the list of dims"
                )));
            }
        }
    }
    let free_a: Vec<usize> = (0..a.ndim())
        .filter(|d| !contracted_a.contains(d))
        .collect();
    let free_b: Vec<usize> = (0..b.ndim())
        .filter(|d| !contracted_b.contains(d))
        .collect();
    let size = |x: &Array, ds: &[usize]| ds.iter().map(|&d| x.shape()[d]).product::<usize>();
    let (m, k, n) = (
        size(&a, &free_a),
        size(&a, &contracted_a),
        size(&b, &free_b),
    );
    let order_a: Vec<i64> = free_a
        .iter()
        .chain(&contracted_a)
        .map(|&d| d as i64)
        .collect();
    let order_b: Vec<i64> = contracted_b
        .iter()
        .chain(&free_b)
        .map(|&d| d as i64)
        .collect();
    let ma = reshape(&a.permute(&order_a)?, &[m as i64, k as i64])?;
    let mb = reshape(&b.permute(&order_b)?, &[k as i64, n as i64])?;
    let shape: Vec<i64> = free_a
        .iter()
        .map(|&d| a.shape()[d] as i64)
        .chain(free_b.iter().map(|&d| b.shape()[d] as i64))
        .collect();
    matmul(&ma, &mb, None)?.view(&shape)
}
