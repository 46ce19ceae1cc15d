//! A reduction with your own associative combine: the largest absolute value along dim 1 of a
//! channels_last-like (transposed) view. torch's reduction plan (`reduce_op`: the output
//! broadcast with stride 0 along the reduced dim) is built once; the combine runs over its
//! blocks, each output element folding the inputs that land on it. Such a plan's outputs reach
//! an element more than once, so `for_each` runs it on one thread: the combine needs no
//! atomics, and any associative `combine` gives the same result whatever the order.
//!
//! `cargo run --example custom_reduction`

use ferroiter::exec::{for_each, Block, GRAIN_SIZE};
use ferroiter::{Array, DType, MemoryFormat, Result, Scalar, TensorIteratorConfig};

/// Folds `x` (reduced along `dim`) into an array of `init` with `combine`, as float32.
fn reduce_with(
    x: &Array,
    dim: usize,
    init: f32,
    combine: impl Fn(f32, f32) -> f32 + Sync,
) -> Result<Array> {
    let mut shape = x.shape().to_vec();
    shape[dim] = 1;
    let out = Array::full(
        &shape,
        Scalar::Float(init as f64),
        DType::F32,
        MemoryFormat::Contiguous,
    )?;
    let plan = TensorIteratorConfig::reduce_op(out.clone(), x.clone()).build()?;
    for_each(&plan, GRAIN_SIZE, |blk: &Block| {
        for j in 0..blk.size1() {
            for i in 0..blk.size0() {
                let (acc, v) = (blk.at(0, i, j) as *mut f32, blk.at(1, i, j) as *const f32);
                // SAFETY: i < size0(), j < size1(); both operands are float32 and operand 0 is
                // the output (its element is written by this thread alone: the plan is serial).
                unsafe { *acc = combine(*acc, *v) };
            }
        }
    })?;
    Ok(out)
}

fn main() -> Result<()> {
    let (rows, cols) = (300, 7);
    let values: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 37) % 101) as f32 - 50.0)
        .collect();
    let x = Array::from_values(&values, &[cols, rows])?.transpose(0, 1)?; // (rows, cols), strided
    let largest = reduce_with(&x, 1, 0.0, |acc, v| acc.max(v.abs()))?;
    assert_eq!(largest.shape(), &[rows, 1]);
    let x = x.to_values::<f32>()?;
    let got = largest.to_values::<f32>()?;
    for r in 0..rows {
        let expected = x[r * cols..(r + 1) * cols]
            .iter()
            .fold(0.0f32, |a, v| a.max(v.abs()));
        assert_eq!(got[r], expected);
    }
    println!("max |x| of the first rows: {:?}", &got[..5]);
    Ok(())
}

#[cfg(test)]
#[test]
fn runs() {
    main().unwrap();
}
